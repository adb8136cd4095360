"""Hostile and odd inputs: the same behaviour as np.clip (result, exception
type, warnings), never a crash, never a write outside the output."""

import ml_dtypes
import numpy as np
import pytest

import fastclip
from tests.reference import compare as _compare, numpy_clip, outcome


def compare(make):
    """fastclip against NumPy's own clip, exception messages included."""
    return _compare(make, messages=True)


def f32(n=6):
    return np.linspace(-3, 3, n, dtype=np.float32)


# -- out that is not what it should be ------------------------------------

@pytest.mark.parametrize("make_out", [
    lambda a: [0.0] * a.size,                      # a list
    lambda a: memoryview(bytearray(a.nbytes)),     # a buffer, not an array
    lambda a: np.zeros(a.size + 1, a.dtype),       # wrong shape
    lambda a: np.zeros((a.size, 1), a.dtype),      # wrong shape, broadcastable the other way
    lambda a: np.zeros(a.size, np.int8),           # dtype it cannot cast to
    lambda a: np.zeros(a.size, np.complex64),      # a dtype it can
    lambda a: np.ma.zeros(a.size, np.float32),     # a subclass
    lambda a: 3.0,                                 # a scalar
], ids=["list", "memoryview", "shape", "shape-2d", "int8", "complex", "masked", "scalar"])
def test_bad_out(make_out):
    compare(lambda clip: (lambda a: clip(a, -1, 1, out=make_out(a)))(f32()))


def test_read_only_out_is_not_written():
    def make(clip):
        out = np.full(6, 7.0, np.float32)
        out.flags.writeable = False
        try:
            return clip(f32(), -1, 1, out=out)
        finally:
            assert (out == 7.0).all()
    compare(make)


def test_zero_size_with_mismatched_out():
    compare(lambda clip: clip(np.empty((0, 3)), 0, 1, out=np.empty((3, 0))))
    compare(lambda clip: clip(np.empty((0, 3)), 0, 1, out=np.empty((0, 3))))
    compare(lambda clip: clip(np.empty(0, np.float16), 0, 1, out=np.empty(1, np.float16)))


@pytest.mark.parametrize("casting", [None, 3, "bogus", "no"])
@pytest.mark.parametrize("bounds", [(0, None), (None, 0.5), (np.float64(0.5), None), (-1, 1)],
                         ids=["lower", "upper", "np-scalar-lower", "both"])
@pytest.mark.parametrize("out", [None, np.float32, np.float64, np.int16],
                         ids=["new", "out-own", "out-wider", "out-int"])
def test_a_casting_that_is_no_rule_is_numpys_error(casting, bounds, out):
    """casting=None, a number, a name of no rule, and a rule NumPy refuses
    for these operands: NumPy's error (TypeError or UFuncTypeError), or its
    result, on every route, one bound None included (np.maximum's)."""
    compare(lambda clip: clip(f32(), *bounds, casting=casting,
                              **({} if out is None else {"out": np.zeros(6, out)})))


# -- bounds that fight back -------------------------------------------------

class RaisesInFloat:
    def __float__(self):
        raise RuntimeError("no float for you")


class RaisesInIndex:
    def __index__(self):
        raise RuntimeError("no index for you")


class RaisesInArray:
    def __array__(self, dtype=None, copy=None):
        raise ValueError("no array for you")


@pytest.mark.parametrize("bound", ["1", b"1", RaisesInFloat(), RaisesInIndex(), RaisesInArray(),
                                   object(), [1, "x"], {1: 2}, 1 + 2j],
                         ids=["str", "bytes", "float-raises", "index-raises", "array-raises",
                              "object", "mixed-list", "dict", "complex"])
@pytest.mark.parametrize("dtype", [np.float32, np.int16, np.float16])
def test_hostile_bounds(bound, dtype):
    compare(lambda clip: clip(np.arange(-3, 4).astype(dtype), bound, 2))
    compare(lambda clip: clip(np.arange(-3, 4).astype(dtype), -1, bound))


def test_bound_that_mutates_the_input_while_the_call_runs():
    def make(clip):
        a = f32()

        class Mutates:
            def __array__(self, dtype=None, copy=None):
                a[:] = 0.25           # changes x after the call started
                return np.array(-1.0, dtype or np.float32)

        return clip(a, Mutates(), 1.0), a
    compare(make)


def test_bound_that_changes_the_dtype_of_the_input_array_under_us():
    def make(clip):
        a = f32(8)

        class Reshapes:
            def __array__(self, dtype=None, copy=None):
                a.shape = (2, 4)      # a different shape while the call runs
                return np.array(-1.0, np.float32)

        return clip(a, Reshapes(), 1.0)
    compare(make)


# -- arrays that are not plain arrays ----------------------------------------

class Wrapped(np.ndarray):
    """A subclass with __array_wrap__, as user code writes them."""

    def __array_wrap__(self, obj, context=None, return_scalar=False):
        r = super().__array_wrap__(obj, context, return_scalar)
        if isinstance(r, np.ndarray):
            r = r.view(Wrapped)
            r.tag = "wrapped"
        return r


class ArrayFunctionOnly:
    """Takes over np.clip through __array_function__."""

    def __array_function__(self, func, types, args, kwargs):
        return ("handled", func.__name__)


@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")  # np.matrix is a case
@pytest.mark.parametrize("make_a", [
    lambda: np.ma.masked_array([1.0, 5.0, -3.0, 2.0], mask=[0, 1, 0, 0]),
    lambda: np.matrix([[1, 5], [-3, 2]]),
    lambda: np.arange(-3, 4.0).view(Wrapped),
    lambda: np.rec.fromarrays([np.arange(3.0)]).f0,
], ids=["masked", "matrix", "wrap-subclass", "recarray-field"])
def test_subclasses(make_a):
    got = compare(lambda clip: clip(make_a(), 0, 2))
    assert type(got[1]) is type(numpy_clip(make_a(), 0, 2))


class Tagged(np.ndarray):
    """A subclass keeping ndarray's clip and ufunc dispatch, with state of its
    own, and the ufunc that made each result (from __array_wrap__'s context)."""

    def __array_finalize__(self, obj):
        self.tag = getattr(obj, "tag", "new")

    def __array_wrap__(self, obj, context=None, return_scalar=False):
        r = super().__array_wrap__(obj, context, return_scalar)
        if isinstance(r, Tagged):
            r.made_by = None if context is None else context[0]
        return r


class OwnUfunc(Tagged):
    """One with its own __array_ufunc__: NumPy's dispatch, and its ufunc."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        inputs = [i.view(np.ndarray) if isinstance(i, OwnUfunc) else i for i in inputs]
        if "out" in kwargs:
            kwargs["out"] = tuple(o.view(np.ndarray) if isinstance(o, OwnUfunc) else o
                                  for o in kwargs["out"])
        r = getattr(ufunc, method)(*inputs, **kwargs)
        r = r.view(OwnUfunc) if isinstance(r, np.ndarray) else r
        if isinstance(r, OwnUfunc):
            r.made_by = ufunc
        return r


def subclass_calls(a):
    """(bounds, kwargs) of the calls to compare on a subclass instance a."""
    lo, hi = (-2, 3) if a.dtype.kind in "iu" else (-1.5, 1.5)
    calls = [((lo, hi), {}), ((hi, lo), {}), ((lo, None), {}), ((None, hi), {}),
             ((np.full(a.shape, lo, a.dtype), hi), {}), ((lo, hi), {"out": a.copy()}),
             ((lo, hi), {"out": np.zeros(a.shape, a.dtype)}),
             ((lo, hi), {"where": np.arange(a.size).reshape(a.shape) % 2 == 0,
                         "out": np.zeros(a.shape, a.dtype)}),
             ((lo, hi), {"dtype": np.float64}), ((0.5, 2**70), {})]
    if a.dtype.kind in "iu":
        calls += [((-2**70, 2**70), {}), ((0.5, 2.5), {"out": a.copy()})]   # the last: NumPy's error
    return calls


@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")  # np.matrix is a case
@pytest.mark.parametrize("make_a", [
    lambda: np.asmatrix(np.linspace(-3, 3, 12).reshape(3, 4)),
    lambda: np.asmatrix(np.arange(-6, 6, dtype=np.int16).reshape(3, 4)),
    lambda: np.linspace(-3, 3, 24, dtype=np.float32).reshape(2, 3, 4).view(Tagged),
    lambda: np.arange(-12, 12, dtype=np.int32).view(Tagged)[::2],
    lambda: np.linspace(-3, 3, 2000).view(Tagged),
    lambda: np.linspace(-3, 3, 8).astype(ml_dtypes.bfloat16).view(Tagged),
    lambda: np.linspace(-3, 3, 8).view(OwnUfunc),
], ids=["matrix", "matrix-int16", "tagged-3d", "tagged-strided", "tagged-long", "tagged-bf16",
        "own-ufunc"])
def test_plain_subclasses_take_fastclips_ufunc(make_a):
    """A subclass that keeps ndarray's clip and dispatch gets np.clip's
    outcome (type, values, its own state, warnings, errors) by way of
    fastclip's ufunc where it has the loop (two bounds of a kernel dtype),
    NumPy's ufuncs otherwise; one with its own __array_ufunc__ NumPy's way."""
    fast_rows = 0
    for bounds, kwargs in subclass_calls(make_a()):
        def call(clip):
            a = make_a()
            a.tag = "mine"
            kw = {k: (v.view(type(a)) if k == "out" and isinstance(v, np.ndarray)
                      and v.shape == a.shape and type(a) is not np.matrix else v)
                  for k, v in kwargs.items()}
            return clip(a, *bounds, **kw)
        got = compare(call)
        expected = call(np.clip) if got[0] == "ok" else None
        if expected is None:
            continue
        assert type(got[1]) is type(expected), (bounds, kwargs)
        assert getattr(got[1], "tag", None) == getattr(expected, "tag", None)
        made_by = getattr(got[1], "made_by", None)
        if made_by is fastclip.clip_ufunc:
            fast_rows += 1
        elif made_by is not None:
            assert made_by is expected.made_by, (bounds, kwargs)
    a = make_a()
    if isinstance(a, Tagged) and not isinstance(a, OwnUfunc) and a.dtype != ml_dtypes.bfloat16:
        assert fast_rows >= 4       # both bounds scalars, lo > hi, array lo, outs
    elif isinstance(a, Tagged):
        assert fast_rows == 0


@pytest.mark.parametrize("hard", [False, True])
def test_masked_arrays_keep_numpys_mask_data_and_fill(hard):
    """MaskedArray: where NumPy's keeps ndarray's clip (NumPy 2.5) it takes
    the subclass route (MaskedArray.__array_wrap__ makes the mask from the
    operands'), elsewhere NumPy's own; either way np.clip's data, mask,
    fill value and hardness, masked bounds and outs included."""
    rng = np.random.default_rng(21)

    def make(n=3000, dtype=np.float64):
        return np.ma.masked_array((rng.normal(size=n) * 3).astype(dtype),
                                  mask=rng.random(n) < 0.3, fill_value=7, hard_mask=hard)
    for dtype in (np.float64, np.float32, np.int32):
        a = make(dtype=dtype)
        lo_m = np.ma.masked_array(np.full(a.size, -1, dtype), mask=rng.random(a.size) < 0.2)
        calls = [((-1, 2), {}), ((lo_m, 2), {}), ((None, 2), {}), ((np.full(a.size, -1, dtype), 2), {}),
                 ((-1, 2), {"out": np.ma.masked_array(np.zeros(a.size, dtype), mask=False)}),
                 ((-1, 2), {"out": np.zeros(a.size, dtype)}), ((-1, 2), {"out": a.copy()})]
        for bounds, kwargs in calls:
            got = outcome(lambda: fastclip.clip(a.copy(), *bounds,
                                                **{k: v.copy() for k, v in kwargs.items()}))
            exp = outcome(lambda: numpy_clip(a.copy(), *bounds,
                                          **{k: v.copy() for k, v in kwargs.items()}))
            assert got[0] == exp[0] == "ok" and got[2] == exp[2]
            g, e = got[1], exp[1]
            assert type(g) is type(e)
            assert np.asarray(g).tobytes() == np.asarray(e).tobytes()
            if isinstance(e, np.ma.MaskedArray):
                assert np.array_equal(np.ma.getmaskarray(g), np.ma.getmaskarray(e))
                assert g.fill_value == e.fill_value and g.hardmask == e.hardmask


def test_array_function_object():
    assert fastclip.clip(ArrayFunctionOnly(), 0, 1) == numpy_clip(ArrayFunctionOnly(), 0, 1)


# -- shapes and sizes -------------------------------------------------------------

def test_32_dimensions():
    base = np.arange(2 * 3 * 4, dtype=np.float64).reshape((1,) * 29 + (2, 3, 4)) - 10
    compare(lambda clip: clip(base, -3, 5))
    compare(lambda clip: clip(base.T, -3, 5))                       # 32-d, not contiguous
    compare(lambda clip: clip(base[..., ::2], -3, 5, out=np.zeros(base[..., ::2].shape)))
    compare(lambda clip: clip(np.empty((1,) * 33), 0, 1))           # NumPy's limit is 64


def test_nothing_outside_the_output_is_written():
    """A strided out inside a guarded buffer: the gaps and the guards keep
    their values, for the fast path, the ufunc path and a 2-D view."""
    for dtype in (np.uint8, np.float32, np.float64, np.float16, ml_dtypes.bfloat16):
        guard = np.full(3000, 0x5A, np.uint8)
        body = guard[64:-64].view(np.uint8)
        out = body.view(dtype)[: (body.size // np.dtype(dtype).itemsize) // 3 * 3][::3]
        a = np.linspace(-5, 5, out.size).astype(dtype)
        before = guard.copy()
        fastclip.clip(a, -1, 1, out=out)
        touched = np.zeros(guard.size, bool)
        start = out.__array_interface__["data"][0] - guard.__array_interface__["data"][0]
        step, size = out.strides[0], np.dtype(dtype).itemsize
        for i in range(out.size):
            touched[start + i * step: start + i * step + size] = True
        assert (guard[~touched] == before[~touched]).all(), dtype
