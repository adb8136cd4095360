"""Long strided runs: the strided loops work in blocks (a gather into a buffer,
the contiguous kernel, a scatter), so sizes around and past the block length
and every kind of step, for input and output, against np.clip / the reference."""

import itertools

import numpy as np
import pytest

import fastclip
from fastclip._dtypes import DTYPES, numpy_dtype
from tests.arrays import typical_bounds, values
from tests.reference import assert_same, reference_clip

BLOCK = 1024     # fastclip/_kernels.pyx.in
SIZES = [BLOCK - 1, BLOCK, BLOCK + 1, 3 * BLOCK + 7]
STEPS = [1, 2, 3, -1, -2]
DTYPES_ = [numpy_dtype(r) for r in DTYPES]


@pytest.mark.parametrize("dtype", DTYPES_, ids=str)
def test_long_strided_runs(dtype):
    rng = np.random.default_rng(12345)
    lo, hi = typical_bounds(dtype)
    for n, s_in, s_out in itertools.product(SIZES, STEPS, STEPS):
        a = values(dtype, n * abs(s_in), rng)[::s_in]
        assert a.size == n
        expected = reference_clip(a, lo, hi)
        assert_same(fastclip.clip(a, lo, hi), expected)
        out_base = np.zeros(n * abs(s_out), dtype)
        out = out_base[::s_out]
        assert fastclip.clip(a, lo, hi, out=out) is out
        assert_same(out.copy(), expected)
        # the elements between the strided ones are never written
        if abs(s_out) > 1:
            mask = np.ones(out_base.size, bool)
            mask[::s_out] = False
            assert not out_base.view(np.uint8).reshape(out_base.size, -1)[mask].any()


@pytest.mark.parametrize("dtype", DTYPES_, ids=str)
def test_two_d_views(dtype):
    """Transposed and column-strided 2-D views go through the ufunc with the
    same loops; the output layout is np.clip's."""
    rng = np.random.default_rng(7)
    base = values(dtype, 300 * 80, rng).reshape(300, 80)
    lo, hi = typical_bounds(dtype)
    for view in (base.T, base[:, ::2], base[::3, ::-2], base[:, 1:]):
        assert_same(fastclip.clip(view, lo, hi), reference_clip(view, lo, hi))
