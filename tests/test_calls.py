"""Every kind of call a user makes, against np.clip: Python and
NumPy scalars, 0-d arrays, lists and tuples as `a`, each with every kind of
scalar bound; where= into an out; casting; NumPy scalar bounds of another
type; one bound. The same result (type, dtype, bits), exception type and
warnings. The scalar path and the sequence path answer most of these without
NumPy; the rest must still be NumPy's answer. Array bounds: test_array_bounds.py;
loops wider than x: test_wider.py."""

import itertools
import warnings

import ml_dtypes
import numpy as np
import pytest

import fastclip
from fastclip import _ufunc
from fastclip._dtypes import DTYPES, numpy_dtype
from tests.arrays import KERNEL_DTYPES, typical_bounds, values
from tests.reference import (assert_same, assert_same_outcome, is_ml_float, numpy_clip,
                             outcome, reference_clip)

NAN = float("nan")

SCALARS = [
    1.5, -0.0, 0.0, NAN, float("inf"), -float("inf"), 1e300,
    7, -3, 0, 2**53 + 1, 2**62, 2**63 - 1, 2**63, 2**64, 2**70, -2**63, -2**70, True,
    np.float64(1.5), np.float64(-0.0), np.float64(NAN), np.float32(-2.5), np.float32(NAN),
    np.float16(3), np.float16(-0.0), np.int8(5), np.int8(-128), np.uint8(200),
    np.int16(-7), np.uint16(65535), np.int32(-5), np.uint32(7), np.int64(9),
    np.longlong(-9), np.uint64(2**63 + 5), np.ulonglong(3), np.bool_(True),
    ml_dtypes.bfloat16(2.5), np.longdouble(1.5), np.complex128(1 + 2j),
]
ZERO_D = [np.array(v) for v in SCALARS if not isinstance(v, int) or abs(v) < 2**63]
SEQUENCES = [[1, 5, -3], [1.5, NAN, -0.0, 2.5], (1, 2, 3), (0.5, -2.0), [], (),
             [[1, 2], [3, 4]], [True, False], [1, 2.5], [2**63, 1], [2**70, 1],
             list(range(16)), [np.float32(1), np.float32(5)], [1 + 1j, 2],
             [ml_dtypes.bfloat16(1), ml_dtypes.bfloat16(5)]]
BOUNDS = [
    (0, 1), (0.5, 2.5), (-1, None), (None, 0), (NAN, 1), (0, NAN), (-0.0, 0.0),
    (0.0, -0.0), (3, 1), (0, 300), (-129, 5), (-1, 2**64), (2**70, 1),
    (np.float64(0.5), 3), (np.float32(0.5), 3), (np.int8(1), np.int8(4)),
    (np.float16(0.5), np.float16(2)), (ml_dtypes.bfloat16(0.5), 2), (True, 5),
    (np.array(1.0), 2), (1e39, 1e40),
]


def _ids(values):
    return [f"{type(v).__name__}({v!r})"[:40] for v in values]


@pytest.mark.parametrize("a", SCALARS + ZERO_D + SEQUENCES, ids=_ids(SCALARS + ZERO_D + SEQUENCES))
def test_scalars_zero_d_and_sequences(a):
    for lo, hi in BOUNDS:
        got = outcome(lambda: fastclip.clip(a, lo, hi))
        expected = outcome(lambda: reference_clip(a, lo, hi))
        assert_same_outcome(got, expected)


@pytest.mark.parametrize("a", [1.5, 7, np.float32(3), np.array(2.0), [1, 5, -3], (1.5, -2.0)],
                         ids=_ids([1.5, 7, np.float32(3), np.array(2.0), [1, 5, -3], (1.5, -2.0)]))
def test_with_out_and_keywords(a):
    """out=, min=/max= and ufunc keywords with non-array inputs: NumPy's answer."""
    shape, dtype = np.shape(a), np.asarray(a).dtype
    for kwargs in ({"min": 0, "max": 1}, {"dtype": np.float32}, {"casting": "unsafe"}):
        got = outcome(lambda: fastclip.clip(a, **({} if "min" in kwargs else {"a_min": 0, "a_max": 1}),
                                            **kwargs))
        expected = outcome(lambda: numpy_clip(a, **({} if "min" in kwargs else {"a_min": 0, "a_max": 1}),
                                              **kwargs))
        assert_same_outcome(got, expected)

    def with_out(clip):
        out = np.zeros(shape, dtype)
        return clip(a, 0, 1, out=out), out, None
    assert_same_outcome(outcome(lambda: with_out(fastclip.clip)),
                        outcome(lambda: with_out(numpy_clip)), with_out=True)


def test_every_kernel_scalar_type_takes_the_scalar_path():
    """Not a speed test: the scalar path must answer for each kernel scalar type
    (a decline there would send the call the slow way, still correct)."""
    from fastclip import _ufunc
    for value in [1.5, 7] + [np.dtype(c).type(3) for c in "bBhHiIlLqQefd"]:
        assert _ufunc._for_tests("scalar", value, 0, 2) is True, type(value)
    for value in [True, 2**70, ml_dtypes.bfloat16(1), np.longdouble(1), "1"]:
        assert _ufunc._for_tests("scalar", value, 0, 2) is False, type(value)


def test_bounds_product_covers_pairs():
    """A guard on the table above: both orders of every interesting pair."""
    assert len(BOUNDS) == len(set(map(repr, BOUNDS)))
    assert any(lo is None for lo, _ in BOUNDS) and any(hi is None for _, hi in BOUNDS)
    assert list(itertools.islice(SCALARS, 1)) == [1.5]


# ---------------------------------------------------------------------------
# where= into a given out (the masked kernel of the fast path)

KERNEL = [numpy_dtype(r) for r in DTYPES]


def _masked_expected(a, lo, hi, expected, mask):
    """The oracle for clip(a, lo, hi, out=out, where=mask), written into
    `expected`, a copy of out's contents in out's own layout: NumPy's own
    masked call (its answer can depend on that layout: NumPy 2.1 buffers
    scalar bounds for non-contiguous walks and then runs its per-element
    loop); for bfloat16 and float8, the bfloat16/float8 route (docs/semantics.rst), blended by NumPy."""
    if is_ml_float(a.dtype):
        np.copyto(expected, reference_clip(a, lo, hi), where=mask)
    else:
        numpy_clip(a, lo, hi, out=expected, where=mask)
    return expected


def _layouts(dtype, rng):
    """(a, out inside a guarded buffer, mask) triples of every kind the walk takes."""
    for n in (0, 1, 7, 1023, 1024, 1025, 3000):
        a = values(dtype, n, rng)
        for p in (0.5, 0.95, 0.0, 1.0):
            yield a, (n,), 1, rng.random(n) < p
    a2 = values(dtype, 60 * 50, rng).reshape(60, 50)
    yield a2, (60, 50), 1, rng.random((60, 50)) < 0.5               # C
    yield np.asfortranarray(a2), (60, 50), "F", np.asfortranarray(rng.random((60, 50)) < 0.5)
    yield a2, (60, 50), "T", rng.random((60, 50)) < 0.5              # out transposed
    yield a2, (60, 50), 1, rng.random(50) < 0.5                      # mask (cols,)
    yield a2, (60, 50), 1, rng.random((60, 1)) < 0.5                 # mask (rows, 1)
    yield a2, (60, 50), 1, np.array(True)                            # 0-d mask
    yield a2[:, ::3], (60, 17), 1, rng.random((60, 17)) < 0.5        # strided input
    yield values(dtype, 2000, rng)[::-2], (1000,), 2, rng.random(1000) < 0.5   # out strided too


def _out_in(guard, shape, out_kind):
    """out as a view inside guard (8 items of guard on each side)."""
    if out_kind in ("T", "F"):
        return guard[8:-8].reshape(shape[::-1]).T
    size = int(np.prod(shape))
    return guard[8:8 + size * out_kind:out_kind].reshape(shape)


@pytest.mark.parametrize("dtype", KERNEL, ids=str)
def test_where_into_out(dtype):
    rng = np.random.default_rng(99)
    lo, hi = typical_bounds(dtype)
    nan_bounds = [(lo, hi)]
    # (ml_dtypes' float8_e5m2 says kind "f", bfloat16 and float8_e4m3fn "V": the
    # ml_dtypes formats are told apart by is_ml_float. Their NaN-bound results
    # through NumPy 2.1's buffered walks keep x's NaN, the float32 reference
    # the bound's: both NaN, as docs/semantics.rst asks.)
    if ((dtype.kind == "f" and not is_ml_float(dtype))
            or (is_ml_float(dtype) and not _ufunc.MULTI_RUN_WALKS_TO_NUMPY_FOR_TESTS)):
        nan_bounds.append((float("nan"), hi))
    for a, shape, out_kind, mask in _layouts(dtype, rng):
        for lo_, hi_ in nan_bounds:
            # out sits in a bigger buffer of a recognisable pattern: bytes
            # outside out must survive, and so must masked-off elements
            size = int(np.prod(shape)) * (out_kind if isinstance(out_kind, int) else 1)
            guard = values(dtype, size + 16, rng)
            out = _out_in(guard, shape, out_kind)
            guard_before = guard.copy()
            expected = _masked_expected(a, lo_, hi_, _out_in(guard.copy(), shape, out_kind), mask)
            r = fastclip.clip(a, lo_, hi_, out=out, where=mask)
            assert r is out
            assert_same(out.copy(), expected.copy())
            inside = np.zeros(guard.size, bool)
            inside[8:-8] = True
            outside = ~inside
            assert guard.view(np.uint8).reshape(guard.size, -1)[outside].tobytes() == \
                guard_before.view(np.uint8).reshape(guard.size, -1)[outside].tobytes()


@pytest.mark.parametrize("dtype", KERNEL, ids=str)
def test_where_with_array_bounds(dtype):
    """where= with per-element bounds: the row's loop into a buffer, then the
    blend into out (csrc/masked.h), whose vectors store plainly where their
    mask is all set; masks of every density, so that both kinds of store
    meet, with the masked-off elements and the bytes around out kept."""
    rng = np.random.default_rng(12)
    lo, hi = typical_bounds(dtype)
    for n in (1025, 3000):
        a = values(dtype, n, rng)
        lo_a = np.full(n, lo, dtype=np.float32).astype(dtype)
        hi_a = values(dtype, n, rng)
        hi_a[rng.random(n) < 0.5] = np.array(hi, dtype=np.float32).astype(dtype)
        for p in (0.5, 0.95, 0.99, 1.0):
            mask = rng.random(n) < p
            guard = values(dtype, n + 16, rng)
            out = guard[8:-8]
            guard_before = guard.copy()
            expected = _masked_expected(a, lo_a, hi_a, out.copy(), mask)
            assert fastclip.clip(a, lo_a, hi_a, out=out, where=mask) is out
            assert_same(out.copy(), expected)
            assert guard[:8].tobytes() + guard[-8:].tobytes() == \
                guard_before[:8].tobytes() + guard_before[-8:].tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.uint8, np.float16], ids=str)
def test_where_in_place_and_odd_masks(dtype):
    rng = np.random.default_rng(5)
    dtype = np.dtype(dtype)
    lo, hi = typical_bounds(dtype)
    a = values(dtype, 5000, rng)
    mask = rng.random(5000) < 0.5
    expected = _masked_expected(a, lo, hi, a.copy(), mask)
    b = a.copy()
    assert fastclip.clip(b, lo, hi, out=b, where=mask) is b
    assert_same(b, expected)
    # masks the kernel does not take give NumPy's answer (or its error)
    for odd in (mask.astype(np.uint8), mask.tolist(), True, False, mask[:10],
                np.zeros(0, bool), mask.view(np.int8)):
        def call(clip):
            out = a.copy()
            return clip(a, lo, hi, out=out, where=odd), out, None
        assert_same_outcome(outcome(lambda: call(fastclip.clip)),
                            outcome(lambda: call(numpy_clip)), with_out=True)
    # a mask that shares memory with out: NumPy's buffering decides the answer
    def overlapping(clip):
        base = (np.arange(6000) % 3 == 0).astype(np.uint8)
        out, where = base[:5000], base[1000:6000].view(bool)
        x = (np.arange(5000) % 7).astype(np.uint8)
        return clip(x, 1, 4, out=out, where=where), out, None
    assert_same_outcome(outcome(lambda: overlapping(fastclip.clip)),
                        outcome(lambda: overlapping(numpy_clip)), with_out=True)


@pytest.mark.parametrize("dtype", KERNEL, ids=str)
def test_where_without_out(dtype):
    """where= and no out: a new array like NumPy's (dtype, shape, layout),
    the masked-on elements clipped (the masked-off ones are undefined, in
    NumPy's as in fastclip's), for the layouts the masked kernel takes (C
    order, a mask of a's shape) and those it leaves to NumPy."""
    rng = np.random.default_rng(7)
    lo, hi = typical_bounds(dtype)
    a2 = values(dtype, 3000, rng).reshape(60, 50)
    cases = [(values(dtype, n, rng), None) for n in (0, 1, 17, 3000)]
    cases += [(a2, None), (np.asfortranarray(a2), None), (a2[:, ::2], None),
              (a2, rng.random(50) < 0.5), (a2, rng.random((60, 50)).T.copy().T < 0.5)]
    for a, mask in cases:
        if mask is None:
            mask = rng.random(a.shape) < 0.5
        got = fastclip.clip(a, lo, hi, where=mask)
        if is_ml_float(dtype):
            expected = reference_clip(a, lo, hi)
            assert got.dtype == dtype
        else:
            expected = numpy_clip(a, lo, hi, where=mask)
            assert (got.dtype, got.shape, got.strides) == \
                (expected.dtype, expected.shape, expected.strides)
        full = np.broadcast_to(mask, a.shape)
        assert_same(got[full], np.broadcast_to(expected, a.shape)[full])


@pytest.mark.parametrize("dtype", [d for d in KERNEL if not is_ml_float(d)], ids=str)
def test_casting_with_its_own_dtype(dtype):
    """casting= with a result of a's own dtype (new, or out=): NumPy's
    outcome, exception messages included, for every rule and bound kind."""
    rng = np.random.default_rng(8)
    a = values(dtype, 500, rng)
    lo, hi = typical_bounds(dtype)
    for bounds in ((lo, hi), (dtype.type(lo), dtype.type(hi)),
                   (np.full(500, lo, dtype), hi), (np.float64(lo), hi)):
        for casting in ("no", "equiv", "safe", "same_kind", "unsafe"):
            for with_out in (False, True):
                def call(clip):
                    out = np.zeros_like(a) if with_out else None
                    return clip(a, *bounds, out=out, casting=casting), out, None
                assert_same_outcome(outcome(lambda: call(fastclip.clip)),
                                    outcome(lambda: call(numpy_clip)),
                                    messages=True, with_out=True)


# ---------------------------------------------------------------------------
# NumPy scalar bounds of another type, which NumPy promotes to x's own loop

SCALAR_CODES = "bBhHiIlLqQefd"
PROMOTION_TARGETS = [np.dtype(c) for c in "bBhHiIlLqQfd"]


def _edge_scalars(code):
    """Values of a NumPy scalar type where a conversion could go wrong: the
    type's ends, zeros of both signs, NaN, infinities, and for the wide ones
    values that round when converted (2**53 + 1 into float64)."""
    t = np.dtype(code).type
    if np.dtype(code).kind in "iu":
        info = np.iinfo(code)
        vals = {info.min, info.max, 0, 1, info.max // 2, info.min // 2}
        vals |= {v for v in (-1, 2**24 + 1, 2**53 + 1, -(2**53 + 1), 2**63 - 1 - 2**9)
                 if info.min <= v <= info.max}
        return [t(v) for v in sorted(vals)]
    with np.errstate(over="ignore"):
        return [t(v) for v in (0.0, -0.0, 1.5, -2.25, NAN, float("inf"), -float("inf"),
                               float(np.finfo(code).max), float(np.finfo(code).tiny))]


def _promotes_to_own_loop(x_dtype, code):
    """NumPy's own answer: a bound of this scalar type leaves x's loop (its
    type number) and casts into it safely."""
    r = numpy_clip(np.zeros(2, x_dtype), np.dtype(code).type(0), np.dtype(code).type(1))
    return r.dtype.num == x_dtype.num and np.can_cast(np.dtype(code), x_dtype, "safe")


@pytest.mark.parametrize("dtype", PROMOTION_TARGETS, ids=str)
def test_promoted_scalar_bounds(dtype):
    """np.float32 bounds on a float64 array, np.int16 on int32, ...: fastclip
    takes them on the fast path as their values in x's type, with np.clip's
    dtype and bits (new results, out= of x's dtype and of float64, 0-d and
    NumPy scalar x, C/F/strided layouts); a bound NumPy promotes further
    (np.float64 on float32) is left to the wider loop or to NumPy."""
    rng = np.random.default_rng(31)
    x = values(dtype, 3000, rng)
    layouts = [x, x[::3], x[:1], x[:0], x[:2400].reshape(40, 60).T, x.reshape(60, 50)[:, 5:45]]
    taken = 0
    for code in SCALAR_CODES:
        if np.dtype(code) == dtype and np.dtype(code).char == dtype.char:
            continue
        edges = _edge_scalars(code)
        pairs = [(lo, hi) for lo in edges for hi in edges][::7] + [(edges[0], edges[-1])]
        own = _promotes_to_own_loop(dtype, code)
        for lo, hi in pairs:
            for a in layouts:
                assert_same_outcome(outcome(lambda: fastclip.clip(a, lo, hi)),
                                    outcome(lambda: numpy_clip(a, lo, hi)))
                for odt in (dtype, np.dtype(np.float64)):
                    got = outcome(lambda: (fastclip.clip(a, lo, hi, out=(o := np.zeros(a.shape, odt))), o, a))
                    exp = outcome(lambda: (numpy_clip(a, lo, hi, out=(o := np.zeros(a.shape, odt))), o, a))
                    assert_same_outcome(got, exp, with_out=True)
            s = dtype.type(x[0])
            assert_same_outcome(outcome(lambda: fastclip.clip(s, lo, hi)),
                                outcome(lambda: numpy_clip(s, lo, hi)))
            # the fast path took it: every promoted bound that is not a NaN
            if own and lo == lo and hi == hi:
                assert _ufunc._for_tests("fast", x, lo, hi), (code, lo, hi)
                assert _ufunc._for_tests("scalar", s, lo, hi), (code, lo, hi)
                taken += 1
    if dtype.itemsize > 1:          # nothing promotes to int8 or uint8 but themselves
        assert taken, "no promoted bound type was taken"


ONE_SIDED_BOUNDS = [1, -1, 2, 100, 0.5, -2.5, 0, 0.0, -0.0, NAN, float("inf"), -float("inf"),
                    300, -300, 2**40, 2**64, 1e300,
                    # zero in x's own type but not as a Python float (1e-50 into
                    # float32 was taken for non-zero: -0.0 kept where NumPy gave +0.0)
                    1e-10, -1e-10, 1e-50, -1e-50, 5e-324, 2.0**-24, -2.0**-25,
                    # NumPy scalars of other types: a loop wider than x's for some
                    np.float64(1.5), np.float64(-0.0), np.float64(1e-50), np.float32(-0.5),
                    np.float32(1e-40), np.float16(2), np.int16(3), np.int64(0), np.uint8(7)]


@pytest.mark.parametrize("dtype", KERNEL_DTYPES, ids=str)
def test_one_sided_bounds_are_numpys(dtype):
    # np.clip with one bound None is np.maximum(a, a_min) or np.minimum(a, a_max)
    # (numpy/_core/_methods.py::_clip); fastclip takes the integer rows, and the
    # float rows where NumPy keeps a NaN x's bits (probed), through its own
    # kernels with the missing bound at the end of the range (a zero or NaN
    # float32/float64 bound: the loop with np.maximum's rule on a tie): the
    # same bits, NaN payloads and ties included, in every layout
    rng = np.random.default_rng(29)
    flat = values(dtype, 4001, rng)                     # an odd length: SIMD tails
    scalars = ONE_SIDED_BOUNDS + [dtype.type(v) for v in (1, 2, 0.5, 0) if not is_ml_float(dtype)]
    arrays = [values(dtype, 4001, rng), values(dtype, 1, rng)]

    def calls(lo, hi):
        yield lambda clip: clip(flat.copy(), lo, hi)
        yield lambda clip: clip(flat[:4000].reshape(40, 100)[:, ::3].T, lo, hi)
        yield lambda clip: (lambda a: (clip(a, lo, hi, out=a), a))(flat.copy())
        yield lambda clip: (lambda o: (clip(flat, lo, hi, out=o), o))(np.zeros_like(flat))
        yield lambda clip: clip(flat[7].copy(), lo, hi)                     # 0-d
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        for b in scalars + arrays:
            for lo, hi in ((b, None), (None, b)):
                for call in calls(lo, hi):
                    # the oracle: NumPy's, or for bfloat16 and float8 the
                    # documented own-dtype rule (docs/semantics.rst)
                    assert_same_outcome(outcome(lambda: call(fastclip.clip)),
                                        outcome(lambda: call(reference_clip)))


@pytest.mark.parametrize("dtype", KERNEL_DTYPES, ids=str)
def test_one_sided_bounds_into_other_dtypes_are_numpys(dtype):
    # One bound None with out of another dtype (casting's default and
    # "unsafe"), in a loop wider than x's or into a third dtype: np.maximum's
    # or np.minimum's loop and cast, or an error of the same type, through
    # the conversion and widening routes that take two bounds
    rng = np.random.default_rng(31)
    flat = values(dtype, 4001, rng)
    bounds = [b for b in ONE_SIDED_BOUNDS if not isinstance(b, int) or abs(b) < 2**40]
    outs = ["float64", "float32", "float16", "int64", "int32", "int16", "uint8", "int8"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        for b, od, kwargs in itertools.product(bounds, outs, ({}, {"casting": "unsafe"})):
            if np.dtype(od) == dtype:
                continue
            for lo, hi in ((b, None), (None, b)):
                def call(clip):
                    out = np.zeros(flat.shape, od)
                    return clip(flat, lo, hi, out=out, **kwargs), out
                assert_same_outcome(outcome(lambda: call(fastclip.clip)),
                                    outcome(lambda: call(reference_clip)))
