"""Clip and convert in one pass (csrc/convert.h): np.clip(x, lo, hi, out=o,
casting=...) with o of another dtype. Every pair of CONVERSIONS, compared bit
for bit with NumPy's clip-then-cast (results, warnings, exceptions), and shown
to run the fused loop where it should. Every 8- and 16-bit source pattern;
float32 and float64 sources by special values and samples (tools/
convert_check.py runs all 2**32 float32 patterns). Run under each SIMD target
by .ci/run (FASTCLIP_SIMD). What NumPy reports (NaNs, underflow, overflow):
test_convert_flags.py; the rounding: test_convert_rounding.py; what they
share: tests/conversions.py."""

import itertools

import numpy as np
import pytest

import fastclip
from fastclip import _threads, _ufunc
from fastclip._dtypes import CONVERSIONS, DTYPES, MASKED_CONVERSIONS, numpy_dtype
from tests.conversions import (IDS, PAIRS, ROWS, X86, both, bound_pairs, garbage_out,
                               signaling_nan, sources)
from tests.reference import assert_same, assert_same_outcome, outcome, reference_clip


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
