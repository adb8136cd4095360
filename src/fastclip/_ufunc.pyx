# cython: language_level=3, boundscheck=False, wraparound=False
"""The clip ufunc and the fast path of fastclip.clip, over one set of kernels.

At import: pick the kernel build for this CPU (or the one FASTCLIP_SIMD asks
for), make ``clip_ufunc`` from its loop table, register the loops of the
ml_dtypes formats (bfloat16, float8_e4m3fn, float8_e5m2).
``clip`` sends the common call (a kernel dtype, aligned, native order, scalar
bounds, a simple layout) straight to the kernel with the GIL released;
everything else goes to fastclip._compat, which follows np.clip's rules and
calls the ufunc or NumPy.
"""

import importlib
import importlib.util
import os

import numpy as np
cimport numpy as cnp
from numpy cimport npy_intp, ndarray
from cpython.pycapsule cimport PyCapsule_GetPointer, PyCapsule_New
from libc.string cimport memcpy
from cpython.ref cimport Py_INCREF
from cpython.float cimport PyFloat_AS_DOUBLE
from cpython.long cimport PyLong_AsLongLongAndOverflow, PyLong_AsUnsignedLongLong

from fastclip._dtypes import CONVERSIONS, DTYPES, FLOAT8, numpy_dtype, saturates

cnp.import_array()
cnp.import_umath()

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
    int FC_POOL
    void fc_pool_set_test_split(int on) noexcept nogil
    int fc_pool_helpers() noexcept nogil
    npy_intp fc_pool_helper_chunks() noexcept nogil
    ctypedef void (*fc_loop_t)(char **args, const npy_intp *dimensions,
                               const npy_intp *steps, void *data) noexcept nogil

cdef extern from "walk.h":
    ctypedef void (*fc_masked_t)(fc_loop_t loop, int itemsize, char **args,
                                 const unsigned char *mask, npy_intp n,
                                 const npy_intp *steps, npy_intp s_mask) noexcept nogil
    ctypedef struct fc_plan_t:
        int nd
    enum:
        FC_A, FC_OUT, FC_MASK, FC_LO, FC_HI, FC_OPERANDS
    void fc_plan(fc_plan_t *p, int nd, const npy_intp *shape,
                 const npy_intp **strides) noexcept nogil
    bint fc_plan_prefers_numpy(const fc_plan_t *p, int itemsize) noexcept nogil
    ctypedef void (*fc_rows_t)(char **args, npy_intp n, const npy_intp *steps, npy_intp count,
                               const npy_intp *row_steps) noexcept nogil
    void fc_walk(const fc_plan_t *p, fc_loop_t loop, fc_rows_t rows, fc_masked_t masked,
                 int itemsize, char **args, const char *mask, int nthreads) noexcept nogil

cdef extern from "stream.h":
    void *FC_FRESH_OUTPUT

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

# ---------------------------------------------------------------------------
# Choosing the kernel build

#: SIMD targets, lowest first; the index is the CPU level of cpu_features.h.
TARGETS = ("baseline", "avx2", "avx512")


def _compiled_targets():
    # Found, not imported: a module built for AVX-512 runs AVX-512 instructions
    # in its own initialisation, so importing it on a CPU without them is a
    # SIGILL (valgrind, whose CPU has no AVX-512, showed it). Only the chosen
    # target's module is imported.
    return tuple(name for name in TARGETS
                 if importlib.util.find_spec("fastclip._kernels_" + name) is not None)


def _choose_target(compiled, cpu_level, requested):
    """The best compiled target the CPU runs, capped by FASTCLIP_SIMD."""
    cap = cpu_level
    if requested:
        if requested not in TARGETS:
            raise ValueError(
                f"FASTCLIP_SIMD={requested!r}: expected one of {', '.join(TARGETS)}")
        cap = min(cap, TARGETS.index(requested))
    usable = [t for t in compiled if TARGETS.index(t) <= cap]
    return usable[len(usable) - 1]


COMPILED_TARGETS = _compiled_targets()
CPU_LEVEL = fc_cpu_level()
SIMD_TARGET = _choose_target(COMPILED_TARGETS, CPU_LEVEL,
                             os.environ.get("FASTCLIP_SIMD", "").strip().lower())
_kernels = importlib.import_module("fastclip._kernels_" + SIMD_TARGET)

def _numpy_buffers_scalar_bounds():
    """Whether the installed NumPy's iterator copies scalar bounds into its
    buffers for a walk of several runs, so that its loop sees them move and
    runs per element (a NaN x's payload then survives a NaN bound). NumPy 2.1
    does (np.clip of a (60, 50)[:, ::3] view keeps x's NaN); 2.4 does not.
    Asked of NumPy's own clip, never of whatever numpy.clip is bound to."""
    x = np.full((4, 16), 0xFFC00001, np.uint32).view(np.float32)[:, ::3]
    r = np._core.fromnumeric.clip(x, np.nan, 1.0)
    return bool(r.view(np.uint32)[0, 0] == 0xFFC00001)


#: where NumPy does, fastclip hands every walk of several runs to NumPy's
#: iterator with its own loops, so the loop sees what it sees in NumPy. Not
#: for the ml_dtypes formats with scalar bounds: their rule (SPEC section 2) is
#: np.clip of a.astype(float32), a contiguous copy, one run, scalar bounds,
#: which fastclip's own walk reproduces and NumPy 2.1's buffering would not
#: (a -0.0 bound against +0.0 in a strided bfloat16 view, found by Hypothesis).
cdef bint MULTI_RUN_WALKS_TO_NUMPY = _numpy_buffers_scalar_bounds()
MULTI_RUN_WALKS_TO_NUMPY_FOR_TESTS = MULTI_RUN_WALKS_TO_NUMPY

cdef fc_loop_t *LOOPS = <fc_loop_t *>PyCapsule_GetPointer(
    _kernels.loop_table(), "fastclip.loop_table")
cdef fc_masked_t MASKED = <fc_masked_t>PyCapsule_GetPointer(
    _kernels.masked_driver(), "fastclip.masked")
cdef fc_rows_t *ROWS = <fc_rows_t *>PyCapsule_GetPointer(
    _kernels.rows_table(), "fastclip.rows_table")

ctypedef struct fc_convert_api_t:
    int (*in_range)(int k, const void *lo, const void *hi) noexcept nogil
    int (*run)(int k, const char *x, char *out, npy_intp n, const void *lo,
               const void *hi) noexcept nogil

cdef fc_convert_api_t *CONVERT = <fc_convert_api_t *>PyCapsule_GetPointer(
    _kernels.convert_api(), "fastclip.convert")


def _conversion_index():
    """(source type number, destination type number) -> the pair's index in
    CONVERSIONS (fastclip/_dtypes.py)."""
    rows = {row.name: row for row in DTYPES}
    return {(numpy_dtype(rows[src]).num, numpy_dtype(rows[dst]).num): k
            for k, (src, dst) in enumerate(CONVERSIONS)}


CONVERSION_INDEX = _conversion_index()
#: (pair index, casting) -> whether NumPy lets the loop's output cast to out
_CASTING_OK = {}
#: casting rules under which a Python-number bound converts to any dtype
_CASTS_ANY_SCALAR = frozenset(("same_kind", "unsafe"))
_CASTINGS = frozenset(("no", "equiv", "safe", "same_kind", "unsafe"))


#: helper threads of fastclip's own (POSIX threads, with OpenMP for the
#: count); False: a one-thread build, or Windows, where an OpenMP region splits
HAVE_THREAD_POOL = bool(FC_POOL)


def _pool_for_tests(split_every_call=None):
    """(helper threads started, chunks they have done); split_every_call=True
    makes every split call wait for its helpers and cut chunks of any size
    (tests of chunk edges), False restores the normal rules."""
    if split_every_call is not None:
        fc_pool_set_test_split(1 if split_every_call else 0)
    return fc_pool_helpers(), fc_pool_helper_chunks()


def thread_pool():
    """csrc/parallel.h's fc_parallel_range (this module owns the process's
    helper threads), as a capsule for the kernel module's configure_threads."""
    return PyCapsule_New(fc_parallel_range_address(), "fastclip.parallel_range", NULL)


# ---------------------------------------------------------------------------
# The ufunc

cdef int N_ROWS = len(DTYPES)
cdef int N_BUILTIN = sum(1 for row in DTYPES if row.char is not None)
# Kept for the module's life: the ufunc points into these arrays.
cdef cnp.PyUFuncGenericFunction UFUNC_FUNCS[32]
cdef void *UFUNC_DATA[32]
cdef char UFUNC_TYPES[128]
cdef int ML_TYPES[4]

assert N_ROWS <= 32

#: the NumPy dtype of each table row, in table order
ROW_DTYPES = tuple(numpy_dtype(row) for row in DTYPES)

cdef int _i, _j, _k = 0
for _i, _row in enumerate(DTYPES):
    if _row.char is None:
        continue
    UFUNC_FUNCS[_k] = <cnp.PyUFuncGenericFunction>LOOPS[_i]
    UFUNC_DATA[_k] = NULL
    for _j in range(4):
        UFUNC_TYPES[4 * _k + _j] = ROW_DTYPES[_i].num
    _k += 1

cdef bytes _DOC = b"""clip(x, lo, hi, /, out=None, *, where=True, casting='same_kind', \
order='K', dtype=None, subok=True[, signature])

fastclip's clip as a NumPy ufunc: min(max(x, lo), hi) elementwise, with the
same loops as fastclip.clip. Bounds are required (use fastclip.clip for None).
"""

clip_ufunc = PyUFunc_FromFuncAndData_(N_BUILTIN)
fc_copy_type_resolver(clip_ufunc, np._core.umath.clip)

for _i, _row in enumerate(DTYPES):
    if _row.char is not None:
        continue
    for _j in range(4):
        ML_TYPES[_j] = ROW_DTYPES[_i].num
    cnp.PyUFunc_RegisterLoopForType(clip_ufunc, ROW_DTYPES[_i].num,
                                    <cnp.PyUFuncGenericFunction>LOOPS[_i],
                                    ML_TYPES, NULL)

# NumPy pickles a ufunc by its __name__ ("clip"), looked up in the module named
# by its __module__: fastclip/ufunc.py holds it as ``clip`` for that lookup, in
# this process and in a Dask worker that unpickles it. NumPy < 2.2 ufuncs take
# no __module__; pickle then searches sys.modules and finds the same module.
try:
    clip_ufunc.__module__ = "fastclip.ufunc"
except AttributeError:
    pass

# the slow path calls clip_ufunc, so it is imported once that exists
from fastclip import _compat
_umath = np._core.umath


cdef object PyUFunc_FromFuncAndData_(int ntypes):
    return cnp.PyUFunc_FromFuncAndData(UFUNC_FUNCS, UFUNC_DATA, UFUNC_TYPES,
                                       ntypes, 3, 1, cnp.PyUFunc_None,
                                       b"clip", _DOC, 0)


# ---------------------------------------------------------------------------
# The fast path

# Row index by NumPy type number (builtin types and the ml_dtypes formats),
# -1 for none.
cdef int ROW_BY_TYPENUM[512]
cdef int ROW_KIND[32]         # 0 int, 1 float, 2 half, 3 bfloat16, 4 float8
#: rows of the ml_dtypes formats, which NumPy computes in float32 and which
#: stay themselves only as arrays with bounds of SPEC section 2's kinds
cdef bint ROW_ML[32]
#: float8 rows: mantissa bits, exponent bias, whether it has an infinity
cdef int F8_MANTISSA[32]
cdef int F8_BIAS[32]
cdef bint F8_HAS_INF[32]
cdef int ROW_SIGNED[32]
cdef int ROW_ITEMSIZE[32]
#: per row: its scalar type, and for integer rows the range of a Python int
#: bound that fits in a long long (uint64's top half is checked apart)
cdef tuple ROW_SCALAR_TYPE = tuple(dt.type for dt in ROW_DTYPES)
cdef long long INT_MIN[32]
cdef long long INT_MAX[32]

_KIND_CODES = {"int": 0, "float": 1, "half": 2, "bfloat16": 3, "float8": 4}
for _i in range(512):
    ROW_BY_TYPENUM[_i] = -1
for _i, _row in enumerate(DTYPES):
    _dt = ROW_DTYPES[_i]
    assert _dt.num < 512
    ROW_BY_TYPENUM[_dt.num] = _i
    ROW_KIND[_i] = _KIND_CODES[_row.kind]
    ROW_ML[_i] = _row.char is None
    if _row.kind == "float8":
        _, F8_MANTISSA[_i], F8_BIAS[_i], _ = FLOAT8[_row.name]
        F8_HAS_INF[_i] = not saturates(_row.name)
    ROW_ITEMSIZE[_i] = _dt.itemsize
    ROW_SIGNED[_i] = _dt.kind == "i"
    if _dt.kind in "iu":
        INT_MIN[_i] = np.iinfo(_dt).min
        INT_MAX[_i] = min(int(np.iinfo(_dt).max), 2**63 - 1)
#: per integer row, its exact range as Python ints (None for the others)
cdef tuple ROW_INT_RANGE = tuple(
    (int(np.iinfo(dt).min), int(np.iinfo(dt).max)) if dt.kind in "iu" else None
    for dt in ROW_DTYPES)

# Below this many elements the kernel runs in less time than releasing and
# re-taking the GIL costs (about 50 ns), so it keeps it; NumPy does the same
# (NPY_BEGIN_THREADS_THRESHOLDED, 500 elements).
cdef enum:
    GIL_RELEASE_THRESHOLD = 4096

# Python ints beyond 2**53 do not convert to a double exactly; NumPy's own
# conversion of them is left to NumPy.
cdef double EXACT_INT_LIMIT = 9007199254740992.0


cdef bint _bound_to_c(int row, object v, void *buf) except -1:
    """Write bound v as the C value of table row `row` into buf.

    Returns False when v is not a bound the fast path takes exactly as NumPy
    would (then the call goes the slow way): only Python int/float (never bool)
    and NumPy scalars of the array's own type; ints must be in the type's range
    (np.clip drops out-of-range ints or raises); floats must not overflow
    (NumPy warns about that cast).
    """
    cdef int kind = ROW_KIND[row]
    cdef int overflow = 0
    cdef double d
    cdef long long ll
    cdef unsigned long long ull
    cdef unsigned short bits
    cdef unsigned char bits8
    cdef float f
    cdef type tv = type(v)
    if tv is ROW_SCALAR_TYPE[row]:
        if not ROW_ML[row]:
            cnp.PyArray_ScalarAsCtype(v, buf)
            return True
        # PyArray_ScalarAsCtype does not read ml_dtypes scalars; one goes
        # through float exactly, except NaN payloads (left to the ufunc).
        d = float(v)
        if d != d:
            return False
    elif kind == 0:
        if tv is not int:
            return False
        ll = PyLong_AsLongLongAndOverflow(v, &overflow)
        if overflow:
            if overflow < 0 or ROW_SIGNED[row] or ROW_ITEMSIZE[row] != 8:
                return False
            try:
                ull = PyLong_AsUnsignedLongLong(v)  # 2**63 <= v < 2**64 for uint64
            except OverflowError:
                return False                        # np.clip has its own rules for it
            _store_uint(row, ull, buf)
            return True
        if not (INT_MIN[row] <= ll <= INT_MAX[row]):
            return False
        if ROW_SIGNED[row]:
            _store_int(row, ll, buf)
        else:
            _store_uint(row, <unsigned long long>ll, buf)
        return True
    elif tv is float:
        d = PyFloat_AS_DOUBLE(v)
    elif tv is int:
        ll = PyLong_AsLongLongAndOverflow(v, &overflow)
        if overflow or not (-EXACT_INT_LIMIT <= ll <= EXACT_INT_LIMIT):
            return False
        d = <double>ll
    else:
        return False
    if kind == 1:
        if ROW_ITEMSIZE[row] == 8:
            memcpy(buf, &d, 8)
            return True
        f = <float>d
        if f - f != 0 and d - d == 0:      # a finite double that overflows float
            return False
        memcpy(buf, &f, 4)
        return True
    if kind == 4:
        bits8 = fc_double_to_float8(d, F8_MANTISSA[row], F8_BIAS[row], F8_HAS_INF[row],
                                    &overflow)
        if overflow:
            return False
        memcpy(buf, &bits8, 1)
        return True
    if kind == 2:
        bits = fc_double_to_half(d, &overflow)
    else:
        bits = fc_double_to_bfloat16(d, &overflow)
    if overflow:
        return False
    memcpy(buf, &bits, 2)
    return True


cdef void _store_int(int row, long long v, void *buf) noexcept:
    cdef int size = ROW_ITEMSIZE[row]
    cdef signed char i8
    cdef short i16
    cdef int i32
    if size == 1:
        i8 = <signed char>v
        memcpy(buf, &i8, 1)
    elif size == 2:
        i16 = <short>v
        memcpy(buf, &i16, 2)
    elif size == 4:
        i32 = <int>v
        memcpy(buf, &i32, 4)
    else:
        memcpy(buf, &v, 8)


cdef void _store_uint(int row, unsigned long long v, void *buf) noexcept:
    cdef int size = ROW_ITEMSIZE[row]
    cdef unsigned char u8
    cdef unsigned short u16
    cdef unsigned int u32
    if size == 1:
        u8 = <unsigned char>v
        memcpy(buf, &u8, 1)
    elif size == 2:
        u16 = <unsigned short>v
        memcpy(buf, &u16, 2)
    elif size == 4:
        u32 = <unsigned int>v
        memcpy(buf, &u32, 4)
    else:
        memcpy(buf, &v, 8)


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


cdef bint _partly_overlap(ndarray a, ndarray out) noexcept:
    """True when out shares memory with a other than element for element (in
    place: same data, same strides). Conservative: compares extents."""
    cdef char *a_first
    cdef char *a_last
    cdef char *o_first
    cdef char *o_last
    cdef int k
    if cnp.PyArray_SIZE(a) == 0:
        return False
    if cnp.PyArray_DATA(a) == cnp.PyArray_DATA(out):
        for k in range(cnp.PyArray_NDIM(a)):
            if (cnp.PyArray_DIM(a, k) > 1 and
                    cnp.PyArray_STRIDE(a, k) != cnp.PyArray_STRIDE(out, k)):
                return True
        return False
    _extent(a, &a_first, &a_last)
    _extent(out, &o_first, &o_last)
    return a_first < o_last and o_first < a_last


cdef object _mask_for(object where, ndarray a, ndarray res):
    """where= as a bool array of a's shape, or None (the call
    then goes NumPy's way). A mask that broadcasts is viewed at a's shape
    (stride 0 where it repeats); one that shares memory with out is left to
    NumPy's buffering."""
    cdef ndarray m
    cdef char *m_first
    cdef char *m_last
    cdef char *o_first
    cdef char *o_last
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
    if cnp.PyArray_SIZE(a):
        _extent(m, &m_first, &m_last)
        _extent(res, &o_first, &o_last)
        if m_first < o_last and o_first < m_last:
            return None
    return m


cdef int _bound_operand(int row, cnp.dtype descr, object b, ndarray a, void *buf,
                        char **ptr, npy_intp *strides) except -1:
    """A bound as the walk takes it: 1 when it is a scalar, written into buf;
    2 when it is an array of a's dtype that broadcasts to a's shape (ptr and
    strides set, 0 along the axes it repeats); 0 for anything else."""
    cdef ndarray bb
    cdef cnp.dtype bd
    cdef int k, nd = cnp.PyArray_NDIM(a), nd_b, ax
    cdef bint moves, repeats
    cdef int inner
    if _bound_to_c(row, b, buf):
        ptr[0] = <char *>buf
        return 1
    if type(b) is not ndarray:
        return 0
    bb = <ndarray>b
    bd = <cnp.dtype>cnp.PyArray_DESCR(bb)
    # the same type, not only an equivalent one: with an int64 'q' bound on an
    # int64 'l' array NumPy's loop search can pick the 'q' loop, and np.clip
    # then returns np.longlong where a's own type would be np.int64
    # (Hypothesis found it)
    if (bd.type_num != descr.type_num or not cnp.PyArray_ISNBO(bd.byteorder)
            or not cnp.PyArray_ISALIGNED(bb)):
        return 0
    nd_b = cnp.PyArray_NDIM(bb)
    if nd_b > nd:
        return 0
    for k in range(nd):
        strides[k] = 0
    for k in range(nd_b):
        ax = nd - nd_b + k
        if cnp.PyArray_DIM(bb, k) == cnp.PyArray_DIM(a, ax):
            strides[ax] = cnp.PyArray_STRIDE(bb, k)
        elif cnp.PyArray_DIM(bb, k) != 1:
            return 0                    # NumPy's broadcasting error, its way
    # A bound that repeats along an axis that can be the inner loop's: whether
    # NumPy then runs its scalar-bound or its per-element loop depends on how
    # its iterator buffers (np.clip of -0.0 in (3, 100000) against (3, 1)
    # bounds keeps -0.0, in (1000, 100) against (1000, 1) gives +0.0), so such
    # calls go through the iterator itself. A bound moving along a's innermost
    # axis (a (cols,) bound over C order), or along every axis, is per element
    # in NumPy whatever it buffers; one moving along none (size 1) is scalar.
    # (Array bounds are taken only with a and out in one memory order, so a's
    # innermost axis is the inner loop's, here and in NumPy.) Integers have no
    # -0.0 or NaN: both of NumPy's loops give the same values, and the walk
    # takes such bounds itself (int32 (1000, 100) with (1000, 1) bounds: 42 us
    # through the iterator).
    moves = repeats = False
    inner = -1
    for k in range(nd):
        if cnp.PyArray_DIM(a, k) > 1:
            if strides[k] == 0:
                repeats = True
            else:
                moves = True
            if inner < 0 or abs(cnp.PyArray_STRIDE(a, k)) <= abs(cnp.PyArray_STRIDE(a, inner)):
                inner = k
    if (moves and repeats and strides[inner] == 0 and ROW_KIND[row] != 0
            and not (ROW_KIND[row] == 1 and _no_zero_or_nan(bb, ROW_ITEMSIZE[row]))):
        return 0
    ptr[0] = <char *>cnp.PyArray_DATA(bb)
    return 2


cdef bint _no_zero_or_nan(ndarray b, int itemsize) noexcept:
    """Whether a contiguous float32/float64 bound holds neither a NaN nor a
    zero of either sign. Then NumPy's two loops agree on every element
    (a tie with a non-zero bound has one bit pattern; a NaN x comes back
    itself from both), so a bound that repeats along the inner axis is the
    walk's whatever NumPy's iterator would buffer: float32/float64 (1000, 100),
    (3, 5000), (2, 8192), (1, 20000), ... against (rows, 1) bounds with
    infinities, lo > hi, x of NaNs with payloads and signed zeros, on NumPy
    2.1.3 and 2.4.6: np.clip equal bit for bit to its per-element loop and to
    its scalar-bound loop row by row."""
    cdef npy_intp k, n = cnp.PyArray_SIZE(b)
    cdef float *f
    cdef double *d
    if not cnp.PyArray_IS_C_CONTIGUOUS(b):
        return False
    if itemsize == 4:
        f = <float *>cnp.PyArray_DATA(b)
        for k in range(n):
            if f[k] != f[k] or f[k] == 0:
                return False
    else:
        d = <double *>cnp.PyArray_DATA(b)
        for k in range(n):
            if d[k] != d[k] or d[k] == 0:
                return False
    return True


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


cdef bint _bound_overlaps(ndarray b, ndarray res, npy_intp *b_strides) noexcept:
    """A bound array that shares memory with out other than element for
    element (out=lo itself): NumPy's buffering is needed."""
    cdef char *b_first
    cdef char *b_last
    cdef char *o_first
    cdef char *o_last
    cdef int k
    if cnp.PyArray_DATA(b) == cnp.PyArray_DATA(res):
        for k in range(cnp.PyArray_NDIM(res)):
            if cnp.PyArray_DIM(res, k) > 1 and b_strides[k] != cnp.PyArray_STRIDE(res, k):
                return True
        return False
    _extent(b, &b_first, &b_last)
    _extent(res, &o_first, &o_last)
    return b_first < o_last and o_first < b_last


cdef object _through_iterator(ndarray a, cnp.dtype descr, void *lo, void *hi, object out):
    """The same loop, walked by NumPy's iterator (whose buffering suits short
    runs close together, csrc/walk.h): the bounds, already converted exactly,
    as scalars of a's dtype, so the ufunc picks the same loop np.clip's
    argument handling would (no second pass through fastclip._compat)."""
    lo_s = PyArray_Scalar(lo, descr, None)
    hi_s = PyArray_Scalar(hi, descr, None)
    if out is None:
        return clip_ufunc(a, lo_s, hi_s)
    return clip_ufunc(a, lo_s, hi_s, out=out)


cdef object _fast(ndarray a, object a_min, object a_max, object out, object where=None):
    """Clip through the kernel directly, or return NotImplemented to say the
    call needs the slow path. where: None, or a where= mask (out given)."""
    cdef cnp.dtype descr = <cnp.dtype>cnp.PyArray_DESCR(a)
    cdef cnp.dtype out_descr
    cdef int typenum = descr.type_num
    cdef int row, threads = 1, lo_kind, hi_kind
    cdef npy_intp size
    cdef npy_intp steps[4]
    cdef void *fresh
    cdef char *args[4]
    cdef unsigned long long lo_buf = 0, hi_buf = 0
    cdef char *lo_ptr
    cdef char *hi_ptr
    cdef npy_intp lo_strides[cnp.NPY_MAXDIMS]
    cdef npy_intp hi_strides[cnp.NPY_MAXDIMS]
    cdef const npy_intp *strides[FC_OPERANDS]
    cdef ndarray res
    cdef ndarray mask = None
    cdef fc_plan_t plan
    cdef fc_masked_t masked = NULL
    cdef char *pm = NULL
    if typenum < 0 or typenum >= 512:
        return NotImplemented
    row = ROW_BY_TYPENUM[typenum]
    if row < 0 or not cnp.PyArray_ISNBO(descr.byteorder) or not cnp.PyArray_ISALIGNED(a):
        return NotImplemented
    lo_kind = _bound_operand(row, descr, a_min, a, &lo_buf, &lo_ptr, lo_strides)
    hi_kind = _bound_operand(row, descr, a_max, a, &hi_buf, &hi_ptr, hi_strides)
    if lo_kind == 0 or hi_kind == 0:
        return NotImplemented
    strides[FC_LO] = lo_strides if lo_kind == 2 else NULL
    strides[FC_HI] = hi_strides if hi_kind == 2 else NULL
    strides[FC_MASK] = NULL
    if out is None:
        if lo_kind == 2 or hi_kind == 2:
            # NumPy's result takes the memory order of all its inputs (K
            # order): fast only when they agree (and see _same_order)
            if not (_all_in_order(a, a_min, a_max, True) or _all_in_order(a, a_min, a_max, False)):
                return NotImplemented
        elif not (cnp.PyArray_IS_C_CONTIGUOUS(a) or cnp.PyArray_IS_F_CONTIGUOUS(a)):
            # the result takes a's order, so a's own strides tell the plan's
            # shape; decided before allocating (csrc/walk.h)
            strides[FC_A] = strides[FC_OUT] = cnp.PyArray_STRIDES(a)
            fc_plan(&plan, cnp.PyArray_NDIM(a), cnp.PyArray_DIMS(a), strides)
            if where is None and not (MULTI_RUN_WALKS_TO_NUMPY and ROW_ML[row]) and (
                    fc_plan_prefers_numpy(&plan, descr.itemsize) or
                    (MULTI_RUN_WALKS_TO_NUMPY and plan.nd > 1)):
                return _through_iterator(a, descr, &lo_buf, &hi_buf, None)
        if cnp.PyArray_IS_C_CONTIGUOUS(a):
            # the common case, without NewLikeArray's stride sorting
            Py_INCREF(descr)
            res = PyArray_NewFromDescr(&PyArray_Type, descr, cnp.PyArray_NDIM(a),
                                       cnp.PyArray_DIMS(a), NULL, NULL, 0, NULL)
        else:
            # np.clip's result keeps a's memory order (NumPy's K order)
            res = PyArray_NewLikeArray(a, cnp.NPY_KEEPORDER, NULL, 0)
    else:
        if type(out) is not ndarray:
            return NotImplemented
        res = <ndarray>out
        out_descr = <cnp.dtype>cnp.PyArray_DESCR(res)
        if out_descr is not descr and not cnp.PyArray_EquivTypes(out_descr, descr):
            return NotImplemented
        if (not cnp.PyArray_ISWRITEABLE(res) or not cnp.PyArray_ISALIGNED(res)
                or not cnp.PyArray_SAMESHAPE(a, res)):
            return NotImplemented
        # In place is fine (each element is read before it is written); any
        # other overlap needs NumPy's buffering.
        if _partly_overlap(a, res):
            return NotImplemented
        if lo_kind == 2 or hi_kind == 2:
            if not _same_order(a, res):
                return NotImplemented
            if ((lo_kind == 2 and _bound_overlaps(<ndarray>a_min, res, lo_strides)) or
                    (hi_kind == 2 and _bound_overlaps(<ndarray>a_max, res, hi_strides))):
                return NotImplemented
    if where is not None:
        mask = _mask_for(where, a, res)
        if mask is None:
            return NotImplemented
        masked = MASKED
        pm = <char *>cnp.PyArray_DATA(mask)
        strides[FC_MASK] = cnp.PyArray_STRIDES(mask)
    size = cnp.PyArray_SIZE(a)
    if (size and mask is None and lo_kind == 1 and hi_kind == 1 and
            (cnp.PyArray_NDIM(a) <= 1 or _same_order(a, res))):
        # The common call, one run: the loop directly. (Through the plan and
        # the walk a float32 n=16 out= call took 187 ns instead of 135.)
        args[0] = <char *>cnp.PyArray_DATA(a)
        args[1] = lo_ptr
        args[2] = hi_ptr
        args[3] = <char *>cnp.PyArray_DATA(res)
        steps[0] = cnp.PyArray_STRIDE(a, 0) if cnp.PyArray_NDIM(a) == 1 else descr.itemsize
        steps[1] = steps[2] = 0
        steps[3] = cnp.PyArray_STRIDE(res, 0) if cnp.PyArray_NDIM(a) == 1 else descr.itemsize
        # a new result is written without streaming stores (stream.h says why)
        fresh = FC_FRESH_OUTPUT if out is None else NULL
        if size < GIL_RELEASE_THRESHOLD:
            LOOPS[row](args, &size, steps, fresh)
        else:
            with nogil:
                LOOPS[row](args, &size, steps, fresh)   # the loop splits a large run itself
    elif size:
        # runs along the output's smallest stride, dimensions merged where
        # they can be (csrc/walk.h)
        strides[FC_A] = cnp.PyArray_STRIDES(a)
        strides[FC_OUT] = cnp.PyArray_STRIDES(res)
        fc_plan(&plan, cnp.PyArray_NDIM(a), cnp.PyArray_DIMS(a), strides)
        if (MULTI_RUN_WALKS_TO_NUMPY and plan.nd > 1
                and not (ROW_ML[row] and lo_kind == 1 and hi_kind == 1)):
            if mask is None and lo_kind == 1 and hi_kind == 1:
                return _through_iterator(a, descr, &lo_buf, &hi_buf, res)
            return NotImplemented
        if (mask is None and lo_kind == 1 and hi_kind == 1
                and not (MULTI_RUN_WALKS_TO_NUMPY and ROW_ML[row])
                and fc_plan_prefers_numpy(&plan, descr.itemsize)):
            return _through_iterator(a, descr, &lo_buf, &hi_buf, res)
        args[0] = <char *>cnp.PyArray_DATA(a)
        args[1] = lo_ptr
        args[2] = hi_ptr
        args[3] = <char *>cnp.PyArray_DATA(res)
        if size < GIL_RELEASE_THRESHOLD:
            fc_walk(&plan, LOOPS[row], ROWS[row], masked, descr.itemsize, args, pm, 1)
        else:
            # several runs are shared among threads by the rule of one long
            # run, which the loop splits itself
            if plan.nd > 1:
                threads = _kernels.threads_for_bytes(size * descr.itemsize)
            with nogil:
                fc_walk(&plan, LOOPS[row], ROWS[row], masked, descr.itemsize, args, pm, threads)
    if out is None and cnp.PyArray_NDIM(res) == 0:
        return res[()]          # a ufunc returns a scalar for 0-d input
    return res


#: the row a Python int becomes (np.asarray(7).dtype: int64, 'l' on Linux,
#: 'q' on Windows) and a Python float (float64)
cdef int PY_INT_ROW = ROW_BY_TYPENUM[np.dtype(int).num]
cdef int PY_FLOAT_ROW = ROW_BY_TYPENUM[np.dtype(float).num]
#: NumPy scalar type -> row, for the scalar path; not the ml_dtypes formats,
#: whose scalars NumPy computes in float32 (only their arrays stay, SPEC 2)
cdef dict SCALAR_ROWS = {dt.type: k for k, dt in enumerate(ROW_DTYPES) if not ROW_ML[k]}


cdef object _scalar(object a, object a_min, object a_max):
    """np.clip of a Python int/float or a NumPy scalar of a kernel dtype, with
    scalar bounds: one element through the same loop, on the stack, returned
    as the NumPy scalar np.clip returns (np.clip(1.5, 0, 1) is np.float64(1.0)).
    NotImplemented for anything else (bool, ints beyond int64, bfloat16
    and float8 scalars, which NumPy computes in float32, bounds the fast path does not
    take exactly), which then goes NumPy's way."""
    cdef type ta = type(a)
    cdef int row, overflow = 0
    cdef long long ll
    cdef double d
    cdef unsigned long long x_buf = 0, lo_buf = 0, hi_buf = 0, out_buf = 0
    cdef char *args[4]
    cdef npy_intp one = 1
    cdef npy_intp steps[4]
    if ta is float:
        row = PY_FLOAT_ROW
        d = PyFloat_AS_DOUBLE(a)
        memcpy(&x_buf, &d, 8)
    elif ta is int:
        row = PY_INT_ROW
        ll = PyLong_AsLongLongAndOverflow(a, &overflow)
        if overflow:
            return NotImplemented           # NumPy makes uint64 or object of it
        memcpy(&x_buf, &ll, 8)
    else:
        row = SCALAR_ROWS.get(ta, -1)
        if row < 0:
            return NotImplemented
        cnp.PyArray_ScalarAsCtype(a, &x_buf)
    if not _bound_to_c(row, a_min, &lo_buf) or not _bound_to_c(row, a_max, &hi_buf):
        return NotImplemented
    args[0] = <char *>&x_buf
    args[1] = <char *>&lo_buf
    args[2] = <char *>&hi_buf
    args[3] = <char *>&out_buf
    steps[0] = steps[1] = steps[2] = steps[3] = 0
    LOOPS[row](args, &one, steps, NULL)
    return PyArray_Scalar(&out_buf, <cnp.dtype>ROW_DTYPES[row], None)


cdef object _sequence(object a, object a_min, object a_max, object out):
    cdef ndarray arr = np.asarray(a)
    cdef int num = (<cnp.dtype>cnp.PyArray_DESCR(arr)).type_num
    if 0 <= num < 512 and ROW_BY_TYPENUM[num] >= 0 and ROW_ML[ROW_BY_TYPENUM[num]]:
        return NotImplemented
    return _fast(arr, a_min, a_max, out)


cdef object _convert(ndarray a, object a_min, object a_max, ndarray out, object casting):
    """np.clip(a, a_min, a_max, out=out, casting=casting) with out of another
    dtype, in one pass (csrc/convert.h), or NotImplemented (NumPy's clip and
    cast): a pair of CONVERSIONS, both contiguous, scalar bounds whose
    conversions are in the destination's range, and no NaN met in a."""
    cdef cnp.dtype descr = <cnp.dtype>cnp.PyArray_DESCR(a)
    cdef cnp.dtype odescr = <cnp.dtype>cnp.PyArray_DESCR(out)
    cdef unsigned long long lo_buf = 0, hi_buf = 0
    cdef int k, row, nan
    cdef npy_intp n
    cdef char *px
    cdef char *po
    key = CONVERSION_INDEX.get((descr.type_num, odescr.type_num))
    if key is None:
        return NotImplemented
    k = key
    if not (cnp.PyArray_ISNBO(descr.byteorder) and cnp.PyArray_ISNBO(odescr.byteorder)
            and cnp.PyArray_IS_C_CONTIGUOUS(a) and cnp.PyArray_IS_C_CONTIGUOUS(out)
            and cnp.PyArray_ISALIGNED(a) and cnp.PyArray_ISALIGNED(out)
            and cnp.PyArray_ISWRITEABLE(out) and cnp.PyArray_SAMESHAPE(a, out)):
        return NotImplemented
    ok = _CASTING_OK.get((k, casting))
    if ok is None:
        if type(casting) is not str or casting not in _CASTINGS:
            return NotImplemented               # NumPy's error, its way
        ok = _CASTING_OK[(k, casting)] = bool(np.can_cast(descr, odescr, casting))
    if not ok:
        return NotImplemented
    row = ROW_BY_TYPENUM[descr.type_num]
    if not (_bound_to_c(row, a_min, &lo_buf) and _bound_to_c(row, a_max, &hi_buf)):
        return NotImplemented
    if not CONVERT.in_range(k, &lo_buf, &hi_buf):
        return NotImplemented
    n = cnp.PyArray_SIZE(a)
    px = <char *>cnp.PyArray_DATA(a)
    po = <char *>cnp.PyArray_DATA(out)
    if n and px < po + n * odescr.itemsize and po < px + n * descr.itemsize:
        return NotImplemented                   # out overlaps a: NumPy buffers
    with nogil:
        nan = CONVERT.run(k, px, po, n, &lo_buf, &hi_buf)
    if nan:
        return NotImplemented                   # NumPy rewrites every element
    return out


#: (a's type number, out's, casting) -> whether np.can_cast(a, out, casting)
#: with a safe cast: a value-preserving widening, clipped first, then copied
_SAFE_WIDENING = {}


cdef object _into_other_dtype(ndarray a, object a_min, object a_max, ndarray out,
                              object casting):
    """np.clip(a, a_min, a_max, out=out) with out of a dtype pair that
    _convert does not fuse, and scalar bounds the fast path takes. NumPy
    picks the loop from the inputs alone (outputs take no part in its
    dispatch unless signature= names them), clips in a's dtype and casts into
    out. A widening that casting allows: the fast path into a new array, then
    np.copyto. Any other pair: fastclip's ufunc, without _compat's argument
    rules, which these bounds do not need (float32 -> float64 out=, n=16:
    3.3 us through _compat, 2.1 us np.clip, 1.0 us the ufunc)."""
    cdef cnp.dtype descr = <cnp.dtype>cnp.PyArray_DESCR(a)
    cdef cnp.dtype odescr = <cnp.dtype>cnp.PyArray_DESCR(out)
    cdef unsigned long long buf = 0
    cdef int row
    if not 0 <= descr.type_num < 512 or descr.type_num == odescr.type_num:
        return NotImplemented
    row = ROW_BY_TYPENUM[descr.type_num]
    if row < 0 or ROW_ML[row] or not (_bound_to_c(row, a_min, &buf)
                                      and _bound_to_c(row, a_max, &buf)):
        return NotImplemented
    if type(casting) is not str or casting not in _CASTINGS:
        return NotImplemented                   # NumPy's error, its way
    if _drops_int_bound(row, a_min, a_max):
        return NotImplemented   # NumPy drops the bound: np.minimum/maximum, their errors
    key = (descr.type_num, odescr.type_num, casting)
    widening = _SAFE_WIDENING.get(key)
    if widening is None:
        widening = _SAFE_WIDENING[key] = bool(
            cnp.PyArray_ISNBO(descr.byteorder) and cnp.PyArray_ISNBO(odescr.byteorder)
            and np.can_cast(descr, odescr, "safe") and np.can_cast(descr, odescr, casting))
    if widening and cnp.PyArray_ISWRITEABLE(out) and cnp.PyArray_SAMESHAPE(a, out):
        clipped = _fast(a, a_min, a_max, None)
        if clipped is not NotImplemented:
            np.copyto(out, clipped, casting="safe")
            return out
    try:
        return clip_ufunc(a, a_min, a_max, out=out, casting=casting)
    except TypeError:
        # as _compat.clip: NumPy's _wrapfunc calls again after a TypeError,
        # which raises it again (and repeats any warning)
        return clip_ufunc(a, a_min, a_max, out=out, casting=casting)


cdef inline bint _drops_int_bound(int row, object a_min, object a_max):
    """numpy/_core/_methods.py::_clip: an integer array drops a Python int
    bound at or beyond its dtype's range (NEP 50: no value-based casting)."""
    if ROW_KIND[row] != 0:
        return False
    lo, hi = <tuple>ROW_INT_RANGE[row]
    return (type(a_min) is int and a_min <= lo) or (type(a_max) is int and a_max >= hi)


cdef bint _operand_has_loop(object v):
    """A bound or out that fastclip's ufunc resolves like NumPy's clip (as
    _compat._operand_ok): a Python number, or a NumPy scalar or array of a
    kernel dtype other than the ml_dtypes formats."""
    cdef type tv = type(v)
    cdef int num
    if tv is float or tv is bool:
        return True
    if tv is int:
        return -2**63 <= v < 2**64      # beyond: NumPy's object loop
    if isinstance(v, (ndarray, np.generic)):
        num = (<cnp.dtype>v.dtype).type_num
        return 0 <= num < 512 and ROW_BY_TYPENUM[num] >= 0 and not ROW_ML[ROW_BY_TYPENUM[num]]
    return False


cdef bint _ml_keeps_own_dtype(int num, object a_min, object a_max, object out,
                              dict kwargs):
    """_compat._keeps_own_dtype by type number: whether a bfloat16 or float8
    array (type number num) keeps its dtype (SPEC section 2)."""
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


cdef object _ndarray_call(ndarray a, object a_min, object a_max, object out, dict kwargs):
    """Every other call on an exact ndarray, but a bfloat16 or float8 one
    that keeps its dtype (_compat): numpy/_core/_methods.py::_clip (what
    np.clip runs for an ndarray), with fastclip's ufunc where it has the loop
    and NumPy's where not.
    Written here, not left to _compat, for its cost: np.clip of 16 float32
    with float64 array bounds took 4.4 us this way round through _compat, 1.5 us in
    NumPy, 0.4 us the ufunc alone."""
    cdef int num = (<cnp.dtype>cnp.PyArray_DESCR(a)).type_num
    cdef int row = ROW_BY_TYPENUM[num] if 0 <= num < 512 else -1
    if row >= 0 and _drops_int_bound(row, a_min, a_max):
        lo, hi = <tuple>ROW_INT_RANGE[row]
        if type(a_min) is int and a_min <= lo:
            a_min = None
        if type(a_max) is int and a_max >= hi:
            a_max = None
    if a_min is None and a_max is None:
        return _umath.positive(a, out=out, **kwargs)
    if a_min is None:
        return _umath.minimum(a, a_max, out=out, **kwargs)
    if a_max is None:
        return _umath.maximum(a, a_min, out=out, **kwargs)
    if (row >= 0 and not ROW_ML[row] and _operand_has_loop(a_min)
            and _operand_has_loop(a_max)):
        return clip_ufunc(a, a_min, a_max, out=out, **kwargs)
    return _umath.clip(a, a_min, a_max, out=out, **kwargs)


def clip(a, a_min=np._NoValue, a_max=np._NoValue, out=None, *,
         min=np._NoValue, max=np._NoValue, **kwargs):
    """Clip (limit) the values in an array: ``numpy.clip``, faster.

    Given an interval, values outside the interval are clipped to the interval
    edges: ``min(max(a, a_min), a_max)`` elementwise. Same signature, result,
    dtype, layout, warnings and exceptions as ``numpy.clip`` (see SPEC), except
    that a bfloat16, float8_e4m3fn or float8_e5m2 array with Python-scalar,
    own-dtype or None bounds keeps its dtype (NumPy returns float32; SPEC
    section 2 gives the rule).

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
    if min is np._NoValue and max is np._NoValue:
        if not kwargs:
            if ta is ndarray:
                result = _fast(<ndarray>a, a_min, a_max, out)
            elif ta is list or ta is tuple:
                # np.clip converts a sequence with np.asarray and clips the array
                # (a sequence of bfloat16 or float8 scalars, like one scalar, is
                # not an array: NumPy's float32 result, SPEC section 2)
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
        if (result is NotImplemented and ta is ndarray and type(out) is ndarray
                and (not kwargs or (len(kwargs) == 1 and "casting" in kwargs))):
            # out of another dtype: clip and convert in one pass
            casting = kwargs.get("casting", "same_kind")
            result = _convert(<ndarray>a, a_min, a_max, <ndarray>out, casting)
            if result is NotImplemented:
                result = _into_other_dtype(<ndarray>a, a_min, a_max, <ndarray>out, casting)
    if result is not NotImplemented:
        return result
    if ta is not ndarray:
        return _compat.clip(a, a_min, a_max, out, min, max, kwargs)
    if (a_min is np._NoValue or a_max is np._NoValue
            or min is not np._NoValue or max is not np._NoValue):
        a_min, a_max = _compat._resolve_aliases(a_min, a_max, min, max)
    num = (<cnp.dtype>cnp.PyArray_DESCR(<ndarray>a)).type_num
    row = ROW_BY_TYPENUM[num] if 0 <= num < 512 else -1
    if row >= 0 and ROW_ML[row] and _ml_keeps_own_dtype(num, a_min, a_max, out, kwargs):
        return _compat.clip(a, a_min, a_max, out, np._NoValue, np._NoValue, kwargs)
    try:
        return _ndarray_call(<ndarray>a, a_min, a_max, out, kwargs)
    except TypeError:
        # numpy/_core/fromnumeric.py::_wrapfunc calls again after a
        # TypeError, which raises it again (and repeats any warning)
        return _ndarray_call(<ndarray>a, a_min, a_max, out, kwargs)


def _convert_for_tests(a, a_min, a_max, out, casting="same_kind"):
    """True when the fused clip-and-convert loop did the call (out written),
    False when it would go NumPy's way (out may have been written)."""
    return _convert(a, a_min, a_max, out, casting) is out


def _scalar_for_tests(a, a_min, a_max):
    """The scalar path alone (tests/test_calls.py checks which calls it takes)."""
    return _scalar(a, a_min, a_max)
