/* A vector conversion's state from the call's bounds, by source (the bounds
 * as vectors, the NaN seen), and the loops a source without a vector body
 * names. Included by csrc/convert_vector.h alone, at the place they are
 * used from. */
#ifndef FASTCLIP_CONVERT_VECTOR_STATE_H
#define FASTCLIP_CONVERT_VECTOR_STATE_H

/* the state for a loop from source S's bounds (the other sources' fields
 * unused) */
static inline void fc_cvt_state_nan(fc_cvt_state_t *s)
{
    s->least = fc_set1_u32((uint32_t)INT32_MAX);
    s->codes_seen = fc_set1_u8(0);
    s->nan64 = fc_isnan_f64(fc_set1_f64(0.0));
}
static inline void fc_cvt_state_float(fc_cvt_state_t *s, float lo, float hi)
{
    s->lo32 = fc_set1_f32(lo);
    s->hi32 = fc_set1_f32(hi);
    s->lo = lo;
    s->hi = hi;
    /* for the integer destinations, whose bounds check keeps both inside
     * their range (others leave them unused) */
    s->lo_int = fabsf(lo) < 2147483648.0f ? (int)lo : 0;
    s->hi_int = fabsf(hi) < 2147483648.0f ? (int)hi : 0;
    fc_cvt_state_nan(s);
}
static inline void fc_cvt_state_double(fc_cvt_state_t *s, double lo, double hi)
{
    s->lo64 = fc_set1_f64(lo);
    s->hi64 = fc_set1_f64(hi);
    s->lo = lo;
    s->hi = hi;
    s->beyond_f32 = !(fabs(lo) <= FLT_MAX && fabs(hi) <= FLT_MAX);
    s->tiny_bound = (lo != 0.0 && fabs(lo) < FLT_MIN) || (hi != 0.0 && fabs(hi) < FLT_MIN);
    /* as for float32 */
    s->lo_int = fabs(lo) < 2147483648.0 ? (int)lo : 0;
    s->hi_int = fabs(hi) < 2147483648.0 ? (int)hi : 0;
    fc_cvt_state_nan(s);
}
static inline void fc_cvt_state_longlong(fc_cvt_state_t *s, int64_t lo, int64_t hi)
{
    /* the 8- and 16-bit destinations' loops take the bounds within their
     * range (lo_s64, hi_s64), int32's and float32's within int32 */
    s->bounds_fit_s32 = lo >= INT32_MIN && lo <= INT32_MAX && hi >= INT32_MIN && hi <= INT32_MAX;
    s->lo_s64 = lo;
    s->hi_s64 = hi;
#if FC_SIMD_CONVERT_INT64
    s->lo_v64 = fc_set1_s64(lo);
    s->hi_v64 = fc_set1_s64(hi);
#endif
    s->lo_s32 = fc_set1_u32((uint32_t)(int32_t)lo);
    s->hi_s32 = fc_set1_u32((uint32_t)(int32_t)hi);
    s->below_s32 = fc_set1_u32((uint32_t)(int32_t)(lo < hi ? lo : hi));
}
/* whether the loop met a NaN, by source */
static inline int fc_cvt_nan_float(const fc_cvt_state_t *s)
{
    return fc_any_eq_u32(s->least, (uint32_t)INT32_MIN)
           || !fc_none_set_u8(fc_and_u8(fc_add_u8(s->codes_seen, fc_set1_u8(1)), fc_set1_u8(0x80)));
}
static inline int fc_cvt_nan_double(const fc_cvt_state_t *s)
{
    return fc_any_eq_u32(s->least, (uint32_t)INT32_MIN) || fc_any_mask_f64(s->nan64)
           || !fc_none_set_u8(fc_and_u8(fc_add_u8(s->codes_seen, fc_set1_u8(1)), fc_set1_u8(0x80)));
}
static inline int fc_cvt_nan_longlong(const fc_cvt_state_t *s) { (void)s; return 0; }
/* 8- and 16-bit sources: the bounds in 32-bit lanes (each value's own,
 * sign- or zero-extended by its type); no NaN */
#define FC_CVT_STATE_SMALL_INT(SN, T)                                          \
    static inline void fc_cvt_state_##SN(fc_cvt_state_t *s, T lo, T hi)        \
    {                                                                          \
        s->bounds_fit_s32 = 1;                                                 \
        s->lo_s32 = fc_set1_u32((uint32_t)(int32_t)lo);                        \
        s->hi_s32 = fc_set1_u32((uint32_t)(int32_t)hi);                        \
    }
FC_CVT_STATE_SMALL_INT(ubyte, uint8_t)
FC_CVT_STATE_SMALL_INT(byte, int8_t)
FC_CVT_STATE_SMALL_INT(ushort, uint16_t)
FC_CVT_STATE_SMALL_INT(short, int16_t)
#undef FC_CVT_STATE_SMALL_INT
#define fc_cvt_nan_ubyte fc_cvt_nan_longlong
#define fc_cvt_nan_byte fc_cvt_nan_longlong
#define fc_cvt_nan_ushort fc_cvt_nan_longlong
#define fc_cvt_nan_short fc_cvt_nan_longlong

/* long is int64 where it is 64 bits wide (not on Windows): then its state
 * is longlong's (and its vector bodies int64's, csrc/conversion_vectors.h.in),
 * else none (the scalar loop does it all) */
#if LONG_MAX == INT64_MAX
#define fc_cvt_state_long fc_cvt_state_longlong
#else
static inline void fc_cvt_state_long(fc_cvt_state_t *s, long lo, long hi)
{
    (void)s; (void)lo; (void)hi;
}
#endif
#define fc_cvt_nan_long fc_cvt_nan_longlong

#endif  /* FASTCLIP_CONVERT_VECTOR_STATE_H */
