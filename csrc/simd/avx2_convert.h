/* The AVX2 layer's part for the fused conversions (csrc/convert_vector.h):
 * loads that widen, truncations, packs that narrow, the roundings of two
 * float64 vectors to float32, and int64's clip by compare and blend.
 * Included by csrc/simd/avx2.h alone, at the place it is used from. */

#ifndef FASTCLIP_SIMD_AVX2_CONVERT_H
#define FASTCLIP_SIMD_AVX2_CONVERT_H

/* ---- what the fused conversions need (csrc/convert_vector.h) ---- */
#define FC_SIMD_CONVERSIONS 1
#define FC_SIMD_CONVERT_INT64 1
#define FC_SIMD_CONVERT_DOUBLE_FLOAT 1
/*
 * fc_v_u32: 32-bit integer lanes, as many as float32's; fc_v_s64: 64-bit */
typedef __m256i fc_v_u32;
typedef __m256i fc_m_u32;
typedef __m256i fc_v_s64;
#define FC_LANES_s64 4

static inline int fc_any_mask_f32(fc_m_f32 m) { return _mm256_movemask_ps(m) != 0; }
static inline fc_m_f64 fc_or_mask_f64(fc_m_f64 a, fc_m_f64 b) { return _mm256_or_pd(a, b); }
static inline int fc_any_mask_f64(fc_m_f64 m) { return _mm256_movemask_pd(m) != 0; }
static inline fc_v_f32 fc_add_f32(fc_v_f32 a, fc_v_f32 b) { return _mm256_add_ps(a, b); }
/* toward zero, as C's cast; a NaN becomes INT32_MIN (CVTTPS2DQ's "integer
 * indefinite", Intel SDM), which csrc/convert_vector.h's NaN test counts on */
static inline fc_v_u32 fc_trunc_s32_f32(fc_v_f32 v) { return _mm256_cvttps_epi32(v); }
static inline void fc_store_u32(uint32_t *p, fc_v_u32 v) { _mm256_storeu_si256((__m256i *)p, v); }
/* as many 8- and 16-bit elements as float32 lanes, loaded and widened into
 * 32-bit lanes */
#define FC_SIMD_CONVERT_SMALL_INTS 1
static inline fc_v_u32 fc_load_s32_u8(const uint8_t *p)
{
    return _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)p));
}
static inline fc_v_u32 fc_load_s32_s8(const int8_t *p)
{
    return _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)p));
}
static inline fc_v_u32 fc_load_s32_u16(const uint16_t *p)
{
    return _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p));
}
static inline fc_v_u32 fc_load_s32_s16(const int16_t *p)
{
    return _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)p));
}
/* int32 lanes as float32, rounded to nearest even (C's cast) */
static inline fc_v_f32 fc_cvt_f32_s32(fc_v_u32 v) { return _mm256_cvtepi32_ps(v); }
/* int32 lanes as float64 (exact), stored at o: as many doubles as the lanes */
static inline void fc_store_f64_s32(double *o, fc_v_u32 v)
{
    _mm256_storeu_pd(o, _mm256_cvtepi32_pd(_mm256_castsi256_si128(v)));
    _mm256_storeu_pd(o + 4, _mm256_cvtepi32_pd(_mm256_extracti128_si256(v, 1)));
}
static inline fc_v_u32 fc_as_u32_f32(fc_v_f32 v) { return _mm256_castps_si256(v); }
static inline fc_v_f32 fc_as_f32_u32(fc_v_u32 v) { return _mm256_castsi256_ps(v); }
static inline fc_v_u32 fc_set1_u32(uint32_t x) { return _mm256_set1_epi32((int)x); }
static inline fc_v_u32 fc_and_u32(fc_v_u32 a, fc_v_u32 b) { return _mm256_and_si256(a, b); }
/* ~a & b */
static inline fc_v_u32 fc_andnot_u32(fc_v_u32 a, fc_v_u32 b) { return _mm256_andnot_si256(a, b); }
static inline fc_v_u32 fc_or_u32(fc_v_u32 a, fc_v_u32 b) { return _mm256_or_si256(a, b); }
static inline fc_v_u32 fc_add_u32(fc_v_u32 a, fc_v_u32 b) { return _mm256_add_epi32(a, b); }
static inline fc_v_u32 fc_sub_u32(fc_v_u32 a, fc_v_u32 b) { return _mm256_sub_epi32(a, b); }
static inline fc_v_u32 fc_max_u32(fc_v_u32 a, fc_v_u32 b) { return _mm256_max_epu32(a, b); }
static inline int fc_any_eq_u32(fc_v_u32 a, uint32_t x)
{
    return _mm256_movemask_epi8(_mm256_cmpeq_epi32(a, _mm256_set1_epi32((int)x))) != 0;
}
#define fc_srli_u32(v, k) _mm256_srli_epi32((v), (k))
static inline fc_v_u32 fc_select_u32(fc_m_u32 m, fc_v_u32 a, fc_v_u32 b)
{
    return _mm256_blendv_epi8(b, a, m);
}
/* two float64 vectors -> one vector of float32's lane count (a NaN: as
 * fc_trunc_s32_f32) */
static inline fc_v_u32 fc_trunc_s32_f64x2(fc_v_f64 a, fc_v_f64 b)
{
    return _mm256_set_m128i(_mm256_cvttpd_epi32(b), _mm256_cvttpd_epi32(a));
}
/* two float64 vectors rounded to float32 and stored at o, each half by
 * itself (one vinsertf128 fewer on port 5) */
static inline void fc_store_f32_f64x2(float *o, fc_v_f64 a, fc_v_f64 b)
{
    _mm_storeu_ps(o, _mm256_cvtpd_ps(a));
    _mm_storeu_ps(o + 4, _mm256_cvtpd_ps(b));
}
/* lanes where a or b is a NaN: one compare for two vectors */
static inline fc_m_f64 fc_either_nan_f64(fc_v_f64 a, fc_v_f64 b) { return _mm256_cmp_pd(a, b, _CMP_UNORD_Q); }
static inline fc_m_f32 fc_either_nan_f32(fc_v_f32 a, fc_v_f32 b) { return _mm256_cmp_ps(a, b, _CMP_UNORD_Q); }
static inline fc_m_f32 fc_or_mask_f32(fc_m_f32 a, fc_m_f32 b) { return _mm256_or_ps(a, b); }
#define FC_FLOAT_BOUNDS_CHECKED 1
/* two float64 vectors -> one vector of float32's lane count, rounded to
 * nearest even */
static inline fc_v_f32 fc_nearest_f32_f64x2(fc_v_f64 a, fc_v_f64 b)
{
    return _mm256_set_m128(_mm256_cvtpd_ps(b), _mm256_cvtpd_ps(a));
}
/* The same rounded to odd (toward zero, the last bit set where inexact: see
 * csrc/convert.h, fc_double_to_float_odd). AVX2 has no rounding override:
 * rounded to nearest (f), and where that was inexact, stepped back toward
 * zero if it had been rounded away from it, then the last bit set. Both
 * come from the residual r = v - f (exact: Sterbenz), read from the high
 * half of its bits: its sign against f's gives the direction, and the half
 * is nonzero where r is (r is at least 2**-202 wherever f is not 0; where f
 * is 0, r below that leaves it 0, as every narrower format rounds it). 15
 * instructions for 8 lanes, 4 of them conversions (6 when r was converted
 * to float32 to be read). A NaN comes out a NaN. */
static inline fc_v_f32 fc_odd_f32_f64x2(fc_v_f64 a, fc_v_f64 b)
{
    __m128 fa = _mm256_cvtpd_ps(a), fb = _mm256_cvtpd_ps(b);
    __m256d ra = _mm256_sub_pd(a, _mm256_cvtps_pd(fa));
    __m256d rb = _mm256_sub_pd(b, _mm256_cvtps_pd(fb));
    /* shufps takes the high halves within 128-bit lanes (a0 a1 b0 b1 | a2 a3
     * b2 b3), vpermpd puts them in f's order */
    __m256 r_high = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(
        _mm256_castpd_ps(ra), _mm256_castpd_ps(rb), 0xdd)), 0xd8));
    __m256i u = _mm256_castps_si256(_mm256_set_m128(fb, fa));
    __m256i inexact = _mm256_castps_si256(_mm256_cmp_ps(r_high, _mm256_setzero_ps(), _CMP_NEQ_UQ));
    __m256i toward_zero = _mm256_srai_epi32(_mm256_xor_si256(_mm256_castps_si256(r_high), u), 31);
    u = _mm256_add_epi32(u, _mm256_and_si256(inexact, toward_zero));
    return _mm256_castsi256_ps(_mm256_or_si256(u, _mm256_and_si256(inexact, _mm256_set1_epi32(1))));
}
/* Rounded to odd where the float is normal (|v| >= 2**-126; below, rounded
 * to nearest, which float16 and the float8s, whose smallest steps are far
 * above, round to 0 either way): the 29 bits a float32 drops are cleared,
 * and where any was set the float's last bit is set instead (the sticky
 * bit), so the conversion is exact. 13 instructions for 8 lanes, 2 of them
 * conversions. A NaN comes out a NaN (its dropped bits, if they were all
 * its payload, come back as the sticky bit). */
static inline fc_v_f32 fc_odd_normal_f32_f64x2(fc_v_f64 a, fc_v_f64 b)
{
    const __m256i dropped = _mm256_set1_epi64x(0x1fffffff), last = _mm256_set1_epi64x(0x20000000);
    __m256i ia = _mm256_castpd_si256(a), ib = _mm256_castpd_si256(b);
    /* bit 29 of (dropped bits) + 0x1fffffff: whether any was set */
    __m256i sticky_a = _mm256_and_si256(_mm256_add_epi64(_mm256_and_si256(ia, dropped), dropped), last);
    __m256i sticky_b = _mm256_and_si256(_mm256_add_epi64(_mm256_and_si256(ib, dropped), dropped), last);
    ia = _mm256_or_si256(_mm256_andnot_si256(dropped, ia), sticky_a);
    ib = _mm256_or_si256(_mm256_andnot_si256(dropped, ib), sticky_b);
    return _mm256_set_m128(_mm256_cvtpd_ps(_mm256_castsi256_pd(ib)),
                           _mm256_cvtpd_ps(_mm256_castsi256_pd(ia)));
}
/* Whether fc_odd_normal_f32_f64x2 rounded any lane twice, read from the
 * underflow flag: its conversion is exact wherever the float is normal or 0,
 * and a float it makes subnormal (or rounds up to the smallest normal:
 * SSE detects tininess before rounding) from a sticky double, which holds a
 * bit below the subnormals' last, is inexact, and raises the flag. The
 * vector loop of float64 -> bfloat16 (csrc/convert_vector.h) runs with it,
 * 2 conversions for 8 lanes where fc_odd_f32_f64x2 takes 4 and its
 * lane-crossing shuffle, and again with that where the flag went up.
 * MXCSR read and written directly: fenv's feclearexcept goes through the
 * x87 environment too (fnstenv/fldenv), which csrc/fpstatus.h avoids for the
 * same reason, and only the SSE flag says anything here. */
#define FC_ODD_F32_CHECKED_BY_UNDERFLOW 1
static inline void fc_underflow_clear(void) { _mm_setcsr(_mm_getcsr() & ~_MM_EXCEPT_UNDERFLOW); }
static inline int fc_underflow_raised(void) { return (_mm_getcsr() & _MM_EXCEPT_UNDERFLOW) != 0; }
/* float32 lanes -> float16 (F16C), to nearest even, stored at o */
#define FC_SIMD_STORE_HALF 1
static inline void fc_store_half_f32(uint16_t *o, fc_v_f32 v)
{
    _mm_storeu_si128((__m128i *)o,
                     _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}
/* the lanes of a or b whose magnitude is not at most limit (a NaN's too) */
static inline fc_m_f64 fc_beyond_f64x2(fc_v_f64 a, fc_v_f64 b, double limit)
{
    const __m256d sign = _mm256_set1_pd(-0.0), top = _mm256_set1_pd(limit);
    return _mm256_or_pd(_mm256_cmp_pd(_mm256_andnot_pd(sign, a), top, _CMP_NLE_UQ),
                        _mm256_cmp_pd(_mm256_andnot_pd(sign, b), top, _CMP_NLE_UQ));
}
/* int64: no vpminsq/vpmaxsq before AVX-512; its groups are clipped as
 * their 32-bit halves where the bounds fit (csrc/convert_vector.h,
 * fc_group_s64_int), else by compare and blend (fc_max_s64, below) */
/* 8 int64 as two vectors, p0 p1 p4 p5 and p2 p3 p6 p7 (128-bit halves),
 * so that one shufps a half (fc_halves_s64x2) puts each half's 32-bit
 * lanes in order, where whole loads needed a vpermq after each */
static inline void fc_load_s64x2(const int64_t *p, fc_v_s64 *a, fc_v_s64 *b)
{
    *a = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)p)),
                                 _mm_loadu_si128((const __m128i *)(p + 4)), 1);
    *b = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(p + 2))),
                                 _mm_loadu_si128((const __m128i *)(p + 6)), 1);
}
/* the low and the high 32 bits of each lane of fc_load_s64x2's pair, in
 * order (shufps works within 128-bit halves) */
static inline void fc_halves_s64x2(fc_v_s64 a, fc_v_s64 b, fc_v_u32 *low, fc_v_u32 *high)
{
    __m256 fa = _mm256_castsi256_ps(a), fb = _mm256_castsi256_ps(b);
    *low = _mm256_castps_si256(_mm256_shuffle_ps(fa, fb, 0x88));
    *high = _mm256_castps_si256(_mm256_shuffle_ps(fa, fb, 0xdd));
}
/* int64 max and min by compare and blend: the groups with a bound beyond
 * 32 bits (csrc/convert_vector.h, FC_GROUP_S64_LOW) */
static inline fc_v_s64 fc_set1_s64(int64_t v) { return _mm256_set1_epi64x(v); }
static inline fc_v_s64 fc_max_s64(fc_v_s64 a, fc_v_s64 b)
{
    return _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(b, a));
}
static inline fc_v_s64 fc_min_s64(fc_v_s64 a, fc_v_s64 b)
{
    return _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(a, b));
}
static inline fc_m_u32 fc_eq_u32(fc_v_u32 a, fc_v_u32 b) { return _mm256_cmpeq_epi32(a, b); }
#define fc_srai_u32(v, k) _mm256_srai_epi32((v), (k))
static inline fc_v_u32 fc_max_s32(fc_v_u32 a, fc_v_u32 b) { return _mm256_max_epi32(a, b); }
static inline fc_v_u32 fc_min_s32(fc_v_u32 a, fc_v_u32 b) { return _mm256_min_epi32(a, b); }
/* a where the lane's sign bit is set, else b: one blend on the sign */
static inline fc_v_u32 fc_select_negative_u32(fc_v_u32 sign, fc_v_u32 a, fc_v_u32 b)
{
    return _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(b), _mm256_castsi256_ps(a),
                                                _mm256_castsi256_ps(sign)));
}
/* 32-bit lanes narrowed and in order, each saturated to the destination's
 * range (csrc/convert_vector.h's truncating loops count on that): four
 * vectors into bytes (unsigned or signed values), two into 16 bits */
/* the packs work within 128-bit halves: a0 b0 c0 d0 | a1 b1 c1 d1 by
 * dwords, and one vpermd puts them in order. A loop that packs two sets of
 * lanes and merges them bytewise (the float8 codes and their signs) packs
 * both unordered and orders once (fc_pack4_order). */
static inline fc_v_u8 fc_pack4_order(__m256i v)
{
    return _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}
/* signed saturating packs, in the packs' lane order */
#define fc_packs_s32_s16_unordered(a, b) _mm256_packs_epi32((a), (b))
#define fc_packs_s16_s8_unordered(a, b) _mm256_packs_epi16((a), (b))
#define fc_srai_u16(v, k) _mm256_srai_epi16((v), (k))
/* each 32-bit lane's two signed 16-bit halves times w's, summed (vpmaddwd) */
static inline fc_v_u32 fc_madd_s16(fc_v_u32 a, fc_v_u32 w) { return _mm256_madd_epi16(a, w); }
static inline fc_v_u8 fc_pack4_u32_u8(fc_v_u32 a, fc_v_u32 b, fc_v_u32 c, fc_v_u32 d)
{
    return fc_pack4_order(_mm256_packus_epi16(_mm256_packs_epi32(a, b), _mm256_packs_epi32(c, d)));
}
static inline fc_v_u8 fc_pack4_s32_s8(fc_v_u32 a, fc_v_u32 b, fc_v_u32 c, fc_v_u32 d)
{
    return fc_pack4_order(_mm256_packs_epi16(_mm256_packs_epi32(a, b), _mm256_packs_epi32(c, d)));
}
static inline fc_v_u16 fc_pack2_u32_u16(fc_v_u32 a, fc_v_u32 b)
{
    return _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xd8);
}
static inline fc_v_u16 fc_pack2_s32_s16(fc_v_u32 a, fc_v_u32 b)
{
    return _mm256_permute4x64_epi64(_mm256_packs_epi32(a, b), 0xd8);
}

#endif  /* FASTCLIP_SIMD_AVX2_CONVERT_H */
