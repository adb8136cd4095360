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
 * be any: the loop's beyond test) gets no code of the format
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

#endif  /* FASTCLIP_CONVERT_SMALL_FLOATS_H */
