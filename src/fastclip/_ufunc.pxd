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
