"""Timing side by side: each contender's median over interleaved repeats.

The machines this runs on are shared and noisy, so contenders are timed in
turns in one process: a slow moment slows all of them alike, and the report
gives ratios of medians. The turns rotate (A B C, B C A, C A B, ...) so that
no contender always follows the same one: a contender that frees a large
result hands its pages, still in the cache, to the next one's new result,
and in fixed turns that favoured whoever came second (np.clip, after
fastclip: uint16 2**24 new 0.90-0.93x in fixed turns).
"""

import statistics
import time


def calibrate(f, min_seconds):
    """Calls of f that take at least min_seconds together."""
    number = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(number):
            f()
        elapsed = time.perf_counter() - t0
        if elapsed >= min_seconds or number >= 1 << 20:
            return number
        number *= 2 if elapsed == 0 else max(2, int(min_seconds / elapsed * 1.2))


def time_interleaved(funcs, repeats, min_seconds):
    """{name: median seconds a call} of funcs ({name: zero-argument function})."""
    numbers = {k: calibrate(f, min_seconds) for k, f in funcs.items()}
    samples = {k: [] for k in funcs}
    names = list(funcs)
    for r in range(repeats):
        for k in names[r % len(names):] + names[:r % len(names)]:
            f, n = funcs[k], numbers[k]
            t0 = time.perf_counter()
            for _ in range(n):
                f()
            samples[k].append((time.perf_counter() - t0) / n)
    return {k: statistics.median(v) for k, v in samples.items()}


def with_threads(n, f):
    """f, run with fastclip set to n threads."""
    import fastclip

    def run():
        fastclip.set_num_threads(n)
        return f()
    return run
