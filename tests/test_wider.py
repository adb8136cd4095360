"""Calls whose NumPy loop is wider than x's dtype (float32 x with np.float64
bounds, integer x with Python float bounds, `dtype=float64`), with scalar and
array bounds, into x's dtype and into a third one: the same result, bits,
exception and warnings as np.clip, every 8- and 16-bit source exhaustively."""

import itertools
import warnings

import ml_dtypes
import numpy as np
import pytest

import fastclip
from fastclip import _ufunc
from fastclip._dtypes import DTYPES, numpy_dtype
from tests.arrays import values
from tests.reference import assert_same, assert_same_outcome, numpy_clip, outcome


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
