"""fastclip.clip_ufunc: a genuine numpy.ufunc with NumPy's machinery."""

import itertools
import pickle
import subprocess
import sys

import numpy as np
import pytest

import fastclip
from fastclip._dtypes import DTYPES, numpy_dtype
from tests.reference import BFLOAT16, assert_same, reference_clip

BUILTIN_ROWS = [row for row in DTYPES if row.char is not None]


def test_is_a_ufunc_made_from_the_table():
    u = fastclip.clip_ufunc
    assert isinstance(u, np.ufunc)
    assert (u.__name__, u.nin, u.nout, u.nargs) == ("clip", 3, 1, 4)
    assert u.types == [f"{r.char * 3}->{r.char}" for r in BUILTIN_ROWS]
    # the bfloat16 loop is registered for ml_dtypes.bfloat16
    x = np.array([-2, 0.5, 3], BFLOAT16)
    assert fastclip.clip_ufunc(x, BFLOAT16.type(-1), BFLOAT16.type(1)).dtype == BFLOAT16


def test_loop_order_is_numpys():
    """Same order as NumPy's clip loops, so the type search agrees."""
    numpy_order = [t[0] for t in np._core.umath.clip.types]
    ours = [t[0] for t in fastclip.clip_ufunc.types]
    assert ours == [c for c in numpy_order if c in ours]


DTYPES_FOR_PROMOTION = [numpy_dtype(r) for r in BUILTIN_ROWS]
SCALARS = [1, -1, 300, 0.5, 1e300, True]


@pytest.mark.parametrize("x_dtype", DTYPES_FOR_PROMOTION, ids=str)
def test_promotion_matches_numpy(x_dtype):
    """Result dtypes (or the error type) equal np._core.umath.clip's for every
    pair of kernel dtypes and for Python scalars (NEP 50 weak scalars)."""
    x = np.ones(3, x_dtype)
    others = [np.ones(3, d) for d in DTYPES_FOR_PROMOTION] + SCALARS
    checked = 0
    for lo, hi in itertools.product(others, [x[0], 2]):
        try:
            with np.errstate(all="ignore"):     # 1e300 into float16 overflows: dtypes only here
                expected = np._core.umath.clip(x, lo, hi).dtype
        except (TypeError, OverflowError) as e:
            with pytest.raises(type(e)):
                fastclip.clip_ufunc(x, lo, hi)
            continue
        with np.errstate(all="ignore"):
            assert fastclip.clip_ufunc(x, lo, hi).dtype == expected, (lo, hi)
        checked += 1
    assert checked > len(DTYPES_FOR_PROMOTION)


def test_broadcasting_out_where_dtype():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    lo = np.array([[1], [2], [3]], np.float32)
    hi = np.array([5, 6, 7, 8], np.float32)
    assert_same(fastclip.clip_ufunc(x, lo, hi), np._core.umath.clip(x, lo, hi))
    out = np.full((3, 4), -1, np.float32)
    mask = x % 2 == 0
    r = fastclip.clip_ufunc(x, lo, hi, out=out, where=mask)
    assert r is out
    assert (out[~mask] == -1).all() and (out[mask] == np.clip(x, lo, hi)[mask]).all()
    assert fastclip.clip_ufunc(x, 1, 5, dtype=np.float64).dtype == np.float64
    with pytest.raises(TypeError):   # casting float64 -> int8 is not same_kind
        fastclip.clip_ufunc(x, 1, 5, out=np.empty((3, 4), np.int8))


def test_pickle_round_trip():
    u = pickle.loads(pickle.dumps(fastclip.clip_ufunc))
    assert u is fastclip.clip_ufunc
    # and in a fresh process, which must import it by path
    code = ("import pickle, sys, numpy as np; u = pickle.loads(sys.stdin.buffer.read()); "
            "print(u(np.array([-3.0, 0.5, 9.0]), 0.0, 1.0).tolist())")
    out = subprocess.run([sys.executable, "-c", code], input=pickle.dumps(fastclip.clip_ufunc),
                         capture_output=True, check=True)
    assert out.stdout.decode().strip() == "[0.0, 0.5, 1.0]"


def test_dask_array_stays_lazy_and_uses_the_ufunc():
    da = pytest.importorskip("dask.array")
    x = np.linspace(-3, 3, 1000).astype(np.float32)
    dx = da.from_array(x, chunks=100)
    r = fastclip.clip(dx, -1.0, 1.0)
    assert isinstance(r, da.Array) and r.chunks == dx.chunks and r.dtype == np.float32
    # bfloat16 shows the chunks run fastclip's loop: np.clip would give float32
    xb = x.astype(BFLOAT16)
    rb = fastclip.clip(da.from_array(xb, chunks=64), -1.0, 1.0)
    assert isinstance(rb, da.Array) and rb.dtype == BFLOAT16
    assert_same(rb.compute(scheduler="synchronous"), reference_clip(xb, -1.0, 1.0))
    assert_same(r.compute(scheduler="synchronous"), np.clip(x, -1.0, 1.0))
    r2 = fastclip.clip_ufunc(dx, -1.0, 1.0)
    assert isinstance(r2, da.Array)
    assert_same(r2.compute(scheduler="synchronous"), np.clip(x, -1.0, 1.0))


def test_xarray_dataarray_keeps_its_type():
    xr = pytest.importorskip("xarray")
    data = np.linspace(-3, 3, 12).reshape(3, 4)
    arr = xr.DataArray(data, dims=("t", "c"), coords={"t": [10, 20, 30]}, name="v")
    r = fastclip.clip(arr, -1, 1)
    assert isinstance(r, xr.DataArray)
    assert r.dims == ("t", "c") and list(r.coords["t"].values) == [10, 20, 30]
    assert_same(r.values, np.clip(data, -1, 1))
