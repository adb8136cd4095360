/* Clip and convert into the 16- and 8-bit floats, and from float16
 * (csrc/convert.h's fused loops, whose macros these use): float32 ->
 * bfloat16 and float8 by bits, float32 and float64 -> float16 by blocks,
 * float16 -> float32. Included by convert.h alone. */

#ifndef FASTCLIP_CONVERT_SMALL_FLOATS_H
#define FASTCLIP_CONVERT_SMALL_FLOATS_H

/* float32 -> bfloat16 bits, rounding to nearest even (ml_dtypes' rule
 * for a value that is not NaN) */
static inline npy_uint16 fc_float_to_bfloat16(float f)
{
    npy_uint32 u;
    memcpy(&u, &f, sizeof u);
    return (npy_uint16)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

#define FC_BFLOAT16_MAX 3.3895313892515355e38    /* its largest finite value */

/* float32 -> a float8 format with M mantissa bits and exponent bias B:
 * round to nearest even, ml_dtypes' rule, by the float adder. With the
 * rounding's unit u (2**(e - M) for the value's exponent e, at least the
 * smallest normal's), a + 2**23 u rounds a to a whole number k of units,
 * read off the sum's mantissa (k <= 2**(M + 1), far below 2**23); the
 * encoding is (e + B - 1) << M, plus k (k = 2**M + the mantissa for a normal
 * result, the mantissa for a subnormal one, and a carry into the next
 * exponent falls out). Branch-free, so the vectoriser takes it at every
 * target (csrc/convert_vector.h's AVX2 and AVX-512 bodies are the same in
 * lanes); a subnormal float32 rounds to 0 either way, so a flush-to-zero
 * mode changes nothing. A value beyond the format's range (the bounds may
 * be any: FC_CONVERT_VECTOR_BEYOND) gets no code of the format
 * (from 2**108 up magic's bits are a signaling NaN, whose sum raises the
 * invalid flag): the loop tests the value and hands such a call to NumPy,
 * whose ufunc clears the flags first. (Capping the magnitude here, as the
 * vector body does, would slow the baseline build, where this loop is all
 * of the call, for a case that is rare.) A float64 comes here
 * rounded to nearest (ml_dtypes before 0.7) or to odd (rounding once, as
 * 0.7 does). csrc/float16.h's fc_double_to_float8 rounds bounds, NaN and
 * beyond the range included. */
static inline npy_uint8 fc_float_to_float8(float v, int M, int B)
{
    npy_uint32 u, sum;
    memcpy(&u, &v, sizeof u);
    npy_uint32 sign = (u >> 24) & 0x80u, a = u & 0x7fffffffu;
    npy_uint32 smallest = (npy_uint32)(128 - B) << 23;      /* the smallest normal's exponent */
    npy_uint32 e = (a & 0x7f800000u) > smallest ? (a & 0x7f800000u) : smallest;
    npy_uint32 magic = e + ((npy_uint32)(23 - M) << 23);
    float fa, fmagic, fsum;
    memcpy(&fa, &a, sizeof fa);
    memcpy(&fmagic, &magic, sizeof fmagic);
    fsum = fa + fmagic;
    memcpy(&sum, &fsum, sizeof sum);
    npy_uint32 top = (e >> (23 - M)) - ((npy_uint32)(128 - B) << M);
    return (npy_uint8)(sign | (top + (sum - magic)));
}

/* m floats (within float16's range, or NaN) -> float16, to nearest even */
static inline void fc_floats_to_half(const float *buf, npy_uint16 *o, npy_intp m)
{
    npy_intp j = 0;
#if FC_HAVE_F16C
    for (; j + 8 <= m; j += 8) {
        fc_f16c_floats_to_half(buf + j, o + j);
    }
#endif
    for (; j < m; j++) {
        o[j] = fc_float_to_half_in_range(buf[j]);
    }
}

/* The float16 narrowings' bounds check and block loop, for a float32 or float64
 * source (S): clipped in S, each value made a float by TO_FLOAT (exact for
 * float32, rounded to odd for float64, below), then rounded to float16.
 * ANY_BOUNDS (src/fastclip/_dtypes.py's): any non-NaN bounds,
 * the one-sided calls among them. A clipped value beyond float16's largest
 * finite (65504), which NumPy's cast makes infinity with the overflow flag
 * or rounds down to 65504, is reported as a NaN is, one compare for both
 * (!(|v| <= 65504)), and the caller hands the call to NumPy; with bounds
 * inside the range only a NaN can be. */
#define FC_ABS_float fabsf     /* by type: GCC vectorised the loop with these, */
#define FC_ABS_double fabs     /* not with two compares (control flow, it said) */
#define FC_HALF_NARROWING(SN, S, TO_FLOAT, ANY_BOUNDS)                           \
    static int fc_in_range_##SN##_half(const void *plo, const void *phi)         \
    {                                                                            \
        S lo = *(const S *)plo, hi = *(const S *)phi;                            \
        return lo == lo && hi == hi && ((ANY_BOUNDS) || (fabs((double)lo) <= 65504.0 && \
                                                         fabs((double)hi) <= 65504.0)); \
    }                                                                            \
    static FC_CONVERT_LOOP int fc_half_blocks_##SN(const S *x, npy_uint16 *o, npy_intp n, \
                                                   S lo, S hi)                   \
    {                                                                            \
        float buf[FC_CONVERT_BLOCK];                                             \
        int nan = 0;                                                             \
        for (npy_intp i = 0; i < n; i += FC_CONVERT_BLOCK) {                     \
            npy_intp m = n - i < FC_CONVERT_BLOCK ? n - i : FC_CONVERT_BLOCK;    \
            for (npy_intp j = 0; j < m; j++) {                                   \
                S v = x[i + j];                                                  \
                FC_CLIP(v, lo, hi);                                              \
                nan |= !(FC_ABS_##SN(v) <= (S)65504.0);                          \
                buf[j] = TO_FLOAT(v);                                            \
            }                                                                    \
            fc_floats_to_half(buf, o + i, m);                                    \
        }                                                                        \
        return nan;                                                              \
    }

#define FC_FLOAT_ITSELF(v) (v)
FC_HALF_NARROWING(float, float, FC_FLOAT_ITSELF, 1)

static FC_CONVERT_LOOP int fc_cvt_float_half(const char *px, char *po, npy_intp n, const void *plo,
                                             const void *phi)
{
    return fc_half_blocks_float((const float *)px, (npy_uint16 *)po, n,
                                *(const float *)plo, *(const float *)phi);
}

/* float64 -> float32 rounded to odd: truncated toward zero, with the last bit
 * set when the conversion was inexact. Rounding that float to float16 (11
 * bits, 24 >= 11 + 2) to nearest even then equals rounding the double to
 * float16 directly (Boldo and Melquiond, "When double rounding is odd",
 * 2005); the float32 rounded to nearest instead could land on a float16
 * halfway point and tie the wrong way. The same holds for bfloat16 (8 bits)
 * and the float8s (3 and 4), subnormals included: float32's 2**-149 is far
 * below their smallest steps. Branch-free, for the vectoriser. */
static inline float fc_double_to_float_odd(double d)
{
    float f = (float)d;
    double back = (double)f;
    npy_uint32 u;
    memcpy(&u, &f, sizeof u);
    u -= (npy_uint32)(fabs(back) > fabs(d));     /* rounded away from zero: step back */
    u |= (npy_uint32)(back != d);                /* inexact: the sticky bit */
    memcpy(&f, &u, sizeof f);
    return f;
}

FC_HALF_NARROWING(double, double, fc_double_to_float_odd, 1)

static FC_CONVERT_LOOP int fc_cvt_double_half(const char *px, char *po, npy_intp n, const void *plo,
                              const void *phi)
{
    const double *x = (const double *)px;
    npy_uint16 *o = (npy_uint16 *)po;
    double lo = *(const double *)plo, hi = *(const double *)phi;
    int nan = 0;
    npy_intp start = 0;
#if defined(FC_HAVE_CONVERT_VECTOR) && defined(FC_SIMD_STORE_HALF)
    /* The same steps in the vector layer (GCC's vectorisation of the loop
     * below is far slower): clipped (max(lo, v) is "v < lo ? lo : v"
     * exactly, min(hi, v) "v > hi ? hi : v"), rounded to odd where the float
     * is normal (below 2**-126 float16 is 0 either way), then to float16 by
     * the conversion instruction. A NaN is noted by one compare of the two
     * vectors as loaded; with a bound beyond float16's range (any bounds:
     * ANY_BOUNDS) the clipped lanes are tested as the block loop tests its
     * values, !(|v| <= 65504), a NaN's too (the branch is the same for the
     * whole loop, which GCC's -O3 unswitches). */
    const int beyond_possible = !(fabs(lo) <= 65504.0 && fabs(hi) <= 65504.0);
    fc_v_f64 vlo = fc_set1_f64(lo), vhi = fc_set1_f64(hi);
    fc_m_f64 nan_lanes = fc_isnan_f64(fc_set1_f64(0.0));
    for (; start + FC_LANES_f32 <= n; start += FC_LANES_f32) {
        fc_v_f64 a = fc_load_f64(x + start), b = fc_load_f64(x + start + FC_LANES_f64);
        if (!beyond_possible) {
            nan_lanes = fc_or_mask_f64(nan_lanes, fc_either_nan_f64(a, b));
        }
        a = fc_ltsel_f64(vhi, fc_gtsel_f64(vlo, a));
        b = fc_ltsel_f64(vhi, fc_gtsel_f64(vlo, b));
        if (beyond_possible) {
            nan_lanes = fc_or_mask_f64(nan_lanes, fc_beyond_f64x2(a, b, 65504.0));
        }
        fc_store_half_f32(o + start, fc_odd_normal_f32_f64x2(a, b));
    }
    nan = fc_any_mask_f64(nan_lanes);
#endif
    return nan | fc_half_blocks_double(x + start, o + start, n - start, lo, hi);
}

/* float16 -> float32, exactly: each case computed and the right one kept by
 * bitwise selects, so that the vectoriser takes the loops that call it (with
 * branches GCC left them scalar) */
static inline float fc_half_to_float(npy_uint16 h)
{
    npy_uint32 sign = (npy_uint32)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    npy_uint32 normal = ((e + 112) << 23) | (m << 13);         /* rebiased */
    npy_uint32 special = 0x7f800000u | (m << 13);              /* infinity, NaN */
    float scaled = (float)m * (1.0f / 16777216.0f);            /* subnormal: m * 2**-24 */
    npy_uint32 small;
    memcpy(&small, &scaled, sizeof small);                     /* (zero for m == 0) */
    npy_uint32 is_special = (npy_uint32)0 - (npy_uint32)(e == 0x1f);
    npy_uint32 is_small = (npy_uint32)0 - (npy_uint32)(e == 0);
    npy_uint32 u = (special & is_special) | (small & is_small) | (normal & ~(is_special | is_small));
    u |= sign;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static int fc_in_range_half_float(const void *plo, const void *phi)
{
    npy_uint16 lo = *(const npy_uint16 *)plo, hi = *(const npy_uint16 *)phi;
    return (lo & 0x7fffu) <= 0x7c00u && (hi & 0x7fffu) <= 0x7c00u;   /* not NaN */
}

static FC_CONVERT_LOOP int fc_cvt_half_float(const char *px, char *po, npy_intp n, const void *plo,
                             const void *phi)
{
    const npy_uint16 *x = (const npy_uint16 *)px;
    float *o = (float *)po;
    float lo = fc_half_to_float(*(const npy_uint16 *)plo);
    float hi = fc_half_to_float(*(const npy_uint16 *)phi);
    int nan = 0;
    npy_intp i = 0;
#if FC_HAVE_F16C
    for (; i + 8 <= n; i += 8) {
        nan |= fc_f16c_half_to_floats_clipped(x + i, o + i, lo, hi);
    }
#endif
    for (; i < n; i++) {
        float v = fc_half_to_float(x[i]);
        nan |= v != v;
        FC_CLIP(v, lo, hi);
        o[i] = v;
    }
    return nan != 0;
}

#endif  /* FASTCLIP_CONVERT_SMALL_FLOATS_H */
