/* Splitting one loop call across threads (OpenMP).
 *
 * Every clip loop is elementwise, so a call is cut into one contiguous chunk
 * per thread (a multiple of 64 elements, so chunks start on cache lines when
 * the array does) and each chunk runs the serial loop with its pointers moved
 * by start * step; bounds with step 0 stay put. Each thread clears its own FP
 * status in the serial loop, as the caller's does.
 *
 * Several runs (an N-d walk) are split by csrc/walk.h instead.
 *
 * When: the caller decides (fastclip/_kernels.pyx.in): enough bytes, more than
 * one thread allowed, the interpreter's main thread, not already inside an
 * OpenMP region. The thread count is the smaller of fastclip's setting and
 * omp_get_max_threads(), so threadpoolctl's limits on OpenMP apply.
 */
#ifndef FASTCLIP_PARALLEL_H
#define FASTCLIP_PARALLEL_H

#include <Python.h>
#include <numpy/npy_common.h>

#ifdef _OPENMP
#include <omp.h>
#endif

typedef void (*fc_loop_t)(char **args, const npy_intp *dimensions,
                          const npy_intp *steps, void *data);

static inline int fc_openmp_threads(int wanted)
{
#ifdef _OPENMP
    if (omp_in_parallel()) {
        return 1;
    }
    int cap = omp_get_max_threads();
    return wanted < cap ? wanted : cap;
#else
    (void)wanted;
    return 1;
#endif
}

static inline int fc_have_openmp(void)
{
#ifdef _OPENMP
    return 1;
#else
    return 0;
#endif
}

static void fc_run_parallel(fc_loop_t serial, char **args, npy_intp n,
                            const npy_intp *steps, void *data, int nthreads)
{
    npy_intp chunk = ((n + nthreads - 1) / nthreads + 63) & ~(npy_intp)63;
#ifdef _OPENMP
    #pragma omp parallel for num_threads(nthreads) schedule(static, 1)
#endif
    for (int t = 0; t < nthreads; t++) {
        npy_intp start = (npy_intp)t * chunk;
        if (start < n) {
            npy_intp len = n - start < chunk ? n - start : chunk;
            char *a[4];
            for (int k = 0; k < 4; k++) {
                a[k] = args[k] + start * steps[k];
            }
            serial(a, &len, steps, data);
        }
    }
}

#endif
