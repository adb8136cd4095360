# fastclip.quantize's loops (csrc/quantize.h) as _ufunc calls them (a capsule
# of fc_quantize_api_t), split across threads as a clip-and-convert is. Part
# of the kernel modules (_kernels.pyx.in includes it).

cdef extern from "quantize.h":
    void fc_quantize_range(void *ctx, npy_intp first, npy_intp last) noexcept nogil


cdef void quantize_run(const fc_quantize_job_t *job) noexcept nogil:
    """The job's n elements, on the threads a conversion reading as many
    bytes would take; the division's and the casts' flags cleared (the
    result saturates: no warning is due)."""
    cdef int threads = threads_for(job.n * job.src_size * CONVERT_WORK)
    if threads > 1:
        fc_parallel_range(fc_quantize_range, <void *>job, NULL, job.n,
                          FC_MIN_CHUNK_BYTES // job.src_size, threads)
    else:
        fc_quantize_range(<void *>job, 0, job.n)
    fc_clear_fpstatus()


cdef fc_quantize_api_t QUANTIZE_API
QUANTIZE_API.run = quantize_run


def quantize_api():
    """fastclip.quantize's loop (csrc/quantize.h), as a capsule."""
    return PyCapsule_New(<void *>&QUANTIZE_API, "fastclip.quantize", NULL)
