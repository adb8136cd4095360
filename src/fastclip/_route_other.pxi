# Route: objects that are not ndarrays and not a plain subclass (duck arrays,
# MaskedArray before NumPy 2.4, scalars and sequences the fast path declined):
# numpy/_core/fromnumeric.py::_wrapfunc's way, NumPy's own clip, but for
# duck arrays with both bounds, which go through the ufunc.
# Part of fastclip/_ufunc.pyx (included there, in this order).

cdef object _other_call(object a, object a_min, object a_max, object out, dict kwargs):
    """np.clip on an object that is not an ndarray or a plain subclass."""
    if (not isinstance(a, (ndarray, np.generic))
            and getattr(type(a), "__array_ufunc__", None) is not None
            and a_min is not None and a_max is not None):
        # Dask, xarray and other duck arrays: through the ufunc, so they
        # stay lazy/labelled and compute with fastclip's loops
        dtype = getattr(a, "dtype", None)
        if (isinstance(dtype, np.dtype) and _numpy_fallback.is_ml_float(dtype)
                and keeps_own_dtype(dtype, a_min, a_max, out, kwargs)):
            a_min, a_max = _numpy_fallback.ml_bounds(dtype, a_min, a_max)
        return clip_ufunc(a, a_min, a_max, out=out, **kwargs)
    # subclasses with their own clip (MaskedArray, ...), lists, scalars and
    # duck arrays with a missing bound: exactly NumPy's behaviour
    return _numpy_fallback.numpy_clip(a, a_min, a_max, out=out, **kwargs)
