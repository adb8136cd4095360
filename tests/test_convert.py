"""Clip and convert in one pass (csrc/convert.h): np.clip(x, lo, hi, out=o,
casting=...) with o of another dtype. Every pair of CONVERSIONS, compared bit
for bit with NumPy's clip-then-cast (results, warnings, exceptions), and shown
to run the fused loop where it should. Every 8- and 16-bit source pattern;
float32 and float64 sources by special values and samples (tools/
convert_check.py runs all 2**32 float32 patterns). Run under each SIMD target
by .ci/run (FASTCLIP_SIMD)."""

import itertools
import platform
import warnings

import numpy as np
import pytest

import fastclip
from fastclip import _threads, _ufunc
from fastclip._dtypes import (ANY_BOUNDS, CONVERSIONS, DTYPES, MASKED_CONVERSIONS,
                              finite_range, numpy_dtype)
from tests.reference import assert_same, assert_same_outcome, outcome, reference_clip

ROWS = {r.name: numpy_dtype(r) for r in DTYPES}
X86 = platform.machine().lower() in ("x86_64", "amd64")
PAIRS = [(ROWS[s], ROWS[d]) for s, d in CONVERSIONS]
IDS = [f"{ROWS[s].name}->{ROWS[d].name}" for s, d in CONVERSIONS]


def sources(src, rng):
    """Every pattern of an 8/16-bit source; otherwise the values that matter
    (zeros, subnormals, infinities, halfway points, the destination ranges'
    edges) and random ones at several scales. No NaN (see test_nan_...)."""
    if src.itemsize <= 2:
        x = np.arange(2 ** (8 * src.itemsize), dtype=np.uint64).astype(
            f"u{src.itemsize}").view(src)
        if src.kind == "f":
            x = x[~np.isnan(x)]
        return x
    if src.kind in "iu":
        info = np.iinfo(src)
        edges = [v for v in (info.min, info.min + 1, -129, -128, -127, -1, 0, 1, 127, 128, 255,
                             256, 32767, 32768, 65535, 65536, info.max - 1, info.max)
                 if info.min <= v <= info.max]
        # float32 ties and values just past them: int64 -> float32 rounds once
        # (C's cast, NumPy's); by way of float64 2**62 + 2**38 + 1 would land
        # on the tie and round down to even
        edges += [v for t in (2**24 + 1, 2**24 + 3, 2**62 + 2**38, 2**62 + 2**38 + 1,
                              2**53 + 1, 2**53 + 3, 2**62 + 2**9, 2**62 + 2**9 + 1, 2**63 - 2**9)
                  for v in (t, -t) if info.min <= v <= info.max]
        return np.concatenate([np.array(edges, src),
                               rng.integers(info.min, info.max, 20000, dtype=src),
                               rng.integers(-70000, 70000, 20000).astype(src)])
    special = [0.0, -0.0, np.inf, -np.inf, 0.5, -0.5, 1.5, 2.5, -1.5, 0.49999997,
               448.0, 464.0, 440.0, 57344.0, 1.0625, 1.0625000001, 2.0**-9, 2.0**-10,
               3 * 2.0**-10, 2.0**-16, 2.0**-17, 1.5 * 2.0**-16, 0.015625, 0.0146484375,
               127.5, 128.5, 254.5, 255.5, 255.99998, 256.0, -128.5, -129.0, 32767.5,
               65535.5, 65504.0, 65519.99, 65520.0, 5.96e-8, 2.98e-8, 6.1e-5, 1e-45,
               -1e-45, 1e-300, 3.3895313892515355e38, 3.4e38]
    with np.errstate(over="ignore"):
        x = np.concatenate([
            np.array(special, np.float64).astype(src),
            (rng.normal(size=20000) * 100).astype(src),
            (rng.normal(size=20000) * 40000).astype(src),
            rng.uniform(-300, 300, 20000).astype(src),
            (rng.normal(size=20000) * 1e-6).astype(src),
            np.round(rng.uniform(-300, 300, 10000)).astype(src) + src.type(0.5),
        ])
    return x


def fused_range(src, dst):
    """The widest bounds of a float source the fused loop takes: the
    destination's range, or the source's own for a widening."""
    lo, hi = finite_range(dst)
    if src.kind == "f" and src.itemsize < dst.itemsize:
        top = float(np.finfo(src).max)
        lo, hi = max(lo, -top), min(hi, top)
    return lo, hi


def bound_pairs(src, dst):
    """Bounds inside the destination's range (the fused loop's calls), ties
    and lo > hi among them."""
    lo, hi = finite_range(dst)
    if src.kind in "iu":
        s = np.iinfo(src)
        lo, hi = max(lo, int(s.min)), min(hi, int(s.max))
        mid = (lo + hi) // 2
        pairs = [(lo, hi), (lo + 1, hi - 1), (mid, mid + 3), (mid + 3, mid), (0, 0), (mid, mid)]
        if src.itemsize == 8 and dst.kind == "f":
            # int64 into floats: bounds within int32 take the int32 lanes'
            # conversion (csrc/convert_vector.h), just beyond it C's cast
            pairs += [(-2**31, 2**31 - 1), (2**31 - 1, -2**31), (-2**31 - 1, 5), (-5, 2**31),
                      (-(2**24) - 7, 2**24 + 9)]
        return pairs
    lo, hi = fused_range(src, dst)
    if dst.kind in "iu":
        return [(lo, hi), (lo - 0.99, hi + 0.99), (-0.5, 120.7), (10.25, 3.5), (0.0, 0.0),
                (-0.0, 0.0), (0.0, -0.0), (lo + 0.5, lo + 0.75)]
    if dst.kind == "f" and dst.itemsize == 4 and src.itemsize <= 2:
        return [(-1.0, 1.0), (-0.0, 0.0), (0.0, -0.0), (0.5, 0.25), (-1e4, 6e4), (-np.inf, np.inf)]
    top = min(hi, 65504.0)
    return [(lo, hi), (-1.0, 1.0), (-0.0, 0.0), (0.0, -0.0), (0.5, 0.25), (-1e-3, top),
            (-top / 7, top / 3)]


def signaling_nan(dtype):
    """A signaling NaN of a float dtype: its quiet NaN with the quiet bit (the
    top significand bit, the quiet NaN's lowest set bit) cleared, bit 0 set.
    A widening cast of one raises FE_INVALID, which np.clip reports."""
    u = np.dtype(f"u{dtype.itemsize}")
    q = int(np.array(np.nan, dtype).view(u))
    return np.array(q & ~(q & -q) | 1, u).view(dtype)


def payload_nans(dtype):
    """Quiet NaNs of a float dtype (either sign) with payloads in the bits a
    float32 keeps (a float64's top 23 significand bits): some set the low
    half of a float8 loop's float32 sum to what, were the NaN not made
    infinity first, would read as a float8 code (csrc/conversion_vectors.h.in,
    fc_float8_rounded_<format>); all payload bits set too."""
    u = np.dtype(f"u{dtype.itemsize}")
    q = int(np.array(np.nan, dtype).view(u))
    keep = 29 if dtype.itemsize == 8 else 0      # float64 -> float32 keeps the top bits
    payloads = [0xf810, 0xfc10, 0x0101, (1 << 22) - 1]
    sign = 1 << (8 * dtype.itemsize - 1)
    bits = {(q | p << keep) & (sign - 1) for p in payloads} - {q}
    return [np.array(b | s, u).view(dtype) for b in sorted(bits) for s in (0, sign)]


def garbage_out(shape, dst):
    """A fresh array of dst whose bytes are all 0xA5."""
    return np.frombuffer(np.full(int(np.prod(shape)) * dst.itemsize, 0xA5, np.uint8).tobytes(),
                         dst).reshape(shape).copy()


def both(x, lo, hi, dst, casting="unsafe", out_shape=None):
    """fastclip and NumPy into fresh outs of dst filled with garbage."""
    o1 = garbage_out(x.shape if out_shape is None else out_shape, dst)
    o2 = o1.copy()
    got = outcome(lambda: (fastclip.clip(x, lo, hi, out=o1, casting=casting), o1, x))
    exp = outcome(lambda: (np.clip(x, lo, hi, out=o2, casting=casting), o2, x))
    return got, exp


@pytest.mark.parametrize("src,dst", PAIRS, ids=IDS)
def test_every_pair_is_fused_and_exact(src, dst):
    rng = np.random.default_rng(12)
    x = sources(src, rng)
    for lo, hi in bound_pairs(src, dst):
        for bounds in ((lo, hi), (src.type(lo), src.type(hi))):
            got, exp = both(x, *bounds, dst)
            assert_same_outcome(got, exp, with_out=True)
            assert got[1][0] is got[1][1]           # returns out
        # the fused loop did it (a NaN-free source, bounds in range)
        o = np.empty(x.shape, dst)
        assert _ufunc._for_tests("convert", x, lo, hi, o, "unsafe"), (lo, hi)
        assert_same(o, np.clip(x, lo, hi, out=np.empty(x.shape, dst), casting="unsafe"))


def both_where(x, lo, hi, dst, where, **kwargs):
    """both(), with where=: outs of garbage, which the elements where= leaves
    clear must keep."""
    o1 = garbage_out(x.shape, dst)
    o2 = o1.copy()
    got = outcome(lambda: (fastclip.clip(x, lo, hi, out=o1, where=where, **kwargs), o1, x))
    exp = outcome(lambda: (np.clip(x, lo, hi, out=o2, where=where, **kwargs), o2, x))
    return got, exp


def masks(n, rng):
    """where= masks of n: random at 50% and 95% set, all set, none set, and
    runs of each a block long (csrc/convert.h fc_convert_masked's blocks)."""
    runs = np.arange(n) // 1000 % 2 == 0
    return [rng.random(n) < 0.5, rng.random(n) < 0.95, np.ones(n, bool), np.zeros(n, bool), runs]


@pytest.mark.parametrize("src,dst", PAIRS, ids=IDS)
def test_where_into_every_pair_is_fused_and_exact(src, dst):
    """where= into an out of another dtype: the fused loop and the mask's
    blend in one pass (_convert_into with where), out written only where the mask
    is set, as np.clip(..., out=, where=)."""
    rng = np.random.default_rng(13)
    x = sources(src, rng)
    for lo, hi in bound_pairs(src, dst)[:3]:
        for where in masks(x.size, rng):
            got, exp = both_where(x, lo, hi, dst, where, casting="unsafe")
            assert_same_outcome(got, exp, with_out=True)
            assert got[1][0] is got[1][1]
            o = np.empty(x.shape, dst)
            assert _ufunc._for_tests("convert", x, lo, hi, o, "unsafe", where), (lo, hi)
    # lengths about the blocks, every casting rule (NumPy's error where it refuses)
    for n in (0, 1, 31, 1023, 1024, 1025, 2049):
        for casting in (None, "same_kind", "safe", "unsafe", "no"):
            kwargs = {} if casting is None else {"casting": casting}
            where = rng.random(n) < 0.5
            got, exp = both_where(x[:n], *bound_pairs(src, dst)[0], dst, where, **kwargs)
            assert_same_outcome(got, exp, messages=True, with_out=True)


def line_offset_out(n, dst, offset):
    """A garbage out of n elements of dst starting offset bytes past a
    64-byte boundary, and an equal one elsewhere at the same offset."""
    outs = []
    for _ in range(2):
        buf = np.full(n * dst.itemsize + 128, 0xA5, np.uint8)
        start = -buf.ctypes.data % 64 + offset
        outs.append(buf[start:start + n * dst.itemsize].view(dst))
    return outs


@pytest.mark.parametrize("src,dst", [(ROWS[s], ROWS[d]) for s, d in MASKED_CONVERSIONS],
                         ids=[f"{s}->{d}" for s, d in MASKED_CONVERSIONS])
def test_where_loops_of_their_own_at_every_offset(src, dst):
    """The pairs whose where= loop stores straight into out
    (fc_cvtm_<pair>, csrc/conversion_loops.h.in): out at every offset of its items
    from a cache line (the loop does its head apart where it is long) and
    lengths about its vectors, against NumPy; float32 sources with a NaN
    in the head, the vectors and the tail, set and clear under the mask."""
    rng = np.random.default_rng(15)
    x = np.resize(sources(src, rng), 2051)      # 8-bit patterns repeated
    rng.shuffle(x)
    lo, hi = bound_pairs(src, dst)[2]
    for n in (15, 16, 17, 33, 1100, 2051):
        where = rng.random(n) < 0.5
        for offset in range(0, 64, dst.itemsize):
            got_out, exp_out = line_offset_out(n, dst, offset)
            np.clip(x[:n], lo, hi, out=exp_out, where=where, casting="unsafe")
            assert _ufunc._for_tests("convert", x[:n], lo, hi, got_out, "unsafe", where)
            assert_same(got_out, exp_out)
    if src.kind != "f":
        return
    n = 2051
    for at in (0, 3, 40, 1000, n - 2):
        y = x[:n].copy()
        y[at] = np.nan
        for where in (np.arange(n) == at, np.arange(n) != at):
            got, exp = both_where(y, lo, hi, dst, where)
            assert_same_outcome(got, exp, messages=True, with_out=True)
            got_out, _ = line_offset_out(n, dst, 8)
            assert not _ufunc._for_tests("convert", y, lo, hi, got_out, "unsafe", where)


@pytest.mark.parametrize("src,dst", [p for p in PAIRS if p[0].kind == "f"][::3],
                         ids=[i for i, p in zip(IDS, PAIRS) if p[0].kind == "f"][::3])
def test_where_with_a_nan_goes_numpys_way(src, dst):
    """A NaN in x with where=, set or clear under it: NumPy's outcome (its
    value and warnings where set; a clear one is not read)."""
    x = np.array([1.0, np.nan, -2.0, 300.0, -np.nan, 0.5] * 400, np.float64).astype(src)
    lo, hi = bound_pairs(src, dst)[0]
    for where in (np.arange(x.size) % 3 == 1, np.arange(x.size) % 3 == 0):
        got, exp = both_where(x, lo, hi, dst, where, casting="unsafe")
        assert_same_outcome(got, exp, messages=True, with_out=True)


def test_where_into_another_dtype_the_fused_loop_does_not_take():
    """Masks it does not take (strided, another shape, not bool, overlapping
    out) and an out overlapping the mask: NumPy's outcome all the same."""
    rng = np.random.default_rng(14)
    x = (rng.normal(size=3000) * 100).astype(np.float32)
    m = rng.random(6000) < 0.5
    cases = [m[::2], m[:3000].reshape(1, 3000), m[:3000].astype(np.uint8), m[:1],
             m[:3000].tolist(), True]
    for where in cases:
        for f in (x, x.reshape(1, 3000)):
            got, exp = both_where(f, -50.0, 50.0, np.dtype(np.float64), where)
            assert_same_outcome(got, exp, messages=True, with_out=True)
        assert not _ufunc._for_tests("convert", x, -50.0, 50.0, np.empty(3000), "same_kind", where)
    # out over the mask's own bytes
    buf = np.zeros(3000 * 9, np.uint8)
    where = buf[:3000].view(bool)
    where[::3] = True
    out = buf[8:3000 * 8 + 8].view(np.float64)
    assert not _ufunc._for_tests("convert", x, -50.0, 50.0, out, "same_kind", where)


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


class _MaximumSeen:
    """np._core.umath, noting its maximum/minimum/positive calls (NumPy's
    route of a one-sided clip, or of one whose bounds NumPy drops)."""

    def __init__(self, umath):
        self.umath, self.calls = umath, 0

    def __getattr__(self, name):
        if name in ("maximum", "minimum", "positive"):
            self.calls += 1
        return getattr(self.umath, name)


def numpys_route_watched(monkeypatch):
    """_MaximumSeen in place of fastclip's np._core.umath, after the one-time
    probe of NumPy's np.maximum (_ufunc's _probe_nans_kept), which it would
    count."""
    fastclip.clip(np.zeros(3), 0, None)
    seen = _MaximumSeen(_ufunc._umath)
    monkeypatch.setattr(_ufunc, "_umath", seen)
    return seen


@pytest.mark.parametrize("src,dst", [("uint16", "uint8"), ("int16", "uint8"),
                                     *((s, d) for s in ("int32", "int64")
                                       for d in ("uint8", "int8", "uint16", "int16"))])
def test_integer_narrowings_wrap_in_one_pass(src, dst, monkeypatch):
    """An integer narrowing with a bound beyond the destination's range, or
    none (np.clip(u16, 0, None, out=u8): NumPy drops the bound and runs
    np.positive into its cast), wraps as NumPy's cast does, in the fused loop:
    C's cast wraps too, and so does int64's vector loop (each bound case
    below takes one of its versions: lo only, hi only, both, and the last,
    bounds inside the destination's range, packs with saturation)."""
    src, dst = np.dtype(src), np.dtype(dst)
    info = np.iinfo(src)
    step = max(1, (int(info.max) - int(info.min)) // 65536 | 1)       # odd: every low byte
    x = np.concatenate([np.arange(info.min, info.max + 1, step, dtype=np.int64),
                        [info.min, info.max, -1, 0, 255, 256, 32768]])
    x = x[(x >= info.min) & (x <= info.max)].astype(src)
    seen = numpys_route_watched(monkeypatch)
    for lo, hi in ((0, None), (None, 1000), (int(info.min), None), (None, int(info.max)),
                   (-300, 70000), (100, 300), (0, 100)):
        got, exp = both(x, lo, hi, dst)
        assert_same_outcome(got, exp, with_out=True)
    assert seen.calls == 0


@pytest.mark.parametrize("src,dst", [("float64", d) for d in ("float32", "float16", "bfloat16", "int8",
                                                             "int32")]
                         + [("float32", d) for d in ("float16", "bfloat16", "float8_e4m3fn",
                                                     "float8_e5m2", "int8")])
def test_a_zero_bound_into_a_narrower_dtype(src, dst, monkeypatch):
    """np.clip(x, 0, None, out=narrower) is np.maximum(x, 0), which gives
    the bound on a tie (-0.0 becomes +0.0) where the fused clip keeps x:
    fastclip clips below by the smallest subnormal instead, which every
    narrower dtype makes the bound's zero (_narrowed_past_the_tie). NumPy's
    bits, zeros and subnormals of both signs among x, under each underflow
    mode; fused where it can be: float64 -> float32, float16 and bfloat16
    (whose AVX2 loop then rounds to odd everywhere at once: the subnormal
    bound), float32 -> float16, bfloat16 and the float8s (ANY_BOUNDS), a
    bound of +0.0 below or -0.0 above, underflow ignored."""
    src, dst = np.dtype(src), ROWS[dst] if dst in ROWS else np.dtype(dst)
    tiny = [0.0, -0.0, 5e-324, -5e-324, 1e-310, -1e-310, 1e-45, -1e-45, 2.0**-150,
            -(2.0**-150), 3e-39, -3e-39, 1e-300, -1e-300, 1.0, -1.0, 100.5, -100.5,
            1.5 * 2.0**-133 - 2.0**-160]      # rounded to float32 first: bfloat16's tie
    with np.errstate(all="ignore"):
        x = np.resize(np.array(tiny).astype(src), 4001)
    seen = numpys_route_watched(monkeypatch)
    for bound, lower, under in itertools.product((0, 0.0, -0.0, src.type(0.0), src.type(-0.0)),
                                                 (True, False), ("ignore", "warn")):
        lo, hi = (bound, None) if lower else (None, bound)
        calls = seen.calls
        with np.errstate(under=under):
            got, exp = both(x, lo, hi, dst, casting="unsafe")
        assert_same_outcome(got, exp, messages=True, with_out=True)
        positive = np.copysign(1.0, bound) > 0
        # (on aarch64 NumPy's np.maximum gives either zero on a tie, by
        # position, and fastclip leaves float one-sided calls to it)
        fused = (X86 and (src.name, dst.name) in [("float64", "float32"), ("float64", "float16"),
                                                  ("float64", "bfloat16"), ("float32", "float16"),
                                                  ("float32", "bfloat16"),
                                                  ("float32", "float8_e4m3fn"),
                                                  ("float32", "float8_e5m2")]
                 and positive == lower and under == "ignore")
        assert (seen.calls == calls) == fused, (bound, lower, under)


@pytest.mark.parametrize("casting", ["no", "equiv", "safe", "same_kind", "unsafe", "bogus"])
@pytest.mark.parametrize("src,dst", PAIRS, ids=IDS)
def test_casting_rules_are_numpys(src, dst, casting):
    x = sources(src, np.random.default_rng(14))[:100]
    lo, hi = bound_pairs(src, dst)[0]
    got, exp = both(x, lo, hi, dst, casting=casting)
    assert_same_outcome(got, exp, with_out=True)


def test_layouts_the_fused_loop_does_not_take():
    """Strided, reversed, 2-D views, out overlapping x, zero size, another
    byte order: the same result as NumPy's, whichever route it takes."""
    rng = np.random.default_rng(15)
    base = (rng.normal(size=(60, 80)) * 200).astype(np.float32)
    for x, shape in ((base, None), (base[:, ::2], None), (base[::-1], None), (base.T, None),
                     (base[:0], None)):
        got, exp = both(x, 0, 255, np.dtype(np.uint8))
        assert_same_outcome(got, exp, with_out=True)
    # out a uint8 view of x's own buffer (NumPy buffers; so must we)
    for k in range(2):
        x1, x2 = base.copy(), base.copy()
        o1 = x1.view(np.uint8)[:, k::4]
        o2 = x2.view(np.uint8)[:, k::4]
        fastclip.clip(x1, 0, 255, out=o1, casting="unsafe")
        np.clip(x2, 0, 255, out=o2, casting="unsafe")
        assert_same(x1, x2)
    swapped = base.astype(base.dtype.newbyteorder())
    got, exp = both(swapped, 0, 255, np.dtype(np.uint8))
    assert_same_outcome(got, exp, with_out=True)


@pytest.mark.skipif(not _ufunc.HAVE_THREAD_POOL, reason="no helper threads")
@pytest.mark.thread_unsafe(reason="only calls from the main thread are split")
def test_large_calls_split_across_threads_give_the_same_bits():
    import threading
    x = (np.random.default_rng(16).normal(size=3_000_001) * 200).astype(np.float32)
    expected = np.clip(x, -128, 127, out=np.empty(x.shape, np.int8), casting="unsafe")
    _ufunc._kernels.configure_threads(2, 0, threading.main_thread().ident, _ufunc.thread_pool())
    _ufunc.pool_modes(split_every_call=True)
    try:
        before = _ufunc._for_tests("pool")[2]
        o = np.empty(x.shape, np.int8)
        assert fastclip.clip(x, -128, 127, out=o, casting="unsafe") is o
        assert_same(o, expected)
        assert _ufunc._for_tests("pool")[2] > before
    finally:
        _ufunc.pool_modes(split_every_call=False)
        _threads._apply()


NARROWINGS = [(s, d) for s, d in PAIRS if s == np.float32]


@pytest.mark.parametrize("src,dst", NARROWINGS,
                         ids=[f"float32->{d.name}" for _, d in NARROWINGS])
def test_sampled_float32_patterns(src, dst):
    """2**21 random float32 bit patterns (NaNs aside), bounds at the
    destination's extremes, so most values are converted, not clipped.
    tools/convert_check.py does all 2**32."""
    bits = np.random.default_rng(17).integers(0, 2**32, 2**21, dtype=np.uint64).astype(np.uint32)
    x = bits.view(np.float32)
    x = x[~np.isnan(x)]
    lo, hi = fused_range(np.dtype(np.float32), dst)
    o = np.empty(x.shape, dst)
    assert _ufunc._for_tests("convert", x, lo, hi, o, "unsafe")
    assert_same(o, np.clip(x, lo, hi, out=np.empty(x.shape, dst), casting="unsafe"))


def test_float64_to_float16_rounds_once():
    """NumPy rounds a double to float16 in one step. Near a float16 halfway
    point, a double rounded to the nearest float32 first can land exactly on
    it and tie the wrong way; the fused loop must not (csrc/convert.h rounds
    to odd in float32). Every halfway point between adjacent float16 values,
    and doubles just off it."""
    h = np.arange(0x7C00, dtype=np.uint16).view(np.float16).astype(np.float64)
    mid = (h[:-1] + h[1:]) / 2                       # exact in float64
    mid = np.concatenate([mid, -mid])
    x = np.concatenate([mid, np.nextafter(mid, np.inf), np.nextafter(mid, -np.inf),
                        mid * (1 + 2.0**-30), mid * (1 - 2.0**-30), mid * (1 + 2.0**-25)])
    # the hazard is real: the float32 route differs from NumPy's for some of them
    assert (x.astype(np.float32).astype(np.float16) != x.astype(np.float16)).any()
    o = np.empty(x.shape, np.float16)
    assert _ufunc._for_tests("convert", x, -65504.0, 65504.0, o, "unsafe")
    assert_same(o, np.clip(x, -65504.0, 65504.0, out=np.empty(x.shape, np.float16),
                           casting="unsafe"))


def test_float32_to_float16_every_rounding_case():
    """float32 -> float16 rounds in csrc/float16.h's branch-free
    fc_float_to_half_in_range where F16C is missing (the sse42 and baseline
    builds, NEON), and by vcvtps2ph at AVX2 and AVX-512. Every float16 value
    and every halfway point between neighbours, subnormals and both signs,
    with the float32s one step either side, and NaNs with payloads at every
    bit: the same bits as NumPy's."""
    h = np.arange(0x7C00, dtype=np.uint16).view(np.float16).astype(np.float32)
    mid = (h[:-1] + h[1:]) / 2                       # exact in float32
    x = np.concatenate([h, mid, np.nextafter(mid, np.float32(np.inf)),
                        np.nextafter(mid, np.float32(-np.inf))])
    nans = (0x7F800000 | (1 << np.arange(23, dtype=np.uint32))).view(np.float32)
    x = np.concatenate([x, -x, nans, -nans]).astype(np.float32)
    o = np.empty(x.shape, np.float16)
    assert not _ufunc._for_tests("convert", x, -65504.0, 65504.0, o, "unsafe")   # a NaN: NumPy's way
    finite = x[x == x]
    o = np.empty(finite.shape, np.float16)
    assert _ufunc._for_tests("convert", finite, -65504.0, 65504.0, o, "unsafe")
    assert_same(o, np.clip(finite, -65504.0, 65504.0, out=np.empty(finite.shape, np.float16),
                           casting="unsafe"))
    # the NaNs through the public call (whichever route it takes), and
    # NumPy's warnings on this machine (ARM's conversion of a signaling NaN
    # raises the invalid flag, x86's does not)
    assert_same_outcome(
        outcome(lambda: fastclip.clip(x, -65504.0, 65504.0, out=np.empty(x.shape, np.float16),
                                      casting="unsafe")),
        outcome(lambda: np.clip(x, -65504.0, 65504.0, out=np.empty(x.shape, np.float16),
                                casting="unsafe")), messages=True)


def round_once(x, dst):
    """x (finite doubles inside dst's range) rounded to dst once, to nearest,
    ties to the even pattern: the nearest of dst's finite values, found by
    search, not by any cast."""
    unsigned = np.dtype(f"u{dst.itemsize}")
    with np.errstate(invalid="ignore"):
        values = np.arange(2 ** (8 * dst.itemsize), dtype=np.uint64).astype(unsigned).view(dst)
        wide = values.astype(np.float64)
    keep = np.isfinite(wide) & ~((wide == 0) & np.signbit(wide))
    values, wide = values[keep], wide[keep]
    order = np.argsort(wide)
    values, wide = values[order], wide[order]
    i = np.clip(np.searchsorted(wide, x), 1, wide.size - 1)
    below, above = wide[i - 1], wide[i]
    pick_above = (above - x < x - below) | ((above - x == x - below)
                                            & (values[i].view(unsigned) % 2 == 0))
    out = np.where(pick_above, values[i], values[i - 1])
    out[x == 0] = np.zeros(1, dst)[0]
    return out.view(unsigned)


@pytest.mark.parametrize("dst", [ROWS[n] for n in ("bfloat16", "float8_e4m3fn", "float8_e5m2")],
                         ids=["bfloat16", "float8_e4m3fn", "float8_e5m2"])
def test_float64_to_ml_dtypes_rounds_as_the_installed_cast(dst):
    """ml_dtypes casts a double to bfloat16 or a float8 rounding once (0.7 on)
    or through float32 (earlier releases). At every halfway point between
    neighbouring values of dst and the doubles just off it the two differ;
    the fused loop fastclip keeps must give the installed cast's bits there,
    and the installed cast must be one of the two (else no fused loop is
    kept and test_every_pair_is_fused_and_exact fails too)."""
    unsigned = np.dtype(f"u{dst.itemsize}")
    with np.errstate(invalid="ignore"):
        v = np.arange(2 ** (8 * dst.itemsize - 1), dtype=np.uint64).astype(unsigned).view(dst)
        v = np.unique(v.astype(np.float64))
    v = v[np.isfinite(v)]
    mid = (v[:-1] + v[1:]) / 2
    x = np.concatenate([mid, np.nextafter(mid, np.inf), np.nextafter(mid, -np.inf),
                        mid * (1 + 2.0**-30), mid * (1 - 2.0**-30), mid * (1 + 2.0**-25)])
    x = np.concatenate([x, -x])
    once = round_once(np.abs(x), dst) | np.where(x < 0, 1 << (8 * dst.itemsize - 1), 0).astype(unsigned)
    via_float32 = x.astype(np.float32).astype(dst).view(unsigned)
    assert (once != via_float32).any()          # the hazard is real
    cast = x.astype(dst).view(unsigned)
    assert (cast == once).all() or (cast == via_float32).all(), \
        "this ml_dtypes rounds float64 neither once nor through float32"
    lo, hi = finite_range(dst)
    o = np.empty(x.shape, dst)
    assert _ufunc._for_tests("convert", x, lo, hi, o, "unsafe")
    assert_same(o, np.clip(x, lo, hi, out=np.empty(x.shape, dst), casting="unsafe"))


def test_float64_to_bfloat16_through_the_sticky_bit_and_again():
    """AVX2 rounds a float64 run into bfloat16 through a sticky bit
    (csrc/simd/avx2.h), exact wherever the float32 is normal, and does the
    run again rounding to odd everywhere if a value made a float32 subnormal
    (the underflow flag). Halfway points of normal bfloat16s and doubles just
    off them alone (the sticky pass stands), then with one value just above
    a halfway point of bfloat16's subnormals at the start, the middle or the
    end (rounded twice to nearest it would tie, and go down to even): the
    installed cast's bits each time, and no warning."""
    dst = ROWS["bfloat16"]
    v = np.arange(0x0080, 0x7f80, dtype=np.uint16).view(dst).astype(np.float64)
    mid = (v[:-1] + v[1:]) / 2
    x = np.concatenate([mid, np.nextafter(mid, np.inf), np.nextafter(mid, -np.inf),
                        mid * (1 + 2.0**-30), mid * (1 - 2.0**-30), v])
    x = np.concatenate([x, -x])
    lo, hi = finite_range(dst)
    tiny = [(2 * k + 1) * 2.0**-134 + 2.0**-160 for k in (0, 5, 126)]
    for p, t in [(None, None)] + [(p, t) for p in (0, len(x) // 2, len(x) - 1) for t in tiny]:
        y = x.copy()
        if p is not None:
            y[p] = t if p % 2 == 0 else -t
        o = np.empty(y.shape, dst)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert _ufunc._for_tests("convert", y, lo, hi, o, "unsafe"), p
        assert_same(o, np.clip(y, lo, hi, out=np.empty(y.shape, dst), casting="unsafe"))


FUSED = set(CONVERSIONS)
UNFUSED = [(s, d) for s in DTYPES for d in DTYPES
           if s.char is not None and s != d and (s.name, d.name) not in FUSED]


@pytest.mark.parametrize("src,dst", [(numpy_dtype(s), numpy_dtype(d)) for s, d in UNFUSED],
                         ids=[f"{s.name}->{d.name}" for s, d in UNFUSED])
def test_pairs_not_fused_are_numpys(src, dst):
    """An out of a dtype no fused loop writes (the clip in x's dtype, then a
    copy into out for a widening, fastclip's ufunc otherwise): NumPy's
    values, warnings, exceptions and messages, for bounds of every kind the
    fast path takes (ints at the type's limits, which NumPy drops, NaN) and
    the casting rules."""
    rng = np.random.default_rng(19)
    with np.errstate(all="ignore"):
        x = (rng.normal(size=301) * 150).astype(src)
        if src.kind == "f":
            x[::37] = np.nan
            x[5::41] = signaling_nan(src)
    if src.kind in "iu":
        info = np.iinfo(src)
        bounds = [(0, 5), (-3, 100), (int(info.min), 7), (3, int(info.max)), (9, 2)]
    else:
        bounds = [(-1.5, 2.5), (0, 100), (np.nan, 1.0), (-0.0, 0.0), (-np.inf, 7.25)]
    for lo, hi in bounds:
        for casting in ("same_kind", "unsafe", "safe", "no"):
            for view in (x, x[::3], x[:16]):
                got, exp = both(view, lo, hi, dst, casting=casting)
                assert_same_outcome(got, exp, messages=True, with_out=True)
    # out broadcast to a larger shape than x
    got, exp = both(x[:16], 2, 9, dst, out_shape=(3, 16))
    assert_same_outcome(got, exp, messages=True, with_out=True)


TINY_OUTS = [numpy_dtype(r) for r in DTYPES] + [np.dtype(t) for t in (bool, complex, np.longdouble)]


def tiny_inputs(dtype):
    """A 0-d array (a number, a NaN), a NumPy scalar, one-element, empty and
    five-element arrays of dtype: the shapes every route must take."""
    with np.errstate(all="ignore"):
        base = (np.array([3, -2, 0.5, np.nan, 7]).astype(dtype) if dtype.kind != "b"
                else np.array([True, False, True, False, True]))
    return {"0-d": base[0:1].reshape(()), "0-d NaN": base[3:4].reshape(()),
            "scalar": base[0], "one": base[:1], "empty": base[:0], "five": base}


@pytest.mark.parametrize("src", TINY_OUTS, ids=[d.name for d in TINY_OUTS])
def test_tiny_inputs_into_every_out(src):
    """0-d arrays, NumPy scalars, one-element and empty arrays into an out of
    every dtype (fused pairs, widenings, NumPy's), with every kind of bound
    and where=: NumPy's outcome. (The widening route clips a 0-d array to a
    NumPy scalar, which it must not read as an array.)"""
    bound_kinds = [(1, 2), (0.5, 2.5), (None, 2), (np.float64(0.5), np.float64(3)),
                   (np.array(1).astype(src), 5), (np.array([1]), np.array([4]))]
    for (name, a), dst, (lo, hi) in itertools.product(tiny_inputs(src).items(), TINY_OUTS,
                                                     bound_kinds):
        shape = np.shape(a)
        masks = [None, True, (np.arange(int(np.prod(shape))) % 2 == 0).reshape(shape)]
        for casting, where in itertools.product(("unsafe", "same_kind"), masks):
            kwargs = {"casting": casting} if where is None else {"casting": casting, "where": where}
            o1, o2 = np.zeros(shape, dst), np.zeros(shape, dst)
            got = outcome(lambda: (fastclip.clip(a, lo, hi, out=o1, **kwargs), o1, a))
            exp = outcome(lambda: (reference_clip(a, lo, hi, out=o2, **kwargs), o2, a))
            assert_same_outcome(got, exp, with_out=True)
