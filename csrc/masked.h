/* where=: out = mask ? clip(x) : out, for any clip loop.
 *
 * The clipping is the row's own loop (so every NaN, signed-zero and tie rule is
 * the one already proven), run on a block of x into a stack buffer; the block
 * is then blended into out by the mask. The blend depends only on the item
 * size, and with out and the mask contiguous it is a select the compiler
 * vectorises (a masked store under AVX-512), branch-free whatever the mask.
 * Masked-off elements of out are never written.
 *
 * Compiled into each SIMD build (fastclip/_kernels.pyx.in includes it).
 */
#ifndef FASTCLIP_MASKED_H
#define FASTCLIP_MASKED_H

#include <numpy/npy_common.h>
#include "parallel.h"

#define FC_MASK_BLOCK 1024

#define FC_BLEND(T)                                                              \
    static inline void fc_blend_##T(char *out, npy_intp s_out, const char *buf,  \
                                    const npy_bool *mask, npy_intp s_mask,       \
                                    npy_intp n)                                  \
    {                                                                            \
        const T *b = (const T *)buf;                                             \
        if (s_out == (npy_intp)sizeof(T) && s_mask == 1) {                       \
            T *o = (T *)out;                                                     \
            for (npy_intp i = 0; i < n; i++) {                                   \
                if (mask[i]) {                                                   \
                    o[i] = b[i];                                                 \
                }                                                                \
            }                                                                    \
        }                                                                        \
        else {                                                                   \
            for (npy_intp i = 0; i < n; i++) {                                   \
                if (mask[i * s_mask]) {                                          \
                    *(T *)(out + i * s_out) = b[i];                              \
                }                                                                \
            }                                                                    \
        }                                                                        \
    }

FC_BLEND(npy_uint8)
FC_BLEND(npy_uint16)
FC_BLEND(npy_uint32)
FC_BLEND(npy_uint64)

/* args: x, lo, hi, out; steps: theirs (a bound's is 0 when it is a scalar). */
static void fc_run_masked(fc_loop_t loop, int itemsize, char **args, const npy_bool *mask,
                          npy_intp n, const npy_intp *steps, npy_intp s_mask)
{
    npy_uint64 buf[FC_MASK_BLOCK];      /* 8 KiB, aligned for every item size */
    for (npy_intp i = 0; i < n; i += FC_MASK_BLOCK) {
        npy_intp m = n - i < FC_MASK_BLOCK ? n - i : FC_MASK_BLOCK;
        char *a[4] = {args[0] + i * steps[0], args[1] + i * steps[1], args[2] + i * steps[2],
                      (char *)buf};
        npy_intp st[4] = {steps[0], steps[1], steps[2], itemsize};
        loop(a, &m, st, NULL);
        char *out = args[3] + i * steps[3];
        const npy_bool *mk = mask + i * s_mask;
        switch (itemsize) {
        case 1: fc_blend_npy_uint8(out, steps[3], (char *)buf, mk, s_mask, m); break;
        case 2: fc_blend_npy_uint16(out, steps[3], (char *)buf, mk, s_mask, m); break;
        case 4: fc_blend_npy_uint32(out, steps[3], (char *)buf, mk, s_mask, m); break;
        default: fc_blend_npy_uint64(out, steps[3], (char *)buf, mk, s_mask, m); break;
        }
    }
}

#endif
