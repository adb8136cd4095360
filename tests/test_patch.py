"""fastclip as numpy.clip for a whole program.

The calls real libraries make through np.clip, each routed to NumPy by
fastclip (scalars, lists, MaskedArrays, dtypes without a kernel, duck arrays
with a missing bound), give under the patch exactly what NumPy gives without
it, and never recurse; the patch turns on and off exactly, from any thread.
"""

import threading

import numpy as np
import pytest

import fastclip
from fastclip import _numpy_fallback
from tests.reference import assert_same_outcome, numpy_clip, outcome

# every test here patches numpy.clip, which is one for the whole process
pytestmark = pytest.mark.thread_unsafe(reason="patches numpy.clip for the whole process")


@pytest.fixture(autouse=True)
def unpatched_afterwards():
    original = np.clip
    yield
    fastclip.unpatch_numpy()
    np.clip = original
    assert np.clip is numpy_clip


def _fresh_out(dtype, shape):
    return lambda: np.zeros(shape, dtype)


# (name, make the arguments afresh for each side) - from the table of
# calls seen in matplotlib, pandas, scipy, scikit-image, xarray
CALLS = [
    ("python int, int bounds (matplotlib ticker)", lambda: ((7, 0, 5), {})),
    ("python int, np.float64 bound", lambda: ((7, np.float64(0.5), 5), {})),
    ("np.float64 scalar (pandas nanops)", lambda: ((np.float64(1.5), -1.0, 1.0), {})),
    ("np.float32 scalar, NaN", lambda: ((np.float32("nan"), 0, 1), {})),
    ("python float, None bound (skimage adapthist)", lambda: ((0.3, None, 0.25), {})),
    ("python float, both bounds", lambda: ((-2.5, -1, 1), {})),
    ("MaskedArray (matplotlib colors)",
     lambda: ((np.ma.masked_array([1.0, 5.0, -3.0], mask=[0, 1, 0]), 0, 2), {})),
    ("list (matplotlib image)", lambda: (([1, 5, -3, 2.5], 0, 2), {})),
    ("tuple", lambda: (((1, 5, -3), 0, 2), {})),
    ("bool array with out", lambda: ((np.array([True, False]), False, True),
                                     {"out": np.zeros(2, bool)})),
    ("complex128 array (scipy nonlin)", lambda: ((np.array([1 + 2j, -3 + 0j]), -1, 1), {})),
    ("longdouble array with out", lambda: ((np.array([1.5, -7.0], np.longdouble), -1, 1),
                                           {"out": np.zeros(2, np.longdouble)})),
    ("float32 array, array bounds", lambda: ((np.linspace(-2, 2, 9, dtype=np.float32),
                                              np.full(9, -1, np.float32), 1.0), {})),
    ("int8 array, bound beyond its range", lambda: ((np.arange(-5, 5, dtype=np.int8), 0, 300), {})),
    ("min= max= keywords", lambda: ((np.arange(5.0),), {"min": 1, "max": 3})),
    ("a_min > a_max", lambda: ((np.arange(5.0), 3, 1), {})),
    ("rejected: no bounds given", lambda: ((np.arange(3),), {})),
    ("rejected: string bound", lambda: ((np.arange(3.0), "a", 1), {})),
]

_NASTY = np.array([0.0, -0.0, np.nan, -np.inf, np.inf, 1.5, -1.5, 3e38], np.float64)


def _image(shape, dtype):
    """The same data at each call: normal values, NaN, zeros of both signs,
    infinities and a value past float32's range among them."""
    x = np.random.default_rng(8).normal(size=shape) * 2
    x.reshape(-1)[:_NASTY.size] = _NASTY
    with np.errstate(over="ignore"):
        return x.astype(dtype)


def _in_place(x, lo, hi):
    return (x, lo, hi), {"out": x}


# the calls tools/record_calls.py recorded in real programs (the caller named),
# NaNs, signed zeros and infinities among the data
CALLS += [
    ("Python float, Python float bounds (gymnasium MountainCar)",
     lambda: ((-0.0, -0.07, 0.07), {})),
    ("float32 (1,), float32 (1,) bounds (gymnasium ClipAction)",
     lambda: ((np.array([2.5], np.float32), np.array([-2.0], np.float32),
               np.array([2.0], np.float32)), {})),
    ("float32 (1,) NaN, float32 (1,) NaN bound (ClipAction's rule)",
     lambda: ((np.array([np.nan], np.float32), np.array([-2.0], np.float32),
               np.array([-np.nan], np.float32)), {})),
    ("float32 (1,) -0.0, float32 (1,) +0.0 bound (ClipAction's rule)",
     lambda: ((np.array([-0.0], np.float32), np.array([0.0], np.float32),
               np.array([2.0], np.float32)), {})),
    ("float32 (1,), Python float bounds (gymnasium Pendulum)",
     lambda: ((np.array([3.5], np.float32), -2.0, 2.0), {})),
    ("np.float64, Python int bounds (gymnasium Pendulum)",
     lambda: ((np.float64(-9.5), -8, 8), {})),
    ("float32 image, np.float64 bounds (matplotlib Normalize)",
     lambda: ((_image((216, 384), np.float32), np.float64(-1), np.float64(1)), {})),
    ("float32 image, np.float64 zero bound (Normalize with vmin=0)",
     lambda: ((_image((216, 384), np.float32), np.float64(0), np.float64(1)), {})),
    ("uint8 image, Python float bounds (skimage rescale_intensity)",
     lambda: ((np.random.default_rng(8).integers(0, 256, (108, 192, 3), dtype=np.uint8),
               50.0, 200.0), {})),
    ("uint8 image, (0.0, 255.0) (rescale_intensity's default in_range='image')",
     lambda: ((np.random.default_rng(8).integers(0, 256, (108, 192, 3), dtype=np.uint8),
               0.0, 255.0), {})),
    ("int16 image, np.int32 bounds (a wider integer loop)",
     lambda: ((np.random.default_rng(9).integers(-999, 999, (108, 192), dtype=np.int16),
               np.int32(-300), np.int32(40000)), {})),
    ("float64 image in place, Python float bounds (skimage unsharp_mask)",
     lambda: _in_place(_image((108, 192), np.float64), -1.0, 1.0)),
    ("float64 1-D, Python int bounds (scipy stats pmf)",
     lambda: ((_image(10**5, np.float64), 0, 1), {})),
]


@pytest.mark.parametrize("name, make", CALLS, ids=[c[0] for c in CALLS])
def test_library_calls_under_the_patch_are_numpys(name, make):
    args, kwargs = make()
    expected = outcome(lambda: numpy_clip(*args, **kwargs))
    with fastclip.patched():
        assert np.clip is fastclip.clip
        args, kwargs = make()
        got = outcome(lambda: np.clip(*args, **kwargs))
    assert got[1] is not RecursionError, got[3]
    assert_same_outcome(got, expected)


def test_dask_with_one_bound_none_under_the_patch():
    da = pytest.importorskip("dask.array")
    x = np.linspace(-3, 3, 100).reshape(10, 10)
    with fastclip.patched():
        y = np.clip(da.from_array(x, chunks=5), None, 1.0)     # xarray duck_array_ops
        assert isinstance(y, da.Array)
        got = y.compute()
    assert_same_outcome(("ok", got, [], None), ("ok", numpy_clip(x, None, 1.0), [], None))


def test_fallback_is_numpys_own_function_whatever_numpy_clip_is():
    """The hand-off is bound at import to NumPy's implementation, not looked up
    as numpy.clip (which a program may have bound to fastclip by hand)."""
    assert _numpy_fallback.numpy_clip is np._core.fromnumeric.clip
    np.clip = fastclip.clip                                  # the swap done by hand
    assert np.clip(np.float64(2.0), 0, 1) == 1.0
    assert np.clip([3, -3], -1, 1).tolist() == [1, -1]


def test_patch_is_idempotent_and_unpatch_restores_exactly():
    original = np.clip
    fastclip.patch_numpy()
    fastclip.patch_numpy()
    assert np.clip is fastclip.clip and fastclip.is_patched()
    fastclip.unpatch_numpy()
    assert np.clip is original and not fastclip.is_patched()
    fastclip.unpatch_numpy()
    assert np.clip is original


def test_unpatch_restores_a_function_that_was_not_numpys():
    def theirs(*args, **kwargs):
        return "theirs"
    np.clip = theirs
    fastclip.patch_numpy()
    assert np.clip is fastclip.clip
    fastclip.unpatch_numpy()
    assert np.clip is theirs


def test_unpatch_leaves_a_later_replacement_alone():
    def later(*args, **kwargs):
        return "later"
    original = np.clip
    fastclip.patch_numpy()
    np.clip = later
    fastclip.unpatch_numpy()
    assert np.clip is later
    np.clip = original


def test_patched_block_restores_even_on_error_and_nests():
    original = np.clip
    with pytest.raises(KeyError):
        with fastclip.patched():
            assert np.clip is fastclip.clip
            raise KeyError
    assert np.clip is original
    with fastclip.patched():
        with fastclip.patched():
            assert np.clip is fastclip.clip
        assert np.clip is fastclip.clip        # the outer block is still open
    assert np.clip is original


def test_patched_block_inside_patch_numpy_keeps_the_patch():
    original = np.clip
    fastclip.patch_numpy()
    with fastclip.patched():
        pass
    assert np.clip is fastclip.clip
    fastclip.unpatch_numpy()
    assert np.clip is original


def test_many_threads_patching_at_once():
    original = np.clip
    barrier = threading.Barrier(8)
    errors = []

    def work(k):
        try:
            barrier.wait()
            for _ in range(200):
                with fastclip.patched():
                    assert np.clip is fastclip.clip
                    r = np.clip(np.float64(k), 0, 3)     # a scalar: the hand-off to NumPy
                    assert r == min(k, 3)
                if k % 2:
                    fastclip.patch_numpy()
                    fastclip.unpatch_numpy()
        except Exception as exc:   # reported below, with the thread's number
            errors.append((k, exc))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert np.clip is original


def test_a_name_bound_before_patching_keeps_numpys_function():
    """What the docs say the patch cannot reach (README, patch_numpy)."""
    from numpy import clip as bound_early
    a = np.zeros(3)
    fastclip.patch_numpy()
    assert bound_early is numpy_clip
    assert type(a).clip is np.ndarray.clip      # the method of the built-in type
