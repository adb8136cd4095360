/* Converting a Python float (a C double) to the bits of a 16- or 8-bit float,
 * rounding the way NumPy and ml_dtypes do, so the fast path's bounds equal
 * the bounds np.float16(v) and ml_dtypes.bfloat16(v) would give, and the
 * float8 bounds of docs/semantics.rst.
 *
 * float16: NumPy converts double -> half directly (npy_double_to_half), with
 * one round-to-nearest-even step; going through float first would round twice.
 * bfloat16: ml_dtypes converts double -> float -> bfloat16 (checked: 1 + 2**-8 +
 * 2**-30 gives 1.0, not 1 + 2**-7), so we do the same.
 *
 * Both report overflow of a finite value to infinity through *overflow, so the
 * caller can hand such a call to NumPy, which warns about it.
 */
#ifndef FASTCLIP_FLOAT16_H
#define FASTCLIP_FLOAT16_H

#include <stdint.h>
#include <string.h>
#include <math.h>

static inline uint16_t fc_double_to_half(double d, int *overflow)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    uint16_t sign = (uint16_t)((b >> 48) & 0x8000u);
    uint64_t exp = (b >> 52) & 0x7ffu;
    uint64_t man = b & 0xfffffffffffffULL;
    *overflow = 0;

    if (exp == 0x7ff) {
        if (man == 0) {
            return sign | 0x7c00u;                       /* +-inf */
        }
        /* NaN: keep the top payload bits as npy_double_to_half does, and make
         * sure the result is still a NaN. */
        uint16_t payload = (uint16_t)(man >> 42);
        return sign | 0x7c00u | (payload ? payload : 1u);
    }
    int e = (int)exp - 1023 + 15;                        /* half exponent */
    if (e >= 31) {
        *overflow = 1;
        return sign | 0x7c00u;
    }
    uint64_t full, rem, halfway;
    int shift;
    uint32_t h;
    if (e <= 0) {
        /* half subnormal: units of 2**-24 */
        if (exp == 0) {
            return sign;                                 /* double subnormal or 0 */
        }
        full = man | (1ULL << 52);
        shift = 1051 - (int)exp;                         /* >= 43 */
        if (shift > 63) {
            return sign;
        }
        h = (uint32_t)(full >> shift);
        rem = full & ((1ULL << shift) - 1);
        halfway = 1ULL << (shift - 1);
    }
    else {
        h = ((uint32_t)e << 10) | (uint32_t)(man >> 42);
        rem = man & ((1ULL << 42) - 1);
        halfway = 1ULL << 41;
    }
    /* round to nearest, ties to even; a carry runs into the exponent, which
     * is the right encoding (up to 0x7c00, infinity) */
    if (rem > halfway || (rem == halfway && (h & 1u))) {
        h += 1;
    }
    if (h >= 0x7c00u) {
        *overflow = 1;
    }
    return sign | (uint16_t)h;
}

/* fc_double_to_half((double)f) for a float f within float16's range
 * (|f| <= 65504) or a NaN, branch-free, so that the compiler vectorises a
 * loop of it where F16C is missing (SSE4.2, SSE2, NEON): a float16 normal is
 * f's bits rebased and rounded to nearest even at bit 13; a subnormal or
 * zero (below 2**-14) is added to 0.5, whose step 2**-24 is float16's
 * smallest, and the FPU rounds; a NaN is quieted and keeps its top payload
 * bits, as by way of the double. Checked against fc_double_to_half for all
 * 2**32 floats of that domain (2415902720 of them, no difference). */
static inline uint16_t fc_float_to_half_in_range(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    uint32_t sign = (u >> 16) & 0x8000u;
    int32_t a = (int32_t)(u & 0x7fffffffu);
    uint32_t normal = ((uint32_t)a - (112u << 23) + 0xfffu + (((uint32_t)a >> 13) & 1u)) >> 13;
    float magnitude, sum;
    memcpy(&magnitude, &a, sizeof magnitude);
    sum = magnitude + 0.5f;
    uint32_t sum_bits;
    memcpy(&sum_bits, &sum, sizeof sum_bits);
    uint32_t subnormal = sum_bits - 0x3f000000u;                 /* 0.5's bits */
    uint32_t nan = 0x7c00u | ((((uint32_t)a & 0x7fffffu) | 0x400000u) >> 13);
    /* masks, not ?: (GCC made the ?: branches, and the loop scalar) */
    uint32_t is_nan = 0u - (uint32_t)(a > 0x7f800000), is_small = 0u - (uint32_t)(a < (113 << 23));
    uint32_t h = (nan & is_nan) | (~is_nan & ((subnormal & is_small) | (normal & ~is_small)));
    return (uint16_t)(sign | h);
}

static inline uint16_t fc_double_to_bfloat16(double d, int *overflow)
{
    float f = (float)d;
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    *overflow = 0;
    if ((b & 0x7fffffffu) > 0x7f800000u) {
        /* NaN: ml_dtypes returns the default quiet NaN with the sign kept
         * (checked: a float64 NaN with payload 0x4000000000000 gives 0x7fc0) */
        return (uint16_t)(((b >> 16) & 0x8000u) | 0x7fc0u);
    }
    uint32_t lsb = (b >> 16) & 1u;
    uint16_t r = (uint16_t)((b + 0x7fffu + lsb) >> 16);  /* nearest, ties to even */
    /* a finite double that ends as infinity, in float or in the rounding to
     * bfloat16 */
    *overflow = (d - d == 0) && (r & 0x7fffu) == 0x7f80u;
    return r;
}

/* float8 (M mantissa bits, exponent bias B; has_inf: e5m2, not e4m3fn) as
 * the bfloat16/float8 rule (docs/semantics.rst) rounds a bound: through float32 (overflow there is reported,
 * for NumPy's warning), to nearest even; NaN is ml_dtypes' NaN of the sign
 * (checked: 0x7f/0xff in e4m3fn, 0x7e/0xfe in e5m2); beyond the finite range
 * e5m2 rounds to infinity as ml_dtypes does, e4m3fn saturates at +-448 (where
 * ml_dtypes would give NaN). */
static inline uint8_t fc_double_to_float8(double d, int M, int B, int has_inf,
                                          int *overflow)
{
    float f = (float)d;
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    uint32_t sign = (u >> 24) & 0x80u, a = u & 0x7fffffffu, r;
    uint32_t largest = has_inf ? (0x7cu - 1u) : 0x7eu;    /* largest finite */
    *overflow = (d - d == 0) && a == 0x7f800000u;
    if (a > 0x7f800000u) {
        return (uint8_t)(sign | (has_inf ? 0x7eu : 0x7fu));
    }
    if (a >= ((uint32_t)(127 - B + 1) << 23)) {          /* normal in the format */
        /* (infinity too: it rounds to beyond the largest) */
        int shift = 23 - M;
        a += ((1u << (shift - 1)) - 1u) + ((a >> shift) & 1u);
        r = (a >> shift) - ((uint32_t)(127 - B) << M);
        if (r > largest) {                               /* beyond the finite range */
            r = has_inf ? 0x7cu : largest;
        }
    }
    else {
        float g;
        memcpy(&g, &a, sizeof g);
        r = (uint32_t)rintf(g * (float)(1 << (B - 1 + M)));
    }
    return (uint8_t)(sign | r);
}

#endif
