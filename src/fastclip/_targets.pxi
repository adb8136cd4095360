# The kernel build for this CPU, its loop tables, the process's thread pool,
# and its kept result blocks (csrc/result_blocks.h).
# Part of fastclip/_ufunc.pyx (included there, in this order).

#: SIMD targets, lowest first; the index is the CPU level of cpu_features.h.
TARGETS = ("baseline", "sse42", "avx2", "avx512")


def _compiled_targets():
    # Found, not imported: a module built for AVX-512 runs AVX-512 instructions
    # in its own initialisation, so importing it on a CPU without them is a
    # SIGILL (valgrind, whose CPU has no AVX-512, showed it). Only the chosen
    # target's module is imported.
    return tuple(name for name in TARGETS
                 if importlib.util.find_spec("fastclip._kernels_" + name) is not None)


def _choose_target(compiled, cpu_level, requested):
    """The best compiled target the CPU runs, capped by FASTCLIP_SIMD."""
    cap = cpu_level
    if requested:
        if requested not in TARGETS:
            raise ValueError(
                f"FASTCLIP_SIMD={requested!r}: expected one of {', '.join(TARGETS)}")
        cap = min(cap, TARGETS.index(requested))
    usable = [t for t in compiled if TARGETS.index(t) <= cap]
    return usable[len(usable) - 1]


COMPILED_TARGETS = _compiled_targets()
CPU_LEVEL = fc_cpu_level()
SIMD_TARGET = _choose_target(COMPILED_TARGETS, CPU_LEVEL,
                             os.environ.get("FASTCLIP_SIMD", "").strip().lower())
_kernels = importlib.import_module("fastclip._kernels_" + SIMD_TARGET)

def _numpy_buffers_scalar_bounds():
    """Whether the installed NumPy's iterator copies scalar bounds into its
    buffers for a walk of several runs, so that its loop sees them move and
    runs per element (a NaN x's payload then survives a NaN bound). NumPy 2.1
    does (np.clip of a (60, 50)[:, ::3] view keeps x's NaN); 2.4 does not.
    Asked of NumPy's own clip, never of whatever numpy.clip is bound to."""
    x = np.full((4, 16), 0xFFC00001, np.uint32).view(np.float32)[:, ::3]
    r = np._core.fromnumeric.clip(x, np.nan, 1.0)
    return bool(r.view(np.uint32)[0, 0] == 0xFFC00001)


#: where NumPy does, fastclip hands every walk of several runs to NumPy's
#: iterator with its own loops, so the loop sees what it sees in NumPy. Not
#: for the ml_dtypes formats with scalar bounds: their rule (docs/semantics.rst) is
#: np.clip of a.astype(float32), a contiguous copy, one run, scalar bounds,
#: which fastclip's own walk reproduces and NumPy 2.1's buffering would not
#: (a -0.0 bound against +0.0 in a strided bfloat16 view).
cdef bint MULTI_RUN_WALKS_TO_NUMPY = _numpy_buffers_scalar_bounds()
MULTI_RUN_WALKS_TO_NUMPY_FOR_TESTS = MULTI_RUN_WALKS_TO_NUMPY

#: the kernels walk short contiguous rows of the int and IEEE float rows
#: themselves faster than NumPy's iterator (csrc/walk.h, fc_plan_prefers_numpy)
cdef bint STRIDED_ROWS = _kernels.STRIDED_ROWS
cdef int STRIDED_ROWS_MIN_BYTES = _kernels.STRIDED_ROWS_MIN_BYTES

cdef fc_loop_t *LOOPS = <fc_loop_t *>PyCapsule_GetPointer(
    _kernels.loop_table(), "fastclip.loop_table")
cdef fc_masked_t *MASKED_ROWS = <fc_masked_t *>PyCapsule_GetPointer(
    _kernels.masked_table(), "fastclip.masked_table")
cdef fc_rows_t *ROWS = <fc_rows_t *>PyCapsule_GetPointer(
    _kernels.rows_table(), "fastclip.rows_table")
cdef fc_span_t *TIES_TO_BOUND = <fc_span_t *>PyCapsule_GetPointer(
    _kernels.ties_to_bound_table(), "fastclip.ties_to_bound_table")

cdef fc_convert_api_t *CONVERT = <fc_convert_api_t *>PyCapsule_GetPointer(
    _kernels.convert_api(), "fastclip.convert")
cdef fc_quantize_api_t *QUANTIZE = <fc_quantize_api_t *>PyCapsule_GetPointer(
    _kernels.quantize_api(), "fastclip.quantize")


#: helper threads of fastclip's own (POSIX threads, with OpenMP for the
#: count); False: a one-thread build, or Windows, where an OpenMP region splits
HAVE_THREAD_POOL = bool(FC_POOL)


#: a call that finds helpers asleep wakes them once it has run this many
#: wake-ups' time (csrc/parallel.h)
WAKE_REPAY = FC_WAKE_REPAY


def _test_pool():
    """_for_tests("pool"), in _test_hooks.pxi: helpers started, asleep now,
    chunks they did, wake-ups, a wake-up's time and the caller's part of it in
    seconds (0: not measured)"""
    cdef int helpers, sleeping
    cdef npy_intp chunks
    cdef unsigned long wakeups
    cdef long wake_ns, wake_cost_ns
    fc_pool_stats(&helpers, &sleeping, &chunks, &wakeups, &wake_ns, &wake_cost_ns)
    return helpers, sleeping, chunks, wakeups, wake_ns * 1e-9, wake_cost_ns * 1e-9


#: the pool's modes by name, a bit each of FC_MODE_, all off by default
cdef dict _POOL_MODES = {
    # the tests: every split call waits for its helpers, chunks of any size
    "split_every_call": FC_MODE_SPLIT_EVERY_CALL,
    # the benchmark: a split call is one OpenMP parallel loop (the simple design)
    "openmp": FC_MODE_OPENMP,
}


def pool_modes(**switches):
    """The thread pool's modes, each True (on) or False (off, the default):
    split_every_call and openmp (above); the ones given are set first, and
    all returned. For the tests and the benchmark: not an API."""
    cdef int modes = fc_pool_modes()
    for name, on in switches.items():
        if name not in _POOL_MODES:
            raise TypeError(f"pool_modes: no mode {name!r}; expected one of "
                            f"{', '.join(_POOL_MODES)}")
        modes = (modes | _POOL_MODES[name]) if on else (modes & ~_POOL_MODES[name])
    fc_pool_set_modes(modes)
    return {name: bool(modes & bit) for name, bit in _POOL_MODES.items()}


def thread_pool():
    """csrc/parallel.h's fc_parallel_range (this module owns the process's
    helper threads), as a capsule for the kernel module's configure_threads."""
    return PyCapsule_New(fc_parallel_range_address(), "fastclip.parallel_range", NULL)


def _reuse_bytes_from_env():
    """FASTCLIP_REUSE_MIB in bytes; unset: 0, no reuse (csrc/result_blocks.h)."""
    env = os.environ.get("FASTCLIP_REUSE_MIB", "").strip()
    if not env:
        return 0
    try:
        mib = int(env)
    except ValueError:
        mib = -1
    if mib < 0:
        raise ValueError(f"FASTCLIP_REUSE_MIB={env!r}: expected a whole number of MiB, "
                         f"0 or more (0: no reuse)")
    return mib << 20


fc_blocks_init(_reuse_bytes_from_env())
REUSE_MIN_BYTES = FC_BLOCK_MIN_BYTES


def set_reuse_mib(mib):
    """Keep up to `mib` MiB of the blocks that freed large results (16 MiB and
    more) leave, for the next results of the same size (0, the default: keep
    none). Every block kept now is given back first.

    A loop that makes a new large result each time, such as an image clipped
    into a new float64 array a frame, then skips the page faults of fresh
    memory; the blocks kept count in the process's memory until a result
    takes them. ``FASTCLIP_REUSE_MIB`` sets it at import.

    Parameters
    ----------
    mib : int
        0 or more.
    """
    if isinstance(mib, bool) or not isinstance(mib, int) or mib < 0:
        raise ValueError(f"set_reuse_mib: expected a whole number of MiB, 0 or more, got {mib!r}")
    fc_blocks_set_cap(<size_t>mib << 20)


def reuse_cap_bytes():
    """The bytes of freed results kept at most (0: reuse is off)."""
    return fc_blocks_cap_bytes()


def reused_blocks():
    """(blocks kept, their bytes, results that took a kept block so far)."""
    cdef npy_intp count, nbytes, hits
    fc_blocks_stats(&count, &nbytes, &hits)
    return count, nbytes, hits
