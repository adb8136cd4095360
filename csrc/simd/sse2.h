/* SSE2 for the x86-64 baseline build, which has no vector layer
 * (csrc/simd/simd.h): the loops GCC's SSE2 vectoriser leaves scalar. */
#ifndef FASTCLIP_SIMD_SSE2_H
#define FASTCLIP_SIMD_SSE2_H

#include <emmintrin.h>
#include <numpy/npy_common.h>

/* m doubles of x (m even) clipped to [lo, hi] (maxpd, minpd: a NaN kept) and
 * truncated into int32 at buf (cvttpd2dq); *nans gets the lanes that were NaN
 * (cmpunordpd), or-ed in */
static inline void fc_sse2_clip_trunc_f64_s32(const double *x, npy_int32 *buf, npy_intp m,
                                              double lo, double hi, __m128d *nans)
{
    const __m128d vlo = _mm_set1_pd(lo), vhi = _mm_set1_pd(hi);
    for (npy_intp j = 0; j < m; j += 2) {
        __m128d v = _mm_loadu_pd(x + j);
        *nans = _mm_or_pd(*nans, _mm_cmpunord_pd(v, v));
        v = _mm_min_pd(vhi, _mm_max_pd(vlo, v));
        _mm_storel_epi64((__m128i *)(buf + j), _mm_cvttpd_epi32(v));
    }
}

static inline __m128d fc_sse2_no_nans(void) { return _mm_setzero_pd(); }
static inline int fc_sse2_any_nan(__m128d nans) { return _mm_movemask_pd(nans) != 0; }

#endif
