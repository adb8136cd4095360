/* Splitting one call across threads, so that a split never costs.
 *
 * A call is an index range (elements of one loop call, or runs of an N-d walk,
 * csrc/walk.h) cut into one contiguous part per thread, and each part into
 * chunks. The calling thread publishes the job and starts on part 0 at once;
 * a helper that is awake takes the next part nobody has joined. Chunks are
 * claimed one at a time from each part's counter, and whoever runs out of its
 * own part claims the chunks left in the others'. The call is done when every
 * chunk is done: the caller never waits for a thread that has not started,
 * only for chunks already running. So at worst a split call runs at one
 * thread's speed plus a few lock operations.
 *
 * Why not an OpenMP parallel region (the simple design, kept as a mode for
 * the benchmark, FC_MODE_OPENMP): its closing barrier waits for every thread
 * of the team, and a thread asleep on an idle vCPU can take milliseconds to
 * wake, far longer than the call.
 *
 * Waiting costs no more than it can save (csrc/pool.h): after a job a helper
 * spins for as long as a wake-up takes (measured as the pool runs), then
 * sleeps; a call that finds helpers asleep wakes them once it has run
 * FC_WAKE_REPAY wake-ups' time itself, so a call too short to repay a
 * wake-up never pays one, and one that pays for it and gains nothing has run
 * at most 1 / FC_WAKE_REPAY over one thread's time.
 *
 * The parts keep locality: back to back, each thread clips the same part of
 * the same array call after call, as a static OpenMP schedule does.
 *
 * One pool per process: fastclip._ufunc defines FC_POOL_OWNER and owns it
 * (the N-d walks run there); the kernel module in use is handed
 * fc_parallel_range through a capsule (configure_threads), so 1-D and N-d
 * calls share the same helpers. Until it is handed over, a kernel module runs
 * every call on one thread.
 *
 * The thread count is still OpenMP's business: the smaller of fastclip's
 * setting and omp_get_max_threads(), so threadpoolctl's limits on the OpenMP
 * runtime fastclip links apply, and a call from inside an OpenMP region runs
 * on one thread. A build without OpenMP runs every call on one thread, and
 * Windows (no pthreads under MSVC) keeps an OpenMP region.
 *
 * When to split: the caller decides (threads_for, src/fastclip/_kernel_loops.pxi.in):
 * enough bytes, more than one thread allowed, the interpreter's main thread.
 */
#ifndef FASTCLIP_PARALLEL_H
#define FASTCLIP_PARALLEL_H

#include <Python.h>
#include <numpy/npy_common.h>
#include "loop_types.h"
#include "stream.h"

#ifdef _OPENMP
#include <omp.h>
#endif


/* Settings every call reads, from any thread and with the GIL released, and
 * set_num_threads writes: relaxed atomic loads and stores, so that neither a
 * GIL nor its absence (free-threaded CPython) is needed for them. MSVC:
 * volatile accesses of aligned words, atomic there. */
#if defined(__GNUC__) || defined(__clang__)
#define FC_ATOMIC_ACCESSORS(NAME, T)                                           \
    static inline T fc_load_##NAME(T const *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); } \
    static inline void fc_store_##NAME(T *p, T v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
#else
#define FC_ATOMIC_ACCESSORS(NAME, T)                                           \
    static inline T fc_load_##NAME(T const *p) { return *(volatile T const *)p; } \
    static inline void fc_store_##NAME(T *p, T v) { *(volatile T *)p = v; }
#endif
FC_ATOMIC_ACCESSORS(int, int)
FC_ATOMIC_ACCESSORS(intp, npy_intp)
FC_ATOMIC_ACCESSORS(ulong, unsigned long)
FC_ATOMIC_ACCESSORS(long, long)

/* work on the indices [first, last) of a job */
typedef void (*fc_range_fn)(void *ctx, npy_intp first, npy_intp last);

/* fc_parallel_range's type, as handed to the kernel modules */
typedef void (*fc_parallel_range_t)(fc_range_fn fn, void *ctx, void *alone_ctx, npy_intp total,
                                    npy_intp grain, int nthreads);

#if defined(_OPENMP) && !defined(_WIN32)
#define FC_POOL 1
#include <pthread.h>
#include <time.h>
#else
#define FC_POOL 0
#endif


#define FC_MAX_THREADS 64      /* a memory-bound clip gains nothing beyond this */
#define FC_CHUNKS_PER_PART 8   /* so a late helper still finds work to share */
#define FC_MIN_CHUNK_BYTES (64 << 10)
#ifndef FC_MAX_CHUNK_GRAINS
#define FC_MAX_CHUNK_GRAINS 8
#endif
/* A call wakes sleeping helpers once it has run this many wake-ups' time:
 * rent the skis until the rent would have bought them twenty times over, so
 * a call that ends right after paying for a wake-up has run at most a
 * twentieth over one thread's time. */
#define FC_WAKE_REPAY 20
/* ... and only where what is left of the call (or of its burst of calls)
 * lasts this many wake-ups (from the caller's start of one to a helper
 * running): the helper then comes with most of it left. */
#define FC_WAKE_AHEAD 4

static inline int fc_openmp_threads(int wanted)
{
#ifdef _OPENMP
    if (omp_in_parallel()) {
        return 1;
    }
    int cap = omp_get_max_threads();
    if (cap > FC_MAX_THREADS) {
        cap = FC_MAX_THREADS;
    }
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

/* The pool's modes (fc_pool_set_modes; fastclip._ufunc.pool_modes), a bit each. */
enum {
    /* tests: every split call waits for its helpers, chunks of any size */
    FC_MODE_SPLIT_EVERY_CALL = 1,
    /* the benchmark: a split call is one OpenMP parallel loop over the same
     * parts, the runtime's own threads and wait policy (the simple design) */
    FC_MODE_OPENMP = 2
};

/* One OpenMP region: one contiguous part of whole grains a thread. The split
 * of Windows builds (no pthreads under MSVC), and FC_MODE_OPENMP's. */
static void fc_openmp_range(fc_range_fn fn, void *ctx, npy_intp total, npy_intp units,
                            npy_intp grain, int nthreads)
{
#ifdef _OPENMP
    #pragma omp parallel for num_threads(nthreads) schedule(static, 1)
#endif
    for (int t = 0; t < nthreads; t++) {
        npy_intp first = units * t / nthreads * grain, last = units * (t + 1) / nthreads * grain;
        if (last > total) {
            last = total;
        }
        if (first < last) {
            fn(ctx, first, last);
        }
    }
}

#ifdef FC_POOL_OWNER
#include "pool.h"     /* the helper threads */

/* fn over [0, total) on up to nthreads threads, the caller one of them; `grain`
 * is the smallest chunk worth claiming (and chunks start on its multiples).
 * fn gets ctx where threads share the call, alone_ctx (NULL: ctx) where the
 * caller starts it alone (decided once, at its start; csrc/pool.h). */
static void fc_parallel_range(fc_range_fn fn, void *ctx, void *alone_ctx, npy_intp total,
                              npy_intp grain, int nthreads)
{
    if (nthreads > FC_MAX_THREADS) {
        nthreads = FC_MAX_THREADS;
    }
    int modes = fc_pool_modes();
    if (modes & FC_MODE_SPLIT_EVERY_CALL) {
        grain = 1;
    }
    npy_intp units = (total + grain - 1) / grain;
    if (nthreads > units) {
        nthreads = (int)units;
    }
    if (nthreads <= 1) {
        fn(alone_ctx != NULL ? alone_ctx : ctx, 0, total);
        return;
    }
#if FC_POOL
    if (!(modes & FC_MODE_OPENMP)) {
        fc_pool_run(fn, ctx, alone_ctx != NULL ? alone_ctx : ctx, total, units, grain, nthreads,
                    modes & FC_MODE_SPLIT_EVERY_CALL);
        return;
    }
#endif
    fc_openmp_range(fn, ctx, total, units, grain, nthreads);
}

/* for the capsule that hands it to the kernel modules */
static void *fc_parallel_range_address(void) { return (void *)fc_parallel_range; }

#else   /* FC_POOL_OWNER */

/* the owner's fc_parallel_range, once handed over (configure_threads) */
static fc_parallel_range_t fc_parallel_range_owner = NULL;
FC_ATOMIC_ACCESSORS(range_fn, fc_parallel_range_t)

static void fc_parallel_range(fc_range_fn fn, void *ctx, void *alone_ctx, npy_intp total,
                              npy_intp grain, int nthreads)
{
    fc_parallel_range_t owner = fc_load_range_fn(&fc_parallel_range_owner);
    if (nthreads <= 1 || owner == NULL) {
        fn(alone_ctx != NULL ? alone_ctx : ctx, 0, total);
        return;
    }
    owner(fn, ctx, alone_ctx, total, grain, nthreads);
}

static void fc_set_parallel_range(void *owner)
{
    fc_store_range_fn(&fc_parallel_range_owner, (fc_parallel_range_t)owner);
}

#endif  /* FC_POOL_OWNER */

/* One loop call (four operands: x, lo, hi, out) split across threads. */
typedef struct {
    fc_loop_t serial;
    char **args;
    const npy_intp *steps;
    void *data;         /* the loop's data for every chunk: its store kind */
} fc_loop_job_t;

/* Streaming stores win for one thread from fc_stream_min_bytes, half the L3
 * (csrc/stream.h). Threads sharing a call below twice that keep plain
 * stores: x and the result then both fit the L3 together, and stay there for
 * the next call; a streamed result would be read back from memory. */

static void fc_loop_range(void *ctx, npy_intp first, npy_intp last)
{
    fc_loop_job_t *j = (fc_loop_job_t *)ctx;
    char *a[4];
    for (int k = 0; k < 4; k++) {
        a[k] = j->args[k] + first * j->steps[k];
    }
    npy_intp len = last - first;
    j->serial(a, &len, j->steps, j->data);
}

static void fc_run_parallel(fc_loop_t serial, char **args, npy_intp n,
                            const npy_intp *steps, void *data, int nthreads, int itemsize)
{
    /* chunks are whole cache lines (multiples of 64 elements) */
    npy_intp grain = FC_MIN_CHUNK_BYTES / itemsize;
    npy_intp nbytes = n * (npy_intp)itemsize;
    /* FC_STREAM_OUTPUT: the call is large though its chunks are not (in
     * place never streams: the loop reads each line it writes) */
    int stream = args[3] != args[0] && fc_should_stream(data, args[3], nbytes);
    fc_loop_job_t shared = {serial, args, steps,
                            stream && nbytes >= 2 * fc_stream_min_bytes ? FC_STREAM_OUTPUT : data};
    fc_loop_job_t alone = {serial, args, steps, stream ? FC_STREAM_OUTPUT : data};
    fc_parallel_range(fc_loop_range, &shared, &alone, n, grain, nthreads);
}

#endif
