"""What the conversion tests share (tests/test_convert*.py): the pairs of
CONVERSIONS as NumPy dtypes, each source's values that matter (every pattern
of an 8- or 16-bit source), the bounds a pair is fused for, and fastclip
beside NumPy into outs of garbage."""

import platform

import numpy as np

import fastclip
from fastclip._dtypes import CONVERSIONS, DTYPES, finite_range, numpy_dtype
from tests.reference import outcome

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
