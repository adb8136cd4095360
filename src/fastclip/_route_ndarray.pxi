# Route: every other call on an exact ndarray, by np.clip's argument rules
# (numpy/_core/_methods.py::_clip), through the routes above or the ufunc.
# Part of fastclip/_ufunc.pyx (included there, in this order).

cdef object _ndarray_route(ndarray a, object a_min, object a_max, object out, dict kwargs):
    """An exact ndarray's call that no loop of its own route took: a bfloat16
    or float8 array that keeps its dtype (_own_dtype_call), else np.clip's
    argument rules (_numpy_rules_call)."""
    cdef int num = (<cnp.dtype>cnp.PyArray_DESCR(a)).type_num
    cdef int row = _row_of_num(num)
    if row >= 0 and ROW_ML[row] and keeps_own_dtype(
            <cnp.dtype>cnp.PyArray_DESCR(a), a_min, a_max, out, kwargs):
        return _own_dtype_call(a, a_min, a_max, out, kwargs)
    try:
        return _numpy_rules_call(a, a_min, a_max, out, kwargs)
    except TypeError:
        # numpy/_core/fromnumeric.py::_wrapfunc calls again after a
        # TypeError, which raises it again (and repeats any warning)
        return _numpy_rules_call(a, a_min, a_max, out, kwargs)


cdef object _numpy_rules_call(ndarray a, object a_min, object a_max, object out, dict kwargs):
    """Every other call on an exact ndarray, but a bfloat16 or float8 one
    that keeps its dtype (_own_dtype_call): numpy/_core/_methods.py::_clip (what
    np.clip runs for an ndarray), with fastclip's ufunc where it has the loop
    and NumPy's where not.
    Written here, compiled, for its cost: in Python a small call was slower
    than np.clip itself."""
    cdef int num = (<cnp.dtype>cnp.PyArray_DESCR(a)).type_num
    cdef int row = _row_of_num(num)
    if row >= 0 and _has_dropped_int_bound(row, a_min, a_max):
        a_min, a_max = _without_dropped_int_bounds(row, a_min, a_max)
    if a_min is None and a_max is None:
        if (row >= 0 and type(out) is ndarray and ROW_INT_RANGE[row] is not None
                and (not kwargs or (len(kwargs) == 1 and "casting" in kwargs))):
            # both bounds dropped, an out of another dtype: a cast, which the
            # fused loop over the range's ends does in one pass where NumPy's
            # positive runs its loop into a buffer, then casts
            lo, hi = <tuple>ROW_INT_RANGE[row]
            if _convert_bounds_into(a, lo, hi, <ndarray>out, kwargs.get("casting", "same_kind")):
                return out
        return _umath.positive(a, out=out, **kwargs)
    if row >= 0 and (a_min is None or a_max is None) and (not kwargs or (
            len(kwargs) == 1 and type(kwargs.get("casting")) is str)):
        # (casting=None is NumPy's TypeError, from np.maximum below)
        return _one_sided(a, row, a_min, a_max, out, kwargs)
    if a_min is None:
        return _umath.minimum(a, a_max, out=out, **kwargs)
    if a_max is None:
        return _umath.maximum(a, a_min, out=out, **kwargs)
    if row >= 0 and _operand_has_loop(a_min) and _operand_has_loop(a_max):
        if out is None and (not kwargs or (len(kwargs) == 1 and "dtype" in kwargs)):
            # an ml_dtypes x here does not keep its dtype: a wider loop or NumPy's
            result = _widen_new(a, a_min, a_max, kwargs.get("dtype"))
            if result is not NotImplemented:
                return result
        elif not ROW_ML[row] and type(out) is ndarray and (not kwargs or (
                len(kwargs) == 1 and kwargs.get("casting") in _WIDENING_CASTINGS)):
            if _widen_into_out(a, a_min, a_max, <ndarray>out, kwargs.get("casting", "same_kind")):
                return out
        if not ROW_ML[row]:
            return clip_ufunc(a, a_min, a_max, out=out, **kwargs)
    return _umath.clip(a, a_min, a_max, out=out, **kwargs)
