/* The vector groups of the conversions into bfloat16 (float64 sources), and
 * the float64 roundings to float32 that the float8 groups
 * (csrc/conversion_vectors.h.in, a block a format) call: to odd, which
 * makes one rounding of two, or to nearest. Included by
 * csrc/convert_vector.h alone, at the place they are used from. */
#ifndef FASTCLIP_CONVERT_VECTOR_SMALL_FLOATS_H
#define FASTCLIP_CONVERT_VECTOR_SMALL_FLOATS_H

/* float64 sources: clipped in float64, then rounded to float32 as the
 * installed ml_dtypes rounds a float64 (src/fastclip/_dtypes.py,
 * ML_ROUNDINGS): to odd, which makes the float's own rounding the double's
 * (fc_odd_normal_f32_f64x2: odd where the float is normal, and the float8s
 * round the rest to 0), or to nearest first (fc_nearest_f32_f64x2). A NaN
 * comes out a NaN and its code the mark (the float8 groups of
 * csrc/conversion_vectors.h.in). */
#define fc_round_f32_once fc_odd_normal_f32_f64x2
#define fc_round_f32_via_float32 fc_nearest_f32_f64x2

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

#endif  /* FASTCLIP_CONVERT_VECTOR_SMALL_FLOATS_H */
