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
 * Each loop: fc_cvt_widen_<source>_<wide>(x, out, n, &lo, &hi), n
 * elements, both contiguous, the bounds of the wide type; nonzero: a
 * signaling NaN met. The signature of csrc/convert.h's loops, so they share
 * its table and threads. Written by csrc/conversion_loops.h.in; here, the
 * casts and signaling tests they call. Compiled into each SIMD build
 * (src/fastclip/_kernels.pyx.in). */
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

#endif
