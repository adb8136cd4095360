"""The benchmark's cases, from the dtype table (fastclip/_dtypes.py): each a
{contender: zero-argument function} computing the same call, fastclip and
np.clip first, then np.copyto (the memory-copy limit) and the peers that have
the call.
"""

import numpy as np

import fastclip
from fastclip._dtypes import CONVERSIONS, DTYPES, FLOAT8, numpy_dtype

SIZES_FULL = (16, 1_000, 100_000, 2**24)
SIZES_QUICK = (16, 100_000)
LAYOUTS_FULL = ("new", "out", "inplace", "strided", "2d-noncontig")
LAYOUTS_QUICK = ("out",)

#: bounds by kind: about a third of the values are clipped on each side
BOUNDS = {"int": (-40, 40), "uint": (60, 190), "float": (-0.5, 0.5)}

#: n of the every-call, clip-and-convert and address-sweep sections
CALL_N = 100_000


def label(row):
    """A row's name in the tables: its NumPy dtype's, and for the second
    int64/uint64 row (type codes q/Q, a distinct NumPy type of equal width)
    that name with the code."""
    name = numpy_dtype(row).name
    return f"{name} ({row.char})" if row.char in ("q", "Q") else name


def data(dtype, n, rng):
    """n values of dtype, a third below lo, a third above hi."""
    if dtype.kind == "u":
        return rng.integers(0, 256, n).astype(dtype)
    if dtype.kind == "i":
        return rng.integers(-128, 128, n).astype(dtype)
    return rng.uniform(-1.5, 1.5, n).astype(np.float32).astype(dtype)


def bounds(dtype):
    if dtype.kind == "u":
        return BOUNDS["uint"]
    if dtype.kind == "i":
        return BOUNDS["int"]
    return BOUNDS["float"]


def row_named(name):
    return next(r for r in DTYPES if r.name == name or numpy_dtype(r).name == name)


def _add(funcs, name, f):
    if f is not None:
        funcs[name] = f


def make_case(row, n, layout, rng, peers=None):
    """The main table's case: row's dtype, n elements, a layout of
    LAYOUTS_FULL, scalar bounds."""
    dtype = numpy_dtype(row)
    lo, hi = bounds(dtype)
    if layout == "strided":
        a = data(dtype, 2 * n, rng)[::2]
    elif layout == "2d-noncontig":
        cols = max(1, int(np.sqrt(n)))
        rows = -(-n // cols)
        a = data(dtype, rows * 2 * cols, rng).reshape(rows, 2 * cols)[:, ::2]
    else:
        a = data(dtype, n, rng)
    out = np.empty(a.shape, dtype)
    target = a if layout == "inplace" else out
    new = layout in ("new", "strided", "2d-noncontig")
    if new:
        funcs = {"fastclip": lambda: fastclip.clip(a, lo, hi), "np.clip": lambda: np.clip(a, lo, hi)}
    else:
        funcs = {"fastclip": lambda: fastclip.clip(a, lo, hi, out=target),
                 "np.clip": lambda: np.clip(a, lo, hi, out=target)}
    copy_src = a.copy() if layout in ("new", "out", "inplace") else a
    funcs["np.copyto"] = lambda: np.copyto(out, copy_src)
    if peers is not None:
        _add(funcs, "torch.clamp", peers.torch_clamp(a, lo, hi, None if new else target))
        # numba too makes a new result where fastclip does
        _add(funcs, "numba np.clip", peers.numba_clip(a, lo, hi, None if new else target))
        _add(funcs, "numba loop", peers.numba_loop(a, lo, hi, None if new else target))
        _add(funcs, "numexpr", peers.numexpr_clip(a, lo, hi, target))
    return funcs


# ---------------------------------------------------------------------------
# Every call a user makes: bounds of every kind, where=, N-d views, scalars and
# sequences, the rest of np.clip's surface, results in fresh memory.

def _array_bounds_cases(dtype, rng, peers):
    """Per-element bounds, n=1e5, out=."""
    lo_v, hi_v = bounds(dtype)
    x = data(dtype, CALL_N, rng)
    out = np.empty_like(x)
    lo = np.full(CALL_N, lo_v, dtype)
    lo[::3] = data(dtype, len(lo[::3]), rng).clip(lo_v, hi_v) if dtype.kind in "iu" else lo_v
    hi = np.full(CALL_N, hi_v, dtype)
    x2, out2 = x.reshape(1000, 100), out.reshape(1000, 100)
    cases = [("bounds both arrays", x, lo, hi, out),
             ("bounds lo scalar, hi array", x, dtype.type(lo_v), hi, out),
             ("bounds (1000,100) vs (100,)", x2, lo[:100], hi[:100], out2),
             ("bounds (1000,100) vs (1000,1)", x2, lo[:1000, None], hi[:1000, None], out2)]
    for name, a, lo_, hi_, o in cases:
        np_out = None if dtype.name == "bfloat16" else o        # NumPy: a float32 result
        funcs = {"fastclip": lambda a=a, lo_=lo_, hi_=hi_, o=o: fastclip.clip(a, lo_, hi_, out=o),
                 "np.clip": lambda a=a, lo_=lo_, hi_=hi_, o=np_out: np.clip(a, lo_, hi_, out=o)}
        # the memory's pace: a copy moving as many bytes (x and the bounds of
        # x's size read, the result written; broadcast bounds stay in cache)
        moved = a.nbytes + o.nbytes + sum(b.nbytes for b in (lo_, hi_)
                                          if isinstance(b, np.ndarray) and b.size == a.size)
        src, dst = np.ones(moved // 2, np.uint8), np.empty(moved // 2, np.uint8)
        funcs["np.copyto"] = lambda src=src, dst=dst: np.copyto(dst, src)
        if peers is not None:
            l_arr = lo_ if isinstance(lo_, np.ndarray) else np.asarray(lo_, dtype)
            _add(funcs, "torch.clamp", peers.torch_clamp(a, l_arr, hi_, o))
            if a.ndim == 1:
                _add(funcs, "numba loop", peers.numba_loop(a, lo_, hi_, o))
        yield name, funcs


def _where_cases(dtype, rng, peers):
    lo, hi = bounds(dtype)
    x = data(dtype, CALL_N, rng)
    out = np.zeros_like(x)
    for p in (0.5, 0.95):
        mask = rng.random(CALL_N) < p
        funcs = {"fastclip": lambda m=mask: fastclip.clip(x, lo, hi, out=out, where=m),
                 "np.clip": lambda m=mask: np.clip(x, lo, hi, out=out, where=m)}
        if peers is not None:
            _add(funcs, "numba loop", peers.numba_loop(x, lo, hi, out, mask=mask))
        yield f"where= {int(p * 100)}% true, out=", funcs
    src = next(r.name for r in DTYPES if numpy_dtype(r) == dtype)
    if (src, "double") in CONVERSIONS:
        # into a wider out: the clip, the cast and the mask's blend in one pass
        wide, mask = np.zeros(CALL_N), rng.random(CALL_N) < 0.5
        funcs = {"fastclip": lambda: fastclip.clip(x, lo, hi, out=wide, where=mask),
                 "np.clip": lambda: np.clip(x, lo, hi, out=wide, where=mask)}
        if peers is not None:
            _add(funcs, "numba loop", peers.numba_loop(x, lo, hi, wide, mask=mask))
        yield "where= 50% true, out=float64", funcs


def _nd_cases(dtype, rng, peers):
    """N-d views, each beside np.copyto of the same view into the same kind
    of destination: what moving those elements costs without clipping."""
    lo, hi = bounds(dtype)
    base3 = data(dtype, 64 * 128 * 128, rng).reshape(64, 128, 128)
    base4 = data(dtype, 16 * 16 * 64 * 64, rng).reshape(16, 16, 64, 64)
    t3 = np.empty(base3.shape[::-1], dtype).T
    t4 = np.empty(base4.shape[::-1], dtype).T
    inplace = base3.copy()[::-1, :, ::3]
    other = base3.copy()[::-1, :, ::3]          # the same strides elsewhere
    v3, v4 = base3[:, ::2, ::2], base4[::2, :, ::2, 1:]
    n3, n4 = np.empty(v3.shape, dtype), np.empty(v4.shape, dtype)
    views = [("3-D x[:, ::2, ::2], new", v3, None, None, lambda: np.copyto(n3, v3)),
             ("4-D x[::2, :, ::2, 1:], new", v4, None, None, lambda: np.copyto(n4, v4)),
             ("3-D, out= transposed view", base3, t3, t3, lambda: np.copyto(t3, base3)),
             ("4-D, out= transposed view", base4, t4, t4, lambda: np.copyto(t4, base4)),
             ("3-D x[::-1, :, ::3], in place", inplace, inplace, inplace,
              lambda: np.copyto(other, inplace))]
    for name, a, out, numba_out, copy in views:
        if out is None:
            funcs = {"fastclip": lambda a=a: fastclip.clip(a, lo, hi),
                     "np.clip": lambda a=a: np.clip(a, lo, hi)}
        else:
            funcs = {"fastclip": lambda a=a, o=out: fastclip.clip(a, lo, hi, out=o),
                     "np.clip": lambda a=a, o=out: np.clip(a, lo, hi, out=o)}
        funcs["np.copyto"] = copy
        if peers is not None:
            _add(funcs, "numba np.clip", peers.numba_clip(a, lo, hi, numba_out))
        yield name, funcs


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
    n=16 (the dispatch) and 1e5."""
    import ml_dtypes

    for n in (16, CALL_N):
        x = data(np.dtype(np.float32), n, rng)
        xi = data(np.dtype(np.int32), n, rng)
        x8 = data(np.dtype(np.int8), n, rng)
        u8 = data(np.dtype(np.uint8), n, rng)
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
            ("uint8, bounds (0.0, 255.0)", lambda c: c(u8, 0.0, 255.0)),
            ("int8, np.int32 bounds", lambda c: c(x8, np.int32(-40), np.int32(40))),
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
    """Results in memory never touched before (np.clip's new result, and
    out=np.empty of 64 MiB, which malloc takes from mmap): page faults, not
    the loop, set the pace, and streaming stores would lose (csrc/stream.h).
    fastclip's new result takes the block its last one left
    (csrc/result_blocks.h), as it does in a user's loop."""
    lo, hi = bounds(dtype)
    x = data(dtype, FRESH_N, rng)
    yield ("2^24, new result", {"fastclip": lambda: fastclip.clip(x, lo, hi),
                                 "np.clip": lambda: np.clip(x, lo, hi)})
    yield ("2^24, out=np.empty(...)",
           {"fastclip": lambda: fastclip.clip(x, lo, hi, out=np.empty_like(x)),
            "np.clip": lambda: np.clip(x, lo, hi, out=np.empty_like(x))})


CALL_DTYPES = {
    "array bounds": ("float32", "float64", "int32", "uint8", "float16", "bfloat16"),
    "where=": ("float32", "float64", "uint8", "float16"),
    "N-d views": ("float32", "uint8", "float16"),
    "fresh memory": ("float32", "float64", "int16"),
}


#: a quick run's every-call section: the first dtype of each group
QUICK_CALL_DTYPES = {group: names[:1] for group, names in CALL_DTYPES.items()}


def call_cases(peers=None, quick=False):
    """(group, dtype name, case name, funcs) for every call of the section
    (quick: the first dtype of each group, no results in fresh memory)."""
    rng = np.random.default_rng(4)
    dtypes = QUICK_CALL_DTYPES if quick else CALL_DTYPES
    for name in dtypes["array bounds"]:
        for case, funcs in _array_bounds_cases(numpy_dtype(row_named(name)), rng, peers):
            yield "array bounds", name, case, funcs
    for name in dtypes["where="]:
        for case, funcs in _where_cases(numpy_dtype(row_named(name)), rng, peers):
            yield "where=", name, case, funcs
    for name in dtypes["N-d views"]:
        for case, funcs in _nd_cases(numpy_dtype(row_named(name)), rng, peers):
            yield "N-d views", name, case, funcs
    for case, funcs in _scalar_cases():
        yield "scalars and sequences", "-", case, funcs
    for case, funcs in _other_calls_cases(rng):
        yield "other calls", "float32", case, funcs
    if quick:
        return
    for name in dtypes["fresh memory"]:
        for case, funcs in _fresh_memory_cases(numpy_dtype(row_named(name)), rng):
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
    x[...] = data(dtype, n, np.random.default_rng(5))
    out_start = start + (nbytes + 4095) // 4096 * 4096 + 4096 + distance
    out = buf[out_start:out_start + nbytes].view(dtype)
    lo, hi = bounds(dtype)
    return {"fastclip": lambda: fastclip.clip(x, lo, hi, out=out),
            "np.copyto": lambda: np.copyto(out, x)}


def convert_cases(peers=None, n=CALL_N, quick=False):
    """Clip and convert, every pair of CONVERSIONS (quick: those from
    float32): out of another dtype, casting='unsafe', the bounds at the
    destination's range (a saturating conversion)."""
    rng = np.random.default_rng(4)
    rows = {r.name: r for r in DTYPES}
    for src_name, dst_name in CONVERSIONS:
        if quick and src_name != "float":
            continue
        src, dst = numpy_dtype(rows[src_name]), numpy_dtype(rows[dst_name])
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
        cast_dst = np.empty_like(out)
        # the memory's pace: a copy moving the call's bytes (x read, out
        # written), not x's copy, which moves twice the wider side's
        moved = x.nbytes + out.nbytes
        copy_src, copy_dst = np.ones(moved // 2, np.uint8), np.empty(moved // 2, np.uint8)
        funcs = {"fastclip": lambda x=x, lo=lo, hi=hi, out=out: fastclip.clip(
                     x, lo, hi, out=out, casting="unsafe"),
                 "np.clip": lambda x=x, lo=lo, hi=hi, out=out: np.clip(
                     x, lo, hi, out=out, casting="unsafe"),
                 "np.copyto": lambda s=copy_src, c=copy_dst: np.copyto(c, s),
                 # NumPy's conversion alone of the clipped values (no clip,
                 # no overflow): the bytes the call reads and writes (a
                 # widening writes more than it reads)
                 "np.copyto cast": lambda x=np.clip(x, lo, hi), c=cast_dst: np.copyto(
                     c, x, casting="unsafe")}
        if peers is not None:
            _add(funcs, "torch.clamp", peers.torch_clamp_to(x, lo, hi, dst))
            _add(funcs, "numba loop", peers.numba_loop(x, lo, hi, out))
        yield f"{label(rows[src_name])}->{label(rows[dst_name])}", funcs
