# Route: ndarray subclasses that keep ndarray's clip and dispatch (np.matrix,
# np.memmap, MaskedArray on NumPy 2.4+): numpy/_core/_methods.py::_clip's
# ufuncs, fastclip's where it has the loop, so the result is wrapped as
# NumPy's is.
# Part of fastclip/_ufunc.pyx (included there, in this order).

#: ndarray subclass -> whether np.clip runs ndarray's own clip on it, through
#: the ufuncs (_plain_subclass)
cdef dict _PLAIN_SUBCLASS = {}


cdef bint _plain_subclass(type t):
    """An ndarray subclass that keeps ndarray's clip, __array_ufunc__ and
    __array_function__ (np.matrix, np.memmap, most users' own): np.clip then
    runs numpy/_core/_methods.py::_clip on it, whose ufuncs wrap the result
    in the subclass (__array_wrap__). MaskedArray is one in NumPy 2.4 and
    2.5, where its clip is ndarray's; in older NumPy it has its own."""
    ok = _PLAIN_SUBCLASS.get(t)
    if ok is None:
        ok = (issubclass(t, ndarray) and getattr(t, "clip", None) is ndarray.clip
              and getattr(t, "__array_ufunc__", None) is ndarray.__array_ufunc__
              and getattr(t, "__array_function__", None) is ndarray.__array_function__)
        _PLAIN_SUBCLASS[t] = ok
    return ok


cdef bint _plain_operand(object v):
    """An operand NumPy's ufunc machinery dispatches on no differently for
    fastclip's ufunc than for its own: not an array of a type with its own
    __array_ufunc__ (a number, a NumPy scalar, an ndarray or plain subclass)."""
    cdef type tv = type(v)
    if tv is float or tv is int or tv is bool or tv is ndarray or v is None:
        return True
    if isinstance(v, ndarray):
        return _plain_subclass(tv)
    return isinstance(v, np.generic)


cdef object _subclass_route(ndarray a, object a_min, object a_max, object out, dict kwargs):
    """_subclass_call, and after a TypeError, as numpy/_core/fromnumeric.py::
    _wrapfunc does, NumPy's clip of the base array, wrapped (_wrapit)."""
    try:
        return _subclass_call(a, a_min, a_max, out, kwargs)
    except TypeError:
        return _fromnumeric._wrapit(a, "clip", a_min, a_max, out=out, **kwargs)


cdef object _subclass_call(ndarray a, object a_min, object a_max, object out, dict kwargs):
    """np.clip on a plain subclass (_plain_subclass): _methods._clip as
    _numpy_rules_call follows it, through the ufuncs alone, fastclip's where it
    has the loop, so that the result is wrapped as NumPy's is, without
    np.clip's own detour through fromnumeric."""
    cdef int num = (<cnp.dtype>cnp.PyArray_DESCR(a)).type_num
    cdef int row = _row_of_num(num)
    if row >= 0 and _has_dropped_int_bound(row, a_min, a_max):
        a_min, a_max = _without_dropped_int_bounds(row, a_min, a_max)
    if a_min is None and a_max is None:
        return _umath.positive(a, out=out, **kwargs)
    if a_min is None:
        return _umath.minimum(a, a_max, out=out, **kwargs)
    if a_max is None:
        return _umath.maximum(a, a_min, out=out, **kwargs)
    if (row >= 0 and not ROW_ML[row] and _operand_has_loop(a_min) and _operand_has_loop(a_max)
            and _plain_operand(a_min) and _plain_operand(a_max) and _plain_operand(out)
            and _plain_operand(kwargs.get("where"))):
        return clip_ufunc(a, a_min, a_max, out=out, **kwargs)
    return _umath.clip(a, a_min, a_max, out=out, **kwargs)
