"""The calls tools/call_survey.py does not make: subclasses, MaskedArrays,
memory orders, byte orders, 0-d and mixed-dtype bounds, strided outs,
where= with other operands, dtype= and order=, sequences, and the dtypes
fastclip has no kernel for. Each is checked against np.clip first (type,
dtype, bytes, mask), then timed beside it (medians of interleaved repeats,
one fastclip thread); printed lowest speed-up first. where= into an out of
another dtype and the plain subclasses got their routes from what it found.

    python tools/odd_calls.py [N] [--repeats 7]
    (FASTCLIP_SIMD=avx2 for that build)
"""
import argparse
import os
import tempfile
import warnings

import numpy as np

import fastclip
from fastclip.bench.timing import time_interleaved


def cases(n, rng):
    """(name, make) of each call: make() gives fresh (a, lo, hi, kwargs)."""
    side = max(2, int(round(n ** 0.5)))

    def data(dtype, shape=(n,)):
        return (rng.normal(size=shape) * 60 + 50).astype(dtype)

    x32, x64, i32, u8, i16 = (data(d) for d in (np.float32, np.float64, np.int32, np.uint8,
                                                 np.int16))
    m2 = data(np.float32, (side, side))
    half = rng.random(n) < 0.5
    memmap_path = os.path.join(tempfile.mkdtemp(), "x.dat")
    mm = np.memmap(memmap_path, np.float32, "w+", shape=(n,))
    mm[:] = x32

    def readonly():
        a = x32.copy()
        a.flags.writeable = False
        return a, 1.0, 100.0, {}

    return [
        ("F-order 2-D", lambda: (np.asfortranarray(m2), 1.0, 100.0, {})),
        ("F-order 2-D into an F out", lambda: (np.asfortranarray(m2), 1.0, 100.0,
                                               {"out": np.asfortranarray(np.empty_like(m2))})),
        ("C x into an F out", lambda: (m2, 1.0, 100.0, {"out": np.asfortranarray(np.empty_like(m2))})),
        ("order='F'", lambda: (m2, 1.0, 100.0, {"order": "F"})),
        ("big-endian float32", lambda: (x32.astype(">f4"), 1.0, 100.0, {})),
        ("0-d float32 array bounds", lambda: (x32, np.array(1.0, np.float32),
                                              np.array(100.0, np.float32), {})),
        ("0-d float64 array bounds on float32", lambda: (x32, np.array(1.0), np.array(100.0), {})),
        ("int32 array bounds on float32", lambda: (x32, np.full(n, 1, np.int32),
                                                   np.full(n, 100, np.int32), {})),
        ("float64 array bounds on float32", lambda: (x32, np.full(n, 1.0), np.full(n, 100.0), {})),
        ("float32 array bounds on int32", lambda: (i32, np.full(n, 1, np.float32),
                                                   np.full(n, 100, np.float32), {})),
        ("(side, 1) bounds on 2-D", lambda: (m2, np.full((side, 1), 1.0, np.float32),
                                             np.full((side, 1), 100.0, np.float32), {})),
        ("strided float32 into float64 out", lambda: (data(np.float32, (2 * n,))[::2], 1.0, 100.0,
                                                      {"out": np.empty(n)})),
        ("strided float64 into float32 out", lambda: (data(np.float64, (2 * n,))[::2], 1.0, 100.0,
                                                      {"out": np.empty(n, np.float32),
                                                       "casting": "unsafe"})),
        ("into a strided out", lambda: (x32, 1.0, 100.0, {"out": np.empty(2 * n, np.float32)[::2]})),
        ("float32 into a strided float64 out", lambda: (x32, 1.0, 100.0,
                                                        {"out": np.empty(2 * n)[::2]})),
        ("where= row mask on 2-D", lambda: (m2, 1.0, 100.0, {"out": np.zeros_like(m2),
                                                            "where": rng.random(side) < 0.5})),
        ("where= into a float64 out", lambda: (x32, 1.0, 100.0, {"out": np.zeros(n), "where": half})),
        ("where= into a uint8 out, unsafe", lambda: (x32, 0.0, 255.0,
                                                     {"out": np.zeros(n, np.uint8), "where": half,
                                                      "casting": "unsafe"})),
        ("where= with array bounds", lambda: (x32, np.full(n, 1.0, np.float32),
                                              np.full(n, 100.0, np.float32),
                                              {"out": np.zeros(n, np.float32), "where": half})),
        ("where= strided x", lambda: (data(np.float32, (2 * n,))[::2], 1.0, 100.0,
                                      {"out": np.zeros(n, np.float32), "where": half})),
        ("dtype=float64", lambda: (x32, 1.0, 100.0, {"dtype": np.float64})),
        ("dtype=float32 on int16", lambda: (i16, 1, 100, {"dtype": np.float32})),
        ("uint8, np.uint8 bounds", lambda: (u8, np.uint8(10), np.uint8(200), {})),
        ("uint8, lo -1", lambda: (u8, -1, 200, {})),
        ("int32, hi 2**40", lambda: (i32, 1, 2**40, {})),
        ("float32, infinite bounds", lambda: (x32, -np.inf, np.inf, {})),
        ("float32 with 1% NaN", lambda: (np.where(rng.random(n) < 0.01, np.nan, x32).astype(np.float32),
                                        1.0, 100.0, {})),
        ("float32, lo > hi", lambda: (x32, 100.0, 1.0, {})),
        ("read-only x", readonly),
        ("a list", lambda: (x32[:1000].tolist(), 1.0, 100.0, {})),
        ("np.matrix", lambda: (np.asmatrix(m2), 1.0, 100.0, {})),
        ("np.matrix into itself", lambda: (np.asmatrix(m2), 1.0, 100.0, {"out": np.asmatrix(m2)})),
        ("np.memmap", lambda: (mm, 1.0, 100.0, {})),
        ("MaskedArray", lambda: (np.ma.masked_less(x32, 0), 1.0, 100.0, {})),
        ("bool (no kernel)", lambda: (x32 > 50, False, True, {})),
        ("complex (no kernel)", lambda: (x64.astype(np.complex128), 1.0, 100.0, {})),
    ]


def same(got, expected):
    if type(got) is not type(expected):
        return False
    g, e = np.asarray(got), np.asarray(expected)
    return (g.dtype == e.dtype and g.shape == e.shape and g.tobytes() == e.tobytes()
            and np.array_equal(np.ma.getmaskarray(got), np.ma.getmaskarray(expected)))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("n", nargs="?", type=int, default=100_000)
    p.add_argument("--repeats", type=int, default=7)
    args = p.parse_args()
    fastclip.set_num_threads(1)
    rows = []
    for name, make in cases(args.n, np.random.default_rng(0)):
        a, lo, hi, kwargs = make()

        def run(clip, a=a, lo=lo, hi=hi, kwargs=kwargs):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return clip(a, lo, hi, **kwargs)
        assert same(run(fastclip.clip), run(np.clip)), name
        t = time_interleaved({"np.clip": lambda: run(np.clip), "fastclip": lambda: run(fastclip.clip)},
                             args.repeats, 0.01)
        rows.append((t["np.clip"] / t["fastclip"], t["fastclip"], name))
    print(f"fastclip SIMD {fastclip._ufunc.SIMD_TARGET}, n={args.n}, one thread: {len(rows)} calls, "
          "each np.clip's outcome; np.clip's time over fastclip's")
    for speedup, seconds, name in sorted(rows):
        print(f"{speedup:6.2f}x  {seconds * 1e6:9.1f} us  {name}")


if __name__ == "__main__":
    main()
