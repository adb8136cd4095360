"""Threads in a program's shape: what fastclip's split of large calls costs and
buys where the program does other work, runs as several processes, or shares
the machine, each case timed with fastclip's default (all CPUs), fastclip on
one thread, the simple design (the same kernels split by one OpenMP parallel
loop: the runtime's own threads and wait policy), np.clip and torch.clamp
(its default threads) where installed.

Every case reports wall time and CPU time: the process's (all its threads,
`time.process_time`), less the CPU time the main thread spent in the case's
other work where it has some, so the figure is what the clips cost the
machine. Each contender's series is followed by a pause before the CPU clock
is read, so the spin of its threads after its last call counts as its own.
The other work between calls is CPU work (a loop on the main thread), not a
sleep; the pauses of the idle cases are sleeps on purpose (an idle machine).
The contenders take turns round by round, in rotated order; the figures are
medians over the rounds, and fastclip / 1 thread is given with its spread.
"""

import multiprocessing
import os
import statistics
import time

import numpy as np

import fastclip
from fastclip.bench.timing import ratio_spread

MiB = 1 << 20
DEFAULT, ONE, OPENMP = "fastclip", "fastclip 1 thread", "OpenMP loop"
#: the settling pause after a contender's series: longer than any thread's spin
#: after a call (fastclip's helpers: a wake-up's time; OpenMP runtimes': longer)
SETTLE_S = 0.05
#: a program's CPU work between calls, in seconds: a range drawn from call by
#: call, and the fixed work of a loop of small calls
WORK_S, LOOP_WORK_S = (0.001, 0.005), 0.001
#: the pauses (sleeps) of the idle cases: one that outlasts a helper's spin,
#: and one that a large call's helpers sleep through
PAUSE_S, LONG_PAUSE_S = 0.02, 0.05


def _ms(seconds):
    return f"{seconds * 1000:g} ms"


WORK = f"{_ms(WORK_S[0])[:-3]}-{_ms(WORK_S[1])} of CPU work"


def _cpus():
    from fastclip import _threads
    return _threads._available_cpus()


def _use(name):
    """fastclip set up for contender `name` (np.clip and torch leave it at its
    default)."""
    from fastclip import _ufunc
    fastclip.set_num_threads(1 if name == ONE else _cpus())
    _ufunc.pool_modes(openmp=name == OPENMP)


def _clipper(name, torch=None):
    """clip(x, lo, hi, out) for contender `name`."""
    if name == "np.clip":
        return lambda x, lo, hi, out: np.clip(x, lo, hi, out=out)
    if name == "torch.clamp":
        def clamp(x, lo, hi, out):
            torch.clamp(torch.from_numpy(x), lo, hi, out=torch.from_numpy(out))
        return clamp
    return lambda x, lo, hi, out: fastclip.clip(x, lo, hi, out=out)


def contenders(peers=None):
    names = [DEFAULT, ONE]
    if openmp_loop_available():
        names.append(OPENMP)
    names.append("np.clip")
    if peers is not None and peers.torch is not None:
        names.append("torch.clamp")
    return names


def openmp_loop_available():
    """Whether the OpenMP loop can be timed: a build with OpenMP, two CPUs."""
    from fastclip import _ufunc
    return _ufunc._kernels.HAVE_OPENMP and _cpus() > 1


def busy(seconds):
    """CPU work on the calling thread for `seconds` (a program's own work)."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


class _Series:
    """Wall and CPU time of one contender's series: the CPU clock read after
    a settling pause (its threads' trailing spin counted), less the main
    thread's CPU time in the series' own work (`work` seconds marked by
    `in_work`)."""

    def __enter__(self):
        self.wall0, self.cpu0, self.work = time.perf_counter(), time.process_time(), 0.0
        return self

    def in_work(self, seconds):
        t0 = time.thread_time()
        busy(seconds)
        self.work += time.thread_time() - t0

    def __exit__(self, *exc):
        self.wall = time.perf_counter() - self.wall0
        time.sleep(SETTLE_S)
        self.cpu = time.process_time() - self.cpu0 - self.work


def _rounds(names, rounds, run):
    """run(name) -> {measure: seconds}, for every contender in rotated turns;
    {name: [that dict a round]}."""
    samples = {k: [] for k in names}
    for r in range(rounds):
        for k in names[r % len(names):] + names[:r % len(names)]:
            samples[k].append(run(k))
    return samples


def _row(case, what, samples, per=1):
    """A table row: each contender's medians (divided by `per`, calls or
    steps), and fastclip / 1 thread round by round."""
    med = {k: {m: statistics.median(v[m] for v in vals) / per for m in vals[0]}
           for k, vals in samples.items()}
    spread = {}
    for m in ("wall", "cpu"):
        pairs = {k: [v[m] for v in samples[k]] for k in (DEFAULT, ONE)}
        spread[f"{m} fastclip/1"] = ratio_spread(pairs, DEFAULT, ONE)
    return {"case": case, "what": what, "seconds": med, "spread": spread}


# ---- cases in this process


def _calls_case(names, peers, rounds, x, out, count, pause=0.0, pause_every=1, work=(0.0,),
                new_out=False, lo=-0.5, hi=0.5):
    """`count` calls of clip(x, lo, hi) into out (a new np.empty of x's
    shape each time with new_out), a sleep of `pause` before every
    `pause_every`-th and CPU work of work[i % len(work)] seconds before
    each; wall: the calls' own time."""
    def run(name):
        _use(name)
        clip = _clipper(name, peers.torch if peers else None)
        clip(x, lo, hi, np.empty_like(x) if new_out else out)
        time.sleep(SETTLE_S)
        inside = 0.0
        with _Series() as s:
            for i in range(count):
                if pause and i % pause_every == 0:
                    time.sleep(pause)
                if work[i % len(work)]:
                    s.in_work(work[i % len(work)])
                o = np.empty_like(x) if new_out else out
                t0 = time.perf_counter()
                clip(x, lo, hi, o)
                inside += time.perf_counter() - t0
        return {"wall": inside, "cpu": s.cpu}
    return _rounds(names, rounds, run)


def mlp(peers, rounds, steps):
    """A NumPy MLP's step: np.matmul of (4096, 1024) by (1024, 1024) float32 on
    the BLAS library's threads, then clip(y, 0, 6, out=y) (16 MiB)."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(4096, 1024)).astype(np.float32)
    W = (rng.normal(size=(1024, 1024)) / 32).astype(np.float32)
    y = np.empty((4096, 1024), np.float32)
    names = contenders(peers)

    def run(name):
        _use(name)
        clip = _clipper(name, peers.torch if peers else None)
        np.matmul(X, W, out=y)
        clip(y, 0, 6, y)
        time.sleep(SETTLE_S)
        clips = []
        with _Series() as s:
            for _ in range(steps):
                np.matmul(X, W, out=y)
                t0 = time.perf_counter()
                clip(y, 0, 6, y)
                clips.append(time.perf_counter() - t0)
        return {"wall": s.wall, "cpu": s.cpu, "clip": statistics.median(clips) * steps}
    samples = _rounds(names, rounds, run)
    what = ("a NumPy MLP step: np.matmul (4096x1024 by 1024x1024 float32, BLAS on all "
            "threads), then clip(y, 0, 6, out=y) (16 MiB); a step")
    return [_row("MLP step", what, samples, per=steps)]


def split_cpu(peers, rounds, calls):
    """2**24 float32 out= (64 MiB each way), back to back and with WORK_S of
    CPU work before each call."""
    rng = np.random.default_rng(7)
    x = rng.normal(size=2**24).astype(np.float32)
    out = np.empty_like(x)
    work = tuple(rng.uniform(*WORK_S, size=16))
    names = contenders(peers)
    back = _calls_case(names, peers, rounds, x, out, calls)
    spaced = _calls_case(names, peers, rounds, x, out, calls, work=work)
    return [_row("split calls, back to back", "2^24 float32 out=, back to back; a call",
                 back, per=calls),
            _row("split calls, work between", f"2^24 float32 out=, {WORK} before each; a "
                 "call (the work not counted)", spaced, per=calls)]


def loops(peers, rounds):
    """The shapes the pool was built for: loops of calls with other work or
    pauses between them, bursts after pauses, one huge call, fresh pages."""
    rng = np.random.default_rng(4)
    least = rng.normal(size=MiB // 4).astype(np.float32)              # the smallest split call
    small = rng.normal(size=4 * MiB // 4).astype(np.float32)          # 4 MiB
    large = rng.normal(size=64 * MiB // 4).astype(np.float32)         # 64 MiB
    huge = rng.normal(size=256 * MiB // 4).astype(np.float32)         # 256 MiB
    names = contenders(peers)
    rows = []
    for case, what, x, kw, count in (
            ("4 MiB loop, work between", f"4 MiB calls, {_ms(LOOP_WORK_S)} of CPU work before "
             "each", small, {"work": (LOOP_WORK_S,)}, 24),
            ("1 MiB after pauses", f"1 MiB calls (the smallest split), a {_ms(PAUSE_S)} pause "
             "before each", least, {"pause": PAUSE_S}, 12),
            ("4 MiB bursts", f"bursts of 8 back-to-back 4 MiB calls, a {_ms(PAUSE_S)} pause "
             "before each burst", small, {"pause": PAUSE_S, "pause_every": 8}, 32),
            ("256 MiB after a pause", f"one 256 MiB call after a {_ms(LONG_PAUSE_S)} pause", huge,
             {"pause": LONG_PAUSE_S}, 2),
            ("64 MiB into a new out", "a 64 MiB call into a new np.empty out (fresh pages) "
             f"after a {_ms(LONG_PAUSE_S)} pause", large,
             {"pause": LONG_PAUSE_S, "new_out": True}, 3)):
        samples = _calls_case(names, peers, rounds, x, np.empty_like(x), count, **kw)
        rows.append(_row(case, what + "; a call", samples, per=count))
    return rows


def reuse(rounds):
    """A loop of new float64 results of a 4K image (66 MB each), the freed
    blocks kept (set_reuse_mib) or not (the default)."""
    from fastclip import _ufunc
    image = np.random.default_rng(6).normal(size=(2160, 3840))
    cap = _ufunc.reuse_cap_bytes()
    names = [DEFAULT, "fastclip, set_reuse_mib(128)", "np.clip"]

    def run(name):
        _use(DEFAULT)
        fastclip.set_reuse_mib(128 if "reuse" in name else 0)
        clip = np.clip if name == "np.clip" else fastclip.clip
        clip(image, -0.5, 0.5)
        with _Series() as s:
            for _ in range(8):
                clip(image, -0.5, 0.5)
        held = _ufunc.reused_blocks()[1]
        return {"wall": s.wall, "cpu": s.cpu, "held": held}
    try:
        samples = _rounds(names, rounds, run)
    finally:
        _ufunc.set_reuse_mib(cap >> 20)
    med = {k: {m: statistics.median(v[m] for v in vals) / (8 if m != "held" else 1)
               for m in vals[0]} for k, vals in samples.items()}
    return {"case": "new results, reuse", "what": "a loop of new float64 results of a 4K "
            "image (66 MB), no out; a call (held: the memory kept after the loop)",
            "seconds": med}


# ---- cases in several processes


def _process_worker(n, calls, rounds_names, barrier, results):
    """A worker process: contender after contender as the parent lists them,
    `calls` clips of float32 n into out= each, between two barriers."""
    torch = None
    if "torch.clamp" in {k for names in rounds_names for k in names}:
        import torch
    x = np.random.default_rng(os.getpid()).normal(size=n).astype(np.float32)
    out = np.empty_like(x)
    mine = []
    for names in rounds_names:
        for name in names:
            _use(name)
            clip = _clipper(name, torch)
            clip(x, -0.5, 0.5, out)
            barrier.wait()
            wall0, cpu0 = time.perf_counter(), time.process_time()
            for _ in range(calls):
                clip(x, -0.5, 0.5, out)
            wall = time.perf_counter() - wall0
            time.sleep(SETTLE_S)
            mine.append((name, wall, time.process_time() - cpu0))
            barrier.wait()
    results.put(mine)


def _neighbour_worker(iterations, turns, barrier, results):
    """A CPU-bound pure-Python neighbour: the same work at each turn, between
    two barriers; its wall time each turn."""
    mine = []
    for _ in range(turns):
        barrier.wait()
        t0 = time.perf_counter()
        s = 0
        for i in range(iterations):
            s += i * i % 7
        mine.append(time.perf_counter() - t0)
        barrier.wait()
    results.put(mine)


def _turns(names, rounds):
    return [names[r % len(names):] + names[:r % len(names)] for r in range(rounds)]


def processes(peers, rounds, nprocs, calls=20, n=2**25):
    """nprocs processes on the machine, each clipping float32 n into out= in
    a loop: a call's time (all processes' calls over the slowest's wall time),
    the processes' CPU time a call."""
    ctx = multiprocessing.get_context("spawn")
    names = contenders(peers)
    order = _turns(names, rounds)
    barrier, results = ctx.Barrier(nprocs), ctx.Queue()
    procs = [ctx.Process(target=_process_worker, args=(n, calls, order, barrier, results))
             for _ in range(nprocs)]
    for p in procs:
        p.start()
    got = [results.get() for _ in procs]
    for p in procs:
        p.join()
    samples = {k: [] for k in names}
    for i, name in enumerate(k for turn in order for k in turn):
        walls = [g[i][1] for g in got]
        cpus = [g[i][2] for g in got]
        samples[name].append({"wall": max(walls), "cpu": sum(cpus)})
    what = (f"{nprocs} processes, each {calls} calls of float32 2^{n.bit_length() - 1} out=; "
            f"a call (the slowest process's time over all calls)")
    return _row(f"{nprocs} processes", what, samples, per=nprocs * calls)


def neighbour(peers, rounds, calls=40, n=2**25):
    """A CPU-bound Python process beside a loop of calls of float32 n out=
    with WORK_S of CPU work before each: the two processes' times added (the
    neighbour's fixed work, the loop), and the neighbour's alone."""
    ctx = multiprocessing.get_context("spawn")
    rng = np.random.default_rng(8)
    x = rng.normal(size=n).astype(np.float32)
    out = np.empty_like(x)
    work = tuple(rng.uniform(*WORK_S, size=16))
    names = contenders(peers)
    order = _turns(names, rounds)
    # the neighbour's work: about as long as the loop on one thread
    _use(ONE)
    t0 = time.perf_counter()
    for i in range(calls):
        busy(work[i % len(work)])
        fastclip.clip(x, -0.5, 0.5, out=out)
    loop_s = time.perf_counter() - t0
    t0, s = time.perf_counter(), 0
    for i in range(2_000_000):
        s += i * i % 7
    iterations = int(2_000_000 * loop_s / (time.perf_counter() - t0))
    turns = 1 + sum(len(t) for t in order)
    barrier, results = ctx.Barrier(2), ctx.Queue()
    proc = ctx.Process(target=_neighbour_worker, args=(iterations, turns, barrier, results))
    proc.start()
    barrier.wait()                  # the neighbour alone
    barrier.wait()
    loops = []
    for name in (k for turn in order for k in turn):
        _use(name)
        clip = _clipper(name, peers.torch if peers else None)
        clip(x, -0.5, 0.5, out)
        barrier.wait()
        with _Series() as series:
            for i in range(calls):
                series.in_work(work[i % len(work)])
                clip(x, -0.5, 0.5, out)
        barrier.wait()
        loops.append((name, series.wall, series.cpu))
    theirs = results.get()
    proc.join()
    alone = theirs[0]
    samples = {k: [] for k in names}
    for (name, wall, cpu), nb in zip(loops, theirs[1:]):
        samples[name].append({"wall": wall + nb, "cpu": cpu, "neighbour": nb / alone})
    what = (f"a CPU-bound Python process beside {calls} calls of float32 2^{n.bit_length() - 1} "
            f"out= with {WORK} before each: the loop's and the neighbour's times "
            f"added (neighbour: its time over its time alone)")
    return _row("neighbour", what, samples)


def program_threads(peers, repeats, progress=None, quick=False):
    """The section's rows; an empty list on one CPU or a build without
    threads."""
    from fastclip import _ufunc
    if not openmp_loop_available():
        return []
    before = fastclip.get_num_threads()
    rounds = max(3, repeats // 2)
    rows = []
    try:
        steps = [("MLP", lambda: mlp(peers, 3 if quick else rounds, 4 if quick else 12)),
                 ("split CPU", lambda: split_cpu(peers, 3 if quick else rounds,
                                                 4 if quick else 16))]
        if not quick:
            steps += [("loops", lambda: loops(peers, rounds)),
                      ("2 processes", lambda: [processes(peers, rounds, 2)]),
                      ("4 processes", lambda: [processes(peers, rounds, 4)]),
                      ("neighbour", lambda: [neighbour(peers, rounds)]),
                      ("reuse", lambda: [reuse(rounds)])]
        for label, step in steps:
            if progress is not None:
                print(f"[threads in a program] {label}", file=progress, flush=True)
            rows += step()
        _, _, _, _, wake, cost = _ufunc._for_tests("pool")
        rows.append({"case": "wake-up", "what": "the pool's wake-up as measured in this "
                     "process: its time, from the caller's start of it to a helper running, "
                     "and the caller's part (medians of the last eight)",
                     "seconds": {"time": wake, "caller's part": cost}})
    finally:
        fastclip.set_num_threads(before)
        _ufunc.pool_modes(openmp=False)
    return rows
