"""Timing side by side: each contender's median over interleaved repeats.

The machines this runs on are shared and noisy, so contenders are timed in
turns in one process: a slow moment slows all of them alike, and the report
gives ratios of medians. The turns rotate (A B C, B C A, C A B, ...) so that
no contender always follows the same one: a contender that frees a large
result hands its pages, still in the cache, to the next one's new result,
and in fixed turns that favoured whoever came second.
"""

import statistics
import time
import types


def _before_batch(f):
    """What to run before a batch of calls of f (with_threads sets one)."""
    return getattr(f, "before_batch", None) or (lambda: None)


def calibrate(f, min_seconds):
    """Calls of f that take at least min_seconds together."""
    number = 1
    _before_batch(f)()
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
            _before_batch(f)()
            t0 = time.perf_counter()
            for _ in range(n):
                f()
            samples[k].append((time.perf_counter() - t0) / n)
    return {k: statistics.median(v) for k, v in samples.items()}


def with_threads(n, f):
    """f, to run with fastclip set to n threads: a copy of it whose
    before_batch, which time_interleaved and calibrate call before each batch
    of calls, sets them: set in every call, they would cost as much as a
    small call itself."""
    import fastclip

    if isinstance(f, types.FunctionType):
        g = types.FunctionType(f.__code__, f.__globals__, f.__name__, f.__defaults__, f.__closure__)
    else:
        def g():
            return f()
    g.before_batch = lambda: fastclip.set_num_threads(n)
    return g
