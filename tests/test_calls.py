"""Every kind of call a user makes, against np.clip: Python and
NumPy scalars, 0-d arrays, lists and tuples as `a`, each with every kind of
scalar bound; the same result (type, dtype, bits), exception type and
warnings. The scalar path and the sequence path answer most of these without
NumPy; the rest must still be NumPy's answer."""

import itertools
import warnings

import ml_dtypes
import numpy as np
import pytest

import fastclip
from tests.reference import assert_same_outcome, numpy_clip, outcome, reference_clip

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

from fastclip._dtypes import DTYPES, numpy_dtype  # noqa: E402
from tests.arrays import KERNEL_DTYPES, typical_bounds, values  # noqa: E402
from fastclip import _ufunc  # noqa: E402
from tests.reference import assert_same, is_ml_float  # noqa: E402

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


WIDER_BOUNDS = [0.5, -3.25, 1e10, -0.0, 0.0, float("nan"), float("inf"), 7, -7, 2**53 + 1,
                np.float64(2.5), np.float64(0.1), np.float64(-1e300), np.float64(-0.0),
                np.float64("nan"), np.float32(1.5),
                np.float32(0.0), np.int64(5), np.uint8(3), np.float16(2.0)]


@pytest.mark.parametrize("dtype", [numpy_dtype(r) for r in DTYPES if r.kind in ("int", "float", "half")],
                         ids=str)
def test_wider_loops_are_numpys(dtype):
    """Calls whose NumPy loop is of a wider dtype than x's (float32 x with
    np.float64 bounds, int x with Python float bounds, dtype=float64), into
    a new array or an out: csrc/widen.h casts and clips in one pass, other
    layouts cast x and clip the new array in place. NumPy's dtype,
    bits, warnings and messages, for scalar bounds of every kind (zeros and
    NaNs included, which go NumPy's way) and views that NumPy 2.1 walks in
    several buffered runs; signaling NaNs in x, scanned (small) and cast
    under np.errstate (large)."""
    rng = np.random.default_rng(17)
    x = values(dtype, 252, rng)
    views = (x, x[::-1], x.reshape(12, 21)[:, ::2], x.reshape(12, 21).T)
    for lo, hi in itertools.product(WIDER_BOUNDS, WIDER_BOUNDS):
        for kwargs in ({}, {"dtype": np.float64}, {"dtype": np.float32}):
            for view in views:
                assert_same_outcome(outcome(lambda: fastclip.clip(view, lo, hi, **kwargs)),
                                    outcome(lambda: numpy_clip(view, lo, hi, **kwargs)),
                                    messages=True)
    # into an out of the loop's dtype (the widening loop writes it), of
    # another layout, overlapping x, of another dtype; castings
    for lo, hi in itertools.product(WIDER_BOUNDS[::2], WIDER_BOUNDS[1::2]):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")         # (a bound beyond x's range)
            wide = np.result_type(numpy_clip(x[:1], lo, hi))
        for view in views:
            for make_out in (lambda: np.full(view.shape, 7, wide),
                             lambda: np.full(view.shape[::-1], 7, wide).T,
                             lambda: np.full(view.shape, 7, np.float32),
                             lambda: np.full(view.shape + (2,), 7, wide)[..., 0]):
                for kwargs in ({}, {"casting": "unsafe"}, {"casting": "no"}):
                    def call(clip):
                        out = make_out()
                        return clip(view, lo, hi, out=out, **kwargs), out, view
                    assert_same_outcome(outcome(lambda: call(fastclip.clip)),
                                        outcome(lambda: call(numpy_clip)),
                                        messages=True, with_out=True)
    if dtype.kind == "f":
        u = np.dtype(f"u{dtype.itemsize}")
        quiet = int(np.array(np.nan, dtype).view(u))
        signaling = np.array(quiet & ~(quiet & -quiet) | 1, u).view(dtype)
        for n in (100, 20000):
            big = values(dtype, n, rng)
            big[n // 3] = signaling
            for view in (big, big[::2]):
                for lo, hi in ((np.float64(-0.5), np.float64(2.5)), (-0.5, 2.5)):
                    for kwargs in ({}, {"dtype": np.float64}):
                        assert_same_outcome(
                            outcome(lambda: fastclip.clip(view, lo, hi, **kwargs)),
                            outcome(lambda: numpy_clip(view, lo, hi, **kwargs)), messages=True)
                    def into_out(clip):
                        out = np.zeros(view.shape, np.float64)
                        return clip(view, lo, hi, out=out), out, view
                    assert_same_outcome(outcome(lambda: into_out(fastclip.clip)),
                                        outcome(lambda: into_out(numpy_clip)),
                                        messages=True, with_out=True)


WHOLE_BOUNDS = [(10.0, 200.0), (-128.0, 127.0), (np.float64(-300.0), np.float64(70000.0)),
                (0.0, 255.0), (3.0, -3.0), (2147483647.0, -2147483648.0), (-2147483648.0, 2147483647.0),
                (-2147483649.0, 5.0), (-5.0, 2.0**31), (np.float64(65535.0), 1e300)]


@pytest.mark.parametrize("dtype", [np.dtype(c) for c in "bBhHiIlL"], ids=str)
def test_integer_x_with_whole_number_float_bounds(dtype):
    """An integer x with Python or np.float64 bounds that are whole numbers
    (NumPy clips in float64): where they lie within int32 and x's range, x's
    own conversion with integer bounds takes the call (_route_widen.pxi
    _integer_route), into a new float64 result, dtype=float64, an out of
    float64, float32 or an integer type. NumPy's bits, warnings and errors
    for every 8- and 16-bit x, the ends of the wider types, and bounds at,
    inside and beyond int32 and x's range, crossed."""
    info = np.iinfo(dtype)
    if dtype.itemsize <= 2:
        x = np.arange(int(info.min), int(info.max) + 1).astype(dtype)
    else:
        rng = np.random.default_rng(29)
        ends = [int(info.min), int(info.min) + 1, -2**31 - 1, -2**31, -1, 0, 1, 2**31 - 1, 2**31,
                2**53 + 1, int(info.max) - 1, int(info.max)]
        x = np.concatenate([np.array([v for v in ends if info.min <= v <= info.max], dtype),
                            values(dtype, 3000, rng)])
    for lo, hi in WHOLE_BOUNDS:
        assert_same_outcome(outcome(lambda: fastclip.clip(x, lo, hi)),
                            outcome(lambda: numpy_clip(x, lo, hi)), messages=True)
        assert_same_outcome(outcome(lambda: fastclip.clip(x, lo, hi, dtype=np.float64)),
                            outcome(lambda: numpy_clip(x, lo, hi, dtype=np.float64)), messages=True)
        for odt in (np.float64, np.float32, np.int16, np.uint8, np.int64):
            def call(clip):
                out = np.zeros(x.shape, odt)
                return clip(x, lo, hi, out=out, casting="unsafe"), out, x
            assert_same_outcome(outcome(lambda: call(fastclip.clip)), outcome(lambda: call(numpy_clip)),
                                messages=True, with_out=True)


WIDER_ARRAY_SOURCES = [numpy_dtype(r) for r in DTYPES
                       if r.kind in ("int", "float", "half", "bfloat16")]


@pytest.mark.parametrize("dtype", WIDER_ARRAY_SOURCES, ids=str)
def test_wider_loops_with_array_bounds_are_numpys(dtype):
    """Array bounds of a wider dtype than x's (a float16 or bfloat16 x with a
    float32 array bound, an int x with a float64 one): x widened exactly into
    a new array, then clipped there in place, where NumPy runs its
    per-element loop; other shapes go NumPy's way. NumPy's dtype, layout,
    bits, warnings and messages, for bounds of every shape (full, a row, a
    column, 0-d, scalars beside them) holding zeros, NaNs and infinities,
    and for x's views and signaling NaNs."""
    rng = np.random.default_rng(19)
    x = values(dtype, 240, rng).reshape(12, 20)
    views = (x, x[::-1], x[:, ::2], x.T, x[:1], x[:, :1], x.reshape(240))
    special = np.array([-0.0, 0.0, np.nan, -np.inf, np.inf, 0.5, -2.5, 1e10, 100.0], np.float64)
    for wide in (np.float32, np.float64):
        def bound(shape):
            return rng.choice(special, shape).astype(wide)
        for view in views:
            shape = view.shape
            arrays = [bound(shape), bound(shape[-1:]), bound(shape[:-1] + (1,)),
                      np.array(0.5, wide), bound((1,) + shape), np.asfortranarray(bound(shape))]
            others = [None, 0.5, -0.0, float("nan"), np.float64(2.5), np.float32(-1.0), 3,
                      bound(shape)]
            for lo, hi in itertools.chain(itertools.product(arrays, others),
                                          itertools.product(others, arrays)):
                assert_same_outcome(outcome(lambda: fastclip.clip(view, lo, hi)),
                                    outcome(lambda: numpy_clip(view, lo, hi)), messages=True)
    if dtype.kind in "fV" or dtype == ml_dtypes.bfloat16:
        u = np.dtype(f"u{dtype.itemsize}")
        quiet = int(np.array(np.nan, dtype).view(u))
        signaling = np.array(quiet & ~(quiet & -quiet) | 1, u).view(dtype)
        big = values(dtype, 5000, rng)
        big[1234] = signaling
        lo = np.full(5000, -0.5, np.float32)
        assert_same_outcome(outcome(lambda: fastclip.clip(big, lo, 2.5)),
                            outcome(lambda: numpy_clip(big, lo, 2.5)), messages=True)


@pytest.mark.parametrize("dtype", [np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16),
                                   np.dtype(np.int16), np.dtype(np.uint16)], ids=str)
def test_every_16_bit_pattern_widened_with_array_bounds(dtype):
    """Every bit pattern of a 16-bit x against float32 and float64 array
    bounds that cycle through zeros of both signs, NaN, infinities and
    values between; signaling NaNs quieted so that the widening route runs
    on all of it (test_wider_loops_with_array_bounds_are_numpys has them)."""
    x = np.arange(2**16, dtype=np.uint32).astype(np.uint16).view(dtype)
    if dtype.kind != "i" and dtype.kind != "u":
        x = x.copy()
        with np.errstate(invalid="ignore"):     # the setup's cast of signaling NaNs (ARM warns)
            x[np.isnan(x.astype(np.float32))] = np.nan
    cycle = np.array([-0.0, 0.0, np.nan, -np.inf, np.inf, 0.5, -2.5, 1e4, -1e-6, 3.0], np.float64)
    for wide in (np.float32, np.float64):
        lo = np.resize(cycle, x.size).astype(wide)
        hi = np.resize(cycle[::-1], x.size).astype(wide)
        for a, b in ((lo, hi), (lo, 1.5), (-1.5, hi), (lo, np.float32(0.0)),
                     (lo.reshape(256, 256)[0], 2.0)):
            view = x.reshape(256, 256) if np.ndim(a) == 1 and np.size(a) == 256 else x
            assert_same_outcome(outcome(lambda: fastclip.clip(view, a, b)),
                                outcome(lambda: numpy_clip(view, a, b)), messages=True)


INT_SOURCES = [np.dtype(c) for c in "bBhHiI"]
INT_WIDES = [np.dtype(c) for c in "hHiIlL"]


@pytest.mark.parametrize("dtype", INT_SOURCES, ids=str)
def test_wider_integer_loops_are_numpys(dtype):
    """An integer x whose NumPy loop is a wider integer dtype (bounds of it,
    scalar or array, or dtype=): cast and clipped in one pass by the
    widening loop, or widened then clipped in place for array bounds.
    NumPy's dtype, values, layout and errors, with bounds at and beyond x's
    range and each wider type's, crossed bounds, and views."""
    rng = np.random.default_rng(23)
    x = values(dtype, 240, rng).reshape(12, 20)
    views = (x, x[::-1], x[:, ::2], x.T, x.reshape(240))
    for wide in INT_WIDES:
        if not np.can_cast(dtype, wide, "safe") or wide.itemsize <= dtype.itemsize:
            continue
        info, small = np.iinfo(wide), np.iinfo(dtype)
        edges = sorted(v for v in {int(info.min), int(small.min) - 1, int(small.min), 0, 3,
                                   int(small.max), int(small.max) + 1, int(info.max)}
                       if info.min <= v <= info.max)
        scalars, pool = [wide.type(v) for v in edges], np.array(edges, wide)
        for view in views:
            for lo, hi in itertools.product(scalars[::2], scalars[1::2]):
                for kwargs in ({}, {"dtype": wide}):
                    assert_same_outcome(outcome(lambda: fastclip.clip(view, lo, hi, **kwargs)),
                                        outcome(lambda: numpy_clip(view, lo, hi, **kwargs)),
                                        messages=True)
                def into(clip, lo=lo, hi=hi):
                    out = np.full(view.shape, 7, wide)
                    return clip(view, lo, hi, out=out), out, view
                assert_same_outcome(outcome(lambda: into(fastclip.clip)),
                                    outcome(lambda: into(numpy_clip)), messages=True, with_out=True)
            shape = view.shape
            for lo, hi in ((rng.choice(pool, shape), rng.choice(pool, shape)),
                           (rng.choice(pool, shape[-1:]), int(small.max) // 2),
                           (scalars[2], rng.choice(pool, shape[:-1] + (1,))),
                           (rng.choice(pool, shape), None)):
                assert_same_outcome(outcome(lambda: fastclip.clip(view, lo, hi)),
                                    outcome(lambda: numpy_clip(view, lo, hi)), messages=True)


@pytest.mark.parametrize("dtype", [np.dtype(c) for c in "bBhH"], ids=str)
def test_every_8_and_16_bit_integer_widened(dtype):
    """Every value of an 8- or 16-bit integer x, clipped in each wider integer
    type by scalar bounds that cross x's range and by array bounds of the
    wide type, as NumPy clips it."""
    info = np.iinfo(dtype)
    x = np.arange(int(info.min), int(info.max) + 1).astype(dtype)
    for wide in INT_WIDES:
        if not np.can_cast(dtype, wide, "safe") or wide.itemsize <= dtype.itemsize:
            continue
        lo_values = np.resize(np.arange(int(info.min) - 3, int(info.max) + 3, 7), x.size)
        lo = np.clip(lo_values, 0 if wide.kind == "u" else None, None).astype(wide)
        hi = lo[::-1].copy()
        for a, b in ((wide.type(max(int(info.min), 0) + 5), wide.type(int(info.max) - 5)),
                     (wide.type(int(info.max) - 5), wide.type(max(int(info.min), 0) + 5)),
                     (lo, hi), (lo, wide.type(int(info.max) // 3))):
            assert_same_outcome(outcome(lambda: fastclip.clip(x, a, b)),
                                outcome(lambda: numpy_clip(x, a, b)), messages=True)


# ---------------------------------------------------------------------------
# array bounds from the fast path (scalar-bound or per-element loop, chosen as
# NumPy's iterator would)

def _bounds_cases(dtype, rng):
    """(a, lo, hi) triples: full-shape, row, column, 0-d and mixed bounds, C
    and F order, 1-D strided."""
    a = values(dtype, 40 * 30, rng).reshape(40, 30)
    full_lo, full_hi = values(dtype, 1200, rng).reshape(40, 30), values(dtype, 1200, rng).reshape(40, 30)
    row_lo, row_hi = values(dtype, 30, rng), values(dtype, 30, rng)
    col_lo, col_hi = values(dtype, 40, rng).reshape(40, 1), values(dtype, 40, rng).reshape(40, 1)
    lo0, hi0 = typical_bounds(dtype)
    for x in (a, np.asfortranarray(a)):
        yield x, full_lo, full_hi
        yield x, np.asfortranarray(full_lo), full_hi
        yield x, row_lo, row_hi
        yield x, col_lo, col_hi
        yield x, row_lo, col_hi
        yield x, np.array(lo0, dtype), row_hi             # 0-d array bound
        yield x, lo0, full_hi                             # scalar and array
        yield x, full_lo, hi0
    flat = values(dtype, 3000, rng)
    yield flat[::3], flat[1::3], flat[2::3]               # 1-D strided, all three


@pytest.mark.parametrize("dtype", KERNEL, ids=str)
def test_array_bounds(dtype):
    rng = np.random.default_rng(17)
    for a, lo, hi in _bounds_cases(dtype, rng):
        expected = reference_clip(a, lo, hi)
        assert_same(fastclip.clip(a, lo, hi), expected)
        out = np.zeros_like(expected)
        assert fastclip.clip(a, lo, hi, out=out) is out
        assert_same(out, expected)
        if isinstance(lo, np.ndarray) and lo.shape == a.shape and lo.flags.c_contiguous == a.flags.c_contiguous:
            lo2 = lo.copy(order="K")                      # out=lo: in place on a bound
            assert fastclip.clip(a, lo2, hi, out=lo2) is lo2
            assert_same(np.ascontiguousarray(lo2), np.ascontiguousarray(reference_clip(a, lo, hi)))


def test_array_bounds_nan_payloads_and_zeros():
    """NumPy's per-element loop: NaN from x, then lo, then hi; a tie takes the
    bound. Row bounds over C order are per element, column bounds scalar per
    row: the bits must be NumPy's either way."""
    q, p = np.float32(np.uint32(0x7FC00001).view(np.float32)), np.float32(np.uint32(0xFFC00002).view(np.float32))
    xs = np.array([q, -0.0, 0.0, 1.0, np.nan, -np.inf], np.float32)
    a = np.tile(xs, (6, 1))
    for lo in (xs, xs[::-1].copy(), np.full(6, p), xs.reshape(6, 1), np.full((6, 1), -0.0, np.float32)):
        for hi in (xs[::-1].copy(), np.full(6, 0.0, np.float32), xs.reshape(6, 1)):
            expected = reference_clip(a, lo, hi)
            assert_same(fastclip.clip(a, lo, hi), expected)
            assert_same(fastclip.clip(np.asfortranarray(a), lo, hi),
                        reference_clip(np.asfortranarray(a), lo, hi))


@pytest.mark.parametrize("dtype", KERNEL_DTYPES, ids=str)
def test_cols_bounds_on_rows_around_each_pass_size(dtype):
    """(cols,) bounds, and a scalar beside them, on rows of every length
    around the sizes at which the rows' bounds are repeated into buffers (4
    KiB of a bound, at most 2048 elements: two rows of 256 float64 fit, 257
    do not) and 7 rows, so that the last pass is short: the reference's bits
    (np.clip's; for bfloat16 and float8, kept in their dtype)."""
    rng = np.random.default_rng(dtype.itemsize)
    lo_v, hi_v = typical_bounds(dtype)
    for cols in (255, 256, 257, 511, 512, 513, 683, 1023, 1024, 1025, 2047, 2048, 2049):
        x = values(dtype, 7 * cols, rng).reshape(7, cols)
        with np.errstate(all="ignore"):
            lo = np.where(rng.random(cols) < 0.5, lo_v, lo_v + 1).astype(dtype)
            hi = np.where(rng.random(cols) < 0.5, hi_v, hi_v - 3).astype(dtype)
        for a_lo, a_hi in ((lo, hi), (lo[:1].reshape(()), hi), (lo, hi[:1].reshape(()))):
            assert_same(fastclip.clip(x, a_lo, a_hi), reference_clip(x, a_lo, a_hi))


@pytest.mark.parametrize("dtype", KERNEL_DTYPES, ids=str)
def test_one_element_array_bounds(dtype):
    """Array bounds of one element (0-d, (1,), (1, 1)), which the fast path
    takes as scalar bounds, against x of one element and of many, contiguous
    in both orders and strided, with zeros of both signs and NaNs in x and
    in the bounds: the reference's bits (np.clip's; bfloat16 and float8 kept
    in their dtype), into a new array, into out= and in place (x a NaN of
    the other sign than the bounds' NaN too: in place NumPy's iterator runs
    the scalar-bound loop where it runs the per-element one for another out,
    so np.clip's answer there differs, and bfloat16 and float8 give the new
    result's)."""
    rng = np.random.default_rng(21)
    lo_v, hi_v = typical_bounds(dtype)
    pairs = [(lo_v, hi_v), (hi_v, lo_v)]
    if dtype.kind in "fV":
        pairs += [(-0.0, 0.0), (0.0, -0.0), (np.nan, hi_v), (lo_v, np.nan)]
    base = values(dtype, 120, rng)
    xs = [base[:1], base[:1].reshape(1, 1), base[:7], base[:12].reshape(3, 4),
          np.asfortranarray(base[:12].reshape(3, 4)), base[::3][:20]]
    if dtype.kind in "fV":
        xs.append(np.array([-np.nan]).astype(dtype))
    for lo_n, hi_n in pairs:
        with np.errstate(all="ignore"):
            lo1, hi1 = np.array(lo_n).astype(dtype), np.array(hi_n).astype(dtype)
        for x in xs:
            for shape in [(), (1,), (1, 1)][:x.ndim + 1]:
                a_lo, a_hi = lo1.reshape(shape), hi1.reshape(shape)
                for bounds in ((a_lo, a_hi), (a_lo, hi1.reshape(())[()]), (lo_n, a_hi)):
                    expected = reference_clip(x, *bounds)
                    assert_same(fastclip.clip(x, *bounds), expected)
                    out = np.zeros_like(x, order="K")
                    if out.dtype == expected.dtype:
                        assert fastclip.clip(x, *bounds, out=out) is out
                        assert_same(out, np.asarray(expected).reshape(out.shape))
                        mine, theirs = x.copy(order="K"), x.copy(order="K")
                        assert fastclip.clip(mine, *bounds, out=mine) is mine
                        reference_clip(theirs, *bounds, out=theirs)
                        assert_same(mine, theirs)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16, np.uint8], ids=str)
def test_one_element_bound_inside_out(dtype):
    """A one-element bound that is a view of out: NumPy copies an input that
    overlaps out before its loop, so every element is clipped to the bound's
    value from before the call, as the fast path reads it."""
    x = np.arange(-5, 15).astype(dtype) if dtype != np.uint8 else np.arange(20).astype(dtype)
    for at in (0, 7, 19):
        out, out_np = np.full(20, 9, dtype), np.full(20, 9, dtype)
        assert fastclip.clip(x, out[at:at + 1], 12, out=out) is out
        numpy_clip(x, out_np[at:at + 1], 12, out=out_np)
        assert_same(out, out_np)


REPEATING_SHAPES = [(1000, 100), (3, 5000), (2, 8192), (1, 20000), (200, 17), (8193, 1), (16, 8, 33)]
SMALL_FLOATS = [np.float16, ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2]


def _repeating_bounds_agree(x, lo, hi, expect=numpy_clip):
    for a in (x, np.asfortranarray(x)):
        expected = expect(a, lo, hi)
        assert_same(fastclip.clip(a, lo, hi), expected)
        out, expected_in_out = np.empty_like(a), np.empty_like(a)
        assert fastclip.clip(a, lo, hi, out=out) is out
        assert_same(out, expect(a, lo, hi, out=expected_in_out))
    # the same bounds with one zero or NaN among them: NumPy's answer still
    for odd in (0.0, -0.0, np.nan):
        lo2 = lo.copy()
        lo2.flat[len(lo2.flat) // 2] = odd
        assert_same(fastclip.clip(x, lo2, hi), expect(x, lo2, hi))


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=str)
@pytest.mark.parametrize("shape", REPEATING_SHAPES, ids=str)
def test_repeating_bounds_without_zero_or_nan(dtype, shape):
    """Bounds that repeat along the inner axis ((rows, 1), (a, b, 1)) with
    no zero and no NaN are the walk's (NumPy's two loops agree on them):
    np.clip's bits against x of NaNs with payloads, signed zeros, ties and
    infinities, and lo > hi rows, C and F order."""
    rng = np.random.default_rng(sum(shape))
    special = np.array([0.0, -0.0, np.nan, -np.nan, 1.0, -1.0, 2.0, -2.0, 0.5, np.inf, -np.inf],
                       dtype)
    x = rng.choice(special, size=shape)
    bits = x.view(f"u{x.itemsize}")
    nan = np.isnan(x)
    bits[nan] |= rng.integers(1, 1000, size=nan.sum()).astype(bits.dtype)
    nonzero = np.array([1.0, -1.0, 2.0, -2.0, 0.5, np.inf, -np.inf, 3.0], dtype)
    bshape = shape[:-1] + (1,)
    _repeating_bounds_agree(x, rng.choice(nonzero, size=bshape), rng.choice(nonzero, size=bshape))


@pytest.mark.parametrize("dtype", SMALL_FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", REPEATING_SHAPES, ids=str)
def test_repeating_bounds_without_zero_or_nan_small_floats(dtype, shape):
    """The same for the 16- and 8-bit floats, whose zeros and NaNs are read
    off the bits: x of every kind of bit pattern (NaNs of any payload, both
    zeros, infinities, subnormals), bounds of random non-zero, non-NaN
    patterns (ties with x among them), lo > hi in some rows; against the
    slow reference (np.clip of bfloat16 and the float8s returns float32)."""
    dtype = np.dtype(dtype)
    rng = np.random.default_rng(sum(shape) + dtype.itemsize)
    u = f"u{dtype.itemsize}"
    x = rng.integers(0, 1 << (8 * dtype.itemsize), size=shape).astype(u).view(dtype)
    patterns = np.arange(1 << (8 * dtype.itemsize)).astype(u).view(dtype)[:: 1 if dtype.itemsize == 1 else 7]
    with np.errstate(invalid="ignore"):         # signaling NaNs, quieted by the cast
        wide = patterns.astype(np.float32)
    ordinary = patterns[~np.isnan(wide) & (wide != 0)]
    bshape = shape[:-1] + (1,)
    _repeating_bounds_agree(x, rng.choice(ordinary, size=bshape), rng.choice(ordinary, size=bshape),
                            reference_clip)


def test_bound_overlapping_out_is_numpys():
    def call(clip):
        base = np.arange(-50, 50, dtype=np.float64)
        x, lo, out = np.linspace(-60, 60, 60), base[10:70], base[20:80]
        return clip(x, lo, 30.0, out=out), out, None
    assert_same_outcome(outcome(lambda: call(fastclip.clip)), outcome(lambda: call(numpy_clip)),
                        with_out=True)


@pytest.mark.parametrize("shape", [(3, 20000), (20000, 3), (64, 64, 64), (1000, 100)], ids=str)
def test_broadcast_bounds_take_numpys_loop(shape):
    """Whether NumPy runs its scalar-bound loop (keeps -0.0 against a +0.0
    bound) or its per-element loop (gives +0.0) for bounds that repeat along
    some axes depends on its iterator's buffering, so on the shape; the bits
    must be NumPy's for each, C and F order, every broadcast of the bounds."""
    rng = np.random.default_rng(len(shape))
    x = np.where(rng.random(shape) < 0.5, -0.0, np.nan).astype(np.float32)
    for order in ("C", "F"):
        a = np.asarray(x, order=order)
        for k in range(len(shape)):
            bshape = tuple(s if j == k else 1 for j, s in enumerate(shape))
            for bs in (bshape, bshape[k:], shape[k:]):
                lo = np.where(rng.random(bs) < 0.5, 0.0, np.float32(np.uint32(0x7FC00005).view(np.float32)))
                lo = lo.astype(np.float32)
                hi = np.ones(bs, np.float32)
                assert_same(fastclip.clip(a, lo, hi), reference_clip(a, lo, hi))
                out = np.empty(shape, np.float32, order=order)
                fastclip.clip(a, lo, hi, out=out)
                assert_same(out, np.asarray(reference_clip(a, lo, hi), order=order))


def _broadcast_shapes(shape):
    """Every shape that broadcasts to shape: each axis kept or 1, with leading
    axes dropped or not."""
    out = set()
    for keep in itertools.product((True, False), repeat=len(shape)):
        full = tuple(s if k else 1 for s, k in zip(shape, keep))
        for drop in range(len(shape) + 1):
            out.add(full[drop:])
    return sorted(out)


@pytest.mark.parametrize("dtype", [np.float32, np.float64] + SMALL_FLOATS,
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(2, 6), (6, 2), (3, 4, 5)], ids=str)
def test_array_bound_beside_a_nan_or_zero_scalar_bound(dtype, shape):
    """An array bound free of zeros and NaNs, of every broadcast shape, beside
    a scalar bound (Python float, own-dtype scalar, 0-d and (1,) arrays) that
    is a NaN with a payload, -0.0, +0.0 or 1.0, x holding NaNs of another
    payload and zeros of both signs, C and F order, into a new array and into
    out: NumPy's bits (the reference for the 16- and 8-bit floats). A (6,)
    bound over F-order x repeats along the inner axis, where NumPy's
    per-element loop keeps x's NaN and its scalar-bound loop would give the
    scalar's."""
    dtype = np.dtype(dtype)
    rng = np.random.default_rng(len(shape) + dtype.itemsize)
    u = np.dtype(f"u{dtype.itemsize}")
    with np.errstate(invalid="ignore", over="ignore"):
        x = rng.choice(np.array([np.nan, 0.0, -0.0, 0.25, -3.0, 1.0], np.float32), size=shape)
        x = x.astype(dtype)
        nan_bits = np.array([np.nan]).astype(dtype).view(u)[0]
        x.view(u)[np.isnan(x.astype(np.float32))] = nan_bits + 1 if dtype.itemsize > 1 else nan_bits
        other_nan = (np.array([-np.nan]).astype(dtype).view(u) ^ (2 if dtype.itemsize > 1 else 0)
                     ).view(dtype)[0]
    assert np.isnan(np.float32(other_nan))
    scalars = [other_nan, dtype.type(-0.0), dtype.type(0.0), dtype.type(1.0)]
    checked = 0
    for order in ("C", "F"):
        a = np.asarray(x, order=order)
        for bshape in _broadcast_shapes(shape):
            arr = rng.choice(np.array([-2.0, -0.5, 0.5, 2.0], np.float32), size=bshape).astype(dtype)
            for s in scalars:
                for bound in (float(np.float32(s)), s, np.array(s, dtype), np.array([s], dtype)):
                    for lo, hi in ((arr, bound), (bound, arr)):
                        expected = reference_clip(a, lo, hi)
                        assert_same(fastclip.clip(a, lo, hi), expected)
                        out = np.empty(shape, dtype, order=order)
                        assert fastclip.clip(a, lo, hi, out=out) is out
                        assert_same(out, reference_clip(a, lo, hi, out=np.empty(shape, dtype, order=order)))
                        checked += 1
    assert checked == 2 * len(_broadcast_shapes(shape)) * len(scalars) * 4 * 2


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


CHAIN_SOURCES = [np.dtype(c) for c in "bBhHiIlLef"]
CHAIN_OUTS = [np.dtype(c) for c in "fdhbBi"] + [np.dtype(ml_dtypes.bfloat16),
                                                  np.dtype(ml_dtypes.float8_e4m3fn)]


@pytest.mark.parametrize("dtype", CHAIN_SOURCES, ids=str)
def test_wider_loops_into_a_third_dtype(dtype):
    """A loop wider than x with an out of a third dtype (a uint8 image with
    Python float bounds into float32: NumPy clips in float64, then casts):
    x's widening loop chained with the wide type's conversion through an L1
    buffer (csrc/convert.h, fc_chain_range), or both in one loop (an integer x
    into float32 through float64, csrc/widen.h). NumPy's bits, warnings and
    exceptions for every source pattern of the 8- and 16-bit types, bounds
    of several kinds, castings, layouts; the chain shown taken where it
    should be; a signaling NaN in x goes NumPy's way."""
    rng = np.random.default_rng(23)
    if dtype.itemsize <= 2:
        x = np.arange(2 ** (8 * dtype.itemsize), dtype=np.uint64).astype(
            f"u{dtype.itemsize}").view(dtype)
    else:
        x = values(dtype, 5000, rng)
        if dtype.itemsize == 8:
            # int64 -> float64 -> float32 rounds twice (NumPy's loop, then its
            # cast): 2**62 + 2**38 + 1 is 2**62 + 2**38 in float64, a float32
            # tie that goes to even, 2**62; rounded once it would be 2**62 + 2**39
            ties = [2**62 + 2**38 + 1, 2**62 + 2**38, 2**53 + 1, 2**62 + 2**9 + 1, 2**63 - 2**9]
            x = np.concatenate([np.array(ties, dtype), x])
    bounds = [(-3.25, 100.5), (0.5, 255.0), (7, 2**40), (np.float64(-1.5), np.float64(1e4)),
              (np.int64(-5), np.int64(300)), (np.float32(-2.5), 1e38), (100.5, -3.25),
              (-0.0, 5.5), (float("nan"), 1.0), (-1e300, 1e300), (np.float64(2.5), 65504.0),
              # whole numbers within int32: an integer x's own conversion,
              # its bounds made integers (_route_widen.pxi _integer_route); beyond
              # int32 or x's range, and a 0 of either sign
              (-65504.0, 65504.0), (0.0, 255.0), (np.float64(-300.0), np.float64(70000.0)),
              (2147483647.0, -2147483648.0), (-2147483649.0, 5.0), (-128.0, 127.0), (3.0, 0.0),
              (-40000.0, 2.0**31)]
    layouts = [lambda v: v, lambda v: v[::-1], lambda v: v[: (v.size // 60) * 60].reshape(60, -1).T]
    taken = 0
    for lo, hi in bounds:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            wide = numpy_clip(x[:1], lo, hi).dtype
        for odt in CHAIN_OUTS:
            for casting in ("same_kind", "unsafe"):
                for layout in layouts:
                    v = layout(x)
                    def call(clip):
                        out = np.zeros(v.shape, odt)
                        return clip(v, lo, hi, out=out, casting=casting), out, v
                    assert_same_outcome(outcome(lambda: call(fastclip.clip)),
                                        outcome(lambda: call(numpy_clip)),
                                        messages=True, with_out=True)
                # the chain takes a C-contiguous call whose loop is wider and
                # whose bounds (not NaN, not a zero) land in out's range
                if (wide != dtype and wide != odt and lo == lo and hi == hi
                        and lo != 0 and hi != 0 and np.can_cast(wide, odt, casting)
                        and odt.kind == "f" and odt.itemsize >= 4 and abs(float(lo)) < 3e38
                        and abs(float(hi)) < 3e38 and wide.kind == "f"):
                    # (a NaN in x sends the call NumPy's way: its cast's payload)
                    clean = x[~np.isnan(x)] if dtype.kind == "f" else x
                    out = np.zeros(clean.shape, odt)
                    assert _ufunc._for_tests("widened", clean, lo, hi, out, casting), (lo, hi, odt, casting)
                    assert_same(out, numpy_clip(clean, lo, hi, out=np.zeros(clean.shape, odt),
                                                casting=casting))
                    taken += 1
    assert taken
    if dtype.kind == "f":
        u = np.dtype(f"u{dtype.itemsize}")
        quiet = int(np.array(np.nan, dtype).view(u))
        y = values(dtype, 3000, rng)
        y[1234] = np.array(quiet & ~(quiet & -quiet) | 1, u).view(dtype)
        def into(clip):
            out = np.zeros(y.shape, np.float32 if dtype.itemsize < 4 else np.float16)
            return clip(y, np.float64(-0.5), np.float64(2.5), out=out, casting="unsafe"), out, y
        assert_same_outcome(outcome(lambda: into(fastclip.clip)), outcome(lambda: into(numpy_clip)),
                            messages=True, with_out=True)


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
