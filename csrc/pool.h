/* The owner's helper threads (csrc/parallel.h, with FC_POOL_OWNER): a job
 * and its parts, the pool's state, a helper's loop (spin, then sleep), and
 * starting, waking and retiring helpers. Included by parallel.h alone, after
 * the constants and the hint it reads. */

#ifndef FASTCLIP_POOL_H
#define FASTCLIP_POOL_H

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
    npy_intp helper_chunks; /* chunks helpers have done (atomic; for the tests) */
#if FC_STEER
    pthread_t tids[FC_MAX_THREADS];   /* the helpers, to steer (fc_pool_wake) */
    cpu_set_t cpus;                   /* the caller's CPUs at the last wake-up */
    int cpus_known;                   /* cpus was read */
#endif
} fc_pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
             NULL, 0, 0, 0, 0, 0, 0, 0};

static fc_pool_hint_t fc_pool_hint = {0, 0, 0, 0, 0};

/* Under the lock (or in a forked child, alone): fc_pool_hint.idle again */
static void fc_pool_hint_idle(void)
{
    int idle = fc_pool.helpers > 0 && fc_pool.sleeping == fc_pool.helpers
               && !(fc_pool_hint.modes & FC_MODE_SPLIT_EVERY_CALL);
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
        long until = fc_now_ns() + (fc_load_int(&fc_pool_hint.modes) & FC_MODE_NO_SPIN ? 0 : FC_SPIN_NS);
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
            if (!(fc_pool_hint.modes & FC_MODE_SPLIT_EVERY_CALL)
                    && !(fc_pool.job != NULL && fc_pool.job->late_join)) {
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
    if (!(fc_pool_hint.modes & FC_MODE_NO_STEER)
            && sched_getaffinity(0, sizeof fc_pool.cpus, &fc_pool.cpus) == 0) {
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
    if (fc_pool.sleeping && ((fc_pool_hint.modes & FC_MODE_NO_WAKE_RULE)
                             || fc_burst_wants_helpers(&fc_pool_hint, fc_now_ns()))) {
        fc_pool_wake();
    }
    fc_store_long(&fc_pool_hint.last_end_ns, fc_now_ns());
}
#endif

#endif  /* FASTCLIP_POOL_H */
