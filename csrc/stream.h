/* Streaming (non-temporal) stores for large out-of-place results.
 *
 * An ordinary store first reads the destination line into the cache (read for
 * ownership), so a large out-of-place clip moves 3 bytes for every 2 it needs:
 * read x, read out, write out. Streaming stores skip that read, a third of
 * the traffic. Used only for a loop call whose result is at least
 * fc_stream_min_bytes, half the L3 a core shares: smaller results stay in
 * L3 for the next call, where plain stores are faster.
 *
 * When to stream, and where a loop's stores start; the stores themselves
 * (fc_stream_copy: 32-byte streaming stores in the AVX-512 build too, as
 * 64-byte ones are slower on AMD Zen 4) are csrc/simd/memory.h's.
 */
#ifndef FASTCLIP_STREAM_H
#define FASTCLIP_STREAM_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <numpy/npy_common.h>
#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif
#if defined(__APPLE__)
#include <sys/sysctl.h>
#endif

#include "simd/memory.h"      /* fc_stream_copy, fc_stream_fence */

/* The L3 where the machine does not say. */
#define FC_L3_FALLBACK_BYTES ((npy_intp)32 << 20)

/* The L3 a core shares and where that figure came from, and the streaming
 * threshold, half of it: set once at import by fc_stream_init (and by a
 * test hook, with no call running). */
static npy_intp fc_l3_bytes = FC_L3_FALLBACK_BYTES;
static const char *fc_l3_source = "assumed: the machine lists none";
static npy_intp fc_stream_min_bytes = FC_L3_FALLBACK_BYTES / 2;

/* The L3 that Linux lists for cpu 0, 0 where none is listed: the CPU's cache
 * leaves as the kernel reads them, the slice a core shares (glibc's sysconf
 * can count the slices of every core complex of an AMD EPYC, several times
 * what one core's data can use). */
static npy_intp fc_linux_l3_bytes(void)
{
#if defined(__linux__)
    char path[64];
    for (int index = 0; index < 16; index++) {
        int level = 0;
        long size = 0;
        char unit = 0;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", index);
        FILE *f = fopen(path, "r");
        if (f == NULL) {
            break;
        }
        int found = fscanf(f, "%d", &level) == 1 && level == 3;
        fclose(f);
        if (!found) {
            continue;
        }
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", index);
        f = fopen(path, "r");
        if (f == NULL) {
            return 0;
        }
        found = fscanf(f, "%ld%c", &size, &unit) == 2;
        fclose(f);
        if (!found || size <= 0) {
            return 0;
        }
        return (npy_intp)size << (unit == 'K' ? 10 : unit == 'M' ? 20 : 0);
    }
#endif
    return 0;
}

static void fc_stream_init(void)
{
    npy_intp l3 = fc_linux_l3_bytes();
    const char *source = "Linux's cache list for cpu 0";
#if defined(_SC_LEVEL3_CACHE_SIZE)
    if (l3 <= 0) {
        l3 = (npy_intp)sysconf(_SC_LEVEL3_CACHE_SIZE);
        source = "sysconf";
    }
#endif
#if defined(__APPLE__)
    if (l3 <= 0) {
        int64_t size = 0;
        size_t len = sizeof size;
        l3 = sysctlbyname("hw.l3cachesize", &size, &len, NULL, 0) == 0 ? (npy_intp)size : 0;
        source = "sysctl hw.l3cachesize";
    }
#endif
    if (l3 > 0) {
        fc_l3_bytes = l3;
        fc_l3_source = source;
    }
    fc_stream_min_bytes = fc_l3_bytes / 2;
}

/* Loops writing this many bytes and more start their vector stores on a
 * 64-byte boundary, the elements before it done apart (fc_line_head; csrc/
 * convert.h fc_convert_aligned has the figures); a shorter call gains less
 * than the second call costs. */
#define FC_ALIGN_MIN_BYTES 4096

/* The elements of itemsize bytes before out's next 64-byte boundary (0 on
 * one), or -1 where out is not aligned for its items. */
static inline npy_intp fc_line_head(const void *out, npy_intp itemsize)
{
    npy_intp bytes = (npy_intp)(-(uintptr_t)out & 63);
    return bytes % itemsize == 0 ? bytes / itemsize : -1;
}

/* A loop's `data` (NULL from NumPy's iterator) set to this by the fast path:
 * the output was just allocated. Its pages are faulted in (and zeroed, through
 * the cache) by the stores themselves, and streaming stores then lose (into
 * an existing out= they win). */
#define FC_FRESH_OUTPUT ((void *)1)     /* a tag, never dereferenced (one value in every module) */

/* A loop's `data` set to this by csrc/parallel.h: this call is one chunk of a
 * call whose result is at least fc_stream_min_bytes into an existing output,
 * so it streams though it is short itself. */
#define FC_STREAM_OUTPUT ((void *)2)

#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#define FC_HAVE_MINCORE 1
#else
#define FC_HAVE_MINCORE 0
#endif

/* Whether the pages of [p, p + nbytes) are in memory already, sampled at the
 * first, middle and last page (mincore reads the page tables, not the memory;
 * three calls cost about a microsecond against the milliseconds of a call
 * this large). A user's out=np.empty(...) of this size is fresh memory
 * (mmap), and streaming into it loses as into a new result. Where mincore is
 * missing (Windows), pages count as resident. */
static inline int fc_pages_resident(const char *p, npy_intp nbytes)
{
#if FC_HAVE_MINCORE
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    const char *probe[3] = {p, p + nbytes / 2, p + nbytes - 1};
    for (int k = 0; k < 3; k++) {
        unsigned char in_memory = 0;
        void *base = (void *)((uintptr_t)probe[k] & ~(page - 1));
        if (mincore(base, 1, (void *)&in_memory) != 0 || !(in_memory & 1)) {
            return 0;
        }
    }
#endif
    (void)p;
    (void)nbytes;
    return 1;
}

/* Whether a loop call writing nbytes contiguously at out should stream:
 * tagged so by fc_run_parallel, or large, not tagged fresh, into memory that
 * is in place already. */
static inline int fc_should_stream(const void *data, const char *out, npy_intp nbytes)
{
    if (data == FC_STREAM_OUTPUT) {
        return 1;
    }
    if (data == FC_FRESH_OUTPUT || nbytes < fc_stream_min_bytes) {
        return 0;
    }
    return fc_pages_resident(out, nbytes);
}

#endif
