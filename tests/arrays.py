"""The adversarial inputs every property test draws from.

A drawn case is a recipe (plain data), and ``build`` makes fresh arrays from it,
so fastclip and the oracle each get their own copies with identical layout:
byte order, alignment, strides, read-only flags and aliasing included.
"""

from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st

from fastclip._dtypes import DTYPES, numpy_dtype

KERNEL_DTYPES = [numpy_dtype(row) for row in DTYPES]
# dtypes fastclip hands to NumPy
DELEGATED_DTYPES = [np.dtype(c) for c in "?FDg"] + [np.dtype("M8[s]"), np.dtype("m8[ms]"),
                                                    np.dtype("O")]
ALL_DTYPES = KERNEL_DTYPES + DELEGATED_DTYPES

# values worth hitting on purpose, per kind; the rest are random bits
SPECIAL_FLOATS = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, -2.5, np.inf, -np.inf, np.nan,
                  -np.nan, 1e-40, 3.0e38, 65504.0, 6e-8, 1e300]


@dataclass
class ArraySpec:
    dtype: np.dtype
    shape: tuple
    raw: bytes                  # the element bits, C order, native
    layout: str = "C"           # C, F, T (transposed), strided, unaligned, broadcast
    steps: tuple = ()           # per-axis slice steps for "strided" (negative allowed)
    swapped: bool = False       # non-native byte order
    readonly: bool = False


def _values(dtype, raw, n):
    """n elements of dtype from the raw bits."""
    a = np.frombuffer(raw, dtype=np.uint8, count=n * dtype.itemsize)
    return a.view(dtype.newbyteorder("=")) if not dtype.hasobject else None


def build(spec):
    """A fresh array following the recipe."""
    dtype = spec.dtype
    n = int(np.prod(spec.shape, dtype=np.int64))
    if dtype.hasobject:
        base = np.array([float(i % 7) - 3 for i in range(n)], dtype=object).reshape(spec.shape)
    elif dtype.kind in "Mm":
        base = (np.frombuffer(spec.raw, np.int64, count=n) % 10**9).view(dtype).reshape(spec.shape).copy()
    elif dtype.kind == "b":
        base = (np.frombuffer(spec.raw, np.uint8, count=n) & 1).astype(bool).reshape(spec.shape)
    else:
        base = _values(dtype, spec.raw, n).reshape(spec.shape).copy()
    a = base
    if spec.layout == "F":
        a = np.asfortranarray(base)
    elif spec.layout == "T":
        a = np.ascontiguousarray(base.T).T
    elif spec.layout == "strided":
        big_shape = tuple(s * abs(k) for s, k in zip(spec.shape, spec.steps))
        big = np.zeros(big_shape, base.dtype)
        index = tuple(slice(None, None, k) for k in spec.steps)
        big[index] = base
        a = big[index]
    elif spec.layout == "unaligned" and dtype.itemsize > 1 and not dtype.hasobject:
        buf = np.zeros(n * dtype.itemsize + 1, np.uint8)[1:]
        a = buf.view(base.dtype).reshape(spec.shape)
        a[...] = base
    elif spec.layout == "broadcast" and base.ndim >= 1 and base.shape[-1] > 0:
        a = np.broadcast_to(base[..., :1], base.shape)
    if spec.swapped and dtype.byteorder != "|" and not dtype.hasobject:
        a = a.byteswap().view(a.dtype.newbyteorder())
    if spec.readonly and a.flags.writeable:
        a.flags.writeable = False
    return a


@st.composite
def raw_elements(draw, dtype, n):
    """Bits for n elements: specials (ties, zeros, NaNs, infs) and random."""
    if dtype.kind == "f" or dtype.kind == "V":
        specials = np.array(SPECIAL_FLOATS, np.float64)
        with np.errstate(all="ignore"):
            specials = specials.astype(np.float32).astype(dtype) if dtype.kind == "V" else specials.astype(dtype)
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        specials = np.array([0, 1, 2, info.min, info.max, info.max - 1, info.min + 1], dtype)
    else:
        specials = None
    out = bytearray()
    for _ in range(n):
        if specials is not None and draw(st.booleans()):
            out += specials[draw(st.integers(0, len(specials) - 1))].tobytes()
        else:
            out += draw(st.binary(min_size=dtype.itemsize, max_size=dtype.itemsize))
    return bytes(out)


@st.composite
def array_specs(draw, dtypes=ALL_DTYPES, max_dims=4, max_side=5):
    dtype = draw(st.sampled_from(dtypes))
    shape = tuple(draw(st.lists(st.integers(0, max_side), max_size=max_dims)))
    n = int(np.prod(shape, dtype=np.int64))
    raw = draw(raw_elements(dtype, n)) if not dtype.hasobject else b""
    layout = draw(st.sampled_from(["C", "C", "F", "T", "strided", "unaligned", "broadcast"]))
    steps = tuple(draw(st.sampled_from([1, 2, 3, -1, -2])) for _ in shape)
    return ArraySpec(dtype, shape, raw, layout, steps,
                     swapped=draw(st.booleans()) and draw(st.booleans()),
                     readonly=draw(st.integers(0, 5)) == 0)


def values(dtype, n, rng):
    """Random bits, with a quarter of the elements from the bounds' own values
    (ties) and, for floats, NaNs, infinities and zeros of both signs."""
    raw = rng.integers(0, 256, n * dtype.itemsize, dtype=np.uint8).view(dtype)
    specials = np.array([-1, 0, 1, 2, 100] + ([np.nan, np.inf, -np.inf, -0.0, 0.5]
                                              if dtype.kind in "fV" else []))
    with np.errstate(all="ignore"):
        specials = specials.astype(np.float32).astype(dtype) if dtype.kind == "V" else specials.astype(dtype)
    pick = rng.random(n) < 0.25
    raw[pick] = specials[rng.integers(0, specials.size, pick.sum())]
    return raw


def typical_bounds(dtype):
    """Bounds that clip a fair share of values() on each side, as Python numbers."""
    dtype = np.dtype(dtype)
    if dtype.kind == "u":
        return 0, 100
    if dtype.kind == "i":
        return -1, 100
    return -1.0, 100.0
