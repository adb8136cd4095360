"""Clip and convert in one pass, rounded as NumPy and ml_dtypes round:
2**21 sampled float32 patterns into each narrower type (tools/convert_check.py
does all 2**32), float64 -> float16 rounded once at every halfway point,
float32 -> float16 every rounding case, float64 -> the ml_dtypes types as the
installed cast rounds them."""

import warnings

import numpy as np
import pytest

import fastclip
from fastclip import _ufunc
from fastclip._dtypes import finite_range
from tests.conversions import PAIRS, ROWS, fused_range
from tests.reference import assert_same, assert_same_outcome, outcome


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
