"""The report of ``python -m fastclip bench``: one model of tables, rendered as
text or markdown, from the raw seconds a run returns (fastclip/bench/
sections.py, also the JSON).

Every ratio is time over time of two contenders measured side by side in one
process: "speedup" is np.clip's time over fastclip's, "vs copyto" fastclip's
over np.copyto's of the same data (1.0 = a memory copy's pace), and a peer's
column that peer's time over fastclip's (above 1: fastclip is faster).
"""

import re
import textwrap

PEERS = ("torch.clamp", "numba np.clip", "numba loop", "numexpr")


def _time(s):
    for unit, scale in (("s", 1), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"


def _x(v):
    return "-" if v is None else f"{v:.1f}x" if v >= 10 else f"{v:.2f}x"


class Table:
    def __init__(self, title, columns, rows, legend=""):
        self.title, self.columns, self.rows, self.legend = title, columns, rows, legend


def system_line(system, date=True):
    """The run's machine and versions in a line (the date where asked: the
    docs' copy names the CPU, and their history is the changelog's)."""
    peers = ", ".join(system["peers"]) or "no peers"
    missing = (f"; not installed: {', '.join(system['peers_missing'])}"
               if system.get("peers_missing") else "")
    torch_isa = f" (torch at {system['torch_capability']})" if system.get("torch_capability") else ""
    when = f"{system['date']} | " if date else ""
    caches = (f", L3 {system['l3_bytes'] >> 20} MiB a core shares, streaming stores from "
              f"{system['stream_min_bytes'] >> 20} MiB" if "stream_min_bytes" in system else "")
    return (f"{when}{system['cpu']}, {system['cpus']} CPUs{caches} | fastclip "
            f"{system['fastclip']}, SIMD {system['simd_target']} (compiled "
            f"{', '.join(system['simd_compiled'])}) | numpy {system['numpy']}, python "
            f"{system['python']} | {peers}{torch_isa}{missing}")


def _peer_cells(t):
    fc = t["fastclip"]
    return [_x(t[p] / fc) if p in t else "-" for p in PEERS]


def main_table(report):
    rows = []
    for r in report["results"]:
        t = r["seconds"]
        rows.append([r.get("label", r["dtype"]), str(r["n"]), r["layout"], _time(t["fastclip"]),
                     _time(t["np.clip"]), _x(t["np.clip"] / t["fastclip"]),
                     f"{t['fastclip'] / t['np.copyto']:.2f}", *_peer_cells(t)])
    return Table("One call, scalar bounds (one thread each)",
                 ["dtype", "n", "layout", "fastclip", "np.clip", "speedup", "vs copyto", *PEERS],
                 rows)


def calls_table(report):
    rows = []
    for r in report["calls"]:
        t = r["seconds"]
        cp = f"{t['fastclip'] / t['np.copyto']:.2f}" if "np.copyto" in t else "-"
        rows.append([r["group"], r["dtype"], r["case"], _time(t["fastclip"]), _time(t["np.clip"]),
                     _x(t["np.clip"] / t["fastclip"]), cp, *_peer_cells(t)])
    return Table("Every call (one thread each; torch.clamp with tensor bounds; n = 1e5 unless "
                 "named)", ["group", "dtype", "case", "fastclip", "np.clip", "speedup",
                            "vs copyto", *PEERS], rows,
                 "vs copyto: fastclip's time over np.copyto's of the same view (N-d views) or "
                 "of as many bytes as the call reads and writes (array bounds: x, the bounds "
                 "of x's size, the result).")


def convert_table(report):
    rows = []
    for r in report["convert"]:
        t = r["seconds"]
        cast = t.get("np.copyto cast")      # not in reports before it was timed
        rows.append([r["pair"], _time(t["fastclip"]), _time(t["np.clip"]),
                     _x(t["np.clip"] / t["fastclip"]), f"{t['fastclip'] / t['np.copyto']:.2f}",
                     f"{t['fastclip'] / cast:.2f}" if cast else "-", *_peer_cells(t)])
    return Table("Clip and convert: out of another dtype, casting='unsafe', n = 1e5, one thread "
                 "each; bounds at the destination's range; torch: clamp(x, lo, hi).to(dtype)",
                 ["pair", "fastclip", "np.clip", "speedup", "vs copyto", "vs cast", *PEERS], rows,
                 "vs copyto: fastclip's time over a copy of as many bytes as the call moves "
                 "(the source read, the destination written); vs cast: over NumPy's "
                 "conversion alone (np.copyto into the destination's dtype, casting='unsafe').")


def quantize_table(report):
    from fastclip.bench import quantize
    return quantize.table(report, Table, _time, _x)


def _quantize_line(report):
    """quantize's one-thread rows in a line: their time over a copy's, and
    each peer's time over fastclip's, the worst named."""
    rows = [r for r in report["quantize"] if r["threads"] == 1]
    items = [(r["seconds"], f"{r['case']} n={r['n']}") for r in rows]
    peers = "; ".join(f"vs {p} {_range([(_ratio(t, p), n) for t, n in items])}"
                      for p in ("numpy tool", "onnx.reference", "onnxruntime", "torch")
                      if any(p in t for t, _ in items))
    return (f"Quantize (one thread): time / np.copyto "
            f"{_range([(_ratio(t, 'fastclip', 'np.copyto'), n) for t, n in items], 'high')}"
            f"{'; ' + peers if peers else ''}")


def sweep_table(report):
    sweep = report["address_sweep"]
    dists = list(dict.fromkeys(r["distance"] for r in sweep))
    rows = []
    for name in dict.fromkeys(r["dtype"] for r in sweep):
        rows.append([name] + [f"{r['seconds']['fastclip'] / r['seconds']['np.copyto']:.2f}"
                              for r in sweep if r["dtype"] == name])
    return Table("Address sweep: n = 1e5 out=, fastclip time / np.copyto time, by the distance "
                 "(out - x) mod 4096 in bytes", ["dtype", *map(str, dists)], rows)


def _spread(text, row, label):
    """text, and where the run measured it the ratio's spread round by round
    (its 10th to 90th percentile: bench/timing.py ratio_spread)."""
    spread = row.get("spread", {}).get(label)
    return text if spread is None else f"{text} ({spread[0]:.2f}-{spread[2]:.2f})"


def threads_table(report):
    rows = []
    omp = any("OpenMP loop" in r["seconds"] for r in report["threads"])
    for r in report["threads"]:
        t = r["seconds"]
        one, allt = t["fastclip 1 thread"], t[f"fastclip {r['threads']} threads"]
        th = t.get("torch.clamp")
        rows.append([r["dtype"], r["layout"], _time(one), _time(allt),
                     *([_time(t["OpenMP loop"]) if "OpenMP loop" in t else "-"] if omp else []),
                     _time(t["np.clip"]), _time(th) if th else "-",
                     _spread(_x(th / allt), r, "all vs torch") if th else "-",
                     _spread(_x(t["np.clip"] / allt), r, "all vs np"),
                     _spread(f"{one / t['np.copyto']:.2f}", r, "1t vs copyto")])
    return Table(f"Threads, n = 2^24 (all = {report['threads'][0]['threads']}; torch.clamp with "
                 "its default threads)",
                 ["dtype", "layout", "1 thread", "all", *(["OpenMP loop"] if omp else []),
                  "np.clip", "torch", "all vs torch", "all vs np", "1t vs copyto"], rows,
                 "all vs torch: torch.clamp's time over fastclip's on all threads; OpenMP loop: "
                 "fastclip's kernels split by one OpenMP parallel loop on all threads (the "
                 "simple design); 1t vs copyto: "
                 "fastclip on one thread over np.copyto. In brackets: the ratio's 10th to 90th "
                 "percentile round by round, rounds added until that range is at most 10% of the "
                 "median (up to three times the repeats).")


def idle_table(report):
    rows = []
    omp = any("OpenMP loop" in r["seconds"] for r in report["idle"])
    for r in report["idle"]:
        t, cpu = r["seconds"], r.get("cpu", {})
        every = f"fastclip {r['threads']} threads"
        allt, one = t[every], t["fastclip 1 thread"]
        th = t.get("torch.clamp")
        row = [f"2^{r['n'].bit_length() - 1}", f"{r['gap_ms']} ms", _time(allt), _time(one),
               _spread(f"{allt / one:.2f}", r, "all/1")]
        if cpu:
            row.append(f"{cpu[every] / cpu['fastclip 1 thread']:.2f}")
        if omp:
            row.append(_time(t["OpenMP loop"]) if "OpenMP loop" in t else "-")
        row += [_time(t["np.clip"]), _time(th) if th else "-",
                _spread(_x(th / allt), r, "torch/all") if th else "-"]
        rows.append(row)
    cpu_col = ["CPU all/1"] if report["idle"][0].get("cpu") else []
    return Table(f"Idle gaps: float32 out=, calls with a pause of the gap before each; medians. "
                 f"all = fastclip on {report['idle'][0]['threads']} threads",
                 ["n", "gap", "all", "1 thread", "all/1", *cpu_col,
                  *(["OpenMP loop"] if omp else []), "np.clip", "torch", "torch/all"], rows,
                 "all/1: fastclip on all threads over one thread (<= 1: the split never costs); "
                 "in brackets, call by call, its 10th to 90th percentile. CPU all/1: the "
                 "process's CPU time a call (all its threads, their spin after the calls "
                 "counted) on all threads over one thread. OpenMP loop: fastclip's kernels "
                 "split by one OpenMP parallel loop, the simple design the pool is held to.")


#: the contenders of the threads-in-a-program table, in its columns' order
PROGRAM_THREADS = ("fastclip", "fastclip 1 thread", "OpenMP loop", "np.clip", "torch.clamp")


def program_threads_table(report):
    rows = []
    present = [k for k in PROGRAM_THREADS
               if any(k in r["seconds"] for r in report["program_threads"])]
    for r in report["program_threads"]:
        t = r["seconds"]
        if "fastclip 1 thread" not in t:
            continue            # the reuse case (its own table), the wake-up (the legend)
        rows.append([r["case"]] + [f"{_time(t[k]['wall'])}, {_time(t[k]['cpu'])} CPU"
                                   if k in t else "-" for k in present]
                    + [_spread(f"{t['fastclip']['wall'] / t['fastclip 1 thread']['wall']:.2f}",
                               r, "wall fastclip/1"),
                       _spread(f"{t['fastclip']['cpu'] / t['fastclip 1 thread']['cpu']:.2f}",
                               r, "cpu fastclip/1")])
        for extra, label, fmt in (("clip", "the clip alone", _time),
                                  ("neighbour", "the neighbour's time over alone",
                                   lambda v: f"{v:.2f}x")):
            if extra in t.get("fastclip", {}):
                rows.append([f"{r['case']}: {label}"]
                            + [fmt(t[k][extra]) if k in t else "-" for k in present]
                            + [f"{t['fastclip'][extra] / t['fastclip 1 thread'][extra]:.2f}", ""])
    cases = "; ".join(f"{r['case']}: {r['what']}" for r in report["program_threads"]
                      if "fastclip 1 thread" in r["seconds"])
    wake = [r["seconds"] for r in report["program_threads"] if r["case"] == "wake-up"]
    if wake and wake[0]["time"]:
        took, part = wake[0]["time"], wake[0]["caller's part"]
        cases += (f". The pool's wake-up on this machine (csrc/pool.h; medians of the last eight): "
                  f"{_time(took)}, of which the caller's part {_time(part)}")
    return Table("Threads in a program: wall time, then the CPU time of the process's threads "
                 "(medians)", ["case", *present, "fastclip/1 wall", "fastclip/1 CPU"], rows,
                 "fastclip: its default, all CPUs; OpenMP loop: fastclip's kernels split by one "
                 "OpenMP parallel loop (the simple design); torch.clamp with its default "
                 "threads. CPU: the process's CPU time (all its threads, their spin after the "
                 "calls counted), less the main thread's in the case's other work; processes "
                 "added. fastclip/1: fastclip's default over fastclip on one thread, in brackets "
                 "its 10th to 90th percentile round by round. The cases: " + cases + ".")


def reuse_table(report):
    reuse = [r for r in report["program_threads"] if r["case"] == "new results, reuse"]
    rows = [[k, _time(v["wall"]), _time(v["cpu"]), f"{v['held'] / 2**20:.0f} MiB"]
            for r in reuse for k, v in r["seconds"].items()]
    what = [r["what"] for r in reuse]
    return Table("New large results, freed blocks kept or not (medians)",
                 ["", "a call", "CPU a call", "held"], rows, what[0] if what else "")


def programs_table(report):
    section = report["programs"]
    all_threads = any("patched, all threads" in r["seconds"] for r in section["rows"])
    rows = []
    for r in section["rows"]:
        t = r["seconds"]
        row = [r["program"], r["library"], _time(t["as it is"]), _time(t["patched"]),
               _spread(_x(t["as it is"] / t["patched"]), r, "as it is / patched")]
        if all_threads:
            wide = t.get("patched, all threads")
            row += ["-", "-"] if wide is None else [
                _time(wide), _spread(_x(t["as it is"] / wide), r, "as it is / all threads")]
        clip = r.get("clip_seconds")
        rows.append(row + [f"{100 * r['clip_share']:.0f}%",
                           _x(clip["as it is"] / clip["patched"]) if clip else "-"])
    legend = ("as it is / patched: the program's time as it is over its time under "
              "fastclip.patched() with one fastclip thread")
    header = ["program", "library", "as it is", "patched", "as it is / patched"]
    if all_threads:
        legend += (f", and with all {section.get('threads', 'its')} threads (the default: calls "
                   "moving at least 1 MiB are split)")
        header += ["patched, all threads", "as it is / all threads"]
    legend += ("; in brackets, the ratio's 10th to 90th percentile run by run, runs added "
               "until that range is at most 10% of the median (up to three times the repeats)")
    legend += ("; in np.clip: the share of its time inside np.clip, as it is; its np.clip "
               "calls: the time the program's np.clip calls take inside it as it is over "
               "patched (one thread; each call timed, medians of the runs' sums).")
    if section["skipped"]:
        legend += " Skipped: " + "; ".join(section["skipped"]) + "."
    return Table("Real programs, as they are and under fastclip.patched()",
                 header + ["in np.clip", "its np.clip calls"], rows, legend)


def _range(values, worst="low"):
    """'lo-hi' of (ratio, name) pairs, naming the worst: the lowest (a
    speedup) or the highest (a time over np.copyto's)."""
    values = [v for v in values if v[0] is not None]
    if not values:
        return "-"
    low, high = min(values), max(values)
    text = _x(low[0]) if abs(high[0] - low[0]) < 0.005 * high[0] else f"{_x(low[0])}-{_x(high[0])}"
    if len(values) == 1:
        return text
    return f"{text} ({'lowest' if worst == 'low' else 'highest'}: {(low if worst == 'low' else high)[1]})"


def _ratio(t, num, den="fastclip"):
    return t[num] / t[den] if num in t and den in t else None


def summary_table(report):
    """One line a kind of call: the range of np.clip's time over fastclip's
    (the lowest named), of each peer's, and of fastclip's over np.copyto."""
    groups = []
    by = {}
    for r in report.get("results", []):
        key = f"one call, n={r['n']}, {r['layout']}"
        by.setdefault(key, []).append((r["seconds"], r.get("label", r["dtype"])))
    groups += list(by.items())
    by = {}
    for r in report.get("calls", []):
        by.setdefault(r["group"], []).append((r["seconds"], f"{r['dtype']} {r['case']}"
                                              if r["dtype"] != "-" else r["case"]))
    groups += list(by.items())
    if report.get("convert"):
        groups.append(("clip and convert", [(r["seconds"], r["pair"]) for r in report["convert"]]))
    rows = []
    for what, items in groups:
        cells = [_range([(_ratio(t, "np.clip"), n) for t, n in items]),
                 _range([(_ratio(t, "fastclip", "np.copyto"), n) for t, n in items], "high")]
        cells += [_range([(_ratio(t, p), n) for t, n in items]) for p in ("torch.clamp",
                                                                          "numba loop")]
        rows.append([what, *cells])
    if report.get("address_sweep"):
        sw = report["address_sweep"]
        rows.append(["address sweep, n=1e5 out=", "-",
                     _range([(r["seconds"]["fastclip"] / r["seconds"]["np.copyto"],
                              f"{r['dtype']} at {r['distance']}") for r in sw], "high"), "-", "-"])
    return Table("Summary (one thread each)",
                 ["call", "speedup over np.clip", "time / np.copyto", "vs torch.clamp",
                  "vs numba loop"], rows,
                 "speedup: np.clip's time over fastclip's; time / np.copyto: fastclip's over a "
                 "plain copy of as many bytes as the call moves; vs a peer: its time over "
                 "fastclip's. Ranges over the dtypes and cases of each kind, the worst named.")


def tables(report, full=False):
    out = [summary_table(report)]
    if full:
        if report.get("results"):
            out.append(main_table(report))
        for key, make in (("calls", calls_table), ("convert", convert_table),
                          ("quantize", quantize_table), ("address_sweep", sweep_table)):
            if report.get(key):
                out.append(make(report))
    for key, make in (("programs", programs_table), ("program_threads", program_threads_table),
                      ("program_threads", reuse_table), ("threads", threads_table),
                      ("idle", idle_table)):
        table = make(report) if report.get(key) else None
        if table is not None and table.rows:
            out.append(table)
    return out


def _extras(report):
    lines = [_quantize_line(report)] if report.get("quantize") else []
    for key, title, before, after in (("concurrency", "Concurrency", "sequential", "2 threads"),
                                      ("dask", "Dask", "dask.array.clip", "fastclip.clip")):
        if report.get(key):
            t = report[key]["seconds"]
            lines.append(f"{title} ({report[key]['what']}): {before} {_time(t[before])}, "
                         f"{after} {_time(t[after])} ({t[before] / t[after]:.2f}x)")
    return lines


def render_text(report, full=False):
    lines = [system_line(report["system"])]
    for table in tables(report, full):
        widths = [max(len(str(c)) for c in col) for col in zip(table.columns, *table.rows)]
        lines += ["", table.title,
                  "  ".join(f"{c:<{w}}" for c, w in zip(table.columns, widths)).rstrip()]
        lines += ["  ".join(f"{c:<{w}}" for c, w in zip(row, widths)).rstrip() for row in table.rows]
        if table.legend:
            lines.append(table.legend)
    extras = _extras(report)
    if extras:
        lines += [""] + extras
    return "\n".join(lines)


def markdown_text(text):
    """text for a markdown page: 2**24 as 2^24 (a bare ** starts bold)."""
    return re.sub(r"(\d)\*\*(\d)", r"\1^\2", str(text))


def render_markdown(report, full=False):
    lines = [f"Measured on {system_line(report['system'], date=False)}; each cell the median "
             f"of {report['repeats']} interleaved repeats."]
    for table in tables(report, full):
        lines += ["", f"**{markdown_text(table.title)}**", "",
                  "| " + " | ".join(table.columns) + " |",
                  "|" + " --- |" * len(table.columns)]
        lines += ["| " + " | ".join(markdown_text(c) for c in row) + " |" for row in table.rows]
        if table.legend:
            lines += ["", markdown_text(table.legend)]
    extras = _extras(report)
    if extras:
        lines += [""] + [markdown_text(e) for e in extras]
    return "\n".join(lines)


def plot(report, path):
    """Speedup over np.clip by size, a panel a layout (needs matplotlib)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise SystemExit("--plot needs matplotlib: pip install matplotlib")
    from fastclip.bench.cases import LAYOUTS_FULL
    layouts = sorted({r["layout"] for r in report["results"]}, key=LAYOUTS_FULL.index)
    # a grid of three panels a row, the legend in a cell of its own: a page's
    # width holds it, and the file stays small enough to ship in the docs
    columns = min(3, len(layouts) + 1)
    rows = -(-(len(layouts) + 1) // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(3.6 * columns, 3.0 * rows), squeeze=False,
                             sharey=True)
    panels = axes.flatten()
    labels = list(dict.fromkeys(r.get("label", r["dtype"]) for r in report["results"]))
    colours = plt.get_cmap("tab20")
    for ax, layout in zip(panels, layouts):
        for i, name in enumerate(labels):
            pts = [(r["n"], r["seconds"]["np.clip"] / r["seconds"]["fastclip"])
                   for r in report["results"] if r.get("label", r["dtype"]) == name
                   and r["layout"] == layout]
            ax.plot(*zip(*pts), marker="o", markersize=3, label=name, color=colours(i % 20),
                    linestyle="-" if i < 10 else "--")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.axhline(1, color="gray", lw=0.8)
        ax.set_title(layout, fontsize=9)
        ax.tick_params(labelsize=7)
    for ax in axes[-1]:
        ax.set_xlabel("elements", fontsize=8)
    for ax in axes[:, 0]:
        ax.set_ylabel("speedup over np.clip", fontsize=8)
    key = panels[len(layouts)]
    key.axis("off")
    key.legend(*panels[0].get_legend_handles_labels(), loc="center", fontsize=7, ncol=2,
               frameon=False)
    for ax in panels[len(layouts) + 1:]:
        ax.axis("off")
    fig.suptitle(textwrap.fill(system_line(report["system"], date=False), 150), fontsize=6)
    fig.tight_layout()
    fig.savefig(path, dpi=90, pil_kwargs={"optimize": True})
