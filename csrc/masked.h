/* where=: out = mask ? clip(x) : out, for any clip loop.
 *
 * The clipping is the row's own loop (so every NaN, signed-zero and tie rule is
 * the one already proven), run on a block of x into a stack buffer; the block
 * is then blended into out by the mask. The blend depends only on the item
 * size; with out and the mask contiguous it is a run of masked stores
 * (fc_blend_vector), branch-free whatever the mask. Masked-off elements of out
 * are never written.
 *
 * Compiled into each SIMD build (src/fastclip/_kernels.pyx.in includes it).
 */
#ifndef FASTCLIP_MASKED_H
#define FASTCLIP_MASKED_H

#include <stdint.h>
#include <string.h>
#include <numpy/npy_common.h>
#include "parallel.h"
#include "simd/simd.h"

#define FC_MASK_BLOCK 1024

#if (defined(__AVX512BW__) && defined(__AVX512VL__)) || defined(__AVX2__)
#include <immintrin.h>
#endif

/* The masked stores of a contiguous blend, written out: left to the
 * vectoriser, its cost model kept some item sizes scalar, and a branch per
 * element mispredicts on a random mask. AVX-512 BW/VL: a
 * masked store for every item size; AVX2: vpmaskmovd/q for 4- and 8-byte
 * items, and for the 1- and 2-byte items of whole dwords (it has no byte or
 * word masked store), the rest of their set items one by one; a plain store
 * where a vector's (8-byte items: two vectors') mask is all set, as
 * vpmaskmov's store is slow (microcoded on AMD before Zen 4, whatever the mask).
 * Returns how many elements it stored (the rest: the caller's loop). */
static inline npy_intp fc_blend_vector(int itemsize, char *out, const char *buf,
                                       const npy_bool *mask, npy_intp n)
{
    npy_intp i = 0;
#if defined(__AVX512BW__) && defined(__AVX512VL__)
    switch (itemsize) {
    case 1:
        for (; i + 32 <= n; i += 32) {
            __m256i m = _mm256_loadu_si256((const __m256i *)(mask + i));
            _mm256_mask_storeu_epi8(out + i, _mm256_test_epi8_mask(m, m),
                                    _mm256_loadu_si256((const __m256i *)(buf + i)));
        }
        break;
    case 2:
        for (; i + 16 <= n; i += 16) {
            __m128i m = _mm_loadu_si128((const __m128i *)(mask + i));
            _mm256_mask_storeu_epi16(out + 2 * i, _mm_test_epi8_mask(m, m),
                                     _mm256_loadu_si256((const __m256i *)(buf + 2 * i)));
        }
        break;
    case 4:     /* 4- and 8-byte items: 512-bit stores, half the instructions
                 * of 256-bit ones */
        for (; i + 16 <= n; i += 16) {
            __m128i m = _mm_loadu_si128((const __m128i *)(mask + i));
            _mm512_mask_storeu_epi32(out + 4 * i, _mm_test_epi8_mask(m, m),
                                     _mm512_loadu_si512((const void *)(buf + 4 * i)));
        }
        break;
    case 8:
        for (; i + 8 <= n; i += 8) {
            __m128i m = _mm_loadl_epi64((const __m128i *)(mask + i));
            _mm512_mask_storeu_epi64(out + 8 * i, (__mmask8)_mm_test_epi8_mask(m, m),
                                     _mm512_loadu_si512((const void *)(buf + 8 * i)));
        }
        break;
    }
#elif defined(__AVX2__)
    const __m256i zero = _mm256_setzero_si256();
    if (itemsize == 1) {
        /* no byte-masked store: the dwords whose four mask bytes are all set
         * by vpmaskmovd, the set bytes of the other dwords one by one */
        for (; i + 32 <= n; i += 32) {
            __m256i clear = _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(mask + i)), zero);
            unsigned clear_bits = (unsigned)_mm256_movemask_epi8(clear);
            if (clear_bits == 0xffffffffu) {
                continue;
            }
            __m256i v = _mm256_loadu_si256((const __m256i *)(buf + i));
            if (clear_bits == 0) {
                _mm256_storeu_si256((__m256i *)(out + i), v);
                continue;
            }
            __m256i whole = _mm256_cmpeq_epi32(clear, zero);
            _mm256_maskstore_epi32((int *)(out + i), whole, v);
            unsigned rest = ~clear_bits & ~(unsigned)_mm256_movemask_epi8(whole);
            for (; rest; rest &= rest - 1) {
                int j = __builtin_ctz(rest);
                out[i + j] = buf[i + j];
            }
        }
    }
    else if (itemsize == 2) {
        /* the same by pairs of items */
        for (; i + 16 <= n; i += 16) {
            __m128i clear8 = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(mask + i)),
                                            _mm_setzero_si128());
            unsigned clear_bits = (unsigned)_mm_movemask_epi8(clear8);
            if (clear_bits == 0xffffu) {
                continue;
            }
            if (clear_bits == 0) {
                _mm256_storeu_si256((__m256i *)(out + 2 * i),
                                    _mm256_loadu_si256((const __m256i *)(buf + 2 * i)));
                continue;
            }
            __m256i whole = _mm256_cmpeq_epi32(_mm256_cvtepi8_epi16(clear8), zero);
            _mm256_maskstore_epi32((int *)(out + 2 * i), whole,
                                   _mm256_loadu_si256((const __m256i *)(buf + 2 * i)));
            __m128i whole8 = _mm_packs_epi16(_mm256_castsi256_si128(whole),
                                             _mm256_extracti128_si256(whole, 1));
            unsigned rest = ~clear_bits & ~(unsigned)_mm_movemask_epi8(whole8) & 0xffffu;
            for (; rest; rest &= rest - 1) {
                int j = __builtin_ctz(rest);
                memcpy(out + 2 * (i + j), buf + 2 * (i + j), 2);
            }
        }
    }
    else if (itemsize == 4) {
        /* a plain store where all 8 are set: fc_masked_rows (csrc/strided_rows.h) */
        for (; i + 8 <= n; i += 8) {
            __m256i m = _mm256_cmpgt_epi32(
                _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(mask + i))), zero);
            __m256i v = _mm256_loadu_si256((const __m256i *)(buf + 4 * i));
            if (__builtin_expect(_mm256_movemask_ps(_mm256_castsi256_ps(m)) == 0xff, 0)) {
                _mm256_storeu_si256((__m256i *)(out + 4 * i), v);
            }
            else {
                _mm256_maskstore_epi32((int *)(out + 4 * i), m, v);
            }
        }
    }
    else if (itemsize == 8) {
        /* by 8 items, as fc_masked_rows (csrc/strided_rows.h) */
        for (; i + 8 <= n; i += 8) {
            __m128i bytes = _mm_loadl_epi64((const __m128i *)(mask + i));
            __m256i m0 = _mm256_cmpgt_epi64(_mm256_cvtepu8_epi64(bytes), zero);
            __m256i m1 = _mm256_cmpgt_epi64(_mm256_cvtepu8_epi64(_mm_srli_si128(bytes, 4)), zero);
            __m256i v0 = _mm256_loadu_si256((const __m256i *)(buf + 8 * i));
            __m256i v1 = _mm256_loadu_si256((const __m256i *)(buf + 8 * i + 32));
            if (__builtin_expect(_mm256_movemask_epi8(_mm256_and_si256(m0, m1)) == -1, 0)) {
                _mm256_storeu_si256((__m256i *)(out + 8 * i), v0);
                _mm256_storeu_si256((__m256i *)(out + 8 * i + 32), v1);
            }
            else {
                _mm256_maskstore_epi64((long long *)(out + 8 * i), m0, v0);
                _mm256_maskstore_epi64((long long *)(out + 8 * i + 32), m1, v1);
            }
        }
    }
#else
    (void)itemsize; (void)out; (void)buf; (void)mask; (void)n;
#endif
    return i;
}

/* Blocks of one vector of mask bytes where the target has no masked store
 * (NEON): a block whose
 * mask is all set is copied whole, one all clear skipped, and a mixed one
 * stored element by element to out or, where the mask is clear, to a dummy
 * (a select of the address, not a branch, which a random mask would
 * mispredict). Returns how many elements it did (whole blocks). */
#if FC_SIMD
#define FC_BLEND_BLOCKS(T)                                                       \
    static inline npy_intp fc_blend_blocks_##T(T *o, const T *b, const npy_bool *mask, \
                                              npy_intp n)                        \
    {                                                                            \
        const npy_intp lanes = FC_LANES_u8;                                      \
        npy_intp i = 0, whole = n > 0 ? n - n % lanes : 0;                       \
        T sink[1];                                                               \
        for (; i < whole; i += lanes) {                                          \
            fc_v_u8 m = fc_load_u8((const uint8_t *)mask + i);                   \
            if (fc_none_set_u8(m)) {                                             \
                continue;                                                        \
            }                                                                    \
            if (fc_all_set_u8(m)) {                                              \
                memcpy(o + i, b + i, (size_t)lanes * sizeof(T));                 \
                continue;                                                        \
            }                                                                    \
            for (npy_intp j = i; j < i + lanes; j++) {                           \
                /* the address by bitwise select: written as ?:, GCC makes it \
                 * a branch again (the dummy store being dead to it) */          \
                uintptr_t on = (uintptr_t)0 - (uintptr_t)(mask[j] != 0);         \
                T *dst = (T *)(((uintptr_t)(o + j) & on) | ((uintptr_t)sink & ~on)); \
                *dst = b[j];                                                     \
            }                                                                    \
        }                                                                        \
        return i;                                                                \
    }
#else
#define FC_BLEND_BLOCKS(T)                                                       \
    static inline npy_intp fc_blend_blocks_##T(T *o, const T *b, const npy_bool *mask, \
                                              npy_intp n)                        \
    {                                                                            \
        (void)o; (void)b; (void)mask; (void)n;                                   \
        return 0;                                                                \
    }
#endif
FC_BLEND_BLOCKS(npy_uint8)
FC_BLEND_BLOCKS(npy_uint16)
FC_BLEND_BLOCKS(npy_uint32)
FC_BLEND_BLOCKS(npy_uint64)
#undef FC_BLEND_BLOCKS

#define FC_BLEND(T)                                                              \
    static inline void fc_blend_##T(char *out, npy_intp s_out, const char *buf,  \
                                    const npy_bool *mask, npy_intp s_mask,       \
                                    npy_intp n)                                  \
    {                                                                            \
        const T *b = (const T *)buf;                                             \
        if (s_out == (npy_intp)sizeof(T) && s_mask == 1) {                       \
            T *o = (T *)out;                                                     \
            npy_intp i = fc_blend_vector((int)sizeof(T), out, buf, mask, n);     \
            if (i == 0) {                                                        \
                i = fc_blend_blocks_##T(o, b, mask, n);                          \
            }                                                                    \
            for (; i < n; i++) {                                                 \
                if (mask[i]) {                                                   \
                    o[i] = b[i];                                                 \
                }                                                                \
            }                                                                    \
        }                                                                        \
        else {                                                                   \
            for (npy_intp i = 0; i < n; i++) {                                   \
                if (mask[i * s_mask]) {                                          \
                    *(T *)(out + i * s_out) = b[i];                              \
                }                                                                \
            }                                                                    \
        }                                                                        \
    }

FC_BLEND(npy_uint8)
FC_BLEND(npy_uint16)
FC_BLEND(npy_uint32)
FC_BLEND(npy_uint64)

/* n items of buf into out (stride s_out) where mask (stride s_mask) is set */
static inline void fc_blend(int itemsize, char *out, npy_intp s_out, const char *buf,
                            const npy_bool *mask, npy_intp s_mask, npy_intp n)
{
    switch (itemsize) {
    case 1: fc_blend_npy_uint8(out, s_out, buf, mask, s_mask, n); break;
    case 2: fc_blend_npy_uint16(out, s_out, buf, mask, s_mask, n); break;
    case 4: fc_blend_npy_uint32(out, s_out, buf, mask, s_mask, n); break;
    default: fc_blend_npy_uint64(out, s_out, buf, mask, s_mask, n); break;
    }
}

/* args: x, lo, hi, out; steps: theirs (a bound's is 0 when it is a scalar). */
static void fc_run_masked(fc_loop_t loop, int itemsize, char **args, const npy_bool *mask,
                          npy_intp n, const npy_intp *steps, npy_intp s_mask)
{
    npy_uint64 buf[FC_MASK_BLOCK];      /* 8 KiB, aligned for every item size */
    for (npy_intp i = 0; i < n; i += FC_MASK_BLOCK) {
        npy_intp m = n - i < FC_MASK_BLOCK ? n - i : FC_MASK_BLOCK;
        char *a[4] = {args[0] + i * steps[0], args[1] + i * steps[1], args[2] + i * steps[2],
                      (char *)buf};
        npy_intp st[4] = {steps[0], steps[1], steps[2], itemsize};
        loop(a, &m, st, NULL);
        fc_blend(itemsize, args[3] + i * steps[3], steps[3], (const char *)buf,
                 mask + i * s_mask, s_mask, m);
    }
}

#endif
