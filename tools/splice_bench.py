"""Put a full benchmark run's tables into the docs.

    python -m fastclip bench --full --json docs/bench.json --plot docs/bench.png > docs/bench.txt
    python tools/splice_bench.py docs/bench.json

rewrites, for each SIMD target in the run, its section of docs/performance.md
(from "## AVX-512" or "## AVX2" to the next "## ": the markdown the benchmark
prints) and its Speed table in README.md (the summary rows named in
README_ROWS). The text around them (the run's description, "What limits the
figures") is the writer's: check it against the new figures.
"""

import json
import re
import sys

from fastclip.bench import report as rep

TITLES = {"avx512": "AVX-512", "avx2": "AVX2", "neon": "aarch64"}
README_ROWS = ("one call, n=16, out", "one call, n=100000, out", "one call, n=16777216, out",
               "array bounds", "where=", "N-d views", "scalars and sequences", "other calls",
               "clip and convert")


def _section(text, heading, body):
    """text with the lines after `heading` up to the next '## ' heading replaced."""
    start = text.index(heading + "\n") + len(heading) + 1
    end = text.index("\n## ", start) + 1
    return text[:start] + "\n" + body.rstrip("\n") + "\n\n" + text[end:]


def _readme_table(report):
    table = rep.summary_table(report)
    rows = [row for row in table.rows if row[0] in README_ROWS]
    missing = set(README_ROWS) - {row[0] for row in rows}
    if missing:
        raise SystemExit(f"the run has no summary row {sorted(missing)}: was it --full?")
    return "\n".join(["| " + " | ".join(table.columns) + " |",
                      "|" + " --- |" * len(table.columns)]
                     + ["| " + " | ".join(row) + " |" for row in rows])


def main(path):
    with open(path) as f:
        reports = json.load(f)["targets"]
    with open("docs/performance.md") as f:
        perf = f.read()
    with open("README.md") as f:
        readme = f.read()
    for report in reports:
        target = report["system"]["simd_target"]
        title = TITLES[target]
        perf = _section(perf, f"## {title}", rep.render_markdown(report))
        # README: the table after the "**AVX2** (...):" line, up to its blank line
        pattern = re.compile(rf"(\*\*{re.escape(title)}\*\* \([^\n]*\):\n\n)(\|[^\n]*\n)+")
        if not pattern.search(readme):
            raise SystemExit(f"README.md has no '**{title}** (...):' table")
        readme = pattern.sub(lambda m: m.group(1) + _readme_table(report) + "\n", readme, count=1)
    with open("docs/performance.md", "w") as f:
        f.write(perf)
    with open("README.md", "w") as f:
        f.write(readme)
    print(f"spliced {', '.join(TITLES[r['system']['simd_target']] for r in reports)} "
          "into docs/performance.md and README.md")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "docs/bench.json")
