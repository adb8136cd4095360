/* The vector groups of the conversions into float8 and bfloat16 (float32
 * and float64 sources): rounding to nearest even by the float adder, and
 * the float64 roundings to odd that make one rounding of two. Included by
 * csrc/convert_vector.h alone, at the place they are used from. */
#ifndef FASTCLIP_CONVERT_VECTOR_SMALL_FLOATS_H
#define FASTCLIP_CONVERT_VECTOR_SMALL_FLOATS_H

/* float32 -> a float8 format with M mantissa bits and exponent bias B, in
 * lanes, rounded to nearest even by the float adder: with the rounding's
 * unit u (2**(e - M) for a's exponent e, at least the smallest normal's),
 * a + magic, magic = 2**23 u (1 + D / 2**23), rounds a to a whole number k
 * of units, and the sum's bits are magic's plus k (k <= 2**(M + 1), far
 * below 2**23; D is even, so a tie goes to the even k). The encoding's
 * magnitude is (e + B - 1) << M, plus k (k = 2**M + the mantissa for a
 * normal, the mantissa for a subnormal, and a carry into the next exponent
 * falls out). That sum of the exponent's part and k is read off the sum's
 * bits by one multiply-add of their 16-bit halves: the high half is magic's
 * exponent field << 7, so the high half plus w = 2**(7 - M) times the low
 * half, D + k - 2**16 as a signed half (D = 2**16 - C, C the exponents'
 * offset), is w times the code (w t = FC_FLOAT8_SHIFT bits, undone after
 * the first pack). 9 instructions for 8 lanes with the clip, where taking
 * k = sum - magic and adding the shifted exponent takes 11.
 * With bounds inside the format's range a clipped value is too, and its
 * code below 127 (at most 0x7e in e4m3fn, 0x7b in e5m2); the bounds may
 * be any (src/fastclip/_dtypes.py ANY_BOUNDS). A NaN (the clip keeps
 * it), an infinity or a magnitude beyond 2**20 is first made 2**20 (a's
 * integer min with 2**20's bits), whose code (0xd8 in e4m3fn, 0x8c in
 * e5m2) saturates to 0x7f in the packs, the mark the float8 loop
 * (csrc/conversion_vectors.h.in) looks for (with infinity's bits in the min,
 * the clamp placed ahead of the bounds, a magnitude of 2**108 made magic a
 * signaling NaN). A subnormal float32 rounds to 0 either way, so a
 * flush-to-zero mode changes nothing. The group returns w times the
 * magnitude's code and leaves the clipped value's bits in *bits, whose sign
 * the float8 loop packs. The _within groups, for bounds inside the format's
 * range, leave out the clamp to 2**20 (the float8 loop says when). */
#define FC_FLOAT8_GROUP(NAME, M, B)                                            \
    enum { FC_FLOAT8_SHIFT_##NAME = 7 - (M) };                                 \
    static inline fc_v_u32 fc_float8_rounded_##NAME(fc_v_u32 a)                \
    {                                                                          \
        const uint32_t offset = (uint32_t)((23 - (M)) + (128 - (B))) << (M);   \
        fc_v_u32 e = fc_max_s32(fc_and_u32(a, fc_set1_u32(0x7f800000u)),       \
                                fc_set1_u32((uint32_t)(128 - (B)) << 23));     \
        fc_v_u32 magic = fc_add_u32(e, fc_set1_u32(((uint32_t)(23 - (M)) << 23) \
                                                   + (0x10000u - offset)));     \
        fc_v_u32 sum = fc_as_u32_f32(fc_add_f32(fc_as_f32_u32(a), fc_as_f32_u32(magic))); \
        return fc_madd_s16(sum, fc_set1_u32(0x10000u | (1u << (7 - (M)))));   \
    }                                                                          \
    static inline fc_v_u32 fc_float8_code_##NAME(fc_v_f32 clipped, fc_v_u32 *bits) \
    {                                                                          \
        fc_v_u32 u = fc_as_u32_f32(clipped);                                   \
        *bits = u;                                                             \
        return fc_float8_rounded_##NAME(                                       \
            fc_min_s32(fc_and_u32(u, fc_set1_u32(0x7fffffffu)),                \
                       fc_set1_u32(0x49800000u)));  /* 2**20 */                \
    }                                                                          \
    static inline fc_v_u32 fc_float8_code_within_##NAME(fc_v_f32 clipped, fc_v_u32 *bits) \
    {                                                                          \
        fc_v_u32 u = fc_as_u32_f32(clipped);                                   \
        *bits = u;                                                             \
        return fc_float8_rounded_##NAME(fc_and_u32(u, fc_set1_u32(0x7fffffffu))); \
    }                                                                          \
    static inline fc_v_u32 fc_group_f32_##NAME(const float *x, fc_cvt_state_t *s, \
                                               fc_v_u32 *bits)                 \
    {                                                                          \
        return fc_float8_code_##NAME(fc_clip_group_f32(x, s->lo32, s->hi32), bits); \
    }                                                                          \
    static inline fc_v_u32 fc_group_f32_##NAME##_within(const float *x, fc_cvt_state_t *s, \
                                                        fc_v_u32 *bits)        \
    {                                                                          \
        return fc_float8_code_within_##NAME(fc_clip_group_f32(x, s->lo32, s->hi32), bits); \
    }                                                                          \
    FC_FLOAT8_FROM_DOUBLE(NAME, once, )                                        \
    FC_FLOAT8_FROM_DOUBLE(NAME, once, _within)                                 \
    FC_FLOAT8_FROM_DOUBLE(NAME, via_float32, )                                 \
    FC_FLOAT8_FROM_DOUBLE(NAME, via_float32, _within)
/* float64 sources: clipped in float64, then rounded to float32 as the
 * installed ml_dtypes rounds a float64 (src/fastclip/_dtypes.py,
 * ML_ROUNDINGS): to odd, which makes the float's own rounding the double's
 * (fc_odd_normal_f32_f64x2: odd where the float is normal, and the float8s
 * round the rest to 0), or to nearest first (fc_nearest_f32_f64x2). A NaN
 * comes out a NaN and its code the mark. */
#define fc_round_f32_once fc_odd_normal_f32_f64x2
#define fc_round_f32_via_float32 fc_nearest_f32_f64x2
#define FC_FLOAT8_FROM_DOUBLE(NAME, ROUNDING, WITHIN)                          \
    static inline fc_v_u32 fc_group_f64_##NAME##_##ROUNDING##WITHIN(const double *x, \
                                                                    fc_cvt_state_t *s, \
                                                                    fc_v_u32 *bits) \
    {                                                                          \
        return fc_float8_code##WITHIN##_##NAME(                                  \
            fc_round_f32_##ROUNDING(fc_clip_group_f64(x, s->lo64, s->hi64),    \
                                    fc_clip_group_f64(x + FC_LANES_f64, s->lo64, s->hi64)), \
            bits);                                                             \
    }
FC_FLOAT8_GROUP(float8_e4m3fn, 3, 7)
FC_FLOAT8_GROUP(float8_e5m2, 2, 15)
#undef FC_FLOAT8_GROUP
#undef FC_FLOAT8_FROM_DOUBLE

/* float64 -> bfloat16: clipped and rounded to float32 as above (to odd
 * everywhere, fc_odd_f32_f64x2: bfloat16 has float32's subnormals), then to
 * bfloat16 to nearest even (fc_float_to_bfloat16 in lanes); a NaN noted by
 * the compare (nan64). With any bounds (src/fastclip/_dtypes.py
 * ANY_BOUNDS), a bound beyond float32's range (s->beyond_f32), the clipped
 * lanes beyond it are noted as a NaN is, by one compare too (the NaNs
 * among them): ml_dtypes' cast warns of overflow for such a double, and
 * the caller hands the call to NumPy, as the scalar loop's BEYOND does. A
 * value beyond bfloat16's largest but within float32's rounds to infinity
 * here as there, with no warning from either. */
#define FC_BFLOAT16_FROM_DOUBLE(ROUNDING)                                      \
    static inline fc_v_u32 fc_bfloat16_bits_##ROUNDING(fc_v_f64 a, fc_v_f64 b) \
    {                                                                          \
        fc_v_u32 u = fc_as_u32_f32(fc_bfloat16_round_##ROUNDING(a, b));        \
        fc_v_u32 odd = fc_and_u32(fc_srli_u32(u, 16), fc_set1_u32(1));         \
        return fc_srli_u32(fc_add_u32(u, fc_add_u32(odd, fc_set1_u32(0x7fffu))), 16); \
    }                                                                          \
    static inline fc_v_u32 fc_group_f64_bfloat16_##ROUNDING(const double *x, fc_cvt_state_t *s) \
    {                                                                          \
        fc_v_f64 a = fc_load_f64(x), b = fc_load_f64(x + FC_LANES_f64);        \
        s->nan64 = fc_or_mask_f64(s->nan64, fc_either_nan_f64(a, b));          \
        return fc_bfloat16_bits_##ROUNDING(fc_ltsel_f64(s->hi64, fc_gtsel_f64(s->lo64, a)), \
                                           fc_ltsel_f64(s->hi64, fc_gtsel_f64(s->lo64, b))); \
    }                                                                          \
    static inline fc_v_u32 fc_group_f64_bfloat16_##ROUNDING##_beyond(const double *x, \
                                                                     fc_cvt_state_t *s) \
    {                                                                          \
        fc_v_f64 a = fc_clip_group_f64(x, s->lo64, s->hi64);                   \
        fc_v_f64 b = fc_clip_group_f64(x + FC_LANES_f64, s->lo64, s->hi64);    \
        s->nan64 = fc_or_mask_f64(s->nan64, fc_beyond_f64x2(a, b, FLT_MAX));   \
        return fc_bfloat16_bits_##ROUNDING(a, b);                              \
    }
#define fc_bfloat16_round_once fc_odd_f32_f64x2
#define fc_bfloat16_round_via_float32 fc_nearest_f32_f64x2
FC_BFLOAT16_FROM_DOUBLE(once)
FC_BFLOAT16_FROM_DOUBLE(via_float32)
#undef fc_bfloat16_round_once
#undef fc_bfloat16_round_via_float32
#if defined(FC_ODD_F32_CHECKED_BY_UNDERFLOW)
#define fc_bfloat16_round_sticky fc_odd_normal_f32_f64x2
FC_BFLOAT16_FROM_DOUBLE(sticky)
#undef fc_bfloat16_round_sticky
#endif
#undef FC_BFLOAT16_FROM_DOUBLE
#undef fc_round_f32_once
#undef fc_round_f32_via_float32

#endif  /* FASTCLIP_CONVERT_VECTOR_SMALL_FLOATS_H */
