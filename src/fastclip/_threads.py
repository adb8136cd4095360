"""How many threads a large fastclip call uses.

The default is the number of CPUs this process may run on (its affinity mask
and its cgroup's CPU quota, not the machine's CPU count), or
FASTCLIP_NUM_THREADS; a forked child counts them again. A split call runs on
fastclip's own helper threads (csrc/parallel.h: the caller never waits for a
helper that is not awake); their number is capped by omp_get_max_threads() of
the OpenMP runtime fastclip links, so threadpoolctl's OpenMP limits apply (the
smaller of the two counts is used).

The rule that keeps threads from multiplying: a call is split only when its
input is at least 1 MiB (a fused clip-and-convert: 256 KiB,
_kernels.CONVERT_WORK_PER_BYTE) and it comes from the interpreter's main thread.
(1 MiB keeps every clip of n <= 100 000 on one thread, where a split does not
repay the threads' start.) Calls from other threads, such as a
thread pool or Dask's worker threads, run on the calling thread, so N callers
use N cores, not N x cores.
"""

import math
import os
import threading

#: below this many bytes (input size) a call runs on one thread
PARALLEL_MIN_BYTES = 1 << 20

_num_threads = None
#: whether the count was chosen (set_num_threads, FASTCLIP_NUM_THREADS), not counted
_chosen = False
#: set_num_threads from several threads at once: each setting and its hand-off
#: to the kernel module in one piece (the kernels read them atomically)
_lock = threading.Lock()


def _cgroup_cpus(root="/sys/fs/cgroup", self_cgroup="/proc/self/cgroup"):
    """The CPUs this process's cgroup quota allows, rounded up, the smallest
    along its cgroup's path (v2 cpu.max; v1 cpu.cfs_quota_us over
    cpu.cfs_period_us); None where no quota is set or none can be read."""
    try:
        with open(self_cgroup) as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    limits = []
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controllers == "":
            base, files = root, ("cpu.max",)
        elif "cpu" in controllers.split(","):
            base, files = os.path.join(root, controllers), ("cpu.cfs_quota_us", "cpu.cfs_period_us")
        else:
            continue
        parts = [p for p in path.split("/") if p]
        for depth in range(len(parts) + 1):
            where = os.path.join(base, *parts[:depth])
            try:
                text = " ".join(_read(os.path.join(where, name)) for name in files)
            except OSError:
                continue
            quota, _, period = text.partition(" ")
            if quota not in ("max", "-1") and period:
                limits.append(max(1, math.ceil(int(quota) / int(period))))
    return min(limits) if limits else None


def _read(path):
    with open(path) as f:
        return f.read().strip()


def _available_cpus():
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    quota = _cgroup_cpus()
    return min(cpus, quota) if quota else cpus


def _default_threads():
    env = os.environ.get("FASTCLIP_NUM_THREADS", "").strip()
    if env:
        try:
            n = int(env)
        except ValueError:
            raise ValueError(f"FASTCLIP_NUM_THREADS={env!r}: expected a positive integer") from None
        if n < 1:
            raise ValueError(f"FASTCLIP_NUM_THREADS={env!r}: expected a positive integer")
        return n
    return _available_cpus()


def _apply():
    from fastclip import _ufunc
    _ufunc._kernels.configure_threads(_num_threads, PARALLEL_MIN_BYTES,
                                      threading.main_thread().ident, _ufunc.thread_pool())


def set_num_threads(n):
    """Set how many threads a large fastclip call may use (1 = never split).

    Parameters
    ----------
    n : int
        A positive number of threads.
    """
    global _num_threads, _chosen
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"set_num_threads: expected a positive integer, got {n!r}")
    with _lock:
        _num_threads = n
        _chosen = True
        _apply()


def get_num_threads():
    """The number of threads a large fastclip call may use (fastclip's
    setting; threadpoolctl's OpenMP limit may lower it, see show_config)."""
    return _num_threads


def effective_threads():
    """Threads a large call from the main thread uses now (after threadpoolctl's
    OpenMP limits)."""
    from fastclip import _ufunc
    return _ufunc._kernels.effective_threads()


def _init():
    global _num_threads, _chosen
    with _lock:
        _num_threads = _default_threads()
        _chosen = bool(os.environ.get("FASTCLIP_NUM_THREADS", "").strip())
        _apply()
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=_after_fork)


def _after_fork():
    """In a forked child (a worker process): the CPUs it may use counted
    again, unless the count was chosen."""
    global _num_threads, _lock
    _lock = threading.Lock()        # another thread of the parent may have held it
    if not _chosen:
        _num_threads = _available_cpus()
        _apply()
