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
 * When to split: the caller decides (src/fastclip/_kernels.pyx.in): enough bytes,
 * more than one thread allowed, the interpreter's main thread.
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
static inline int fc_output_fresh(const char *out, npy_intp out_bytes)
{
    return out_bytes >= FC_PROBE_FRESH_BYTES && !fc_pages_resident(out, out_bytes);
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
    if (work_bytes >= FC_WAKE_EARLY_BYTES || !fc_load_int(&hint->idle)
            || fc_burst_wants_helpers(hint, now)) {
        return 0;
    }
    fn(ctx, 0, total);
    fc_store_long(&hint->last_end_ns, fc_now_ns());
    return 1;
}
#endif

#ifdef FC_POOL_OWNER
#if FC_POOL

typedef struct {
    npy_intp next, end;                 /* chunks [next, end) not yet claimed */
    char pad[64 - 2 * sizeof(npy_intp)];  /* one counter per cache line */
} fc_part_t;

typedef struct {
    fc_range_fn fn;
    void *ctx;
    npy_intp total, grain;
    int nparts;
    int joined;         /* parts taken by helpers (under the pool's lock) */
    int active;         /* helpers inside the job (atomic; raised under the pool's lock) */
    int late_join;      /* a helper woken from sleep may join (a long call) */
    npy_intp done;      /* indices finished (atomic) */
    fc_part_t parts[FC_MAX_THREADS];
} fc_job_t;

static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake;    /* a new job */
    fc_job_t *job;          /* the current job, or NULL */
    unsigned long gen;      /* bumped for each job (read unlocked by spinning helpers) */
    unsigned long pokes;    /* bumped to wake sleeping helpers */
    int helpers;            /* started */
    int sleeping;           /* waiting on `wake` */
    int busy;               /* a caller is between publishing and retiring a job */
    int atfork_set;
    int test_split;         /* tests: every split call waits for its helpers, grain 1 */
    npy_intp helper_chunks; /* chunks helpers have done (atomic; for the tests) */
#if FC_STEER
    pthread_t tids[FC_MAX_THREADS];   /* the helpers, to steer (fc_pool_wake) */
    cpu_set_t cpus;                   /* the caller's CPUs at the last wake-up */
    int cpus_known;                   /* cpus was read */
#endif
} fc_pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
             NULL, 0, 0, 0, 0, 0, 0, 0, 0};

static fc_pool_hint_t fc_pool_hint = {0, 0, 0, 0};

/* Under the lock (or in a forked child, alone): fc_pool_hint.idle again */
static void fc_pool_hint_idle(void)
{
    int idle = fc_pool.helpers > 0 && fc_pool.sleeping == fc_pool.helpers && !fc_pool.test_split;
    __atomic_store_n(&fc_pool_hint.idle, idle, __ATOMIC_RELAXED);
}

/* One step of a wait for another thread of the pool: a pause, and every
 * 1024th step the core given up, since the thread waited for may have been
 * preempted and need it. */
static inline void fc_spin_step(int i)
{
    fc_cpu_relax();
    if ((i & 1023) == 1023) {
        sched_yield();
    }
}

/* The pool's lock, taken spinning: it is only ever held for a few loads and
 * stores. A thread that slept on it (a futex wait) was woken on the CPU of
 * the thread that let it go (Linux's wake-up placement), and there waited
 * behind a thread that does not block: a helper behind the clipping caller,
 * or the caller behind a spinning helper, for far longer than the call. */
static void fc_pool_lock(void)
{
    for (int i = 0; pthread_mutex_trylock(&fc_pool.lock) != 0; i++) {
        fc_spin_step(i);
    }
}

/* Claim chunks, own part first, then the others' leftovers, until none is left. */
static void fc_job_work(fc_job_t *job, int part)
{
    for (int k = 0; k < job->nparts; k++) {
        fc_part_t *p = &job->parts[(part + k) % job->nparts];
        for (;;) {
            npy_intp c = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED);
            if (c >= p->end) {
                break;
            }
            npy_intp first = c * job->grain;
            npy_intp last = first + job->grain < job->total ? first + job->grain : job->total;
            job->fn(job->ctx, first, last);
            if (part != 0) {
                __atomic_fetch_add(&fc_pool.helper_chunks, 1, __ATOMIC_RELAXED);
            }
            __atomic_fetch_add(&job->done, last - first, __ATOMIC_RELEASE);
        }
    }
}

static void *fc_helper(void *arg)
{
    /* the generation before the job that started it, which it may join */
    unsigned long seen = (unsigned long)(npy_uintp)arg;
    fc_pool_lock();
    for (;;) {
        /* awake: spin for the next job, then sleep */
        pthread_mutex_unlock(&fc_pool.lock);
        long until = fc_now_ns() + FC_SPIN_NS;
        for (int i = 0; __atomic_load_n(&fc_pool.gen, __ATOMIC_ACQUIRE) == seen; i++) {
            fc_cpu_relax();
            if ((i & 255) == 255 && fc_now_ns() > until) {
                break;
            }
        }
        fc_pool_lock();
        if (fc_pool.gen == seen) {
            /* Asleep until a caller wakes the helpers, which it does after
             * its call (fc_parallel_range). A job published meanwhile is not
             * joined: the caller has not counted on this thread. */
            unsigned long pokes = fc_pool.pokes;
            fc_pool.sleeping++;
            fc_pool_hint_idle();
            while (fc_pool.pokes == pokes) {
                pthread_cond_wait(&fc_pool.wake, &fc_pool.lock);
            }
            fc_pool.sleeping--;
            fc_pool_hint_idle();
#if FC_STEER
            if (fc_pool.cpus_known) {
                /* running, away from the caller: its CPUs again */
                pthread_setaffinity_np(pthread_self(), sizeof fc_pool.cpus, &fc_pool.cpus);
            }
#endif
            if (!fc_pool.test_split && !(fc_pool.job != NULL && fc_pool.job->late_join)) {
                seen = fc_pool.gen;
            }
            continue;
        }
        seen = fc_pool.gen;
        fc_job_t *job = fc_pool.job;
        if (job == NULL || job->joined + 1 >= job->nparts
                || __atomic_load_n(&job->done, __ATOMIC_RELAXED) > job->total / 2) {
            /* retired already, every part has its thread, or (a helper woken
             * late for a long call) most of it is done: a cold helper's
             * first chunk could then end the call later than the caller would */
            continue;
        }
        int part = ++job->joined;
        __atomic_add_fetch(&job->active, 1, __ATOMIC_RELAXED);
        pthread_mutex_unlock(&fc_pool.lock);
        fc_job_work(job, part);
        __atomic_sub_fetch(&job->active, 1, __ATOMIC_RELEASE);    /* its last touch of job */
        fc_pool_lock();
    }
    return NULL;
}

/* In a forked child only the forking thread exists: forget the helpers (and
 * any job a helper was in), and start afresh at the next split call. */
static void fc_pool_after_fork_child(void)
{
    pthread_mutex_init(&fc_pool.lock, NULL);
    pthread_cond_init(&fc_pool.wake, NULL);
    fc_pool.job = NULL;
    fc_pool.helpers = 0;
    fc_pool.sleeping = 0;
    fc_pool.busy = 0;
    fc_pool_hint_idle();
}

/* Under the lock: have `want` helpers; returns how many there are. */
static int fc_pool_start_helpers(int want)
{
    if (!fc_pool.atfork_set) {
        if (pthread_atfork(NULL, NULL, fc_pool_after_fork_child) != 0) {
            return 0;
        }
        fc_pool.atfork_set = 1;
    }
    while (fc_pool.helpers < want) {
        pthread_t tid;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&attr, 256 << 10);
        int rc = pthread_create(&tid, &attr, fc_helper, (void *)(npy_uintp)fc_pool.gen);
        pthread_attr_destroy(&attr);
        if (rc != 0) {
            break;          /* fewer helpers: the caller does their share */
        }
#if FC_STEER
        fc_pool.tids[fc_pool.helpers] = tid;
#endif
        fc_pool.helpers++;
        fc_pool_hint_idle();
    }
    return fc_pool.helpers;
}

#endif  /* FC_POOL */

#if FC_POOL
/* Under the lock: wake the sleeping helpers, first steering them off the
 * caller's CPU. Linux may wake a thread on the waker's CPU (the two share a
 * cache), and there a helper waits behind the caller, which does not block
 * while it clips. Each helper's CPUs are set to the caller's less the one it
 * runs on, and a woken helper sets them back: the placement is all that was
 * wanted (a helper still spinning is moved off the caller's CPU, and gets
 * them back at its next wake-up). With the spinning lock, this is what
 * lets a woken helper share a hot loop's calls after a pause
 * (tests/test_threads.py, the hot loop). */
static void fc_pool_wake(void)
{
#if FC_STEER
    int cpu = sched_getcpu();
    if (sched_getaffinity(0, sizeof fc_pool.cpus, &fc_pool.cpus) == 0) {
        fc_pool.cpus_known = 1;
        if (cpu >= 0 && cpu < CPU_SETSIZE && CPU_ISSET(cpu, &fc_pool.cpus)
                && CPU_COUNT(&fc_pool.cpus) > 1) {
            cpu_set_t away = fc_pool.cpus;
            CPU_CLR(cpu, &away);
            for (int h = 0; h < fc_pool.helpers; h++) {
                pthread_setaffinity_np(fc_pool.tids[h], sizeof away, &away);
            }
        }
    }
#endif
    fc_store_ulong(&fc_pool.pokes, fc_pool.pokes + 1);
    pthread_cond_broadcast(&fc_pool.wake);
}

/* Under the lock, at the end of a split call. Sleeping helpers are woken for
 * the calls that follow, not for this one, and only in a burst that wants
 * them (fc_burst_wants_helpers), whose calls come less than a helper's spin
 * (FC_SPIN_NS) apart: then one wake-up keeps them spinning from call to
 * call. A call alone after each pause never wakes them: they would be
 * asleep again by the next call, and the wake-up is a cost for nothing (a
 * VM's halted vCPUs need an interrupt to wake). That holds for large calls
 * too, whose wake-up would slow the caller's next call as much; a
 * burst of large calls after a pause finds them awake from its second call
 * where the burst before it ran as long, else from its third
 * (fc_burst_wants_helpers). */
static void fc_pool_retire(void)
{
    fc_pool.busy = 0;
    if (fc_pool.sleeping && fc_burst_wants_helpers(&fc_pool_hint, fc_now_ns())) {
        fc_pool_wake();
    }
    fc_store_long(&fc_pool_hint.last_end_ns, fc_now_ns());
}
#endif

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
    if (fc_pool.test_split) {
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
    int wake_now = work_bytes >= FC_WAKE_EARLY_BYTES;
    if (fc_pool.sleeping == fc_pool.helpers && !fc_pool.test_split && !wake_now) {
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
    if (fc_pool.test_split) {
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
static void fc_pool_set_test_split(int on)
{
    fc_pool_lock();
    fc_pool.test_split = on;
    fc_pool_hint_idle();
    pthread_mutex_unlock(&fc_pool.lock);
}
static void *fc_pool_hint_address(void) { return &fc_pool_hint; }
static int fc_pool_helpers(void) { return fc_pool.helpers; }
static npy_intp fc_pool_helper_chunks(void) { return __atomic_load_n(&fc_pool.helper_chunks, __ATOMIC_RELAXED); }
static unsigned long fc_pool_wakeups(void) { return fc_load_ulong(&fc_pool.pokes); }
#else
static void fc_pool_set_test_split(int on) { (void)on; }
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
