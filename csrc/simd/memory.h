/* The memory instructions every build has, whatever its vector layer
 * (csrc/simd/simd.h picks the layer by target; these serve the modules built
 * for none too, such as the ufunc's): streaming stores and their fence, and
 * the pause of a spin loop. */
#ifndef FASTCLIP_SIMD_MEMORY_H
#define FASTCLIP_SIMD_MEMORY_H

#include <string.h>
#include <numpy/npy_common.h>

/* SSE2 is part of x86-64, but only GCC and clang say so (__SSE2__); MSVC
 * defines _M_X64/_M_AMD64 and, under /arch:AVX2 or /arch:AVX512, __AVX__. */
#if defined(__SSE2__) || defined(_M_X64) || defined(_M_AMD64)
#define FC_SSE2 1
#include <immintrin.h>
#else
#define FC_SSE2 0
#endif

/* whether fc_stream_copy streams (else it is memcpy) */
#define FC_HAVE_STREAM FC_SSE2

/* nbytes (a multiple of 64) from src into dst (64-byte aligned) by
 * non-temporal stores, which write whole lines without reading them first */
static inline void fc_stream_copy(char *dst, const char *src, npy_intp nbytes)
{
#if defined(__AVX__)
    for (npy_intp i = 0; i < nbytes; i += 32) {
        _mm256_stream_si256((__m256i *)(dst + i), _mm256_loadu_si256((const __m256i *)(src + i)));
    }
#elif FC_SSE2
    for (npy_intp i = 0; i < nbytes; i += 16) {
        _mm_stream_si128((__m128i *)(dst + i), _mm_loadu_si128((const __m128i *)(src + i)));
    }
#else
    memcpy(dst, src, (size_t)nbytes);
#endif
}

static inline void fc_stream_fence(void)
{
#if FC_HAVE_STREAM
    _mm_sfence();   /* streaming stores are weakly ordered */
#endif
}

/* one step of a spin loop: the CPU told so (x86's pause, aarch64's yield),
 * which saves power and the sibling hyperthread's time */
static inline void fc_cpu_relax(void)
{
#if FC_SSE2
    _mm_pause();
#elif defined(__aarch64__) && (defined(__GNUC__) || defined(__clang__))
    __asm__ __volatile__("yield");
#endif
}

#endif
