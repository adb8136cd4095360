/* Per-element bounds for float32 and float64: NumPy's Max, then Min, one
 * vector at a time, written once against the vector layer (csrc/simd/).
 *
 * gtsel(x, lo) is x > lo ? x : lo, which is NumPy's Max but for a NaN x: a
 * select puts x back where x is a NaN. ltsel(t, hi) is t < hi ? t : hi; a
 * select puts t back where t is a NaN. On x86 that is vmaxps/vminps and two
 * blends (AVX-512: masked moves); on NEON compares and bsl. The tail is one
 * partial load and store.
 *
 * Why not the C of src/fastclip/_kernels.pyx.in's fc_element_<name>, which GCC
 * vectorises too: it joins the four selects into one chain of mask logic, 22
 * instructions a vector at AVX-512 and more at AVX2 (docs/performance.rst).
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
