# The C that fastclip/_ufunc.pyx calls, declared (Cython reads this file
# with the module of its name): csrc/'s headers and NumPy's array API.

cimport numpy as cnp
from numpy cimport npy_intp, ndarray
from fastclip._shared cimport fc_loop_t, fc_masked_t, fc_rows_t

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
    int FC_POOL
    void fc_pool_set_modes(int modes) noexcept nogil
    int fc_pool_modes() noexcept nogil
    enum:
        FC_MODE_SPLIT_EVERY_CALL, FC_MODE_OPENMP
    void fc_pool_stats(int *helpers, int *sleeping, npy_intp *chunks, unsigned long *wakeups,
                       long *wake_ns, long *wake_cost_ns) noexcept nogil
    int FC_WAKE_REPAY

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


# The dtype table by row, as C arrays: declared here for every part of the
# module (_ufunc.pyx and its .pxi files), filled by _bounds.pxi at import.
# Row index by NumPy type number (builtin types and the ml_dtypes formats),
# -1 for none.
cdef int ROW_BY_TYPENUM[512]
# the table's kinds (_dtypes.KINDS, in that order) as C codes
cdef enum RowKind:
    KIND_INT
    KIND_FLOAT
    KIND_HALF
    KIND_BFLOAT16
    KIND_FLOAT8
cdef int ROW_KIND[32]         # a RowKind a row
#: rows of the ml_dtypes formats, which NumPy computes in float32 and which
#: stay themselves only as arrays with bounds of the bfloat16/float8 rule's kinds (docs/semantics.rst)
cdef bint ROW_ML[32]
#: float8 rows: mantissa bits, exponent bias, whether it has an infinity
cdef int F8_MANTISSA[32]
cdef int F8_BIAS[32]
cdef bint F8_HAS_INF[32]
cdef int ROW_SIGNED[32]
cdef int ROW_ITEMSIZE[32]
#: the 16- and 8-bit float rows: the largest magnitude that is not a NaN, as bits
cdef unsigned int ROW_LARGEST_BITS[32]
#: per row: its scalar type, and for integer rows the range of a Python int
#: bound that fits in a long long (uint64's top half is checked apart)
cdef tuple ROW_SCALAR_TYPE
cdef long long INT_MIN[32]
cdef long long INT_MAX[32]

#: PROMOTED_SCALAR[row][src]: a NumPy scalar of row src (np.float32,
#: np.int16, ...) bounding an array of row `row` leaves np.clip's loop that
#: row's own (its type number: an np.longlong bound on an np.int64 array makes
#: NumPy's result np.longlong) and casts into it safely, so exactly: np.float32
#: or np.int32 on float64, np.float16 or np.int16 on float32, np.int8 on
#: int32. The fast path takes such a bound as its value in row's type (a
#: Python number x is an array to np.clip, np.asarray's: float64 or int64).
cdef bint PROMOTED_SCALAR[32][32]
#: NumPy scalar type -> row, for the scalar path; not the ml_dtypes formats,
#: whose scalars NumPy computes in float32 (only their arrays stay: docs/semantics.rst)
cdef dict SCALAR_ROWS
