"""Results wider than x, timed beside np.clip (medians of interleaved
repeats; fastclip on one thread, and on all threads, the default): an
integer image with Python float bounds, an int16 image with np.int32
bounds, and float32 with np.float64 bounds at three sizes. Each result is
checked against np.clip's first.

    python tools/widen_rows.py [REPEATS]      (FASTCLIP_SIMD=avx2 for that build)
"""
import sys

import numpy as np

import fastclip
from fastclip.bench.timing import time_interleaved, with_threads

ALL = fastclip.get_num_threads()
rng = np.random.default_rng(0)
img = rng.integers(0, 256, (1080, 1920, 3), dtype=np.uint8)
x24 = rng.standard_normal(2**24).astype(np.float32)
lo64, hi64 = np.float64(-0.5), np.float64(0.5)
rows = {
    "uint8 1080x1920x3, Python float bounds (a float64 result)": (img, 10.5, 200.5),
    "uint8 1080x1920x3, (0.0, 255.0) (rescale_intensity's default)": (img, 0.0, 255.0),
    "int16 1080x1920, np.int32 bounds (an int32 result)":
        (img[..., 0].astype(np.int16) - 100, np.int32(-50), np.int32(50)),
    "float32 n=16, np.float64 bounds": (x24[:16].copy(), lo64, hi64),
    "float32 n=1e5, np.float64 bounds": (x24[:100_000].copy(), lo64, hi64),
    "float32 n=2**24, np.float64 bounds": (x24, lo64, hi64),
}
repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 9
print(f"SIMD target {fastclip._ufunc.SIMD_TARGET}, medians of {repeats}; all threads = {ALL}")
for name, (a, lo, hi) in rows.items():
    assert np.array_equal(np.clip(a, lo, hi), fastclip.clip(a, lo, hi))
    t = time_interleaved({"np.clip": lambda: np.clip(a, lo, hi),
                          "fastclip": with_threads(1, lambda: fastclip.clip(a, lo, hi)),
                          "all": with_threads(ALL, lambda: fastclip.clip(a, lo, hi))}, repeats, 0.05)
    print(f"{name}: np.clip {t['np.clip'] * 1e6:.1f} us, fastclip one thread "
          f"{t['fastclip'] * 1e6:.1f} us, {t['np.clip'] / t['fastclip']:.2f}x; all threads "
          f"{t['all'] * 1e6:.1f} us, {t['np.clip'] / t['all']:.2f}x")
