"""Every combination of x dtype, bound kind and out dtype that np.clip accepts,
timed beside np.clip and beside np.copyto of x (medians of interleaved
repeats, fastclip on its default threads): the calls a user can make that the
benchmark's tables do not list one by one. Each result is checked against
np.clip's bits first. Prints the rows below a speed-up (default 2x) whose
time is also above a multiple of np.copyto's (default 1.3): the calls that
are neither fast nor at the memory's pace, which is where a missing fused
path shows (the pairs of CONVERSIONS, the promoted scalar bounds and the
chained widenings were found so).

    python tools/call_survey.py [N] [--below 2.0] [--copy 1.3] [--repeats 7]
    (FASTCLIP_SIMD=avx2 for that build)
"""
import argparse
import itertools
import warnings

import numpy as np

import fastclip
from fastclip.bench.timing import time_interleaved

X_DTYPES = ["uint8", "int8", "int16", "uint16", "int32", "int64", "float16", "float32", "float64"]
BOUNDS = {"python int": (1, 100), "python float": (1.5, 100.5),
          "np.float32": (np.float32(1.5), np.float32(100.5)),
          "np.float64": (np.float64(1.5), np.float64(100.5)),
          "np.int64": (np.int64(1), np.int64(100)), "np.int16": (np.int16(1), np.int16(100)),
          "lo only": (1.5, None), "hi only": (None, 100), "zero lo only": (0, None)}
OUTS = [None, "same", "float32", "float64", "int32", "uint8"]


def cases(n, rng):
    """(label, x, lo, hi, kwargs) of every call np.clip accepts here."""
    for d, (bound_kind, (lo, hi)), od in itertools.product(X_DTYPES, BOUNDS.items(), OUTS):
        x = (rng.normal(size=n) * 60 + 50).astype(d)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = np.clip(x[:1], lo, hi).dtype
        if od is None:
            kwargs = {}
        elif od == "same":
            if result != x.dtype:
                continue
            kwargs = {"out": np.empty(n, x.dtype)}
        else:
            kwargs = {"out": np.empty(n, od)}
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                expected = np.clip(x, lo, hi, **kwargs).copy()
        except TypeError:
            continue                # a cast NumPy refuses: nothing to time
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = fastclip.clip(x, lo, hi, **kwargs)
        assert got.dtype == expected.dtype and got.tobytes() == expected.tobytes(), (d, bound_kind, od)
        label = f"x={d:<8} bounds={bound_kind:<13} out={str(od):<8} result={result}"
        yield label, x, lo, hi, kwargs


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("n", nargs="?", type=int, default=100_000)
    p.add_argument("--below", type=float, default=2.0, help="print rows below this speed-up")
    p.add_argument("--copy", type=float, default=1.3,
                   help="... whose time is above this multiple of np.copyto's")
    p.add_argument("--repeats", type=int, default=7)
    args = p.parse_args()
    rng = np.random.default_rng(0)
    rows = []
    for label, x, lo, hi, kwargs in cases(args.n, rng):
        copy = np.empty_like(x)
        t = time_interleaved({"np.clip": lambda: np.clip(x, lo, hi, **kwargs),
                              "fastclip": lambda: fastclip.clip(x, lo, hi, **kwargs),
                              "np.copyto": lambda: np.copyto(copy, x)}, args.repeats, 0.002)
        rows.append((t["np.clip"] / t["fastclip"], t["fastclip"] / t["np.copyto"], label))
    rows.sort()
    shown = [r for r in rows if r[0] < args.below and r[1] > args.copy]
    print(f"fastclip SIMD {fastclip._ufunc.SIMD_TARGET}, n={args.n}: {len(rows)} calls, "
          f"{len(shown)} below {args.below}x np.clip and above {args.copy}x np.copyto; "
          f"lowest speed-up {rows[0][0]:.2f}x ({rows[0][2]})")
    for speedup, per_copy, label in shown:
        print(f"{speedup:5.2f}x np.clip  {per_copy:6.2f}x np.copyto  {label}")


if __name__ == "__main__":
    main()
