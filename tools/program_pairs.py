"""Real programs as they are and under fastclip.patched(), in pairs of
alternating order: the median of the pairs' time ratios and its
interquartile range, for the programs whose np.clip share is so small
that the benchmark's medians of each side read the machine's noise.

    python tools/program_pairs.py [NAME ...] [--pairs 80]
    (NAME: part of a program's name in fastclip/bench/programs.py; default
    unsharp and poisson; FASTCLIP_SIMD=avx2 for that build)
"""
import argparse
import statistics
import time

import numpy as np

import fastclip
from fastclip.bench.programs import available


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("names", nargs="*", default=["unsharp", "poisson"])
    p.add_argument("--pairs", type=int, default=80)
    args = p.parse_args()
    ready, _ = available()
    rng = np.random.default_rng(6)
    print(f"fastclip SIMD {fastclip._ufunc.SIMD_TARGET}")
    for name, _, _, make in ready:
        if not any(w in name for w in args.names):
            continue
        run = make(rng)
        for threads in sorted({1, fastclip.get_num_threads()}):
            fastclip.set_num_threads(threads)
            for _ in range(3):
                run()
            ratios, as_is, patched = [], [], []
            for r in range(args.pairs):
                t = {}
                for side in (("as is", "patched") if r % 2 == 0 else ("patched", "as is")):
                    t0 = time.perf_counter()
                    if side == "as is":
                        run()
                    else:
                        with fastclip.patched():
                            run()
                    t[side] = time.perf_counter() - t0
                ratios.append(t["as is"] / t["patched"])
                as_is.append(t["as is"])
                patched.append(t["patched"])
            q1, med, q3 = np.quantile(ratios, [0.25, 0.5, 0.75])
            print(f"{name:40s} {threads} thread(s): as is {statistics.median(as_is) * 1e3:.2f} ms, "
                  f"patched {statistics.median(patched) * 1e3:.2f} ms, as is / patched over "
                  f"{args.pairs} pairs {med:.3f} (IQR {q1:.3f}-{q3:.3f})")


if __name__ == "__main__":
    main()
