/* What every kernel build of src/fastclip/_kernels.pyx.in includes beside its
 * typed loops: the vector algorithms, their stand-ins in the builds that have
 * none, the 16- and 8-bit floats' order keys, and FC_WIDE. */
#ifndef FASTCLIP_KERNEL_MODULE_H
#define FASTCLIP_KERNEL_MODULE_H

#include "float_bounds.h"
#include "keyed.h"
#include "keyed_bounds.h"
#include "strided_rows.h"
#ifndef FC_LANE_SIGNED          /* the builds without a vector layer */
#define FC_LANE_SIGNED 0
#define FC_LANE_UNSIGNED 1
#define FC_LANE_FLOAT 2
#endif
#ifndef FC_HAVE_STRIDED_ROWS
#define FC_HAVE_STRIDED_ROWS 0
#define fc_strided_rows(w, kind, px, po, n, sx, so, count, row_sx, row_so, lo, hi, b) 0
#endif
#ifndef FC_SPAN_BLOCK_BYTES         /* the builds without span rows */
#define FC_SPAN_BLOCK_BYTES 0
#endif
#ifndef FC_HAVE_MASKED_ROWS
#define FC_HAVE_MASKED_ROWS 0
#define fc_masked_rows(w, kind, px, po, mask, n, sx, so, s_mask, lo, hi) ((void)(lo), (void)(hi), 0)
#endif
/* the shortest contiguous row csrc/strided_rows.h takes, in bytes: any
 * under AVX-512's masks, a vector's width under the layer's fc_vi */
#if defined(FC_VI_BYTES) && !defined(__AVX512F__)
#define FC_STRIDED_ROWS_MIN_BYTES FC_VI_BYTES
#else
#define FC_STRIDED_ROWS_MIN_BYTES 1
#endif

/* sign-magnitude -> two's complement; -0 and +0 both become 0. Branch-free:
 * sign is 0 or -1, and (m ^ -1) - (-1) == -m. (16 and 8 bits.) */
static inline short fc_order_key(unsigned short bits)
{
    short magnitude = (short)(bits & 0x7fff), sign = (short)((short)bits >> 15);
    return (short)((magnitude ^ sign) - sign);
}
static inline signed char fc_order_key8(unsigned char bits)
{
    signed char magnitude = (signed char)(bits & 0x7f);
    signed char sign = (signed char)((signed char)bits >> 7);
    return (signed char)((magnitude ^ sign) - sign);
}
/* The per-element loops (fc_arrays_* and the one-scalar-bound ones) are
 * vectorised at 512 bits in the AVX-512 build, which otherwise prefers
 * 256 (_build_utils says why): they compute more than they move. Not
 * inlined: inlined, they took their caller's width. GCC only; clang
 * ignores the option. */
#if defined(__AVX512F__) && defined(__GNUC__) && !defined(__clang__)
#define FC_WIDE __attribute__((target("prefer-vector-width=512"), noinline))
#else
#define FC_WIDE
#endif

#endif
