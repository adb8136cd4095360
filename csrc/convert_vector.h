/* The fused clip-and-convert loops' vector parts (csrc/convert.h), written
 * once against the vector layer (csrc/simd/): the groups, the packs and a
 * call's state that csrc/conversion_vectors.h.in's loops are written over, one
 * loop a shape of src/fastclip/_dtypes.py's VECTOR_CONVERSIONS (float32,
 * float64 and int64 sources into 8- and 16-bit integers, int64 into int32,
 * float32 and float64 (bounds within int32), 8- and 16-bit integers into
 * int32, float32 and float64, float32 and float64 into the float8s, float64
 * into bfloat16), and the one pair whose body is its own here (float64 into
 * float32).
 *
 * Each step clips a group of source elements as the clip loop does (a tie
 * keeps x), turns the group into 32-bit lanes as many as float32's (the
 * integer cast toward zero, the float8 rounding of csrc/convert.h in lanes,
 * bfloat16's bits, the low half of an int64; a float64 is rounded to float32
 * first as the installed ml_dtypes rounds it), and packs as many groups as a
 * destination vector holds. The caller's bounds check keeps every value
 * inside the destination's range (int64 sources: the loop's own, or the
 * lanes masked to the destination's bits, the int64_narrow loop), so the
 * packs, which saturate, change none. A NaN met is reported as the scalar
 * loop reports it (the caller hands the call to NumPy), and so is a float8
 * code beyond the format's (float32 and float64 into the float8s take any
 * bounds). float32 and float64 into integers first go the other way round,
 * truncated, packed, then clipped (the truncate loop), and take the group
 * loop where that cannot. FC_HAVE_CONVERT_VECTOR: the builds with a layer.
 */
#ifndef FASTCLIP_CONVERT_VECTOR_H
#define FASTCLIP_CONVERT_VECTOR_H

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <numpy/npy_common.h>
#include "fpstatus.h"
#include "simd/simd.h"

#if FC_SIMD && defined(FC_SIMD_CONVERSIONS)

#define FC_HAVE_CONVERT_VECTOR 1

/* one group of float32 lanes, clipped (the scalar-bounds rule: lo > v ? lo :
 * v, then hi < t ? hi : t). Both steps return their second operand on a NaN
 * (the layers' gtsel and ltsel), so a NaN comes out a NaN: the groups note
 * it from what they make of the clipped value, one instruction a group where
 * a compare and an or took two (see fc_cvt_state_t). */
static inline fc_v_f32 fc_clip_group_f32(const float *x, fc_v_f32 lo, fc_v_f32 hi)
{
    return fc_ltsel_f32(hi, fc_gtsel_f32(lo, fc_load_f32(x)));
}

static inline fc_v_f64 fc_clip_group_f64(const double *x, fc_v_f64 lo, fc_v_f64 hi)
{
    return fc_ltsel_f64(hi, fc_gtsel_f64(lo, fc_load_f64(x)));
}

/* The groups, each FC_LANES_f32 source elements as 32-bit lanes, and what
 * they note of NaNs: a NaN truncated to int32 is INT32_MIN (the layers'
 * fc_trunc), which no clipped value is (the bounds fit 16 bits), so the
 * lanes' running minimum (least) has it if one was met; a NaN's float8
 * code is 0x7f, which no clipped value's is (finite bounds), so the
 * running byte max of the codes (codes_seen) is 0x7f if one was met (see
 * the float8 groups, csrc/conversion_vectors.h.in). float64 -> float32
 * keeps a compare (nan64). */
typedef struct {
    fc_v_f32 lo32, hi32;
    fc_v_f64 lo64, hi64;
    fc_v_u32 lo_s32, hi_s32, below_s32;     /* int64 sources: see fc_group_s64_int */
    fc_v_u32 least;
    fc_v_u8 codes_seen;
    fc_m_f64 nan64;
    double lo, hi;                          /* float sources: the bounds (the float8 loop) */
    int lo_int, hi_int;                     /* float sources: the bounds truncated */
    int beyond_f32;                         /* float64 sources: a bound beyond float32's range */
    int tiny_bound;                         /* and one below its normals, not zero */
    int bounds_fit_s32;                     /* int64 sources: both bounds within int32 */
    int64_t lo_s64, hi_s64;                 /* int64 sources: the bounds */
#if FC_SIMD_CONVERT_INT64
    fc_v_s64 lo_v64, hi_v64;                /* and in lanes (FC_GROUP_S64_LOW) */
#endif
} fc_cvt_state_t;

static inline fc_v_u32 fc_group_f32_int(const float *x, fc_cvt_state_t *s)
{
    fc_v_u32 t = fc_trunc_s32_f32(fc_clip_group_f32(x, s->lo32, s->hi32));
    s->least = fc_min_s32(s->least, t);
    return t;
}

static inline fc_v_u32 fc_group_f64_int(const double *x, fc_cvt_state_t *s)
{
    fc_v_f64 a = fc_clip_group_f64(x, s->lo64, s->hi64);
    fc_v_f64 b = fc_clip_group_f64(x + FC_LANES_f64, s->lo64, s->hi64);
    fc_v_u32 t = fc_trunc_s32_f64x2(a, b);
    s->least = fc_min_s32(s->least, t);
    return t;
}

#if FC_SIMD_CONVERT_INT64
/* int64 with bounds within int32 (the destinations are 8 and 16 bits): a
 * value that fits int32 (its high half is its low half's sign) clips as its
 * low half; one beyond clips to hi above and below to min(lo, hi), as
 * min(max(x, lo), hi) does. Without 64-bit min and max (AVX2) this is 8
 * instructions for 8 lanes after the loads, where compare-and-blend in 64
 * bits and the low halves take 9. */
static inline fc_v_u32 fc_group_s64_int(const int64_t *x, fc_cvt_state_t *s)
{
    fc_v_s64 a, b;
    fc_v_u32 low, high;
    fc_load_s64x2(x, &a, &b);
    fc_halves_s64x2(a, b, &low, &high);
    fc_v_u32 clipped = fc_min_s32(fc_max_s32(low, s->lo_s32), s->hi_s32);
    fc_v_u32 beyond = fc_select_negative_u32(high, s->below_s32, s->hi_s32);
    return fc_select_u32(fc_eq_u32(high, fc_srai_u32(low, 31)), clipped, beyond);
}
/* int64 with any bounds, into 8 or 16 bits: clipped in 64 bits (compare
 * and blend; SIDES 1: lo only, 2: hi only, 3: both, min(max(x, lo), hi)),
 * and each lane's low 8 or 16 bits (MASK) as 32-bit lanes, which the
 * unsigned packs pass unchanged into either signedness: C's cast, which
 * wraps, as NumPy's does (the int64_narrow loop) */
#define FC_GROUP_S64_LOW(NAME, MASK, SIDES)                                    \
    static inline fc_v_u32 fc_group_s64_##NAME(const int64_t *x, fc_cvt_state_t *s) \
    {                                                                          \
        fc_v_s64 a, b;                                                         \
        fc_v_u32 low, high;                                                    \
        fc_load_s64x2(x, &a, &b);                                              \
        if ((SIDES) & 1) {                                                     \
            a = fc_max_s64(a, s->lo_v64);                                      \
            b = fc_max_s64(b, s->lo_v64);                                      \
        }                                                                      \
        if ((SIDES) & 2) {                                                     \
            a = fc_min_s64(a, s->hi_v64);                                      \
            b = fc_min_s64(b, s->hi_v64);                                      \
        }                                                                      \
        fc_halves_s64x2(a, b, &low, &high);                                    \
        (void)high;                                                            \
        return fc_and_u32(low, fc_set1_u32(MASK));                             \
    }
FC_GROUP_S64_LOW(low8_lo, 0xffu, 1)
FC_GROUP_S64_LOW(low8_hi, 0xffu, 2)
FC_GROUP_S64_LOW(low8_both, 0xffu, 3)
FC_GROUP_S64_LOW(low16_lo, 0xffffu, 1)
FC_GROUP_S64_LOW(low16_hi, 0xffffu, 2)
FC_GROUP_S64_LOW(low16_both, 0xffffu, 3)
#undef FC_GROUP_S64_LOW
#endif

#include "convert_vector_small_floats.h"   /* float8 and bfloat16 groups */

/* AVX2 has 16 vector registers: GCC interleaved a step's four groups and
 * spilled (the float32 -> float8 loop of the time, before the float8 groups'
 * multiply-add: 89 instructions, 17 of them stack accesses; computed one
 * after another: 78 and 2). Each group's result is made to exist before the
 * next group's loads (GCC and clang; the wider register files of AVX-512 and
 * NEON need no fence). The integer destinations' loops keep it. */
#if defined(__GNUC__) && defined(__AVX2__) && !defined(__AVX512F__)
#define FC_GROUP_FENCE(v) __asm__ __volatile__("" : "+x"(v) : : "memory")
#else
#define FC_GROUP_FENCE(v) ((void)0)
#endif
/* four vectors of 32-bit lanes into bytes with signed saturation, left in
 * the packs' lane order (fc_pack4_order puts it right) */
static inline fc_v_u8 fc_pack4_s32_s8_unordered(fc_v_u32 a, fc_v_u32 b, fc_v_u32 c, fc_v_u32 d)
{
    return fc_packs_s16_s8_unordered(fc_packs_s32_s16_unordered(a, b),
                                     fc_packs_s32_s16_unordered(c, d));
}
#if FC_SIMD_CONVERT_SMALL_INTS
/* 8- and 16-bit integers into int32, float32 and float64 (AVX2, sse42,
 * AVX-512): widened into 32-bit lanes as loaded, clipped there
 * (min(max(x, lo), hi), the scalar rule for integers), then converted
 * (exactly) and stored; GCC clips the bytes, then widens them by a cascade
 * of unpacks. The 16-bit sources the same way. */
static inline fc_v_u32 fc_group_u8_s32(const uint8_t *x, fc_cvt_state_t *s)
{
    return fc_min_s32(fc_max_s32(fc_load_s32_u8(x), s->lo_s32), s->hi_s32);
}
static inline fc_v_u32 fc_group_s8_s32(const int8_t *x, fc_cvt_state_t *s)
{
    return fc_min_s32(fc_max_s32(fc_load_s32_s8(x), s->lo_s32), s->hi_s32);
}
static inline fc_v_u32 fc_group_u16_s32(const uint16_t *x, fc_cvt_state_t *s)
{
    return fc_min_s32(fc_max_s32(fc_load_s32_u16(x), s->lo_s32), s->hi_s32);
}
static inline fc_v_u32 fc_group_s16_s32(const int16_t *x, fc_cvt_state_t *s)
{
    return fc_min_s32(fc_max_s32(fc_load_s32_s16(x), s->lo_s32), s->hi_s32);
}
#endif

/* the truncating loops' block (csrc/conversion_vectors.h.in), in elements: a
 * multiple of every step */
#define FC_CVT_BLOCK 2048

/* float64 -> float32, to nearest even. A NaN met: where the layer's clip
 * raises the invalid flag on one (FC_GTSEL_FLAGS_NAN: x86's maxpd; nothing
 * else in the loop raises it, cvtpd2ps only on a signaling NaN, which is one
 * too), the flag, cleared first, is read after the loop (the caller clears
 * the flags NumPy reads, csrc/fpstatus.h); elsewhere a compare, whose or
 * into a running mask is a tenth of the loop's work. */
#if FC_SIMD_CONVERT_DOUBLE_FLOAT
static inline npy_intp fc_cvt_vector_double_float(const void *px, void *po, npy_intp n,
                                                  fc_cvt_state_t *s)
{
    const double *x = (const double *)px;
    float *o = (float *)po;
    const npy_intp step = FC_LANES_f32;
    npy_intp i = 0, whole = n > 0 ? n - n % step : 0;
#if defined(FC_GTSEL_FLAGS_NAN)
    if (whole == 0) {
        return 0;
    }
    fc_invalid_seen();      /* clears an earlier operation's flag */
#endif
    for (; i < whole; i += step) {
        fc_v_f64 ca = fc_clip_group_f64(x + i, s->lo64, s->hi64);
        fc_v_f64 cb = fc_clip_group_f64(x + i + FC_LANES_f64, s->lo64, s->hi64);
#if !defined(FC_GTSEL_FLAGS_NAN)
        s->nan64 = fc_or_mask_f64(s->nan64, fc_either_nan_f64(ca, cb));
#endif
        fc_store_f32_f64x2(o + i, ca, cb);
    }
#if defined(FC_GTSEL_FLAGS_NAN)
    if (fc_invalid_seen()) {
        s->nan64 = fc_isnan_f64(fc_set1_f64(NAN));      /* every lane */
    }
#endif
    return i;
}
#else
/* the layer leaves it to the scalar loop (and GCC's vectoriser) */
static inline npy_intp fc_cvt_vector_double_float(const void *px, void *po, npy_intp n,
                                                  fc_cvt_state_t *s)
{
    (void)px; (void)po; (void)n; (void)s;
    return 0;
}
#endif

#include "convert_vector_state.h"   /* a call's state, by source */

#endif
#endif
