/* The 16- and 8-bit floats (float16, bfloat16, the float8s) with scalar
 * bounds, contiguous, one vector at a time, written once against the vector
 * layer (csrc/simd/).
 *
 * Each element is compared through its unsigned order key, x ^ (x < 0 ? all
 * ones : the sign bit), which sorts the bit patterns as -NaN < -inf < ... <
 * -0 < +0 < ... < +inf < +NaN; src/fastclip/_kernels.pyx.in's keys_<name> turns
 * the bounds into two spans of keys, those below lo and those above hi, so
 * that each test is one subtraction and one unsigned compare, with a NaN x
 * outside both. The output is always the bits of x, lo or hi.
 *
 * Returns how many elements it did (a whole number of vectors); the caller's
 * loop does the rest. FC_HAVE_KEYED: the builds with a vector layer.
 */
#ifndef FASTCLIP_KEYED_H
#define FASTCLIP_KEYED_H

#include <stdint.h>
#include <numpy/npy_common.h>
#include "simd/simd.h"

#if FC_SIMD

#define FC_HAVE_KEYED 1

/* T: lane type; C: its C type; SIGN: the sign bit */
#define FC_KEYED(T, C, SIGN)                                                   \
    static inline npy_intp fc_keyed_contiguous_##T(const C *x, C *out, npy_intp n, C lo_out, \
                                                   C hi, C below_span, C above_base, \
                                                   C above_span, C below_base) \
    {                                                                          \
        const npy_intp lanes = FC_LANES_##T;                                   \
        const fc_v_##T sign = fc_set1_##T(SIGN), vlo = fc_set1_##T(lo_out);    \
        const fc_v_##T vhi = fc_set1_##T(hi), bbase = fc_set1_##T(below_base); \
        const fc_v_##T bspan = fc_set1_##T(below_span), abase = fc_set1_##T(above_base); \
        const fc_v_##T aspan = fc_set1_##T(above_span);                        \
        npy_intp i = 0, whole = n > 0 ? n - n % lanes : 0;                      \
        for (; i < whole; i += lanes) {                                        \
            fc_v_##T v = fc_load_##T(x + i);                                   \
            fc_v_##T k = fc_xor_##T(v, fc_or_##T(fc_signfill_##T(v), sign));    \
            fc_v_##T t = fc_select_##T(fc_geu_##T(fc_sub_##T(k, abase), aspan), v, vhi); \
            fc_store_##T(out + i,                                              \
                         fc_select_##T(fc_geu_##T(fc_sub_##T(k, bbase), bspan), t, vlo)); \
        }                                                                      \
        return i;                                                              \
    }
FC_KEYED(u16, uint16_t, 0x8000)
FC_KEYED(u8, uint8_t, 0x80)
#undef FC_KEYED

#endif
#endif
