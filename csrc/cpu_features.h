/* Which SIMD target this CPU can run, read once at import.
 *
 * A target needs both the instructions (CPUID) and the operating system's
 * promise to save the wider registers on a context switch (XCR0 via XGETBV):
 * a CPU with AVX-512 under an OS that does not enable ZMM state must not run
 * AVX-512 code. Levels: 0 baseline (any x86-64, or any other architecture),
 * 1 AVX2 + FMA + F16C, 2 AVX-512 F/BW/VL/DQ on top of level 1.
 */
#ifndef FASTCLIP_CPU_FEATURES_H
#define FASTCLIP_CPU_FEATURES_H

#if defined(__x86_64__) || defined(_M_X64)
#include <cpuid.h>

static inline unsigned long long fc_xgetbv0(void)
{
    unsigned int eax, edx;
    __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return ((unsigned long long)edx << 32) | eax;
}

static inline int fc_cpu_level(void)
{
    unsigned int a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) {
        return 0;
    }
    int osxsave = (c >> 27) & 1, avx = (c >> 28) & 1;
    int fma = (c >> 12) & 1, f16c = (c >> 29) & 1;
    if (!(osxsave && avx && fma && f16c)) {
        return 0;
    }
    unsigned long long xcr0 = fc_xgetbv0();
    if ((xcr0 & 0x6) != 0x6) {                    /* XMM and YMM state */
        return 0;
    }
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
        return 0;
    }
    int avx2 = (b >> 5) & 1;
    if (!avx2) {
        return 0;
    }
    int avx512 = ((b >> 16) & 1) /* F */ && ((b >> 17) & 1) /* DQ */ &&
                 ((b >> 30) & 1) /* BW */ && ((b >> 31) & 1) /* VL */;
    if (avx512 && (xcr0 & 0xe0) == 0xe0) {        /* opmask, ZMM0-15, ZMM16-31 */
        return 2;
    }
    return 1;
}
#else
static inline int fc_cpu_level(void) { return 0; }
#endif

#endif
