"""The np.clip calls real programs make, and where fastclip sends each.

    python tools/record_calls.py [--markdown]

Runs each program of fastclip/bench/programs.py (those whose library is
installed) once under a recording patch: numpy.clip is fastclip.clip, wrapped
to note each call's kind (a's type, dtype, size and layout; each bound's kind;
out; keywords) and the library function that made it, and the route fastclip
took, seen by stand-ins for what it can hand a call to: its own kernels
directly (the fast path, no stand-in called), fastclip's ufunc (the same
kernels through NumPy's ufunc machinery), or NumPy (its clip ufunc,
np.minimum/np.maximum, or numpy.clip itself). Prints one row a kind of call
with its count, most frequent first.
"""

import argparse
import collections
import os
import sys

import numpy as np

import fastclip
from fastclip import _numpy_fallback, _ufunc
from fastclip.bench.programs import available


def _size(n):
    for limit, name in ((1, "1"), (16, "<=16"), (1000, "<=1e3"), (100_000, "<=1e5")):
        if n <= limit:
            return name
    return ">1e5"


def describe_array(v):
    kind = type(v).__name__ if type(v) is not np.ndarray else "ndarray"
    if not isinstance(v, np.ndarray):
        return kind
    layout = ("0-d" if v.ndim == 0 else "C" if v.flags.c_contiguous else "F"
              if v.flags.f_contiguous else "strided")
    return f"{kind} {v.dtype} {v.ndim}-d {_size(v.size)} {layout}"


def describe_bound(v):
    if v is None or v is np._NoValue:
        return "None"
    if type(v) in (int, float, bool):
        return f"Python {type(v).__name__}"
    if isinstance(v, np.generic):
        return f"np.{v.dtype} scalar"
    if isinstance(v, np.ndarray):
        return f"{v.dtype} array {v.shape if v.size <= 16 else v.ndim}"
    return type(v).__name__


def describe_out(out, a):
    if out is None:
        return "-"
    if out is a:
        return "in place"
    dtype = getattr(a, "dtype", None)
    return "out= same dtype" if getattr(out, "dtype", None) == dtype else f"out= {out.dtype}"


def caller():
    """The library function that called np.clip: the first frame outside
    this file and numpy."""
    frame = sys._getframe(2)
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if not module.startswith(("numpy", "fastclip")) and module != __name__:
            return f"{module}.{frame.f_code.co_name}"
        frame = frame.f_back
    return "?"


class Routes:
    """Stand-ins for what fastclip hands a call to, noting which were used."""

    def __init__(self):
        self.seen = []

    def wrap(self, label, f):
        routes = self

        class StandIn:
            """f, noting each call; its attributes (a ufunc's resolve_dtypes,
            types, ...) are f's"""
            def __call__(self, *args, **kwargs):
                routes.seen.append(label)
                return f(*args, **kwargs)

            def __getattr__(self, name):
                return getattr(f, name)
        return StandIn()

    def install(self):
        umath = _ufunc._umath

        class UmathStandIn:
            def __getattr__(_, name):
                return self.wrap(f"NumPy's {name}", getattr(umath, name))
        self.saved = (_ufunc._umath, _ufunc.clip_ufunc, _numpy_fallback.numpy_clip)
        _ufunc._umath = UmathStandIn()
        _ufunc.clip_ufunc = self.wrap("fastclip's ufunc", self.saved[1])
        _numpy_fallback.numpy_clip = self.wrap("numpy.clip", self.saved[2])

    def remove(self):
        _ufunc._umath, _ufunc.clip_ufunc, _numpy_fallback.numpy_clip = self.saved


def record():
    counts = collections.Counter()
    routes = Routes()

    def recording_clip(a, a_min=np._NoValue, a_max=np._NoValue, out=None, **kwargs):
        lo = kwargs.get("min", a_min)
        hi = kwargs.get("max", a_max)
        routes.seen = []
        result = fastclip.clip(a, a_min, a_max, out=out, **kwargs)
        route = ", ".join(dict.fromkeys(routes.seen)) or "fastclip's kernel, directly"
        keywords = ",".join(sorted(k for k in kwargs if k not in ("min", "max"))) or "-"
        counts[(caller(), describe_array(a), describe_bound(lo), describe_bound(hi),
                describe_out(out, a), keywords, route)] += 1
        return result

    ready, missing = available()
    rng = np.random.default_rng(0)
    routes.install()
    saved = np.clip
    try:
        for name, library, what, make in ready:
            run = make(rng)
            np.clip = recording_clip
            try:
                run()
            finally:
                np.clip = saved
    finally:
        routes.remove()
    return counts, missing


COLUMNS = ("calls", "caller", "a", "lo", "hi", "out", "keywords", "route")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--markdown", action="store_true")
    args = p.parse_args(argv)
    counts, missing = record()
    rows = [(str(n), *key) for key, n in counts.most_common()]
    for m in missing:
        print(f"skipped: {m}", file=sys.stderr)
    if args.markdown:
        print("| " + " | ".join(COLUMNS) + " |")
        print("|" + " --- |" * len(COLUMNS))
        for r in rows:
            print("| " + " | ".join(r) + " |")
    else:
        widths = [max(len(c) for c in col) for col in zip(COLUMNS, *rows)]
        for r in [COLUMNS, *rows]:
            print("  ".join(f"{c:<{w}}" for c, w in zip(r, widths)).rstrip())
    return 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    sys.exit(main())
