/* Per-element bounds for float32 and float64: NumPy's Max, then Min, one
 * vector at a time, written once against the vector layer (csrc/simd/).
 *
 * gtsel(x, lo) is x > lo ? x : lo, which is NumPy's Max but for a NaN x: a
 * select puts x back where x is a NaN. ltsel(t, hi) is t < hi ? t : hi; a
 * select puts t back where t is a NaN. On x86 that is vmaxps/vminps and two
 * blends (AVX-512: masked moves); on NEON compares and bsl. The tail is one
 * partial load and store.
 *
 * Why not the C of csrc/typed_loops.h.in's fc_element_<name>, which GCC
 * vectorises too: it joins the four selects into one chain of mask logic, 22
 * instructions a vector at AVX-512 and more at AVX2.
 *
 * FC_HAVE_FLOAT_BOUNDS: the builds with a vector layer.
 */
#ifndef FASTCLIP_FLOAT_BOUNDS_H
#define FASTCLIP_FLOAT_BOUNDS_H

#include <numpy/npy_common.h>
#include "simd/simd.h"

#if FC_SIMD

#define FC_HAVE_FLOAT_BOUNDS 1

/* one vector: NumPy's Max(x, lo), then Min(t, hi) */
#define FC_BOUNDS_STEP(T)                                                      \
    static inline fc_v_##T fc_bounds_step_##T(fc_v_##T x, fc_v_##T lo, fc_v_##T hi) \
    {                                                                          \
        fc_v_##T t = fc_select_##T(fc_isnan_##T(x), x, fc_gtsel_##T(x, lo));   \
        return fc_select_##T(fc_isnan_##T(t), t, fc_ltsel_##T(t, hi));         \
    }
FC_BOUNDS_STEP(f32)
FC_BOUNDS_STEP(f64)
#undef FC_BOUNDS_STEP

/* FC_FLOAT_BOUNDS_CHECKED (a layer's choice, with fc_either_nan_T,
 * fc_or_mask_T and fc_any_mask_T): four vectors at a time, each clipped
 * as ltsel(gtsel(x, lo), hi), which is NumPy's Max then Min wherever
 * neither x nor lo is a NaN (a NaN hi comes out of ltsel as NumPy's Min
 * gives it); one unordered compare of x with lo a vector finds the blocks
 * where one is, and those take fc_bounds_step. Four ALU operations a
 * vector where fc_bounds_step takes six, and no blend: at SSE4.2 each
 * blend also copies its mask into xmm0. */
#if defined(FC_FLOAT_BOUNDS_CHECKED)
#define FC_BOUNDS_CHECKED_BLOCKS(T)                                            \
        for (; i + 4 * lanes <= n; i += 4 * lanes) {                           \
            fc_v_##T xs[4], ls[4], hs[4];                                      \
            for (int k = 0; k < 4; k++) {                                      \
                xs[k] = fc_load_##T(x + i + k * lanes);                        \
                ls[k] = lo_step ? fc_load_##T(lo + i + k * lanes) : vlo;       \
                hs[k] = hi_step ? fc_load_##T(hi + i + k * lanes) : vhi;       \
            }                                                                  \
            fc_m_##T nan = fc_or_mask_##T(                                     \
                fc_or_mask_##T(fc_either_nan_##T(xs[0], ls[0]), fc_either_nan_##T(xs[1], ls[1])), \
                fc_or_mask_##T(fc_either_nan_##T(xs[2], ls[2]), fc_either_nan_##T(xs[3], ls[3]))); \
            if (!fc_any_mask_##T(nan)) {                                       \
                for (int k = 0; k < 4; k++) {                                  \
                    fc_store_##T(out + i + k * lanes,                          \
                                 fc_ltsel_##T(fc_gtsel_##T(xs[k], ls[k]), hs[k])); \
                }                                                              \
            } else {                                                           \
                for (int k = 0; k < 4; k++) {                                  \
                    fc_store_##T(out + i + k * lanes,                          \
                                 fc_bounds_step_##T(xs[k], ls[k], hs[k]));     \
                }                                                              \
            }                                                                  \
        }
#else
#define FC_BOUNDS_CHECKED_BLOCKS(T)
#endif

/* out[i] = clip(x[i], lo[i], hi[i]) for n elements; a bound whose step
 * (lo_step, hi_step) is 0 is the one value lo[0] or hi[0]. Inline: each
 * caller's constant steps leave one loop. */
#define FC_FLOAT_BOUNDS(T, C)                                                  \
    static inline void fc_bounds_vector_##T(const C *x, const C *lo, const C *hi, C *out, \
                                            npy_intp n, int lo_step, int hi_step) \
    {                                                                          \
        const npy_intp lanes = FC_LANES_##T;                                   \
        npy_intp i = 0;                                                        \
        if (n <= 0) {                                                          \
            return;                                                            \
        }                                                                      \
        fc_v_##T vlo = fc_set1_##T(lo[0]), vhi = fc_set1_##T(hi[0]);           \
        FC_BOUNDS_CHECKED_BLOCKS(T)                                            \
        for (; i + lanes <= n; i += lanes) {                                   \
            fc_v_##T l = lo_step ? fc_load_##T(lo + i) : vlo;                  \
            fc_v_##T h = hi_step ? fc_load_##T(hi + i) : vhi;                  \
            fc_store_##T(out + i, fc_bounds_step_##T(fc_load_##T(x + i), l, h)); \
        }                                                                      \
        if (i < n) {                                                           \
            int k = (int)(n - i);                                              \
            fc_v_##T l = lo_step ? fc_load_n_##T(lo + i, k) : vlo;             \
            fc_v_##T h = hi_step ? fc_load_n_##T(hi + i, k) : vhi;             \
            fc_store_n_##T(out + i, k, fc_bounds_step_##T(fc_load_n_##T(x + i, k), l, h)); \
        }                                                                      \
    }
FC_FLOAT_BOUNDS(f32, float)
FC_FLOAT_BOUNDS(f64, double)
#undef FC_FLOAT_BOUNDS

#endif
#endif
