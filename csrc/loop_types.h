/* The C types of the loop tables, shared by the kernel modules and _ufunc
 * (src/fastclip/_shared.pxd declares them for Cython). Types only: including
 * this first must not settle anything parallel.h decides by FC_POOL_OWNER. */
#ifndef FASTCLIP_LOOP_TYPES_H
#define FASTCLIP_LOOP_TYPES_H

#include <numpy/npy_common.h>

/* NumPy's ufunc loop signature: every loop of the tables has it */
typedef void (*fc_loop_t)(char **args, const npy_intp *dimensions,
                          const npy_intp *steps, void *data);

/* n contiguous elements, both bounds scalars given by address */
typedef void (*fc_span_t)(const char *x, const char *lo, const char *hi, char *out,
                          npy_intp n);

/* where=: the loop applied where mask is true, out left alone elsewhere */
typedef void (*fc_masked_t)(fc_loop_t loop, int itemsize, char **args,
                            const unsigned char *mask, npy_intp n,
                            const npy_intp *steps, npy_intp s_mask);

/* A row's loop over `count` runs of n elements (steps as a loop's), run r
 * starting at args + r * row_steps: rows_<name> of the kernel module, which
 * checks and prepares scalar bounds once for all of them. */
typedef void (*fc_rows_t)(char **args, npy_intp n, const npy_intp *steps, npy_intp count,
                          const npy_intp *row_steps);

/* fastclip.quantize's call (csrc/quantize.h): x (src_size bytes an element,
 * C order) seen as (outer, axis_len, inner); the scale and zero point of
 * element (o, a, i), as float32, at o * s_outer + (a / block) * s_axis +
 * i * s_inner (all three 0: one for the tensor) */
enum { FC_Q_FLOAT, FC_Q_HALF, FC_Q_BFLOAT16 };        /* x's dtype, the division's */
/* the result's dtype; the float8 ones twice: saturated, and as ml_dtypes
 * casts (saturate=False) */
enum { FC_Q_INT8, FC_Q_UINT8, FC_Q_INT16, FC_Q_UINT16, FC_Q_E4M3FN, FC_Q_E5M2,
       FC_Q_E4M3FN_UNSATURATED, FC_Q_E5M2_UNSATURATED };
typedef struct {
    const char *x;
    char *out;
    npy_intp n;                     /* elements */
    int src, div, dst;              /* x's dtype, the division's, the result's */
    int src_size, dst_size;
    const float *scale;
    const float *zero;
    npy_intp axis_len, inner, block;
    npy_intp s_outer, s_axis, s_inner;
} fc_quantize_job_t;

#endif
