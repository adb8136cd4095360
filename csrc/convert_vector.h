/* The fused clip-and-convert loops' vector body (csrc/convert.h), written once
 * against the vector layer (csrc/simd/): float32, float64 and int64 sources
 * into 8- and 16-bit integers, int64 into int32, float32 and float64 (bounds
 * within int32), 8- and 16-bit integers into int32, float32 and float64,
 * float64 into float32, float32 and float64 into the float8s, float64 into
 * bfloat16.
 *
 * Each step clips a group of source elements as the clip loop does (a tie
 * keeps x), turns the group into 32-bit lanes as many as float32's (the
 * integer cast toward zero, the float8 rounding of csrc/convert.h in lanes,
 * bfloat16's bits, the low half of an int64; a float64 is rounded to float32
 * first as the installed ml_dtypes rounds it), and packs as many groups as a
 * destination vector holds. The caller's bounds check keeps every value
 * inside the destination's range (int64 sources: the loop's own, or the
 * lanes masked to the destination's bits, FC_CVT_S64_NARROW), so the
 * packs, which saturate, change none. A NaN met
 * is reported as the scalar loop reports it (the caller hands the call to
 * NumPy), and so is a float8 code beyond the format's (float32 and float64
 * into the float8s take any bounds: FC_CVT_FLOAT8). float32 and float64
 * into integers first go the other way round, truncated, packed, then
 * clipped (FC_CVT_TRUNC, below), and take these loops where that cannot.
 *
 * Each returns how many elements it did (whole steps); the scalar loop of
 * FC_CONVERT does the rest. FC_HAVE_CONVERT_VECTOR: the builds with a layer.
 * Written here: the shapes, as macros over a group and a pack function, and
 * the bodies of pairs with their own (float64 -> float32 and bfloat16);
 * src/fastclip/_dtypes.py's VECTOR_CONVERSIONS names each pair's shape, and
 * csrc/conversion_loops.h.in instantiates it as fc_cvt_vector_<pair>.
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
 * FC_FLOAT8_GROUP). float64 -> float32 keeps a compare (nan64). */
typedef struct {
    fc_v_f32 lo32, hi32;
    fc_v_f64 lo64, hi64;
    fc_v_u32 lo_s32, hi_s32, below_s32;     /* int64 sources: see fc_group_s64_int */
    fc_v_u32 least;
    fc_v_u8 codes_seen;
    fc_m_f64 nan64;
    double lo, hi;                          /* float sources: the bounds (FC_CVT_FLOAT8) */
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
 * wraps, as NumPy's does (FC_CVT_S64_NARROW) */
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
 * spilled (the float32 -> float8 loop of the time, before FC_FLOAT8_GROUP's
 * multiply-add: 89 instructions, 17 of them stack accesses; computed one
 * after another: 78 and 2). Each group's result is made to exist before the
 * next group's loads (GCC and clang; the wider register files of AVX-512 and
 * NEON need no fence). The integer destinations' loops keep it. */
#if defined(__GNUC__) && defined(__AVX2__) && !defined(__AVX512F__)
#define FC_GROUP_FENCE(v) __asm__ __volatile__("" : "+x"(v) : : "memory")
#else
#define FC_GROUP_FENCE(v) ((void)0)
#endif
/* the loops: S the source's C type, GROUP its groups, PACK the destination's */
#define FC_CVT_VECTOR_8(NAME, S, GROUP, PACK)                                  \
    static inline npy_intp fc_cvt_vector_##NAME(const void *px, void *o, npy_intp n, \
                                                fc_cvt_state_t *s)             \
    {                                                                          \
        const S *x = (const S *)px;                                            \
        const npy_intp g = FC_LANES_f32, step = 4 * FC_LANES_f32;              \
        npy_intp i = 0, whole = n > 0 ? n - n % step : 0;                      \
        for (; i < whole; i += step) {                                         \
            fc_v_u32 g0 = GROUP(x + i, s);                                     \
            FC_GROUP_FENCE(g0);                                                \
            fc_v_u32 g1 = GROUP(x + i + g, s);                                 \
            FC_GROUP_FENCE(g1);                                                \
            fc_v_u32 g2 = GROUP(x + i + 2 * g, s);                             \
            FC_GROUP_FENCE(g2);                                                \
            fc_v_u32 g3 = GROUP(x + i + 3 * g, s);                             \
            fc_store_u8((uint8_t *)o + i, PACK(g0, g1, g2, g3));               \
        }                                                                      \
        return i;                                                              \
    }
/* four vectors of 32-bit lanes into bytes with signed saturation, left in
 * the packs' lane order (fc_pack4_order puts it right) */
static inline fc_v_u8 fc_pack4_s32_s8_unordered(fc_v_u32 a, fc_v_u32 b, fc_v_u32 c, fc_v_u32 d)
{
    return fc_packs_s16_s8_unordered(fc_packs_s32_s16_unordered(a, b),
                                     fc_packs_s32_s16_unordered(c, d));
}
/* float32 and float64 -> a float8: four groups' codes (times w) packed to
 * 16 bits, shifted down to the codes and packed into bytes, and their
 * clipped bits packed with signed saturation, which keeps each lane's sign
 * in its byte's top bit: the sign joins its code once for 32 (AVX2) or 64
 * lanes, where it took three instructions a group. A NaN's code is 0x7f,
 * no clipped value's, so the running byte max of the codes (codes_seen)
 * notes one; so does a code beyond the format's largest that is not a NaN
 * (a value beyond its range, with any bounds: e5m2's 0x7d and 0x7e), by the
 * format's spare (FC_FLOAT8_SPARE) added to codes_seen at the end. Both
 * packs are left in the packs' lane order and the merged bytes put in order
 * once. The state is read into a local: the byte stores
 * may alias *s, and GCC reloaded the bounds from it after each store. No
 * fence between the groups (FC_GROUP_FENCE): with 9 instructions a group
 * GCC's interleaving no longer spills. */
#define FC_CVT_FLOAT8_LOOP(NAME, S, GROUP, FORMAT, MARKS)                      \
    static inline npy_intp fc_cvt_float8_##NAME(const void *px, void *o, npy_intp n, \
                                                fc_cvt_state_t *caller)        \
    {                                                                          \
        const S *x = (const S *)px;                                            \
        const npy_intp g = FC_LANES_f32, step = 4 * FC_LANES_f32;              \
        npy_intp i = 0, whole = n > 0 ? n - n % step : 0;                      \
        fc_cvt_state_t local = *caller, *s = &local;                           \
        for (; i < whole; i += step) {                                         \
            fc_v_u32 b0, b1, b2, b3;                                           \
            fc_v_u32 g0 = GROUP(x + i, s, &b0);                                \
            fc_v_u32 g1 = GROUP(x + i + g, s, &b1);                            \
            fc_v_u32 g2 = GROUP(x + i + 2 * g, s, &b2);                        \
            fc_v_u32 g3 = GROUP(x + i + 3 * g, s, &b3);                        \
            fc_v_u8 codes = fc_packs_s16_s8_unordered(                         \
                fc_srai_u16(fc_packs_s32_s16_unordered(g0, g1), FC_FLOAT8_SHIFT_##FORMAT), \
                fc_srai_u16(fc_packs_s32_s16_unordered(g2, g3), FC_FLOAT8_SHIFT_##FORMAT)); \
            fc_v_u8 signs = fc_and_u8(fc_pack4_s32_s8_unordered(b0, b1, b2, b3), \
                                      fc_set1_u8(0x80));                       \
            if (MARKS) {                                                       \
                s->codes_seen = fc_max_u8(s->codes_seen, codes);               \
            }                                                                  \
            fc_store_u8((uint8_t *)o + i, fc_pack4_order(fc_or_u8(codes, signs))); \
        }                                                                      \
        if (MARKS) {                                                           \
            caller->codes_seen = fc_add_u8(local.codes_seen,                   \
                                           fc_set1_u8(FC_FLOAT8_SPARE_##FORMAT)); \
        }                                                                      \
        return i;                                                              \
    }
/* Bounds within the format's finite range (FC_FLOAT8_LARGEST) keep every
 * clipped value but a NaN inside it, so its code below the largest: where
 * the layer's clip raises the invalid flag on a NaN (FC_GTSEL_FLAGS_NAN; the
 * rest of the loop raises it on none, its one float add adding two finite
 * values), the groups leave out the clamp to 2**20 that made a NaN's code
 * the mark (fc_float8_code_within_<format>), the loop the running max of the
 * codes, and a NaN met is noted by the flag, cleared before and read after
 * (a NaN's byte then is garbage, and the caller hands the call to NumPy as
 * it does for the mark). The format's range is where the bounds of a
 * saturating cast lie (np.clip(x, -448, 448, out=e4m3fn)), so the common
 * call skips the mark's work. */
#if defined(FC_GTSEL_FLAGS_NAN)
#define FC_CVT_FLOAT8(NAME, S, GROUP, FORMAT)                                  \
    FC_CVT_FLOAT8_LOOP(NAME, S, GROUP, FORMAT, 1)                              \
    FC_CVT_FLOAT8_LOOP(NAME##_within, S, GROUP##_within, FORMAT, 0)            \
    static inline npy_intp fc_cvt_vector_##NAME(const void *px, void *o, npy_intp n, \
                                                fc_cvt_state_t *s)             \
    {                                                                          \
        if (!(fabs(s->lo) <= FC_FLOAT8_LARGEST_##FORMAT                        \
              && fabs(s->hi) <= FC_FLOAT8_LARGEST_##FORMAT) || n < 4 * FC_LANES_f32) { \
            return fc_cvt_float8_##NAME(px, o, n, s);                          \
        }                                                                      \
        fc_invalid_seen();      /* clears an earlier operation's flag */       \
        npy_intp i = fc_cvt_float8_##NAME##_within(px, o, n, s);               \
        if (fc_invalid_seen()) {                                               \
            s->codes_seen = fc_set1_u8(0x7f);       /* as the mark */          \
        }                                                                      \
        return i;                                                              \
    }
#else
#define FC_CVT_FLOAT8(NAME, S, GROUP, FORMAT)                                  \
    FC_CVT_FLOAT8_LOOP(NAME, S, GROUP, FORMAT, 1)                              \
    static inline npy_intp fc_cvt_vector_##NAME(const void *px, void *o, npy_intp n, \
                                                fc_cvt_state_t *s)             \
    {                                                                          \
        return fc_cvt_float8_##NAME(px, o, n, s);                              \
    }
#endif
/* 0x7e less the format's largest code that is not a NaN (src/fastclip/
 * _dtypes.py LARGEST_BITS: e4m3fn's largest finite, e5m2's infinity) */
enum { FC_FLOAT8_SPARE_float8_e4m3fn = 0x7e - 0x7e, FC_FLOAT8_SPARE_float8_e5m2 = 0x7e - 0x7c };
/* the formats' largest finite values (src/fastclip/_dtypes.py FLOAT8) */
#define FC_FLOAT8_LARGEST_float8_e4m3fn 448.0
#define FC_FLOAT8_LARGEST_float8_e5m2 57344.0
#define FC_CVT_VECTOR_16(NAME, S, GROUP, PACK)                                 \
    static inline npy_intp fc_cvt_vector_##NAME(const void *px, void *o, npy_intp n, \
                                                fc_cvt_state_t *s)             \
    {                                                                          \
        const S *x = (const S *)px;                                            \
        const npy_intp g = FC_LANES_f32, step = 2 * FC_LANES_f32;              \
        npy_intp i = 0, whole = n > 0 ? n - n % step : 0;                      \
        for (; i < whole; i += step) {                                         \
            fc_store_u16((uint16_t *)o + i, PACK(GROUP(x + i, s), GROUP(x + i + g, s))); \
        }                                                                      \
        return i;                                                              \
    }

/* float64 -> bfloat16's loops, each with its twin for a bound beyond
 * float32's range (FC_BFLOAT16_FROM_DOUBLE), chosen once a call */
#define FC_CVT_BFLOAT16(NAME, GROUP)                                           \
    FC_CVT_VECTOR_16(NAME##_within, double, GROUP, fc_pack2_u32_u16)           \
    FC_CVT_VECTOR_16(NAME##_beyond, double, GROUP##_beyond, fc_pack2_u32_u16)  \
    static inline npy_intp fc_cvt_vector_##NAME(const void *px, void *o, npy_intp n, \
                                                fc_cvt_state_t *s)             \
    {                                                                          \
        return s->beyond_f32 ? fc_cvt_vector_##NAME##_beyond(px, o, n, s)      \
                             : fc_cvt_vector_##NAME##_within(px, o, n, s);     \
    }
#if defined(FC_ODD_F32_CHECKED_BY_UNDERFLOW)
/* float64 -> bfloat16 rounded once (AVX2): the whole run rounded to float32
 * through the sticky bit (fc_odd_normal_f32_f64x2), and where that met a
 * float32 subnormal (the underflow flag) again to odd everywhere: the
 * sticky run is the cheaper one, and a subnormal result is rare. */
FC_CVT_BFLOAT16(double_bfloat16_odd_everywhere, fc_group_f64_bfloat16_once)
FC_CVT_BFLOAT16(double_bfloat16_sticky, fc_group_f64_bfloat16_sticky)
static inline npy_intp fc_cvt_vector_double_bfloat16_once(const void *px, void *o, npy_intp n,
                                                          fc_cvt_state_t *s)
{
    if (s->tiny_bound) {
        /* a lane clipped to it is a float32 subnormal (a zero bound made
         * the smallest subnormal, src/fastclip/_route_one_sided.pxi
         * _narrowed_past_the_tie): the sticky run would be redone, so
         * round to odd everywhere from the start */
        return fc_cvt_vector_double_bfloat16_odd_everywhere(px, o, n, s);
    }
    fc_underflow_clear();
    npy_intp done = fc_cvt_vector_double_bfloat16_sticky(px, o, n, s);
    return fc_underflow_raised() ? fc_cvt_vector_double_bfloat16_odd_everywhere(px, o, n, s) : done;
}
#else
FC_CVT_BFLOAT16(double_bfloat16_once, fc_group_f64_bfloat16_once)
#endif
FC_CVT_BFLOAT16(double_bfloat16_via_float32, fc_group_f64_bfloat16_via_float32)
#undef FC_CVT_BFLOAT16
/* a pair the layer leaves to the scalar loop (and GCC's vectoriser) at this
 * target: no element done here */
#define FC_CVT_VECTOR_NONE(NAME)                                               \
    static inline npy_intp fc_cvt_vector_##NAME(const void *px, void *o, npy_intp n, \
                                                fc_cvt_state_t *s)             \
    {                                                                          \
        (void)px; (void)o; (void)n; (void)s;                                   \
        return 0;                                                              \
    }
/* Groups of FC_LANES_f32 source elements as 32-bit lanes, clipped (GROUP),
 * each stored by STORE into int32, float32 or float64: the int64 and 8-bit
 * sources below. None done where the bounds do not fit int32 (an int64
 * source's other bounds go to the scalar loop). */
#define FC_CVT_VECTOR_LANES(NAME, S, GROUP, STORE)                             \
    static inline npy_intp fc_cvt_vector_##NAME(const void *px, void *o, npy_intp n, \
                                                fc_cvt_state_t *s)             \
    {                                                                          \
        const S *x = (const S *)px;                                            \
        npy_intp i = 0, whole = n > 0 ? n - n % FC_LANES_f32 : 0;              \
        if (!s->bounds_fit_s32) {                                              \
            return 0;                                                          \
        }                                                                      \
        for (; i < whole; i += FC_LANES_f32) {                                 \
            STORE(o, i, GROUP(x + i, s));                                      \
        }                                                                      \
        return i;                                                              \
    }
/* int64 -> float32, int32 and float64 (int64_lanes) with both bounds within
 * int32, as a clipped array's usually are (int32's bounds check demands it): every
 * clipped value then fits int32, and the int32 lanes of fc_group_s64_int
 * convert (vcvtdq2ps, vcvtdq2pd) as the int64 would, to nearest even, or
 * are stored as they are. Other bounds: none done here (the scalar loop,
 * C's cast). AVX2 has no int64 -> float conversion, and GCC converts
 * element by element. */
#define FC_STORE_LANES_int(o, i, v) fc_store_u32((uint32_t *)(o) + (i), v)
#define FC_STORE_LANES_float(o, i, v) fc_store_f32((float *)(o) + (i), fc_cvt_f32_s32(v))
#define FC_STORE_LANES_double(o, i, v) fc_store_f64_s32((double *)(o) + (i), v)
#if FC_SIMD_CONVERT_INT64
/* int64 into 8 and 16 bits, with any bounds (src/fastclip/_dtypes.py
 * ANY_BOUNDS). Bounds within the destination's range [MIN, MAX], where the
 * saturating packs change nothing: clipped as 32-bit halves
 * (fc_group_s64_int). Other bounds (a one-sided call's other bound is
 * int64's limit): clipped in 64 bits on the sides that have a bound and
 * the low bits kept (FC_GROUP_S64_LOW: 6 instructions for 8 lanes with
 * one bound, 10 with two), the wrap of C's cast; GCC's own loop does a
 * 64-bit blend, then packs, a lane at a time. */
#define FC_CVT_S64_NARROW(NAME, WIDTH, PACK, PACK_LOW, MIN, MAX)               \
    FC_CVT_VECTOR_##WIDTH(NAME##_packed, int64_t, fc_group_s64_int, PACK)      \
    FC_CVT_VECTOR_##WIDTH(NAME##_lo, int64_t, fc_group_s64_low##WIDTH##_lo, PACK_LOW) \
    FC_CVT_VECTOR_##WIDTH(NAME##_hi, int64_t, fc_group_s64_low##WIDTH##_hi, PACK_LOW) \
    FC_CVT_VECTOR_##WIDTH(NAME##_both, int64_t, fc_group_s64_low##WIDTH##_both, PACK_LOW) \
    static inline npy_intp fc_cvt_vector_##NAME(const void *px, void *o, npy_intp n, \
                                                      fc_cvt_state_t *s)       \
    {                                                                          \
        if (s->lo_s64 >= (MIN) && s->lo_s64 <= (MAX) && s->hi_s64 >= (MIN) && s->hi_s64 <= (MAX)) { \
            return fc_cvt_vector_##NAME##_packed(px, o, n, s);                 \
        }                                                                      \
        if (s->hi_s64 == INT64_MAX) {                                          \
            return fc_cvt_vector_##NAME##_lo(px, o, n, s);                     \
        }                                                                      \
        if (s->lo_s64 == INT64_MIN) {                                          \
            return fc_cvt_vector_##NAME##_hi(px, o, n, s);                     \
        }                                                                      \
        return fc_cvt_vector_##NAME##_both(px, o, n, s);                       \
    }
#endif
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

/* float32 and float64 into 8- and 16-bit integers, truncated first and
 * clipped after: truncation toward zero is monotonic, and so are the packs,
 * which saturate and leave the destination's range as it is, so clipping the
 * packed lanes by the truncated bounds (lo_int, hi_int: inside that range)
 * gives what the clip in float and the cast give. Two vector instructions
 * for the clip of a whole destination vector, where the loops above clip
 * each group (64 float32 into bytes at AVX-512: 14 instructions, against
 * 20). Truncation gives INT32_MIN for a NaN, an infinity and a value beyond
 * int32, where this would go wrong; from the block in which a lane met it to
 * the end, the loop above (_in_float), which clips first and notes a NaN,
 * does the rest (data with infinities throughout then costs what that loop
 * costs, one block more). S: the source's C type; BITS, SIGN: the
 * destination's lanes (8 or 16; u or s), which pick its packs and its clip. */
#define FC_CVT_BLOCK 2048   /* elements; a multiple of every step */
#define FC_CVT_TRUNC(NAME, S, BITS, SIGN)                                      \
    static inline npy_intp fc_cvt_vector_##NAME(const void *px, void *po, npy_intp n, \
                                                fc_cvt_state_t *s)             \
    {                                                                          \
        const S *x = (const S *)px;                                            \
        const npy_intp g = FC_LANES_f32, step = FC_LANES_u##BITS;              \
        const npy_intp whole = n > 0 ? n - n % step : 0;                       \
        const fc_v_u##BITS lo = fc_set1_u##BITS((uint##BITS##_t)s->lo_int);    \
        const fc_v_u##BITS hi = fc_set1_u##BITS((uint##BITS##_t)s->hi_int);    \
        uint##BITS##_t *o = (uint##BITS##_t *)po;                              \
        for (npy_intp b = 0; b < whole; b += FC_CVT_BLOCK) {                   \
            npy_intp end = whole - b < FC_CVT_BLOCK ? whole : b + FC_CVT_BLOCK; \
            fc_v_u32 least = fc_set1_u32((uint32_t)INT32_MAX);                 \
            for (npy_intp i = b; i < end; i += step) {                         \
                fc_v_u##BITS v;                                                \
                FC_TRUNC_##BITS(S, SIGN);                                      \
                fc_store_u##BITS(o + i, fc_min_##SIGN##BITS(fc_max_##SIGN##BITS(v, lo), hi)); \
            }                                                                  \
            if (fc_any_eq_u32(least, (uint32_t)INT32_MIN)) {                   \
                /* this block again, and the rest, clipping first */           \
                return b + fc_cvt_vector_##NAME##_in_float(x + b, o + b, n - b, s); \
            }                                                                  \
        }                                                                      \
        return whole;                                                          \
    }
/* a step's groups (four into bytes, two into 16 bits) truncated and packed
 * into v, their minimum taken into least as a tree (one instruction a step
 * in the chain through least, where one a group made the chain the loop's
 * bound) */
#define FC_TRUNC_AT_float(k) fc_trunc_s32_f32(fc_load_f32(x + i + (k) * g))
#define FC_TRUNC_AT_double(k)                                                  \
    fc_trunc_s32_f64x2(fc_load_f64(x + i + (k) * g), fc_load_f64(x + i + (k) * g + FC_LANES_f64))
#define FC_TRUNC_8(S, SIGN)                                                    \
    fc_v_u32 t0 = FC_TRUNC_AT_##S(0), t1 = FC_TRUNC_AT_##S(1);                 \
    fc_v_u32 t2 = FC_TRUNC_AT_##S(2), t3 = FC_TRUNC_AT_##S(3);                 \
    least = fc_min_s32(least, fc_min_s32(fc_min_s32(t0, t1), fc_min_s32(t2, t3))); \
    v = fc_pack4_##SIGN##32_##SIGN##8(t0, t1, t2, t3)
#define FC_TRUNC_16(S, SIGN)                                                   \
    fc_v_u32 t0 = FC_TRUNC_AT_##S(0), t1 = FC_TRUNC_AT_##S(1);                 \
    least = fc_min_s32(least, fc_min_s32(t0, t1));                             \
    v = fc_pack2_##SIGN##32_##SIGN##16(t0, t1)

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
FC_CVT_VECTOR_NONE(double_float)
#endif

#include "convert_vector_state.h"   /* a call's state, by source */

#endif
#endif
