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
#: (a -0.0 bound against +0.0 in a strided bfloat16 view, found by Hypothesis).
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


#: helper threads of fastclip's own (POSIX threads, with OpenMP for the
#: count); False: a one-thread build, or Windows, where an OpenMP region splits
HAVE_THREAD_POOL = bool(FC_POOL)


#: when a burst of split calls wakes sleeping helpers, in seconds: that much
#: of it still to come (judged by the burst before), or run once it has
#: outlasted the one before (csrc/parallel.h, fc_burst_wants_helpers)
WAKE_AHEAD_S = FC_WAKE_AHEAD_NS * 1e-9
WAKE_WORTH_S = FC_WAKE_WORTH_NS * 1e-9
#: how long a helper spins for the next job before it sleeps, in seconds
SPIN_S = FC_SPIN_NS * 1e-9


def _test_pool():
    """_for_tests("pool"), in _test_hooks.pxi"""
    return fc_pool_helpers(), fc_pool_helper_chunks(), fc_pool_wakeups()


#: the pool's mechanisms (csrc/parallel.h, csrc/pool.h) by name, each a bit
#: of FC_MODE_ that switches it off; split_every_call is the tests' mode
cdef dict _POOL_MECHANISMS = {
    "spin": FC_MODE_NO_SPIN,            # a helper spins a while for the next job
    "late_join": FC_MODE_NO_LATE_JOIN,  # a call of 128 MiB and more wakes helpers at its start
    "wake_rule": FC_MODE_NO_WAKE_RULE,  # helpers woken only in a burst that repays it
    "steer": FC_MODE_NO_STEER,          # woken helpers steered off the caller's CPU
    "probe": FC_MODE_NO_PROBE,          # fresh output pages count in a call's work
}


def pool_modes(**switches):
    """The thread pool's mechanisms, each True (on, the default) or False,
    and split_every_call (the tests' mode: every split call waits for its
    helpers and cuts chunks of any size; off by default); the ones given are
    set first, and all returned. The one switch of the pool's modes, for the
    benchmark's pool section (a case of each mechanism against the pool
    without it) and the tests: not an API."""
    cdef int modes = fc_pool_modes()
    for name, on in switches.items():
        if name == "split_every_call":
            bit, off = FC_MODE_SPLIT_EVERY_CALL, bool(on)
        elif name in _POOL_MECHANISMS:
            bit, off = _POOL_MECHANISMS[name], not on
        else:
            raise TypeError(f"pool_modes: no mechanism {name!r}; expected split_every_call"
                            f" or one of {', '.join(_POOL_MECHANISMS)}")
        modes = (modes | bit) if off else (modes & ~bit)
    fc_pool_set_modes(modes)
    current = {name: not (modes & bit) for name, bit in _POOL_MECHANISMS.items()}
    current["split_every_call"] = bool(modes & FC_MODE_SPLIT_EVERY_CALL)
    return current


def thread_pool():
    """csrc/parallel.h's fc_parallel_range (this module owns the process's
    helper threads), as a capsule for the kernel module's configure_threads."""
    capsule = PyCapsule_New(fc_parallel_range_address(), "fastclip.parallel_range", NULL)
    # and the pool's state a kernel module may read (csrc/parallel.h fc_pool_hint_t)
    PyCapsule_SetContext(capsule, fc_pool_hint_address())
    return capsule


#: the bytes of freed results kept for reuse when FASTCLIP_REUSE_MIB is unset
#: (csrc/result_blocks.h): a 4K float64 image's result (66 MB) and then some,
#: twice what glibc keeps of its heap's free top (64 MiB at most)
REUSE_DEFAULT_MIB = 128


def _reuse_bytes_from_env():
    env = os.environ.get("FASTCLIP_REUSE_MIB", "").strip()
    if not env:
        return REUSE_DEFAULT_MIB << 20
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


def set_reuse_bytes(npy_intp nbytes):
    """Keep up to nbytes of freed results for reuse (0: none); every block
    kept now is given back first."""
    if nbytes < 0:
        raise ValueError(f"set_reuse_bytes: expected 0 or more, got {nbytes}")
    fc_blocks_set_cap(<size_t>nbytes)


def reuse_cap_bytes():
    """The bytes of freed results kept at most (0: reuse is off)."""
    return fc_blocks_cap_bytes()


def reused_blocks():
    """(blocks kept, their bytes, results that took a kept block so far)."""
    cdef npy_intp count, nbytes, hits
    fc_blocks_stats(&count, &nbytes, &hits)
    return count, nbytes, hits
