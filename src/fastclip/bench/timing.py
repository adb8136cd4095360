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
    """Calls of f that take at least min_seconds together. f is called once
    first: a first call's one-time cost (a probe, an import, a cache filled)
    is no call's cost, and counted here it left a batch of one call, whose
    timing the next calls' own warm-up then filled."""
    number = 1
    _before_batch(f)()
    f()
    while True:
        t0 = time.perf_counter()
        for _ in range(number):
            f()
        elapsed = time.perf_counter() - t0
        if elapsed >= min_seconds or number >= 1 << 20:
            return number
        number *= 2 if elapsed == 0 else max(2, int(min_seconds / elapsed * 1.2))


def _sample_rounds(funcs, numbers, samples, first, last):
    """Rounds first..last-1 of the rotating turns, each contender's time a
    call appended to samples[name]."""
    names = list(funcs)
    for r in range(first, last):
        for k in names[r % len(names):] + names[:r % len(names)]:
            f, n = funcs[k], numbers[k]
            _before_batch(f)()
            t0 = time.perf_counter()
            for _ in range(n):
                f()
            samples[k].append((time.perf_counter() - t0) / n)


def time_interleaved(funcs, repeats, min_seconds):
    """{name: median seconds a call} of funcs ({name: zero-argument function})."""
    numbers = {k: calibrate(f, min_seconds) for k, f in funcs.items()}
    samples = {k: [] for k in funcs}
    _sample_rounds(funcs, numbers, samples, 0, repeats)
    return {k: statistics.median(v) for k, v in samples.items()}


#: a ratio's spread is known when its 10th-90th percentile range is within
#: this share of its median, or the repeats reach SPREAD_MAX_FACTOR times
#: the run's
SPREAD_SETTLED = 0.10
SPREAD_MAX_FACTOR = 3


def ratio_spread(samples, numerator, denominator):
    """[10th percentile, median, 90th percentile] of the ratio numerator /
    denominator round by round (the two timed in one round, minutes apart at
    most from each other's samples: the host's drift falls on both)."""
    ratios = [a / b for a, b in zip(samples[numerator], samples[denominator])]
    if len(ratios) < 2:
        return [ratios[0]] * 3
    deciles = statistics.quantiles(ratios, n=10, method="inclusive")
    return [deciles[0], statistics.median(ratios), deciles[-1]]


def _settled(spread):
    low, mid, high = spread
    return high - low <= SPREAD_SETTLED * mid


def time_with_spread(funcs, repeats, min_seconds, ratios):
    """time_interleaved's medians, and for each of ratios ({label: (numerator,
    denominator)}, names of funcs) its ratio_spread; rounds are added, up to
    SPREAD_MAX_FACTOR times repeats, until every spread is settled: for the
    figures that move with the host (threads, programs)."""
    numbers = {k: calibrate(f, min_seconds) for k, f in funcs.items()}
    samples = {k: [] for k in funcs}
    done = 0
    while True:
        step = repeats if done == 0 else max(1, repeats // 2)
        _sample_rounds(funcs, numbers, samples, done, done + step)
        done += step
        spreads = {label: ratio_spread(samples, a, b) for label, (a, b) in ratios.items()}
        if done >= SPREAD_MAX_FACTOR * repeats or all(map(_settled, spreads.values())):
            break
    return {k: statistics.median(v) for k, v in samples.items()}, spreads, done


def after_a_pause(f, pause_s):
    """f, each batch of whose calls starts after pause_s and one call not
    timed (the one that wakes its threads): a contender's own pace on all
    threads, not its pace on cores the one before it left spinning."""
    prepare = _before_batch(f)

    def run():
        return f()

    def before_batch():
        prepare()
        time.sleep(pause_s)
        f()
    run.before_batch = before_batch
    return run


def with_threads(n, f, openmp=False):
    """f, to run with fastclip set to n threads (split by one OpenMP loop,
    the simple design, with openmp): a copy of it whose before_batch, which
    time_interleaved and calibrate call before each batch of calls, sets
    them: set in every call, they would cost as much as a small call itself."""
    import fastclip
    from fastclip import _ufunc

    if isinstance(f, types.FunctionType):
        g = types.FunctionType(f.__code__, f.__globals__, f.__name__, f.__defaults__, f.__closure__)
    else:
        def g():
            return f()
    def before_batch():
        fastclip.set_num_threads(n)
        _ufunc.pool_modes(openmp=openmp)
    g.before_batch = before_batch
    return g
