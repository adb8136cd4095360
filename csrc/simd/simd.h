/* The vector layer: one set of vector operations over each SIMD target, so
 * that an algorithm is written once against it (csrc/float_bounds.h,
 * csrc/keyed.h, csrc/keyed_bounds.h, csrc/masked.h) instead of once per
 * instruction set, as NumPy's universal intrinsics do
 * (numpy/_core/src/common/simd/).
 *
 * The target comes from the compiler's own macros, so each kernel build
 * (src/fastclip/_kernels.pyx.in, compiled per target) gets its own:
 *   avx512.h  AVX-512 F/BW/VL/DQ, 512-bit vectors and mask registers
 *   avx2.h    AVX2 (+FMA, F16C), 256-bit vectors, masks as vectors
 *   sse42.h   x86-64-v2 (SSE4.2), 128-bit vectors, masks as vectors
 *   neon.h    aarch64 ASIMD, 128-bit vectors, masks as vectors
 * and no vector layer (FC_SIMD 0) otherwise: the algorithms' portable loops.
 * Beside the layer, whatever the target: memory.h (streaming stores, their
 * fence, the spin loop's pause), f16c.h (F16C's float16 conversions, in the
 * AVX2 and AVX-512 builds) and sse2.h (the x86-64 baseline build's few SSE2
 * loops). These are the only files with intrinsics; the algorithms in csrc/
 * are written against them.
 *
 * What each target header defines, for the lane types T used here
 * (u8 s8 u16 s16 u32 s32 u64 f32 f64; not all operations for all types):
 *   fc_v_T, fc_m_T        a vector, and a mask of its lanes
 *   FC_LANES_T            lanes in a vector
 *   fc_load_T(p), fc_store_T(p, v), fc_set1_T(x): unaligned, whole vectors
 *   fc_load_n_T(p, n), fc_store_n_T(p, n, v): the first n lanes only
 *       (0 <= n < lanes): nothing beyond them is read or written
 *   fc_select_T(m, a, b)  m ? a : b, lane by lane
 *   f32, f64: fc_gtsel(a, b) = a > b ? a : b and fc_ltsel(a, b) = a < b ? a : b
 *       (b on a NaN or a tie, as C's ?: and x86's max/min), fc_isnan(v)
 *   ints: fc_min, fc_max (8-, 16-bit lanes: _sB signed, _uB unsigned), fc_xor, fc_or, fc_and, fc_sub, fc_add,
 *       fc_geu (unsigned a >= b), fc_gt (signed a > b), fc_signfill (each lane
 *       all ones where negative)
 *   u8, u16: fc_mor, fc_mand, fc_mandnot (a & ~b): the logic of masks
 *   u8: fc_all_set, fc_none_set: whether every lane, or none, is nonzero
 * Some algorithms need what only some targets have, and say so by a macro:
 *   FC_HAVE_BLEND: fc_blend_W(out, buf, mask) stores one step of
 *       FC_BLEND_ITEMS_W items of W bytes where the mask's bytes are set
 *       (AVX-512, AVX2; csrc/masked.h)
 *   FC_VI_BYTES: fc_vi, integer vectors of any lane width (AVX2, SSE4.2, NEON)
 *   FC_VW_INLINE: fc_vw, the same with lane masks (AVX-512;
 *       csrc/strided_rows.h)
 */
#ifndef FASTCLIP_SIMD_H
#define FASTCLIP_SIMD_H

/* The kinds of lane the generic scalar-bounds clip takes (fc_vi_clip and
 * csrc/strided_rows.h), which with the lane width w pick its instruction; the
 * kernels pass them as constants, so the choice folds away. */
#define FC_LANE_SIGNED 0
#define FC_LANE_UNSIGNED 1
#define FC_LANE_FLOAT 2

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__) && defined(__AVX512DQ__)
#include "avx512.h"
#elif defined(__AVX2__)
#include "avx2.h"
#elif defined(__SSE4_2__)
#include "sse42.h"
#elif defined(__aarch64__) && defined(__ARM_NEON)
#include "neon.h"
#else
#define FC_SIMD 0
#define FC_SIMD_NAME "none"
#endif

#endif
