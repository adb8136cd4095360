# The C types the kernel modules (_kernels_<target>) and _ufunc share: the
# entries of the loop tables and the conversion API that the kernel module in
# use hands to _ufunc as capsules. Declarations only; cimported by both.

from numpy cimport npy_intp

cdef extern from "loop_types.h":
    # NumPy's ufunc loop signature: every loop of the tables has it
    ctypedef void (*fc_loop_t)(char **args, const npy_intp *dimensions,
                               const npy_intp *steps, void *data) noexcept nogil
    # `count` runs of n elements, run r of operand k at args[k] + r * row_steps[k]
    ctypedef void (*fc_rows_t)(char **args, npy_intp n, const npy_intp *steps, npy_intp count,
                               const npy_intp *row_steps) noexcept nogil
    # n contiguous elements, both bounds scalars given by address
    ctypedef void (*fc_span_t)(const char *x, const char *lo, const char *hi, char *out,
                               npy_intp n) noexcept nogil
    # where=: the loop applied where mask is true, out left alone elsewhere
    ctypedef void (*fc_masked_t)(fc_loop_t loop, int itemsize, char **args,
                                 const unsigned char *mask, npy_intp n,
                                 const npy_intp *steps, npy_intp s_mask) noexcept nogil

# the fused conversions and widenings (csrc/convert.h, csrc/widen.h) by index:
# whether loop k takes these bounds, loop k over n contiguous elements, and a
# widening loop chained with a conversion
ctypedef struct fc_convert_api_t:
    int (*in_range)(int k, const void *lo, const void *hi) noexcept nogil
    int (*run)(int k, const char *x, char *out, npy_intp n, const void *lo,
               const void *hi) noexcept nogil
    # widening loop `widen`, then conversion k, through an L1 buffer
    int (*chain)(int widen, int k, const char *x, char *out, npy_intp n, const void *lo,
                 const void *hi) noexcept nogil
    # loop k, then out written where mask is set (where=), through an L1 buffer
    int (*run_masked)(int k, const char *x, char *out, const unsigned char *mask, npy_intp n,
                      const void *lo, const void *hi) noexcept nogil

# fastclip.quantize's call (csrc/loop_types.h, csrc/quantize.h): filled by
# _ufunc (_route_quantize.pxi), run by the kernel module in use
cdef extern from "loop_types.h":
    enum:
        FC_Q_FLOAT
        FC_Q_HALF
        FC_Q_BFLOAT16
    enum:
        FC_Q_INT8
        FC_Q_UINT8
        FC_Q_INT16
        FC_Q_UINT16
        FC_Q_E4M3FN
        FC_Q_E5M2
        FC_Q_E4M3FN_UNSATURATED
        FC_Q_E5M2_UNSATURATED
    ctypedef struct fc_quantize_job_t:
        const char *x
        char *out
        npy_intp n
        int src, div, dst
        int src_size, dst_size
        const float *scale
        const float *zero
        npy_intp axis_len, inner, block
        npy_intp s_outer, s_axis, s_inner

ctypedef struct fc_quantize_api_t:
    void (*run)(const fc_quantize_job_t *job) noexcept nogil
