"""More than 2**31 elements, in every kernel family (int, float, float16,
bfloat16): indices, sizes and the thread split must not overflow 32 bits.
In place where it saves memory (a float32 array of 2**31 elements is 8 GiB)."""

import gc

import ml_dtypes
import numpy as np
import pytest

import fastclip
from tests.reference import reference_clip

N = 2**31 + 4096 + 3        # past 2**31, not a multiple of any vector width or chunk


def patterned(dtype, pattern):
    """N elements repeating `pattern` (256 values), or skip without the memory."""
    try:
        a = np.empty(N, dtype)
    except MemoryError:
        pytest.skip(f"not enough memory for {N * np.dtype(dtype).itemsize >> 30} GiB")
    full = (N // pattern.size) * pattern.size
    a[:full].reshape(-1, pattern.size)[:] = pattern
    a[full:] = pattern[: N - full]
    return a, full


#: rows compared at a time: a whole array's comparison made a bool temporary
#: of up to 2 GiB, on top of the array, in every test
CHECK_BLOCK = 2**24


def check(a, full, expected):
    """a holds `expected` repeated: every row, the tail, the 2**31 seam."""
    size = expected.size
    for start in range(0, full, CHECK_BLOCK):
        stop = min(start + CHECK_BLOCK, full)
        assert (a[start:stop].reshape(-1, size) == expected).all(), f"elements {start}-{stop}"
    assert (a[full:] == expected[: N - full]).all()
    seam = np.arange(2**31 - 300, 2**31 + 300)
    assert (a[seam] == expected[seam % size]).all()


def test_int8_new_output_and_in_place():
    pattern = np.arange(256, dtype=np.uint8).view(np.int8)
    a, full = patterned(np.int8, pattern)
    expected = np.clip(pattern, -10, 20)
    r = fastclip.clip(a, -10, 20)
    assert r.shape == (N,) and r.dtype == np.int8
    check(r, full, expected)
    del r
    fastclip.clip(a, -10, 20, out=a)
    check(a, full, expected)
    del a
    gc.collect()


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16],
                         ids=["float32", "float16", "bfloat16"])
def test_float_families_in_place(dtype):
    pattern = np.linspace(-4, 4, 256).astype(dtype)
    pattern[7] = np.nan
    a, full = patterned(dtype, pattern)
    expected = reference_clip(pattern, -1.0, 2.0)
    assert np.isnan(expected[7].astype(np.float32))
    fastclip.clip(a, -1.0, 2.0, out=a)
    view = np.dtype(dtype).itemsize
    bits = {2: np.uint16, 4: np.uint32}[view]
    check(a.view(bits), full, expected.view(bits))
    del a
    gc.collect()
