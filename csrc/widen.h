/* Results wider than x in one pass: a call whose NumPy loop is of a wider
 * dtype than x's (src/fastclip/_dtypes.py WIDENINGS), each element cast into the
 * wide type as NumPy's cast does, then clipped there by the scalar-bounds rule
 * of the clip loops (x < lo ? lo : x, then t > hi ? hi : t: a tie keeps x).
 * NumPy casts into a buffer and runs its clip loop over it with the same rule
 * (both bounds scalars), so the bits agree.
 *
 * A signaling NaN in a float source makes NumPy's cast raise FE_INVALID,
 * which it reports as "invalid value encountered in clip"; the loop reports
 * meeting one (its quiet bit clear, a payload left) and the caller hands the
 * call to the ufunc, which reports it as NumPy does.
 *
 * Each loop: fc_widen_<source>_<wide>(x, out, n, &lo, &hi), n elements, both
 * contiguous, the bounds of the wide type; nonzero: a signaling NaN met. The
 * signature of csrc/convert.h's loops, so they share its table and threads.
 * Compiled into each SIMD build (src/fastclip/_kernels.pyx.in). */
#ifndef FASTCLIP_WIDEN_H
#define FASTCLIP_WIDEN_H

#include <string.h>
#include <numpy/npy_common.h>
#include "convert.h"

static inline int fc_signaling_float(float x)
{
    npy_uint32 u;
    memcpy(&u, &x, sizeof u);
    return (u & 0x7fc00000u) == 0x7f800000u && (u & 0x003fffffu) != 0;
}

static inline int fc_signaling_half(npy_uint16 h)
{
    return (h & 0x7e00u) == 0x7c00u && (h & 0x01ffu) != 0;
}

/* bfloat16 -> float32, exactly: the high half of a float32, as ml_dtypes'
 * cast does it (a shift, no floating-point operation) */
static inline float fc_bfloat16_to_float(npy_uint16 h)
{
    npy_uint32 u = (npy_uint32)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* bfloat16's signaling NaNs: float32's, in the high half */
static inline int fc_signaling_bfloat16(npy_uint16 h)
{
    return (h & 0x7fc0u) == 0x7f80u && (h & 0x003fu) != 0;
}

/* the loop: each element cast into W, clipped there, stored as D (W
 * itself, or a third type by C's cast) */
#define FC_WIDEN_LOOP(NAME, S, W, D, CAST, SIGNALING)                          \
    static FC_CONVERT_LOOP int fc_cvt_##NAME(const char *px, char *po, npy_intp n, \
                                             const void *plo, const void *phi) \
    {                                                                          \
        const S *xs = (const S *)px;                                           \
        D *o = (D *)po;                                                        \
        W lo = *(const W *)plo, hi = *(const W *)phi;                          \
        int signaling = 0;                                                     \
        for (npy_intp i = 0; i < n; i++) {                                     \
            S x = xs[i];                                                       \
            signaling |= SIGNALING;                                            \
            W v = CAST;                                                        \
            FC_CLIP(v, lo, hi);                                                \
            o[i] = (D)v;                                                       \
        }                                                                      \
        return signaling;                                                      \
    }

#define FC_WIDEN(SN, S, WN, W, CAST, SIGNALING)                                \
    static int fc_in_range_widen_##SN##_##WN(const void *plo, const void *phi) \
    {                                                                          \
        (void)plo; (void)phi;                                                  \
        return 1;                                                              \
    }                                                                          \
    FC_WIDEN_LOOP(widen_##SN##_##WN, S, W, W, CAST, SIGNALING)

/* A widening whose result goes on into a third type DN by C's cast (float64
 * -> float32, to nearest even as NumPy's cast): fc_chain_range's two loops
 * (csrc/convert.h) in one, for the triples of WIDENINGS_INTO
 * (src/fastclip/_dtypes.py), whose D is float32. Integer sources only: no
 * signaling NaN comes in, and no value float32 cannot hold (at most 2**64);
 * but a finite bound beyond float32's range overflows there (int32 x with
 * a_min=1e300: every element is 1e300), which this loop does not test for
 * (FC_CONVERT_DOUBLE_FLOAT does): such bounds take the chain. */
#define FC_WIDEN_INTO(SN, S, WN, W, DN, D, CAST)                               \
    static int fc_in_range_widen_##SN##_##WN##_##DN(const void *plo, const void *phi) \
    {                                                                          \
        W lo = *(const W *)plo, hi = *(const W *)phi;                          \
        return fc_in_range_##WN##_##DN(plo, phi)                               \
               && (fabs(lo) <= FLT_MAX || isinf(lo)) && (fabs(hi) <= FLT_MAX || isinf(hi)); \
    }                                                                          \
    FC_WIDEN_LOOP(widen_##SN##_##WN##_##DN, S, W, D, CAST, 0)

#endif
