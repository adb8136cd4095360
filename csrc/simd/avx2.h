/* The vector layer for AVX2: 256-bit vectors; a mask is a vector of lanes all
 * ones or all zeros. Unsigned compares and 8-bit arithmetic shifts, which AVX2
 * lacks, are built from what it has (see each). */
#ifndef FASTCLIP_SIMD_AVX2_H
#define FASTCLIP_SIMD_AVX2_H

#include <immintrin.h>
#include <string.h>
#include <stdint.h>

#define FC_SIMD 32
#define FC_SIMD_NAME "avx2"

/* ---- float32, float64 ---- */
typedef __m256 fc_v_f32;
typedef __m256 fc_m_f32;
typedef __m256d fc_v_f64;
typedef __m256d fc_m_f64;
#define FC_LANES_f32 8
#define FC_LANES_f64 4

/* lanes [0, n) on: 32- and 64-bit lanes of a vector, for vmaskmov */
static inline __m256i fc_first_lanes_32(int n)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
static inline __m256i fc_first_lanes_64(int n)
{
    return _mm256_cmpgt_epi64(_mm256_set1_epi64x(n), _mm256_setr_epi64x(0, 1, 2, 3));
}

static inline fc_v_f32 fc_load_f32(const float *p) { return _mm256_loadu_ps(p); }
static inline void fc_store_f32(float *p, fc_v_f32 v) { _mm256_storeu_ps(p, v); }
static inline fc_v_f32 fc_set1_f32(float x) { return _mm256_set1_ps(x); }
static inline fc_v_f32 fc_load_n_f32(const float *p, int n)
{
    return _mm256_maskload_ps(p, fc_first_lanes_32(n));
}
static inline void fc_store_n_f32(float *p, int n, fc_v_f32 v)
{
    _mm256_maskstore_ps(p, fc_first_lanes_32(n), v);
}
/* vmaxps(a, b) is a > b ? a : b and vminps(a, b) a < b ? a : b: the second
 * operand on a NaN or a tie (Intel SDM, MAXPS/MINPS); a NaN operand, quiet
 * or not, raises the invalid flag (the SDM's "Invalid (including QNaN Source
 * Operand)"; so on AMD Zen 4, by a C test), which a loop may read instead of
 * comparing (FC_GTSEL_FLAGS_NAN) */
#define FC_GTSEL_FLAGS_NAN 1
static inline fc_v_f32 fc_gtsel_f32(fc_v_f32 a, fc_v_f32 b) { return _mm256_max_ps(a, b); }
static inline fc_v_f32 fc_ltsel_f32(fc_v_f32 a, fc_v_f32 b) { return _mm256_min_ps(a, b); }
static inline fc_m_f32 fc_isnan_f32(fc_v_f32 v) { return _mm256_cmp_ps(v, v, _CMP_UNORD_Q); }
static inline fc_v_f32 fc_select_f32(fc_m_f32 m, fc_v_f32 a, fc_v_f32 b)
{
    return _mm256_blendv_ps(b, a, m);
}

static inline fc_v_f64 fc_load_f64(const double *p) { return _mm256_loadu_pd(p); }
static inline void fc_store_f64(double *p, fc_v_f64 v) { _mm256_storeu_pd(p, v); }
static inline fc_v_f64 fc_set1_f64(double x) { return _mm256_set1_pd(x); }
static inline fc_v_f64 fc_load_n_f64(const double *p, int n)
{
    return _mm256_maskload_pd(p, fc_first_lanes_64(n));
}
static inline void fc_store_n_f64(double *p, int n, fc_v_f64 v)
{
    _mm256_maskstore_pd(p, fc_first_lanes_64(n), v);
}
static inline fc_v_f64 fc_gtsel_f64(fc_v_f64 a, fc_v_f64 b) { return _mm256_max_pd(a, b); }
static inline fc_v_f64 fc_ltsel_f64(fc_v_f64 a, fc_v_f64 b) { return _mm256_min_pd(a, b); }
static inline fc_m_f64 fc_isnan_f64(fc_v_f64 v) { return _mm256_cmp_pd(v, v, _CMP_UNORD_Q); }
static inline fc_v_f64 fc_select_f64(fc_m_f64 m, fc_v_f64 a, fc_v_f64 b)
{
    return _mm256_blendv_pd(b, a, m);
}

/* ---- 8- and 16-bit integers: one integer vector type, the lane width in
 * the name of each operation ---- */
typedef __m256i fc_v_u8;
typedef __m256i fc_m_u8;
typedef __m256i fc_v_u16;
typedef __m256i fc_m_u16;
#define FC_LANES_u8 32
#define FC_LANES_u16 16

static inline __m256i fc_load_i256(const void *p) { return _mm256_loadu_si256((const __m256i *)p); }
static inline void fc_store_i256(void *p, __m256i v) { _mm256_storeu_si256((__m256i *)p, v); }

static inline fc_v_u8 fc_load_u8(const uint8_t *p) { return fc_load_i256(p); }
static inline void fc_store_u8(uint8_t *p, fc_v_u8 v) { fc_store_i256(p, v); }
static inline fc_v_u8 fc_set1_u8(uint8_t x) { return _mm256_set1_epi8((char)x); }
static inline fc_v_u8 fc_xor_u8(fc_v_u8 a, fc_v_u8 b) { return _mm256_xor_si256(a, b); }
static inline fc_v_u8 fc_or_u8(fc_v_u8 a, fc_v_u8 b) { return _mm256_or_si256(a, b); }
static inline fc_v_u8 fc_and_u8(fc_v_u8 a, fc_v_u8 b) { return _mm256_and_si256(a, b); }
static inline fc_v_u8 fc_sub_u8(fc_v_u8 a, fc_v_u8 b) { return _mm256_sub_epi8(a, b); }
static inline fc_v_u8 fc_add_u8(fc_v_u8 a, fc_v_u8 b) { return _mm256_add_epi8(a, b); }
static inline fc_v_u8 fc_min_s8(fc_v_u8 a, fc_v_u8 b) { return _mm256_min_epi8(a, b); }
static inline fc_v_u8 fc_min_u8(fc_v_u8 a, fc_v_u8 b) { return _mm256_min_epu8(a, b); }
static inline fc_v_u8 fc_max_s8(fc_v_u8 a, fc_v_u8 b) { return _mm256_max_epi8(a, b); }
static inline fc_v_u8 fc_max_u8(fc_v_u8 a, fc_v_u8 b) { return _mm256_max_epu8(a, b); }
/* no vpsrab: the sign fill is a signed compare with zero */
static inline fc_v_u8 fc_signfill_u8(fc_v_u8 a)
{
    return _mm256_cmpgt_epi8(_mm256_setzero_si256(), a);
}
static inline fc_m_u8 fc_gt_s8(fc_v_u8 a, fc_v_u8 b) { return _mm256_cmpgt_epi8(a, b); }
/* no unsigned compare: a >= b unsigned is max(a, b) == a */
static inline fc_m_u8 fc_geu_u8(fc_v_u8 a, fc_v_u8 b)
{
    return _mm256_cmpeq_epi8(_mm256_max_epu8(a, b), a);
}
static inline fc_v_u8 fc_select_u8(fc_m_u8 m, fc_v_u8 a, fc_v_u8 b)
{
    return _mm256_blendv_epi8(b, a, m);
}

/* a vector of where= mask bytes (nonzero: set): every lane set, none set */
static inline int fc_all_set_u8(fc_v_u8 m)
{
    return _mm256_movemask_epi8(_mm256_cmpeq_epi8(m, _mm256_setzero_si256())) == 0;
}
static inline int fc_none_set_u8(fc_v_u8 m) { return _mm256_testz_si256(m, m); }

static inline fc_v_u16 fc_load_u16(const uint16_t *p) { return fc_load_i256(p); }
static inline void fc_store_u16(uint16_t *p, fc_v_u16 v) { fc_store_i256(p, v); }
static inline fc_v_u16 fc_set1_u16(uint16_t x) { return _mm256_set1_epi16((short)x); }
static inline fc_v_u16 fc_xor_u16(fc_v_u16 a, fc_v_u16 b) { return _mm256_xor_si256(a, b); }
static inline fc_v_u16 fc_or_u16(fc_v_u16 a, fc_v_u16 b) { return _mm256_or_si256(a, b); }
static inline fc_v_u16 fc_and_u16(fc_v_u16 a, fc_v_u16 b) { return _mm256_and_si256(a, b); }
static inline fc_v_u16 fc_sub_u16(fc_v_u16 a, fc_v_u16 b) { return _mm256_sub_epi16(a, b); }
static inline fc_v_u16 fc_add_u16(fc_v_u16 a, fc_v_u16 b) { return _mm256_add_epi16(a, b); }
static inline fc_v_u16 fc_min_s16(fc_v_u16 a, fc_v_u16 b) { return _mm256_min_epi16(a, b); }
static inline fc_v_u16 fc_min_u16(fc_v_u16 a, fc_v_u16 b) { return _mm256_min_epu16(a, b); }
static inline fc_v_u16 fc_max_s16(fc_v_u16 a, fc_v_u16 b) { return _mm256_max_epi16(a, b); }
static inline fc_v_u16 fc_max_u16(fc_v_u16 a, fc_v_u16 b) { return _mm256_max_epu16(a, b); }
static inline fc_v_u16 fc_signfill_u16(fc_v_u16 a) { return _mm256_srai_epi16(a, 15); }
static inline fc_m_u16 fc_gt_s16(fc_v_u16 a, fc_v_u16 b) { return _mm256_cmpgt_epi16(a, b); }
static inline fc_m_u16 fc_geu_u16(fc_v_u16 a, fc_v_u16 b)
{
    return _mm256_cmpeq_epi16(_mm256_max_epu16(a, b), a);
}
static inline fc_v_u16 fc_select_u16(fc_m_u16 m, fc_v_u16 a, fc_v_u16 b)
{
    return _mm256_blendv_epi8(b, a, m);
}

/* mask logic, for 8- and 16-bit lanes: a | b, a & b, a & ~b */
static inline fc_m_u8 fc_mor_u8(fc_m_u8 a, fc_m_u8 b) { return _mm256_or_si256(a, b); }
static inline fc_m_u8 fc_mand_u8(fc_m_u8 a, fc_m_u8 b) { return _mm256_and_si256(a, b); }
static inline fc_m_u8 fc_mandnot_u8(fc_m_u8 a, fc_m_u8 b) { return _mm256_andnot_si256(b, a); }
#define fc_mor_u16 fc_mor_u8
#define fc_mand_u16 fc_mand_u8
#define fc_mandnot_u16 fc_mandnot_u8

#include "avx2_convert.h"     /* what the fused conversions need */

/* ---- strided rows (csrc/strided_rows.h): a vector of any lane width w in
 * bytes, the clip and the even lanes chosen by w and kind (0 signed int,
 * 1 unsigned int, 2 IEEE float), constants where the caller inlines ---- */
typedef __m256i fc_vi;
#define FC_VI_BYTES 32

static inline fc_vi fc_vi_load(const void *p) { return _mm256_loadu_si256((const __m256i *)p); }
static inline void fc_vi_store(void *p, fc_vi v) { _mm256_storeu_si256((__m256i *)p, v); }
static inline fc_vi fc_vi_set1(int w, const void *value)
{
    uint64_t v = 0;
    memcpy(&v, value, (size_t)w);
    switch (w) {
    case 1: return _mm256_set1_epi8((char)v);
    case 2: return _mm256_set1_epi16((short)v);
    case 4: return _mm256_set1_epi32((int)v);
    default: return _mm256_set1_epi64x((long long)v);
    }
}
/* the scalar-bounds clip, x < lo ? lo : x, then t > hi ? hi : t: vmaxps(lo,
 * x) is lo > x ? lo : x (x on a NaN or a tie), vminps(hi, t) hi < t ? hi : t */
static inline fc_vi fc_vi_clip(int w, int kind, fc_vi x, fc_vi lo, fc_vi hi)
{
    if (kind == FC_LANE_FLOAT && w == 4) {
        __m256 t = _mm256_max_ps(_mm256_castsi256_ps(lo), _mm256_castsi256_ps(x));
        return _mm256_castps_si256(_mm256_min_ps(_mm256_castsi256_ps(hi), t));
    }
    if (kind == FC_LANE_FLOAT) {
        __m256d t = _mm256_max_pd(_mm256_castsi256_pd(lo), _mm256_castsi256_pd(x));
        return _mm256_castpd_si256(_mm256_min_pd(_mm256_castsi256_pd(hi), t));
    }
    if (w == 8) {       /* no 64-bit min/max: compares (unsigned: with the sign flipped) */
        __m256i bias = _mm256_set1_epi64x(kind == FC_LANE_UNSIGNED ? (long long)0x8000000000000000ull : 0);
        __m256i xb = _mm256_xor_si256(x, bias), lb = _mm256_xor_si256(lo, bias);
        __m256i hb = _mm256_xor_si256(hi, bias);
        __m256i t = _mm256_blendv_epi8(x, lo, _mm256_cmpgt_epi64(lb, xb));
        __m256i tb = _mm256_xor_si256(t, bias);
        return _mm256_blendv_epi8(t, hi, _mm256_cmpgt_epi64(tb, hb));
    }
    switch (w * 2 + kind) {        /* w bytes a lane, signed or unsigned */
    case 2: return _mm256_min_epi8(hi, _mm256_max_epi8(lo, x));
    case 3: return _mm256_min_epu8(hi, _mm256_max_epu8(lo, x));
    case 4: return _mm256_min_epi16(hi, _mm256_max_epi16(lo, x));
    case 5: return _mm256_min_epu16(hi, _mm256_max_epu16(lo, x));
    case 8: return _mm256_min_epi32(hi, _mm256_max_epi32(lo, x));
    default: return _mm256_min_epu32(hi, _mm256_max_epu32(lo, x));
    }
}
/* the even lanes of a, then the even lanes of b (odd_b: its odd lanes); the
 * packs and shuffles work within 128-bit halves, so a qword permute puts the
 * halves in order */
static inline fc_vi fc_vi_even(int w, fc_vi a, fc_vi b, int odd_b)
{
    __m256i v;
    switch (w) {
    case 1: {
        __m256i low = _mm256_set1_epi16(0x00ff);
        v = _mm256_packus_epi16(_mm256_and_si256(a, low),
                                odd_b ? _mm256_srli_epi16(b, 8) : _mm256_and_si256(b, low));
        break;
    }
    case 2: {
        __m256i low = _mm256_set1_epi32(0x0000ffff);
        v = _mm256_packus_epi32(_mm256_and_si256(a, low),
                                odd_b ? _mm256_srli_epi32(b, 16) : _mm256_and_si256(b, low));
        break;
    }
    case 4:
        v = _mm256_castps_si256(odd_b
            ? _mm256_shuffle_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b), 0xd8)
            : _mm256_shuffle_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b), 0x88));
        break;
    default:
        v = odd_b ? _mm256_blend_epi32(a, b, 0xcc) : _mm256_unpacklo_epi64(a, b);
        break;
    }
    return _mm256_permute4x64_epi64(v, 0xd8);
}

/* where= with 4- and 8-byte lanes: the lanes of a vector whose where= mask
 * byte is set, and vpmaskmovd/q under them */
#define FC_VI_MASKED_STORE 1
static inline fc_vi fc_vi_mask_of(int w, const unsigned char *m)
{
    if (w == 4) {
        __m256i v = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)m));
        return _mm256_cmpgt_epi32(v, _mm256_setzero_si256());
    }
    int bits;
    memcpy(&bits, m, 4);
    __m256i v = _mm256_cvtepu8_epi64(_mm_cvtsi32_si128(bits));
    return _mm256_cmpgt_epi64(v, _mm256_setzero_si256());
}
/* every lane of both masks set */
static inline int fc_vi_all_set(fc_vi a, fc_vi b)
{
    return _mm256_movemask_epi8(_mm256_and_si256(a, b)) == -1;
}
static inline fc_vi fc_vi_maskload(int w, fc_vi m, const void *p)
{
    return w == 4 ? _mm256_maskload_epi32((const int *)p, m)
                  : _mm256_maskload_epi64((const long long *)p, m);
}
static inline void fc_vi_maskstore(int w, void *p, fc_vi m, fc_vi v)
{
    if (w == 4) {
        _mm256_maskstore_epi32((int *)p, m, v);
    }
    else {
        _mm256_maskstore_epi64((long long *)p, m, v);
    }
}

/* ---- where= into an out as wide as x or wider (the where= conversion
 * loops, csrc/conversion_loops.h.in): the where= bytes of FC_LANES_f32
 * elements as a mask of float32's lanes, and stores of 32-bit lanes under
 * it, into 32-bit items or widened into doubles. vpmaskmovd/q's store is slow on AMD whatever the mask
 * (csrc/masked.h), so a mask all set (for a double store, both halves') goes
 * out by plain stores, as fc_blend_vector does. ---- */
#define FC_SIMD_MASKED_CONVERT 1
static inline fc_m_f32 fc_where_f32(const unsigned char *m)
{
    __m256i v = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)m));
    return _mm256_castsi256_ps(_mm256_cmpgt_epi32(v, _mm256_setzero_si256()));
}
static inline fc_v_u32 fc_load_u32(const uint32_t *p) { return _mm256_loadu_si256((const __m256i *)p); }
static inline void fc_maskstore_u32(uint32_t *o, fc_m_f32 m, fc_v_u32 v)
{
    if (__builtin_expect(_mm256_movemask_ps(m) == 0xff, 0)) {
        _mm256_storeu_si256((__m256i *)o, v);
    }
    else {
        _mm256_maskstore_epi32((int *)o, _mm256_castps_si256(m), v);
    }
}
static inline void fc_maskstore_f32(float *o, fc_m_f32 m, fc_v_f32 v)
{
    fc_maskstore_u32((uint32_t *)o, m, _mm256_castps_si256(v));
}
/* the two halves of a lane mask as masks of 64-bit lanes */
static inline void fc_maskstore_f64x2(double *o, fc_m_f32 m, __m256d low, __m256d high)
{
    if (__builtin_expect(_mm256_movemask_ps(m) == 0xff, 0)) {
        _mm256_storeu_pd(o, low);
        _mm256_storeu_pd(o + 4, high);
        return;
    }
    __m256i mi = _mm256_castps_si256(m);
    _mm256_maskstore_pd(o, _mm256_cvtepi32_epi64(_mm256_castsi256_si128(mi)), low);
    _mm256_maskstore_pd(o + 4, _mm256_cvtepi32_epi64(_mm256_extracti128_si256(mi, 1)), high);
}
/* int32 lanes as doubles (exact) */
static inline void fc_maskstore_f64_s32(double *o, fc_m_f32 m, fc_v_u32 v)
{
    fc_maskstore_f64x2(o, m, _mm256_cvtepi32_pd(_mm256_castsi256_si128(v)),
                       _mm256_cvtepi32_pd(_mm256_extracti128_si256(v, 1)));
}
/* float32 lanes as doubles (exact) */
static inline void fc_maskstore_f64_f32(double *o, fc_m_f32 m, fc_v_f32 v)
{
    fc_maskstore_f64x2(o, m, _mm256_cvtps_pd(_mm256_castps256_ps128(v)),
                       _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
}

/* ---- where=: one step of a contiguous blend (csrc/masked.h), buf's items
 * stored into out where the mask's bytes are set and nothing else written.
 * vpmaskmovd/q store 4- and 8-byte items; there is no byte or word masked
 * store, so 1- and 2-byte items store their whole dwords by vpmaskmovd and
 * the rest of their set items one by one. A step whose mask is all set takes
 * a plain store: vpmaskmov's store is microcoded on AMD before Zen 4, slow
 * whatever the mask ---- */
#define FC_HAVE_BLEND 1
#define FC_BLEND_ITEMS_1 32
#define FC_BLEND_ITEMS_2 16
#define FC_BLEND_ITEMS_4 8
#define FC_BLEND_ITEMS_8 8
static inline void fc_blend_1(char *out, const char *buf, const unsigned char *mask)
{
    const __m256i zero = _mm256_setzero_si256();
    __m256i clear = _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)mask), zero);
    unsigned clear_bits = (unsigned)_mm256_movemask_epi8(clear);
    if (clear_bits == 0xffffffffu) {
        return;
    }
    __m256i v = _mm256_loadu_si256((const __m256i *)buf);
    if (clear_bits == 0) {
        _mm256_storeu_si256((__m256i *)out, v);
        return;
    }
    __m256i whole = _mm256_cmpeq_epi32(clear, zero);
    _mm256_maskstore_epi32((int *)out, whole, v);
    unsigned rest = ~clear_bits & ~(unsigned)_mm256_movemask_epi8(whole);
    for (; rest; rest &= rest - 1) {
        int j = __builtin_ctz(rest);
        out[j] = buf[j];
    }
}
static inline void fc_blend_2(char *out, const char *buf, const unsigned char *mask)
{
    __m128i clear8 = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)mask), _mm_setzero_si128());
    unsigned clear_bits = (unsigned)_mm_movemask_epi8(clear8);
    if (clear_bits == 0xffffu) {
        return;
    }
    __m256i v = _mm256_loadu_si256((const __m256i *)buf);
    if (clear_bits == 0) {
        _mm256_storeu_si256((__m256i *)out, v);
        return;
    }
    __m256i whole = _mm256_cmpeq_epi32(_mm256_cvtepi8_epi16(clear8), _mm256_setzero_si256());
    _mm256_maskstore_epi32((int *)out, whole, v);
    __m128i whole8 = _mm_packs_epi16(_mm256_castsi256_si128(whole),
                                     _mm256_extracti128_si256(whole, 1));
    unsigned rest = ~clear_bits & ~(unsigned)_mm_movemask_epi8(whole8) & 0xffffu;
    for (; rest; rest &= rest - 1) {
        int j = __builtin_ctz(rest);
        memcpy(out + 2 * j, buf + 2 * j, 2);
    }
}
static inline void fc_blend_4(char *out, const char *buf, const unsigned char *mask)
{
    const __m256i zero = _mm256_setzero_si256();
    __m256i m = _mm256_cmpgt_epi32(_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)mask)),
                                   zero);
    __m256i v = _mm256_loadu_si256((const __m256i *)buf);
    if (__builtin_expect(_mm256_movemask_ps(_mm256_castsi256_ps(m)) == 0xff, 0)) {
        _mm256_storeu_si256((__m256i *)out, v);
    }
    else {
        _mm256_maskstore_epi32((int *)out, m, v);
    }
}
static inline void fc_blend_8(char *out, const char *buf, const unsigned char *mask)
{
    const __m256i zero = _mm256_setzero_si256();
    __m128i bytes = _mm_loadl_epi64((const __m128i *)mask);
    __m256i m0 = _mm256_cmpgt_epi64(_mm256_cvtepu8_epi64(bytes), zero);
    __m256i m1 = _mm256_cmpgt_epi64(_mm256_cvtepu8_epi64(_mm_srli_si128(bytes, 4)), zero);
    __m256i v0 = _mm256_loadu_si256((const __m256i *)buf);
    __m256i v1 = _mm256_loadu_si256((const __m256i *)(buf + 32));
    if (__builtin_expect(_mm256_movemask_epi8(_mm256_and_si256(m0, m1)) == -1, 0)) {
        _mm256_storeu_si256((__m256i *)out, v0);
        _mm256_storeu_si256((__m256i *)(out + 32), v1);
    }
    else {
        _mm256_maskstore_epi64((long long *)out, m0, v0);
        _mm256_maskstore_epi64((long long *)(out + 32), m1, v1);
    }
}

#endif
