"""Two benchmark runs side by side, cell by cell: did a change move any figure?

    python tools/compare_bench.py BEFORE.json AFTER.json [--band 0.10] [--show 15]

For each SIMD target in both runs, each cell timed in both (the main table,
the every-call section, the conversions, the address sweep, the programs) is
compared by fastclip's figure against the contender timed beside it in its own
run (np.clip's time over fastclip's; np.copyto's for the sweep; the program as
it is over patched), so that a host that drifted between the runs does not
count as a change. Prints, a target a line, the median of after / before and
its 10th-90th percentiles, then the cells outside 1 +- band, lowest first.
A figure's spread from run to run on a shared host is itself some percent:
the percentiles show it, and a cell outside the band is worth timing again.
"""

import argparse
import json
import statistics


def _cells(report):
    """{(section, name): fastclip's figure} of one target's report."""
    out = {}
    for r in report.get("results", []):
        t = r["seconds"]
        out[("main", f"{r.get('label', r['dtype'])} n={r['n']} {r['layout']}")] = \
            t["np.clip"] / t["fastclip"]
    for r in report.get("calls", []):
        t = r["seconds"]
        out[("calls", f"{r['group']}: {r['dtype']} {r['case']}")] = t["np.clip"] / t["fastclip"]
    for r in report.get("convert", []):
        t = r["seconds"]
        out[("convert", r["pair"])] = t["np.clip"] / t["fastclip"]
    for r in report.get("address_sweep", []):
        t = r["seconds"]
        out[("sweep", f"{r['dtype']} at {r['distance']}")] = t["np.copyto"] / t["fastclip"]
    for r in (report.get("programs") or {}).get("rows", []):
        t = r["seconds"]
        out[("programs", r["program"])] = t["as it is"] / t["patched"]
    return out


def _quantile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def compare(before, after, band=0.10, show=15):
    """The lines of the comparison of two saved runs (dicts of --json)."""
    lines = []
    by_target = {r["system"]["simd_target"]: r for r in before["targets"]}
    for report in after["targets"]:
        target = report["system"]["simd_target"]
        if target not in by_target:
            continue
        old, new = _cells(by_target[target]), _cells(report)
        keys = sorted(set(old) & set(new))
        ratios = {k: new[k] / old[k] for k in keys}
        values = list(ratios.values())
        outside = sorted((r, k) for k, r in ratios.items() if abs(r - 1) > band)
        lines.append(f"{target}: {len(keys)} cells, after / before median "
                     f"{statistics.median(values):.3f}, 10th-90th percentile "
                     f"{_quantile(values, 0.1):.3f}-{_quantile(values, 0.9):.3f}; "
                     f"{len(outside)} outside {1 - band:.2f}-{1 + band:.2f}")
        listed = outside if len(outside) <= 2 * show else outside[:show] + outside[-show:]
        for r, (section, name) in (listed if show > 0 else []):
            lines.append(f"  {r:6.3f}  {section}: {name} ({old[(section, name)]:.3g} -> "
                         f"{new[(section, name)]:.3g})")
    return lines


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("before")
    p.add_argument("after")
    p.add_argument("--band", type=float, default=0.10, help="flag cells outside 1 +- band")
    p.add_argument("--show", type=int, default=15, help="cells listed at each end")
    args = p.parse_args(argv)
    with open(args.before) as f:
        before = json.load(f)
    with open(args.after) as f:
        after = json.load(f)
    print("\n".join(compare(before, after, args.band, args.show)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
