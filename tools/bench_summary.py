"""Markdown summary of a benchmark JSON (python -m fastclip bench --json F):
the rows the speed and scale issues set targets for, as they were measured.

    python tools/bench_summary.py docs/bench.json
"""

import json
import sys

SMALL = ("float32", "float64", "int32", "uint8", "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2")


def main(path):
    r = json.load(open(path))
    rows = [x for x in r["results"] if x["row"] not in ("long", "ulong")]   # int64 once

    def find(dtype, n, layout):
        return next(x["seconds"] for x in rows if x["dtype"] == dtype and x["n"] == n
                    and x["layout"] == layout)

    print(f"Measured {r['system']}; medians of {r['repeats']} interleaved repeats.\n")
    print("| dtype | n=16 new | n=16 out= | n=1000 new | n=1000 out= |  (speedup over np.clip)")
    print("| --- | --- | --- | --- | --- |")
    for d in SMALL:
        cells = [f"{(t := find(d, n, lay))['np.clip'] / t['fastclip']:.1f}x"
                 for n in (16, 1000) for lay in ("new", "out")]
        print(f"| {d} | " + " | ".join(cells) + " |")
    print("\n| dtype | n=1e5 out=: time / np.copyto | n=1e5 a[::2]: speedup | "
          "n=2**24 out=, 1 thread: time / np.copyto | n=2**24 in place: time / np.copyto |")
    print("| --- | --- | --- | --- | --- |")
    for d in dict.fromkeys(x["dtype"] for x in rows):
        out5, s5 = find(d, 100000, "out"), find(d, 100000, "strided")
        o24, i24 = find(d, 2**24, "out"), find(d, 2**24, "inplace")
        print(f"| {d} | {out5['fastclip'] / out5['np.copyto']:.2f} | "
              f"{s5['np.clip'] / s5['fastclip']:.1f}x | {o24['fastclip'] / o24['np.copyto']:.2f} | "
              f"{i24['fastclip'] / i24['np.copyto']:.2f} |")
    if r.get("threads"):
        print("\n| n=2**24 | 1 thread | all threads | np.clip | torch.clamp | vs torch | vs np.clip |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        for x in r["threads"]:
            t = x["seconds"]
            one, allt = t["fastclip 1 thread"], t[f"fastclip {x['threads']} threads"]
            th = t.get("torch.clamp")
            print(f"| {x['dtype']} {x['layout']} | {one * 1e3:.2f} ms | {allt * 1e3:.2f} ms | "
                  f"{t['np.clip'] * 1e3:.2f} ms | {th * 1e3:.2f} ms | {th / allt:.2f}x | "
                  f"{t['np.clip'] / allt:.2f}x |")
    if r.get("calls"):
        print("\n| every call (n=1e5 unless named; one thread) | dtype | speedup over np.clip | "
              "vs torch.clamp (tensor bounds) |")
        print("| --- | --- | --- | --- |")
        for x in r["calls"]:
            t = x["seconds"]
            th = t.get("torch.clamp")
            vs_torch = f"{th / t['fastclip']:.2f}x" if th else "-"
            print(f"| {x['group']}: {x['case']} | {x['dtype']} | "
                  f"{t['np.clip'] / t['fastclip']:.1f}x | {vs_torch} |")
    if r.get("address_sweep"):
        dists = list(dict.fromkeys(x["distance"] for x in r["address_sweep"]))
        print("\n| n=1e5 out=, time / np.copyto, by (out - x) mod 4096 | "
              + " | ".join(f"{d} B" for d in dists) + " |")
        print("| --- |" + " --- |" * len(dists))
        for d in dict.fromkeys(x["dtype"] for x in r["address_sweep"]):
            cells = [x["seconds"]["fastclip"] / x["seconds"]["np.copyto"]
                     for x in r["address_sweep"] if x["dtype"] == d]
            print(f"| {d} | " + " | ".join(f"{c:.2f}" for c in cells) + " |")
    if r.get("convert"):
        print("\n| clip and convert, n=1e5 (one thread) | speedup over np.clip | time / np.copyto "
              "of the source | vs torch clamp().to() |")
        print("| --- | --- | --- | --- |")
        for x in r["convert"]:
            t = x["seconds"]
            th = t.get("torch.clamp")
            vs_torch = f"{th / t['fastclip']:.2f}x" if th else "-"
            print(f"| {x['pair']} | {t['np.clip'] / t['fastclip']:.1f}x | "
                  f"{t['fastclip'] / t['np.copyto']:.2f} | {vs_torch} |")
    if r.get("idle"):
        print("\n| float32 out=, idle gap before each call | all threads | 1 thread | all / 1 | "
              "np.clip | torch.clamp | torch / all |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        for x in r["idle"]:
            t = x["seconds"]
            allt, one = t[f"fastclip {x['threads']} threads"], t["fastclip 1 thread"]
            th = t.get("torch.clamp")
            print(f"| n=2**{x['n'].bit_length() - 1}, {x['gap_ms']} ms | {allt * 1e3:.3f} ms | "
                  f"{one * 1e3:.3f} ms | {allt / one:.2f} | {t['np.clip'] * 1e3:.3f} ms | "
                  + (f"{th * 1e3:.3f} ms | {th / allt:.2f}x |" if th else "- | - |"))
    for key, a, b in (("concurrency", "sequential", "2 threads"),
                      ("dask", "dask.array.clip", "fastclip.clip")):
        if r.get(key):
            t = r[key]["seconds"]
            print(f"\n{key}: {r[key]['what']}: {a} {t[a] * 1e3:.2f} ms, {b} {t[b] * 1e3:.2f} ms "
                  f"({t[a] / t[b]:.2f}x)")


if __name__ == "__main__":
    main(sys.argv[1])
