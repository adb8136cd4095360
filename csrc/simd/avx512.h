/* The vector layer for AVX-512 F/BW/VL/DQ: 512-bit vectors, masks in mask
 * registers (one bit a lane), so a partial load or store and a select are one
 * instruction each. */
#ifndef FASTCLIP_SIMD_AVX512_H
#define FASTCLIP_SIMD_AVX512_H

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#define FC_SIMD 64
#define FC_SIMD_NAME "avx512"

/* ---- float32, float64 ---- */
typedef __m512 fc_v_f32;
typedef __mmask16 fc_m_f32;
typedef __m512d fc_v_f64;
typedef __mmask8 fc_m_f64;
#define FC_LANES_f32 16
#define FC_LANES_f64 8

static inline fc_v_f32 fc_load_f32(const float *p) { return _mm512_loadu_ps(p); }
static inline void fc_store_f32(float *p, fc_v_f32 v) { _mm512_storeu_ps(p, v); }
static inline fc_v_f32 fc_set1_f32(float x) { return _mm512_set1_ps(x); }
static inline fc_v_f32 fc_load_n_f32(const float *p, int n)
{
    return _mm512_maskz_loadu_ps((__mmask16)((1u << n) - 1), p);
}
static inline void fc_store_n_f32(float *p, int n, fc_v_f32 v)
{
    _mm512_mask_storeu_ps(p, (__mmask16)((1u << n) - 1), v);
}
/* vmaxps(a, b) is a > b ? a : b and vminps(a, b) a < b ? a : b: the second
 * operand on a NaN or a tie (Intel SDM, MAXPS/MINPS); a NaN operand raises
 * the invalid flag, as in avx2.h */
#define FC_GTSEL_FLAGS_NAN 1
static inline fc_v_f32 fc_gtsel_f32(fc_v_f32 a, fc_v_f32 b) { return _mm512_max_ps(a, b); }
static inline fc_v_f32 fc_ltsel_f32(fc_v_f32 a, fc_v_f32 b) { return _mm512_min_ps(a, b); }
static inline fc_m_f32 fc_isnan_f32(fc_v_f32 v) { return _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q); }
static inline fc_v_f32 fc_select_f32(fc_m_f32 m, fc_v_f32 a, fc_v_f32 b)
{
    return _mm512_mask_blend_ps(m, b, a);
}

static inline fc_v_f64 fc_load_f64(const double *p) { return _mm512_loadu_pd(p); }
static inline void fc_store_f64(double *p, fc_v_f64 v) { _mm512_storeu_pd(p, v); }
static inline fc_v_f64 fc_set1_f64(double x) { return _mm512_set1_pd(x); }
static inline fc_v_f64 fc_load_n_f64(const double *p, int n)
{
    return _mm512_maskz_loadu_pd((__mmask8)((1u << n) - 1), p);
}
static inline void fc_store_n_f64(double *p, int n, fc_v_f64 v)
{
    _mm512_mask_storeu_pd(p, (__mmask8)((1u << n) - 1), v);
}
static inline fc_v_f64 fc_gtsel_f64(fc_v_f64 a, fc_v_f64 b) { return _mm512_max_pd(a, b); }
static inline fc_v_f64 fc_ltsel_f64(fc_v_f64 a, fc_v_f64 b) { return _mm512_min_pd(a, b); }
static inline fc_m_f64 fc_isnan_f64(fc_v_f64 v) { return _mm512_cmp_pd_mask(v, v, _CMP_UNORD_Q); }
static inline fc_v_f64 fc_select_f64(fc_m_f64 m, fc_v_f64 a, fc_v_f64 b)
{
    return _mm512_mask_blend_pd(m, b, a);
}

/* ---- 8- and 16-bit integers ---- */
typedef __m512i fc_v_u8;
typedef __mmask64 fc_m_u8;
typedef __m512i fc_v_u16;
typedef __mmask32 fc_m_u16;
#define FC_LANES_u8 64
#define FC_LANES_u16 32

static inline fc_v_u8 fc_load_u8(const uint8_t *p) { return _mm512_loadu_si512((const void *)p); }
static inline void fc_store_u8(uint8_t *p, fc_v_u8 v) { _mm512_storeu_si512((void *)p, v); }
static inline fc_v_u8 fc_set1_u8(uint8_t x) { return _mm512_set1_epi8((char)x); }
static inline fc_v_u8 fc_xor_u8(fc_v_u8 a, fc_v_u8 b) { return _mm512_xor_si512(a, b); }
static inline fc_v_u8 fc_or_u8(fc_v_u8 a, fc_v_u8 b) { return _mm512_or_si512(a, b); }
static inline fc_v_u8 fc_and_u8(fc_v_u8 a, fc_v_u8 b) { return _mm512_and_si512(a, b); }
static inline fc_v_u8 fc_sub_u8(fc_v_u8 a, fc_v_u8 b) { return _mm512_sub_epi8(a, b); }
static inline fc_v_u8 fc_add_u8(fc_v_u8 a, fc_v_u8 b) { return _mm512_add_epi8(a, b); }
static inline fc_v_u8 fc_min_s8(fc_v_u8 a, fc_v_u8 b) { return _mm512_min_epi8(a, b); }
static inline fc_v_u8 fc_min_u8(fc_v_u8 a, fc_v_u8 b) { return _mm512_min_epu8(a, b); }
static inline fc_v_u8 fc_max_s8(fc_v_u8 a, fc_v_u8 b) { return _mm512_max_epi8(a, b); }
static inline fc_v_u8 fc_max_u8(fc_v_u8 a, fc_v_u8 b) { return _mm512_max_epu8(a, b); }
static inline fc_v_u8 fc_signfill_u8(fc_v_u8 a) { return _mm512_movm_epi8(_mm512_movepi8_mask(a)); }
static inline fc_m_u8 fc_gt_s8(fc_v_u8 a, fc_v_u8 b) { return _mm512_cmpgt_epi8_mask(a, b); }
static inline fc_m_u8 fc_geu_u8(fc_v_u8 a, fc_v_u8 b) { return _mm512_cmpge_epu8_mask(a, b); }
static inline fc_v_u8 fc_select_u8(fc_m_u8 m, fc_v_u8 a, fc_v_u8 b)
{
    return _mm512_mask_blend_epi8(m, b, a);
}

/* a vector of where= mask bytes (nonzero: set): every lane set, none set */
static inline int fc_all_set_u8(fc_v_u8 m) { return _mm512_test_epi8_mask(m, m) == ~(__mmask64)0; }
static inline int fc_none_set_u8(fc_v_u8 m) { return _mm512_test_epi8_mask(m, m) == 0; }

static inline fc_v_u16 fc_load_u16(const uint16_t *p) { return _mm512_loadu_si512((const void *)p); }
static inline void fc_store_u16(uint16_t *p, fc_v_u16 v) { _mm512_storeu_si512((void *)p, v); }
static inline fc_v_u16 fc_set1_u16(uint16_t x) { return _mm512_set1_epi16((short)x); }
static inline fc_v_u16 fc_xor_u16(fc_v_u16 a, fc_v_u16 b) { return _mm512_xor_si512(a, b); }
static inline fc_v_u16 fc_or_u16(fc_v_u16 a, fc_v_u16 b) { return _mm512_or_si512(a, b); }
static inline fc_v_u16 fc_and_u16(fc_v_u16 a, fc_v_u16 b) { return _mm512_and_si512(a, b); }
static inline fc_v_u16 fc_sub_u16(fc_v_u16 a, fc_v_u16 b) { return _mm512_sub_epi16(a, b); }
static inline fc_v_u16 fc_add_u16(fc_v_u16 a, fc_v_u16 b) { return _mm512_add_epi16(a, b); }
static inline fc_v_u16 fc_min_s16(fc_v_u16 a, fc_v_u16 b) { return _mm512_min_epi16(a, b); }
static inline fc_v_u16 fc_min_u16(fc_v_u16 a, fc_v_u16 b) { return _mm512_min_epu16(a, b); }
static inline fc_v_u16 fc_max_s16(fc_v_u16 a, fc_v_u16 b) { return _mm512_max_epi16(a, b); }
static inline fc_v_u16 fc_max_u16(fc_v_u16 a, fc_v_u16 b) { return _mm512_max_epu16(a, b); }
static inline fc_v_u16 fc_signfill_u16(fc_v_u16 a) { return _mm512_srai_epi16(a, 15); }
static inline fc_m_u16 fc_gt_s16(fc_v_u16 a, fc_v_u16 b) { return _mm512_cmpgt_epi16_mask(a, b); }
static inline fc_m_u16 fc_geu_u16(fc_v_u16 a, fc_v_u16 b) { return _mm512_cmpge_epu16_mask(a, b); }
static inline fc_v_u16 fc_select_u16(fc_m_u16 m, fc_v_u16 a, fc_v_u16 b)
{
    return _mm512_mask_blend_epi16(m, b, a);
}

/* mask logic, for 8- and 16-bit lanes: a | b, a & b, a & ~b */
static inline fc_m_u8 fc_mor_u8(fc_m_u8 a, fc_m_u8 b) { return a | b; }
static inline fc_m_u8 fc_mand_u8(fc_m_u8 a, fc_m_u8 b) { return a & b; }
static inline fc_m_u8 fc_mandnot_u8(fc_m_u8 a, fc_m_u8 b) { return a & (fc_m_u8)~b; }
static inline fc_m_u16 fc_mor_u16(fc_m_u16 a, fc_m_u16 b) { return a | b; }
static inline fc_m_u16 fc_mand_u16(fc_m_u16 a, fc_m_u16 b) { return a & b; }
static inline fc_m_u16 fc_mandnot_u16(fc_m_u16 a, fc_m_u16 b) { return a & (fc_m_u16)~b; }

/* ---- what the fused conversions need (csrc/convert_vector.h), as in
 * avx2.h, for float32 and float64 sources. GCC's own vectorisation of those
 * loops at 512 bits narrows with vpermt2w, vpmovwb and vinserti64x4 (float32
 * -> float8: 21 port-5 micro-ops for 64 elements, the sign packed apart),
 * where the packs below take 4. int64 sources (vpminsq, vpmovqd) and float64
 * -> float32 stay with GCC's loops: the layer's were slower there. ---- */
#define FC_SIMD_CONVERSIONS 1
#define FC_SIMD_CONVERT_INT64 0
#define FC_SIMD_CONVERT_DOUBLE_FLOAT 0
typedef __m512i fc_v_u32;

static inline int fc_any_mask_f32(fc_m_f32 m) { return m != 0; }
static inline int fc_any_mask_f64(fc_m_f64 m) { return m != 0; }
static inline fc_v_f32 fc_add_f32(fc_v_f32 a, fc_v_f32 b) { return _mm512_add_ps(a, b); }
/* toward zero, as C's cast; a NaN becomes INT32_MIN (as in avx2.h) */
static inline fc_v_u32 fc_trunc_s32_f32(fc_v_f32 v) { return _mm512_cvttps_epi32(v); }
static inline fc_v_u32 fc_as_u32_f32(fc_v_f32 v) { return _mm512_castps_si512(v); }
static inline fc_v_f32 fc_as_f32_u32(fc_v_u32 v) { return _mm512_castsi512_ps(v); }
static inline fc_v_u32 fc_set1_u32(uint32_t x) { return _mm512_set1_epi32((int)x); }
static inline fc_v_u32 fc_and_u32(fc_v_u32 a, fc_v_u32 b) { return _mm512_and_si512(a, b); }
/* ~a & b */
static inline fc_v_u32 fc_andnot_u32(fc_v_u32 a, fc_v_u32 b) { return _mm512_andnot_si512(a, b); }
static inline fc_v_u32 fc_or_u32(fc_v_u32 a, fc_v_u32 b) { return _mm512_or_si512(a, b); }
static inline fc_v_u32 fc_add_u32(fc_v_u32 a, fc_v_u32 b) { return _mm512_add_epi32(a, b); }
static inline fc_v_u32 fc_sub_u32(fc_v_u32 a, fc_v_u32 b) { return _mm512_sub_epi32(a, b); }
static inline fc_v_u32 fc_max_s32(fc_v_u32 a, fc_v_u32 b) { return _mm512_max_epi32(a, b); }
static inline fc_v_u32 fc_min_s32(fc_v_u32 a, fc_v_u32 b) { return _mm512_min_epi32(a, b); }
static inline fc_v_u32 fc_max_u32(fc_v_u32 a, fc_v_u32 b) { return _mm512_max_epu32(a, b); }
static inline int fc_any_eq_u32(fc_v_u32 a, uint32_t x)
{
    return _mm512_cmpeq_epi32_mask(a, _mm512_set1_epi32((int)x)) != 0;
}
#define fc_srli_u32(v, k) _mm512_srli_epi32((v), (k))
/* two float64 vectors -> one vector of float32's lane count */
static inline fc_v_u32 fc_trunc_s32_f64x2(fc_v_f64 a, fc_v_f64 b)
{
    return _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvttpd_epi32(a)),
                              _mm512_cvttpd_epi32(b), 1);
}
/* rounded to nearest even, as in avx2.h */
static inline fc_v_f32 fc_nearest_f32_f64x2(fc_v_f64 a, fc_v_f64 b)
{
    return _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(a)),
                              _mm512_cvtpd_ps(b), 1);
}
/* rounded to odd, as in avx2.h: here the conversion rounds toward zero by
 * itself, and the last bit is set where converting back does not give v
 * (a NaN: set, and still a NaN) */
static inline fc_v_f32 fc_odd_f32_f64x2(fc_v_f64 a, fc_v_f64 b)
{
    const __m256i one = _mm256_set1_epi32(1);
    __m256 fa = _mm512_cvt_roundpd_ps(a, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    __m256 fb = _mm512_cvt_roundpd_ps(b, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    __m256i ua = _mm256_castps_si256(fa), ub = _mm256_castps_si256(fb);
    ua = _mm256_mask_or_epi32(ua, _mm512_cmp_pd_mask(_mm512_cvtps_pd(fa), a, _CMP_NEQ_UQ), ua, one);
    ub = _mm256_mask_or_epi32(ub, _mm512_cmp_pd_mask(_mm512_cvtps_pd(fb), b, _CMP_NEQ_UQ), ub, one);
    return _mm512_castsi512_ps(_mm512_inserti64x4(_mm512_castsi256_si512(ua), ub, 1));
}
/* float32 lanes -> float16, to nearest even, stored at o */
#define FC_SIMD_STORE_HALF 1
static inline void fc_store_half_f32(uint16_t *o, fc_v_f32 v)
{
    _mm256_storeu_si256((__m256i *)o,
                        _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}
/* the lanes of a or b whose magnitude is not at most limit (a NaN's too) */
static inline fc_m_f64 fc_beyond_f64x2(fc_v_f64 a, fc_v_f64 b, double limit)
{
    const __m512d top = _mm512_set1_pd(limit);
    return _mm512_cmp_pd_mask(_mm512_abs_pd(a), top, _CMP_NLE_UQ)
           | _mm512_cmp_pd_mask(_mm512_abs_pd(b), top, _CMP_NLE_UQ);
}
/* exact everywhere here (avx2.h's needs the float normal) */
#define fc_odd_normal_f32_f64x2 fc_odd_f32_f64x2
static inline fc_m_f64 fc_either_nan_f64(fc_v_f64 a, fc_v_f64 b)
{
    return _mm512_cmp_pd_mask(a, b, _CMP_UNORD_Q);
}
static inline fc_m_f64 fc_or_mask_f64(fc_m_f64 a, fc_m_f64 b) { return a | b; }
/* 32-bit lanes narrowed and in order, each saturated to the destination's
 * range (as in avx2.h). The packs work within 128-bit quarters: after them
 * quarter q holds, by dwords, the q-th four elements of a, of b, of c and of
 * d (dwords 4q .. 4q + 3), so a's sixteen are dwords 0, 4, 8, 12, and one
 * vpermd puts them in order. */
static inline __m512i fc_pack4_order(__m512i v)
{
    return _mm512_permutexvar_epi32(_mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13,
                                                      2, 6, 10, 14, 3, 7, 11, 15), v);
}
static inline fc_v_u8 fc_pack4_u32_u8(fc_v_u32 a, fc_v_u32 b, fc_v_u32 c, fc_v_u32 d)
{
    return fc_pack4_order(_mm512_packus_epi16(_mm512_packs_epi32(a, b), _mm512_packs_epi32(c, d)));
}
/* signed saturating packs, in the packs' lane order */
#define fc_packs_s32_s16_unordered(a, b) _mm512_packs_epi32((a), (b))
#define fc_packs_s16_s8_unordered(a, b) _mm512_packs_epi16((a), (b))
#define fc_srai_u16(v, k) _mm512_srai_epi16((v), (k))
/* each 32-bit lane's two signed 16-bit halves times w's, summed (vpmaddwd) */
static inline fc_v_u32 fc_madd_s16(fc_v_u32 a, fc_v_u32 w) { return _mm512_madd_epi16(a, w); }
static inline fc_v_u8 fc_pack4_s32_s8(fc_v_u32 a, fc_v_u32 b, fc_v_u32 c, fc_v_u32 d)
{
    return fc_pack4_order(_mm512_packs_epi16(_mm512_packs_epi32(a, b), _mm512_packs_epi32(c, d)));
}
/* after the pack quarter q holds a's q-th four, then b's: qwords in order */
static inline fc_v_u16 fc_pack2_u32_u16(fc_v_u32 a, fc_v_u32 b)
{
    return _mm512_permutexvar_epi64(_mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7),
                                    _mm512_packus_epi32(a, b));
}
static inline fc_v_u16 fc_pack2_s32_s16(fc_v_u32 a, fc_v_u32 b)
{
    return _mm512_permutexvar_epi64(_mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7),
                                    _mm512_packs_epi32(a, b));
}

/* ---- 8- and 16-bit integers into int32, float32 and float64 by the layer
 * (csrc/convert_vector.h), as at AVX2, where GCC's 512-bit loops widen by a
 * cascade of unpacks: as many elements as float32 lanes, loaded and widened
 * into 32-bit lanes, and those lanes converted and stored ---- */
#define FC_SIMD_CONVERT_SMALL_INTS 1
static inline fc_v_u32 fc_load_s32_u8(const uint8_t *p)
{
    return _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)p));
}
static inline fc_v_u32 fc_load_s32_s8(const int8_t *p)
{
    return _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)p));
}
static inline fc_v_u32 fc_load_s32_u16(const uint16_t *p)
{
    return _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)p));
}
static inline fc_v_u32 fc_load_s32_s16(const int16_t *p)
{
    return _mm512_cvtepi16_epi32(_mm256_loadu_si256((const __m256i *)p));
}
static inline fc_v_f32 fc_cvt_f32_s32(fc_v_u32 v) { return _mm512_cvtepi32_ps(v); }
static inline void fc_store_u32(uint32_t *p, fc_v_u32 v) { _mm512_storeu_si512((void *)p, v); }
static inline void fc_store_f64_s32(double *o, fc_v_u32 v)
{
    _mm512_storeu_pd(o, _mm512_cvtepi32_pd(_mm512_castsi512_si256(v)));
    _mm512_storeu_pd(o + 8, _mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(v, 1)));
}

/* ---- where= into an out as wide as x or wider (as in avx2.h): a masked
 * store is one instruction at any lane width here ---- */
#define FC_SIMD_MASKED_CONVERT 1
static inline fc_m_f32 fc_where_f32(const unsigned char *m)
{
    __m128i v = _mm_loadu_si128((const __m128i *)m);
    return _mm_test_epi8_mask(v, v);
}
static inline fc_v_u32 fc_load_u32(const uint32_t *p) { return _mm512_loadu_si512((const void *)p); }
static inline void fc_maskstore_u32(uint32_t *o, fc_m_f32 m, fc_v_u32 v)
{
    _mm512_mask_storeu_epi32(o, m, v);
}
static inline void fc_maskstore_f32(float *o, fc_m_f32 m, fc_v_f32 v)
{
    _mm512_mask_storeu_ps(o, m, v);
}
static inline void fc_maskstore_f64_s32(double *o, fc_m_f32 m, fc_v_u32 v)
{
    _mm512_mask_storeu_pd(o, (__mmask8)m, _mm512_cvtepi32_pd(_mm512_castsi512_si256(v)));
    _mm512_mask_storeu_pd(o + 8, (__mmask8)(m >> 8),
                          _mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(v, 1)));
}
static inline void fc_maskstore_f64_f32(double *o, fc_m_f32 m, fc_v_f32 v)
{
    _mm512_mask_storeu_pd(o, (__mmask8)m, _mm512_cvtps_pd(_mm512_castps512_ps256(v)));
    _mm512_mask_storeu_pd(o + 8, (__mmask8)(m >> 8),
                          _mm512_cvtps_pd(_mm512_extractf32x8_ps(v, 1)));
}

/* ---- where=: one step of a contiguous blend (csrc/masked.h), buf's items
 * stored into out where the mask's bytes are set and nothing else written;
 * 4- and 8-byte items by 512-bit stores, half the instructions of 256-bit
 * ones ---- */
#define FC_HAVE_BLEND 1
#define FC_BLEND_ITEMS_1 32
#define FC_BLEND_ITEMS_2 16
#define FC_BLEND_ITEMS_4 16
#define FC_BLEND_ITEMS_8 8
static inline void fc_blend_1(char *out, const char *buf, const unsigned char *mask)
{
    __m256i m = _mm256_loadu_si256((const __m256i *)mask);
    _mm256_mask_storeu_epi8(out, _mm256_test_epi8_mask(m, m),
                            _mm256_loadu_si256((const __m256i *)buf));
}
static inline void fc_blend_2(char *out, const char *buf, const unsigned char *mask)
{
    __m128i m = _mm_loadu_si128((const __m128i *)mask);
    _mm256_mask_storeu_epi16(out, _mm_test_epi8_mask(m, m),
                             _mm256_loadu_si256((const __m256i *)buf));
}
static inline void fc_blend_4(char *out, const char *buf, const unsigned char *mask)
{
    __m128i m = _mm_loadu_si128((const __m128i *)mask);
    _mm512_mask_storeu_epi32(out, _mm_test_epi8_mask(m, m), _mm512_loadu_si512((const void *)buf));
}
static inline void fc_blend_8(char *out, const char *buf, const unsigned char *mask)
{
    __m128i m = _mm_loadl_epi64((const __m128i *)mask);
    _mm512_mask_storeu_epi64(out, (__mmask8)_mm_test_epi8_mask(m, m),
                             _mm512_loadu_si512((const void *)buf));
}

/* ---- any-width integer vectors with lane masks (csrc/strided_rows.h): the
 * lane width w (1, 2, 4, 8 bytes) and kind (FC_LANE_SIGNED, _UNSIGNED,
 * _FLOAT) are arguments, and each function is inlined into a caller that
 * passes them as constants, so that each switch folds away (called, the
 * same-stride loop ran a switch a vector) ---- */
#if defined(_MSC_VER)
#define FC_VW_INLINE static __forceinline
#else
#define FC_VW_INLINE static inline __attribute__((always_inline))
#endif
typedef __m512i fc_vw;
FC_VW_INLINE fc_vw fc_load_512(const void *p) { return _mm512_loadu_si512(p); }
FC_VW_INLINE void fc_storeall_512(void *p, fc_vw v) { _mm512_storeu_si512(p, v); }
FC_VW_INLINE fc_vw fc_zero_512(void) { return _mm512_setzero_si512(); }

typedef uint64_t fc_lanes_t;    /* one bit a lane, the low 64 / itemsize used */

FC_VW_INLINE fc_lanes_t fc_low_lanes(npy_intp k)
{
    return k >= 64 ? ~(fc_lanes_t)0 : (((fc_lanes_t)1 << k) - 1);
}

FC_VW_INLINE fc_vw fc_loadz_512(int w, fc_lanes_t m, const void *p)
{
    switch (w) {
    case 1: return _mm512_maskz_loadu_epi8((__mmask64)m, p);
    case 2: return _mm512_maskz_loadu_epi16((__mmask32)m, p);
    case 4: return _mm512_maskz_loadu_epi32((__mmask16)m, p);
    default: return _mm512_maskz_loadu_epi64((__mmask8)m, p);
    }
}

FC_VW_INLINE void fc_store_512(int w, void *p, fc_lanes_t m, fc_vw v)
{
    switch (w) {
    case 1: _mm512_mask_storeu_epi8(p, (__mmask64)m, v); break;
    case 2: _mm512_mask_storeu_epi16(p, (__mmask32)m, v); break;
    case 4: _mm512_mask_storeu_epi32(p, (__mmask16)m, v); break;
    default: _mm512_mask_storeu_epi64(p, (__mmask8)m, v); break;
    }
}

/* one value, in every lane of its width */
FC_VW_INLINE fc_vw fc_set1_512(int w, const void *value)
{
    uint64_t v = 0;
    memcpy(&v, value, (size_t)w);
    switch (w) {
    case 1: return _mm512_set1_epi8((char)v);
    case 2: return _mm512_set1_epi16((short)v);
    case 4: return _mm512_set1_epi32((int)v);
    default: return _mm512_set1_epi64((long long)v);
    }
}

/* kind: FC_LANE_SIGNED, FC_LANE_UNSIGNED or FC_LANE_FLOAT (simd/simd.h) */
FC_VW_INLINE fc_vw fc_clip_512(int w, int kind, fc_vw x, fc_vw lo, fc_vw hi)
{
    if (kind == FC_LANE_FLOAT && w == 4) {
        __m512 t = _mm512_max_ps(_mm512_castsi512_ps(lo), _mm512_castsi512_ps(x));
        return _mm512_castps_si512(_mm512_min_ps(_mm512_castsi512_ps(hi), t));
    }
    if (kind == FC_LANE_FLOAT) {
        __m512d t = _mm512_max_pd(_mm512_castsi512_pd(lo), _mm512_castsi512_pd(x));
        return _mm512_castpd_si512(_mm512_min_pd(_mm512_castsi512_pd(hi), t));
    }
    switch (w * 2 + kind) {        /* w bytes a lane, signed or unsigned */
    case 2: return _mm512_min_epi8(hi, _mm512_max_epi8(lo, x));
    case 3: return _mm512_min_epu8(hi, _mm512_max_epu8(lo, x));
    case 4: return _mm512_min_epi16(hi, _mm512_max_epi16(lo, x));
    case 5: return _mm512_min_epu16(hi, _mm512_max_epu16(lo, x));
    case 8: return _mm512_min_epi32(hi, _mm512_max_epi32(lo, x));
    case 9: return _mm512_min_epu32(hi, _mm512_max_epu32(lo, x));
    case 16: return _mm512_min_epi64(hi, _mm512_max_epi64(lo, x));
    default: return _mm512_min_epu64(hi, _mm512_max_epu64(lo, x));
    }
}

/* the even lanes of a, then those of b */
FC_VW_INLINE fc_vw fc_even_lanes_512(int w, fc_vw a, fc_vw b)
{
    switch (w) {
    case 1: {
        fc_vw low = _mm512_set1_epi16(0x00ff);
        fc_vw packed = _mm512_packus_epi16(_mm512_and_si512(a, low), _mm512_and_si512(b, low));
        /* packus works in 128-bit lanes: a0 b0 a1 b1 a2 b2 a3 b3 in qwords */
        return _mm512_permutexvar_epi64(_mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7), packed);
    }
    case 2:
        return _mm512_permutex2var_epi16(
            a, _mm512_setr_epi32(0x00020000, 0x00060004, 0x000a0008, 0x000e000c,
                                 0x00120010, 0x00160014, 0x001a0018, 0x001e001c,
                                 0x00220020, 0x00260024, 0x002a0028, 0x002e002c,
                                 0x00320030, 0x00360034, 0x003a0038, 0x003e003c), b);
    case 4:
        return _mm512_permutex2var_epi32(
            a, _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30), b);
    default:
        return _mm512_permutex2var_epi64(a, _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14), b);
    }
}

/* the lanes whose where= mask byte is set, of the k (<= 64 / w) at m */
FC_VW_INLINE fc_lanes_t fc_mask_lanes_512(const unsigned char *m, npy_intp k)
{
    __m512i v = _mm512_maskz_loadu_epi8((__mmask64)fc_low_lanes(k), m);
    return _mm512_test_epi8_mask(v, v);
}

/* the mask bits of a whole vector's lanes: its 64 / w mask bytes, loaded
 * plainly */
FC_VW_INLINE fc_lanes_t fc_mask_vector_512(int w, const unsigned char *m)
{
    switch (w) {
    case 1: { __m512i v = _mm512_loadu_si512((const void *)m); return _mm512_test_epi8_mask(v, v); }
    case 2: { __m256i v = _mm256_loadu_si256((const __m256i *)m); return _mm256_test_epi8_mask(v, v); }
    case 4: { __m128i v = _mm_loadu_si128((const __m128i *)m); return _mm_test_epi8_mask(v, v); }
    default: { __m128i v = _mm_loadl_epi64((const __m128i *)m); return _mm_test_epi8_mask(v, v) & 0xffu; }
    }
}


#endif
