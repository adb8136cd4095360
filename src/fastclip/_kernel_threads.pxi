# Threads in a kernel module: the settings fastclip._threads gives it, the
# rule for splitting a call, and the owner's pool it splits through
# (csrc/parallel.h). Part of the kernel modules (_kernels.pyx.in includes it).

cdef extern from "parallel.h":
    int fc_load_int(const int *p) noexcept nogil
    void fc_store_int(int *p, int v) noexcept nogil
    npy_intp fc_load_intp(const npy_intp *p) noexcept nogil
    void fc_store_intp(npy_intp *p, npy_intp v) noexcept nogil
    unsigned long fc_load_ulong(const unsigned long *p) noexcept nogil
    void fc_store_ulong(unsigned long *p, unsigned long v) noexcept nogil
    int fc_openmp_threads(int wanted) noexcept nogil
    int fc_have_openmp() noexcept nogil
    void fc_set_parallel_range(void *owner, void *hint) noexcept nogil
    void fc_run_parallel(fc_loop_t serial, char **args, npy_intp n,
                         const npy_intp *steps, void *data, int nthreads,
                         int itemsize) noexcept nogil

# Threads (set from fastclip._threads): a call is split across threads when
# it moves at least PARALLEL_MIN_BYTES and comes from the interpreter's main
# thread; calls from other threads (thread pools, Dask workers) run on their
# own thread, so many callers never start callers x cores threads.
cdef int num_threads = 1
cdef npy_intp parallel_min_bytes = 1 << 20
cdef unsigned long main_thread = 0


def configure_threads(int threads, npy_intp min_bytes, unsigned long main_ident, pool):
    """pool: fastclip._ufunc.thread_pool(), the process's helper threads.
    (Each setting a relaxed atomic store: calls on other threads read them
    with the GIL released, csrc/parallel.h.)"""
    fc_set_parallel_range(PyCapsule_GetPointer(pool, "fastclip.parallel_range"),
                          PyCapsule_GetContext(pool))
    fc_store_int(&num_threads, threads if threads > 0 else 1)
    fc_store_intp(&parallel_min_bytes, min_bytes)
    fc_store_ulong(&main_thread, main_ident)


def effective_threads():
    """Threads a large call from the main thread would use now."""
    cdef int n = fc_load_int(&num_threads)
    return fc_openmp_threads(n) if n > 1 else 1


HAVE_OPENMP = bool(fc_have_openmp())


def threads_for_bytes(npy_intp nbytes):
    """Threads a call moving nbytes would use if made now from this thread."""
    return threads_for(nbytes)


# A fused clip-and-convert does several times a clip's work for a byte of its
# input (the rounding, the packs), so it is split from a quarter of a clip's
# bytes: 256 KiB of input by default, where two threads first gain on one
# for float32 and float64 sources alike.
cdef enum:
    CONVERT_WORK = 4
CONVERT_WORK_PER_BYTE = CONVERT_WORK


def threads_for_conversion(npy_intp src_bytes):
    """Threads a fused clip-and-convert reading src_bytes would use if made
    now from this thread."""
    return threads_for(src_bytes * CONVERT_WORK)


cdef inline int threads_for(npy_intp nbytes) noexcept nogil:
    cdef int n = fc_load_int(&num_threads)
    if n <= 1 or nbytes < fc_load_intp(&parallel_min_bytes):
        return 1
    if PyThread_get_thread_ident() != fc_load_ulong(&main_thread):
        return 1
    return fc_openmp_threads(n)
