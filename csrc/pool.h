/* The owner's helper threads (csrc/parallel.h, with FC_POOL_OWNER): a job and
 * its parts, a helper's loop (spin for as long as a wake-up takes, then
 * sleep), a caller's run of a job (waking sleeping helpers once the call has
 * run FC_WAKE_REPAY wake-ups' time), and the pool's modes. Included by
 * parallel.h alone, after the constants it reads. */

#ifndef FASTCLIP_POOL_H
#define FASTCLIP_POOL_H

static int fc_pool_modes_word = 0;
static inline int fc_pool_modes(void) { return fc_load_int(&fc_pool_modes_word); }
static void fc_pool_set_modes(int modes) { fc_store_int(&fc_pool_modes_word, modes); }

#if FC_POOL

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* Linux: sleeping helpers are woken off the caller's CPU (fc_pool_wake:
 * sched_getcpu and the threads' affinity, Python.h defines _GNU_SOURCE), and
 * the machine's runnable threads are counted (fc_runnable: /proc/loadavg). */
#if defined(__linux__)
#define FC_LINUX 1
#include <fcntl.h>
#else
#define FC_LINUX 0
#endif

typedef struct {
    npy_intp next, end;                 /* chunks [next, end) not yet claimed */
    char pad[64 - 2 * sizeof(npy_intp)];  /* one counter per cache line */
} fc_part_t;

typedef struct {
    fc_range_fn fn;
    void *ctx;
    npy_intp total, grain;
    int nparts;
    int joined;         /* parts taken by helpers (atomic; raised under the pool's lock) */
    int active;         /* helpers inside the job (atomic; raised under the pool's lock) */
    npy_intp done;      /* indices finished (atomic) */
    fc_part_t parts[FC_MAX_THREADS];
} fc_job_t;

/* The last FC_TIMES times of something, and their median (atomic; 0 until
 * one is known). A median, not a moving average: one wake-up of a halted
 * vCPU (milliseconds) must not hold the estimate up, for the estimate
 * decides whether the next wake-up, which would bring it down, happens. */
#define FC_TIMES 8
typedef struct {
    long last[FC_TIMES];
    int next, count;
    long median;
} fc_times_t;

/* Under the lock, or by the one caller running a job. */
static void fc_times_add(fc_times_t *t, long sample)
{
    t->last[t->next] = sample;
    t->next = (t->next + 1) % FC_TIMES;
    if (t->count < FC_TIMES) {
        t->count++;
    }
    long sorted[FC_TIMES];
    for (int i = 0; i < t->count; i++) {
        int j = i;
        for (; j > 0 && sorted[j - 1] > t->last[i]; j--) {
            sorted[j] = sorted[j - 1];
        }
        sorted[j] = t->last[i];
    }
    fc_store_long(&t->median, sorted[t->count / 2]);
}

/* The caller's side of a job: when it wakes the sleeping helpers (0: not),
 * whether the job is published for helpers to join, when it started. */
typedef struct {
    long wake_at;
    int published;
    long start;
} fc_caller_t;

static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake;    /* a wake-up (pokes bumped) */
    fc_job_t *job;          /* the job helpers may join, or NULL */
    unsigned long gen;      /* bumped for each job published (read unlocked by spinning helpers) */
    unsigned long pokes;    /* bumped for each wake-up */
    unsigned long timed;    /* the last wake-up whose time is in wake_time */
    long poked_ns;          /* when the last wake-up started */
#if FC_LINUX
    pthread_t tids[FC_MAX_THREADS];   /* the helpers, to steer (fc_pool_wake) */
    cpu_set_t caller_cpus;            /* the caller's CPUs at the last wake-up */
    int steered;                      /* the helpers' CPUs were changed for it */
#endif
    /* a wake-up's time from the caller's start of it to a helper running, and
     * the caller's own part of it (the helper that wakes first adds the one,
     * under the lock; the caller the other) */
    fc_times_t wake_time, wake_cost;
    /* atomics, changed under the lock: helpers started, helpers waiting on
     * `wake`; a caller is running a split call (an atomic exchange) */
    int helpers, sleeping, busy;
    /* the caller's (only the caller running a job writes them): when the last
     * split call ended, when the burst of calls it was in started, and whether
     * that burst has woken the helpers (once a burst at most: the rule's
     * bound is for one wake-up) */
    long last_end_ns, burst_start_ns;
    int burst_woken;
    int passive;            /* OMP_WAIT_POLICY=passive: helpers sleep at once */
    int cpus;               /* the machine's CPUs online */
    int loadavg;            /* /proc/loadavg, open (-1: not) */
    int atfork_set;
    npy_intp helper_chunks; /* chunks helpers have done (atomic; for the tests) */
} fc_pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER};

static inline long fc_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* The threads runnable on the whole machine now, this one among them
 * (Linux's /proc/loadavg, its fourth field); 0 where that cannot be read. */
static int fc_runnable(void)
{
#if FC_LINUX
    char text[128];
    ssize_t n = fc_pool.loadavg < 0 ? -1 : pread(fc_pool.loadavg, text, sizeof text - 1, 0);
    if (n > 0) {
        text[n] = 0;
        const char *p = text;
        for (int field = 0; field < 3 && p != NULL; field++) {
            p = strchr(p + 1, ' ');
        }
        if (p != NULL) {
            return atoi(p + 1);
        }
    }
#endif
    return 0;
}

/* One step of a wait for chunks another thread is finishing: a pause, and
 * every 1024th step the core given up, since that thread may have been
 * preempted and need it. */
static inline void fc_spin_step(int i)
{
    fc_cpu_relax();
    if ((i & 1023) == 1023) {
        sched_yield();
    }
}

/* The job made joinable: helpers spinning see the generation change, and a
 * helper woken later finds it. */
static void fc_pool_publish(fc_job_t *job)
{
    pthread_mutex_lock(&fc_pool.lock);
    __atomic_store_n(&fc_pool.job, job, __ATOMIC_RELAXED);
    __atomic_store_n(&fc_pool.gen, fc_pool.gen + 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&fc_pool.lock);
}

/* Wake the sleeping helpers, the time noted for wake_time and the caller's
 * cost for wake_cost. Linux often wakes a thread on its waker's CPU (the two
 * share a cache), where a helper waits behind the caller, which does not
 * block while it clips, for as long as the call while another CPU idles: so
 * the helpers' CPUs are first set to the caller's less its own, and a woken
 * helper sets them back (fc_helper). The broadcast comes after the unlock: a
 * helper woken at once does not wait for the lock. */
static void fc_pool_wake(void)
{
    long t0 = fc_now_ns();
    pthread_mutex_lock(&fc_pool.lock);
    fc_pool.poked_ns = t0;
#if FC_LINUX
    int cpu = sched_getcpu();
    fc_pool.steered = cpu >= 0 && cpu < CPU_SETSIZE
                      && sched_getaffinity(0, sizeof fc_pool.caller_cpus, &fc_pool.caller_cpus) == 0
                      && CPU_ISSET(cpu, &fc_pool.caller_cpus) && CPU_COUNT(&fc_pool.caller_cpus) > 1;
    if (fc_pool.steered) {
        cpu_set_t away = fc_pool.caller_cpus;
        CPU_CLR(cpu, &away);
        for (int h = 0; h < fc_pool.helpers; h++) {
            pthread_setaffinity_np(fc_pool.tids[h], sizeof away, &away);
        }
    }
#endif
    fc_store_ulong(&fc_pool.pokes, fc_pool.pokes + 1);
    pthread_mutex_unlock(&fc_pool.lock);
    pthread_cond_broadcast(&fc_pool.wake);
    fc_times_add(&fc_pool.wake_cost, fc_now_ns() - t0);
}

/* Whether a caller at `now`, with `rest` of its call left at its pace so far,
 * should wake the sleeping helpers: where what is left, of the call or of the
 * burst of calls it is in (a burst that has run a while is judged to run as
 * long again), lasts FC_WAKE_AHEAD wake-ups (a helper woken then comes with
 * most of it left), and the machine has an idle CPU (else a helper takes a
 * CPU from another thread, and the caller may wait for its chunk). */
static int fc_worth_waking(long rest, long now)
{
    if (now - fc_pool.burst_start_ns > rest) {
        rest = now - fc_pool.burst_start_ns;
    }
    int runnable = fc_runnable();
    return rest >= FC_WAKE_AHEAD * fc_load_long(&fc_pool.wake_time.median)
           && (runnable == 0 || runnable < fc_pool.cpus);
}

/* Claim chunks, own part first, then the others' leftovers, until none is
 * left. The caller (part 0, `me` not NULL), between two chunks once
 * me->wake_at has passed, wakes the sleeping helpers if that is worth it
 * (fc_worth_waking), publishing the job first if it is not. */
static void fc_job_work(fc_job_t *job, int part, fc_caller_t *me)
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
            npy_intp done = __atomic_add_fetch(&job->done, last - first, __ATOMIC_RELEASE);
            long now;
            if (me != NULL && me->wake_at && (now = fc_now_ns()) >= me->wake_at) {
                me->wake_at = 0;
                if (fc_worth_waking((long)((double)(now - me->start) * (double)(job->total - done)
                                           / (double)done), now)) {
                    if (!me->published) {
                        fc_pool_publish(job);
                        me->published = 1;
                    }
                    fc_pool.burst_woken = 1;
                    fc_pool_wake();
                }
            }
        }
    }
}

static void *fc_helper(void *arg)
{
    /* the generation before the job that started it, which it joins */
    unsigned long seen = (unsigned long)(npy_uintp)arg;
#if FC_LINUX
    pthread_setname_np(pthread_self(), "fastclip-helper");     /* for top -H, py-spy */
#endif
    for (;;) {
        /* Awake: spin for the next job as long as a wake-up would take (ski
         * rental: spinning longer costs more than sleeping can), counted from
         * the end of a job running that this helper is not in (it came too
         * late), then sleep. */
        long spin = fc_pool.passive ? 0 : fc_load_long(&fc_pool.wake_time.median);
        long until = fc_now_ns() + spin;
        for (int i = 0; __atomic_load_n(&fc_pool.gen, __ATOMIC_ACQUIRE) == seen; i++) {
            fc_cpu_relax();
            if ((i & 63) == 63) {
                long now = fc_now_ns();
                if (spin && __atomic_load_n(&fc_pool.job, __ATOMIC_RELAXED) != NULL) {
                    until = now + spin;
                }
                else if (now > until) {
                    break;
                }
            }
        }
        pthread_mutex_lock(&fc_pool.lock);
        if (fc_pool.gen == seen) {
            /* asleep until a caller wakes the helpers (fc_job_work) */
            unsigned long pokes = fc_pool.pokes;
            __atomic_add_fetch(&fc_pool.sleeping, 1, __ATOMIC_RELAXED);
            while (fc_pool.pokes == pokes) {
                pthread_cond_wait(&fc_pool.wake, &fc_pool.lock);
            }
            __atomic_sub_fetch(&fc_pool.sleeping, 1, __ATOMIC_RELAXED);
            if (fc_pool.timed != fc_pool.pokes) {
                /* the first helper up: how long the wake-up took */
                fc_pool.timed = fc_pool.pokes;
                fc_times_add(&fc_pool.wake_time, fc_now_ns() - fc_pool.poked_ns);
            }
#if FC_LINUX
            if (fc_pool.steered) {
                /* running, away from the caller: its CPUs again */
                pthread_setaffinity_np(pthread_self(), sizeof fc_pool.caller_cpus, &fc_pool.caller_cpus);
            }
#endif
        }
        seen = fc_pool.gen;
        fc_job_t *job = fc_pool.job;
        if (job == NULL || job->joined + 1 >= job->nparts
                || __atomic_load_n(&job->done, __ATOMIC_RELAXED) > job->total / 2) {
            /* retired already, every part has its thread, or (a helper woken
             * late) most of it is done: a cold helper's first chunk could then
             * end the call later than the caller would */
            pthread_mutex_unlock(&fc_pool.lock);
            continue;
        }
        int part = __atomic_add_fetch(&job->joined, 1, __ATOMIC_RELAXED);
        __atomic_add_fetch(&job->active, 1, __ATOMIC_RELAXED);
        pthread_mutex_unlock(&fc_pool.lock);
        fc_job_work(job, part, NULL);
        __atomic_sub_fetch(&job->active, 1, __ATOMIC_RELEASE);    /* its last touch of job */
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
}

/* Have `want` helpers; returns how many there are. */
static int fc_pool_start_helpers(int want)
{
    pthread_mutex_lock(&fc_pool.lock);
    if (!fc_pool.atfork_set && pthread_atfork(NULL, NULL, fc_pool_after_fork_child) == 0) {
        fc_pool.atfork_set = 1;
        const char *policy = getenv("OMP_WAIT_POLICY");
        fc_pool.passive = policy != NULL && strcasecmp(policy, "passive") == 0;
        fc_pool.cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
#if FC_LINUX
        fc_pool.loadavg = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
#else
        fc_pool.loadavg = -1;
#endif
    }
    while (fc_pool.atfork_set && fc_pool.helpers < want) {
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
#if FC_LINUX
        fc_pool.tids[fc_pool.helpers] = tid;
#endif
        __atomic_add_fetch(&fc_pool.helpers, 1, __ATOMIC_RELAXED);
    }
    int helpers = fc_pool.helpers;
    pthread_mutex_unlock(&fc_pool.lock);
    return helpers;
}

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

/* A split call on the pool. Where every helper is asleep the job is not
 * published: the caller runs it alone (with alone_ctx), taking no lock, and
 * wakes them once the burst of calls it is in has run FC_WAKE_REPAY of the
 * caller's wake-ups, if that is worth it then (fc_worth_waking: at its start,
 * or between two chunks), publishing the job first. Where a helper is awake,
 * or woken at the start, the job is published at once (with ctx). The tests'
 * mode wakes them at once and waits for every part to have its thread. Then
 * the wait for the chunks helpers are finishing and for the helpers to leave
 * the job. */
static void fc_pool_run(fc_range_fn fn, void *ctx, void *alone_ctx, npy_intp total,
                        npy_intp units, npy_intp grain, int nthreads, int split_every_call)
{
    if (__atomic_exchange_n(&fc_pool.busy, 1, __ATOMIC_ACQUIRE)) {
        fn(alone_ctx, 0, total);    /* another caller's job is running (the main-thread rule makes that rare) */
        return;
    }
    int helpers = fc_load_int(&fc_pool.helpers);
    if (helpers < nthreads - 1) {
        helpers = fc_pool_start_helpers(nthreads - 1);
    }
    if (helpers == 0) {
        __atomic_store_n(&fc_pool.busy, 0, __ATOMIC_RELEASE);
        fn(alone_ctx, 0, total);    /* no thread could be started */
        return;
    }
    fc_caller_t me = {0, 0, fc_now_ns()};
    /* a burst of calls starts after a pause longer than a wake-up, and with
     * OMP_WAIT_POLICY=passive at every call: its helpers slept after the last */
    if (fc_pool.passive || me.start - fc_pool.last_end_ns > fc_load_long(&fc_pool.wake_time.median)) {
        fc_pool.burst_start_ns = me.start;
        fc_pool.burst_woken = 0;
    }
    int asleep = fc_load_int(&fc_pool.sleeping), wake_now = split_every_call;
    if (asleep && !split_every_call && !fc_pool.burst_woken) {
        me.wake_at = fc_pool.burst_start_ns + FC_WAKE_REPAY * fc_load_long(&fc_pool.wake_cost.median);
        if (me.wake_at <= me.start) {
            me.wake_at = 0;
            wake_now = fc_pool.burst_woken = fc_worth_waking(0, me.start);
        }
    }
    me.published = split_every_call || wake_now || asleep < helpers;
    fc_job_t job;
    fc_job_init(&job, fn, me.published ? ctx : alone_ctx, total, units, grain, nthreads);
    if (me.published) {
        fc_pool_publish(&job);
    }
    if (wake_now) {
        fc_pool_wake();
    }
    if (split_every_call) {
        for (int i = 0; fc_load_int(&job.joined) < nthreads - 1
                        && fc_load_int(&job.joined) < helpers; i++) {
            fc_spin_step(i);
        }
    }
    fc_job_work(&job, 0, &me);
    /* every chunk is claimed; wait for the ones helpers are finishing */
    for (int i = 0; __atomic_load_n(&job.done, __ATOMIC_ACQUIRE) < job.total; i++) {
        fc_spin_step(i);
    }
    if (me.published) {
        pthread_mutex_lock(&fc_pool.lock);
        __atomic_store_n(&fc_pool.job, NULL, __ATOMIC_RELAXED);    /* no helper joins from here on */
        for (int i = 0; __atomic_load_n(&job.active, __ATOMIC_ACQUIRE); i++) {
            fc_spin_step(i);        /* helpers that joined are leaving */
        }
        pthread_mutex_unlock(&fc_pool.lock);
    }
    fc_pool.last_end_ns = fc_now_ns();
    __atomic_store_n(&fc_pool.busy, 0, __ATOMIC_RELEASE);
}

/* for the tests: helpers started, asleep now, chunks they did, wake-ups, a
 * wake-up's time and the caller's part of it */
static void fc_pool_stats(int *helpers, int *sleeping, npy_intp *chunks, unsigned long *wakeups,
                          long *wake_ns, long *wake_cost_ns)
{
    pthread_mutex_lock(&fc_pool.lock);
    *helpers = fc_pool.helpers;
    *sleeping = fc_pool.sleeping;
    *chunks = __atomic_load_n(&fc_pool.helper_chunks, __ATOMIC_RELAXED);
    *wakeups = fc_pool.pokes;
    *wake_ns = fc_pool.wake_time.median;
    *wake_cost_ns = fc_pool.wake_cost.median;
    pthread_mutex_unlock(&fc_pool.lock);
}

#else   /* FC_POOL */

static void fc_pool_stats(int *helpers, int *sleeping, npy_intp *chunks, unsigned long *wakeups,
                          long *wake_ns, long *wake_cost_ns)
{
    *helpers = *sleeping = 0;
    *chunks = 0;
    *wakeups = 0;
    *wake_ns = *wake_cost_ns = 0;
}

#endif  /* FC_POOL */

#endif  /* FASTCLIP_POOL_H */
