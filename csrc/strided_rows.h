/* Strided rows with scalar bounds, for the integer and IEEE float rows of the
 * dtype table (the 16- and 8-bit floats compared through order keys keep their
 * own loops). Two layouts the walk (csrc/walk.h) meets in N-d views:
 *
 * - x and out at the same stride of s elements, 1 <= |s| <= 8: in place on a
 *   view such as x[::-1, :, ::3], a view into a view of the same shape, or
 *   (s = 1) short contiguous rows such as x[..., 1:];
 * - x at twice out's stride, out contiguous: x[..., ::2] into a new result,
 *   two vectors of x making one of out (their even lanes).
 *
 * Two algorithms, because of what the targets can store:
 * - AVX-512: every lane under a mask register, so each row is masked
 *   vectors over its span (every s-th lane at a phase that steps from vector
 *   to vector), nothing between or beyond the elements read or written;
 * - AVX2, SSE4.2 and NEON (the vector layer's fc_vi): no byte-masked stores, so
 *   whole vectors store only where they cover nothing but elements: short
 *   contiguous rows (s = 1) of at least one vector, their last vector
 *   overlapping the one before (it writes the same values again), and
 *   x[..., ::2] with its last step's second vector read one element early
 *   and its odd lanes taken, so nothing past the row's last element is
 *   read. 1- and 2-byte rows at a stride of 2 to 8 elements are clipped
 *   over their span into a buffer and copied out element by element
 *   (fc_span_rows_vector). Other rows: 0, the caller's loops.
 *
 * The clip is NumPy's scalar-bounds rule: ints max then min; floats
 * max(lo, x), which is lo > x ? lo : x (x on a NaN or a tie), then min(hi, t).
 * NaN bounds never get here (the callers fill).
 *
 * FC_HAVE_STRIDED_ROWS: a build with either.
 */
#ifndef FASTCLIP_STRIDED_ROWS_H
#define FASTCLIP_STRIDED_ROWS_H

#include "simd/simd.h"

#if defined(FC_VW_INLINE)        /* AVX-512's any-width vectors with lane masks */
#include <stdint.h>
#include <string.h>
#include <numpy/npy_common.h>

#define FC_HAVE_STRIDED_ROWS 1

/* Every function here is inlined into its caller, which passes the width and
 * kind as constants, so that the layer's switches fold away. */
#if defined(_MSC_VER)
#define FC_ROWS_INLINE static __forceinline
#else
#define FC_ROWS_INLINE static inline __attribute__((always_inline))
#endif

/* the largest |stride| in elements the same-stride loop takes: beyond it a
 * vector holds fewer than 64 / 8 / itemsize elements and the gather wins */
#define FC_MASKED_SPAN_MAX_STRIDE 8

/* count rows of n elements of width w, row r at px + r * row_sx (x) and
 * po + r * row_so (out), x and out at the same stride of s elements (not 0,
 * |s| <= FC_MASKED_SPAN_MAX_STRIDE) */
FC_ROWS_INLINE void fc_same_stride_rows_512(int w, int kind, char *px, char *po, npy_intp n,
                                           npy_intp s, npy_intp count, npy_intp row_sx,
                                           npy_intp row_so, fc_vw lo, fc_vw hi)
{
    npy_intp lanes = 64 / w;
    if (s < 0) {                /* from the lowest address up: same pairs */
        px += (n - 1) * s * w;
        po += (n - 1) * s * w;
        s = -s;
    }
    npy_intp span = (n - 1) * s + 1, full = span / lanes, rest = span % lanes;
    /* masks[p]: the lanes holding an element in a vector that starts p lanes
     * past one (mod s) */
    /* every s-th bit, from bit 0 (a constant: a loop over the lanes here cost
     * more than the rows when the walk calls with a few short rows) */
    static const fc_lanes_t every_sth[FC_MASKED_SPAN_MAX_STRIDE + 1] = {
        0, 0xffffffffffffffffull, 0x5555555555555555ull, 0x9249249249249249ull,
        0x1111111111111111ull, 0x1084210842108421ull, 0x1041041041041041ull,
        0x8102040810204081ull, 0x0101010101010101ull};
    fc_lanes_t every = every_sth[s], masks[FC_MASKED_SPAN_MAX_STRIDE];
    for (npy_intp p = 0; p < s; p++) {
        masks[p] = (every << ((s - p) % s)) & fc_low_lanes(lanes);
    }
    npy_intp phase_step = lanes % s;
    if (full == 0) {
        /* a row in one vector (x[..., 1:] of 63 bytes): its mask once, not a
         * row */
        fc_lanes_t m = masks[0] & fc_low_lanes(rest);
        for (npy_intp r = 0; r < count; r++) {
            char *x = px + r * row_sx, *o = po + r * row_so;
            fc_store_512(w, o, m, fc_clip_512(w, kind, fc_loadz_512(w, m, x), lo, hi));
        }
        return;
    }
    for (npy_intp r = 0; r < count; r++) {
        char *x = px + r * row_sx, *o = po + r * row_so;
        npy_intp p = 0, v = 0;
        for (; v < full; v++) {
            fc_lanes_t m = masks[p];
            fc_store_512(w, o + v * 64, m, fc_clip_512(w, kind, fc_loadz_512(w, m, x + v * 64), lo, hi));
            p += phase_step;
            p -= p >= s ? s : 0;
        }
        if (rest) {
            fc_lanes_t m = masks[p] & fc_low_lanes(rest);
            fc_store_512(w, o + v * 64, m, fc_clip_512(w, kind, fc_loadz_512(w, m, x + v * 64), lo, hi));
        }
    }
}

/* count rows of n elements, x at a stride of two elements, out contiguous */
FC_ROWS_INLINE void fc_halving_rows_512(int w, int kind, char *px, char *po, npy_intp n,
                                       npy_intp count, npy_intp row_sx, npy_intp row_so,
                                       fc_vw lo, fc_vw hi)
{
    npy_intp lanes = 64 / w;
    /* The second vector's last lane is the odd one after the last element it
     * takes: inside the row while another element follows, and past the end
     * of x's memory, maybe, at the row's end, where it is not read. */
    fc_lanes_t all_but_last = fc_low_lanes(lanes - 1);
    for (npy_intp r = 0; r < count; r++) {
        char *x = px + r * row_sx, *o = po + r * row_so;
        npy_intp i = 0;
        for (; i + lanes < n; i += lanes) {
            fc_vw a = fc_load_512(x + 2 * i * w);
            fc_vw b = fc_load_512(x + (2 * i + lanes) * w);
            fc_storeall_512(o + i * w,
                                fc_clip_512(w, kind, fc_even_lanes_512(w, a, b), lo, hi));
        }
        if (i + lanes == n) {
            fc_vw a = fc_load_512(x + 2 * i * w);
            fc_vw b = fc_loadz_512(w, all_but_last, x + (2 * i + lanes) * w);
            fc_storeall_512(o + i * w,
                                fc_clip_512(w, kind, fc_even_lanes_512(w, a, b), lo, hi));
            i += lanes;
        }
        if (i < n) {
            npy_intp need = 2 * (n - i) - 1;        /* source lanes up to the last element */
            fc_vw a = fc_loadz_512(w, fc_low_lanes(need), x + 2 * i * w);
            fc_vw b = need > lanes
                ? fc_loadz_512(w, fc_low_lanes(need - lanes), x + (2 * i + lanes) * w)
                : fc_zero_512();
            fc_store_512(w, o + i * w, fc_low_lanes(n - i),
                         fc_clip_512(w, kind, fc_even_lanes_512(w, a, b), lo, hi));
        }
    }
}

/* The rows above when their layout is one of the two, else 0 (the caller's
 * loops). Short contiguous rows only (long ones have the contiguous kernel);
 * every other element of long rows only for bytes, where the compiled
 * every_other_<name> is slower; for wider items the two time alike, and the
 * compiled loop stays. */
/* where= over one contiguous run, scalar bounds: the mask's bytes as a mask
 * register, x loaded and out stored under it (masked-off lanes neither read
 * nor written), one pass; 1, or 0 for a layout it does not take */
#define FC_HAVE_MASKED_ROWS 1
/* where=: whole vectors with plain loads of x (a masked-off lane's value is
 * clipped and dropped; the caller clears the floating-point flags), the
 * rest under the mask of the lanes left */
FC_ROWS_INLINE int fc_masked_rows(int w, int kind, char *px, char *po, const unsigned char *mask,
                                  npy_intp n, npy_intp sx, npy_intp so, npy_intp s_mask,
                                  const void *lo, const void *hi)
{
    if (sx != w || so != w || s_mask != 1) {
        return 0;
    }
    const npy_intp lanes = 64 / w;
    fc_vw vlo = fc_set1_512(w, lo), vhi = fc_set1_512(w, hi);
    npy_intp i = 0;
    for (; i + lanes <= n; i += lanes) {
        fc_lanes_t m = fc_mask_vector_512(w, mask + i);
        fc_store_512(w, po + i * w, m,
                     fc_clip_512(w, kind, fc_load_512(px + i * w), vlo, vhi));
    }
    if (i < n) {
        fc_lanes_t m = fc_mask_lanes_512(mask + i, n - i);
        fc_store_512(w, po + i * w, m,
                     fc_clip_512(w, kind, fc_loadz_512(w, m, px + i * w), vlo, vhi));
    }
    return 1;
}

FC_ROWS_INLINE int fc_strided_rows(int w, int kind, char *px, char *po, npy_intp n,
                                  npy_intp sx, npy_intp so, npy_intp count,
                                  npy_intp row_sx, npy_intp row_so,
                                  const void *lo, const void *hi, npy_intp short_row_bytes)
{
    if (n <= 0 || count <= 0) {
        return 1;                           /* nothing to clip */
    }
    if (sx == so && sx % w == 0 && sx != 0 && sx / w <= FC_MASKED_SPAN_MAX_STRIDE
            && sx / w >= -FC_MASKED_SPAN_MAX_STRIDE && (sx != w || n * w <= short_row_bytes)) {
        fc_same_stride_rows_512(w, kind, px, po, n, sx / w, count, row_sx, row_so,
                                fc_set1_512(w, lo), fc_set1_512(w, hi));
        return 1;
    }
    if (sx == 2 * w && so == w && (w == 1 || n * w <= short_row_bytes)) {
        fc_halving_rows_512(w, kind, px, po, n, count, row_sx, row_so,
                            fc_set1_512(w, lo), fc_set1_512(w, hi));
        return 1;
    }
    return 0;
}

#elif defined(FC_VI_BYTES)      /* the vector layer of AVX2, SSE4.2 and NEON */

#define FC_HAVE_STRIDED_ROWS 1

#if defined(_MSC_VER)
#define FC_ROWS_INLINE static __forceinline
#else
#define FC_ROWS_INLINE static inline __attribute__((always_inline))
#endif

/* count short contiguous rows of n >= lanes elements */
FC_ROWS_INLINE void fc_short_rows_vector(int w, int kind, char *px, char *po, npy_intp n,
                                         npy_intp count, npy_intp row_sx, npy_intp row_so,
                                         fc_vi lo, fc_vi hi)
{
    const npy_intp lanes = FC_VI_BYTES / w, last = (n - lanes) * w;
    for (npy_intp r = 0; r < count; r++) {
        char *x = px + r * row_sx, *o = po + r * row_so;
        npy_intp b = 0;
        for (; b < last; b += FC_VI_BYTES) {
            fc_vi_store(o + b, fc_vi_clip(w, kind, fc_vi_load(x + b), lo, hi));
        }
        /* the last vector ends at the row's end; in place it reads values
         * already clipped, which clip to themselves */
        fc_vi_store(o + last, fc_vi_clip(w, kind, fc_vi_load(x + last), lo, hi));
    }
}

/* count rows of n >= lanes elements, x at a stride of two elements, out
 * contiguous */
FC_ROWS_INLINE void fc_halving_rows_vector(int w, int kind, char *px, char *po, npy_intp n,
                                           npy_intp count, npy_intp row_sx, npy_intp row_so,
                                           fc_vi lo, fc_vi hi)
{
    const npy_intp lanes = FC_VI_BYTES / w;
    for (npy_intp r = 0; r < count; r++) {
        char *x = px + r * row_sx, *o = po + r * row_so;
        npy_intp i = 0;
        /* while another element follows the step's last, the odd lane after
         * it is inside the row */
        for (; i + lanes < n; i += lanes) {
            fc_vi a = fc_vi_load(x + 2 * i * w), b = fc_vi_load(x + (2 * i + lanes) * w);
            fc_vi_store(o + i * w, fc_vi_clip(w, kind, fc_vi_even(w, a, b, 0), lo, hi));
        }
        i = n - lanes;
        fc_vi a = fc_vi_load(x + 2 * i * w), b = fc_vi_load(x + (2 * i + lanes - 1) * w);
        fc_vi_store(o + i * w, fc_vi_clip(w, kind, fc_vi_even(w, a, b, 1), lo, hi));
    }
}

/* x and out at the same stride of s elements, 2 <= |s| <= FC_SPAN_MAX_STRIDE
 * (in place on x[::-1, :, ::3]): these targets cannot store every s-th
 * lane alone, but they can read and clip every lane of the span between a
 * row's first and last elements. So a block of the span is clipped whole
 * vectors at a time into a buffer (the lanes between elements clipped too,
 * and dropped), and each element is copied to out from there: a load and a
 * store an element, where the buffer of short_rows_<name> gathered each
 * element in (a load, a store), clipped the buffer, and scattered it (a load,
 * a store). Nothing outside the span is read; nothing but the elements is
 * written. The caller sees that a row's span holds a vector. */
#define FC_SPAN_MAX_STRIDE 8
/* 1- and 2-byte items only: they gain the most from whole vectors, while
 * for 4- and 8-byte items fc_strided_pair_<name>'s element loop
 * (src/fastclip/_kernel_loops.pxi.in) is quicker than the span's lanes. */
#define FC_SPAN_MAX_WIDTH 2
#define FC_SPAN_BLOCK_BYTES 512     /* of span a block: the buffer, on the stack */

FC_ROWS_INLINE void fc_span_rows_vector(int w, int kind, char *px, char *po, npy_intp n,
                                        npy_intp s, npy_intp count, npy_intp row_sx,
                                        npy_intp row_so, fc_vi lo, fc_vi hi)
{
    if (s < 0) {                /* from the lowest address up: the same pairs */
        px += (n - 1) * s * w;
        po += (n - 1) * s * w;
        s = -s;
    }
    const npy_intp step = s * w, per = FC_SPAN_BLOCK_BYTES / step;
    unsigned char buf[FC_SPAN_BLOCK_BYTES];
    for (npy_intp r = 0; r < count; r++) {
        const char *x = px + r * row_sx;
        char *o = po + r * row_so;
        for (npy_intp j0 = 0; j0 < n; j0 += per) {
            npy_intp j1 = n - j0 < per ? n : j0 + per;
            /* the block's span [a, e); a short last block starts a vector
             * before its end, back over elements already done, which are
             * read (clipped values clip to themselves) but not written */
            npy_intp e = (j1 - 1) * step + w, a = j0 * step;
            if (e - a < FC_VI_BYTES) {
                a = e - FC_VI_BYTES;
            }
            npy_intp b = 0, last = e - a - FC_VI_BYTES;
            for (; b < last; b += FC_VI_BYTES) {
                fc_vi_store(buf + b, fc_vi_clip(w, kind, fc_vi_load(x + a + b), lo, hi));
            }
            fc_vi_store(buf + last, fc_vi_clip(w, kind, fc_vi_load(x + a + last), lo, hi));
            const unsigned char *from = buf + (j0 * step - a);
            char *to = o + j0 * step;
            for (npy_intp j = 0; j < j1 - j0; j++) {
                memcpy(to + j * step, from + j * step, (size_t)w);
            }
        }
    }
}

#if defined(FC_VI_MASKED_STORE)
/* where= over one contiguous run of 4- or 8-byte items, scalar bounds: x
 * loaded and out stored under the mask (vpmaskmov: masked-off lanes neither
 * read nor written), one pass; the 1- and 2-byte items have no masked store
 * (csrc/masked.h blends them); 1, or 0 for a layout it does not take */
#define FC_HAVE_MASKED_ROWS 1
FC_ROWS_INLINE int fc_masked_rows(int w, int kind, char *px, char *po, const unsigned char *mask,
                                  npy_intp n, npy_intp sx, npy_intp so, npy_intp s_mask,
                                  const void *lo, const void *hi)
{
    if (w < 4 || sx != w || so != w || s_mask != 1) {
        return 0;
    }
    const npy_intp lanes = FC_VI_BYTES / w;
    fc_vi vlo = fc_vi_set1(w, lo), vhi = fc_vi_set1(w, hi);
    npy_intp i = 0;
    /* by 8 items (one vector of 4-byte items, two of 8-byte ones): all set,
     * plain loads and stores; else the masked ones. vpmaskmov's store is
     * microcoded on AMD before Zen 4, many cycles whatever the mask, a plain
     * one a cycle. Testing each 4-qword vector alone mispredicts more. */
    for (; i + 8 <= n; i += 8) {
        fc_vi m0 = fc_vi_mask_of(w, mask + i);
        fc_vi m1 = lanes < 8 ? fc_vi_mask_of(w, mask + i + lanes) : m0;
        if (__builtin_expect(fc_vi_all_set(m0, m1), 0)) {
            fc_vi_store(po + i * w, fc_vi_clip(w, kind, fc_vi_load(px + i * w), vlo, vhi));
            if (lanes < 8) {
                fc_vi_store(po + (i + lanes) * w,
                            fc_vi_clip(w, kind, fc_vi_load(px + (i + lanes) * w), vlo, vhi));
            }
        }
        else {
            fc_vi_maskstore(w, po + i * w, m0,
                            fc_vi_clip(w, kind, fc_vi_maskload(w, m0, px + i * w), vlo, vhi));
            if (lanes < 8) {
                fc_vi_maskstore(w, po + (i + lanes) * w, m1,
                                fc_vi_clip(w, kind, fc_vi_maskload(w, m1, px + (i + lanes) * w),
                                           vlo, vhi));
            }
        }
    }
    for (; i + lanes <= n; i += lanes) {
        fc_vi m = fc_vi_mask_of(w, mask + i);
        fc_vi_maskstore(w, po + i * w, m,
                        fc_vi_clip(w, kind, fc_vi_maskload(w, m, px + i * w), vlo, vhi));
    }
    if (i < n) {
        unsigned char rest[FC_VI_BYTES] = {0};
        memcpy(rest, mask + i, (size_t)(n - i));
        fc_vi m = fc_vi_mask_of(w, rest);
        fc_vi_maskstore(w, po + i * w, m,
                        fc_vi_clip(w, kind, fc_vi_maskload(w, m, px + i * w), vlo, vhi));
    }
    return 1;
}
#endif

FC_ROWS_INLINE int fc_strided_rows(int w, int kind, char *px, char *po, npy_intp n,
                                  npy_intp sx, npy_intp so, npy_intp count,
                                  npy_intp row_sx, npy_intp row_so,
                                  const void *lo, const void *hi, npy_intp short_row_bytes)
{
    const npy_intp lanes = FC_VI_BYTES / w;
    if (n <= 0 || count <= 0) {
        return 1;                           /* nothing to clip */
    }
    if (sx == so && sx % w == 0 && w <= FC_SPAN_MAX_WIDTH && sx / w >= -FC_SPAN_MAX_STRIDE
            && sx / w <= FC_SPAN_MAX_STRIDE && (sx / w < -1 || sx / w > 1)
            && (n - 1) * (sx < 0 ? -sx : sx) + w >= FC_VI_BYTES) {
        fc_span_rows_vector(w, kind, px, po, n, sx / w, count, row_sx, row_so,
                            fc_vi_set1(w, lo), fc_vi_set1(w, hi));
        return 1;
    }
    if (n < lanes) {
        return 0;
    }
    if (sx == w && so == w && n * w <= short_row_bytes) {
        fc_short_rows_vector(w, kind, px, po, n, count, row_sx, row_so,
                             fc_vi_set1(w, lo), fc_vi_set1(w, hi));
        return 1;
    }
    if (sx == 2 * w && so == w && (w == 1 || n * w <= short_row_bytes)) {
        fc_halving_rows_vector(w, kind, px, po, n, count, row_sx, row_so,
                               fc_vi_set1(w, lo), fc_vi_set1(w, hi));
        return 1;
    }
    return 0;
}

#endif
#endif
