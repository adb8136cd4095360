/* Reused blocks for fastclip's large new results.
 *
 * A new result of R bytes is fresh memory: the kernel faults in and zeroes
 * every page before the loop writes it. For a result wider than x that is
 * most of the call (uint8 1080x1920x3 with Python float bounds, a float64
 * result), and two threads faulting at once are slower still. glibc
 * returns blocks of more than 32 MiB to the system at free(), so a loop that
 * clips an image per frame pays the faults on every call.
 *
 * Where the user asks for it (fastclip.set_reuse_mib, FASTCLIP_REUSE_MIB; off
 * by default, since the blocks kept are memory the program freed), fastclip
 * allocates its new results of FC_BLOCK_MIN_BYTES (16 MiB) and more through
 * its own NumPy memory handler (NEP 49), and that handler keeps a freed
 * result's block for the next result of the same size: up to FC_BLOCK_SLOTS
 * blocks and fc_blocks_cap bytes in all, the least recently freed given back
 * first. Everything else goes to NumPy's
 * default handler, whose functions this one calls, so the blocks are NumPy's
 * own (with its huge-page advice) and realloc (ndarray.resize) works on them.
 * Only results fastclip allocates use it, and only when the caller's handler
 * is NumPy's default: a program that set its own handler keeps it.
 *
 * A kept block stays the process's memory, as the blocks on malloc's free
 * lists do, until a result takes it, a newer block pushes it out or the cap
 * is set. It is not advised MADV_FREE (which would let the kernel take its
 * pages when memory is short): in the benchmark's process, with numba's
 * contenders timed between fastclip's calls, a result in an advised block
 * took about three times as long as in a fresh one or a block not advised
 * (the cause was not found).
 *
 * The slots are guarded by a spin lock held for a scan of FC_BLOCK_SLOTS
 * entries (a free can come from any thread, and from a free-threaded build
 * without the GIL); a forked child starts with it open.
 */
#ifndef FASTCLIP_RESULT_BLOCKS_H
#define FASTCLIP_RESULT_BLOCKS_H

#include <Python.h>
#include <stdint.h>
#include <string.h>
#include <numpy/arrayobject.h>

#if (defined(__GNUC__) || defined(__clang__)) && (defined(__unix__) || defined(__APPLE__))
#define FC_HAVE_BLOCKS 1
#include <pthread.h>
#else
#define FC_HAVE_BLOCKS 0
#endif

#if defined(__GNUC__) || defined(__clang__)
#define FC_LOAD_CAP() __atomic_load_n(&fc_blocks_cap, __ATOMIC_RELAXED)
#define FC_STORE_CAP(v) __atomic_store_n(&fc_blocks_cap, (v), __ATOMIC_RELAXED)
#else
#define FC_LOAD_CAP() fc_blocks_cap   /* 0 there: no reuse (FC_HAVE_BLOCKS) */
#define FC_STORE_CAP(v) (void)(v)
#endif

/* Below 16 MiB a result is left to NumPy's allocator, whose block a
 * temporary just freed is still in the caches, where a kept one is not
 * (a step of x * 2.0 then a clip into a float64 result, scipy's
 * poisson.pmf); from 16 MiB the page faults cost more than the cold
 * block (the benchmark's 2^24 new results, docs/performance.md). */
#define FC_BLOCK_MIN_BYTES ((npy_intp)16 << 20)
#define FC_BLOCK_SLOTS 8

typedef struct {
    void *p;
    size_t size;                /* 0: an empty slot */
    unsigned long long freed;   /* when, in frees counted by fc_blocks_clock */
} fc_block_t;

static fc_block_t fc_blocks[FC_BLOCK_SLOTS];
static size_t fc_blocks_cap;            /* bytes; 0 = no reuse */
static size_t fc_blocks_held;           /* bytes in the slots */
static unsigned long long fc_blocks_clock, fc_blocks_hits;
static int fc_blocks_locked;
static PyDataMemAllocator fc_default;   /* NumPy's default handler's functions */
static PyObject *fc_blocks_handler_capsule;

static inline void fc_blocks_lock(void)
{
#if FC_HAVE_BLOCKS
    while (__atomic_exchange_n(&fc_blocks_locked, 1, __ATOMIC_ACQUIRE)) {
        while (__atomic_load_n(&fc_blocks_locked, __ATOMIC_RELAXED)) {
        }
    }
#endif
}

static inline void fc_blocks_unlock(void)
{
#if FC_HAVE_BLOCKS
    __atomic_store_n(&fc_blocks_locked, 0, __ATOMIC_RELEASE);
#endif
}

static void *fc_blocks_malloc(void *ctx, size_t size)
{
    (void)ctx;
    void *p = NULL;
    if (size >= (size_t)FC_BLOCK_MIN_BYTES) {
        fc_blocks_lock();
        for (int i = 0; i < FC_BLOCK_SLOTS; i++) {
            if (fc_blocks[i].size == size) {
                p = fc_blocks[i].p;
                fc_blocks[i].size = 0;
                fc_blocks_held -= size;
                fc_blocks_hits++;
                break;
            }
        }
        fc_blocks_unlock();
    }
    return p ? p : fc_default.malloc(fc_default.ctx, size);
}

static void *fc_blocks_calloc(void *ctx, size_t nelem, size_t elsize)
{
    (void)ctx;
    return fc_default.calloc(fc_default.ctx, nelem, elsize);
}

static void *fc_blocks_realloc(void *ctx, void *p, size_t size)
{
    (void)ctx;
    return fc_default.realloc(fc_default.ctx, p, size);
}

static void fc_blocks_free(void *ctx, void *p, size_t size)
{
    (void)ctx;
    fc_block_t evicted[FC_BLOCK_SLOTS];
    int n_evicted = 0, kept = 0;
    size_t cap = FC_LOAD_CAP();     /* set_reuse_mib may change it from another thread */
    if (p != NULL && size >= (size_t)FC_BLOCK_MIN_BYTES && size <= cap) {
        fc_blocks_lock();
        for (;;) {
            int empty = -1, oldest = -1;
            for (int i = 0; i < FC_BLOCK_SLOTS; i++) {
                if (fc_blocks[i].size == 0) {
                    empty = i;
                }
                else if (oldest < 0 || fc_blocks[i].freed < fc_blocks[oldest].freed) {
                    oldest = i;
                }
            }
            if (empty >= 0 && fc_blocks_held + size <= cap) {
                fc_blocks[empty] = (fc_block_t){p, size, ++fc_blocks_clock};
                fc_blocks_held += size;
                kept = 1;
                break;
            }
            evicted[n_evicted++] = fc_blocks[oldest];   /* oldest >= 0: held + size > cap >= size */
            fc_blocks_held -= fc_blocks[oldest].size;
            fc_blocks[oldest].size = 0;
        }
        fc_blocks_unlock();
    }
    for (int i = 0; i < n_evicted; i++) {
        fc_default.free(fc_default.ctx, evicted[i].p, evicted[i].size);
    }
    if (!kept) {
        fc_default.free(fc_default.ctx, p, size);
    }
}

/* Gives every kept block back and sets the cap (0: keep none). */
static void fc_blocks_set_cap(size_t cap)
{
    fc_block_t evicted[FC_BLOCK_SLOTS];
    int n_evicted = 0;
    fc_blocks_lock();
    FC_STORE_CAP(cap);
    for (int i = 0; i < FC_BLOCK_SLOTS; i++) {
        if (fc_blocks[i].size) {
            evicted[n_evicted++] = fc_blocks[i];
            fc_blocks[i].size = 0;
        }
    }
    fc_blocks_held = 0;
    fc_blocks_unlock();
    for (int i = 0; i < n_evicted; i++) {
        fc_default.free(fc_default.ctx, evicted[i].p, evicted[i].size);
    }
}

static size_t fc_blocks_cap_bytes(void)
{
    return FC_LOAD_CAP();
}

static void fc_blocks_stats(npy_intp *count, npy_intp *bytes, npy_intp *hits)
{
    fc_blocks_lock();
    *count = 0;
    for (int i = 0; i < FC_BLOCK_SLOTS; i++) {
        *count += fc_blocks[i].size != 0;
    }
    *bytes = (npy_intp)fc_blocks_held;
    *hits = (npy_intp)fc_blocks_hits;
    fc_blocks_unlock();
}

#if FC_HAVE_BLOCKS
static void fc_blocks_after_fork_child(void)
{
    fc_blocks_locked = 0;   /* a thread of the parent may have held it; it is not here */
}
#endif

static PyDataMem_Handler fc_blocks_handler = {
    "fastclip_reused_blocks", 1,
    {NULL, fc_blocks_malloc, fc_blocks_calloc, fc_blocks_realloc, fc_blocks_free}};

/* At import, with the cap in bytes: 0 on success, -1 with an exception. */
static int fc_blocks_init(size_t cap)
{
#if FC_HAVE_BLOCKS
    PyDataMem_Handler *numpy_default =
        (PyDataMem_Handler *)PyCapsule_GetPointer(PyDataMem_DefaultHandler, "mem_handler");
    if (numpy_default == NULL) {
        return -1;
    }
    fc_default = numpy_default->allocator;
    fc_blocks_handler_capsule = PyCapsule_New(&fc_blocks_handler, "mem_handler", NULL);
    if (fc_blocks_handler_capsule == NULL) {
        return -1;
    }
    if (pthread_atfork(NULL, NULL, fc_blocks_after_fork_child) != 0) {
        PyErr_SetString(PyExc_RuntimeError, "fastclip: pthread_atfork failed");
        return -1;
    }
    FC_STORE_CAP(cap);
#else
    (void)cap;
#endif
    return 0;
}

/* Before allocating a result of nbytes: switches this context's NumPy handler
 * to fastclip's and returns the one it replaced (a new reference, for
 * fc_blocks_end), or returns NULL and switches nothing: a small result, reuse
 * off, or a handler other than NumPy's default in place. Never raises. */
static PyObject *fc_blocks_begin(npy_intp nbytes)
{
    if (nbytes < FC_BLOCK_MIN_BYTES || fc_blocks_handler_capsule == NULL
            || FC_LOAD_CAP() == 0) {
        return NULL;
    }
    PyObject *current = PyDataMem_GetHandler();
    if (current != PyDataMem_DefaultHandler) {
        if (current == NULL) {
            PyErr_Clear();
        }
        Py_XDECREF(current);
        return NULL;
    }
    Py_DECREF(current);
    PyObject *previous = PyDataMem_SetHandler(fc_blocks_handler_capsule);
    if (previous == NULL) {
        PyErr_Clear();
    }
    return previous;
}

/* After the allocation: the handler fc_blocks_begin replaced is back. Should
 * that fail (no memory for the context variable), this context keeps
 * fastclip's handler, which gives every other block NumPy's default
 * handling. */
static void fc_blocks_end(PyObject *previous)
{
    if (previous == NULL) {
        return;
    }
    PyObject *ours = PyDataMem_SetHandler(previous);
    Py_DECREF(previous);
    if (ours == NULL) {
        PyErr_Clear();
    }
    Py_XDECREF(ours);
}

#endif
