"""The benchmark's sections: each runs its cases and returns its rows, the
raw seconds of every contender (the report's JSON; fastclip/bench/report.py
renders them).

The main table, the every-call section, the address sweep, clip-and-convert
and quantize (fastclip/bench/quantize.py) run every contender on one thread
(np.clip has one; quantize's last row all threads); the threads, idle-gap,
concurrency and Dask sections use the cores.
"""

import os
import platform
import statistics
import time

import numpy as np

import fastclip
from fastclip import _ufunc
from fastclip._config import config
from fastclip._dtypes import DTYPES, numpy_dtype
from fastclip.bench.cases import (CALL_N, SWEEP_DISTANCES, SWEEP_DTYPES, call_cases,
                                  convert_cases, label, make_case, row_named, sweep_case)
from fastclip.bench import quantize
from fastclip.bench.program_threads import openmp_loop_available, program_threads
from fastclip.bench.timing import (_before_batch, ratio_spread, time_interleaved, time_with_spread,
                                   with_threads)


def _say(progress, text):
    if progress is not None:
        print(text, file=progress, flush=True)


class _OneThread:
    """fastclip and the peers on one thread for a section."""

    def __init__(self, peers):
        self.peers = peers

    def __enter__(self):
        self.before = fastclip.get_num_threads()
        fastclip.set_num_threads(1)
        self.state = self.peers.set_one_thread()

    def __exit__(self, *exc):
        fastclip.set_num_threads(self.before)
        self.peers.restore(self.state)


def main_table(peers, rows, sizes, layouts, repeats, min_seconds, progress=None):
    rng = np.random.default_rng(0)
    results = []
    cases = [(r, n, lay) for r in rows for n in sizes for lay in layouts]
    with _OneThread(peers):
        for i, (row, n, layout) in enumerate(cases):
            _say(progress, f"[{i + 1}/{len(cases)}] {label(row)} n={n} {layout}")
            times = time_interleaved(make_case(row, n, layout, rng, peers), repeats, min_seconds)
            results.append({"dtype": numpy_dtype(row).name, "row": row.name, "label": label(row),
                            "n": n, "layout": layout, "seconds": times})
    return results


def calls(peers, repeats, min_seconds, progress=None, quick=False):
    rows, sweep = [], []
    with _OneThread(peers):
        for group, dtype, case, funcs in call_cases(peers, quick):
            _say(progress, f"[calls] {group}: {dtype} {case}")
            rows.append({"group": group, "dtype": dtype, "case": case,
                         "seconds": time_interleaved(funcs, repeats, min_seconds)})
        for name in SWEEP_DTYPES[:2] if quick else SWEEP_DTYPES:
            dtype = numpy_dtype(row_named(name))
            _say(progress, f"[address sweep] {name}")
            for d in SWEEP_DISTANCES:
                sweep.append({"dtype": name, "distance": d,
                              "seconds": time_interleaved(sweep_case(dtype, d), repeats,
                                                          min_seconds)})
    return rows, sweep


def convert(peers, repeats, min_seconds, progress=None, quick=False):
    rows = []
    with _OneThread(peers):
        for pair, funcs in convert_cases(peers, quick=quick):
            _say(progress, f"[convert] {pair}")
            rows.append({"pair": pair, "n": CALL_N,
                         "seconds": time_interleaved(funcs, repeats, min_seconds)})
    return rows


SCALE_DTYPES = ("float32", "float64", "uint8", "bfloat16")
SCALE_N = 2**24


def threads(peers, repeats, progress=None):
    """2**24 elements: fastclip on one thread and on all (and split by one
    OpenMP loop, the simple design), np.clip, np.copyto and torch.clamp with
    its default threads, out= and in place."""
    from fastclip import _threads
    rows = []
    all_threads = _threads._available_cpus()
    rng = np.random.default_rng(1)
    before = fastclip.get_num_threads()
    try:
        for name in SCALE_DTYPES:
            row = row_named(name)
            for layout in ("out", "inplace"):
                _say(progress, f"[threads] {name} {layout}")
                case = make_case(row, SCALE_N, layout, rng, peers)
                one, every = "fastclip 1 thread", f"fastclip {all_threads} threads"
                funcs = {one: with_threads(1, case["fastclip"]),
                         every: with_threads(all_threads, case["fastclip"])}
                if openmp_loop_available():
                    funcs["OpenMP loop"] = with_threads(all_threads, case["fastclip"], openmp=True)
                funcs.update({"np.clip": case["np.clip"], "np.copyto": case["np.copyto"]})
                ratios = {"all vs np": ("np.clip", every), "1t vs copyto": (one, "np.copyto")}
                if "torch.clamp" in case:
                    funcs["torch.clamp"] = case["torch.clamp"]
                    ratios["all vs torch"] = ("torch.clamp", every)
                seconds, spread, done = time_with_spread(funcs, repeats, 0.02, ratios)
                rows.append({"dtype": numpy_dtype(row).name, "n": SCALE_N, "layout": layout,
                             "threads": all_threads, "seconds": seconds, "spread": spread,
                             "repeats": done})
    finally:
        fastclip.set_num_threads(before)
        _ufunc.pool_modes(openmp=False)
    return rows


IDLE_SIZES = (2**18, 2**20, 2**22, 2**24)
IDLE_GAPS_MS = (0, 2, 20, 50)
# From this gap on, the contenders take turns call by call (see idle)
IDLE_CALL_TURNS_MS = 20


def _idle_contenders(peers, x, all_threads):
    """idle's contenders: x clipped into an out of its own, float32 out=."""
    out = np.empty_like(x)

    def clip_out():
        return fastclip.clip(x, -0.5, 0.5, out=out)
    funcs = {f"fastclip {all_threads} threads": with_threads(all_threads, clip_out),
             "fastclip 1 thread": with_threads(1, clip_out)}
    if openmp_loop_available():
        funcs["OpenMP loop"] = with_threads(all_threads, clip_out, openmp=True)
    funcs["np.clip"] = lambda: np.clip(x, -0.5, 0.5, out=out)
    if peers.torch is not None:
        funcs["torch.clamp"] = peers.torch_clamp(x, -0.5, 0.5, out)
    return funcs


def _idle_series(f, gap, calls, warm_calls, settle):
    """One series of idle's: `calls` calls of f, `gap` ms before each (the
    first after `settle` s), the first `warm_calls` not counted: the counted
    calls' seconds, and the process's CPU seconds a call."""
    times = []
    _before_batch(f)()
    time.sleep(settle)
    cpu0 = time.process_time()
    for i in range(calls):
        if gap and (settle or i):
            time.sleep(gap / 1000)
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    time.sleep(max(settle, gap / 1000))
    return times[warm_calls:], (time.process_time() - cpu0) / calls


def idle(peers, repeats, sizes=IDLE_SIZES, gaps_ms=IDLE_GAPS_MS, series=16, warm=3,
         settle_s=0.03, progress=None):
    """Large calls after idle time: float32 out=, a hot loop that does other
    work (here a sleep of `gap` ms) between its clips. Gap 0 is back to back.
    Each contender runs series of `series` calls, the gap before each, and
    the contenders take turns series by series, in reversed order every other
    turn, torch.clamp among them. The figure is the median of the counted
    calls of `repeats` series.

    Each series starts after a pause of `settle_s`, and its first `warm`
    calls are not counted: threads another contender left spinning (torch's
    OpenMP workers, fastclip's helpers, each spinning some milliseconds after
    a call) would otherwise hold the core the next contender's threads need,
    and a back-to-back row would measure one library in the wake of
    another's calls. The calls counted are a loop's own calls, its threads
    woken by its first ones.

    torch.clamp takes its turns among the others: run after all of them, a
    noisy spell on a shared host would fall on one side only. The OpenMP
    loop is fastclip's kernels split by one OpenMP parallel loop, the simple
    design its pool is held to (csrc/parallel.h).

    Gaps of IDLE_CALL_TURNS_MS and more outlast every thread's spin
    (fastclip's helpers: a wake-up's time; OpenMP runtimes' workers some
    milliseconds), so each call meets sleeping threads whoever called last,
    and the contenders take turns call by call, as many calls each as the
    series would count (the first round not counted): series by series, a
    series of long gaps spans minutes of a shared host's drift. A turn of
    one call ends with the gap, which is the pause before the next turn's
    call.

    Beside each median call, the process's CPU time a call (all its threads),
    over a series and the pause after it: a thread spinning after the calls
    counts."""
    from fastclip import _threads
    all_threads = _threads._available_cpus()
    rng = np.random.default_rng(3)
    rows = []
    before = fastclip.get_num_threads()

    try:
        for n in sizes:
            funcs = _idle_contenders(peers, rng.normal(size=n).astype(np.float32), all_threads)
            names = list(funcs)
            for gap in gaps_ms:
                _say(progress, f"[idle] n=2**{n.bit_length() - 1} gap {gap} ms")
                samples = {k: [] for k in funcs}
                cpu = {k: [] for k in funcs}
                if gap >= IDLE_CALL_TURNS_MS:
                    for r in range(1 + repeats * (series - warm)):
                        for k in names[r % len(names):] + names[:r % len(names)]:
                            t, c = _idle_series(funcs[k], gap, calls=1, warm_calls=0, settle=0)
                            if r > 0:
                                samples[k] += t
                                cpu[k].append(c)
                else:
                    for r in range(repeats):
                        for k in (names if r % 2 == 0 else names[::-1]):
                            t, c = _idle_series(funcs[k], gap, series, warm, settle_s)
                            samples[k] += t
                            cpu[k].append(c)
                every = f"fastclip {all_threads} threads"
                spread = {"all/1": ratio_spread(samples, every, "fastclip 1 thread")}
                if "torch.clamp" in samples:
                    spread["torch/all"] = ratio_spread(samples, "torch.clamp", every)
                rows.append({"n": n, "gap_ms": gap, "threads": all_threads,
                             "seconds": {k: statistics.median(v) for k, v in samples.items()},
                             "cpu": {k: statistics.median(v) for k, v in cpu.items()},
                             "spread": spread})
    finally:
        fastclip.set_num_threads(before)
        _ufunc.pool_modes(openmp=False)
    return rows


def concurrency(repeats, calls_each=100, n=2**18):
    """Two Python threads, each clipping its own arrays, against the same
    calls one after the other (fastclip releases the GIL). 1 MiB arrays: big
    enough that handing the GIL over (a thread wake-up, slow on a VM) is
    small next to a call, small enough to stay out of the memory bus's way."""
    from concurrent.futures import ThreadPoolExecutor
    rng = np.random.default_rng(2)
    arrays = [rng.normal(size=n).astype(np.float32) for _ in range(2)]
    outs = [np.empty_like(a) for a in arrays]

    def work(i):
        for _ in range(calls_each):
            fastclip.clip(arrays[i], -0.5, 0.5, out=outs[i])

    def sequential():
        work(0)
        work(1)

    pool = ThreadPoolExecutor(2)     # started once: the row times the calls, not thread starts

    def two_threads():
        list(pool.map(work, range(2)))

    before = fastclip.get_num_threads()
    fastclip.set_num_threads(1)       # one core per call: the threads are the parallelism
    try:
        t = time_interleaved({"sequential": sequential, "2 threads": two_threads}, repeats, 0.05)
    finally:
        fastclip.set_num_threads(before)
        pool.shutdown()
    return {"what": f"2 x {calls_each} calls, float32 n={n} each, out=", "seconds": t}


def dask(repeats):
    """A chunked array on a LocalCluster of 2 worker processes: fastclip.clip
    against dask.array.clip (np.clip per chunk), each computed to a sum so
    only 8 bytes per chunk come back. None without Dask."""
    try:
        import dask.array as da
        import distributed
    except ImportError:
        return None
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=40)
    client = distributed.Client(cluster)
    try:
        x = da.random.default_rng(0).normal(size=2**26, chunks=2**22).astype(np.float32)
        x = client.persist(x)
        distributed.wait(x)

        def fc():
            return client.compute(fastclip.clip(x, -0.5, 0.5).sum()).result()

        def dc():
            return client.compute(da.clip(x, -0.5, 0.5).sum()).result()
        t = time_interleaved({"fastclip.clip": fc, "dask.array.clip": dc}, repeats, 0.2)
    finally:
        client.close()
        cluster.close()
    return {"what": "float32 2**26 in 16 chunks, 2 worker processes, .sum()", "seconds": t}


#: a program's samples, as a multiple of the run's repeats: a program's run
#: is one call a sample, and a program that spends a few percent in np.clip
#: needs more samples than a single call for its median to settle
PROGRAM_REPEATS = 3


def programs(repeats, progress=None):
    """Real programs (fastclip/bench/programs.py) as they are and under
    fastclip.patched(), on one fastclip thread and on all (what a program
    gets by default), beside the share of their time in np.clip (one run
    with each np.clip call timed; NumPy's)."""
    from fastclip.bench.programs import available
    ready, missing = available()
    rng = np.random.default_rng(6)
    rows = []
    threads = fastclip.get_num_threads()
    try:
        for name, library, what, make in ready:
            _say(progress, f"[programs] {name}")
            run = make(rng)

            def patched(run=run, n=1):
                fastclip.set_num_threads(n)
                with fastclip.patched():
                    run()
            contenders = {"as it is": run, "patched": patched}
            ratios = {"as it is / patched": ("as it is", "patched")}
            if threads > 1:
                contenders["patched, all threads"] = lambda: patched(n=threads)
                ratios["as it is / all threads"] = ("as it is", "patched, all threads")
            seconds, spread, done = time_with_spread(contenders, PROGRAM_REPEATS * repeats, 0.05,
                                                     ratios)
            rows.append({"program": name, "library": library, "what": what, "seconds": seconds,
                         "spread": spread, "repeats": done, **_clip_seconds(run, repeats)})
    finally:
        fastclip.set_num_threads(threads)
    return {"rows": rows, "skipped": missing, "threads": threads}


def _clip_seconds(run, repeats):
    """What a program's np.clip calls take inside it: runs as it is and under
    fastclip.patched() (one fastclip thread) in turn, reversed every other
    round, each with numpy.clip (NumPy's, or fastclip's under the patch)
    timed call by call; the medians of the rounds' sums ("clip_seconds") and
    the share of the program's time inside np.clip as it is ("clip_share").
    The program's own timing (time_interleaved) shows whether the whole run
    gains; this shows its calls' own change where the program's figure is
    the machine's noise (a share of a few percent). The timer's cost, two clock reads
    a call, is on both sides."""
    sides = ("as it is", "patched")
    clip, total = {k: [] for k in sides}, []
    fastclip.set_num_threads(1)
    for r in range(repeats):
        for side in sides[::-1] if r % 2 else sides:
            if side == "patched":
                with fastclip.patched():
                    spent, _ = _timed_clip(run)
            else:
                spent, whole = _timed_clip(run)
                total.append(whole)
            clip[side].append(spent)
    as_is = statistics.median(clip["as it is"])
    return {"clip_seconds": {k: statistics.median(v) for k, v in clip.items()},
            "clip_share": as_is / statistics.median(total) if total else 0.0}


def _timed_clip(run):
    """(seconds inside numpy.clip, seconds in all) of one run(), numpy.clip
    being whatever it is at the call."""
    spent = [0.0]
    inner = np.clip

    def timed(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            spent[0] += time.perf_counter() - t0
    np.clip = timed
    try:
        t0 = time.perf_counter()
        run()
        whole = time.perf_counter() - t0
    finally:
        np.clip = inner
    return spent[0], whole


def system(peers):
    """The facts a reader needs to place the figures: date, CPU, SIMD target,
    versions, the peers present and absent, the L3 and the streaming threshold
    (which regime a large call was in)."""
    c = config()
    return {"date": time.strftime("%Y-%m-%d"), "cpu": cpu_name(), "cpus": os.cpu_count(),
            "simd_target": c["simd_target"], "simd_compiled": c["simd_compiled"],
            "fastclip": c["fastclip"], "numpy": c["numpy"], "python": c["python"],
            "peers": peers.versions(), "peers_missing": list(peers.missing),
            "torch_capability": _torch_capability(peers),
            "l3_bytes": c["l3_bytes"], "stream_min_bytes": c["stream_min_bytes"]}


def cpu_name():
    """The CPU as a reader can place it: the model name, and on Linux its
    family and model numbers (one name covers several generations: "AMD
    EPYC") and the L2 a core."""
    name = platform.processor() or platform.machine()
    fields = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                fields.setdefault(key.strip(), value.strip())
                if not line.strip():
                    break
    except OSError:
        return name
    name = fields.get("model name", name)
    facts = []
    if "cpu family" in fields and "model" in fields:
        facts.append(f"family {fields['cpu family']} model {fields['model']}")
    try:
        with open("/sys/devices/system/cpu/cpu0/cache/index2/size") as f:
            facts.append(f"L2 {f.read().strip()} a core")
    except OSError:
        pass
    return f"{name} ({', '.join(facts)})" if facts else name


def _torch_capability(peers):
    if peers.torch is None:
        return None
    try:
        return peers.torch.backends.cpu.get_cpu_capability()
    except AttributeError:
        return None


def run(peers, quick=False, dtypes=None, sizes=None, layouts=None, repeats=None, scale=True,
        calls_too=True, progress=None):
    """The whole report: the main table, then (calls_too) the every-call,
    address-sweep, clip-and-convert and quantize sections, then (scale) the threads in
    a program (a short form when quick), and (scale, not quick) the threads,
    concurrency, idle-gap and Dask sections. quick: fewer sizes, layouts,
    dtypes and repeats."""
    from fastclip.bench.cases import LAYOUTS_FULL, LAYOUTS_QUICK, SIZES_FULL, SIZES_QUICK
    rows = [r for r in DTYPES if dtypes is None or r.name in dtypes or numpy_dtype(r).name in dtypes]
    sizes = sizes or (SIZES_QUICK if quick else SIZES_FULL)
    layouts = layouts or (LAYOUTS_QUICK if quick else LAYOUTS_FULL)
    repeats = repeats or (3 if quick else 9)
    min_seconds = 0.002 if quick else 0.01
    report = {"system": system(peers), "config": config(), "repeats": repeats,
              "results": main_table(peers, rows, sizes, layouts, repeats, min_seconds, progress)}
    if calls_too:
        report["calls"], report["address_sweep"] = calls(peers, repeats, min_seconds, progress,
                                                         quick)
        report["convert"] = convert(peers, repeats, min_seconds, progress, quick)
        report["quantize"] = quantize.section(peers, repeats, min_seconds, progress, quick)
    if scale:
        report["program_threads"] = program_threads(peers, repeats, progress, quick)
    if scale and not quick:
        report["threads"] = threads(peers, repeats, progress)
        _say(progress, "[concurrency]")
        report["concurrency"] = concurrency(repeats)
        report["idle"] = idle(peers, repeats, progress=progress)
        _say(progress, "[dask]")
        report["dask"] = dask(max(3, repeats // 2))
    return report
