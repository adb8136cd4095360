"""Clip and convert in one pass, what NumPy reports: a NaN in x, values that
underflow or overflow the destination, bounds outside it, one NaN or extreme
value anywhere in a block, in a widened loop or in a helper thread: NumPy's
value, warning or exception (np.errstate's modes), the fused loop handing the
call to NumPy where NumPy would report."""

import itertools

import numpy as np
import pytest

from fastclip import _threads, _ufunc
from fastclip._dtypes import ANY_BOUNDS, finite_range
from tests.conversions import (IDS, PAIRS, ROWS, both, bound_pairs, payload_nans, signaling_nan,
                               sources)
from tests.reference import assert_same, assert_same_outcome


@pytest.mark.parametrize("src,dst", [p for p in PAIRS if p[0].kind == "f"],
                         ids=[i for i, p in zip(IDS, PAIRS) if p[0].kind == "f"])
def test_nan_goes_numpys_way(src, dst):
    """A NaN in x: NumPy's cast (its value, its 'invalid value' warning),
    a signaling NaN too (its cast warns, in clip)."""
    x = np.array([1.0, np.nan, -2.0, 300.0, -np.nan, 0.5] * 50, np.float64).astype(src)
    lo, hi = bound_pairs(src, dst)[0]
    got, exp = both(x, lo, hi, dst)
    assert_same_outcome(got, exp, messages=True, with_out=True)
    x[1::6] = signaling_nan(src)
    for view in (x, x[::-1], x[::2]):
        got, exp = both(view, lo, hi, dst)
        assert_same_outcome(got, exp, messages=True, with_out=True)
    assert not _ufunc._for_tests("convert", x, lo, hi, np.empty(x.shape, dst), "unsafe")


@pytest.mark.parametrize("src,dst", PAIRS, ids=IDS)
def test_underflow_is_reported_as_numpys(src, dst):
    """np.errstate(under="warn"/"raise"): NumPy's cast into a narrower float
    sets the underflow flag for a value that becomes subnormal or zero there
    (float64 1e-300 into float32, 1e-6 into float16), and np.clip warns or
    raises "underflow encountered in clip". Every pair gives NumPy's outcome,
    message included, under each mode; a pair that can underflow goes NumPy's
    way unless underflow is ignored (the default, where it stays fused)."""
    x = sources(src, np.random.default_rng(14))
    lo, hi = bound_pairs(src, dst)[1]               # a range around 0
    for under in ("warn", "raise", "call", "ignore"):
        with np.errstate(under=under, call=lambda kind, flag: None):
            got, exp = both(x, lo, hi, dst)
            fused = _ufunc._for_tests("convert", x, lo, hi, np.empty(x.shape, dst), "unsafe")
        assert_same_outcome(got, exp, messages=True, with_out=True)
        narrows = src.kind == "f" and dst.kind in "fV" and src.itemsize >= dst.itemsize
        assert fused == (under == "ignore" or not narrows), under


@pytest.mark.parametrize("dst", [ROWS[n] for n in ("half", "float", "bfloat16", "float8_e4m3fn")],
                         ids=lambda d: d.name)
def test_underflow_of_a_widened_loop_is_reported_as_numpys(dst):
    """The same for an integer x with float bounds, clipped in float64 and
    cast into out (a tiny bound is the value cast), fused as a chain."""
    x = np.arange(-40, 40, dtype=np.int16)
    for (lo, hi), under in itertools.product([(1e-300, 2.5), (-1.5, -1e-45), (-1.5, 2.5)],
                                             ("warn", "raise", "ignore")):
        with np.errstate(under=under):
            got, exp = both(x, lo, hi, dst)
        assert_same_outcome(got, exp, messages=True, with_out=True)


@pytest.mark.parametrize("src,dst", [p for p in PAIRS if p[0].kind == "f"],
                         ids=[i for i, p in zip(IDS, PAIRS) if p[0].kind == "f"])
def test_one_nan_anywhere_is_seen(src, dst):
    """One NaN, at every position of two of the widest vector steps (64
    elements at AVX-512) and a NaN-free tail: the vector bodies note a NaN
    from what they make of it (csrc/conversion_vectors.h.in), not from the tail's
    test, so each position must send the call NumPy's way."""
    rng = np.random.default_rng(14)
    clean = (rng.normal(size=128 + 7) * 50).astype(src)
    lo, hi = bound_pairs(src, dst)[0]
    o = np.empty(clean.shape, dst)
    assert _ufunc._for_tests("convert", clean, lo, hi, o, "unsafe")
    for p in range(128):
        for nan in [np.nan, -np.nan, signaling_nan(src)] + payload_nans(src):
            x = clean.copy()
            x[p] = nan
            assert not _ufunc._for_tests("convert", x, lo, hi, o, "unsafe"), (p, nan)
    x = clean.copy()
    x[37] = np.nan
    got, exp = both(x, lo, hi, dst)
    assert_same_outcome(got, exp, messages=True, with_out=True)


@pytest.mark.parametrize("src,dst", [p for p in PAIRS if p[0].kind == "f"],
                         ids=[i for i, p in zip(IDS, PAIRS) if p[0].kind == "f"])
def test_one_extreme_value_in_any_block(src, dst):
    """float32 into integers truncates first and clips after, by blocks
    (csrc/conversion_vectors.h.in, FC_CVT_BLOCK elements); a block with a value
    whose truncation is INT32_MIN (an infinity, a value beyond int32, a NaN)
    is done again clipping first. One such value at the start, the middle or
    the end of a block other than the first, among values beyond the
    destination's range (saturated by the packs): the same bits as NumPy's,
    and a NaN anywhere still goes NumPy's way."""
    rng = np.random.default_rng(15)
    n = 5 * 2048 + 77
    with np.errstate(over="ignore"):        # float16: beyond its range is inf
        base = (rng.normal(size=n) * 5e4).astype(src)
    lo, hi = bound_pairs(src, dst)[1]
    o = np.empty(n, dst)
    for p in (2048, 3071, 4095, 3 * 2048 + 5, n - 80, n - 1):
        for v in (np.inf, -np.inf, 3e9, -3e9, 2.0**31, -(2.0**31), 1e30):
            x = base.copy()
            with np.errstate(over="ignore"):
                x[p] = v
            assert _ufunc._for_tests("convert", x, lo, hi, o, "unsafe"), (p, v)
            assert_same(o, np.clip(x, lo, hi, out=np.empty(n, dst), casting="unsafe"))
        x = base.copy()
        x[p] = np.nan
        assert not _ufunc._for_tests("convert", x, lo, hi, o, "unsafe"), p


@pytest.mark.parametrize("src,dst", PAIRS, ids=IDS)
def test_bounds_outside_the_destination_go_numpys_way(src, dst):
    """NumPy's outcome, and NumPy's route but for the ANY_BOUNDS pairs, which
    stay fused (int64 -> int32 wraps as NumPy's cast does)."""
    rng = np.random.default_rng(13)
    x = sources(src, rng)[:5000]
    lo, hi = finite_range(dst)
    cases = []
    if src.kind in "iu":
        s = np.iinfo(src)
        if s.min < lo:
            cases.append((lo - 1, hi))
        if s.max > hi:
            cases.append((lo, hi + 1))
    elif dst.kind in "iu":
        cases += [(lo - 1.0, hi), (lo, hi + 1.0), (-1e10, 1e10)]
    elif dst.itemsize < src.itemsize:         # a float narrowing
        cases += [(-np.inf, np.inf), (-1e39 if src.itemsize == 8 else -np.inf, 0.0)]
    cases += [(np.nan, 1.0)] if src.kind == "f" else []
    if not cases:
        pytest.skip("every bound of this source converts into the destination")
    for lo_, hi_ in cases:
        with np.errstate(all="ignore"):
            got, exp = both(x, lo_, hi_, dst)
        assert_same_outcome(got, exp, with_out=True)
        fused = (src, dst) in [(ROWS[s], ROWS[d]) for s, d in ANY_BOUNDS] and lo_ == lo_
        with np.errstate(all="ignore"):
            if fused and src.kind == "f":
                fused = keeps_fused(src, dst, np.clip(x, lo_, hi_))
            assert _ufunc._for_tests("convert", x, lo_, hi_, np.empty(x.shape, dst), "unsafe") == fused


def keeps_fused(src, dst, clipped):
    """Whether an ANY_BOUNDS float loop keeps a call whose clipped values are
    `clipped` (no NaN), by docs/semantics.rst: float64 -> float32 hands NumPy
    a finite value that its cast makes infinite (the overflow flag, which
    NumPy reports), float32 and float64 -> float16 any value beyond
    float16's largest finite (infinity too: one compare); float32 ->
    bfloat16 keeps all (the cast rounds beyond the range into infinity, with
    no warning); float64 -> bfloat16 any value beyond float32's largest
    finite (ml_dtypes warns of overflow for some, and infinity is beyond it
    too: one compare); float32 and float64 -> a float8 a value that rounds beyond the format's largest code that is not
    a NaN, infinity too: beyond 448 + 16 in e4m3fn (whose next code is its
    NaN), 2**16 + 2**13 in e5m2 (whose infinity is 2**16's code, beyond which
    the codes are NaNs), each a tie that rounds down to the even code."""
    if (src, dst) == (ROWS["double"], ROWS["float"]):
        return not np.any(np.isinf(clipped.astype(dst)) & np.isfinite(clipped))
    if dst == ROWS["half"]:
        return not np.any(np.abs(clipped) > 65504)
    if (src, dst) == (ROWS["double"], ROWS["bfloat16"]):
        return not np.any(np.abs(clipped) > np.finfo(np.float32).max)
    limit = {"float8_e4m3fn": 448 + 16, "float8_e5m2": 2**16 + 2**13}.get(dst.name)
    if limit is not None:
        # a float64 rounds to float32 first as the installed ml_dtypes rounds
        # it: once (0.7 on; then the double's own magnitude tells) or to
        # nearest (the float32's)
        rounds_once = np.float64(1 + 2**-4 + 2**-40).astype(ROWS["float8_e4m3fn"]) != 1.0
        with np.errstate(over="ignore"):
            rounded = clipped if rounds_once else clipped.astype(np.float32)
        return not np.any(np.abs(rounded) > limit)
    return True


def overflowing_at(n, places, big=1e300):
    """float64 values near 0 that float32 holds, with `big` (beyond float32's
    range) at the given places."""
    x = np.random.default_rng(n).normal(size=n) * 1e30
    x[list(places)] = big
    return x


@pytest.mark.parametrize("lo,hi", [(-np.inf, np.inf), (0.5, np.inf), (-np.inf, -0.5),
                                   (-1e39, 1e39), (1e39, np.inf), (0.5, None), (None, -0.5)])
def test_overflow_is_reported_as_numpys(lo, hi):
    """float64 -> float32 with bounds beyond float32's range (the one-sided
    calls) is fused (ANY_BOUNDS): a finite value the cast makes infinite sets
    the overflow flag, by which NumPy warns or raises; the loop reads it and
    hands the call to NumPy (csrc/convert.h, fc_double_float_from). One such
    value first, in the middle or last, of a short call and a long one (whose
    vector body ends before its scalar tail), of either sign; the values
    that round down to float32's largest, and infinity, do not overflow."""
    f32 = np.dtype(np.float32)
    fused_seen = set()
    for n, big in itertools.product((5, 4001), (1e300, -1e300, 3.4028235e38 + 1e30)):
        for places in ([], [0], [n // 2], [n - 1]):
            x = overflowing_at(n, places, big)
            for over in ("warn", "raise", "ignore"):
                with np.errstate(over=over):
                    got, exp = both(x, lo, hi, f32)
                assert_same_outcome(got, exp, messages=True, with_out=True)
            if lo is not None and hi is not None:
                clipped = np.clip(x, lo, hi)
                with np.errstate(over="ignore"):
                    overflows = bool(np.any(np.isinf(clipped.astype(f32)) & np.isfinite(clipped)))
                fused = _ufunc._for_tests("convert", x, lo, hi, np.empty(n, f32), "unsafe")
                assert fused == (not overflows), (n, places, big)
                fused_seen.add(fused)
    assert fused_seen in ({False}, {True, False}, set()), "some calls overflow"
    x = np.array([np.inf, -np.inf, 3.4028235e38, 3.40282356e38, 1.0], np.float64)
    assert _ufunc._for_tests("convert", x, -np.inf, np.inf, np.empty(5, f32), "unsafe")


@pytest.mark.parametrize("src,dst", [("float", d) for d in ("half", "bfloat16", "float8_e4m3fn",
                                                           "float8_e5m2")]
                         + [("double", d) for d in ("half", "bfloat16", "float8_e4m3fn",
                                                    "float8_e5m2")])
def test_one_sided_into_narrower_floats(src, dst):
    """float32 and float64 into float16, bfloat16 or a float8, with one
    bound (ANY_BOUNDS): a value beyond float16's range goes NumPy's
    way (65519.99 rounds down to 65504, 65520 overflows with NumPy's
    warning, infinity stays), bfloat16's rounding carries one into infinity
    with no warning, as ml_dtypes' does, and a float8's a value that rounds
    past its codes (keeps_fused: e4m3fn 464 rounds to 448, 464.00003 to
    NaN; e5m2 61440 to infinity, 73728 too, 73728.01 past it; 2**108, which
    makes the rounding's magic a signaling NaN where the vector body did not
    cap it; from float64, the doubles next to the limits, and 1e300, beyond
    float32, whose rounding raises the overflow flag; into bfloat16 its
    largest, the tie above it, which rounds to infinity, and the doubles
    about float32's largest, beyond which ml_dtypes warns from 2**128 (1 -
    2**-25) on); one such value at the
    start, in the middle or last, of a short call and a long one, under each
    error state."""
    src, dst = ROWS[src], ROWS[dst]
    bigs = (464.0, 464.00003, 61440.0, 73728.0, 73728.01, 2.0**108) if dst.itemsize == 1 else (
        65519.99, 65520.0)
    if src == ROWS["double"]:
        f32_max = float(np.finfo(np.float32).max)
        bigs += (np.nextafter(464.0, np.inf), np.nextafter(73728.0, np.inf),
                 np.nextafter(65504.0, np.inf), 1e300, 2.0**128 * (1 - 2**-8 - 2**-9),
                 2.0**128 * (1 - 2**-9), f32_max, np.nextafter(f32_max, np.inf),
                 2.0**128 * (1 - 2**-25), np.nextafter(2.0**128 * (1 - 2**-25), np.inf), 2.0**128)
    for n, big in itertools.product((7, 4001), (*bigs, 3.4e38, np.inf, -3.4e38)):
        for place in (0, n // 2, n - 1):
            x = (np.random.default_rng(n).normal(size=n) * 100).astype(src)
            x[place] = big
            for (lo, hi), errors in itertools.product(((0.5, None), (None, 0.5), (-np.inf, np.inf)),
                                                      ("warn", "raise", "ignore")):
                with np.errstate(all=errors):
                    got, exp = both(x, lo, hi, dst)
                assert_same_outcome(got, exp, messages=True, with_out=True)
            clipped = np.clip(x, src.type(0.5), src.type(np.inf))
            fused = _ufunc._for_tests("convert", x, 0.5, np.inf, np.empty(n, dst), "unsafe")
            assert fused == keeps_fused(src, dst, clipped)


def test_overflow_of_a_widened_loop_is_reported_as_numpys():
    """float32 x with float64 bounds into float32: clipped in float64, then
    narrowed (chained, csrc/convert.h), where a bound beyond float32's range
    overflows."""
    x = np.random.default_rng(18).normal(size=3001).astype(np.float32)
    for lo, hi in ((np.float64(1e39), None), (None, np.float64(-1e39)), (np.float64(0.5), None),
                   (np.float64(-1e39), np.float64(1e39))):
        for over in ("warn", "raise", "ignore"):
            with np.errstate(over=over):
                got, exp = both(x, lo, hi, np.dtype(np.float32), casting="same_kind")
            assert_same_outcome(got, exp, messages=True, with_out=True)
    # integer x with Python float bounds: clipped in float64, into float32
    # by one loop (WIDENINGS_INTO), which has no overflow test: a finite
    # bound beyond float32's range takes the chain, which has
    for dtype in (np.int16, np.uint32, np.int64):
        x = np.arange(-1500, 1501).astype(dtype)
        for lo, hi in ((1e300, None), (None, -1e39), (-1e39, 1e39), (1e39, 2e39), (0.5, None),
                       (-np.inf, 3.5e38)):
            for over in ("warn", "raise"):
                with np.errstate(over=over):
                    got, exp = both(x, lo, hi, np.dtype(np.float32), casting="same_kind")
                assert_same_outcome(got, exp, messages=True, with_out=True)


@pytest.mark.skipif(not _ufunc.HAVE_THREAD_POOL, reason="no helper threads")
@pytest.mark.thread_unsafe(reason="only calls from the main thread are split")
def test_overflow_in_a_helper_thread_is_seen():
    """The flag is a thread's own: the part a helper thread converts reads it
    there (an overflow in the call's second half only)."""
    import threading
    n = 1_000_001
    x = overflowing_at(n, [n - 3])
    _ufunc._kernels.configure_threads(2, 0, threading.main_thread().ident, _ufunc.thread_pool())
    _ufunc.pool_modes(split_every_call=True)
    try:
        before = _ufunc._for_tests("pool")[2]
        o = np.empty(n, np.float32)
        assert _ufunc._for_tests("convert", x[: n // 2], 0.5, np.inf, o[: n // 2], "unsafe")
        with np.errstate(over="ignore"):
            assert not _ufunc._for_tests("convert", x, 0.5, np.inf, o, "unsafe")
        assert _ufunc._for_tests("pool")[2] > before
        with np.errstate(over="raise"):
            got, exp = both(x, 0.5, None, np.dtype(np.float32))
        assert_same_outcome(got, exp, messages=True, with_out=True)
    finally:
        _ufunc.pool_modes(split_every_call=False)
        _threads._apply()
