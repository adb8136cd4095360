"""Run every kernel of the SIMD target in use through every layout, checking
each result against np.clip (bfloat16: the float32 route). For valgrind
(tools/valgrind) and ASan; prints what it checked."""

import os
import sys
import threading

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import fastclip  # noqa: E402
from fastclip import _threads, _ufunc  # noqa: E402
from fastclip._dtypes import DTYPES, numpy_dtype  # noqa: E402
from tests.reference import assert_same, check_three_ways, reference_clip  # noqa: E402
from tests.arrays import typical_bounds, values  # noqa: E402


def main():
    rng = np.random.default_rng(0)
    checks = 0
    for split in (False, True):
        if split:     # every call cut in two, chunk edges everywhere
            _ufunc._kernels.configure_threads(2, 0, threading.main_thread().ident,
                                              _ufunc.thread_pool())
        for row in DTYPES:
            dtype = numpy_dtype(row)
            lo, hi = typical_bounds(dtype)
            for n in (0, 1, 7, 64, 1025, 3000):
                for step in (1, 2, 3, -1):
                    a = values(dtype, n * abs(step), rng)[::step]
                    check_three_ways(fastclip.clip, a, lo, hi)
                    lo_a = values(dtype, n, rng)
                    hi_s = np.array(hi, dtype)[()]
                    assert_same(fastclip.clip_ufunc(a, lo_a, hi_s), reference_clip(a, lo_a, hi_s))
                    nan = np.array(np.nan, np.float32).astype(dtype)[()] if dtype.kind in "fV" else None
                    if nan is not None:
                        assert_same(fastclip.clip(a, nan, hi_s), reference_clip(a, nan, hi_s))
                    checks += 5
            two_d = values(dtype, 40 * 30, rng).reshape(40, 30)[:, ::2]
            assert_same(fastclip.clip(two_d, lo, hi), reference_clip(two_d, lo, hi))
            # a result big enough for the streaming stores
            big = values(dtype, (16 << 20) // dtype.itemsize + 77, rng)
            assert_same(fastclip.clip(big, lo, hi, out=np.empty_like(big)), reference_clip(big, lo, hi))
            checks += 2
    _threads._apply()
    print(f"target {_ufunc.SIMD_TARGET}: {checks} checks over {len(DTYPES)} kernels passed")


if __name__ == "__main__":
    main()
