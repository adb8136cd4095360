"""np.clip's argument rules for the calls fastclip._ufunc does not take
itself: objects that are not exact ndarrays (duck arrays, subclasses, lists
and scalars the fast path declined) and bfloat16/float8 arrays that keep
their dtype (docs/semantics.rst).

Pure Python and never on the fast path. It mirrors
``numpy/_core/fromnumeric.py::clip`` (the min=/max= aliases) and
``numpy/_core/_wrapfunc`` (objects that are not arrays); exact ndarrays
follow ``numpy/_core/_methods.py::_clip`` in fastclip/_route_ndarray.pxi.
"""

import numpy as np

from fastclip._dtypes import DTYPES, FLOAT8, numpy_dtype, saturates

_NoValue = np._NoValue

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


def _is_ml_float(dtype):
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


def _resolve_aliases(a_min, a_max, min, max):
    # numpy/_core/fromnumeric.py::clip, word for word in its messages
    if a_min is _NoValue and a_max is _NoValue:
        a_min = None if min is _NoValue else min
        a_max = None if max is _NoValue else max
    elif a_min is _NoValue:
        raise TypeError("clip() missing 1 required positional argument: 'a_min'")
    elif a_max is _NoValue:
        raise TypeError("clip() missing 1 required positional argument: 'a_max'")
    elif min is not _NoValue or max is not _NoValue:
        raise ValueError("Passing `min` or `max` keyword argument when "
                         "`a_min` and `a_max` are provided is forbidden.")
    return a_min, a_max


def _ml_bounds(dtype, a_min, a_max):
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
    # and np.clip keeps the input's (found by fuzz/run: an F-ordered float8)
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


def _ml_one_sided(a, a_min, a_max, out, kwargs):
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


def clip(a, a_min, a_max, out, min, max, kwargs):
    """fastclip.clip for any call: NumPy's rules, fastclip's loops."""
    a_min, a_max = _resolve_aliases(a_min, a_max, min, max)

    if type(a) is not np.ndarray:
        if (not isinstance(a, (np.ndarray, np.generic))
                and getattr(type(a), "__array_ufunc__", None) is not None
                and a_min is not None and a_max is not None):
            # Dask, xarray and other duck arrays: through the ufunc, so they
            # stay lazy/labelled and compute with fastclip's loops.
            dtype = getattr(a, "dtype", None)
            if (isinstance(dtype, np.dtype) and _is_ml_float(dtype)
                    and keeps_own_dtype(dtype, a_min, a_max, out, kwargs)):
                a_min, a_max = _ml_bounds(dtype, a_min, a_max)
            return clip_ufunc(a, a_min, a_max, out=out, **kwargs)
        # subclasses (MaskedArray, matrix, ...), lists, scalars and duck
        # arrays with a missing bound: exactly NumPy's behaviour.
        return numpy_clip(a, a_min, a_max, out=out, **kwargs)

    if not (_is_ml_float(a.dtype) and keeps_own_dtype(a.dtype, a_min, a_max, out, kwargs)):
        # every other exact ndarray is fastclip._ufunc's (_route_ndarray.pxi); from
        # here, NumPy's own clip
        return numpy_clip(a, a_min, a_max, out=out, **kwargs)
    return clip_own_dtype(a, a_min, a_max, out, kwargs)


def clip_own_dtype(a, a_min, a_max, out, kwargs):
    """A bfloat16 or float8 array that keeps its dtype (keeps_own_dtype)."""
    try:
        return _clip_own_dtype(a, a_min, a_max, out, kwargs)
    except TypeError:
        # numpy/_core/fromnumeric.py::_wrapfunc retries a method call that
        # raised TypeError through _wrapit; the retry raises again and repeats
        # any warning, so we repeat the call too (same exception, same warnings).
        return _clip_own_dtype(a, a_min, a_max, out, kwargs)


def _one_byte_native(v):
    """A float8 array in the other byte order as the native one: one byte has
    no order, so it is the same format."""
    if isinstance(v, np.ndarray) and v.dtype.itemsize == 1 and not v.dtype.isnative:
        return v.view(v.dtype.newbyteorder("="))
    return v


#: NumPy's casting rules, which a call that keeps its own dtype meets whatever
#: it names: every operand has the array's format (in either byte order)
_CASTINGS = frozenset(("no", "equiv", "safe", "same_kind", "unsafe"))


def _clip_own_dtype(a, a_min, a_max, out, kwargs):
    """A bfloat16 or float8 array that keeps its dtype (docs/semantics.rst):
    Python-number bounds rounded to it, a missing bound by way of float32."""
    a, a_min, a_max, out_ = map(_one_byte_native, (a, a_min, a_max, out))
    if kwargs.get("casting") in _CASTINGS:
        kwargs = {k: v for k, v in kwargs.items() if k != "casting"}
    a_min, a_max = _ml_bounds(a.dtype, a_min, a_max)
    if out_ is not None and np.may_share_memory(a, out_):
        # in place equals a new result (docs/semantics.rst): NumPy's iterator
        # may run the scalar-bound loop for an operand that is its out where
        # it runs the per-element one for a separate out (a one-element
        # float8 NaN against a (1,) bound and a NaN: the bound's NaN in
        # place, x's otherwise; found by the fuzzer), so a is read from a copy
        a = a.copy()
    if a_min is None or a_max is None:
        result = _ml_one_sided(a, a_min, a_max, out_, kwargs)
    else:
        result = clip_ufunc(a, a_min, a_max, out=out_, **kwargs)
    return out if out is not None else result


from fastclip._ufunc import clip_ufunc, keeps_own_dtype  # noqa: E402  (imports this module)
