/* The vector layer for x86-64-v2 (SSE4.2, with SSSE3 and SSE4.1 under it):
 * 128-bit vectors; a mask is a vector of lanes all ones or all zeros, as on
 * NEON (csrc/simd/neon.h, which this follows op for op). SSE has no partial
 * loads or stores: the first n lanes go through a vector-sized buffer.
 * maxps/minps are C's ?: (the second operand on a NaN or a tie), so the
 * float selects are one instruction; blendv picks by a mask's top bits. */
#ifndef FASTCLIP_SIMD_SSE42_H
#define FASTCLIP_SIMD_SSE42_H

#include <nmmintrin.h>
#include <stdint.h>
#include <string.h>

#define FC_SIMD 16
#define FC_SIMD_NAME "sse42"

/* ---- float32, float64 ---- */
typedef __m128 fc_v_f32;
typedef __m128 fc_m_f32;
typedef __m128d fc_v_f64;
typedef __m128d fc_m_f64;
#define FC_LANES_f32 4
#define FC_LANES_f64 2

static inline fc_v_f32 fc_load_f32(const float *p) { return _mm_loadu_ps(p); }
static inline void fc_store_f32(float *p, fc_v_f32 v) { _mm_storeu_ps(p, v); }
static inline fc_v_f32 fc_set1_f32(float x) { return _mm_set1_ps(x); }
static inline fc_v_f32 fc_load_n_f32(const float *p, int n)
{
    float buf[4] = {0};
    memcpy(buf, p, (size_t)n * sizeof(float));
    return _mm_loadu_ps(buf);
}
static inline void fc_store_n_f32(float *p, int n, fc_v_f32 v)
{
    float buf[4];
    _mm_storeu_ps(buf, v);
    memcpy(p, buf, (size_t)n * sizeof(float));
}
/* maxps/minps: as in avx2.h, a NaN operand raises the invalid flag */
#define FC_GTSEL_FLAGS_NAN 1
static inline fc_v_f32 fc_gtsel_f32(fc_v_f32 a, fc_v_f32 b) { return _mm_max_ps(a, b); }
static inline fc_v_f32 fc_ltsel_f32(fc_v_f32 a, fc_v_f32 b) { return _mm_min_ps(a, b); }
static inline fc_m_f32 fc_isnan_f32(fc_v_f32 v) { return _mm_cmpunord_ps(v, v); }
static inline fc_v_f32 fc_select_f32(fc_m_f32 m, fc_v_f32 a, fc_v_f32 b) { return _mm_blendv_ps(b, a, m); }

static inline fc_v_f64 fc_load_f64(const double *p) { return _mm_loadu_pd(p); }
static inline void fc_store_f64(double *p, fc_v_f64 v) { _mm_storeu_pd(p, v); }
static inline fc_v_f64 fc_set1_f64(double x) { return _mm_set1_pd(x); }
static inline fc_v_f64 fc_load_n_f64(const double *p, int n)
{
    double buf[2] = {0};
    memcpy(buf, p, (size_t)n * sizeof(double));
    return _mm_loadu_pd(buf);
}
static inline void fc_store_n_f64(double *p, int n, fc_v_f64 v)
{
    double buf[2];
    _mm_storeu_pd(buf, v);
    memcpy(p, buf, (size_t)n * sizeof(double));
}
static inline fc_v_f64 fc_gtsel_f64(fc_v_f64 a, fc_v_f64 b) { return _mm_max_pd(a, b); }
static inline fc_v_f64 fc_ltsel_f64(fc_v_f64 a, fc_v_f64 b) { return _mm_min_pd(a, b); }
static inline fc_m_f64 fc_isnan_f64(fc_v_f64 v) { return _mm_cmpunord_pd(v, v); }
static inline fc_v_f64 fc_select_f64(fc_m_f64 m, fc_v_f64 a, fc_v_f64 b) { return _mm_blendv_pd(b, a, m); }

/* ---- 8- and 16-bit integers ---- */
typedef __m128i fc_v_u8;
typedef __m128i fc_m_u8;
typedef __m128i fc_v_u16;
typedef __m128i fc_m_u16;
#define FC_LANES_u8 16
#define FC_LANES_u16 8

static inline fc_v_u8 fc_load_u8(const uint8_t *p) { return _mm_loadu_si128((const __m128i *)p); }
static inline void fc_store_u8(uint8_t *p, fc_v_u8 v) { _mm_storeu_si128((__m128i *)p, v); }
static inline fc_v_u8 fc_set1_u8(uint8_t x) { return _mm_set1_epi8((char)x); }
static inline fc_v_u8 fc_xor_u8(fc_v_u8 a, fc_v_u8 b) { return _mm_xor_si128(a, b); }
static inline fc_v_u8 fc_or_u8(fc_v_u8 a, fc_v_u8 b) { return _mm_or_si128(a, b); }
static inline fc_v_u8 fc_and_u8(fc_v_u8 a, fc_v_u8 b) { return _mm_and_si128(a, b); }
static inline fc_v_u8 fc_sub_u8(fc_v_u8 a, fc_v_u8 b) { return _mm_sub_epi8(a, b); }
static inline fc_v_u8 fc_add_u8(fc_v_u8 a, fc_v_u8 b) { return _mm_add_epi8(a, b); }
static inline fc_v_u8 fc_min_s8(fc_v_u8 a, fc_v_u8 b) { return _mm_min_epi8(a, b); }
static inline fc_v_u8 fc_min_u8(fc_v_u8 a, fc_v_u8 b) { return _mm_min_epu8(a, b); }
static inline fc_v_u8 fc_max_s8(fc_v_u8 a, fc_v_u8 b) { return _mm_max_epi8(a, b); }
static inline fc_v_u8 fc_max_u8(fc_v_u8 a, fc_v_u8 b) { return _mm_max_epu8(a, b); }
static inline fc_v_u8 fc_signfill_u8(fc_v_u8 a) { return _mm_cmpgt_epi8(_mm_setzero_si128(), a); }
static inline fc_m_u8 fc_gt_s8(fc_v_u8 a, fc_v_u8 b) { return _mm_cmpgt_epi8(a, b); }
/* unsigned a >= b: max(a, b) == a */
static inline fc_m_u8 fc_geu_u8(fc_v_u8 a, fc_v_u8 b) { return _mm_cmpeq_epi8(_mm_max_epu8(a, b), a); }
static inline fc_v_u8 fc_select_u8(fc_m_u8 m, fc_v_u8 a, fc_v_u8 b) { return _mm_blendv_epi8(b, a, m); }

/* a vector of where= mask bytes (nonzero: set): every lane set, none set */
static inline int fc_all_set_u8(fc_v_u8 m)
{
    return _mm_movemask_epi8(_mm_cmpeq_epi8(m, _mm_setzero_si128())) == 0;
}
static inline int fc_none_set_u8(fc_v_u8 m) { return _mm_testz_si128(m, m); }

static inline fc_v_u16 fc_load_u16(const uint16_t *p) { return _mm_loadu_si128((const __m128i *)p); }
static inline void fc_store_u16(uint16_t *p, fc_v_u16 v) { _mm_storeu_si128((__m128i *)p, v); }
static inline fc_v_u16 fc_set1_u16(uint16_t x) { return _mm_set1_epi16((short)x); }
static inline fc_v_u16 fc_xor_u16(fc_v_u16 a, fc_v_u16 b) { return _mm_xor_si128(a, b); }
static inline fc_v_u16 fc_or_u16(fc_v_u16 a, fc_v_u16 b) { return _mm_or_si128(a, b); }
static inline fc_v_u16 fc_and_u16(fc_v_u16 a, fc_v_u16 b) { return _mm_and_si128(a, b); }
static inline fc_v_u16 fc_sub_u16(fc_v_u16 a, fc_v_u16 b) { return _mm_sub_epi16(a, b); }
static inline fc_v_u16 fc_add_u16(fc_v_u16 a, fc_v_u16 b) { return _mm_add_epi16(a, b); }
static inline fc_v_u16 fc_min_s16(fc_v_u16 a, fc_v_u16 b) { return _mm_min_epi16(a, b); }
static inline fc_v_u16 fc_min_u16(fc_v_u16 a, fc_v_u16 b) { return _mm_min_epu16(a, b); }
static inline fc_v_u16 fc_max_s16(fc_v_u16 a, fc_v_u16 b) { return _mm_max_epi16(a, b); }
static inline fc_v_u16 fc_max_u16(fc_v_u16 a, fc_v_u16 b) { return _mm_max_epu16(a, b); }
static inline fc_v_u16 fc_signfill_u16(fc_v_u16 a) { return _mm_srai_epi16(a, 15); }
static inline fc_m_u16 fc_gt_s16(fc_v_u16 a, fc_v_u16 b) { return _mm_cmpgt_epi16(a, b); }
static inline fc_m_u16 fc_geu_u16(fc_v_u16 a, fc_v_u16 b) { return _mm_cmpeq_epi16(_mm_max_epu16(a, b), a); }
/* a mask's lanes are whole (all ones or zeros): a byte blend selects them */
static inline fc_v_u16 fc_select_u16(fc_m_u16 m, fc_v_u16 a, fc_v_u16 b) { return _mm_blendv_epi8(b, a, m); }

/* mask logic, for 8- and 16-bit lanes: a | b, a & b, a & ~b */
static inline fc_m_u8 fc_mor_u8(fc_m_u8 a, fc_m_u8 b) { return _mm_or_si128(a, b); }
static inline fc_m_u8 fc_mand_u8(fc_m_u8 a, fc_m_u8 b) { return _mm_and_si128(a, b); }
static inline fc_m_u8 fc_mandnot_u8(fc_m_u8 a, fc_m_u8 b) { return _mm_andnot_si128(b, a); }
static inline fc_m_u16 fc_mor_u16(fc_m_u16 a, fc_m_u16 b) { return _mm_or_si128(a, b); }
static inline fc_m_u16 fc_mand_u16(fc_m_u16 a, fc_m_u16 b) { return _mm_and_si128(a, b); }
static inline fc_m_u16 fc_mandnot_u16(fc_m_u16 a, fc_m_u16 b) { return _mm_andnot_si128(b, a); }

/* ---- what the fused conversions need (csrc/convert_vector.h), as in
 * avx2.h at half the width. The packs work on the whole vector here, so
 * their lanes come out in order (fc_pack4_order is nothing). No F16C:
 * float64 -> float16 keeps its own loop (csrc/convert.h, FC_SIMD_STORE_HALF).
 * ---- */
#define FC_SIMD_CONVERSIONS 1
#define FC_SIMD_CONVERT_INT64 1
#define FC_SIMD_CONVERT_DOUBLE_FLOAT 1
#define FC_SIMD_CONVERT_SMALL_INTS 1
typedef __m128i fc_v_u32;
typedef __m128i fc_m_u32;
typedef __m128i fc_v_s64;
#define FC_LANES_s64 2

static inline int fc_any_mask_f32(fc_m_f32 m) { return _mm_movemask_ps(m) != 0; }
static inline fc_m_f64 fc_or_mask_f64(fc_m_f64 a, fc_m_f64 b) { return _mm_or_pd(a, b); }
static inline int fc_any_mask_f64(fc_m_f64 m) { return _mm_movemask_pd(m) != 0; }
static inline fc_v_f32 fc_add_f32(fc_v_f32 a, fc_v_f32 b) { return _mm_add_ps(a, b); }
/* toward zero, as C's cast; a NaN becomes INT32_MIN (cvttps2dq's "integer
 * indefinite", as in avx2.h) */
static inline fc_v_u32 fc_trunc_s32_f32(fc_v_f32 v) { return _mm_cvttps_epi32(v); }
static inline void fc_store_u32(uint32_t *p, fc_v_u32 v) { _mm_storeu_si128((__m128i *)p, v); }
/* four 8- or 16-bit elements, loaded and widened into 32-bit lanes */
static inline __m128i fc_load_4_bytes(const void *p)
{
    int32_t v;
    memcpy(&v, p, 4);
    return _mm_cvtsi32_si128(v);
}
static inline fc_v_u32 fc_load_s32_u8(const uint8_t *p) { return _mm_cvtepu8_epi32(fc_load_4_bytes(p)); }
static inline fc_v_u32 fc_load_s32_s8(const int8_t *p) { return _mm_cvtepi8_epi32(fc_load_4_bytes(p)); }
static inline fc_v_u32 fc_load_s32_u16(const uint16_t *p)
{
    return _mm_cvtepu16_epi32(_mm_loadl_epi64((const __m128i *)p));
}
static inline fc_v_u32 fc_load_s32_s16(const int16_t *p)
{
    return _mm_cvtepi16_epi32(_mm_loadl_epi64((const __m128i *)p));
}
static inline fc_v_f32 fc_cvt_f32_s32(fc_v_u32 v) { return _mm_cvtepi32_ps(v); }
/* int32 lanes as float64 (exact), stored at o */
static inline void fc_store_f64_s32(double *o, fc_v_u32 v)
{
    _mm_storeu_pd(o, _mm_cvtepi32_pd(v));
    _mm_storeu_pd(o + 2, _mm_cvtepi32_pd(_mm_unpackhi_epi64(v, v)));
}
static inline fc_v_u32 fc_as_u32_f32(fc_v_f32 v) { return _mm_castps_si128(v); }
static inline fc_v_f32 fc_as_f32_u32(fc_v_u32 v) { return _mm_castsi128_ps(v); }
static inline fc_v_u32 fc_set1_u32(uint32_t x) { return _mm_set1_epi32((int)x); }
static inline fc_v_u32 fc_and_u32(fc_v_u32 a, fc_v_u32 b) { return _mm_and_si128(a, b); }
/* ~a & b */
static inline fc_v_u32 fc_andnot_u32(fc_v_u32 a, fc_v_u32 b) { return _mm_andnot_si128(a, b); }
static inline fc_v_u32 fc_or_u32(fc_v_u32 a, fc_v_u32 b) { return _mm_or_si128(a, b); }
static inline fc_v_u32 fc_add_u32(fc_v_u32 a, fc_v_u32 b) { return _mm_add_epi32(a, b); }
static inline fc_v_u32 fc_sub_u32(fc_v_u32 a, fc_v_u32 b) { return _mm_sub_epi32(a, b); }
static inline fc_v_u32 fc_max_u32(fc_v_u32 a, fc_v_u32 b) { return _mm_max_epu32(a, b); }
static inline int fc_any_eq_u32(fc_v_u32 a, uint32_t x)
{
    return _mm_movemask_epi8(_mm_cmpeq_epi32(a, _mm_set1_epi32((int)x))) != 0;
}
#define fc_srli_u32(v, k) _mm_srli_epi32((v), (k))
static inline fc_v_u32 fc_select_u32(fc_m_u32 m, fc_v_u32 a, fc_v_u32 b) { return _mm_blendv_epi8(b, a, m); }
/* two float64 vectors -> one vector of float32's lane count (a NaN: as
 * fc_trunc_s32_f32); cvttpd2dq leaves its two lanes in the low half */
static inline fc_v_u32 fc_trunc_s32_f64x2(fc_v_f64 a, fc_v_f64 b)
{
    return _mm_unpacklo_epi64(_mm_cvttpd_epi32(a), _mm_cvttpd_epi32(b));
}
/* two float64 vectors -> one vector of float32's lane count, rounded to
 * nearest even */
static inline fc_v_f32 fc_nearest_f32_f64x2(fc_v_f64 a, fc_v_f64 b)
{
    return _mm_movelh_ps(_mm_cvtpd_ps(a), _mm_cvtpd_ps(b));
}
static inline void fc_store_f32_f64x2(float *o, fc_v_f64 a, fc_v_f64 b)
{
    _mm_storeu_ps(o, fc_nearest_f32_f64x2(a, b));
}
/* lanes where a or b is a NaN: one compare for two vectors */
static inline fc_m_f64 fc_either_nan_f64(fc_v_f64 a, fc_v_f64 b) { return _mm_cmpunord_pd(a, b); }
/* the lanes of a or b whose magnitude is not at most limit (a NaN's too) */
static inline fc_m_f64 fc_beyond_f64x2(fc_v_f64 a, fc_v_f64 b, double limit)
{
    const __m128d sign = _mm_set1_pd(-0.0), top = _mm_set1_pd(limit);
    return _mm_or_pd(_mm_cmpnle_pd(_mm_andnot_pd(sign, a), top),
                     _mm_cmpnle_pd(_mm_andnot_pd(sign, b), top));
}
static inline fc_m_f32 fc_either_nan_f32(fc_v_f32 a, fc_v_f32 b) { return _mm_cmpunord_ps(a, b); }
static inline fc_m_f32 fc_or_mask_f32(fc_m_f32 a, fc_m_f32 b) { return _mm_or_ps(a, b); }
#define FC_FLOAT_BOUNDS_CHECKED 1
/* rounded to odd, as avx2.h does it (its comment has the why): rounded to
 * nearest, and where the residual r = v - f is nonzero, stepped back toward
 * zero if f was rounded away from it, then the last bit set. The high
 * halves of r's lanes are its odd 32-bit elements, in order after one
 * shufps. */
static inline fc_v_f32 fc_odd_f32_f64x2(fc_v_f64 a, fc_v_f64 b)
{
    __m128 fa = _mm_cvtpd_ps(a), fb = _mm_cvtpd_ps(b);
    __m128d ra = _mm_sub_pd(a, _mm_cvtps_pd(fa)), rb = _mm_sub_pd(b, _mm_cvtps_pd(fb));
    __m128 r_high = _mm_shuffle_ps(_mm_castpd_ps(ra), _mm_castpd_ps(rb), _MM_SHUFFLE(3, 1, 3, 1));
    __m128i u = _mm_castps_si128(_mm_movelh_ps(fa, fb));
    __m128i inexact = _mm_castps_si128(_mm_cmpneq_ps(r_high, _mm_setzero_ps()));
    __m128i toward_zero = _mm_srai_epi32(_mm_xor_si128(_mm_castps_si128(r_high), u), 31);
    u = _mm_add_epi32(u, _mm_and_si128(inexact, toward_zero));
    return _mm_castsi128_ps(_mm_or_si128(u, _mm_and_si128(inexact, _mm_set1_epi32(1))));
}
/* rounded to odd where the float is normal, by the sticky bit (avx2.h's
 * fc_odd_normal_f32_f64x2) */
static inline fc_v_f32 fc_odd_normal_f32_f64x2(fc_v_f64 a, fc_v_f64 b)
{
    const __m128i dropped = _mm_set1_epi64x(0x1fffffff), last = _mm_set1_epi64x(0x20000000);
    __m128i ia = _mm_castpd_si128(a), ib = _mm_castpd_si128(b);
    __m128i sticky_a = _mm_and_si128(_mm_add_epi64(_mm_and_si128(ia, dropped), dropped), last);
    __m128i sticky_b = _mm_and_si128(_mm_add_epi64(_mm_and_si128(ib, dropped), dropped), last);
    ia = _mm_or_si128(_mm_andnot_si128(dropped, ia), sticky_a);
    ib = _mm_or_si128(_mm_andnot_si128(dropped, ib), sticky_b);
    return fc_nearest_f32_f64x2(_mm_castsi128_pd(ia), _mm_castsi128_pd(ib));
}
/* the underflow flag tells where fc_odd_normal_f32_f64x2 rounded twice, as
 * in avx2.h (the same SSE conversion and MXCSR) */
#define FC_ODD_F32_CHECKED_BY_UNDERFLOW 1
static inline void fc_underflow_clear(void) { _mm_setcsr(_mm_getcsr() & ~_MM_EXCEPT_UNDERFLOW); }
static inline int fc_underflow_raised(void) { return (_mm_getcsr() & _MM_EXCEPT_UNDERFLOW) != 0; }
/* int64 (no pminsq): clipped as 32-bit halves where the bounds fit
 * (csrc/convert_vector.h, fc_group_s64_int), else by compare and blend
 * (fc_max_s64, below) */
static inline void fc_load_s64x2(const int64_t *p, fc_v_s64 *a, fc_v_s64 *b)
{
    *a = _mm_loadu_si128((const __m128i *)p);
    *b = _mm_loadu_si128((const __m128i *)(p + 2));
}
/* the low and the high 32 bits of each lane of two int64 vectors, in order */
static inline void fc_halves_s64x2(fc_v_s64 a, fc_v_s64 b, fc_v_u32 *low, fc_v_u32 *high)
{
    __m128 fa = _mm_castsi128_ps(a), fb = _mm_castsi128_ps(b);
    *low = _mm_castps_si128(_mm_shuffle_ps(fa, fb, _MM_SHUFFLE(2, 0, 2, 0)));
    *high = _mm_castps_si128(_mm_shuffle_ps(fa, fb, _MM_SHUFFLE(3, 1, 3, 1)));
}
/* int64 max and min by compare and blend (pcmpgtq is SSE4.2's) */
static inline fc_v_s64 fc_set1_s64(int64_t v) { return _mm_set1_epi64x(v); }
static inline fc_v_s64 fc_max_s64(fc_v_s64 a, fc_v_s64 b) { return _mm_blendv_epi8(a, b, _mm_cmpgt_epi64(b, a)); }
static inline fc_v_s64 fc_min_s64(fc_v_s64 a, fc_v_s64 b) { return _mm_blendv_epi8(a, b, _mm_cmpgt_epi64(a, b)); }
static inline fc_m_u32 fc_eq_u32(fc_v_u32 a, fc_v_u32 b) { return _mm_cmpeq_epi32(a, b); }
#define fc_srai_u32(v, k) _mm_srai_epi32((v), (k))
static inline fc_v_u32 fc_max_s32(fc_v_u32 a, fc_v_u32 b) { return _mm_max_epi32(a, b); }
static inline fc_v_u32 fc_min_s32(fc_v_u32 a, fc_v_u32 b) { return _mm_min_epi32(a, b); }
/* a where the lane's sign bit is set, else b */
static inline fc_v_u32 fc_select_negative_u32(fc_v_u32 sign, fc_v_u32 a, fc_v_u32 b)
{
    return _mm_castps_si128(_mm_blendv_ps(_mm_castsi128_ps(b), _mm_castsi128_ps(a), _mm_castsi128_ps(sign)));
}
/* 32-bit lanes narrowed and in order, each saturated to the destination's
 * range (as in avx2.h) */
#define fc_pack4_order(v) (v)
#define fc_packs_s32_s16_unordered(a, b) _mm_packs_epi32((a), (b))
#define fc_packs_s16_s8_unordered(a, b) _mm_packs_epi16((a), (b))
#define fc_srai_u16(v, k) _mm_srai_epi16((v), (k))
static inline fc_v_u32 fc_madd_s16(fc_v_u32 a, fc_v_u32 w) { return _mm_madd_epi16(a, w); }
static inline fc_v_u8 fc_pack4_u32_u8(fc_v_u32 a, fc_v_u32 b, fc_v_u32 c, fc_v_u32 d)
{
    return _mm_packus_epi16(_mm_packs_epi32(a, b), _mm_packs_epi32(c, d));
}
static inline fc_v_u8 fc_pack4_s32_s8(fc_v_u32 a, fc_v_u32 b, fc_v_u32 c, fc_v_u32 d)
{
    return _mm_packs_epi16(_mm_packs_epi32(a, b), _mm_packs_epi32(c, d));
}
static inline fc_v_u16 fc_pack2_u32_u16(fc_v_u32 a, fc_v_u32 b) { return _mm_packus_epi32(a, b); }
static inline fc_v_u16 fc_pack2_s32_s16(fc_v_u32 a, fc_v_u32 b) { return _mm_packs_epi32(a, b); }

/* ---- strided rows (csrc/strided_rows.h): a vector of any lane width w in
 * bytes, the clip and the even lanes chosen by w and kind (0 signed int,
 * 1 unsigned int, 2 IEEE float), constants where the caller inlines ---- */
typedef __m128i fc_vi;
#define FC_VI_BYTES 16

static inline fc_vi fc_vi_load(const void *p) { return _mm_loadu_si128((const __m128i *)p); }
static inline void fc_vi_store(void *p, fc_vi v) { _mm_storeu_si128((__m128i *)p, v); }
static inline fc_vi fc_vi_set1(int w, const void *value)
{
    uint64_t v = 0;
    memcpy(&v, value, (size_t)w);
    switch (w) {
    case 1: return _mm_set1_epi8((char)v);
    case 2: return _mm_set1_epi16((short)v);
    case 4: return _mm_set1_epi32((int)v);
    default: return _mm_set1_epi64x((long long)v);
    }
}
/* 64-bit lanes, x < lo ? lo : x then t > hi ? hi : t by compare and blend
 * (SSE4.2 has the signed compare; unsigned: both sides' sign bits flipped) */
static inline fc_vi fc_sse42_clip64(fc_vi x, fc_vi lo, fc_vi hi, int is_unsigned)
{
    const __m128i flip = _mm_set1_epi64x(is_unsigned ? INT64_MIN : 0);
    __m128i fx = _mm_xor_si128(x, flip), flo = _mm_xor_si128(lo, flip), fhi = _mm_xor_si128(hi, flip);
    __m128i t = _mm_blendv_epi8(x, lo, _mm_cmpgt_epi64(flo, fx));
    __m128i ft = _mm_xor_si128(t, flip);
    return _mm_blendv_epi8(t, hi, _mm_cmpgt_epi64(ft, fhi));
}
/* the scalar-bounds clip, x < lo ? lo : x, then t > hi ? hi : t: for the
 * integers max then min; for the floats max(lo, x) (x on a NaN x: the second
 * operand), then min(hi, t) */
static inline fc_vi fc_vi_clip(int w, int kind, fc_vi x, fc_vi lo, fc_vi hi)
{
    switch (w * 4 + kind) {        /* w bytes a lane, and its FC_LANE_ kind */
    case 4: return _mm_min_epi8(_mm_max_epi8(x, lo), hi);
    case 5: return _mm_min_epu8(_mm_max_epu8(x, lo), hi);
    case 8: return _mm_min_epi16(_mm_max_epi16(x, lo), hi);
    case 9: return _mm_min_epu16(_mm_max_epu16(x, lo), hi);
    case 16: return _mm_min_epi32(_mm_max_epi32(x, lo), hi);
    case 17: return _mm_min_epu32(_mm_max_epu32(x, lo), hi);
    case 18: {
        __m128 t = _mm_max_ps(_mm_castsi128_ps(lo), _mm_castsi128_ps(x));
        return _mm_castps_si128(_mm_min_ps(_mm_castsi128_ps(hi), t));
    }
    case 32: return fc_sse42_clip64(x, lo, hi, 0);
    case 33: return fc_sse42_clip64(x, lo, hi, 1);
    default: {
        __m128d t = _mm_max_pd(_mm_castsi128_pd(lo), _mm_castsi128_pd(x));
        return _mm_castpd_si128(_mm_min_pd(_mm_castsi128_pd(hi), t));
    }
    }
}
/* the even lanes of a, then the even lanes of b (odd_b: its odd lanes) */
static inline fc_vi fc_vi_even(int w, fc_vi a, fc_vi b, int odd_b)
{
    switch (w) {
    case 1:
    case 2: {
        /* pshufb gathers each vector's even (odd) lanes into its low half */
        const __m128i even = w == 1 ? _mm_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, -1, -1, -1, -1, -1, -1, -1, -1)
                                    : _mm_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1);
        const __m128i odd = w == 1 ? _mm_setr_epi8(1, 3, 5, 7, 9, 11, 13, 15, -1, -1, -1, -1, -1, -1, -1, -1)
                                   : _mm_setr_epi8(2, 3, 6, 7, 10, 11, 14, 15, -1, -1, -1, -1, -1, -1, -1, -1);
        return _mm_unpacklo_epi64(_mm_shuffle_epi8(a, even), _mm_shuffle_epi8(b, odd_b ? odd : even));
    }
    case 4: {
        __m128 aa = _mm_castsi128_ps(a), bb = _mm_castsi128_ps(b);
        return _mm_castps_si128(odd_b ? _mm_shuffle_ps(aa, bb, _MM_SHUFFLE(3, 1, 2, 0))
                                      : _mm_shuffle_ps(aa, bb, _MM_SHUFFLE(2, 0, 2, 0)));
    }
    default:
        /* a's low lane, then b's low (odd_b: high) lane */
        return odd_b ? _mm_blend_epi16(a, b, 0xF0) : _mm_unpacklo_epi64(a, b);
    }
}

#endif
