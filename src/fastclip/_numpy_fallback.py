"""What NumPy itself computes for fastclip: its own clip, to which fastclip
hands the calls it does not take, and the bfloat16/float8 calls with a
missing bound, which NumPy runs in float32 (widened exactly here, clipped by
NumPy, narrowed back: docs/semantics.rst).

Pure Python, never on the fast path, and a leaf: fastclip._ufunc imports it,
it imports nothing of fastclip's but the dtype table.
"""

import numpy as np

from fastclip._dtypes import DTYPES, FLOAT8, numpy_dtype, saturates

#: NumPy's own clip, for every call fastclip hands to NumPy. Taken from the
#: module that defines it, never looked up as ``numpy.clip`` at call time: a
#: program may have bound that name to fastclip.clip (fastclip.patch_numpy,
#: or ``numpy.clip = fastclip.clip`` by hand), and the hand-off would then call
#: fastclip again, forever (a RecursionError).
numpy_clip = np._core.fromnumeric.clip

#: the ml_dtypes formats (bfloat16, float8_e4m3fn, float8_e5m2): NumPy clips
#: them in float32; fastclip keeps their dtype (docs/semantics.rst)
_ML_FLOATS = frozenset(numpy_dtype(row) for row in DTYPES if row.char is None)
_BFLOAT16 = next(numpy_dtype(row) for row in DTYPES if row.kind == "bfloat16")


def is_ml_float(dtype):
    return dtype.newbyteorder("=") in _ML_FLOATS


def _float8_table(dtype):
    """The 256 patterns of a float8 format widened to float32, exactly; each
    NaN pattern becomes its own quiet NaN (payload = the pattern), so that
    narrowing (by searchsorted on the sorted bits) gives back its bits."""
    wide = np.arange(256, dtype=np.uint8).view(dtype).astype(np.float32).view(np.uint32)
    nan = np.isnan(wide.view(np.float32))
    p = np.arange(256, dtype=np.uint32)
    wide[nan] = (0x7FC00000 | ((p & 0x80) << 24) | p)[nan]
    order = np.argsort(wide)
    return wide.view(np.float32), wide[order], order.astype(np.uint8)


#: per float8 dtype, made at first use: _float8_table's three arrays
_FLOAT8_TABLES = {numpy_dtype(row): None for row in DTYPES if row.kind == "float8"}


def ml_bounds(dtype, a_min, a_max):
    """Python-number bounds of a bfloat16 or float8 array as scalars of its
    dtype, so the ufunc picks its loop (NumPy's promotion would take them to
    float32 or float64). A number goes through float32, with NumPy's overflow
    warning, then rounds to the dtype; in float8_e4m3fn, which has no
    infinity, beyond the finite range it saturates (docs/semantics.rst)."""
    dtype = dtype.newbyteorder("=")
    top = FLOAT8[dtype.name][3] if dtype.name in FLOAT8 and saturates(dtype.name) else None

    def convert(v):
        if type(v) not in (int, float):
            return v
        f = np.float32(v)
        if top is not None and abs(f) > top:
            f = np.float32(np.copysign(top, f))
        return f.astype(dtype)
    return convert(a_min), convert(a_max)


def _widen(x):
    """bfloat16 or float8 -> float32, exactly (NaN payloads kept: bfloat16 by
    bits, a float8 NaN as a quiet NaN carrying its pattern)."""
    x = np.asarray(x)
    dtype = x.dtype.newbyteorder("=")
    if dtype == _BFLOAT16:
        bits = x.astype(dtype, copy=False).view(np.uint16)
        return (bits.astype(np.uint32) << 16).view(np.float32)
    # np.take into an array laid out like x: indexing would give C order,
    # and np.clip keeps the input's (an F-ordered float8 stays F-ordered)
    wide = np.empty_like(x, dtype=np.float32)
    return np.take(_float8_tables(dtype)[0], x.view(np.uint8), out=wide)


def _narrow(wide, dtype):
    """The inverse of _widen, for float32 values that are widened elements."""
    wide = np.asarray(wide).view(np.uint32)
    dtype = dtype.newbyteorder("=")
    if dtype == _BFLOAT16:
        return (wide >> 16).astype(np.uint16).view(_BFLOAT16)
    _, sorted_bits, patterns = _float8_tables(dtype)
    narrow = np.empty_like(wide, dtype=np.uint8)
    return np.take(patterns, np.searchsorted(sorted_bits, wide), out=narrow).view(dtype)


def _float8_tables(dtype):
    if _FLOAT8_TABLES[dtype] is None:
        _FLOAT8_TABLES[dtype] = _float8_table(dtype)
    return _FLOAT8_TABLES[dtype]


def ml_one_sided(a, a_min, a_max, out, kwargs):
    """A bfloat16 or float8 clip with a missing bound. NumPy would run
    np.minimum, np.maximum or np.positive in float32 (ml_dtypes' own bfloat16
    minimum warns on NaN), so widen exactly, let NumPy do that, and narrow:
    exact, because the result is always one of x, lo, hi (docs/semantics.rst)."""
    kwargs = dict(kwargs)
    where = kwargs.pop("where", True)
    lo = None if a_min is None else _widen(a_min)
    hi = None if a_max is None else _widen(a_max)
    if out is None:
        narrow = _narrow(numpy_clip(_widen(a), lo, hi, **kwargs), a.dtype)
        return narrow if narrow.ndim else narrow[()]
    # into a float32 array of out's shape: NumPy's broadcasting rules, its errors
    wide = numpy_clip(_widen(a), lo, hi, out=np.zeros(out.shape, np.float32), **kwargs)
    np.copyto(out, _narrow(wide, a.dtype), where=where)
    return out
