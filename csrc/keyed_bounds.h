/* Per-element bounds for the 16- and 8-bit floats (float16, bfloat16, the
 * float8s): NumPy's Max, then Min, one vector at a time, written once
 * against the vector layer (csrc/simd/), as csrc/float_bounds.h is for
 * float32 and float64.
 *
 * Each operand is compared through its signed order key, (m ^ s) - s with m
 * the magnitude bits and s all ones where the sign is set: -m for a negative
 * value, m for a positive one, so -0 and +0 tie as IEEE says. A NaN's key is
 * meaningless; its mask (m > the largest magnitude) decides instead:
 *
 *   float16 (ties keep x, then t: NumPy's half loop)
 *     take lo = (key(lo) > key(x) | nan lo) & ~nan x
 *     take hi = (key(t) > key(hi) | nan hi) & ~nan t
 *   bfloat16, float8 (ties take the bound: NumPy's float32 loop)
 *     keep x = (key(x) > key(lo) & ~nan lo) | nan x
 *     keep t = (key(hi) > key(t) & ~nan hi) | nan t
 *
 * which is csrc/typed_loops.h.in's fc_element_<name> (NaN from x,
 * then lo, then hi; the output is always the bits of x, lo or hi). t's key
 * and NaN mask are selected with t, not computed again: at AVX2, 25
 * instructions a vector of 16, three of them blends.
 *
 * Why not that C, which GCC vectorises too: its selects become a longer chain
 * of blends.
 *
 * Returns how many elements it did (a whole number of vectors); the caller's
 * loop does the rest.
 */
#ifndef FASTCLIP_KEYED_BOUNDS_H
#define FASTCLIP_KEYED_BOUNDS_H

#include <numpy/npy_common.h>
#include "simd/simd.h"

#if FC_SIMD

#define FC_HAVE_KEYED_BOUNDS 1

/* T: lane type; C: its C type; SB: the lane's bits; MAGNITUDE: all bits but the sign */
#define FC_KEYED_BOUNDS(T, C, SB, MAGNITUDE)                                   \
    /* v's signed order key, and where v is a NaN */                           \
    static inline __attribute__((always_inline)) fc_v_##T fc_order_key_##T(   \
        fc_v_##T v, fc_v_##T magnitude, fc_v_##T largest, fc_m_##T *nan)      \
    {                                                                          \
        fc_v_##T m = fc_and_##T(v, magnitude), s = fc_signfill_##T(v);        \
        *nan = fc_gt_s##SB(m, largest);                                        \
        return fc_sub_##T(fc_xor_##T(m, s), s);                                \
    }                                                                          \
    /* out[i] = clip(x[i], lo[i], hi[i]); a bound whose step (lo_step,        \
     * hi_step) is 0 is the one value lo[0] or hi[0] (read only if n fills a  \
     * vector). ties_keep: float16's rule. Inline: each caller's constants   \
     * leave one loop. */                                                      \
    static inline __attribute__((always_inline)) npy_intp fc_keyed_bounds_##T( \
        const C *x, const C *lo, const C *hi, C *out, npy_intp n, int lo_step, \
        int hi_step, C largest_bits, int ties_keep)                            \
    {                                                                          \
        const npy_intp lanes = FC_LANES_##T;                                   \
        npy_intp i = 0;                                                        \
        if (n < lanes) {                                                       \
            return 0;                                                          \
        }                                                                      \
        const fc_v_##T magnitude = fc_set1_##T((C)(MAGNITUDE));                \
        const fc_v_##T largest = fc_set1_##T(largest_bits);                    \
        fc_m_##T nan_lo0, nan_hi0;                                             \
        const fc_v_##T lo0 = fc_set1_##T(lo[0]), hi0 = fc_set1_##T(hi[0]);     \
        const fc_v_##T key_lo0 = fc_order_key_##T(lo0, magnitude, largest, &nan_lo0); \
        const fc_v_##T key_hi0 = fc_order_key_##T(hi0, magnitude, largest, &nan_hi0); \
        for (; i + lanes <= n; i += lanes) {                                   \
            fc_m_##T nan_x, nan_lo = nan_lo0, nan_hi = nan_hi0, nan_t, pick;   \
            fc_v_##T v = fc_load_##T(x + i), l = lo0, h = hi0;                 \
            fc_v_##T key_lo = key_lo0, key_hi = key_hi0;                       \
            if (lo_step) {                                                     \
                l = fc_load_##T(lo + i);                                       \
                key_lo = fc_order_key_##T(l, magnitude, largest, &nan_lo);     \
            }                                                                  \
            if (hi_step) {                                                     \
                h = fc_load_##T(hi + i);                                       \
                key_hi = fc_order_key_##T(h, magnitude, largest, &nan_hi);     \
            }                                                                  \
            fc_v_##T key_x = fc_order_key_##T(v, magnitude, largest, &nan_x);  \
            fc_v_##T t, key_t, r;                                              \
            if (ties_keep) {                                                   \
                pick = fc_mandnot_##T(fc_mor_##T(fc_gt_s##SB(key_lo, key_x), nan_lo), nan_x); \
                t = fc_select_##T(pick, l, v);                                 \
                key_t = fc_select_##T(pick, key_lo, key_x);                    \
                nan_t = fc_mor_##T(nan_x, fc_mand_##T(pick, nan_lo));          \
                pick = fc_mandnot_##T(fc_mor_##T(fc_gt_s##SB(key_t, key_hi), nan_hi), nan_t); \
                r = fc_select_##T(pick, h, t);                                 \
            } else {                                                           \
                pick = fc_mor_##T(fc_mandnot_##T(fc_gt_s##SB(key_x, key_lo), nan_lo), nan_x); \
                t = fc_select_##T(pick, v, l);                                 \
                key_t = fc_select_##T(pick, key_x, key_lo);                    \
                nan_t = fc_mor_##T(nan_x, fc_mandnot_##T(nan_lo, pick));       \
                pick = fc_mor_##T(fc_mandnot_##T(fc_gt_s##SB(key_hi, key_t), nan_hi), nan_t); \
                r = fc_select_##T(pick, t, h);                                 \
            }                                                                  \
            fc_store_##T(out + i, r);                                          \
        }                                                                      \
        return i;                                                              \
    }
FC_KEYED_BOUNDS(u16, uint16_t, 16, 0x7fff)
FC_KEYED_BOUNDS(u8, uint8_t, 8, 0x7f)
#undef FC_KEYED_BOUNDS

#endif
#endif
