/* Clip and convert in one pass: np.clip(x, lo, hi, out=o,
 * casting=...) with o of another dtype, which NumPy runs as its clip loop in
 * x's dtype, then a buffered cast into o. Here each element is clipped exactly
 * as the clip loop does and converted exactly as NumPy's (or ml_dtypes') cast
 * does, in one pass and without a temporary.
 *
 * Exactness, and what is left to NumPy:
 * - fused only when both bounds, converted, are inside the destination's
 *   range (fc_in_range_*), so every result is too: float to int truncates
 *   toward zero as C does, and nothing overflows, so NumPy's cast gives no
 *   warning either. Other bounds go NumPy's way (its clip, then its cast),
 *   but for int64 -> int32 (src/fastclip/_dtypes.py ANY_BOUNDS), whose C
 *   cast wraps as NumPy's does, with any bounds.
 * - a NaN met in x (NumPy's cast of NaN to an integer warns and gives a
 *   platform value; a NaN's payload may change in a float narrowing) makes
 *   the loop report it, and the caller hands the whole call to NumPy, which
 *   rewrites every element of out.
 * - the float narrowings round to nearest even, as NumPy and ml_dtypes do:
 *   float32 -> float16 with F16C's vcvtps2ph (or a software conversion in the
 *   baseline build); float64 -> float16 rounds once, as NumPy's
 *   npy_double_to_half does, by way of a float32 rounded to odd (see
 *   fc_double_to_float_odd); float -> bfloat16 and the float8s by ml_dtypes'
 *   rounding of the float32 bits, float64 either way ml_dtypes rounds it, once
 *   (by way of a float32 rounded to odd) or through float32 (a loop for each,
 *   src/fastclip/_dtypes.py ML_ROUNDINGS); float64 -> float32 by the C cast.
 * Clip step: the scalar-bounds rule of the clip loops (x < lo ? lo : x, then
 * t > hi ? hi : t: a tie keeps x); float16 sources are clipped in float32,
 * where float16 values compare alike.
 *
 * Each loop: n elements, both operands contiguous; returns nonzero when a NaN
 * was met. Compiled into each SIMD build (src/fastclip/_kernels.pyx.in).
 */
#ifndef FASTCLIP_CONVERT_H
#define FASTCLIP_CONVERT_H

#include <limits.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <numpy/npy_common.h>
#include "clip_rule.h"
#include "float16.h"
#include "convert_vector.h"
#include "fpstatus.h"
#include "masked.h"
#include "simd/f16c.h"
#include "stream.h"

/* The fused loops are vectorised at 512 bits in the AVX-512 build, whose
 * default is 256 (_build_utils): they compute more than they move. GCC only
 * (clang ignores the option). */
#if defined(__AVX512F__) && defined(__GNUC__) && !defined(__clang__)
#define FC_CONVERT_LOOP __attribute__((target("prefer-vector-width=512")))
#else
#define FC_CONVERT_LOOP
#endif

typedef int (*fc_convert_t)(const char *x, char *out, npy_intp n, const void *lo,
                            const void *hi);
typedef int (*fc_in_range_t)(const void *lo, const void *hi);
/* where=: out written only where mask is set (fc_convert_masked) */
typedef int (*fc_convert_masked_t)(const char *x, char *out, const npy_bool *mask, npy_intp n,
                                   const void *lo, const void *hi);

typedef struct {
    fc_convert_t convert;
    fc_in_range_t in_range;
    int src_size, dst_size;
    fc_convert_masked_t masked;     /* a loop of masked stores into out, or NULL */
} fc_convert_entry_t;

/* one call of a fused loop over [first, last), the unit csrc/parallel.h
 * shares out among threads. A NaN met in any part sets nan (every writer
 * stores 1; the pool's release/acquire on its done count orders it before the
 * caller reads it). */
typedef struct {
    const fc_convert_entry_t *e;
    const char *x;
    char *out;
    const void *lo, *hi;
    int nan;
    int stream;     /* a result far larger than the caches: stream it out */
} fc_convert_job_t;

/* Loop e over n elements into out by way of an L1 buffer whose blocks leave
 * through streaming stores (csrc/stream.h: the read for ownership of each
 * line of out is saved), the part before out's first 64-byte boundary and
 * the last part stored plainly. */
#define FC_STREAM_BLOCK_BYTES 8192
static int fc_convert_streamed(const fc_convert_entry_t *e, const char *x, char *out,
                               npy_intp n, const void *lo, const void *hi)
{
    npy_intp s = e->src_size, d = e->dst_size, per = FC_STREAM_BLOCK_BYTES / d;
    npy_intp head = fc_line_head(out, d);
    if (!FC_HAVE_STREAM || head < 0) {
        return e->convert(x, out, n, lo, hi);   /* out misaligned for its items */
    }
    head = head < n ? head : n;
    npy_uint64 buf[FC_STREAM_BLOCK_BYTES / 8];
    int nan = e->convert(x, out, head, lo, hi);
    npy_intp i = head;
    for (; n - i >= per; i += per) {
        nan |= e->convert(x + i * s, (char *)buf, per, lo, hi);
        fc_stream_copy(out + i * d, (const char *)buf, per * d);
    }
    nan |= e->convert(x + i * s, out + i * d, n - i, lo, hi);
    fc_stream_fence();
    return nan;
}

/* Loop e over n elements, its first elements apart where that puts the
 * rest of out on a 64-byte boundary, so that the loop's vector stores do not
 * straddle cache lines. A large array from malloc sits 16 bytes past a page
 * (glibc's header of an mmap'd chunk; np.empty(100_000) often does): one
 * 512-bit store in two lines each time, one 256-bit store in two every
 * other time (the clip loops do the same: src/fastclip/_kernel_loops.pxi.in
 * scalar_run). Outputs narrower than the source store a vector
 * every several loads and are left as they are; so are short calls, for
 * which a second call costs more. */
static int fc_convert_aligned(const fc_convert_entry_t *e, const char *x, char *out,
                              npy_intp n, const void *lo, const void *hi)
{
    npy_intp d = e->dst_size, head = fc_line_head(out, d);
    if (d < e->src_size || n * d < FC_ALIGN_MIN_BYTES || head <= 0) {
        return e->convert(x, out, n, lo, hi);
    }
    int nan = e->convert(x, out, head, lo, hi);
    return nan | e->convert(x + head * e->src_size, out + head * d, n - head, lo, hi);
}

static void fc_convert_range(void *ctx, npy_intp first, npy_intp last)
{
    fc_convert_job_t *j = (fc_convert_job_t *)ctx;
    const char *x = j->x + first * j->e->src_size;
    char *out = j->out + first * j->e->dst_size;
    if (j->stream ? fc_convert_streamed(j->e, x, out, last - first, j->lo, j->hi)
                  : fc_convert_aligned(j->e, x, out, last - first, j->lo, j->hi)) {
        j->nan = 1;
    }
}

/* Two loops chained through a buffer that stays in L1: a widening loop (x
 * cast into the wide type and clipped there, csrc/widen.h) and a fused
 * conversion from the wide type into out's (which clips again by the same
 * bounds, changing nothing), FC_CHAIN_BLOCK elements at a time. That is
 * np.clip with a loop wider than x and an out of a third dtype (a uint8
 * image with Python float bounds into float32: NumPy clips in float64 and
 * casts), in one pass over memory. */
#define FC_CHAIN_BLOCK 1024

typedef struct {
    const fc_convert_entry_t *widen, *convert;
    const char *x;
    char *out;
    const void *lo, *hi;      /* in the wide type, for both loops */
    int nan;
} fc_chain_job_t;

static void fc_chain_range(void *ctx, npy_intp first, npy_intp last)
{
    fc_chain_job_t *j = (fc_chain_job_t *)ctx;
    double buf[FC_CHAIN_BLOCK];     /* a wide element is at most 8 bytes */
    for (npy_intp i = first; i < last; i += FC_CHAIN_BLOCK) {
        npy_intp m = last - i < FC_CHAIN_BLOCK ? last - i : FC_CHAIN_BLOCK;
        int nan = j->widen->convert(j->x + i * j->widen->src_size, (char *)buf, m,
                                    j->lo, j->hi);
        nan |= j->convert->convert((const char *)buf, j->out + i * j->convert->dst_size, m,
                                   j->lo, j->hi);
        if (nan) {
            j->nan = 1;
        }
    }
}

/* where= into an out of another dtype, contiguous, one thread. A pair
 * with a loop of its own (e->masked: widenings into 32- and 64-bit items,
 * below) clips and converts a vector at a time and stores it under the mask;
 * the others run their fused conversion over FC_MASK_BLOCK elements of x into
 * a buffer that stays in L1, then blend the buffer into out by the mask
 * (csrc/masked.h). Either way elements of out the mask leaves clear are never
 * written. NumPy runs such a call as its clip loop and a masked, buffered
 * cast, two passes over out. The buffer doubles the stores, which the
 * pairs' own loops save. Returns nonzero when
 * a NaN was met, out then partly written (the caller goes NumPy's way, which
 * writes every element the mask sets). */
static int fc_convert_masked(const fc_convert_entry_t *e, const char *x, char *out,
                             const npy_bool *mask, npy_intp n, const void *lo, const void *hi)
{
    if (e->masked != NULL) {
        return e->masked(x, out, mask, n, lo, hi);
    }
    npy_uint64 buf[FC_MASK_BLOCK];      /* a destination element is at most 8 bytes */
    for (npy_intp i = 0; i < n; i += FC_MASK_BLOCK) {
        npy_intp m = n - i < FC_MASK_BLOCK ? n - i : FC_MASK_BLOCK;
        if (e->convert(x + i * e->src_size, (char *)buf, m, lo, hi)) {
            return 1;
        }
        fc_blend(e->dst_size, out + i * e->dst_size, e->dst_size, (const char *)buf,
                 mask + i, 1, m);
    }
    return 0;
}

/* The where= loops of the widenings into 32- and 64-bit items (the pairs
 * of src/fastclip/_dtypes.py MASKED_CONVERSIONS) by masked stores,
 * fc_cvtm_<pair> (csrc/conversion_loops.h.in), where the vector layer has
 * them (FC_SIMD_MASKED_CONVERT: AVX2, AVX-512); elsewhere the buffer's way,
 * FC_MASKED_LOOP NULL. */
#if defined(FC_SIMD_MASKED_CONVERT)
#if !defined(FC_GTSEL_FLAGS_NAN)
#error "float32 -> float64's where= loop reads the invalid flag for a NaN"
#endif
#define FC_MASKED_LOOP(NAME) fc_cvtm_##NAME
/* the stores, by destination */
#define FC_MASKED_STORE_int(o, m, v) fc_maskstore_u32((uint32_t *)(o), (m), (v))
#define FC_MASKED_STORE_float(o, m, v) fc_maskstore_f32((o), (m), fc_cvt_f32_s32(v))
#define FC_MASKED_STORE_double(o, m, v) fc_maskstore_f64_s32((o), (m), (v))
/* the loads, by source */
#define FC_MASKED_LOAD_ubyte(p) fc_load_s32_u8((const uint8_t *)(p))
#define FC_MASKED_LOAD_byte(p) fc_load_s32_s8((const int8_t *)(p))
#define FC_MASKED_LOAD_ushort(p) fc_load_s32_u16((const uint16_t *)(p))
#define FC_MASKED_LOAD_short(p) fc_load_s32_s16((const int16_t *)(p))
#define FC_MASKED_LOAD_int(p) fc_load_u32((const uint32_t *)(p))
#else
#define FC_MASKED_LOOP(NAME) NULL
#endif

/* int64 and uint64 into double, rounded to nearest even as C's cast and
 * NumPy's: below AVX-512's vcvtqq2pd/vcvtuqq2pd x86 has no vector
 * instruction for it, and GCC converts element by element. The value is split into
 * its high and low 32 bits, each made a double exactly by putting it in the
 * mantissa of 2**84 and 2**52; the difference of the high one and those
 * offsets is exact, and adding the low one rounds once: GCC vectorises
 * these shifts, ors and two adds. An int64 is first offset by 2**63 (its
 * sign bit flipped) and the 2**63 taken off with the offsets. Below
 * SSE4.2 (the baseline build) the loop's 64-bit clip has no vector compare
 * (pcmpgtq), so it stays element by element and C's cast is the cheaper. */
#if (defined(__x86_64__) || defined(_M_X64)) && defined(__SSE4_2__) && !defined(__AVX512DQ__)
static inline double fc_uint64_to_double(npy_uint64 u)
{
    npy_uint64 high = (u >> 32) | 0x4530000000000000ull, low = (u & 0xffffffffull) | 0x4330000000000000ull;
    double h, l;
    memcpy(&h, &high, sizeof h);
    memcpy(&l, &low, sizeof l);
    return (h - 0x1.00000001p+84) + l;          /* 2**84 + 2**52 */
}

static inline double fc_int64_to_double(npy_int64 v)
{
    npy_uint64 u = (npy_uint64)v ^ 0x8000000000000000ull;
    npy_uint64 high = (u >> 32) | 0x4530000000000000ull, low = (u & 0xffffffffull) | 0x4330000000000000ull;
    double h, l;
    memcpy(&h, &high, sizeof h);
    memcpy(&l, &low, sizeof l);
    return (h - 0x1.00000801p+84) + l;          /* 2**84 + 2**63 + 2**52 */
}

#else
static inline double fc_uint64_to_double(npy_uint64 u) { return (double)u; }
static inline double fc_int64_to_double(npy_int64 v) { return (double)v; }
#endif



/* float64 -> float32 with any bounds (src/fastclip/_dtypes.py ANY_BOUNDS):
 * bounds beyond the destination's finite range (the one-sided calls,
 * np.maximum(x, 0.5, out=float32), whose other bound is infinity) let a
 * finite value beyond it through, which the conversion makes infinity, as
 * NumPy's cast does, with the overflow flag set, by which NumPy warns or
 * raises as np.errstate says ("overflow encountered in maximum"). The
 * conversion instructions here set the same flag (cvtpd2ps, cvtsd2ss; fcvtn,
 * fcvt on aarch64: IEEE 754's overflow, a rounded result beyond the largest
 * finite value, so not infinity itself, nor a value that rounds down to the
 * largest), so the loop reads it: raised, the loop reports it as it reports
 * a NaN, and the caller hands the call to NumPy, which reports it. Bounds
 * within the range (clipped values cannot overflow) skip the flag's test and
 * clear (fc_overflow_seen).
 * The scalar part tests for a NaN after the cast (the clip and the cast keep
 * a NaN, and make none): before it, on the double, GCC 12 left the loop
 * scalar in the baseline build (SSE2). */
static inline npy_intp fc_double_float_from(npy_intp i, const double *x, float *o, npy_intp n,
                                            double lo, double hi, int *nan)
{
    int seen = 0;
    for (; i < n; i++) {
        double v = x[i];
        FC_CLIP(v, lo, hi);
        float f = (float)v;
        seen |= f != f;
        o[i] = f;
    }
    *nan |= seen;
    return n;
}
/* Where the layer has no vector body for it but its clip raises the invalid
 * flag on a NaN (AVX-512: GCC's loop, whose clip is vmaxpd and vminpd), the
 * whole groups of 16 by GCC's loop without the NaN test, the flag cleared
 * before and read after, as csrc/convert_vector.h's body does; the rest by
 * fc_double_float_from. */
#if defined(FC_GTSEL_FLAGS_NAN) && !FC_SIMD_CONVERT_DOUBLE_FLOAT
static inline npy_intp fc_double_float_flagged(npy_intp i, const double *x, float *o, npy_intp n,
                                               double lo, double hi, int *nan)
{
    npy_intp whole = i + (n - i) / 16 * 16;
    if (whole == i) {
        return i;
    }
    fc_invalid_seen();      /* clears an earlier operation's flag */
    for (; i < whole; i++) {
        double v = x[i];
        FC_CLIP(v, lo, hi);
        o[i] = (float)v;
    }
    if (fc_invalid_seen()) {
        *nan = 1;
    }
    return whole;
}
#else
#define fc_double_float_flagged(i, x, o, n, lo, hi, nan) (i)
#endif

/* long -> float32 (a pair of VECTOR_CONVERSIONS) where long is int64: the vector
 * layer's body where the build has one (AVX2; the AVX-512 layer leaves it to
 * GCC, which has vcvtqq2ps there). Without a layer (aarch64, the baseline
 * build) C's cast of an int64 to float stayed scalar: NEON has no such
 * instruction, and going by way of float64 would round twice. With both
 * bounds within int32 every clipped value fits int32, whose conversion
 * rounds alike and vectorises (xtn, scvtf); other bounds: the scalar loop. */
static inline npy_intp fc_int64_float_in_int32(const npy_int64 *x, float *o, npy_intp n,
                                               npy_int64 lo, npy_int64 hi)
{
    if (!(lo >= INT_MIN && lo <= INT_MAX && hi >= INT_MIN && hi <= INT_MAX)) {
        return 0;
    }
    for (npy_intp i = 0; i < n; i++) {
        npy_int64 v = x[i];
        FC_CLIP(v, lo, hi);
        o[i] = (float)(npy_int32)v;
    }
    return n;
}

/* storing one converted element, by destination */
#define FC_STORE_ubyte(po, i, v) (((npy_uint8 *)(po))[i] = (npy_uint8)(v))
#define FC_STORE_byte(po, i, v) (((npy_int8 *)(po))[i] = (npy_int8)(v))
#define FC_STORE_ushort(po, i, v) (((npy_uint16 *)(po))[i] = (npy_uint16)(v))
#define FC_STORE_short(po, i, v) (((npy_int16 *)(po))[i] = (npy_int16)(v))
#define FC_STORE_int(po, i, v) (((int *)(po))[i] = (int)(v))
#define FC_STORE_long(po, i, v) (((long *)(po))[i] = (long)(v))
#define FC_STORE_float(po, i, v) (((float *)(po))[i] = (float)(v))
#define FC_STORE_double(po, i, v) (((double *)(po))[i] = (double)(v))
#define FC_STORE_bfloat16(po, i, v) (((npy_uint16 *)(po))[i] = (v))
#define FC_STORE_float8_e4m3fn(po, i, v) (((npy_uint8 *)(po))[i] = (v))
#define FC_STORE_float8_e5m2(po, i, v) (((npy_uint8 *)(po))[i] = (v))

/* float32 and float64 -> float16: clipped into a block of floats, then
 * converted by fc_floats_to_half */
#define FC_CONVERT_BLOCK 256

/* float64 into the 8- and 16-bit integers in the baseline x86 build: SSE2's
 * own clip and truncation (csrc/conversion_loops.h.in has the reason) */
#if !defined(FC_HAVE_CONVERT_VECTOR) && (defined(__x86_64__) || defined(_M_X64))
#include "simd/sse2.h"
#endif

#include "convert_small_floats.h"     /* into and out of the small floats */

#endif
