# cython: language_level=3, boundscheck=False, wraparound=False
"""The clip ufunc and the fast path of fastclip.clip, over one set of kernels.

At import: pick the kernel build for this CPU (or the one FASTCLIP_SIMD asks
for), make ``clip_ufunc`` from its loop table, register the loops of the
ml_dtypes formats (bfloat16, float8_e4m3fn, float8_e5m2).
``clip`` sends an ndarray of a kernel dtype straight to the kernel with the
GIL released (scalar or array bounds, where=, any layout), a Python or NumPy
scalar to the scalar path, an out of another dtype to a fused loop; other
ndarray calls follow np.clip's rules here, with the ufunc or NumPy's own;
the rest (duck arrays, subclasses, bfloat16/float8 keeping their dtype) goes
to fastclip._numpy_rules.

One module in parts, each a job (included below, in this order):
_targets.pxi (the kernel build, its tables, the thread pool), _make_ufunc.pxi
(the ufunc), _bounds.pxi (the table by row, bounds as C values), _fast.pxi
(the fast path and its walk), _scalar.pxi (scalars and sequences), and a
file a route for the rest: _route_convert.pxi (outs of another dtype),
_route_own_dtype.pxi (the rules the routes share), _route_widen.pxi (results
wider than x), _route_one_sided.pxi (one bound None), _route_subclass.pxi
(ndarray subclasses), _route_ndarray.pxi (NumPy's argument rules for the
rest).
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

# the slow path calls clip_ufunc and keeps_own_dtype, so it is imported once
# they exist
from fastclip import _numpy_rules


#: np._NoValue, the defaults' sentinel, looked up once (a module global and an
#: attribute lookup each time it was named in clip's body)
cdef object _NOVALUE = np._NoValue


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
    cdef object result = NotImplemented
    cdef type ta = type(a)
    if a_min is _NOVALUE and a_max is _NOVALUE and (min is not _NOVALUE or max is not _NOVALUE):
        # NumPy 2.1's aliases, resolved as numpy/_core/fromnumeric.py::clip
        # does (_numpy_rules._resolve_aliases), so these calls take the
        # fast paths too, not the ufunc's machinery
        a_min = None if min is _NOVALUE else min
        a_max = None if max is _NOVALUE else max
        min = max = _NOVALUE
    if min is _NOVALUE and max is _NOVALUE:
        if not kwargs:
            if ta is ndarray:
                result = _fast(<ndarray>a, a_min, a_max, out)
            elif ta is list or ta is tuple:
                # np.clip converts a sequence with np.asarray and clips the array
                # (a sequence of bfloat16 or float8 scalars, like one scalar, is
                # not an array: NumPy's float32 result, docs/semantics.rst)
                result = _sequence(a, a_min, a_max, out)
            elif out is None:
                result = _scalar(a, a_min, a_max)
        elif ta is ndarray and len(kwargs) == 1:
            if "where" in kwargs:
                # the masked kernel, into out or into a new array like NumPy's
                # (whose masked-off elements are whatever np.empty holds)
                where = kwargs["where"]
                if out is not None:
                    result = _fast(<ndarray>a, a_min, a_max, out, where)
                    if result is NotImplemented and type(out) is ndarray:
                        # out of another dtype: clip, convert and blend in one pass
                        result = _convert(<ndarray>a, a_min, a_max, <ndarray>out, "same_kind",
                                          where)
                elif (cnp.PyArray_IS_C_CONTIGUOUS(<ndarray>a) and type(where) is ndarray
                        and cnp.PyArray_IS_C_CONTIGUOUS(<ndarray>where)
                        and cnp.PyArray_SAMESHAPE(<ndarray>a, <ndarray>where)):
                    result = _fast(<ndarray>a, a_min, a_max,
                                   PyArray_NewLikeArray(<ndarray>a, cnp.NPY_CORDER, NULL, 0),
                                   where)
            elif ("casting" in kwargs and type(kwargs["casting"]) is str
                    and kwargs["casting"] in _CASTS_ANY_SCALAR):
                # every operand of the fast path has a's dtype: nothing to cast
                # (out of another dtype: below)
                result = _fast(<ndarray>a, a_min, a_max, out)
        elif (ta is ndarray and type(out) is ndarray and len(kwargs) == 2
                and "where" in kwargs and "casting" in kwargs):
            # where= into an out of another dtype, as above, with casting=
            result = _convert(<ndarray>a, a_min, a_max, <ndarray>out, kwargs["casting"],
                              kwargs["where"])
        if (result is NotImplemented and ta is ndarray and type(out) is ndarray
                and (not kwargs or (len(kwargs) == 1 and "casting" in kwargs))):
            # out of another dtype: clip and convert in one pass
            casting = kwargs.get("casting", "same_kind")
            result = _convert(<ndarray>a, a_min, a_max, <ndarray>out, casting)
            if result is NotImplemented:
                result = _into_other_dtype(<ndarray>a, a_min, a_max, <ndarray>out, casting)
    if result is not NotImplemented:
        return result
    if ta is not ndarray and not _plain_subclass(ta):
        return _numpy_rules.clip(a, a_min, a_max, out, min, max, kwargs)
    if (a_min is _NOVALUE or a_max is _NOVALUE
            or min is not _NOVALUE or max is not _NOVALUE):
        a_min, a_max = _numpy_rules._resolve_aliases(a_min, a_max, min, max)
    if ta is not ndarray:
        try:
            return _subclass_call(<ndarray>a, a_min, a_max, out, kwargs)
        except TypeError:
            # numpy/_core/fromnumeric.py::_wrapfunc: after a TypeError,
            # NumPy's clip of the base array, wrapped (_wrapit)
            return _fromnumeric._wrapit(a, "clip", a_min, a_max, out=out, **kwargs)
    num = (<cnp.dtype>cnp.PyArray_DESCR(<ndarray>a)).type_num
    row = ROW_BY_TYPENUM[num] if 0 <= num < 512 else -1
    if row >= 0 and ROW_ML[row] and keeps_own_dtype(
            <cnp.dtype>cnp.PyArray_DESCR(<ndarray>a), a_min, a_max, out, kwargs):
        return _numpy_rules.clip_own_dtype(<ndarray>a, a_min, a_max, out, kwargs)
    try:
        return _ndarray_call(<ndarray>a, a_min, a_max, out, kwargs)
    except TypeError:
        # numpy/_core/fromnumeric.py::_wrapfunc calls again after a
        # TypeError, which raises it again (and repeats any warning)
        return _ndarray_call(<ndarray>a, a_min, a_max, out, kwargs)


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
