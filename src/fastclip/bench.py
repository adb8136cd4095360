"""``python -m fastclip bench``: fastclip against np.clip, np.copyto and torch.clamp.

Cases come from the dtype table (fastclip/_dtypes.py) x sizes x layouts. Each
figure is the median of repeats, the contenders interleaved (A B A B ...) in one
process, so a noisy shared machine slows both alike; the table reports ratios.
"""

import argparse
import json
import os
import platform
import statistics
import sys
import time

import numpy as np

import fastclip
from fastclip._config import config
from fastclip._dtypes import DTYPES, numpy_dtype

SIZES_FULL = (16, 1_000, 100_000, 2**24)
SIZES_QUICK = (16, 1_000, 100_000)
LAYOUTS_FULL = ("new", "out", "inplace", "strided", "2d-noncontig")
LAYOUTS_QUICK = ("new", "out")

# bounds per kind: about a third of the values are clipped on each side
BOUNDS = {"int": (-40, 40), "uint": (60, 190), "float": (-0.5, 0.5)}


def _data(dtype, n, rng):
    """n values of dtype, a third below lo, a third above hi."""
    if dtype.kind == "u":
        return rng.integers(0, 256, n).astype(dtype)
    if dtype.kind == "i":
        return rng.integers(-128, 128, n).astype(dtype)
    return rng.uniform(-1.5, 1.5, n).astype(np.float32).astype(dtype)


def _bounds(dtype):
    if dtype.kind == "u":
        return BOUNDS["uint"]
    if dtype.kind == "i":
        return BOUNDS["int"]
    return BOUNDS["float"]


def _torch_dtype(torch, dtype):
    if dtype.name in ("bfloat16", "float8_e4m3fn", "float8_e5m2"):
        return getattr(torch, dtype.name, None)
    return getattr(torch, {"float64": "float64", "float32": "float32", "float16": "float16",
                           "int8": "int8", "uint8": "uint8", "int16": "int16",
                           "int32": "int32", "int64": "int64", "uint16": "uint16",
                           "uint32": "uint32", "uint64": "uint64"}[dtype.name], None)


def _to_torch(torch, arr):
    if arr.dtype.name in ("bfloat16", "float8_e4m3fn", "float8_e5m2"):
        # torch does not read ml_dtypes arrays: the bits, then its own dtype
        bits = arr.view(np.int16 if arr.dtype.itemsize == 2 else np.int8)
        return torch.from_numpy(bits).view(_torch_dtype(torch, arr.dtype))
    return torch.from_numpy(arr)


def make_case(row, n, layout, rng, torch=None):
    """The callables to time for one case: {name: zero-argument function}."""
    dtype = numpy_dtype(row)
    lo, hi = _bounds(dtype)
    if layout == "strided":
        base = _data(dtype, 2 * n, rng)
        a = base[::2]
    elif layout == "2d-noncontig":
        cols = max(1, int(np.sqrt(n)))
        rows = -(-n // cols)
        base = _data(dtype, rows * 2 * cols, rng).reshape(rows, 2 * cols)
        a = base[:, ::2]
    else:
        a = _data(dtype, n, rng)
    out = np.empty(a.shape, dtype)
    target = a if layout == "inplace" else out
    fc, npc = fastclip.clip, np.clip
    if layout == "new" or layout in ("strided", "2d-noncontig"):
        funcs = {"fastclip": lambda: fc(a, lo, hi), "np.clip": lambda: npc(a, lo, hi)}
    else:
        funcs = {"fastclip": lambda: fc(a, lo, hi, out=target),
                 "np.clip": lambda: npc(a, lo, hi, out=target)}
    copy_src = a.copy() if layout in ("new", "out", "inplace") else a
    funcs["np.copyto"] = lambda: np.copyto(out, copy_src)
    if torch is not None and _torch_dtype(torch, dtype) is not None:
        try:
            ta, tout = _to_torch(torch, a), _to_torch(torch, out)
            ttarget = ta if layout == "inplace" else tout
            torch.clamp(ta, lo, hi, out=ttarget)
            if layout in ("new", "strided", "2d-noncontig"):
                funcs["torch.clamp"] = lambda: torch.clamp(ta, lo, hi)
            else:
                funcs["torch.clamp"] = lambda: torch.clamp(ta, lo, hi, out=ttarget)
        except (RuntimeError, TypeError, ValueError):
            pass   # torch has no clamp for this dtype/layout
    return funcs


def _calibrate(f, min_seconds):
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
    """Median seconds per call of each function, samples taken A B C A B C ..."""
    numbers = {k: _calibrate(f, min_seconds) for k, f in funcs.items()}
    samples = {k: [] for k in funcs}
    for _ in range(repeats):
        for k, f in funcs.items():
            n = numbers[k]
            t0 = time.perf_counter()
            for _ in range(n):
                f()
            samples[k].append((time.perf_counter() - t0) / n)
    return {k: statistics.median(v) for k, v in samples.items()}


# ---------------------------------------------------------------------------
# Every call a user makes (issue 10): bounds of every kind, where=, N-d views,
# scalars and sequences. One thread each side (torch too).

CALL_N = 100_000


def _row(name):
    return next(r for r in DTYPES if r.name == name or numpy_dtype(r).name == name)


def _array_bounds_cases(dtype, rng, torch):
    """(name, funcs) for per-element bounds, n=1e5, out=."""
    lo_v, hi_v = _bounds(dtype)
    x = _data(dtype, CALL_N, rng)
    out = np.empty_like(x)
    lo = np.full(CALL_N, lo_v, dtype)
    lo[::3] = _data(dtype, len(lo[::3]), rng).clip(lo_v, hi_v) if dtype.kind in "iu" else lo_v
    hi = np.full(CALL_N, hi_v, dtype)
    x2 = x.reshape(1000, 100)
    out2 = out.reshape(1000, 100)
    cases = [("bounds both arrays", x, lo, hi, out),
             ("bounds lo scalar, hi array", x, dtype.type(lo_v), hi, out),
             ("bounds (1000,100) vs (100,)", x2, lo[:100], hi[:100], out2),
             ("bounds (1000,100) vs (1000,1)", x2, lo[:1000, None], hi[:1000, None], out2)]
    for name, a, l, h, o in cases:
        np_out = None if dtype.name == "bfloat16" else o      # NumPy: float32 result
        funcs = {"fastclip": lambda a=a, l=l, h=h, o=o: fastclip.clip(a, l, h, out=o),
                 "np.clip": lambda a=a, l=l, h=h, o=np_out: np.clip(a, l, h, out=o)}
        if torch is not None and _torch_dtype(torch, dtype) is not None:
            def tensor(v, shape=a.shape):
                return _to_torch(torch, np.ascontiguousarray(np.broadcast_to(np.asarray(v, dtype), shape)))
            ta, tl, th, to = _to_torch(torch, a), tensor(l, np.shape(l)), tensor(h, np.shape(h)), _to_torch(torch, o)
            try:
                torch.clamp(ta, tl, th, out=to)
                funcs["torch.clamp"] = lambda ta=ta, tl=tl, th=th, to=to: torch.clamp(ta, tl, th, out=to)
            except (RuntimeError, TypeError):
                pass
        yield name, funcs


def _where_cases(dtype, rng):
    lo, hi = _bounds(dtype)
    x = _data(dtype, CALL_N, rng)
    out = np.zeros_like(x)
    for p in (0.5, 0.95):
        mask = rng.random(CALL_N) < p
        yield (f"where= {int(p * 100)}% true, out=",
               {"fastclip": lambda m=mask: fastclip.clip(x, lo, hi, out=out, where=m),
                "np.clip": lambda m=mask: np.clip(x, lo, hi, out=out, where=m)})


def _nd_cases(dtype, rng):
    """N-d views, each beside np.copyto of the same view into the same kind
    of destination: what moving those elements costs without clipping."""
    lo, hi = _bounds(dtype)
    base3 = _data(dtype, 64 * 128 * 128, rng).reshape(64, 128, 128)
    base4 = _data(dtype, 16 * 16 * 64 * 64, rng).reshape(16, 16, 64, 64)
    t3 = np.empty(base3.shape[::-1], dtype).T
    t4 = np.empty(base4.shape[::-1], dtype).T
    inplace = base3.copy()[::-1, :, ::3]
    other = base3.copy()[::-1, :, ::3]          # the same strides elsewhere
    v3, v4 = base3[:, ::2, ::2], base4[::2, :, ::2, 1:]
    n3, n4 = np.empty(v3.shape, dtype), np.empty(v4.shape, dtype)
    views = [("3-D x[:, ::2, ::2], new", lambda c: c(v3, lo, hi), lambda: np.copyto(n3, v3)),
             ("4-D x[::2, :, ::2, 1:], new", lambda c: c(v4, lo, hi), lambda: np.copyto(n4, v4)),
             ("3-D, out= transposed view", lambda c: c(base3, lo, hi, out=t3),
              lambda: np.copyto(t3, base3)),
             ("4-D, out= transposed view", lambda c: c(base4, lo, hi, out=t4),
              lambda: np.copyto(t4, base4)),
             ("3-D x[::-1, :, ::3], in place", lambda c: c(inplace, lo, hi, out=inplace),
              lambda: np.copyto(other, inplace))]
    for name, f, copy in views:
        yield name, {"fastclip": lambda f=f: f(fastclip.clip), "np.clip": lambda f=f: f(np.clip),
                     "np.copyto": copy}


def _scalar_cases():
    ints16, floats16 = list(range(16)), tuple(float(i) for i in range(16))
    cases = [("Python float", lambda c: c(1.5, 0.0, 1.0)),
             ("Python int", lambda c: c(7, 0, 5)),
             ("np.float64 scalar", lambda c: c(np.float64(1.5), -1.0, 1.0)),
             ("np.float32 scalar", lambda c: c(np.float32(3.0), 0, 1)),
             ("0-d float64 array", lambda c, z=np.array(1.5): c(z, 0, 1)),
             ("list of 16 ints", lambda c: c(ints16, 3, 9)),
             ("tuple of 16 floats", lambda c: c(floats16, 3.0, 9.0))]
    for name, f in cases:
        yield name, {"fastclip": lambda f=f: f(fastclip.clip), "np.clip": lambda f=f: f(np.clip)}


def _other_calls_cases(rng):
    """The rest of np.clip's surface: keywords, a missing bound, bounds of
    another dtype, arrays without a kernel, outs of another dtype; each at
    n=16 (the dispatch) and 1e5. None may be slower than np.clip."""
    import ml_dtypes

    for n in (16, CALL_N):
        x = _data(np.dtype(np.float32), n, rng)
        xi = _data(np.dtype(np.int32), n, rng)
        mask = rng.random(n) < 0.5
        lo64, hi64 = np.full(n, -0.5), np.full(n, 0.5)
        out32, out64 = np.empty(n, np.float32), np.empty(n, np.float64)
        half = x.astype(np.float16)
        bf = x.astype(ml_dtypes.bfloat16)
        lo32 = np.full(n, -0.5, np.float32)
        cases = [
            ("min=, max= keywords", lambda c: c(x, min=-0.5, max=0.5)),
            ("hi None (np.minimum)", lambda c: c(x, None, 0.5)),
            ("where= 50% true, no out", lambda c: c(x, -0.5, 0.5, where=mask)),
            ("dtype=float64", lambda c: c(x, -0.5, 0.5, dtype=np.float64)),
            ("casting='unsafe', out=", lambda c: c(x, -0.5, 0.5, out=out32, casting="unsafe")),
            ("float64 array bounds", lambda c: c(x, lo64, hi64)),
            ("np.float64 scalar bounds", lambda c: c(x, np.float64(-0.5), np.float64(0.5))),
            ("int32, Python float bounds", lambda c: c(xi, -40.5, 40.5)),
            ("bool array", lambda c: c(mask, False, True)),
            ("out= float64 (float32 x)", lambda c: c(x, -0.5, 0.5, out=out64)),
            ("out= float64 (float16 x)", lambda c: c(half, -0.5, 0.5, out=out64)),
            ("bfloat16, float32 array bound", lambda c: c(bf, lo32, 0.5)),
        ]
        for name, f in cases:
            yield (f"{name}, n={n}" if n != CALL_N else name,
                   {"fastclip": lambda f=f: f(fastclip.clip), "np.clip": lambda f=f: f(np.clip)})


FRESH_N = 2**24


def _fresh_memory_cases(dtype, rng):
    """Results in memory never touched before (a new result, out=np.empty of
    64 MiB, which malloc takes from mmap): page faults, not the loop, set the
    pace, and streaming stores would lose (csrc/stream.h)."""
    lo, hi = _bounds(dtype)
    x = _data(dtype, FRESH_N, rng)
    yield ("2**24, new result", {"fastclip": lambda: fastclip.clip(x, lo, hi),
                                 "np.clip": lambda: np.clip(x, lo, hi)})
    yield ("2**24, out=np.empty(...)",
           {"fastclip": lambda: fastclip.clip(x, lo, hi, out=np.empty_like(x)),
            "np.clip": lambda: np.clip(x, lo, hi, out=np.empty_like(x))})


CALL_DTYPES = {
    "array bounds": ("float32", "float64", "int32", "uint8", "float16", "bfloat16"),
    "where=": ("float32", "float64", "uint8", "float16"),
    "N-d views": ("float32", "uint8", "float16"),
    "fresh memory": ("float32", "float64", "int16"),
}


def call_cases(torch=None):
    """(group, dtype name, case name, funcs) for every call of the section."""
    rng = np.random.default_rng(4)
    for name in CALL_DTYPES["array bounds"]:
        for case, funcs in _array_bounds_cases(numpy_dtype(_row(name)), rng, torch):
            yield "array bounds", name, case, funcs
    for name in CALL_DTYPES["where="]:
        for case, funcs in _where_cases(numpy_dtype(_row(name)), rng):
            yield "where=", name, case, funcs
    for name in CALL_DTYPES["N-d views"]:
        for case, funcs in _nd_cases(numpy_dtype(_row(name)), rng):
            yield "N-d views", name, case, funcs
    for case, funcs in _scalar_cases():
        yield "scalars and sequences", "-", case, funcs
    for case, funcs in _other_calls_cases(rng):
        yield "other calls", "float32", case, funcs
    for name in CALL_DTYPES["fresh memory"]:
        for case, funcs in _fresh_memory_cases(numpy_dtype(_row(name)), rng):
            yield "fresh memory", name, case, funcs


SWEEP_DTYPES = ("float16", "float32", "float64", "uint8", "bfloat16")
SWEEP_DISTANCES = (0, 32, 64, 128, 256, 1024, 4064)


def sweep_case(dtype, distance, n=CALL_N):
    """x and out n elements each, out starting `distance` bytes past a 4 KiB
    multiple of x's start (out - x = k * 4096 + distance, no overlap)."""
    nbytes = n * dtype.itemsize
    buf = np.empty(2 * nbytes + 4 * 4096, np.uint8)
    start = -buf.ctypes.data % 4096
    x = buf[start:start + nbytes].view(dtype)
    x[...] = _data(dtype, n, np.random.default_rng(5))
    out_start = start + (nbytes + 4095) // 4096 * 4096 + 4096 + distance
    out = buf[out_start:out_start + nbytes].view(dtype)
    lo, hi = _bounds(dtype)
    return {"fastclip": lambda: fastclip.clip(x, lo, hi, out=out),
            "np.copyto": lambda: np.copyto(out, x)}


def calls_section(torch, repeats, min_seconds, progress=None):
    rows, sweep = [], []
    torch_threads = torch.get_num_threads() if torch is not None else None
    before = fastclip.get_num_threads()
    fastclip.set_num_threads(1)
    if torch is not None:
        torch.set_num_threads(1)
    try:
        for group, dtype, case, funcs in call_cases(torch):
            if progress is not None:
                print(f"[calls] {group}: {dtype} {case}", file=progress, flush=True)
            rows.append({"group": group, "dtype": dtype, "case": case,
                         "seconds": time_interleaved(funcs, repeats, min_seconds)})
        for name in SWEEP_DTYPES:
            dtype = numpy_dtype(_row(name))
            if progress is not None:
                print(f"[address sweep] {name}", file=progress, flush=True)
            for d in SWEEP_DISTANCES:
                sweep.append({"dtype": name, "distance": d,
                              "seconds": time_interleaved(sweep_case(dtype, d), repeats, min_seconds)})
    finally:
        fastclip.set_num_threads(before)
        if torch is not None:
            torch.set_num_threads(torch_threads)
    return rows, sweep


# ---------------------------------------------------------------------------
# Clip and convert (issue 12): out of another dtype, n = 1e5, one thread each
# side, the bounds at the destination's range (a saturating conversion).

def convert_cases(torch=None, n=CALL_N):
    from fastclip._dtypes import CONVERSIONS, FLOAT8
    rng = np.random.default_rng(4)
    rows = {r.name: numpy_dtype(r) for r in DTYPES}
    for src_name, dst_name in CONVERSIONS:
        src, dst = rows[src_name], rows[dst_name]
        if dst.kind in "iu":
            info = np.iinfo(dst)
            lo, hi = int(info.min), int(info.max)
            scale = (hi - lo) * 0.4
        elif dst_name in FLOAT8:
            hi = FLOAT8[dst_name][3]
            lo, scale = -hi, hi / 2
        elif dst.itemsize < src.itemsize:
            lo, hi, scale = -65504.0, 65504.0, 3e4     # within float16's and bfloat16's range
        else:
            lo, hi, scale = -100, 100, 60               # widening
        if src.kind in "iu":
            s = np.iinfo(src)
            x = np.clip(rng.normal(size=n) * scale + (lo + hi) / 2, s.min, s.max).astype(src)
            lo, hi = max(lo, int(s.min)), min(hi, int(s.max))
        else:
            x = (rng.normal(size=n) * scale + (lo + hi) / 2).astype(src)
        out = np.empty(n, dst)
        copy_dst = np.empty_like(x)
        funcs = {"fastclip": lambda x=x, lo=lo, hi=hi, out=out: fastclip.clip(
                     x, lo, hi, out=out, casting="unsafe"),
                 "np.clip": lambda x=x, lo=lo, hi=hi, out=out: np.clip(
                     x, lo, hi, out=out, casting="unsafe"),
                 "np.copyto": lambda x=x, c=copy_dst: np.copyto(c, x)}
        if torch is not None and src.name != "bfloat16":
            td = _torch_dtype(torch, dst)
            tx = torch.from_numpy(x)
            peer = lambda tx=tx, lo=lo, hi=hi, td=td: torch.clamp(tx, lo, hi).to(td)  # noqa: E731
            try:
                peer()
            except (RuntimeError, NotImplementedError, TypeError, AttributeError):
                peer = None         # torch has no clamp for this source (uint16)
            if td is not None and peer is not None:
                funcs["torch.clamp"] = peer
        # int64 has two rows ('l' and 'q', distinct type numbers): name the second
        label = f"{src.name}{' (q)' if src_name == 'longlong' else ''}->{dst.name}"
        yield label, funcs


def convert_section(torch, repeats, min_seconds, progress=None):
    rows = []
    torch_threads = torch.get_num_threads() if torch is not None else None
    before = fastclip.get_num_threads()
    fastclip.set_num_threads(1)
    if torch is not None:
        torch.set_num_threads(1)
    try:
        for pair, funcs in convert_cases(torch):
            if progress is not None:
                print(f"[convert] {pair}", file=progress, flush=True)
            rows.append({"pair": pair, "n": CALL_N,
                         "seconds": time_interleaved(funcs, repeats, min_seconds)})
    finally:
        fastclip.set_num_threads(before)
        if torch is not None:
            torch.set_num_threads(torch_threads)
    return rows


SCALE_DTYPES = ("float32", "float64", "ubyte", "bfloat16")
SCALE_N = 2**24


def _with_threads(n, f):
    def run():
        fastclip.set_num_threads(n)
        return f()
    return run


def threads_section(torch, repeats, progress=None):
    """2**24 elements: fastclip on one thread and on all, np.clip, np.copyto
    and torch.clamp with its default threads, out= and in place."""
    from fastclip import _threads
    rows = []
    all_threads = _threads._available_cpus()
    rng = np.random.default_rng(1)
    before = fastclip.get_num_threads()
    try:
        for name in SCALE_DTYPES:
            row = next(r for r in DTYPES if r.name == name or numpy_dtype(r).name == name)
            for layout in ("out", "inplace"):
                if progress is not None:
                    print(f"[threads] {name} {layout}", file=progress, flush=True)
                case = make_case(row, SCALE_N, layout, rng, torch)
                funcs = {"fastclip 1 thread": _with_threads(1, case["fastclip"]),
                         f"fastclip {all_threads} threads": _with_threads(all_threads, case["fastclip"]),
                         "np.clip": case["np.clip"], "np.copyto": case["np.copyto"]}
                if "torch.clamp" in case:
                    funcs["torch.clamp"] = case["torch.clamp"]
                rows.append({"dtype": numpy_dtype(row).name, "n": SCALE_N, "layout": layout,
                             "threads": all_threads,
                             "seconds": time_interleaved(funcs, repeats, 0.02)})
    finally:
        fastclip.set_num_threads(before)
    return rows


IDLE_SIZES = (2**18, 2**20, 2**22, 2**24)
IDLE_GAPS_MS = (0, 2, 20, 50)


def idle_section(torch, repeats, sizes=IDLE_SIZES, gaps_ms=IDLE_GAPS_MS, series=16,
                 progress=None):
    """Large calls after idle time (issue 11): float32 out=, a hot loop that
    does other work (here a sleep of `gap` ms) between its clips. Each
    contender runs series of `series` calls, the gap before each, and the
    first call of a series is not counted (it follows another contender's
    calls, not the contender's own): 15 counted calls, as issue 11 measured.
    The contenders take turns series by series, in reversed order every other
    turn (torch.clamp after them, see below). The figure is the median of the
    counted calls of `repeats` series. Gap 0 is back to back."""
    from fastclip import _threads
    all_threads = _threads._available_cpus()
    rng = np.random.default_rng(3)
    rows = []
    before = fastclip.get_num_threads()

    def run_series(f, gap):
        times = []
        for _ in range(series):
            if gap:
                time.sleep(gap / 1000)
            t0 = time.perf_counter()
            f()
            times.append(time.perf_counter() - t0)
        return times[1:]

    try:
        for n in sizes:
            x = rng.normal(size=n).astype(np.float32)
            out = np.empty_like(x)
            clip_out = lambda: fastclip.clip(x, -0.5, 0.5, out=out)  # noqa: E731
            funcs = {f"fastclip {all_threads} threads": _with_threads(all_threads, clip_out),
                     "fastclip 1 thread": _with_threads(1, clip_out),
                     "np.clip": lambda: np.clip(x, -0.5, 0.5, out=out)}
            peer = {}
            if torch is not None:
                tx, tout = torch.from_numpy(x), torch.from_numpy(out)
                peer["torch.clamp"] = lambda: torch.clamp(tx, -0.5, 0.5, out=tout)
            for gap in gaps_ms:
                if progress is not None:
                    print(f"[idle] n=2**{n.bit_length() - 1} gap {gap} ms", file=progress, flush=True)
                samples = {k: [] for k in {**funcs, **peer}}
                for r in range(repeats):
                    for k in (list(funcs) if r % 2 == 0 else list(funcs)[::-1]):
                        samples[k] += run_series(funcs[k], gap)
                # torch.clamp on its own afterwards: its OpenMP workers spin
                # for about 10 ms after each call, on the cores fastclip's
                # helpers would use, which a loop calling only one of the two
                # does not see
                for k, f in peer.items():
                    for r in range(repeats):
                        samples[k] += run_series(f, gap)
                rows.append({"n": n, "gap_ms": gap, "threads": all_threads,
                             "seconds": {k: statistics.median(v) for k, v in samples.items()}})
    finally:
        fastclip.set_num_threads(before)
    return rows


def concurrency_row(repeats, calls=100, n=2**18):
    """Two Python threads, each clipping its own arrays, against the same
    calls one after the other (fastclip releases the GIL). 1 MiB arrays: big
    enough that handing the GIL over (a thread wake-up, slow on a VM) is
    small next to a call, small enough to stay out of the memory bus's way."""
    from concurrent.futures import ThreadPoolExecutor
    rng = np.random.default_rng(2)
    arrays = [rng.normal(size=n).astype(np.float32) for _ in range(2)]
    outs = [np.empty_like(a) for a in arrays]

    def work(i):
        for _ in range(calls):
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
    return {"what": f"2 x {calls} calls, float32 n={n} each, out=", "seconds": t}


def dask_row(repeats):
    """A chunked array on a LocalCluster of 2 worker processes: fastclip.clip
    against dask.array.clip (np.clip per chunk), each computed to a sum so
    only 8 bytes per chunk come back."""
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
        fc = lambda: client.compute(fastclip.clip(x, -0.5, 0.5).sum()).result()  # noqa: E731
        dc = lambda: client.compute(da.clip(x, -0.5, 0.5).sum()).result()  # noqa: E731
        t = time_interleaved({"fastclip.clip": fc, "dask.array.clip": dc}, repeats, 0.2)
    finally:
        client.close()
        cluster.close()
    return {"what": "float32 2**26 in 16 chunks, 2 worker processes, .sum()", "seconds": t}


def system_line(torch):
    c = config()
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    torch_v = f"torch {torch.__version__} ({torch.get_num_threads()} threads)" if torch else "torch not installed"
    return (f"{time.strftime('%Y-%m-%d')} | {cpu}, {os.cpu_count()} CPUs | "
            f"fastclip {c['fastclip']} SIMD {c['simd_target']} (compiled {','.join(c['simd_compiled'])}), "
            f"1 thread in the main table, {c['threads']} in the threads section | "
            f"numpy {c['numpy']} | {torch_v}")


def _fmt_time(s):
    for unit, scale in (("s", 1), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"


def run(quick=False, dtypes=None, sizes=None, layouts=None, repeats=None, use_torch=True,
        progress=sys.stderr, scale=True, calls=True):
    try:
        import torch  # noqa: F401
        torch = torch if use_torch else None
    except ImportError:
        torch = None
    rows = [r for r in DTYPES if dtypes is None or r.name in dtypes or numpy_dtype(r).name in dtypes]
    sizes = sizes or (SIZES_QUICK if quick else SIZES_FULL)
    layouts = layouts or (LAYOUTS_QUICK if quick else LAYOUTS_FULL)
    repeats = repeats or (5 if quick else 9)
    min_seconds = 0.002 if quick else 0.01
    rng = np.random.default_rng(0)
    results = []
    total = len(rows) * len(sizes) * len(layouts)
    # The main table is one core against one core (np.clip has no threads);
    # the threads section below measures all of them.
    threads_before = fastclip.get_num_threads()
    fastclip.set_num_threads(1)
    try:
        for i, (row, n, layout) in enumerate(((r, n, l) for r in rows for n in sizes
                                              for l in layouts)):
            if progress is not None:
                print(f"[{i + 1}/{total}] {row.name} n={n} {layout}", file=progress, flush=True)
            times = time_interleaved(make_case(row, n, layout, rng, torch), repeats, min_seconds)
            results.append({"dtype": numpy_dtype(row).name, "row": row.name, "char": row.char,
                            "n": n, "layout": layout, "seconds": times})
    finally:
        fastclip.set_num_threads(threads_before)
    report = {"system": system_line(torch), "config": config(), "repeats": repeats,
              "results": results}
    if calls:
        report["calls"], report["address_sweep"] = calls_section(torch, repeats, min_seconds,
                                                                 progress)
        report["convert"] = convert_section(torch, repeats, min_seconds, progress)
    if scale:
        report["threads"] = threads_section(torch, repeats, progress)
        if progress is not None:
            print("[concurrency]", file=progress, flush=True)
        report["concurrency"] = concurrency_row(repeats)
        if not quick:
            report["idle"] = idle_section(torch, repeats, progress=progress)
            if progress is not None:
                print("[dask]", file=progress, flush=True)
            report["dask"] = dask_row(max(3, repeats // 2))
    return report


def format_table(report):
    if not report["results"]:
        return _format_sections(report, [report["system"]])
    lines = [report["system"], "",
             f"{'dtype':<13} {'(row)':<13} {'n':>9} {'layout':<13} {'fastclip':>10} "
             f"{'np.clip':>10} {'speedup':>8} {'vs copyto':>9} {'torch':>10} {'vs torch':>8}"]
    for r in report["results"]:
        t = r["seconds"]
        fc, npc, cp = t["fastclip"], t["np.clip"], t["np.copyto"]
        th = t.get("torch.clamp")
        lines.append(
            f"{r['dtype']:<13} {r['row']:<13} {r['n']:>9} {r['layout']:<13} {_fmt_time(fc):>10} "
            f"{_fmt_time(npc):>10} {npc / fc:>7.1f}x {fc / cp:>8.2f}x "
            f"{(_fmt_time(th) if th else '-'):>10} {(f'{th / fc:.2f}x' if th else '-'):>8}")
    lines.append("")
    lines.append("speedup = np.clip time / fastclip time; vs copyto = fastclip time / np.copyto "
                 "time of the same array (1.0 = a memory copy's speed); vs torch = torch.clamp "
                 "time / fastclip time. Medians of repeats, interleaved.")
    return _format_sections(report, lines)


def _format_sections(report, lines):
    if report.get("calls"):
        lines += ["", "Every call (one thread each; torch.clamp with tensor bounds; n = 1e5 unless named)",
                  f"{'group':<22} {'dtype':<9} {'case':<32} {'fastclip':>10} {'np.clip':>10} "
                  f"{'speedup':>8} {'torch':>10} {'vs torch':>8}"]
        for r in report["calls"]:
            t = r["seconds"]
            fc, npc, th = t["fastclip"], t["np.clip"], t.get("torch.clamp")
            lines.append(f"{r['group']:<22} {r['dtype']:<9} {r['case']:<32} {_fmt_time(fc):>10} "
                         f"{_fmt_time(npc):>10} {npc / fc:>7.1f}x "
                         f"{(_fmt_time(th) if th else '-'):>10} {(f'{th / fc:.2f}x' if th else '-'):>8}")
    if report.get("convert"):
        lines += ["", "Clip and convert: out of another dtype, casting='unsafe', n = 1e5, one thread "
                  "each; bounds at the destination's range; torch: clamp(x, lo, hi).to(dtype)",
                  f"{'pair':<20} {'fastclip':>10} {'np.clip':>10} {'speedup':>8} {'vs copyto':>9} "
                  f"{'torch':>10} {'vs torch':>8}"]
        for r in report["convert"]:
            t = r["seconds"]
            fc, npc, th = t["fastclip"], t["np.clip"], t.get("torch.clamp")
            lines.append(f"{r['pair']:<20} {_fmt_time(fc):>10} {_fmt_time(npc):>10} "
                         f"{npc / fc:>7.1f}x {fc / t['np.copyto']:>8.2f}x "
                         f"{(_fmt_time(th) if th else '-'):>10} {(f'{th / fc:.2f}x' if th else '-'):>8}")
        lines.append("vs copyto = fastclip time / np.copyto time of the source array.")
    if report.get("address_sweep"):
        dists = list(dict.fromkeys(r["distance"] for r in report["address_sweep"]))
        lines += ["", "Address sweep: n = 1e5 out=, fastclip time / np.copyto time, by the distance "
                  "(out - x) mod 4096 in bytes",
                  f"{'dtype':<10} " + " ".join(f"{d:>6}" for d in dists)]
        for name in dict.fromkeys(r["dtype"] for r in report["address_sweep"]):
            cells = [r["seconds"]["fastclip"] / r["seconds"]["np.copyto"]
                     for r in report["address_sweep"] if r["dtype"] == name]
            lines.append(f"{name:<10} " + " ".join(f"{c:>6.2f}" for c in cells))
    if report.get("threads"):
        lines += ["", f"Threads, n = 2**24 (all = {report['threads'][0]['threads']}; torch.clamp "
                  "with its default threads)",
                  f"{'dtype':<10} {'layout':<8} {'1 thread':>10} {'all':>10} {'np.clip':>10} "
                  f"{'torch':>10} {'all/torch':>9} {'all/np':>7} {'1t vs copyto':>12}"]
        for r in report["threads"]:
            t = r["seconds"]
            one = t["fastclip 1 thread"]
            allt = t[f"fastclip {r['threads']} threads"]
            th = t.get("torch.clamp")
            lines.append(
                f"{r['dtype']:<10} {r['layout']:<8} {_fmt_time(one):>10} {_fmt_time(allt):>10} "
                f"{_fmt_time(t['np.clip']):>10} {(_fmt_time(th) if th else '-'):>10} "
                f"{(f'{th / allt:.2f}x' if th else '-'):>9} {t['np.clip'] / allt:>6.2f}x "
                f"{one / t['np.copyto']:>11.2f}x")
        lines.append("all/torch = torch.clamp time / fastclip (all threads) time; all/np = np.clip "
                     "time / fastclip (all threads) time; 1t vs copyto = fastclip (1 thread) time / "
                     "np.copyto time.")
    if report.get("idle"):
        nt = report["idle"][0]["threads"]
        lines += ["", f"Idle gaps: float32 out=, calls with a pause of the gap before each (a hot loop "
                  f"doing other work); medians. all = fastclip on {nt} threads, torch.clamp with its "
                  "default threads",
                  f"{'n':<6} {'gap':>6} {'all':>10} {'1 thread':>10} {'all/1':>6} {'np.clip':>10} "
                  f"{'torch':>10} {'torch/all':>9}"]
        for r in report["idle"]:
            t = r["seconds"]
            allt, one = t[f"fastclip {r['threads']} threads"], t["fastclip 1 thread"]
            th = t.get("torch.clamp")
            lines.append(f"{'2**' + str(r['n'].bit_length() - 1):<6} {str(r['gap_ms']) + ' ms':>6} "
                         f"{_fmt_time(allt):>10} {_fmt_time(one):>10} {allt / one:>6.2f} "
                         f"{_fmt_time(t['np.clip']):>10} {(_fmt_time(th) if th else '-'):>10} "
                         f"{(f'{th / allt:.2f}x' if th else '-'):>9}")
        lines.append("all/1 = fastclip time on all threads / on one (<= 1: the split never costs); "
                     "torch/all = torch.clamp time / fastclip (all threads) time.")
    for key, title, before, after in (("concurrency", "Concurrency", "sequential", "2 threads"),
                                      ("dask", "Dask", "dask.array.clip", "fastclip.clip")):
        if report.get(key):
            t = report[key]["seconds"]
            lines += ["", f"{title} ({report[key]['what']}): {before} {_fmt_time(t[before])}, "
                      f"{after} {_fmt_time(t[after])} ({t[before] / t[after]:.2f}x)"]
    return "\n".join(lines)


def plot(report, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise SystemExit("--plot needs matplotlib: pip install matplotlib "
                         "(or pip install 'fastclip[bench]')")
    layouts = sorted({r["layout"] for r in report["results"]}, key=LAYOUTS_FULL.index)
    fig, axes = plt.subplots(1, len(layouts), figsize=(4.2 * len(layouts), 4.2), squeeze=False,
                             sharey=True)
    rows = list(dict.fromkeys(r["row"] for r in report["results"]))
    colours = plt.get_cmap("tab20")
    for ax, layout in zip(axes[0], layouts):
        for i, dtype in enumerate(rows):
            pts = [(r["n"], r["seconds"]["np.clip"] / r["seconds"]["fastclip"])
                   for r in report["results"] if r["row"] == dtype and r["layout"] == layout]
            ax.plot(*zip(*pts), marker="o", label=dtype, color=colours(i % 20),
                    linestyle="-" if i < 10 else "--")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.axhline(1, color="gray", lw=0.8)
        ax.set_title(layout)
        ax.set_xlabel("elements")
    axes[0][0].set_ylabel("speedup over np.clip")
    axes[0][-1].legend(fontsize=7, ncol=2)
    fig.suptitle(report["system"], fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m fastclip bench", description=__doc__)
    p.add_argument("--quick", action="store_true", help="a short run (sizes to 1e5, new and out=)")
    p.add_argument("--dtypes", help="comma-separated dtype or row names (default: all)")
    p.add_argument("--sizes", help="comma-separated element counts")
    p.add_argument("--layouts", help="comma-separated: " + ",".join(LAYOUTS_FULL))
    p.add_argument("--repeats", type=int, help="samples per contender (median is reported)")
    p.add_argument("--no-torch", action="store_true", help="leave torch.clamp out")
    p.add_argument("--no-scale", action="store_true",
                   help="leave out the threads, idle-gap, concurrency and Dask sections")
    p.add_argument("--idle", action="store_true",
                   help="only the idle-gap section (large calls after idle time)")
    p.add_argument("--convert", action="store_true",
                   help="only the clip-and-convert section (out of another dtype)")
    p.add_argument("--no-calls", action="store_true",
                   help="leave out the every-call section and the address sweep")
    p.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    p.add_argument("--plot", metavar="FILE.png", help="also plot the speedups (needs matplotlib)")
    args = p.parse_args(argv)
    layouts = tuple(args.layouts.split(",")) if args.layouts else None
    if layouts and not set(layouts) <= set(LAYOUTS_FULL):
        p.error(f"unknown layout in {args.layouts!r}; choose from {', '.join(LAYOUTS_FULL)}")
    if args.convert or args.idle:
        # one section alone
        try:
            import torch
        except ImportError:
            torch = None
        torch = None if args.no_torch else torch
        repeats = args.repeats or 9
        if args.convert:
            section = {"convert": convert_section(torch, repeats, 0.01, progress=sys.stderr)}
        else:
            section = {"idle": idle_section(torch, repeats, progress=sys.stderr)}
        report = {"system": system_line(torch), "results": [], **section}
    else:
        report = run(quick=args.quick,
                     dtypes=set(args.dtypes.split(",")) if args.dtypes else None,
                     sizes=tuple(int(s) for s in args.sizes.split(",")) if args.sizes else None,
                     layouts=layouts, repeats=args.repeats, use_torch=not args.no_torch,
                     scale=not args.no_scale, calls=not args.no_calls)
    print(format_table(report))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    if args.plot and report["results"]:
        plot(report, args.plot)
    return 0
