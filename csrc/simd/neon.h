/* The vector layer for aarch64 ASIMD (NEON): 128-bit vectors; a mask is a
 * vector of lanes all ones or all zeros. NEON has no partial loads or stores:
 * the first n lanes go through a vector-sized buffer. Its fmax/fmin return a
 * NaN operand (quieted), not C's ?:, so the selects are compare and bsl. */
#ifndef FASTCLIP_SIMD_NEON_H
#define FASTCLIP_SIMD_NEON_H

#include <arm_neon.h>
#include <stdint.h>
#include <string.h>

#define FC_SIMD 16
#define FC_SIMD_NAME "neon"

/* ---- float32, float64 ---- */
typedef float32x4_t fc_v_f32;
typedef uint32x4_t fc_m_f32;
typedef float64x2_t fc_v_f64;
typedef uint64x2_t fc_m_f64;
#define FC_LANES_f32 4
#define FC_LANES_f64 2

static inline fc_v_f32 fc_load_f32(const float *p) { return vld1q_f32(p); }
static inline void fc_store_f32(float *p, fc_v_f32 v) { vst1q_f32(p, v); }
static inline fc_v_f32 fc_set1_f32(float x) { return vdupq_n_f32(x); }
static inline fc_v_f32 fc_load_n_f32(const float *p, int n)
{
    float buf[4] = {0};
    memcpy(buf, p, (size_t)n * sizeof(float));
    return vld1q_f32(buf);
}
static inline void fc_store_n_f32(float *p, int n, fc_v_f32 v)
{
    float buf[4];
    vst1q_f32(buf, v);
    memcpy(p, buf, (size_t)n * sizeof(float));
}
static inline fc_v_f32 fc_gtsel_f32(fc_v_f32 a, fc_v_f32 b) { return vbslq_f32(vcgtq_f32(a, b), a, b); }
static inline fc_v_f32 fc_ltsel_f32(fc_v_f32 a, fc_v_f32 b) { return vbslq_f32(vcltq_f32(a, b), a, b); }
static inline fc_m_f32 fc_isnan_f32(fc_v_f32 v) { return vmvnq_u32(vceqq_f32(v, v)); }
static inline fc_v_f32 fc_select_f32(fc_m_f32 m, fc_v_f32 a, fc_v_f32 b) { return vbslq_f32(m, a, b); }

static inline fc_v_f64 fc_load_f64(const double *p) { return vld1q_f64(p); }
static inline void fc_store_f64(double *p, fc_v_f64 v) { vst1q_f64(p, v); }
static inline fc_v_f64 fc_set1_f64(double x) { return vdupq_n_f64(x); }
static inline fc_v_f64 fc_load_n_f64(const double *p, int n)
{
    double buf[2] = {0};
    memcpy(buf, p, (size_t)n * sizeof(double));
    return vld1q_f64(buf);
}
static inline void fc_store_n_f64(double *p, int n, fc_v_f64 v)
{
    double buf[2];
    vst1q_f64(buf, v);
    memcpy(p, buf, (size_t)n * sizeof(double));
}
static inline fc_v_f64 fc_gtsel_f64(fc_v_f64 a, fc_v_f64 b) { return vbslq_f64(vcgtq_f64(a, b), a, b); }
static inline fc_v_f64 fc_ltsel_f64(fc_v_f64 a, fc_v_f64 b) { return vbslq_f64(vcltq_f64(a, b), a, b); }
static inline fc_m_f64 fc_isnan_f64(fc_v_f64 v)
{
    return vreinterpretq_u64_u32(vmvnq_u32(vreinterpretq_u32_u64(vceqq_f64(v, v))));
}
static inline fc_v_f64 fc_select_f64(fc_m_f64 m, fc_v_f64 a, fc_v_f64 b) { return vbslq_f64(m, a, b); }

/* ---- 8- and 16-bit integers ---- */
typedef uint8x16_t fc_v_u8;
typedef uint8x16_t fc_m_u8;
typedef uint16x8_t fc_v_u16;
typedef uint16x8_t fc_m_u16;
#define FC_LANES_u8 16
#define FC_LANES_u16 8

static inline fc_v_u8 fc_load_u8(const uint8_t *p) { return vld1q_u8(p); }
static inline void fc_store_u8(uint8_t *p, fc_v_u8 v) { vst1q_u8(p, v); }
static inline fc_v_u8 fc_set1_u8(uint8_t x) { return vdupq_n_u8(x); }
static inline fc_v_u8 fc_xor_u8(fc_v_u8 a, fc_v_u8 b) { return veorq_u8(a, b); }
static inline fc_v_u8 fc_or_u8(fc_v_u8 a, fc_v_u8 b) { return vorrq_u8(a, b); }
static inline fc_v_u8 fc_and_u8(fc_v_u8 a, fc_v_u8 b) { return vandq_u8(a, b); }
static inline fc_v_u8 fc_sub_u8(fc_v_u8 a, fc_v_u8 b) { return vsubq_u8(a, b); }
static inline fc_v_u8 fc_add_u8(fc_v_u8 a, fc_v_u8 b) { return vaddq_u8(a, b); }
static inline fc_v_u8 fc_min_s8(fc_v_u8 a, fc_v_u8 b)
{
    return vreinterpretq_u8_s8(vminq_s8(vreinterpretq_s8_u8(a), vreinterpretq_s8_u8(b)));
}
static inline fc_v_u8 fc_min_u8(fc_v_u8 a, fc_v_u8 b) { return vminq_u8(a, b); }
static inline fc_v_u8 fc_max_s8(fc_v_u8 a, fc_v_u8 b)
{
    return vreinterpretq_u8_s8(vmaxq_s8(vreinterpretq_s8_u8(a), vreinterpretq_s8_u8(b)));
}
static inline fc_v_u8 fc_max_u8(fc_v_u8 a, fc_v_u8 b) { return vmaxq_u8(a, b); }
static inline fc_v_u8 fc_signfill_u8(fc_v_u8 a)
{
    return vreinterpretq_u8_s8(vshrq_n_s8(vreinterpretq_s8_u8(a), 7));
}
static inline fc_m_u8 fc_gt_s8(fc_v_u8 a, fc_v_u8 b)
{
    return vcgtq_s8(vreinterpretq_s8_u8(a), vreinterpretq_s8_u8(b));
}
static inline fc_m_u8 fc_geu_u8(fc_v_u8 a, fc_v_u8 b) { return vcgeq_u8(a, b); }
static inline fc_v_u8 fc_select_u8(fc_m_u8 m, fc_v_u8 a, fc_v_u8 b) { return vbslq_u8(m, a, b); }

/* a vector of where= mask bytes (nonzero: set): every lane set, none set */
static inline int fc_all_set_u8(fc_v_u8 m) { return vminvq_u8(m) != 0; }
static inline int fc_none_set_u8(fc_v_u8 m) { return vmaxvq_u8(m) == 0; }

static inline fc_v_u16 fc_load_u16(const uint16_t *p) { return vld1q_u16(p); }
static inline void fc_store_u16(uint16_t *p, fc_v_u16 v) { vst1q_u16(p, v); }
static inline fc_v_u16 fc_set1_u16(uint16_t x) { return vdupq_n_u16(x); }
static inline fc_v_u16 fc_xor_u16(fc_v_u16 a, fc_v_u16 b) { return veorq_u16(a, b); }
static inline fc_v_u16 fc_or_u16(fc_v_u16 a, fc_v_u16 b) { return vorrq_u16(a, b); }
static inline fc_v_u16 fc_and_u16(fc_v_u16 a, fc_v_u16 b) { return vandq_u16(a, b); }
static inline fc_v_u16 fc_sub_u16(fc_v_u16 a, fc_v_u16 b) { return vsubq_u16(a, b); }
static inline fc_v_u16 fc_add_u16(fc_v_u16 a, fc_v_u16 b) { return vaddq_u16(a, b); }
static inline fc_v_u16 fc_min_s16(fc_v_u16 a, fc_v_u16 b)
{
    return vreinterpretq_u16_s16(vminq_s16(vreinterpretq_s16_u16(a), vreinterpretq_s16_u16(b)));
}
static inline fc_v_u16 fc_min_u16(fc_v_u16 a, fc_v_u16 b) { return vminq_u16(a, b); }
static inline fc_v_u16 fc_max_s16(fc_v_u16 a, fc_v_u16 b)
{
    return vreinterpretq_u16_s16(vmaxq_s16(vreinterpretq_s16_u16(a), vreinterpretq_s16_u16(b)));
}
static inline fc_v_u16 fc_max_u16(fc_v_u16 a, fc_v_u16 b) { return vmaxq_u16(a, b); }
static inline fc_v_u16 fc_signfill_u16(fc_v_u16 a)
{
    return vreinterpretq_u16_s16(vshrq_n_s16(vreinterpretq_s16_u16(a), 15));
}
static inline fc_m_u16 fc_gt_s16(fc_v_u16 a, fc_v_u16 b)
{
    return vcgtq_s16(vreinterpretq_s16_u16(a), vreinterpretq_s16_u16(b));
}
static inline fc_m_u16 fc_geu_u16(fc_v_u16 a, fc_v_u16 b) { return vcgeq_u16(a, b); }
static inline fc_v_u16 fc_select_u16(fc_m_u16 m, fc_v_u16 a, fc_v_u16 b) { return vbslq_u16(m, a, b); }

/* mask logic, for 8- and 16-bit lanes: a | b, a & b, a & ~b */
static inline fc_m_u8 fc_mor_u8(fc_m_u8 a, fc_m_u8 b) { return vorrq_u8(a, b); }
static inline fc_m_u8 fc_mand_u8(fc_m_u8 a, fc_m_u8 b) { return vandq_u8(a, b); }
static inline fc_m_u8 fc_mandnot_u8(fc_m_u8 a, fc_m_u8 b) { return vbicq_u8(a, b); }
static inline fc_m_u16 fc_mor_u16(fc_m_u16 a, fc_m_u16 b) { return vorrq_u16(a, b); }
static inline fc_m_u16 fc_mand_u16(fc_m_u16 a, fc_m_u16 b) { return vandq_u16(a, b); }
static inline fc_m_u16 fc_mandnot_u16(fc_m_u16 a, fc_m_u16 b) { return vbicq_u16(a, b); }

/* ---- strided rows (csrc/strided_rows.h): a vector of any lane width w in
 * bytes, the clip and the even lanes chosen by w and kind (0 signed int,
 * 1 unsigned int, 2 IEEE float), constants where the caller inlines ---- */
typedef uint8x16_t fc_vi;
#define FC_VI_BYTES 16

static inline fc_vi fc_vi_load(const void *p) { return vld1q_u8((const uint8_t *)p); }
static inline void fc_vi_store(void *p, fc_vi v) { vst1q_u8((uint8_t *)p, v); }
static inline fc_vi fc_vi_set1(int w, const void *value)
{
    uint64_t v = 0;
    memcpy(&v, value, (size_t)w);
    switch (w) {
    case 1: return vdupq_n_u8((uint8_t)v);
    case 2: return vreinterpretq_u8_u16(vdupq_n_u16((uint16_t)v));
    case 4: return vreinterpretq_u8_u32(vdupq_n_u32((uint32_t)v));
    default: return vreinterpretq_u8_u64(vdupq_n_u64(v));
    }
}
/* fc_vi (bytes) as a vector of another lane type and back; the identity for u8 */
#define FC_NEON_CLIP(SUF, VT, FROM, TO)                                        \
    do {                                                                       \
        VT xx = FROM(x), ll = FROM(lo), hh = FROM(hi);                         \
        VT t = vbslq_##SUF(vcltq_##SUF(xx, ll), ll, xx);                       \
        return TO(vbslq_##SUF(vcgtq_##SUF(t, hh), hh, t));                     \
    } while (0)
#define FC_NEON_CLIP_AS(SUF, VT) FC_NEON_CLIP(SUF, VT, FC_FROM_##SUF, FC_TO_##SUF)
#define FC_FROM_s8(v) vreinterpretq_s8_u8(v)
#define FC_TO_s8(v) vreinterpretq_u8_s8(v)
#define FC_FROM_u8(v) (v)
#define FC_TO_u8(v) (v)
#define FC_FROM_s16(v) vreinterpretq_s16_u8(v)
#define FC_TO_s16(v) vreinterpretq_u8_s16(v)
#define FC_FROM_u16(v) vreinterpretq_u16_u8(v)
#define FC_TO_u16(v) vreinterpretq_u8_u16(v)
#define FC_FROM_s32(v) vreinterpretq_s32_u8(v)
#define FC_TO_s32(v) vreinterpretq_u8_s32(v)
#define FC_FROM_u32(v) vreinterpretq_u32_u8(v)
#define FC_TO_u32(v) vreinterpretq_u8_u32(v)
#define FC_FROM_f32(v) vreinterpretq_f32_u8(v)
#define FC_TO_f32(v) vreinterpretq_u8_f32(v)
#define FC_FROM_s64(v) vreinterpretq_s64_u8(v)
#define FC_TO_s64(v) vreinterpretq_u8_s64(v)
#define FC_FROM_u64(v) vreinterpretq_u64_u8(v)
#define FC_TO_u64(v) vreinterpretq_u8_u64(v)
#define FC_FROM_f64(v) vreinterpretq_f64_u8(v)
#define FC_TO_f64(v) vreinterpretq_u8_f64(v)
/* the scalar-bounds clip, x < lo ? lo : x, then t > hi ? hi : t, as compares
 * and bsl (a NaN x compares false: x) */
static inline fc_vi fc_vi_clip(int w, int kind, fc_vi x, fc_vi lo, fc_vi hi)
{
    switch (w * 4 + kind) {        /* w bytes a lane, and its FC_LANE_ kind */
    case 4: FC_NEON_CLIP_AS(s8, int8x16_t);
    case 5: FC_NEON_CLIP_AS(u8, uint8x16_t);
    case 8: FC_NEON_CLIP_AS(s16, int16x8_t);
    case 9: FC_NEON_CLIP_AS(u16, uint16x8_t);
    case 16: FC_NEON_CLIP_AS(s32, int32x4_t);
    case 17: FC_NEON_CLIP_AS(u32, uint32x4_t);
    case 18: FC_NEON_CLIP_AS(f32, float32x4_t);
    case 32: FC_NEON_CLIP_AS(s64, int64x2_t);
    case 33: FC_NEON_CLIP_AS(u64, uint64x2_t);
    default: FC_NEON_CLIP_AS(f64, float64x2_t);
    }
}
#undef FC_NEON_CLIP_AS
#undef FC_NEON_CLIP
/* the even lanes of a, then the even lanes of b (odd_b: its odd lanes): uzp
 * gathers each vector's even (odd) lanes into its low half, zip1 on 64-bit
 * lanes joins the two low halves */
#define FC_NEON_EVEN(SUF, VT)                                                  \
    do {                                                                       \
        VT aa = FC_FROM_##SUF(a), bb = FC_FROM_##SUF(b);                       \
        VT e = vuzp1q_##SUF(aa, aa);                                           \
        VT f = odd_b ? vuzp2q_##SUF(bb, bb) : vuzp1q_##SUF(bb, bb);            \
        return vreinterpretq_u8_u64(vzip1q_u64(vreinterpretq_u64_##SUF(e),     \
                                               vreinterpretq_u64_##SUF(f)));   \
    } while (0)
static inline fc_vi fc_vi_even(int w, fc_vi a, fc_vi b, int odd_b)
{
    switch (w) {
    case 1: FC_NEON_EVEN(u8, uint8x16_t);
    case 2: FC_NEON_EVEN(u16, uint16x8_t);
    case 4: FC_NEON_EVEN(u32, uint32x4_t);
    default: {
        uint64x2_t aa = vreinterpretq_u64_u8(a), bb = vreinterpretq_u64_u8(b);
        return vreinterpretq_u8_u64(odd_b ? vzip1q_u64(aa, vzip2q_u64(bb, bb))
                                          : vzip1q_u64(aa, bb));
    }
    }
}
#undef FC_NEON_EVEN

#endif
