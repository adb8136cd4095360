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

One module in parts, each a job (included below, in this order; the C it
calls is declared in _ufunc.pxd): _targets.pxi (the kernel build, its
tables, the thread pool, kept result blocks), _make_ufunc.pxi (the ufunc),
_bounds.pxi (the table by row, bounds as C values, a call's bounds as the
kernel takes them), _scalar.pxi (scalars and sequences), and a file a route
for the rest: _route_convert.pxi (outs of another dtype),
_route_own_dtype.pxi (bfloat16/float8 keeping their dtype, and the rules
the routes share), _route_widen.pxi (results wider than x),
_route_one_sided.pxi (one bound None), _route_subclass.pxi (ndarray
subclasses), _route_ndarray.pxi (NumPy's argument rules for the rest),
_route_other.pxi (objects that are not ndarrays); last, the kernel route
itself (_fast), and _test_hooks.pxi (_for_tests).
"""

import importlib
import importlib.util
import operator
import os

import numpy as np
cimport numpy as cnp
from numpy cimport npy_intp, ndarray
from fastclip._shared cimport (fc_convert_api_t, fc_loop_t, fc_masked_t, fc_quantize_api_t,
                              fc_quantize_job_t, fc_rows_t, fc_span_t)
from fastclip._shared cimport (FC_Q_FLOAT, FC_Q_HALF, FC_Q_BFLOAT16, FC_Q_INT8, FC_Q_UINT8,
                              FC_Q_INT16, FC_Q_UINT16, FC_Q_E4M3FN, FC_Q_E5M2,
                              FC_Q_E4M3FN_UNSATURATED, FC_Q_E5M2_UNSATURATED)
from cpython.pycapsule cimport PyCapsule_GetPointer, PyCapsule_New
from cpython.contextvars cimport get_value as contextvar_value
from libc.string cimport memcpy
from libc.math cimport copysign, fabs, ldexp
from cpython.ref cimport Py_INCREF, PyObject
from cpython.float cimport PyFloat_AS_DOUBLE
from cpython.long cimport PyLong_AsLongLongAndOverflow, PyLong_AsUnsignedLongLong

from fastclip._dtypes import (DTYPES, FLOAT8, KINDS, LARGEST_BITS, WIDENINGS, WIDENINGS_INTO,
                              conversion_loops,
                              finite_range, numpy_dtype, saturates)

cnp.import_array()
cnp.import_umath()

# pandas' .pxi style: one extension module, a file a job
include "_targets.pxi"
include "_make_ufunc.pxi"
include "_bounds.pxi"
include "_scalar.pxi"
include "_route_convert.pxi"
include "_route_own_dtype.pxi"
include "_route_widen.pxi"
include "_route_one_sided.pxi"
include "_route_subclass.pxi"
include "_route_ndarray.pxi"
include "_route_other.pxi"
include "_route_quantize.pxi"

from fastclip import _numpy_fallback


#: np._NoValue, the defaults' sentinel, looked up once (a module global and an
#: attribute lookup each time it was named in clip's body)
cdef object _NOVALUE = np._NoValue


cdef tuple _named_bounds(object a_min, object a_max, object min, object max):
    """The bounds of a call that gave neither positionally: NumPy 2.1's min=
    and max= aliases (None for one not given). Else
    numpy/_core/fromnumeric.py::clip's errors, word for word, where a bound
    is missing or named twice."""
    if a_min is _NOVALUE and a_max is _NOVALUE:
        return (None if min is _NOVALUE else min), (None if max is _NOVALUE else max)
    if a_min is _NOVALUE:
        raise TypeError("clip() missing 1 required positional argument: 'a_min'")
    if a_max is _NOVALUE:
        raise TypeError("clip() missing 1 required positional argument: 'a_max'")
    raise ValueError("Passing `min` or `max` keyword argument when "
                     "`a_min` and `a_max` are provided is forbidden.")


# The routes of a call. _route_of names one from the operands' types, out's
# dtype and the keywords, never their values; the route's function then runs
# the call: by its loop where that gives NumPy's result exactly, else NumPy's
# way (_ndarray_route for an ndarray, _other_call for anything else). A loop
# into a given out answers whether it wrote out (a bint, as _convert_into);
# the two that make new results and serve several routes, the kernel
# (_fast) and the wider loops (_widen_new), return it or decline with
# NotImplemented (a bound its dtype cannot hold, an overlap, a NaN met while
# casting). docs/development.rst has the table.
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
        The elements of `a`, values < `a_min` replaced with `a_min` and those
        > `a_max` with `a_max`; `out` itself when given.

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
        a_min, a_max = _named_bounds(a_min, a_max, min, max)
    route = _route_of(a, out, kwargs)
    if route == ROUTE_KERNEL:
        result = _fast(<ndarray>a, a_min, a_max, out)
    elif route == ROUTE_WHERE:
        result = _fast(<ndarray>a, a_min, a_max,
                       PyArray_NewLikeArray(<ndarray>a, cnp.NPY_CORDER, NULL, 0)
                       if out is None else out, kwargs["where"])
    elif route == ROUTE_SEQUENCE:
        result = _sequence(a, a_min, a_max, out)
    elif route == ROUTE_CONVERT:
        return _convert_route(<ndarray>a, a_min, a_max, <ndarray>out, kwargs)
    elif route == ROUTE_SCALAR:
        return _scalar(a, a_min, a_max)
    elif route == ROUTE_SUBCLASS:
        return _subclass_route(<ndarray>a, a_min, a_max, out, kwargs)
    elif route == ROUTE_OTHER:
        return _other_call(a, a_min, a_max, out, kwargs)
    else:
        return _ndarray_route(<ndarray>a, a_min, a_max, out, kwargs)
    if result is not NotImplemented:
        return result
    # the kernel declined (a sequence's too: an ndarray of its elements)
    if type(a) is ndarray:
        return _ndarray_route(<ndarray>a, a_min, a_max, out, kwargs)
    return _other_call(a, a_min, a_max, out, kwargs)


# The kernel route (ROUTE_KERNEL, ROUTE_WHERE, and the routes that end in
# it): an ndarray of a kernel dtype straight to its loop, over any layout
# (csrc/walk.h), with scalar, array or where= operands; its bounds are
# _bounds.pxi's _take_bounds.

cdef inline bint _out_of_a_dtype(ndarray a, object out) noexcept:
    """out is None, or an exact ndarray of a's dtype (or an equivalent one):
    an out the kernel can write (clip's _route_of, _kernel_row)."""
    cdef cnp.dtype descr
    cdef cnp.dtype odescr
    if out is None:
        return True
    if type(out) is not ndarray:
        return False
    descr = <cnp.dtype>cnp.PyArray_DESCR(a)
    odescr = <cnp.dtype>cnp.PyArray_DESCR(<ndarray>out)
    return odescr is descr or cnp.PyArray_EquivTypes(odescr, descr)


cdef inline int _kernel_row(ndarray a, cnp.dtype descr, object out) noexcept:
    """a's row when the kernel can take a (a kernel dtype, native, aligned)
    and out (_out_of_a_dtype); else -1. An out of another dtype is decided
    before the bounds are converted, which _convert_into does again."""
    cdef int row = _row_of(descr)
    if row < 0 or not cnp.PyArray_ISNBO(descr.byteorder) or not cnp.PyArray_ISALIGNED(a):
        return -1
    return row if _out_of_a_dtype(a, out) else -1


# how _fast takes a call (_kernel_way)
cdef enum KernelWay:
    KERNEL_DECLINED     # not at all: NumPy's way
    KERNEL_BY_ITERATOR  # a new result: the same loop, walked by NumPy's iterator
    KERNEL_NEW          # a new result, written by the kernel
    KERNEL_INTO_OUT     # into out (where=: its result array)


cdef inline KernelWay _new_result_way(const FastBounds *b, int row, ndarray a, object a_min,
                                      object a_max, const npy_intp **strides) noexcept:
    """How a call without out makes its result. NumPy's result takes the
    memory order of all its inputs (K order): with an array bound the kernel
    takes the call when they agree (and see _same_order); a's own strides
    otherwise tell the plan's shape, decided before allocating
    (csrc/walk.h)."""
    cdef fc_plan_t plan
    if b.lo_kind == BOUND_ARRAY or b.hi_kind == BOUND_ARRAY:
        if not (_all_in_order(a, a_min, a_max, True) or _all_in_order(a, a_min, a_max, False)):
            return KERNEL_DECLINED
    elif not (cnp.PyArray_IS_C_CONTIGUOUS(a) or cnp.PyArray_IS_F_CONTIGUOUS(a)):
        strides[FC_A] = strides[FC_OUT] = cnp.PyArray_STRIDES(a)
        fc_plan(&plan, cnp.PyArray_NDIM(a), cnp.PyArray_DIMS(a), strides)
        if not (MULTI_RUN_WALKS_TO_NUMPY and ROW_ML[row]) and (
                _prefers_numpy(&plan, row, cnp.PyArray_ITEMSIZE(a)) or
                (MULTI_RUN_WALKS_TO_NUMPY and plan.nd > 1)):
            return KERNEL_BY_ITERATOR
    return KERNEL_NEW


cdef bint _out_takes(const FastBounds *b, ndarray a, object a_min, object a_max,
                     ndarray res) noexcept:
    """Whether the kernel can write res, an out of a's dtype: writeable,
    aligned, a's shape, and sharing memory with a only in place (each element
    is read before it is written; any other overlap needs NumPy's buffering),
    with array bounds likewise and in a's memory order."""
    if (not cnp.PyArray_ISWRITEABLE(res) or not cnp.PyArray_ISALIGNED(res)
            or not cnp.PyArray_SAMESHAPE(a, res) or _partly_overlap(a, res)):
        return False
    if b.lo_kind == BOUND_ARRAY or b.hi_kind == BOUND_ARRAY:
        if not _same_order(a, res):
            return False
        if ((b.lo_kind == BOUND_ARRAY and _overlaps_unevenly(<ndarray>a_min, b.lo_strides, res))
                or (b.hi_kind == BOUND_ARRAY
                    and _overlaps_unevenly(<ndarray>a_max, b.hi_strides, res))):
            return False
    return True


cdef inline int _kernel_way(FastBounds *b, int row, cnp.dtype descr, ndarray a, object a_min,
                            object a_max, object out, object where, ndarray mask,
                            const npy_intp **strides, bint taken=False) except -1:
    """How _fast takes the call, a KernelWay: a's row (_kernel_row, -1 for
    none), both bounds into b (_take_bounds; taken: there already), a where=
    mask as _mask_for took it (None: declined), out as _out_takes says, a
    new result as _new_result_way says; the operands' strides for the
    walk."""
    if row < 0 or not (taken or _take_bounds(b, row, descr, a, a_min, a_max)) or (
            where is not None and mask is None):
        return KERNEL_DECLINED
    strides[FC_LO] = b.lo_strides if b.lo_kind == BOUND_ARRAY else NULL
    strides[FC_HI] = b.hi_strides if b.hi_kind == BOUND_ARRAY else NULL
    strides[FC_MASK] = NULL if mask is None else cnp.PyArray_STRIDES(mask)
    if out is not None:
        return KERNEL_INTO_OUT if _out_takes(b, a, a_min, a_max, <ndarray>out) else KERNEL_DECLINED
    return _new_result_way(b, row, a, a_min, a_max, strides)


cdef object _fast(ndarray a, object a_min, object a_max, object out, object where=None,
                  FastBounds *taken=NULL):
    """Clip through the kernel directly, as _kernel_way says, or decline:
    the call needs NumPy's way (_run's walk may decline too).
    where: None, or a where= mask, out then its result array. taken: the
    bounds as a route converted them already (_scalar_bounds; a_min and
    a_max then unused)."""
    cdef cnp.dtype descr = <cnp.dtype>cnp.PyArray_DESCR(a)
    cdef int row = _kernel_row(a, descr, out)
    cdef FastBounds own
    cdef FastBounds *b = &own if taken == NULL else taken
    cdef const npy_intp *strides[FC_OPERANDS]
    cdef ndarray mask = None
    cdef ndarray res
    cdef int way
    if where is not None:
        mask = _mask_for(where, a, <ndarray>out)
    way = _kernel_way(b, row, descr, a, a_min, a_max, out, where, mask, strides,
                      taken != NULL)
    if way == KERNEL_DECLINED:
        return NotImplemented
    if way == KERNEL_BY_ITERATOR:
        return _through_iterator(a, descr, &b.lo_buf, &b.hi_buf, None)
    res = _new_result(a, descr) if way == KERNEL_NEW else <ndarray>out
    result = _run(b, row, descr, a, res, mask, out is None, strides)
    if result is res and out is None and cnp.PyArray_NDIM(res) == 0:
        return res[()]          # a ufunc returns a scalar for 0-d input
    return result


cdef inline bint _kernel_into(ndarray a, object a_min, object a_max, ndarray out) except -1:
    """The kernel route into out (_fast): whether it wrote out."""
    return _fast(a, a_min, a_max, out) is out


cdef inline object _run(FastBounds *b, int row, cnp.dtype descr, ndarray a, ndarray res,
                 ndarray mask, bint fresh_result, const npy_intp **strides):
    """The kernel over a into res: res, or where the walk leaves the call to
    NumPy's iterator, its result; where NumPy's buffering would run another
    loop (MULTI_RUN_WALKS_TO_NUMPY), a decline."""
    cdef npy_intp size = cnp.PyArray_SIZE(a)
    cdef npy_intp steps[4]
    cdef char *args[4]
    cdef void *fresh
    cdef fc_plan_t plan
    cdef int threads = 1
    cdef char *mask_data = NULL
    cdef fc_masked_t masked = NULL
    cdef bint scalar_bounds = b.lo_kind == BOUND_SCALAR and b.hi_kind == BOUND_SCALAR
    args[0] = <char *>cnp.PyArray_DATA(a)
    args[1] = b.lo_ptr
    args[2] = b.hi_ptr
    args[3] = <char *>cnp.PyArray_DATA(res)
    if size == 0:
        return res
    if (mask is None and scalar_bounds and
            (cnp.PyArray_NDIM(a) <= 1 or _same_order(a, res))):
        # The common call, one run: the loop directly (the plan and the walk
        # cost a small call a third more).
        steps[0] = cnp.PyArray_STRIDE(a, 0) if cnp.PyArray_NDIM(a) == 1 else descr.itemsize
        steps[1] = steps[2] = 0
        steps[3] = cnp.PyArray_STRIDE(res, 0) if cnp.PyArray_NDIM(a) == 1 else descr.itemsize
        # a new result is written without streaming stores (stream.h says
        # why), unless it took a kept block (whose pages the loop probes)
        fresh = (FC_FRESH_OUTPUT if fresh_result and size * descr.itemsize < FC_BLOCK_MIN_BYTES
                 else NULL)
        if size < GIL_RELEASE_THRESHOLD:
            LOOPS[row](args, &size, steps, fresh)
        else:
            with nogil:
                LOOPS[row](args, &size, steps, fresh)   # the loop splits a large run itself
        return res
    # runs along the output's smallest stride, dimensions merged where they
    # can be (csrc/walk.h)
    strides[FC_A] = cnp.PyArray_STRIDES(a)
    strides[FC_OUT] = cnp.PyArray_STRIDES(res)
    fc_plan(&plan, cnp.PyArray_NDIM(a), cnp.PyArray_DIMS(a), strides)
    if MULTI_RUN_WALKS_TO_NUMPY and plan.nd > 1 and not (ROW_ML[row] and scalar_bounds):
        if mask is None and scalar_bounds:
            return _through_iterator(a, descr, &b.lo_buf, &b.hi_buf, res)
        return NotImplemented
    if (mask is None and scalar_bounds and not (MULTI_RUN_WALKS_TO_NUMPY and ROW_ML[row])
            and _prefers_numpy(&plan, row, descr.itemsize)):
        return _through_iterator(a, descr, &b.lo_buf, &b.hi_buf, res)
    if mask is not None:
        masked = MASKED_ROWS[row]
        mask_data = <char *>cnp.PyArray_DATA(mask)
    if size < GIL_RELEASE_THRESHOLD:
        fc_walk(&plan, LOOPS[row], ROWS[row], masked, descr.itemsize, args, mask_data, 1)
    else:
        # several runs are shared among threads by the rule of one long run,
        # which the loop splits itself
        if plan.nd > 1:
            threads = _kernels.threads_for_bytes(size * descr.itemsize)
        with nogil:
            fc_walk(&plan, LOOPS[row], ROWS[row], masked, descr.itemsize, args, mask_data,
                    threads)
    return res


cdef object _new_result(ndarray a, cnp.dtype descr):
    """A new array for a's result, of type descr, laid out as np.clip lays
    out its own (C order for a C-contiguous a, else a's memory order, NumPy's
    K); from a block a freed result left when it is 16 MiB or more
    (csrc/result_blocks.h)."""
    cdef void *previous = fc_blocks_begin(cnp.PyArray_SIZE(a) * descr.itemsize)
    try:
        Py_INCREF(descr)        # both steal a reference
        if cnp.PyArray_IS_C_CONTIGUOUS(a):
            # without NewLikeArray's stride sorting
            return PyArray_NewFromDescr(&PyArray_Type, descr, cnp.PyArray_NDIM(a),
                                        cnp.PyArray_DIMS(a), NULL, NULL, 0, NULL)
        return PyArray_NewLikeArray(a, cnp.NPY_KEEPORDER, <void *>descr, 0)
    finally:
        fc_blocks_end(previous)


cdef void _extent(ndarray a, char **first, char **last) noexcept:
    """The lowest byte a's elements occupy, and one past the highest."""
    cdef int k
    cdef npy_intp span
    first[0] = <char *>cnp.PyArray_DATA(a)
    last[0] = first[0] + cnp.PyArray_ITEMSIZE(a)
    for k in range(cnp.PyArray_NDIM(a)):
        span = (cnp.PyArray_DIM(a, k) - 1) * cnp.PyArray_STRIDE(a, k)
        if span < 0:
            first[0] += span
        else:
            last[0] += span


cdef bint _extents_overlap(ndarray x, ndarray y) noexcept:
    """Whether x and y may share memory: the bytes from each one's lowest
    element to its highest overlap (np.may_share_memory's bounds check). The
    one test of overlap: _overlaps_unevenly's, _mask_for's, the
    clip-and-convert route's (out against a and the mask)."""
    cdef char *x_first
    cdef char *x_last
    cdef char *y_first
    cdef char *y_last
    if cnp.PyArray_SIZE(x) == 0 or cnp.PyArray_SIZE(y) == 0:
        return False
    _extent(x, &x_first, &x_last)
    _extent(y, &y_first, &y_last)
    return x_first < y_last and y_first < x_last


cdef bint _overlaps_unevenly(ndarray x, const npy_intp *x_strides, ndarray out) noexcept:
    """True when operand x shares memory with out other than element for
    element (in place: the same data and, along each axis of out longer than
    1, the same stride; x_strides: x's along out's axes, 0 where it
    broadcasts). Conservative: compares extents."""
    cdef int k
    if cnp.PyArray_SIZE(x) == 0:
        return False
    if cnp.PyArray_DATA(x) == cnp.PyArray_DATA(out):
        for k in range(cnp.PyArray_NDIM(out)):
            if cnp.PyArray_DIM(out, k) > 1 and x_strides[k] != cnp.PyArray_STRIDE(out, k):
                return True
        return False
    return _extents_overlap(x, out)


cdef inline bint _partly_overlap(ndarray a, ndarray out) noexcept:
    """_overlaps_unevenly for a and an out of its shape."""
    return _overlaps_unevenly(a, cnp.PyArray_STRIDES(a), out)


cdef object _mask_for(object where, ndarray a, ndarray res):
    """where= as a bool array of a's shape, or None (the call
    then goes NumPy's way). A mask that broadcasts is viewed at a's shape
    (stride 0 where it repeats); one that shares memory with out is left to
    NumPy's buffering."""
    cdef ndarray m
    if type(where) is not ndarray:
        return None
    m = <ndarray>where
    if (<cnp.dtype>cnp.PyArray_DESCR(m)).type_num != cnp.NPY_BOOL:
        return None
    if not cnp.PyArray_SAMESHAPE(m, a):
        try:
            m = np.broadcast_to(m, (<object>a).shape)
        except ValueError:
            return None     # NumPy raises its own error
    if cnp.PyArray_SIZE(a) and _extents_overlap(m, res):
        return None
    return m


cdef bint _same_order(ndarray a, ndarray res) noexcept:
    """a and res contiguous in one memory order: then the walk's inner axis is
    the one NumPy's iterator picks, which decides, for bounds that repeat
    along it, between NumPy's scalar-bound and per-element loops (and so the
    bits of -0.0 ties and NaN payloads)."""
    return (cnp.PyArray_NDIM(a) <= 1 or
            (cnp.PyArray_IS_C_CONTIGUOUS(a) and cnp.PyArray_IS_C_CONTIGUOUS(res)) or
            (cnp.PyArray_IS_F_CONTIGUOUS(a) and cnp.PyArray_IS_F_CONTIGUOUS(res)))


cdef bint _all_in_order(ndarray a, object lo, object hi, bint c_order) noexcept:
    """a, and lo and hi where they are arrays, all contiguous in C (or F) order."""
    cdef object v
    for v in (a, lo, hi):
        if type(v) is ndarray and not (cnp.PyArray_IS_C_CONTIGUOUS(<ndarray>v) if c_order
                                        else cnp.PyArray_IS_F_CONTIGUOUS(<ndarray>v)):
            return False
    return True


cdef inline bint _prefers_numpy(fc_plan_t *plan, int row, int itemsize) noexcept:
    """csrc/walk.h's rule (short contiguous runs to NumPy's iterator), but
    for the int and IEEE float rows when the kernels have csrc/strided_rows.h,
    whose rows take those runs faster (at least STRIDED_ROWS_MIN_BYTES long)."""
    if (STRIDED_ROWS and ROW_KIND[row] in (KIND_INT, KIND_FLOAT)
            and plan.dims[plan.nd - 1] * itemsize >= STRIDED_ROWS_MIN_BYTES):
        return False
    return fc_plan_prefers_numpy(plan, itemsize)


cdef object _through_iterator(ndarray a, cnp.dtype descr, void *lo, void *hi, object out):
    """The same loop, walked by NumPy's iterator (whose buffering suits short
    runs close together, csrc/walk.h): the bounds, already converted exactly,
    as scalars of a's dtype, so the ufunc picks the same loop np.clip's
    argument handling would (no second pass through the argument rules)."""
    lo_s = PyArray_Scalar(lo, descr, None)
    hi_s = PyArray_Scalar(hi, descr, None)
    if out is None:
        return clip_ufunc(a, lo_s, hi_s)
    return clip_ufunc(a, lo_s, hi_s, out=out)


include "_test_hooks.pxi"
