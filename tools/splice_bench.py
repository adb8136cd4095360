"""Put one benchmark run's figures into the docs: the only way they get there.

    python -m fastclip bench --full --json docs/bench.json --plot docs/bench.png
    python tools/splice_bench.py [docs/bench.json]

For each SIMD target in the run, rewrites what lies between the markers

    <!-- bench:TARGET -->  ...  <!-- /bench:TARGET -->          docs/performance.md
    <!-- summary:TARGET --> ...  <!-- /summary:TARGET -->       README.md

with the benchmark's own markdown (docs/performance.md: the summary, the
programs, the threads and idle tables) and the README's summary rows, followed
by a note naming every cell of the run below 1.0x np.clip or a peer. Nothing
else in either file is touched; `python tools/splice_bench.py --check` fails
where the files differ from what the JSON gives (CI runs it).
"""

import json
import re
import sys

from fastclip.bench import report as rep

TITLES = {"avx512": "AVX-512", "avx2": "AVX2", "sse42": "SSE4.2", "baseline": "baseline",
          "neon": "aarch64"}
README_ROWS = ("one call, n=16, out", "one call, n=100000, out", "one call, n=16777216, out",
               "array bounds", "where=", "N-d views", "scalars and sequences", "other calls",
               "clip and convert")
#: the contenders a note below the README's table names where fastclip trails
RIVALS = ("np.clip", "torch.clamp", "numba loop")


def _splice(text, name, target, body, path):
    """text with the lines between <!-- name:target --> and its closing
    marker replaced by body."""
    start, end = f"<!-- {name}:{target} -->", f"<!-- /{name}:{target} -->"
    pattern = re.compile(re.escape(start) + r"\n.*?" + re.escape(end), re.S)
    if not pattern.search(text):
        raise SystemExit(f"{path} has no '{start}' ... '{end}' markers")
    return pattern.sub(lambda _: f"{start}\n{body.rstrip()}\n{end}", text, count=1)


def _rows(report):
    """(name, seconds) of every timed case of a report."""
    for r in report.get("results", []):
        yield f"{r.get('label', r['dtype'])} n={r['n']} {r['layout']}", r["seconds"]
    for r in report.get("calls", []):
        yield (f"{r['dtype']} {r['case']}" if r["dtype"] != "-" else r["case"]), r["seconds"]
    for r in report.get("convert", []):
        yield f"{r['pair']}", r["seconds"]


def trailing(report):
    """{rival: [(name, ratio)]}: the cases where a rival took less time than
    fastclip (rival's time / fastclip's below 1)."""
    out = {}
    for name, t in _rows(report):
        for rival in RIVALS:
            if rival in t and t[rival] < t["fastclip"]:
                out.setdefault(rival, []).append((name, t[rival] / t["fastclip"]))
    return out


def readme_block(report):
    """The README's table for one target and the note under it."""
    title = TITLES[report["system"]["simd_target"]]
    table = rep.summary_table(report)
    rows = [row for row in table.rows if row[0] in README_ROWS]
    missing = set(README_ROWS) - {row[0] for row in rows}
    if missing:
        raise SystemExit(f"the run has no summary row {sorted(missing)}: was it --full?")
    lines = [f"**{title}**: the {report['system']['simd_target']} build on "
             f"{report['system']['cpu']}", "",
             "| " + " | ".join(table.columns) + " |", "|" + " --- |" * len(table.columns)]
    lines += ["| " + " | ".join(rep.markdown_text(c) for c in row) + " |" for row in rows]
    behind = trailing(report)
    if behind:
        # three decimals: a cell just below 1 must not read 1.00x
        parts = [f"{rival}: " + ", ".join(f"{rep.markdown_text(n)} ({r:.3f}x)" for n, r in cases)
                 for rival, cases in behind.items()]
        lines += ["", f"Cells of the full run where fastclip trails ({title}): "
                  + "; ".join(parts) + "."]
    else:
        lines += ["", f"No cell of the full run at {title} is below 1.0x np.clip, torch.clamp "
                  "or numba's loop."]
    return "\n".join(lines)


def spliced(path, perf, readme):
    """The two files' new texts from the run at path."""
    with open(path) as f:
        reports = json.load(f)["targets"]
    for report in reports:
        target = report["system"]["simd_target"]
        perf = _splice(perf, "bench", target, rep.render_markdown(report), "docs/performance.md")
        readme = _splice(readme, "summary", target, readme_block(report), "README.md")
    return perf, readme


def main(argv):
    check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    path = args[0] if args else "docs/bench.json"
    with open("docs/performance.md") as f:
        perf = f.read()
    with open("README.md") as f:
        readme = f.read()
    new_perf, new_readme = spliced(path, perf, readme)
    if check:
        stale = [name for name, old, new in (("docs/performance.md", perf, new_perf),
                                             ("README.md", readme, new_readme)) if old != new]
        if stale:
            print(f"{' and '.join(stale)} differ from {path}: run python tools/splice_bench.py")
            return 1
        print(f"docs/performance.md and README.md hold {path}'s figures")
        return 0
    with open("docs/performance.md", "w") as f:
        f.write(new_perf)
    with open("README.md", "w") as f:
        f.write(new_readme)
    print(f"spliced {path} into docs/performance.md and README.md")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
