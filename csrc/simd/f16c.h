/* F16C's eight-lane float16 conversions, which the AVX2 and AVX-512 builds
 * have (FC_HAVE_F16C); the other builds convert element by element. */
#ifndef FASTCLIP_SIMD_F16C_H
#define FASTCLIP_SIMD_F16C_H

#if defined(__F16C__)
#include <immintrin.h>
#include <numpy/npy_common.h>

#define FC_HAVE_F16C 1

/* 8 floats (within float16's range, or NaN) -> float16, to nearest even */
static inline void fc_f16c_floats_to_half(const float *x, npy_uint16 *o)
{
    _mm_storeu_si128((__m128i *)o, _mm256_cvtps_ph(_mm256_loadu_ps(x),
                                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}

/* 8 float16 -> float, clipped to [lo, hi] as FC_CLIP does (a NaN kept: the
 * compares are false for it); returns whether any was NaN */
static inline int fc_f16c_half_to_floats_clipped(const npy_uint16 *x, float *o, float lo, float hi)
{
    __m256 v = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)x));
    int nan = _mm256_movemask_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    v = _mm256_blendv_ps(v, _mm256_set1_ps(lo), _mm256_cmp_ps(v, _mm256_set1_ps(lo), _CMP_LT_OQ));
    v = _mm256_blendv_ps(v, _mm256_set1_ps(hi), _mm256_cmp_ps(v, _mm256_set1_ps(hi), _CMP_GT_OQ));
    _mm256_storeu_ps(o, v);
    return nan;
}
/* 8 float16 -> float, exactly */
static inline void fc_f16c_half_to_floats(const npy_uint16 *x, float *o)
{
    _mm256_storeu_ps(o, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)x)));
}

/* 8 floats rounded to float16 and back, in place: to nearest even, beyond
 * float16's range to infinity, a NaN kept */
static inline void fc_f16c_round_floats_to_half(float *q)
{
    __m128i r = _mm256_cvtps_ph(_mm256_loadu_ps(q),
                                _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm256_storeu_ps(q, _mm256_cvtph_ps(r));
}
#else
#define FC_HAVE_F16C 0
#endif

#endif
