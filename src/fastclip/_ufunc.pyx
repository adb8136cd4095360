# cython: language_level=3, boundscheck=False, wraparound=False
"""The clip ufunc and the fast path of fastclip.clip, over one set of kernels.

At import: pick the kernel build for this CPU (or the one FASTCLIP_SIMD asks
for), make ``clip_ufunc`` from its loop table, register the loops of the
ml_dtypes formats (bfloat16, float8_e4m3fn, float8_e5m2).
``clip`` names the route of a call from its operands' types (_route_of)
and runs it: an ndarray of a kernel dtype straight to the kernel with the
GIL released (scalar or array bounds, where=, any layout), a Python or NumPy
scalar to the scalar path, an out of another dtype to a fused loop; other
ndarray calls follow np.clip's rules, with the ufunc or NumPy's own; objects
that are not ndarrays go NumPy's way (fastclip._numpy_fallback).

One module in parts, each a job (included below, in this order):
_targets.pxi (the kernel build, its tables, the thread pool), _make_ufunc.pxi
(the ufunc), _bounds.pxi (the table by row, bounds as C values), _fast.pxi
(the fast path and its walk), _scalar.pxi (scalars and sequences), and a
file a route for the rest: _route_convert.pxi (outs of another dtype),
_route_own_dtype.pxi (bfloat16/float8 keeping their dtype, and the rules
the routes share), _route_widen.pxi (results wider than x),
_route_one_sided.pxi (one bound None), _route_subclass.pxi (ndarray
subclasses), _route_ndarray.pxi (NumPy's argument rules for the rest),
_route_other.pxi (objects that are not ndarrays).
"""

import importlib
import importlib.util
import os

import numpy as np
cimport numpy as cnp
from numpy cimport npy_intp, ndarray
from fastclip._shared cimport fc_convert_api_t, fc_loop_t, fc_masked_t, fc_rows_t, fc_span_t
from cpython.pycapsule cimport PyCapsule_GetPointer, PyCapsule_New, PyCapsule_SetContext
from cpython.contextvars cimport get_value as contextvar_value
from libc.string cimport memcpy
from libc.math cimport copysign, fabs
from cpython.ref cimport Py_INCREF, PyObject
from cpython.float cimport PyFloat_AS_DOUBLE
from cpython.long cimport PyLong_AsLongLongAndOverflow, PyLong_AsUnsignedLongLong

from fastclip._dtypes import (DTYPES, FLOAT8, KINDS, LARGEST_BITS, WIDENINGS, WIDENINGS_INTO,
                              conversion_loops,
                              finite_range, numpy_dtype, saturates)

cnp.import_array()
cnp.import_umath()

cdef extern from "fpstatus.h":
    int fc_has_signaling_nan(const void *data, npy_intp n, int itemsize) noexcept nogil
    void fc_clear_fpstatus() noexcept nogil

cdef extern from "<fenv.h>":
    int fetestexcept(int excepts) noexcept nogil
    int FE_INVALID

cdef extern from "cpu_features.h":
    int fc_cpu_level() noexcept nogil

cdef extern from "float16.h":
    unsigned short fc_double_to_half(double d, int *overflow) noexcept nogil
    unsigned short fc_double_to_bfloat16(double d, int *overflow) noexcept nogil
    unsigned char fc_double_to_float8(double d, int M, int B, int has_inf,
                                      int *overflow) noexcept nogil

cdef extern from *:
    """
    /* this module owns the process's thread pool (csrc/parallel.h) */
    #define FC_POOL_OWNER 1
    """

cdef extern from "parallel.h":
    void *fc_parallel_range_address() noexcept nogil
    void *fc_pool_hint_address() noexcept nogil
    int FC_POOL
    void fc_pool_set_test_split(int on) noexcept nogil
    int fc_pool_helpers() noexcept nogil
    npy_intp fc_pool_helper_chunks() noexcept nogil
    unsigned long fc_pool_wakeups() noexcept nogil
    long FC_WAKE_AHEAD_NS
    long FC_WAKE_WORTH_NS

cdef extern from "walk.h":
    ctypedef struct fc_plan_t:
        int nd
        npy_intp dims[32]
    enum:
        FC_A, FC_OUT, FC_MASK, FC_LO, FC_HI, FC_OPERANDS
    void fc_plan(fc_plan_t *p, int nd, const npy_intp *shape,
                 const npy_intp **strides) noexcept nogil
    bint fc_plan_prefers_numpy(const fc_plan_t *p, int itemsize) noexcept nogil
    void fc_walk(const fc_plan_t *p, fc_loop_t loop, fc_rows_t rows, fc_masked_t masked,
                 int itemsize, char **args, const char *mask, int nthreads) noexcept nogil

cdef extern from "stream.h":
    void *FC_FRESH_OUTPUT

cdef extern from "result_blocks.h":
    npy_intp FC_BLOCK_MIN_BYTES
    int fc_blocks_init(size_t cap) except -1
    void fc_blocks_set_cap(size_t cap) noexcept
    size_t fc_blocks_cap_bytes() noexcept
    void fc_blocks_stats(npy_intp *count, npy_intp *nbytes, npy_intp *hits) noexcept
    void *fc_blocks_begin(npy_intp nbytes) noexcept
    void fc_blocks_end(void *previous) noexcept

cdef extern from "ufunc_helpers.h":
    void fc_copy_type_resolver(object dst, object src)

cdef extern from "numpy/arrayobject.h":
    object PyArray_NewLikeArray(ndarray prototype, cnp.NPY_ORDER order,
                                void *descr, int subok)
    # steals a reference to descr
    object PyArray_NewFromDescr(void *subtype, cnp.dtype descr, int nd,
                                npy_intp *dims, npy_intp *strides, void *data,
                                int flags, void *obj)
    void *PyArray_Type
    object PyArray_Scalar(void *data, cnp.dtype descr, object base)


# pandas' .pxi style: one extension module, a file a job
include "_targets.pxi"
include "_make_ufunc.pxi"
include "_bounds.pxi"
include "_fast.pxi"
include "_scalar.pxi"
include "_route_convert.pxi"
include "_route_own_dtype.pxi"
include "_route_widen.pxi"
include "_route_one_sided.pxi"
include "_route_subclass.pxi"
include "_route_ndarray.pxi"
include "_route_other.pxi"

from fastclip import _numpy_fallback


#: np._NoValue, the defaults' sentinel, looked up once (a module global and an
#: attribute lookup each time it was named in clip's body)
cdef object _NOVALUE = np._NoValue


cdef int _bounds_named_wrongly(object a_min, object a_max) except -1:
    """numpy/_core/fromnumeric.py::clip's errors, word for word, where a
    bound is missing or named twice (NumPy 2.1's min= and max= aliases)."""
    if a_min is _NOVALUE:
        raise TypeError("clip() missing 1 required positional argument: 'a_min'")
    if a_max is _NOVALUE:
        raise TypeError("clip() missing 1 required positional argument: 'a_max'")
    raise ValueError("Passing `min` or `max` keyword argument when "
                     "`a_min` and `a_max` are provided is forbidden.")


# The routes of a call. _route_of names one from the operands' types, out's
# dtype and the keywords, never their values; the route's function then runs
# the call. A route whose loop cannot take the call exactly (a bound its
# dtype cannot hold, an overlap, a NaN met while converting) returns
# NotImplemented, and the call goes NumPy's way: _ndarray_route for an
# ndarray, _other_call for anything else. docs/development.rst has the table.
cdef enum Route:
    ROUTE_KERNEL        # an ndarray into a new array or out of its dtype: _fast
    ROUTE_WHERE         # the same with where=: _fast with the mask
    ROUTE_CONVERT       # out of another dtype: _route_convert.pxi
    ROUTE_SCALAR        # a Python number or a NumPy scalar: _scalar.pxi
    ROUTE_SEQUENCE      # a list or a tuple: _scalar.pxi
    ROUTE_NDARRAY       # every other ndarray call: _route_ndarray.pxi
    ROUTE_SUBCLASS      # an ndarray subclass with ndarray's clip: _route_subclass.pxi
    ROUTE_OTHER         # anything else: _route_other.pxi


cdef inline Route _route_of(object a, object out, dict kwargs):
    """The route of clip(a, ..., out=out, **kwargs), from types alone."""
    cdef type ta = type(a)
    cdef Py_ssize_t nk = len(kwargs)
    cdef bint own = False
    if ta is not ndarray:
        if nk == 0 and (ta is list or ta is tuple):
            return ROUTE_SEQUENCE
        if nk == 0 and out is None and (ta is float or ta is int or ta in SCALAR_ROWS):
            return ROUTE_SCALAR
        return ROUTE_SUBCLASS if _plain_subclass(ta) else ROUTE_OTHER
    if out is not None and type(out) is not ndarray:
        return ROUTE_NDARRAY
    own = _out_of_a_dtype(<ndarray>a, out)
    if nk == 0:
        return ROUTE_KERNEL if own else ROUTE_CONVERT
    if nk == 1 and "casting" in kwargs:
        if not own:
            return ROUTE_CONVERT
        casting = kwargs["casting"]
        # every operand of the kernel has a's dtype: nothing to cast
        return (ROUTE_KERNEL if type(casting) is str and casting in _CASTS_ANY_SCALAR
                else ROUTE_NDARRAY)
    if nk == 1 and "where" in kwargs:
        if out is not None:
            return ROUTE_WHERE if own else ROUTE_CONVERT
        where = kwargs["where"]
        # into a new array like NumPy's (whose masked-off elements are
        # whatever np.empty holds)
        if (cnp.PyArray_IS_C_CONTIGUOUS(<ndarray>a) and type(where) is ndarray
                and cnp.PyArray_IS_C_CONTIGUOUS(<ndarray>where)
                and cnp.PyArray_SAMESHAPE(<ndarray>a, <ndarray>where)):
            return ROUTE_WHERE
        return ROUTE_NDARRAY
    if nk == 2 and "where" in kwargs and "casting" in kwargs and out is not None and not own:
        return ROUTE_CONVERT
    return ROUTE_NDARRAY


def clip(a, a_min=np._NoValue, a_max=np._NoValue, out=None, *,
         min=np._NoValue, max=np._NoValue, **kwargs):
    """Clip (limit) the values in an array: ``numpy.clip``, faster.

    Given an interval, values outside the interval are clipped to the interval
    edges: ``min(max(a, a_min), a_max)`` elementwise. Same signature, result,
    dtype, layout, warnings and exceptions as ``numpy.clip``, except that a
    bfloat16, float8_e4m3fn or float8_e5m2 array with Python-scalar,
    own-dtype or None bounds keeps its dtype (NumPy returns float32). The
    semantics page of the docs (docs/semantics.rst) gives the rule in full.

    Parameters
    ----------
    a : array_like
        Array containing elements to clip.
    a_min, a_max : array_like or None
        Minimum and maximum value. If ``None``, clipping is not performed on
        the corresponding edge. If both are ``None``, a copy is returned.
        If ``a_min > a_max``, every element becomes ``a_max``.
    out : ndarray, optional
        The results will be placed in this array; it may be `a` (in place).
    min, max : array_like or None
        Aliases of `a_min` and `a_max` (NumPy >= 2.1); not with them.
    **kwargs
        Other ufunc keyword arguments (``where``, ``casting``, ``dtype``,
        ``order``, ``subok``, ``signature``), as for ``numpy.clip``.

    Returns
    -------
    clipped_array : ndarray
        An array with the elements of `a`, but where values < `a_min` are
        replaced with `a_min`, and those > `a_max` with `a_max`. `out` itself
        when given.

    See Also
    --------
    numpy.clip, fastclip.clip_ufunc

    Examples
    --------
    >>> import numpy as np, fastclip
    >>> fastclip.clip(np.arange(10), 1, 8)
    array([1, 1, 2, 3, 4, 5, 6, 7, 8, 8])
    >>> a = np.linspace(-2, 2, 5, dtype=np.float32)
    >>> fastclip.clip(a, -1, 1, out=a)
    array([-1., -1.,  0.,  1.,  1.], dtype=float32)
    """
    cdef Route route
    if a_min is _NOVALUE or a_max is _NOVALUE or min is not _NOVALUE or max is not _NOVALUE:
        if a_min is _NOVALUE and a_max is _NOVALUE:
            # NumPy 2.1's aliases (or no bounds at all)
            a_min = None if min is _NOVALUE else min
            a_max = None if max is _NOVALUE else max
        else:
            _bounds_named_wrongly(a_min, a_max)
    route = _route_of(a, out, kwargs)
    if route == ROUTE_KERNEL:
        result = _fast(<ndarray>a, a_min, a_max, out)
    elif route == ROUTE_WHERE:
        result = _fast(<ndarray>a, a_min, a_max,
                       PyArray_NewLikeArray(<ndarray>a, cnp.NPY_CORDER, NULL, 0)
                       if out is None else out, kwargs["where"])
    elif route == ROUTE_CONVERT:
        result = _convert_route(<ndarray>a, a_min, a_max, <ndarray>out, kwargs)
    elif route == ROUTE_SCALAR:
        result = _scalar(a, a_min, a_max)
    elif route == ROUTE_SEQUENCE:
        result = _sequence(a, a_min, a_max, out)
    elif route == ROUTE_SUBCLASS:
        return _subclass_route(<ndarray>a, a_min, a_max, out, kwargs)
    elif route == ROUTE_OTHER:
        return _other_call(a, a_min, a_max, out, kwargs)
    else:
        return _ndarray_route(<ndarray>a, a_min, a_max, out, kwargs)
    if result is not NotImplemented:
        return result
    if type(a) is ndarray:
        return _ndarray_route(<ndarray>a, a_min, a_max, out, kwargs)
    return _other_call(a, a_min, a_max, out, kwargs)


def _for_tests(what, *args, **kwargs):
    """The one way tests reach inside, by name:

    - "convert" (a, a_min, a_max, out, casting="same_kind", where=None):
      whether the fused clip-and-convert route did the call (out written);
    - "widened" (a, a_min, a_max, out, casting="same_kind"): whether a wider
      loop's route wrote out itself;
    - "fast" (a, a_min, a_max, out=None), "scalar" (a, a_min, a_max): that
      route alone, its result or NotImplemented where the call goes another
      way;
    - "pool" (split_every_call=None): the thread pool's (helpers started,
      chunks they have done, wake-ups); split_every_call=True makes every
      split call wait for its helpers and cut chunks of any size (tests of
      chunk edges), False restores the normal rules.
    """
    if what == "convert":
        return _test_convert(*args, **kwargs)
    if what == "widened":
        return _test_widened(*args, **kwargs)
    if what == "fast":
        return _test_fast(*args, **kwargs)
    if what == "scalar":
        return _test_scalar(*args, **kwargs)
    if what == "pool":
        return _test_pool(*args, **kwargs)
    raise ValueError(f"no test hook {what!r}")


def _test_convert(a, a_min, a_max, out, casting="same_kind", where=None):
    return _convert(a, a_min, a_max, out, casting, where) is out


def _test_widened(a, a_min, a_max, out, casting="same_kind"):
    return _widened(a, a_min, a_max, None, out, casting) is out


def _test_fast(a, a_min, a_max, out=None):
    return _fast(a, a_min, a_max, out)


def _test_scalar(a, a_min, a_max):
    return _scalar(a, a_min, a_max)
