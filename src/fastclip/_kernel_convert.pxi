# The fused clip-and-convert loops as the routes call them (a capsule of
# fc_convert_api_t), split across threads by their own rule. Part of the
# kernel modules (_kernels.pyx.in includes it).

# Clip and convert (csrc/convert.h), the fused loops of
# fastclip/_dtypes.py::conversion_loops(), in that order, then the widening
# loops of WIDENINGS and WIDENINGS_INTO (csrc/widen.h), which share their
# table (FC_CONVERTS) and threads.
cdef extern from "_conversion_loops.h":    # rendered from csrc/conversion_loops.h.in
    ctypedef struct fc_convert_entry_t:
        int (*convert)(const char *x, char *out, npy_intp n, const void *lo, const void *hi) noexcept nogil
        int (*in_range)(const void *lo, const void *hi) noexcept nogil
        int src_size
        int dst_size
    ctypedef struct fc_convert_job_t:
        const fc_convert_entry_t *e
        const char *x
        char *out
        const void *lo
        const void *hi
        int nan
        int stream
    ctypedef struct fc_chain_job_t:
        const fc_convert_entry_t *widen
        const fc_convert_entry_t *convert
        const char *x
        char *out
        const void *lo
        const void *hi
        int nan
    const fc_convert_entry_t FC_CONVERTS[]
    void fc_convert_range(void *ctx, npy_intp first, npy_intp last) noexcept nogil
    void fc_chain_range(void *ctx, npy_intp first, npy_intp last) noexcept nogil
    int fc_convert_masked(const fc_convert_entry_t *e, const char *x, char *out,
                          const unsigned char *mask, npy_intp n, const void *lo,
                          const void *hi) noexcept nogil

cdef extern from "parallel.h":
    ctypedef void (*fc_range_fn)(void *ctx, npy_intp first, npy_intp last) noexcept nogil
    void fc_parallel_range(fc_range_fn fn, void *ctx, void *alone_ctx, npy_intp total,
                           npy_intp grain, int nthreads) noexcept nogil
    npy_intp FC_MIN_CHUNK_BYTES


cdef int convert_in_range(int k, const void *lo, const void *hi) noexcept nogil:
    return FC_CONVERTS[k].in_range(lo, hi)


cdef void _split_conversion(fc_range_fn range_fn, void *job, int *stream, npy_intp n,
                            npy_intp src_size, npy_intp dst_size, char *out) noexcept nogil:
    """range_fn over n contiguous elements of src_size bytes into dst_size
    ones, shared among threads by the bytes it moves, then the narrowings'
    inexact and underflow flags cleared (no warning is due). *stream (where
    not NULL) set first: whether the output is large enough to stream and
    in memory already (a fresh one's pages are zeroed through the cache by
    the stores themselves, csrc/stream.h), and no narrower than the source:
    a widening's stores are most of its traffic, where a narrowing's are a
    fraction and streaming them loses."""
    cdef int threads = threads_for(n * src_size * CONVERT_WORK)
    if stream != NULL:
        stream[0] = (FC_HAVE_STREAM and dst_size >= src_size
                     and n * dst_size >= fc_stream_min_bytes
                     and fc_pages_resident(out, n * dst_size))
    if threads > 1:
        fc_parallel_range(range_fn, job, NULL, n, FC_MIN_CHUNK_BYTES // src_size, threads)
    else:
        range_fn(job, 0, n)
    fc_clear_fpstatus()


cdef int convert_run(int k, const char *x, char *out, npy_intp n, const void *lo,
                     const void *hi) noexcept nogil:
    """Loop k of FC_CONVERTS over n contiguous elements; nonzero: a NaN met (a
    signaling one, for a widening loop)."""
    cdef fc_convert_job_t job
    job.e = &FC_CONVERTS[k]
    job.x = x
    job.out = out
    job.lo = lo
    job.hi = hi
    job.nan = 0
    _split_conversion(fc_convert_range, &job, &job.stream, n, job.e.src_size, job.e.dst_size,
                      out)
    return job.nan


cdef int convert_chain(int widen, int k, const char *x, char *out, npy_intp n,
                       const void *lo, const void *hi) noexcept nogil:
    """Widening loop `widen` then conversion loop k, chained through an L1
    buffer (csrc/convert.h, fc_chain_range), over n contiguous elements;
    nonzero: a NaN met (out then partly written)."""
    cdef fc_chain_job_t job
    job.widen = &FC_CONVERTS[widen]
    job.convert = &FC_CONVERTS[k]
    job.x = x
    job.out = out
    job.lo = lo
    job.hi = hi
    job.nan = 0
    _split_conversion(fc_chain_range, &job, NULL, n, job.widen.src_size, job.convert.dst_size,
                      out)
    return job.nan


cdef int convert_run_masked(int k, const char *x, char *out, const unsigned char *mask,
                            npy_intp n, const void *lo, const void *hi) noexcept nogil:
    """Loop k of FC_CONVERTS over n contiguous elements, out written where
    mask is set (csrc/convert.h fc_convert_masked), one thread; nonzero: a
    NaN met (out then partly written)."""
    cdef int nan = fc_convert_masked(&FC_CONVERTS[k], x, out, mask, n, lo, hi)
    fc_clear_fpstatus()
    return nan


cdef fc_convert_api_t CONVERT_API
CONVERT_API.in_range = convert_in_range
CONVERT_API.run = convert_run
CONVERT_API.chain = convert_chain
CONVERT_API.run_masked = convert_run_masked


def convert_api():
    """The fused clip-and-convert loops (in conversion_loops() order), as a capsule."""
    return PyCapsule_New(<void *>&CONVERT_API, "fastclip.convert", NULL)
