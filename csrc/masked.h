/* where=: out = mask ? clip(x) : out, for any clip loop.
 *
 * The clipping is the row's own loop (so every NaN, signed-zero and tie rule is
 * the one already proven), run on a block of x into a stack buffer; the block
 * is then blended into out by the mask. The blend depends only on the item
 * size; with out and the mask contiguous it is a run of masked stores
 * (fc_blend_vector), branch-free whatever the mask. Masked-off elements of out
 * are never written.
 *
 * Compiled into each SIMD build (src/fastclip/_kernels.pyx.in includes it).
 */
#ifndef FASTCLIP_MASKED_H
#define FASTCLIP_MASKED_H

#include <stdint.h>
#include <string.h>
#include <numpy/npy_common.h>
#include "parallel.h"
#include "simd/simd.h"

#define FC_MASK_BLOCK 1024

/* The masked stores of a contiguous blend, a vector's worth at a time by the
 * layer's fc_blend_<itemsize> (csrc/simd/): left to the vectoriser, its cost
 * model kept some item sizes scalar, and a branch per element mispredicts on
 * a random mask. Returns how many elements it stored (the rest: the caller's
 * loop). */
static inline npy_intp fc_blend_vector(int itemsize, char *out, const char *buf,
                                       const npy_bool *mask, npy_intp n)
{
    npy_intp i = 0;
#if defined(FC_HAVE_BLEND)
#define FC_BLEND_RUN(W)                                                        \
    for (; i + FC_BLEND_ITEMS_##W <= n; i += FC_BLEND_ITEMS_##W) {             \
        fc_blend_##W(out + (W) * i, buf + (W) * i, mask + i);                  \
    }
    switch (itemsize) {
    case 1: FC_BLEND_RUN(1) break;
    case 2: FC_BLEND_RUN(2) break;
    case 4: FC_BLEND_RUN(4) break;
    case 8: FC_BLEND_RUN(8) break;
    }
#undef FC_BLEND_RUN
#else
    (void)itemsize; (void)out; (void)buf; (void)mask; (void)n;
#endif
    return i;
}

/* Blocks of one vector of mask bytes where the target has no masked store
 * (NEON): a block whose
 * mask is all set is copied whole, one all clear skipped, and a mixed one
 * stored element by element to out or, where the mask is clear, to a dummy
 * (a select of the address, not a branch, which a random mask would
 * mispredict). Returns how many elements it did (whole blocks). */
#if FC_SIMD
#define FC_BLEND_BLOCKS(T)                                                       \
    static inline npy_intp fc_blend_blocks_##T(T *o, const T *b, const npy_bool *mask, \
                                              npy_intp n)                        \
    {                                                                            \
        const npy_intp lanes = FC_LANES_u8;                                      \
        npy_intp i = 0, whole = n > 0 ? n - n % lanes : 0;                       \
        T sink[1];                                                               \
        for (; i < whole; i += lanes) {                                          \
            fc_v_u8 m = fc_load_u8((const uint8_t *)mask + i);                   \
            if (fc_none_set_u8(m)) {                                             \
                continue;                                                        \
            }                                                                    \
            if (fc_all_set_u8(m)) {                                              \
                memcpy(o + i, b + i, (size_t)lanes * sizeof(T));                 \
                continue;                                                        \
            }                                                                    \
            for (npy_intp j = i; j < i + lanes; j++) {                           \
                /* the address by bitwise select: written as ?:, GCC makes it \
                 * a branch again (the dummy store being dead to it) */          \
                uintptr_t on = (uintptr_t)0 - (uintptr_t)(mask[j] != 0);         \
                T *dst = (T *)(((uintptr_t)(o + j) & on) | ((uintptr_t)sink & ~on)); \
                *dst = b[j];                                                     \
            }                                                                    \
        }                                                                        \
        return i;                                                                \
    }
#else
#define FC_BLEND_BLOCKS(T)                                                       \
    static inline npy_intp fc_blend_blocks_##T(T *o, const T *b, const npy_bool *mask, \
                                              npy_intp n)                        \
    {                                                                            \
        (void)o; (void)b; (void)mask; (void)n;                                   \
        return 0;                                                                \
    }
#endif
FC_BLEND_BLOCKS(npy_uint8)
FC_BLEND_BLOCKS(npy_uint16)
FC_BLEND_BLOCKS(npy_uint32)
FC_BLEND_BLOCKS(npy_uint64)
#undef FC_BLEND_BLOCKS

#define FC_BLEND(T)                                                              \
    static inline void fc_blend_##T(char *out, npy_intp s_out, const char *buf,  \
                                    const npy_bool *mask, npy_intp s_mask,       \
                                    npy_intp n)                                  \
    {                                                                            \
        const T *b = (const T *)buf;                                             \
        if (s_out == (npy_intp)sizeof(T) && s_mask == 1) {                       \
            T *o = (T *)out;                                                     \
            npy_intp i = fc_blend_vector((int)sizeof(T), out, buf, mask, n);     \
            if (i == 0) {                                                        \
                i = fc_blend_blocks_##T(o, b, mask, n);                          \
            }                                                                    \
            for (; i < n; i++) {                                                 \
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

/* n items of buf into out (stride s_out) where mask (stride s_mask) is set */
static inline void fc_blend(int itemsize, char *out, npy_intp s_out, const char *buf,
                            const npy_bool *mask, npy_intp s_mask, npy_intp n)
{
    switch (itemsize) {
    case 1: fc_blend_npy_uint8(out, s_out, buf, mask, s_mask, n); break;
    case 2: fc_blend_npy_uint16(out, s_out, buf, mask, s_mask, n); break;
    case 4: fc_blend_npy_uint32(out, s_out, buf, mask, s_mask, n); break;
    default: fc_blend_npy_uint64(out, s_out, buf, mask, s_mask, n); break;
    }
}

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
        fc_blend(itemsize, args[3] + i * steps[3], steps[3], (const char *)buf,
                 mask + i * s_mask, s_mask, m);
    }
}

#endif
