"""Threads: results are the same whatever the thread count, the GIL is
released, and the rule that stops threads from multiplying holds."""

import os
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import fastclip
from fastclip import _threads, _ufunc
from fastclip._dtypes import DTYPES, numpy_dtype
from tests.reference import assert_same, check_three_ways, reference_clip
from tests.arrays import typical_bounds, values

KERNELS = _ufunc._kernels
MAIN = threading.main_thread().ident


@pytest.fixture
def split_everything():
    """Two threads, and every call split however small, the helper joining
    each call and chunks cut at any element (chunk edges)."""
    KERNELS.configure_threads(2, 0, MAIN, _ufunc.thread_pool())
    _ufunc.pool_modes(split_every_call=True)
    yield
    _ufunc.pool_modes(split_every_call=False)
    _threads._apply()


@pytest.mark.skipif(not KERNELS.HAVE_OPENMP, reason="built without OpenMP")
@pytest.mark.parametrize("dtype", [numpy_dtype(r) for r in DTYPES], ids=str)
def test_split_calls_give_the_same_bits(split_everything, dtype):
    rng = np.random.default_rng(3)
    lo, hi = typical_bounds(dtype)
    for n in (1, 63, 64, 65, 1000, 4099):
        for step in (1, 2, -3):
            a = values(dtype, n * abs(step), rng)[::step]
            check_three_ways(fastclip.clip, a, lo, hi)
            # per-element bounds through the ufunc, split too
            lo_a, hi_s = np.full(n, lo, dtype), np.array(hi, dtype)[()]
            assert_same(fastclip.clip_ufunc(a, lo_a, hi_s), reference_clip(a, lo_a, hi_s))


NO_POOL = not _ufunc.HAVE_THREAD_POOL


@pytest.mark.skipif(NO_POOL, reason="no helper threads of fastclip's own (no OpenMP, or Windows)")
@pytest.mark.thread_unsafe(reason="only calls from the main thread are split")
def test_the_helper_does_part_of_a_split_call(split_everything):
    """The split really happens: chunks run on the helper thread, and every
    element is clipped once (a chunk lost or done twice in place would show:
    x * 2 - 1 clipped twice differs from clipped once)."""
    before = pool()["chunks"]
    a = np.arange(100_000, dtype=np.float64) / 50_000 - 1        # [-1, 1)
    for _ in range(20):
        x = a.copy()
        fastclip.clip(x, -0.5, 0.5, out=x)
        assert_same(x, np.clip(a, -0.5, 0.5))
        y = np.empty_like(a)
        fastclip.clip(a * 3, -0.25, 0.75, out=y)
        assert_same(y, np.clip(a * 3, -0.25, 0.75))
    assert pool()["helpers"] >= 1
    assert pool()["chunks"] > before


def test_large_array_default_threads_matches_numpy():
    a = np.random.default_rng(0).normal(size=3_000_000).astype(np.float32)   # 12 MB
    assert a.nbytes >= _threads.PARALLEL_MIN_BYTES
    assert_same(fastclip.clip(a, -1, 1), np.clip(a, -1, 1))
    b = a[::2]
    assert_same(fastclip.clip(b, -1, 1), np.clip(b, -1, 1))
    fastclip.clip(a, -1, 1, out=a)
    assert_same(a, np.clip(a, -1, 1))


def test_eight_python_threads_at_once():
    rng = np.random.default_rng(1)
    arrays = [rng.normal(size=400_000 + 1000 * i).astype(np.float64 if i % 2 else np.float32)
              for i in range(8)]
    expected = [np.clip(a, -0.5, 0.5) for a in arrays]
    barrier = threading.Barrier(8)

    def work(i):
        barrier.wait()
        results = [fastclip.clip(arrays[i], -0.5, 0.5) for _ in range(20)]
        return all(np.array_equal(r, expected[i]) for r in results)

    with ThreadPoolExecutor(8) as pool:
        assert all(pool.map(work, range(8)))


@pytest.mark.thread_unsafe(reason="asserts which thread it runs on")
def test_only_the_main_thread_splits():
    KERNELS.configure_threads(2, 1 << 20, MAIN, _ufunc.thread_pool())
    try:
        if KERNELS.HAVE_OPENMP:
            assert KERNELS.threads_for_bytes(1 << 20) == KERNELS.effective_threads() == 2
        assert KERNELS.threads_for_bytes((1 << 20) - 1) == 1
        seen = []
        t = threading.Thread(target=lambda: seen.append(KERNELS.threads_for_bytes(1 << 30)))
        t.start()
        t.join()
        assert seen == [1]
    finally:
        _threads._apply()


@pytest.mark.thread_unsafe(reason="asserts which thread it runs on")
def test_a_conversion_splits_from_a_quarter_of_the_bytes():
    """A fused clip-and-convert does more work a byte than a clip: 256 KiB of
    input splits it where a clip needs 1 MiB (docs/threads.rst)."""
    KERNELS.configure_threads(2, 1 << 20, MAIN, _ufunc.thread_pool())
    try:
        if KERNELS.HAVE_OPENMP:
            assert KERNELS.threads_for_conversion(1 << 18) == KERNELS.effective_threads() == 2
            assert KERNELS.threads_for_bytes(1 << 18) == 1
        assert KERNELS.threads_for_conversion((1 << 18) - 1) == 1
    finally:
        _threads._apply()


def test_set_and_get_num_threads():
    before = fastclip.get_num_threads()
    try:
        fastclip.set_num_threads(1)
        assert fastclip.get_num_threads() == 1
        assert KERNELS.threads_for_bytes(1 << 30) == 1
        for bad in (0, -1, 1.5, "2", True):
            with pytest.raises(ValueError, match="positive integer"):
                fastclip.set_num_threads(bad)
    finally:
        fastclip.set_num_threads(before)


def run_python(code, env=None, preexec=None):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, preexec_fn=preexec)


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"),
                    reason="no affinity masks on this OS (macOS, Windows)")
def test_default_is_the_affinity_mask():
    code = "import fastclip; print(fastclip.get_num_threads())"
    env = {k: v for k, v in os.environ.items() if k != "FASTCLIP_NUM_THREADS"}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       preexec_fn=lambda: os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}))
    assert r.stdout.strip() == "1", r.stderr


def test_env_sets_the_thread_count():
    code = "import fastclip; print(fastclip.get_num_threads())"
    r = run_python(code, {"FASTCLIP_NUM_THREADS": "3"})
    assert r.stdout.strip() == "3", r.stderr
    r = run_python(code, {"FASTCLIP_NUM_THREADS": "lots"})
    assert r.returncode != 0 and "FASTCLIP_NUM_THREADS='lots'" in r.stderr


@pytest.mark.skipif(not KERNELS.HAVE_OPENMP, reason="built without OpenMP")
def test_threadpoolctl_sees_and_limits_it():
    threadpoolctl = pytest.importorskip("threadpoolctl")
    fastclip.set_num_threads(2)
    try:
        libs = threadpoolctl.threadpool_info()
        assert any(lib["user_api"] == "openmp" for lib in libs)
        a = np.random.default_rng(0).normal(size=1 << 20).astype(np.float32)
        out = np.empty_like(a)
        with threadpoolctl.threadpool_limits(limits=1, user_api="openmp"):
            assert KERNELS.effective_threads() == 1
            assert KERNELS.threads_for_bytes(1 << 30) == 1
            # the helper threads are fastclip's own, capped by OpenMP's limit
            _ufunc.pool_modes(split_every_call=True)
            try:
                before = pool()["chunks"]
                for _ in range(5):
                    fastclip.clip(a, -0.5, 0.5, out=out)
                assert pool()["chunks"] == before
            finally:
                _ufunc.pool_modes(split_every_call=False)
        assert KERNELS.effective_threads() == 2
    finally:
        _threads._apply()


@pytest.mark.skipif(NO_POOL or not hasattr(os, "fork"),
                    reason="no helper threads of fastclip's own, or no fork()")
def test_a_forked_child_splits_calls_with_its_own_helpers():
    """After fork() the child has none of the parent's helper threads; its
    split calls must neither hang waiting for them nor lose their chunks."""
    code = """
import os, sys, numpy as np, fastclip
from fastclip import _ufunc
fastclip.set_num_threads(2)
_ufunc.pool_modes(split_every_call=True)
a = np.random.default_rng(0).normal(size=1 << 20).astype(np.float32)
out = np.empty_like(a)
fastclip.clip(a, -0.5, 0.5, out=out)            # the parent's helper starts
assert _ufunc._for_tests("pool")[0] >= 1
pid = os.fork()
if pid == 0:
    import signal
    signal.alarm(60)        # a hang must not outlive the test
    ok = True
    for _ in range(3):
        out[:] = 0
        fastclip.clip(a, -0.5, 0.5, out=out)
        ok &= bool(np.array_equal(out, np.clip(a, -0.5, 0.5)))
    os._exit(0 if ok and _ufunc._for_tests("pool")[2] > 0 else 3)
_, status = os.waitpid(pid, 0)
print("child", os.waitstatus_to_exitcode(status))
"""
    # OMP_NUM_THREADS (which other tests' libraries set) would cap it at 1
    env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
    r = subprocess.run([sys.executable, "-W", "ignore::DeprecationWarning", "-c", code],
                       capture_output=True, text=True, timeout=120, env=env)
    assert r.stdout.strip() == "child 0", r.stdout + r.stderr


def pool():
    """The pool's counts (_for_tests("pool")) by name."""
    return dict(zip(("helpers", "sleeping", "chunks", "wakeups", "wake_s", "cost_s"),
                    _ufunc._for_tests("pool")))


def _others_cpu_seconds():
    """CPU seconds the machine has been busy, less this process's own and its
    finished children's: what other processes used (Linux's /proc/stat; None
    where it is missing)."""
    try:
        with open("/proc/stat") as f:
            ticks = [int(v) for v in f.readline().split()[1:9]]
    except (OSError, ValueError):
        return None
    busy = (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")   # less idle, iowait
    t = os.times()
    return busy - (t.user + t.system + t.children_user + t.children_system)


#: a round counts only if other processes used less than this many CPUs on
#: average while it ran: the helper needs the second CPU to join
OTHERS_BUSY_CPUS = 0.25


def _asleep_after(pause_s=0.1):
    """Sleep past the helpers' spin (a wake-up's time); the pool's counts."""
    import time
    time.sleep(pause_s)
    return pool()


@pytest.mark.skipif(NO_POOL or _threads._available_cpus() < 2,
                    reason="no helper threads of fastclip's own, or one CPU")
@pytest.mark.thread_unsafe(reason="counts the wake-ups")
def test_a_split_call_wakes_sleeping_helpers_only_once_it_has_run_twenty_wake_ups():
    """With the helpers asleep, a split call runs on the caller alone, and
    wakes them only once it has run FC_WAKE_REPAY times what a wake-up costs
    its caller (csrc/parallel.h): a call shorter than that pays no wake-up,
    and a call long enough wakes them. Either way every element is right."""
    import time
    fastclip.set_num_threads(2)
    try:
        rng = np.random.default_rng(1)
        big = rng.normal(size=64 << 20).astype(np.float32)          # 256 MiB: milliseconds
        big_out = np.empty_like(big)
        small = rng.normal(size=1 << 18).astype(np.float32)         # 1 MiB, the smallest split
        small_out = np.empty_like(small)
        fastclip.clip(big, -0.5, 0.5, out=big_out)                  # helpers exist
        for _ in range(3):                  # a wake-up or more measured
            _asleep_after()
            fastclip.clip(big, -0.5, 0.5, out=big_out)
        before = _asleep_after()
        assert before["sleeping"] == before["helpers"] >= 1
        assert before["cost_s"] > 0
        t0 = time.perf_counter()
        fastclip.clip(small, -0.5, 0.5, out=small_out)
        took = time.perf_counter() - t0
        if took < _ufunc.WAKE_REPAY * before["cost_s"]:
            assert pool()["wakeups"] == before["wakeups"], "a short call woke the helpers"
        assert_same(small_out, np.clip(small, -0.5, 0.5))
        # a long call wakes them, where another CPU is idle: a few tries,
        # each counted only if other processes left one (/proc/stat)
        tries = []
        for _ in range(5):
            before = _asleep_after()
            others = _others_cpu_seconds()
            t0 = time.perf_counter()
            fastclip.clip(big, -0.25, 0.25, out=big_out)
            took = time.perf_counter() - t0
            assert_same(big_out, np.clip(big, -0.25, 0.25))
            busy = others is not None and (_others_cpu_seconds() - others) / took > OTHERS_BUSY_CPUS
            tries.append((pool()["wakeups"] - before["wakeups"], round(took * 1e3, 2), busy))
            if tries[-1][0] == 1:
                break
        if tries[-1][0] != 1 and all(busy for _, _, busy in tries):
            pytest.skip(f"other processes kept a CPU busy in every try: {tries}")
        assert tries[-1][0] == 1, f"no long call woke the helpers (wake-ups, ms, busy): {tries}"
    finally:
        _threads._apply()


HELPER_SPIN = """
import os, statistics, time, numpy as np, fastclip
from fastclip import _ufunc
fastclip.set_num_threads(2)
x = np.random.default_rng(0).normal(size=16 << 20).astype(np.float32)     # 64 MiB
out = np.empty_like(x)
fastclip.clip(x, -0.5, 0.5, out=out)
helper, = [int(t) for t in os.listdir("/proc/self/task")
           if open(f"/proc/self/task/{t}/comm").read().strip() == "fastclip-helper"]
cpu = lambda: time.clock_gettime(((~helper) << 3) | 6)     # Linux: the thread's CPU clock
pool = lambda: _ufunc._for_tests("pool")    # helpers, asleep, chunks they did, ...
after, asleep, joined = [], 0, 0
for _ in range(4):
    for i in range(8):                        # back to back: the helper in them
        before = pool()
        fastclip.clip(x, -0.5, 0.5, out=out)
        if i and before[1]:                   # a call that found the helper asleep
            asleep += 1
            joined += pool()[2] > before[2]
    before = cpu()
    time.sleep(0.05)
    after.append(cpu() - before)
assert np.array_equal(out, np.clip(x, -0.5, 0.5))
print(statistics.median(after), asleep, joined)
"""


@pytest.mark.skipif(NO_POOL or _threads._available_cpus() < 2 or sys.platform != "linux",
                    reason="no helper threads of fastclip's own, one CPU, or not Linux")
def test_omp_wait_policy_passive_stops_the_helpers_spinning_not_their_work():
    """OMP_WAIT_POLICY=passive, as OpenMP runtimes honour it: after its job a
    helper sleeps at once, where by default it spins for the next call as
    long as a wake-up takes (csrc/pool.h). Seen in the helper thread's own
    CPU time in the pause after a run of calls. The calls of a back-to-back
    run still wake it and share their work with it, as an OpenMP runtime
    wakes its passive threads at each parallel region."""
    import time
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "OMP_WAIT_POLICY")}
    spins = {}
    for policy in ("passive", None):
        others, t0 = _others_cpu_seconds(), time.perf_counter()
        r = subprocess.run([sys.executable, "-c", HELPER_SPIN], capture_output=True, text=True,
                           timeout=120, env={**env, "OMP_WAIT_POLICY": policy} if policy else env)
        assert r.returncode == 0, r.stderr
        spin, asleep, joined = (float(v) for v in r.stdout.split())
        spins[policy] = spin
        if policy == "passive":
            # of the 28 calls after a run's first, those that found the helper
            # asleep: it did chunks of nearly all, where a CPU was free for it
            busy = others is not None and ((_others_cpu_seconds() - others)
                                           / (time.perf_counter() - t0) > OTHERS_BUSY_CPUS)
            if asleep == 0 or (joined < asleep * 3 / 4 and busy):
                pytest.skip(f"no call found the passive helper asleep, or other processes "
                            f"kept a CPU busy: {asleep:g} asleep, {joined:g} joined")
            assert joined >= asleep * 3 / 4, (asleep, joined)
    # a default spin too short to tell from a sleep's own cost says nothing
    if spins[None] >= 20e-6:
        assert spins["passive"] < spins[None] / 3, spins


def test_pool_modes_switch_and_name_a_wrong_one():
    assert _ufunc.pool_modes() == {"split_every_call": False, "openmp": False}
    try:
        assert _ufunc.pool_modes(openmp=True) == {"split_every_call": False, "openmp": True}
    finally:
        _ufunc.pool_modes(openmp=False)
    assert _ufunc.pool_modes() == {"split_every_call": False, "openmp": False}
    with pytest.raises(TypeError, match="no mode 'spin'"):
        _ufunc.pool_modes(spin=False)


@pytest.mark.skipif(not KERNELS.HAVE_OPENMP, reason="built without OpenMP")
@pytest.mark.thread_unsafe(reason="only calls from the main thread are split")
@pytest.mark.parametrize("openmp", [False, True], ids=["pool", "openmp loop"])
def test_every_split_gives_the_same_bits(openmp):
    """Every call split, on the pool (helpers awake, asleep and woken: pauses
    either side of their spin) and on the OpenMP loop: new results, outs of
    fresh pages, in place."""
    import time
    KERNELS.configure_threads(2, 0, MAIN, _ufunc.thread_pool())     # every call split
    _ufunc.pool_modes(openmp=openmp)
    try:
        rng = np.random.default_rng(5)
        for n, pause in ((1000, 0), (1 << 16, 0.002), ((1 << 20) + 3, 0.02), (5 << 20, 0)):
            a = rng.normal(size=n).astype(np.float32)
            want = np.clip(a, -0.5, 0.5)
            time.sleep(pause)
            assert_same(fastclip.clip(a, -0.5, 0.5), want)
            out = np.empty_like(a)
            assert fastclip.clip(a, -0.5, 0.5, out=out) is out
            assert_same(out, want)
            fastclip.clip(a, -0.5, 0.5, out=a)
            assert_same(a, want)
    finally:
        _ufunc.pool_modes(openmp=False)
        _threads._apply()


@pytest.mark.skipif(NO_POOL or _threads._available_cpus() < 2,
                    reason="no helper threads of fastclip's own, or one CPU")
def test_the_helpers_join_a_hot_loop_after_each_pause():
    """A loop that pauses (longer than the helpers' spin) and then clips 8
    times back to back, calls long enough to repay a wake-up (16 MiB): the
    helpers, asleep at its start, are woken by its first call and share the
    rest, spinning from call to call. A helper woken onto the caller's CPU,
    or one that waits for the pool's lock behind the caller, shares nothing
    (csrc/pool.h, fc_helper_steer, fc_pool_wake). Up to five rounds of 12
    series, each counted only if other processes left a CPU free while it
    ran (/proc/stat): beside builds (CI's step 1 runs the suite so) the
    helper finds no CPU in some series. With no quiet round the test skips;
    CI runs it again once nothing else runs (.ci/run, step 5)."""
    import time
    fastclip.set_num_threads(2)
    try:
        a = np.random.default_rng(2).normal(size=1 << 22).astype(np.float32)
        out = np.empty_like(a)
        quiet, busy = [], []
        for _ in range(5):
            shared = []
            others, started = _others_cpu_seconds(), time.perf_counter()
            for _ in range(12):
                time.sleep(0.03)
                before = pool()["chunks"]
                for _ in range(8):
                    fastclip.clip(a, -0.5, 0.5, out=out)
                shared.append(pool()["chunks"] - before)
            load = (None if others is None else
                    (_others_cpu_seconds() - others) / (time.perf_counter() - started))
            (busy if load is not None and load > OTHERS_BUSY_CPUS else quiet).append(shared)
            if quiet and sum(c > 0 for c in quiet[-1]) >= 9:
                break
        assert_same(out, np.clip(a, -0.5, 0.5))
        if not quiet:
            pytest.skip(f"other processes kept a CPU busy in every round: {busy}")
        best = max(sum(c > 0 for c in r) for r in quiet)
        assert best >= 9, f"helper chunks a series, each quiet round: {quiet} (busy rounds: {busy})"
    finally:
        _threads._apply()


@pytest.mark.parametrize("files, cpus", [
    ({"0::/a/b": None, "a/b/cpu.max": "150000 100000"}, 2),        # v2, 1.5 CPUs
    ({"0::/a/b": None, "a/b/cpu.max": "max 100000"}, None),         # v2, no quota
    ({"0::/a/b": None, "a/cpu.max": "100000 100000", "a/b/cpu.max": "400000 100000"}, 1),
    ({"0::/": None, "cpu.max": "250000 100000"}, 3),                # a container's own root
    ({"4:cpu,cpuacct:/job": None, "cpu,cpuacct/job/cpu.cfs_quota_us": "200000",
      "cpu,cpuacct/job/cpu.cfs_period_us": "100000"}, 2),            # v1
    ({"4:cpu,cpuacct:/job": None, "cpu,cpuacct/job/cpu.cfs_quota_us": "-1",
      "cpu,cpuacct/job/cpu.cfs_period_us": "100000"}, None),
    ({"0::/a": None}, None),                                         # nothing readable
])
def test_the_cgroup_cpu_quota_counts(tmp_path, files, cpus):
    """A container's CPU quota caps the default thread count as its affinity
    mask does: cgroup v2's cpu.max and v1's cfs quota, the smallest along the
    cgroup's path, rounded up."""
    self_cgroup = tmp_path / "self-cgroup"
    self_cgroup.write_text("\n".join(k for k, v in files.items() if v is None) + "\n")
    for name, text in files.items():
        if text is not None:
            (tmp_path / "fs" / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / "fs" / name).write_text(text + "\n")
    assert _threads._cgroup_cpus(str(tmp_path / "fs"), str(self_cgroup)) == cpus


FORKED_COUNT = """
import os, numpy as np, fastclip
counted = fastclip.get_num_threads()
os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
pid = os.fork()
if pid == 0:
    os._exit(fastclip.get_num_threads())
_, status = os.waitpid(pid, 0)
print(counted, fastclip.get_num_threads(), os.waitstatus_to_exitcode(status))
"""


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity") or not hasattr(os, "fork")
                    or _threads._available_cpus() < 2,
                    reason="no affinity masks or fork on this OS, or one CPU")
def test_a_forked_worker_counts_the_cpus_it_may_use_again():
    """A worker forked after its parent was pinned to one CPU splits calls
    for one CPU, not for the parent's count at import; a count that was
    chosen (FASTCLIP_NUM_THREADS) is kept."""
    env = {k: v for k, v in os.environ.items() if k != "FASTCLIP_NUM_THREADS"}
    run = [sys.executable, "-W", "ignore::DeprecationWarning", "-c", FORKED_COUNT]
    r = subprocess.run(run, capture_output=True, text=True, timeout=60, env=env)
    counted = _threads._available_cpus()
    assert r.stdout.split() == [str(counted), str(counted), "1"], r.stdout + r.stderr
    r = subprocess.run(run, capture_output=True, text=True, timeout=60,
                       env={**env, "FASTCLIP_NUM_THREADS": "3"})
    assert r.stdout.split() == ["3", "3", "3"], r.stdout + r.stderr


FIRST_CALLS_RACE = r"""
import random, sys, threading
import numpy as np, ml_dtypes, fastclip
from fastclip import _numpy_fallback
numpy_clip = _numpy_fallback.numpy_clip
rng = np.random.default_rng(0)
f32 = rng.normal(size=3000).astype(np.float32)
u8 = rng.integers(0, 256, 3000).astype(np.uint8)
e4 = f32.astype(ml_dtypes.float8_e4m3fn)
big = rng.normal(size=2**19).astype(np.float32)
# each a call of a kind that fills one of fastclip's caches on its first use:
# a wider loop, a casting check of a fused pair, a widening copy, a float8
# table, the scalar and sequence paths; with its expected result
CALLS = [
    (lambda: fastclip.clip(f32, np.float64(-0.5), np.float64(0.5)),
     lambda: numpy_clip(f32, np.float64(-0.5), np.float64(0.5))),
    (lambda: fastclip.clip(u8, 10.5, 200.5), lambda: numpy_clip(u8, 10.5, 200.5)),
    (lambda: fastclip.clip(f32, 0, 255, out=np.empty(f32.shape, np.uint8), casting="unsafe"),
     lambda: numpy_clip(f32, 0, 255, out=np.empty(f32.shape, np.uint8), casting="unsafe")),
    (lambda: fastclip.clip(f32, -1, 1, out=np.empty(f32.shape, np.float64)),
     lambda: numpy_clip(f32, -1, 1, out=np.empty(f32.shape, np.float64))),
    (lambda: fastclip.clip(e4, None, 1.0).view(np.uint8),
     lambda: numpy_clip(e4.astype(np.float32), None, 1.0).astype(e4.dtype).view(np.uint8)),
    (lambda: fastclip.clip(1.5, 0, 1), lambda: numpy_clip(1.5, 0, 1)),
    (lambda: fastclip.clip([1, 5, -3], 0, 2), lambda: numpy_clip([1, 5, -3], 0, 2)),
    (lambda: fastclip.clip(big, -0.5, 0.5), lambda: numpy_clip(big, -0.5, 0.5)),
]
expected = [e() for _, e in CALLS]
start = threading.Barrier(8)
errors = []

def worker(seed):
    r = random.Random(seed)
    start.wait()
    try:
        for _ in range(60):
            k = r.randrange(len(CALLS))
            got = CALLS[k][0]()
            if not np.array_equal(np.asarray(got), np.asarray(expected[k])):
                errors.append(f"call {k} differs")
            what = r.randrange(4)
            if what == 0:
                fastclip.set_num_threads(r.randint(1, 4))
            elif what == 1:
                fastclip.patch_numpy()
                fastclip.unpatch_numpy()
            elif what == 2:
                with fastclip.patched():
                    if not np.array_equal(np.clip(f32, -1, 1), expected[3]):
                        errors.append("np.clip under the patch differs")
    except Exception as exc:
        errors.append(repr(exc))

threads = [threading.Thread(target=worker, args=(s,)) for s in range(8)]
for t in threads: t.start()
for t in threads: t.join()
assert not errors, errors[:5]
assert np.clip is numpy_clip and not fastclip.is_patched()
print("ok", fastclip.get_num_threads() in range(1, 5))
"""


def test_first_calls_set_num_threads_and_the_patch_racing_in_a_fresh_interpreter():
    """Eight threads, released at once in a new interpreter, make the first
    calls that fill each of fastclip's caches, set the thread count and turn
    the patch on and off, all at the same time: every result is NumPy's, and
    the patch ends off (docs/threads.rst lists each shared state and its
    guard)."""
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-c", FIRST_CALLS_RACE], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == ["ok", "True"]
