"""What each mechanism of the thread pool buys: a case of each, timed with
the mechanism on and off (fastclip._ufunc.pool_modes; result blocks by
fastclip._ufunc.set_reuse_bytes), the two taking turns case by case, on all
threads. The mechanisms and their reasons: csrc/parallel.h and csrc/pool.h.

Each case is a short program of float32 calls (out= unless said) whose
pauses decide whether the helpers are awake, spinning or asleep; its figure
is the time of its calls (the pauses not counted), the median of the
repeats, and off/on is the time without the mechanism over the time with it
(above 1: what it buys), with its 10th to 90th percentile case by case.
"""

import statistics
import time

import numpy as np

import fastclip
from fastclip.bench.timing import ratio_spread

MiB = 1 << 20


def _calls(x, out, count, pause_s, new_out=False):
    """A case: `count` calls of clip(x) into out (or into a new np.empty of
    x's shape each time: pages the process has never touched), a pause of
    pause_s before each; the calls' own time."""
    total = 0.0
    for _ in range(count):
        if pause_s:
            time.sleep(pause_s)
        o = np.empty_like(x) if new_out else out
        t0 = time.perf_counter()
        fastclip.clip(x, -0.5, 0.5, out=o)
        total += time.perf_counter() - t0
    return total


def _bursts(x, out, bursts, calls, pause_s):
    """Bursts of back-to-back calls, a pause before each burst."""
    total = 0.0
    for _ in range(bursts):
        time.sleep(pause_s)
        t0 = time.perf_counter()
        for _ in range(calls):
            fastclip.clip(x, -0.5, 0.5, out=out)
        total += time.perf_counter() - t0
    return total


def _new_results(x, count):
    """A loop that makes a new result each call and drops it."""
    t0 = time.perf_counter()
    for _ in range(count):
        fastclip.clip(x, -0.5, 0.5)
    return time.perf_counter() - t0


#: the pauses of the cases, in seconds: a loop's other work (shorter than a
#: helper's spin), a pause that outlasts the spin, one that a huge call's
#: helpers sleep through
WORK_S, PAUSE_S, LONG_PAUSE_S = 0.001, 0.02, 0.05


def _ms(seconds):
    return f"{seconds * 1000:g} ms"


def _cases(rng):
    """(mechanism, the case in words, a function timing it once)."""
    least = rng.normal(size=MiB // 4).astype(np.float32)              # the smallest split call
    least_out = np.empty_like(least)
    small = rng.normal(size=4 * MiB // 4).astype(np.float32)          # 4 MiB
    small_out = np.empty_like(small)
    large = rng.normal(size=64 * MiB // 4).astype(np.float32)         # 64 MiB
    huge = rng.normal(size=256 * MiB // 4).astype(np.float32)         # 256 MiB
    huge_out = np.empty_like(huge)
    image = rng.normal(size=(2160, 3840)).astype(np.float64)          # a 4K float64 image
    return [
        ("spin", f"a loop of 4 MiB calls, {_ms(WORK_S)} of other work between them",
         lambda: _calls(small, small_out, 24, WORK_S)),
        ("late_join", f"one 256 MiB call after a {_ms(LONG_PAUSE_S)} pause",
         lambda: _calls(huge, huge_out, 2, LONG_PAUSE_S)),
        ("wake_rule", f"1 MiB calls (the smallest split), each after a {_ms(PAUSE_S)} pause",
         lambda: _calls(least, least_out, 12, PAUSE_S)),
        ("steer", f"bursts of 8 back-to-back 4 MiB calls, {_ms(PAUSE_S)} pauses between",
         lambda: _bursts(small, small_out, 4, 8, PAUSE_S)),
        ("probe", f"a 64 MiB call into a new out (fresh pages) after a {_ms(LONG_PAUSE_S)} pause",
         lambda: _calls(large, None, 3, LONG_PAUSE_S, new_out=True)),
        ("reuse", "a loop of new results of a 4K float64 image (66 MB), no out",
         lambda: _new_results(image, 8)),
    ]


def _switch(mechanism, on, reuse_cap):
    """The mechanism on or off (reuse: the cap the run found, or 0)."""
    from fastclip import _ufunc
    if mechanism == "reuse":
        _ufunc.set_reuse_bytes(reuse_cap if on else 0)
    else:
        _ufunc.pool_modes(**{mechanism: on})


def pool(repeats, progress=None):
    """Rows of {mechanism, case, threads, seconds {on, off}, spread}; an
    empty list where fastclip has no pool of its own or one CPU."""
    from fastclip import _threads, _ufunc
    all_threads = _threads._available_cpus()
    if not _ufunc.HAVE_THREAD_POOL or all_threads < 2:
        return []
    before = fastclip.get_num_threads()
    cap_before = _ufunc.reuse_cap_bytes()
    reuse_cap = cap_before or (_ufunc.REUSE_DEFAULT_MIB << 20)     # reuse on, as by default
    fastclip.set_num_threads(all_threads)
    rows = []
    try:
        for mechanism, what, case in _cases(np.random.default_rng(4)):
            if progress is not None:
                print(f"[pool] {mechanism}", file=progress, flush=True)
            samples = {"on": [], "off": []}
            case()                          # pages touched, helpers started
            for r in range(repeats):
                for state in (("on", "off") if r % 2 == 0 else ("off", "on")):
                    _switch(mechanism, state == "on", reuse_cap)
                    try:
                        samples[state].append(case())
                    finally:
                        _switch(mechanism, True, reuse_cap)
            rows.append({"mechanism": mechanism, "case": what, "threads": all_threads,
                         "seconds": {k: statistics.median(v) for k, v in samples.items()},
                         "spread": {"off/on": ratio_spread(samples, "off", "on")}})
    finally:
        fastclip.set_num_threads(before)
        _ufunc.set_reuse_bytes(cap_before)
    return rows
