"""Every float32 bit pattern through each fused float32 narrowing (csrc/
convert.h), against NumPy's (and ml_dtypes') clip-then-cast.

    python tools/convert_check.py [--pairs float32->uint8,...] [--chunk-log2 24]

For each pair the bounds are the destination's extremes, so nearly every
value is converted rather than clipped; NaN patterns are counted apart (the
fused loop hands a call with a NaN to NumPy, which tests/test_convert.py
checks). Prints, per pair, the patterns compared and the mismatches; exits 1
on any mismatch. All 2**32 patterns take minutes per pair; CI runs a sampled
part (tests/test_convert_rounding.py::test_sampled_float32_patterns).
"""

import argparse
import sys
import time

import numpy as np

from fastclip import _ufunc
from fastclip._dtypes import CONVERSIONS, DTYPES, finite_range, numpy_dtype


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pairs", help="comma-separated, e.g. float32->float16 (default: all "
                   "float32 narrowings)")
    p.add_argument("--chunk-log2", type=int, default=24)
    args = p.parse_args(argv)
    rows = {r.name: numpy_dtype(r) for r in DTYPES}
    pairs = [(rows[s], rows[d]) for s, d in CONVERSIONS if rows[s] == np.float32]
    if args.pairs:
        wanted = set(args.pairs.split(","))
        pairs = [(s, d) for s, d in pairs if f"{s.name}->{d.name}" in wanted]
    chunk = 1 << args.chunk_log2
    bad_total = 0
    for src, dst in pairs:
        lo, hi = finite_range(dst)
        t0 = time.time()
        compared = nans = bad = 0
        o1 = np.empty(chunk, dst)
        o2 = np.empty(chunk, dst)
        for start in range(0, 2**32, chunk):
            x = np.arange(start, start + chunk, dtype=np.uint64).astype(np.uint32).view(np.float32)
            keep = ~np.isnan(x)
            x = x[keep]
            nans += chunk - x.size
            a, b = o1[:x.size], o2[:x.size]
            if not _ufunc._for_tests("convert", x, lo, hi, a, "unsafe"):
                raise SystemExit(f"{src.name}->{dst.name}: the fused loop did not take the call")
            np.clip(x, lo, hi, out=b, casting="unsafe")
            diff = np.flatnonzero(a.view(f"u{dst.itemsize}") != b.view(f"u{dst.itemsize}"))
            if diff.size:
                bad += diff.size
                i = diff[0]
                print(f"  mismatch at float32 bits {x.view(np.uint32)[i]:#010x}: "
                      f"got {a[i]!r}, expected {b[i]!r}", flush=True)
            compared += x.size
        bad_total += bad
        print(f"{src.name}->{dst.name}: {compared} patterns compared (+{nans} NaN patterns "
              f"left to NumPy), {bad} mismatches, {time.time() - t0:.0f} s", flush=True)
    return 1 if bad_total else 0


if __name__ == "__main__":
    sys.exit(main())
