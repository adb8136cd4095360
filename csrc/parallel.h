/* Splitting one call across threads, so that a split never costs.
 *
 * A call is an index range (elements of one loop call, or runs of an N-d walk,
 * csrc/walk.h) cut into one contiguous part per thread, and each part into
 * chunks. The calling thread publishes the job and starts on part 0 at once;
 * a helper that is awake takes the next part nobody has joined. Chunks are
 * claimed one at a time from each part's counter, and whoever runs out of its
 * own part claims the chunks left in the others'. The call is done when every
 * chunk is done: the caller never waits for a thread that has not started,
 * only for chunks already running.
 *
 * Helpers asleep when a call starts are left asleep for it: the call runs on
 * the caller alone, and they are woken afterwards if calls are coming close
 * together (fc_pool_retire). So at worst a split call runs at one thread's
 * speed plus a few lock operations. Calls that move FC_WAKE_EARLY_BYTES and
 * more, which outlast a wake-up, wake them at the start, and a helper that
 * wakes in time joins in. What a call moves (fc_work_bytes) is its input,
 * plus twice its output where that is fresh memory: the kernel zeroes each
 * new page before the loop writes it, which takes longer than a clip
 * reading and writing as many bytes in memory already mapped.
 *
 * Why not an OpenMP parallel region: its closing barrier waits for every
 * thread of the team, and a helper asleep on an idle vCPU takes milliseconds
 * to wake, longer than the call.
 *
 * The parts keep locality: back to back, each thread clips the same part of
 * the same array call after call, as a static OpenMP schedule did.
 *
 * One pool per process: fastclip._ufunc defines FC_POOL_OWNER and owns it
 * (the N-d walks run there); the kernel module in use is handed
 * fc_parallel_range through a capsule (configure_threads), so 1-D and N-d
 * calls share the same helpers and a spinning helper of one never takes the
 * core the other's needs. Until it is handed over, a kernel module runs every
 * call on one thread.
 *
 * Helpers are POSIX threads, started at the first split call. After a job a
 * helper spins for FC_SPIN_NS before it sleeps, so calls that follow closely
 * find it awake (as OpenMP runtimes spin before sleeping). Another library's
 * OpenMP workers spinning after its own calls (torch's) take the cores the
 * helpers would use; the caller then does the work alone.
 * After fork() the child has none of them; a handler forgets them and the
 * child starts its own at its first split call.
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
 * set_num_threads writes (the thread settings, the pool handed over): relaxed
 * atomic loads and stores, so that neither a GIL nor its absence (free-
 * threaded CPython) is needed for them. MSVC: volatile accesses of aligned
 * words, atomic there. */
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
typedef void (*fc_parallel_range_t)(fc_range_fn fn, void *ctx, npy_intp total, npy_intp grain,
                                    int nthreads, npy_intp work_bytes);

#if defined(_OPENMP) && !defined(_WIN32)
#define FC_POOL 1
#include <pthread.h>
#include <sched.h>
#include <time.h>
#else
#define FC_POOL 0
#endif
/* Steering woken helpers off the caller's CPU (fc_pool_wake): Linux's
 * sched_getcpu and pthread_setaffinity_np (Python.h defines _GNU_SOURCE). */
#if FC_POOL && defined(__linux__)
#define FC_STEER 1
#else
#define FC_STEER 0
#endif


#define FC_MAX_THREADS 64      /* a memory-bound clip gains nothing beyond this */
#define FC_CHUNKS_PER_PART 8   /* so a late helper still finds work to share */
#define FC_MIN_CHUNK_BYTES (64 << 10)
/* A call moving this much (fc_work_bytes) wakes sleeping helpers at its
 * start, and one that wakes in time (before half of it is done) joins it: it
 * outlasts a wake-up. Smaller calls lose time waking them at their start
 * (the benchmark's idle table shows it). */
#define FC_WAKE_EARLY_BYTES ((npy_intp)128 << 20)
/* Outputs this large are probed for fresh pages (fc_output_fresh) */
#define FC_PROBE_FRESH_BYTES ((npy_intp)16 << 20)
#ifndef FC_MAX_CHUNK_GRAINS
#define FC_MAX_CHUNK_GRAINS 8
#endif

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

/* The pool's mechanisms, each of which can be switched off, a bit each
 * (fc_pool_set_modes; fastclip._ufunc.pool_modes): for the benchmark's pool
 * section, which times each against the pool without it, and for the tests. */
enum {
    /* tests: every split call waits for its helpers, chunks of any size */
    FC_MODE_SPLIT_EVERY_CALL = 1,
    /* spin (FC_SPIN_NS): a loop's next call finds its helpers awake */
    FC_MODE_NO_SPIN = 2,
    /* late join (FC_WAKE_EARLY_BYTES): a call outlasting a wake-up gets helpers at once */
    FC_MODE_NO_LATE_JOIN = 4,
    /* wake-up rule (fc_burst_wants_helpers): woken only where that repays the wake-up */
    FC_MODE_NO_WAKE_RULE = 8,
    /* steering (fc_pool_wake): a woken helper does not queue behind the caller */
    FC_MODE_NO_STEER = 16,
    /* page probing (fc_output_fresh): a fresh output's page faults count as work */
    FC_MODE_NO_PROBE = 32
};

/* The bytes a call moves, for when to wake helpers: its input, plus twice
 * its output where the output is fresh memory (new, or pages never touched:
 * the kernel zeroes each before the loop writes it; see the top). */
static inline npy_intp fc_work_bytes(npy_intp in_bytes, npy_intp out_bytes, int fresh)
{
    return in_bytes + (fresh ? 2 * out_bytes : 0);
}

/* Whether an output of out_bytes at out is fresh memory, for fc_work_bytes:
 * pages are probed (csrc/stream.h) only from FC_PROBE_FRESH_BYTES, below
 * which no count wakes a helper at the start anyway. */
static inline int fc_pool_modes(void);
static inline int fc_output_fresh(const char *out, npy_intp out_bytes)
{
    return out_bytes >= FC_PROBE_FRESH_BYTES && !(fc_pool_modes() & FC_MODE_NO_PROBE)
           && !fc_pages_resident(out, out_bytes);
}

/* How long a helper spins for the next job before it sleeps: long enough
 * for a loop's calls with some Python work between them to find it awake.
 * OpenMP runtimes spin longer by default (libgomp: GOMP_SPINCOUNT). */
#define FC_SPIN_NS 5000000L

/* When sleeping helpers are woken in a burst of split calls (calls less than
 * FC_SPIN_NS apart after a pause). The wake-up is paid by the caller (a
 * futex wake and an affinity call a helper), and a woken helper takes a
 * while longer to join (docs/threads.rst), so it is made
 * where FC_WAKE_AHEAD_NS of the burst is still to come, judged by the burst
 * before this one (a loop's frames repeat): the helper then shares enough
 * of the rest to repay it. Whatever came
 * before, a burst that has outlasted the one before wakes them once it has
 * run FC_WAKE_WORTH_NS over more than one call: rent the skis until the
 * rent would have bought them ten times over, so a burst that ends right
 * after paying the wake-up has run at most a tenth over one thread's time. */
#ifndef FC_WAKE_AHEAD_NS
#define FC_WAKE_AHEAD_NS 250000L
#endif
#ifndef FC_WAKE_WORTH_NS
#define FC_WAKE_WORTH_NS 400000L
#endif

#if FC_POOL
static inline long fc_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000000000L + ts.tv_nsec;
}
#endif

/* What a kernel module reads of the owner's pool, without its lock, to run
 * a call that finds the pool idle after a pause, or in the burst that
 * follows one while it wants no helper, on the caller alone without entering
 * the owner's code: the owner would run it alone too and wake no helper
 * (fc_parallel_range, fc_pool_retire), and its path (a call into another
 * module, the lock, the checks) costs several times the kernel module's
 * own after a pause, its code and data fetched cold. Only
 * the interpreter's main thread splits calls, so one thread at a time
 * reads and writes the times below. */
typedef struct {
    int idle;               /* helpers started, every one asleep, no test forcing splits */
    int modes;              /* the FC_MODE_ bits set (fc_pool_set_modes) */
    long last_end_ns;       /* when the last split call ended */
    long burst_start_ns;    /* when the first call after the last pause started */
    long last_burst_ns;     /* how long the burst before that one ran */
} fc_pool_hint_t;

#if FC_POOL
/* Whether the burst at `now` wants its sleeping helpers (FC_WAKE_AHEAD_NS) */
static inline int fc_burst_wants_helpers(fc_pool_hint_t *hint, long now)
{
    long age = now - fc_load_long(&hint->burst_start_ns), last = fc_load_long(&hint->last_burst_ns);
    int past_first_call = fc_load_long(&hint->last_end_ns) > fc_load_long(&hint->burst_start_ns);
    return last - age >= FC_WAKE_AHEAD_NS
           || (past_first_call && age >= FC_WAKE_WORTH_NS && age > last);
}

/* Runs the call on the caller and returns 1 where the pool is idle and the
 * burst the call is in wants no helper yet (a pause before the call starts a
 * burst): what the owner's path would do, waking no helper for the next call
 * (fc_pool_retire). For the kernel modules before they call into the owner,
 * and for the owner's own callers (the walks) before its lock. */
static inline int fc_pool_run_alone(fc_pool_hint_t *hint, fc_range_fn fn, void *ctx,
                                            npy_intp total, npy_intp work_bytes)
{
    if (hint == NULL) {
        return 0;
    }
    long now = fc_now_ns(), last_end = fc_load_long(&hint->last_end_ns);
    long burst_start = fc_load_long(&hint->burst_start_ns);
    /* a pause: a burst starts (not again when the owner's path, entered
     * from a kernel module, asks once more for the same call) */
    if (now - last_end >= FC_SPIN_NS && now - burst_start >= FC_SPIN_NS) {
        fc_store_long(&hint->last_burst_ns, last_end - burst_start);
        fc_store_long(&hint->burst_start_ns, now);
    }
    int modes = fc_load_int(&hint->modes);
    if ((work_bytes >= FC_WAKE_EARLY_BYTES && !(modes & FC_MODE_NO_LATE_JOIN))
            || !fc_load_int(&hint->idle) || (modes & FC_MODE_NO_WAKE_RULE)
            || fc_burst_wants_helpers(hint, now)) {
        return 0;
    }
    fn(ctx, 0, total);
    fc_store_long(&hint->last_end_ns, fc_now_ns());
    return 1;
}
#endif

#ifdef FC_POOL_OWNER
#include "pool.h"     /* the helper threads */

/* fn over [0, total) on up to nthreads threads, the caller one of them; `grain`
 * is the smallest chunk worth claiming (and chunks start on its multiples);
 * work_bytes what the call moves (fc_work_bytes). */
#if FC_POOL
/* A job of total elements for nthreads parts: chunks of about
 * FC_CHUNKS_PER_PART per part, each a multiple of grain, at most
 * FC_MAX_CHUNK_GRAINS grains; part p starts at its share of the chunks. */
static inline void fc_job_init(fc_job_t *job, fc_range_fn fn, void *ctx, npy_intp total,
                               npy_intp units, npy_intp grain, int nthreads)
{
    npy_intp per_chunk = (units + (npy_intp)nthreads * FC_CHUNKS_PER_PART - 1)
                         / ((npy_intp)nthreads * FC_CHUNKS_PER_PART);
    if (per_chunk > FC_MAX_CHUNK_GRAINS) {
        per_chunk = FC_MAX_CHUNK_GRAINS;
    }
    job->fn = fn;
    job->ctx = ctx;
    job->total = total;
    job->grain = per_chunk * grain;
    npy_intp chunks = (total + job->grain - 1) / job->grain;
    job->nparts = nthreads;
    job->joined = 0;
    job->active = 0;
    job->done = 0;
    for (int p = 0; p < nthreads; p++) {
        job->parts[p].next = chunks * p / nthreads;
        job->parts[p].end = chunks * (p + 1) / nthreads;
    }
}

/* The caller's share of a published job, then the wait for the chunks
 * helpers are finishing and for the helpers to leave it; the pool retired
 * (fc_pool_retire). Called without the lock. */
static inline void fc_job_run_and_retire(fc_job_t *job)
{
    fc_job_work(job, 0);
    /* every chunk is claimed; wait for the ones helpers are finishing */
    for (int i = 0; __atomic_load_n(&job->done, __ATOMIC_ACQUIRE) < job->total; i++) {
        fc_spin_step(i);
    }
    fc_pool_lock();
    fc_pool.job = NULL;             /* no helper joins from here on */
    for (int i = 0; __atomic_load_n(&job->active, __ATOMIC_ACQUIRE); i++) {
        fc_spin_step(i);            /* helpers that joined are leaving */
    }
    fc_pool_retire();
    pthread_mutex_unlock(&fc_pool.lock);
}
#else
/* an OpenMP region (Windows): one contiguous part of whole grains a thread */
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
#endif

static void fc_parallel_range(fc_range_fn fn, void *ctx, npy_intp total, npy_intp grain,
                              int nthreads, npy_intp work_bytes)
{
    if (nthreads > FC_MAX_THREADS) {
        nthreads = FC_MAX_THREADS;
    }
#if FC_POOL
    int modes = fc_pool_modes();
    if (modes & FC_MODE_SPLIT_EVERY_CALL) {
        grain = 1;
    }
#endif
    npy_intp units = (total + grain - 1) / grain;
    if (nthreads > units) {
        nthreads = (int)units;
    }
    if (nthreads <= 1) {
        fn(ctx, 0, total);
        return;
    }
#if FC_POOL
    if (fc_pool_run_alone(&fc_pool_hint, fn, ctx, total, work_bytes)) {
        return;
    }
    fc_job_t job;
    fc_job_init(&job, fn, ctx, total, units, grain, nthreads);

    fc_pool_lock();
    if (fc_pool.busy || fc_pool_start_helpers(nthreads - 1) == 0) {
        /* another caller's job is running (the main-thread rule makes that
         * rare), or no thread could be started: run it here */
        pthread_mutex_unlock(&fc_pool.lock);
        fn(ctx, 0, total);
        return;
    }
    int split_every_call = modes & FC_MODE_SPLIT_EVERY_CALL;
    int wake_now = work_bytes >= FC_WAKE_EARLY_BYTES && !(modes & FC_MODE_NO_LATE_JOIN);
    if (fc_pool.sleeping == fc_pool.helpers && !split_every_call && !wake_now) {
        /* Every helper is asleep: one woken now would join late, if at all,
         * and waking it cost the caller more than it helped. So: this call
         * alone, then wake them for the next. */
        fc_pool.busy = 1;
        pthread_mutex_unlock(&fc_pool.lock);
        fn(ctx, 0, total);
        fc_pool_lock();
        fc_pool_retire();
        pthread_mutex_unlock(&fc_pool.lock);
        return;
    }
    fc_pool.busy = 1;
    job.late_join = wake_now;
    fc_pool.job = &job;
    __atomic_store_n(&fc_pool.gen, fc_pool.gen + 1, __ATOMIC_RELEASE);
    if (wake_now && fc_pool.sleeping) {
        fc_pool_wake();
    }
    if (split_every_call) {
        /* every part gets its own thread before the caller starts */
        fc_pool_wake();
        while (job.joined < nthreads - 1 && job.joined < fc_pool.helpers) {
            pthread_mutex_unlock(&fc_pool.lock);
            fc_cpu_relax();
            fc_pool_lock();
        }
    }
    pthread_mutex_unlock(&fc_pool.lock);
    fc_job_run_and_retire(&job);
#else   /* FC_POOL */
    fc_openmp_range(fn, ctx, total, units, grain, nthreads);
#endif  /* FC_POOL */
}

#if FC_POOL
static void fc_pool_set_modes(int modes)
{
    fc_pool_lock();
    __atomic_store_n(&fc_pool_hint.modes, modes, __ATOMIC_RELAXED);
    fc_pool_hint_idle();
    pthread_mutex_unlock(&fc_pool.lock);
}
static inline int fc_pool_modes(void) { return fc_load_int(&fc_pool_hint.modes); }
static void *fc_pool_hint_address(void) { return &fc_pool_hint; }
static int fc_pool_helpers(void) { return fc_pool.helpers; }
static npy_intp fc_pool_helper_chunks(void) { return __atomic_load_n(&fc_pool.helper_chunks, __ATOMIC_RELAXED); }
static unsigned long fc_pool_wakeups(void) { return fc_load_ulong(&fc_pool.pokes); }
#else
/* no pool: the switches are kept (pool_modes reads them back) and switch nothing */
static int fc_pool_modes_word = 0;
static void fc_pool_set_modes(int modes) { fc_store_int(&fc_pool_modes_word, modes); }
static inline int fc_pool_modes(void) { return fc_load_int(&fc_pool_modes_word); }
static void *fc_pool_hint_address(void) { return NULL; }
static int fc_pool_helpers(void) { return 0; }
static npy_intp fc_pool_helper_chunks(void) { return 0; }
static unsigned long fc_pool_wakeups(void) { return 0; }
#endif

/* for the capsule that hands it to the kernel modules */
static void *fc_parallel_range_address(void) { return (void *)fc_parallel_range; }

#else   /* FC_POOL_OWNER */

/* the owner's fc_parallel_range and its pool's hint (NULL without a pool of
 * threads), once handed over (configure_threads) */
static fc_parallel_range_t fc_parallel_range_owner = NULL;
static fc_pool_hint_t *fc_pool_hint_owner = NULL;
FC_ATOMIC_ACCESSORS(range_fn, fc_parallel_range_t)
FC_ATOMIC_ACCESSORS(hint, fc_pool_hint_t *)

static void fc_parallel_range(fc_range_fn fn, void *ctx, npy_intp total, npy_intp grain,
                              int nthreads, npy_intp work_bytes)
{
    fc_parallel_range_t owner = fc_load_range_fn(&fc_parallel_range_owner);
    if (nthreads <= 1 || owner == NULL) {
        fn(ctx, 0, total);
        return;
    }
#if FC_POOL
    if (fc_pool_run_alone(fc_load_hint(&fc_pool_hint_owner), fn, ctx, total, work_bytes)) {
        return;
    }
#endif
    owner(fn, ctx, total, grain, nthreads, work_bytes);
}

static inline int fc_pool_modes(void)
{
    fc_pool_hint_t *hint = fc_load_hint(&fc_pool_hint_owner);
    return hint == NULL ? 0 : fc_load_int(&hint->modes);
}

static void fc_set_parallel_range(void *owner, void *hint)
{
    fc_store_range_fn(&fc_parallel_range_owner, (fc_parallel_range_t)owner);
    fc_store_hint(&fc_pool_hint_owner, (fc_pool_hint_t *)hint);
}

#endif  /* FC_POOL_OWNER */

/* One loop call (four operands: x, lo, hi, out) split across threads. */
typedef struct {
    fc_loop_t serial;
    char **args;
    const npy_intp *steps;
    void *data;         /* for a chunk, threads sharing the call */
    void *alone_data;   /* for the whole call, run by the caller alone (helpers asleep) */
    npy_intp n;
} fc_loop_job_t;

/* Streaming stores win for one thread from FC_STREAM_MIN_BYTES (csrc/stream.h).
 * Threads sharing a call below this keep plain stores: x and the result then
 * both fit a server's L3 together, and stay there for the next call; a
 * streamed result would be read back from memory. */
#define FC_STREAM_SHARED_MIN_BYTES ((npy_intp)32 << 20)

static void fc_loop_range(void *ctx, npy_intp first, npy_intp last)
{
    fc_loop_job_t *j = (fc_loop_job_t *)ctx;
    char *a[4];
    for (int k = 0; k < 4; k++) {
        a[k] = j->args[k] + first * j->steps[k];
    }
    npy_intp len = last - first;
    j->serial(a, &len, j->steps, first == 0 && last == j->n ? j->alone_data : j->data);
}

static void fc_run_parallel(fc_loop_t serial, char **args, npy_intp n,
                            const npy_intp *steps, void *data, int nthreads, int itemsize)
{
    /* chunks are whole cache lines (multiples of 64 elements) */
    npy_intp grain = FC_MIN_CHUNK_BYTES / itemsize;
    npy_intp nbytes = n * (npy_intp)itemsize;
    int stream = fc_should_stream(data, args[3], nbytes);
    /* FC_STREAM_OUTPUT: the call is large though its chunks are not */
    void *shared = stream && nbytes >= FC_STREAM_SHARED_MIN_BYTES ? FC_STREAM_OUTPUT : data;
    fc_loop_job_t job = {serial, args, steps, shared, stream ? FC_STREAM_OUTPUT : data, n};
    /* a streamed output is resident (fc_should_stream probed it): no second probe */
    int fresh = data == FC_FRESH_OUTPUT || (args[3] != args[0] && !stream
                                            && fc_output_fresh(args[3], nbytes));
    fc_parallel_range(fc_loop_range, &job, n, grain, nthreads, fc_work_bytes(nbytes, nbytes, fresh));
}

#endif
