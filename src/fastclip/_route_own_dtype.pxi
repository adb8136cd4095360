# Routes' shared rules: the Python int bounds NumPy drops (numpy/_core/
# _methods.py::_clip), and whether a bfloat16 or float8 call keeps its dtype
# (docs/semantics.rst, the bfloat16/float8 rule).
# Part of fastclip/_ufunc.pyx (included there, in this order).

cdef inline bint _has_dropped_int_bound(int row, object a_min, object a_max):
    """numpy/_core/_methods.py::_clip: an integer array drops a Python int
    bound at or beyond its dtype's range (NEP 50: no value-based casting)."""
    if ROW_KIND[row] != KIND_INT:
        return False
    lo, hi = <tuple>ROW_INT_RANGE[row]
    return (type(a_min) is int and a_min <= lo) or (type(a_max) is int and a_max >= hi)


cdef tuple _without_dropped_int_bounds(int row, object a_min, object a_max):
    """(a_min, a_max) with the Python int bounds _has_dropped_int_bound finds
    made None, as numpy/_core/_methods.py::_clip makes them."""
    lo, hi = <tuple>ROW_INT_RANGE[row]
    if type(a_min) is int and a_min <= lo:
        a_min = None
    if type(a_max) is int and a_max >= hi:
        a_max = None
    return a_min, a_max


cdef bint _operand_has_loop(object v):
    """A bound that fastclip's ufunc resolves like NumPy's clip: a Python
    number, or a NumPy scalar or array of a kernel dtype other than the
    ml_dtypes formats (mixed with other dtypes NumPy has no clip loop for
    them and promotes, where fastclip's ufunc would pick their loop; a
    Python int beyond int64/uint64 makes NumPy take its object loop)."""
    cdef type tv = type(v)
    cdef int row
    if tv is float or tv is bool:
        return True
    if tv is int:
        return -2**63 <= v < 2**64      # beyond: NumPy's object loop
    # the common kinds first, without isinstance's tuple and v.dtype's lookup
    if tv is ndarray:
        row = _row_of(<cnp.dtype>cnp.PyArray_DESCR(<ndarray>v))
        return row >= 0 and not ROW_ML[row]
    if tv in SCALAR_ROWS:
        return True                     # a kernel row's scalar, not ml_dtypes'
    if isinstance(v, (ndarray, np.generic)):
        row = _row_of(<cnp.dtype>v.dtype)
        return row >= 0 and not ROW_ML[row]
    return False


cpdef bint keeps_own_dtype(cnp.dtype dtype, object a_min, object a_max, object out,
                           dict kwargs):
    """docs/semantics.rst, the bfloat16/float8 rule: whether a bfloat16 or
    float8 array of this dtype keeps it: each bound a Python int/float, a
    scalar or array of that format, or None, and no other computation asked
    for (dtype=, signature=, an out of another format). Formats are told
    apart by type number, which both byte orders share."""
    cdef int num = dtype.type_num
    if "dtype" in kwargs or "signature" in kwargs:
        return False
    if out is not None and not (isinstance(out, ndarray)
                                and (<cnp.dtype>out.dtype).type_num == num):
        return False
    for b in (a_min, a_max):
        if not (b is None or type(b) is int or type(b) is float
                or (isinstance(b, (ndarray, np.generic))
                    and (<cnp.dtype>b.dtype).type_num == num)):
            return False
    return True


#: (a's type number, bound keys, dtype=) -> the dtype of np.clip's loop when
#: it is wider than a's and _widen_new takes the call, else None
_WIDER_LOOP = {}


cdef object _own_dtype_call(ndarray a, object a_min, object a_max, object out, dict kwargs):
    """A bfloat16 or float8 array that keeps its dtype (keeps_own_dtype), past
    the fast path: numpy/_core/fromnumeric.py::_wrapfunc retries a method call
    that raised TypeError through _wrapit; the retry raises again and repeats
    any warning, so this repeats the call too (same exception, same warnings)."""
    try:
        return _clip_own_dtype(a, a_min, a_max, out, kwargs)
    except TypeError:
        return _clip_own_dtype(a, a_min, a_max, out, kwargs)


cdef object _one_byte_native(object v):
    """A float8 array in the other byte order as the native one: one byte has
    no order, so it is the same format."""
    if isinstance(v, ndarray) and v.dtype.itemsize == 1 and not v.dtype.isnative:
        return v.view(v.dtype.newbyteorder("="))
    return v


#: NumPy's casting rules, which a call that keeps its own dtype meets whatever
#: it names: every operand has the array's format (in either byte order)
cdef frozenset _CASTINGS = frozenset(("no", "equiv", "safe", "same_kind", "unsafe"))


cdef object _clip_own_dtype(ndarray a, object a_min, object a_max, object out, dict kwargs):
    """docs/semantics.rst: Python-number bounds rounded to the array's format,
    a missing bound by way of float32 (fastclip._numpy_fallback)."""
    a, a_min, a_max, out_ = map(_one_byte_native, (a, a_min, a_max, out))
    if kwargs.get("casting") in _CASTINGS:
        kwargs = {k: v for k, v in kwargs.items() if k != "casting"}
    a_min, a_max = _numpy_fallback.ml_bounds(a.dtype, a_min, a_max)
    if out_ is not None and np.may_share_memory(a, out_):
        # in place equals a new result (docs/semantics.rst): NumPy's iterator
        # may run the scalar-bound loop for an operand that is its out where
        # it runs the per-element one for a separate out (a one-element
        # float8 NaN against a (1,) bound and a NaN: the bound's NaN in
        # place, x's otherwise), so a is read from a copy
        a = a.copy()
    if a_min is None or a_max is None:
        result = _numpy_fallback.ml_one_sided(a, a_min, a_max, out_, kwargs)
    else:
        result = clip_ufunc(a, a_min, a_max, out=out_, **kwargs)
    return out if out is not None else result
