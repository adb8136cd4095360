/* Which SIMD target this CPU can run, read once at import; and which one a
 * module was compiled for.
 *
 * A target needs both the instructions (CPUID) and the operating system's
 * promise to save the wider registers on a context switch (XCR0 via XGETBV):
 * a CPU with AVX-512 under an OS that does not enable ZMM state must not run
 * AVX-512 code. Levels: 0 baseline (any x86-64, or any other architecture),
 * 1 SSE4.2 + POPCNT (x86-64-v2, with the SSSE3 and SSE4.1 under it), 2 AVX2 +
 * FMA + F16C on top, 3 AVX-512 F/BW/VL/DQ on top of level 2.
 *
 * GCC and clang spell CPUID and XGETBV as <cpuid.h> and inline assembly; MSVC
 * as the __cpuidex and _xgetbv intrinsics.
 */
#ifndef FASTCLIP_CPU_FEATURES_H
#define FASTCLIP_CPU_FEATURES_H

#if defined(__x86_64__) || defined(_M_X64) || defined(_M_AMD64)
#define FC_X86_64 1

#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
#include <immintrin.h>

static inline int fc_cpuid(unsigned int leaf, unsigned int sub, unsigned int r[4])
{
    int max[4], regs[4];
    __cpuid(max, (int)(leaf & 0x80000000u));
    if ((unsigned int)max[0] < leaf) {
        return 0;
    }
    __cpuidex(regs, (int)leaf, (int)sub);
    for (int k = 0; k < 4; k++) {
        r[k] = (unsigned int)regs[k];
    }
    return 1;
}

static inline unsigned long long fc_xgetbv0(void)
{
    return (unsigned long long)_xgetbv(0);
}
#else
#include <cpuid.h>

static inline int fc_cpuid(unsigned int leaf, unsigned int sub, unsigned int r[4])
{
    return __get_cpuid_count(leaf, sub, &r[0], &r[1], &r[2], &r[3]);
}

static inline unsigned long long fc_xgetbv0(void)
{
    unsigned int eax, edx;
    __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return ((unsigned long long)edx << 32) | eax;
}
#endif

static inline int fc_cpu_level(void)
{
    unsigned int r[4];          /* eax, ebx, ecx, edx */
    if (!fc_cpuid(1, 0, r)) {
        return 0;
    }
    unsigned int c = r[2];
    int ssse3 = (c >> 9) & 1, sse41 = (c >> 19) & 1, sse42 = (c >> 20) & 1;
    int popcnt = (c >> 23) & 1;
    if (!(ssse3 && sse41 && sse42 && popcnt)) {
        return 0;
    }
    int osxsave = (c >> 27) & 1, avx = (c >> 28) & 1;
    int fma = (c >> 12) & 1, f16c = (c >> 29) & 1;
    if (!(osxsave && avx && fma && f16c)) {
        return 1;
    }
    unsigned long long xcr0 = fc_xgetbv0();
    if ((xcr0 & 0x6) != 0x6) {                    /* XMM and YMM state */
        return 1;
    }
    if (!fc_cpuid(7, 0, r)) {
        return 1;
    }
    unsigned int b = r[1];
    if (!((b >> 5) & 1)) {                        /* AVX2 */
        return 1;
    }
    int avx512 = ((b >> 16) & 1) /* F */ && ((b >> 17) & 1) /* DQ */ &&
                 ((b >> 30) & 1) /* BW */ && ((b >> 31) & 1) /* VL */;
    if (avx512 && (xcr0 & 0xe0) == 0xe0) {        /* opmask, ZMM0-15, ZMM16-31 */
        return 3;
    }
    return 2;
}
#else
#define FC_X86_64 0
static inline int fc_cpu_level(void) { return 0; }
#endif

/* The level the compiler was told it may use for this module, from its own
 * macros: a build whose SIMD flags went missing shows up as a lower level
 * (tests/test_build_flags.py). MSVC's /arch:AVX2 defines __AVX2__ but not
 * __FMA__ or __F16C__ (it implies both). */
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__) && defined(__AVX512DQ__)
#define FC_COMPILED_LEVEL 3
#elif defined(__AVX2__) && ((defined(__FMA__) && defined(__F16C__)) || defined(_MSC_VER))
#define FC_COMPILED_LEVEL 2
#elif defined(__SSE4_2__) && defined(__POPCNT__)
#define FC_COMPILED_LEVEL 1
#else
#define FC_COMPILED_LEVEL 0
#endif

#endif
