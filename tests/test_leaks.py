"""No leaks: argument reference counts unchanged after many calls on every
path, NumPy's allocations (tracemalloc) and the process's memory (RSS) flat."""

import gc
import os
import sys
import tracemalloc

import ml_dtypes
import numpy as np
import pytest

import fastclip

BF16 = ml_dtypes.bfloat16
N_CALLS = 2000


def paths():
    """(name, arguments, call) for each way through fastclip.clip."""
    f = np.linspace(-3, 3, 1000, dtype=np.float32)
    out = np.empty_like(f)
    lo_arr = np.full(1000, -1, np.float32)
    b = f.astype(BF16)
    c = f.astype(np.complex64)
    u = np.arange(10, dtype=np.uint8)
    bad_out = np.empty(3, np.float32)
    two_d = np.linspace(-3, 3, 2000).reshape(20, 100)[:, ::2]
    scalar_lo = np.float32(-1)

    def raises(fn):
        def call():
            try:
                fn()
            except (TypeError, ValueError, OverflowError):
                pass
        return call

    return [
        ("fast-new", (f,), lambda: fastclip.clip(f, -1.0, 1.0)),
        ("fast-out", (f, out), lambda: fastclip.clip(f, -1.0, 1.0, out=out)),
        ("fast-inplace", (out,), lambda: fastclip.clip(out, -1.0, 1.0, out=out)),
        ("fast-2d", (two_d,), lambda: fastclip.clip(two_d, -1.0, 1.0)),
        ("fast-numpy-scalar", (f, scalar_lo), lambda: fastclip.clip(f, scalar_lo, 1.0)),
        ("ufunc-array-bounds", (f, lo_arr), lambda: fastclip.clip(f, lo_arr, 1.0)),
        ("ufunc-direct", (f, lo_arr, out), lambda: fastclip.clip_ufunc(f, lo_arr, 1.0, out=out)),
        ("bfloat16-python-bounds", (b,), lambda: fastclip.clip(b, -1.0, 1.0)),
        ("bfloat16-one-sided", (b,), lambda: fastclip.clip(b, None, 1.0)),
        ("numpy-fallback", (c,), lambda: fastclip.clip(c, -1, 1)),
        ("minimum-path", (f,), lambda: fastclip.clip(f, None, 1)),
        ("error-overflow", (u,), raises(lambda: fastclip.clip(u, 300, 400))),
        ("error-out-shape", (f, bad_out), raises(lambda: fastclip.clip(f, 0, 1, out=bad_out))),
        ("error-missing-bound", (f,), raises(lambda: fastclip.clip(f, 1))),
    ]


@pytest.mark.parametrize("name,args,call", paths(), ids=[p[0] for p in paths()])
def test_reference_counts_unchanged(name, args, call):
    for _ in range(10):
        call()
    gc.collect()
    dtypes = [a.dtype for a in args if hasattr(a, "dtype")]
    before = [sys.getrefcount(x) for x in (*args, *dtypes)]
    for _ in range(N_CALLS):
        call()
    gc.collect()
    after = [sys.getrefcount(x) for x in (*args, *dtypes)]
    assert after == before, name


@pytest.mark.parametrize("name,args,call", paths(), ids=[p[0] for p in paths()])
def test_numpy_allocations_do_not_grow(name, args, call):
    for _ in range(50):
        call()
    gc.collect()
    tracemalloc.start()
    try:
        for _ in range(200):
            call()
        gc.collect()
        first, _ = tracemalloc.get_traced_memory()
        for _ in range(N_CALLS):
            call()
        gc.collect()
        second, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # a leaked result would be 4 kB a call, 8 MB in all
    assert second - first < 64 * 1024, (name, second - first)


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.skipif("libasan" in os.environ.get("LD_PRELOAD", ""),
                    reason="ASan's quarantine keeps freed memory resident (tools/sanitize)")
def test_resident_memory_is_flat():
    a = np.random.default_rng(0).normal(size=100_000).astype(np.float32)   # 400 kB results
    for name, args, call in paths():
        call()
    for _ in range(200):
        fastclip.clip(a, -1, 1)
    gc.collect()
    start = rss_bytes()
    for _ in range(10):
        for _ in range(500):
            fastclip.clip(a, -1, 1)
        for name, args, call in paths():
            for _ in range(20):
                call()
    gc.collect()
    # 5000 leaked 400 kB results would be 2 GB
    assert rss_bytes() - start < 32 << 20
