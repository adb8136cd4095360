"""python -m fastclip bench: the command line.

By default each SIMD target this CPU runs (from AVX2 up, where it has it) is
timed in a process of its own (FASTCLIP_SIMD set, and torch's and numba's
instruction sets held to the same level), and a summary is printed a target;
--full prints every table, --json keeps every figure. Progress goes to stderr.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

from fastclip.bench import report as rep
from fastclip.bench.cases import LAYOUTS_FULL
from fastclip.bench.peers import Peers

#: the environment that holds torch (ATen) and numba (LLVM) to a target's
#: instruction set, so a target's row compares like with like (numba: a CPU
#: name alone keeps the host's features; an empty feature list takes the
#: named CPU's)
PEER_ISA = {
    "baseline": {"ATEN_CPU_CAPABILITY": "default", "NUMBA_CPU_NAME": "x86-64",
                 "NUMBA_CPU_FEATURES": ""},
    # ATen has no SSE4.2 kernels: its default ones are the nearest
    "sse42": {"ATEN_CPU_CAPABILITY": "default", "NUMBA_CPU_NAME": "nehalem",
              "NUMBA_CPU_FEATURES": ""},
    "avx2": {"ATEN_CPU_CAPABILITY": "avx2", "NUMBA_CPU_NAME": "haswell",
             "NUMBA_CPU_FEATURES": ""},
    "avx512": {"ATEN_CPU_CAPABILITY": "avx512"},
}


def targets_to_time(requested):
    """The SIMD targets to time: those asked for (comma-separated, 'all' for
    every one this CPU runs), or by default every one it runs from AVX2 up."""
    from fastclip import _ufunc
    runs = [t for t in _ufunc.COMPILED_TARGETS
            if _ufunc.TARGETS.index(t) <= _ufunc.TARGETS.index(_ufunc.SIMD_TARGET)]
    if requested in (None, ""):
        # SSE4.2 and the portable build are for CPUs without AVX2: on one that
        # has it, `--simd all` times them
        wide = [t for t in runs if _ufunc.TARGETS.index(t) >= _ufunc.TARGETS.index("avx2")]
        return wide or runs[-1:]
    if requested == "all":
        return runs
    wanted = requested.split(",")
    unknown = [t for t in wanted if t not in runs]
    if unknown:
        raise SystemExit(f"--simd {requested}: this CPU and build run {', '.join(runs)}, "
                         f"not {', '.join(unknown)}")
    return wanted


def parser():
    p = argparse.ArgumentParser(
        prog="python -m fastclip bench",
        description="fastclip beside np.clip, np.copyto (a memory copy's pace) and the peers "
                    "installed (torch.clamp, numba, numexpr; onnx.reference, onnxruntime and torch "
                    "for quantize), timed side by side in one process, "
                    "medians of interleaved repeats, each SIMD target this CPU runs in a process "
                    "of its own.")
    p.add_argument("--quick", action="store_true", help="a short run (under a minute a target): "
                   "n=16 and 1e5 out=, a dtype a kind of call, the threads in a program in "
                   "short")
    p.add_argument("--full", action="store_true", help="print every table, not only the summary")
    p.add_argument("--markdown", action="store_true", help="print the tables as markdown")
    p.add_argument("--simd", help="SIMD targets to time, comma-separated, or 'all' "
                   "(default: each one this CPU runs from avx2 up)")
    p.add_argument("--dtypes", help="comma-separated dtype names (default: every row of the table)")
    p.add_argument("--sizes", help="comma-separated element counts of the main table")
    p.add_argument("--layouts", help="comma-separated: " + ",".join(LAYOUTS_FULL))
    p.add_argument("--repeats", type=int, help="samples per contender (their median is reported)")
    p.add_argument("--peers", default="torch,numba,numexpr,onnx,onnxruntime",
                   help="peers to time where installed (comma-separated; '' for none)")
    p.add_argument("--no-scale", action="store_true",
                   help="leave out the threads in a program, threads, idle-gap, concurrency and "
                        "Dask sections")
    p.add_argument("--no-calls", action="store_true",
                   help="leave out the every-call, address-sweep, clip-and-convert and quantize "
                        "sections")
    p.add_argument("--only", choices=("convert", "quantize", "idle", "program_threads",
                                      "programs"),
                   help="one section alone")
    p.add_argument("--programs", action="store_true",
                   help="also time real programs as they are and under fastclip.patched() "
                        "(those of their libraries installed); a full run has them")
    p.add_argument("--json", metavar="FILE", help="write every figure as JSON")
    p.add_argument("--plot", metavar="FILE.png", help="plot the main table's speedups (matplotlib)")
    p.add_argument("--from-json", metavar="FILE",
                   help="render a report saved by --json instead of timing (with --full, "
                        "--markdown, --plot)")
    p.add_argument("--in-process", action="store_true", help=argparse.SUPPRESS)
    return p


def _measure(args):
    """This process's report (its SIMD target: the one fastclip chose)."""
    from fastclip.bench import sections
    peers = Peers([p for p in args.peers.split(",") if p])
    progress = sys.stderr
    repeats = args.repeats or 9
    if args.only == "convert":
        return {"system": sections.system(peers), "repeats": repeats, "results": [],
                "convert": sections.convert(peers, repeats, 0.01, progress)}
    if args.only == "quantize":
        from fastclip.bench import quantize
        return {"system": sections.system(peers), "repeats": repeats, "results": [],
                "quantize": quantize.section(peers, repeats, 0.01, progress)}
    if args.only == "idle":
        return {"system": sections.system(peers), "repeats": repeats, "results": [],
                "idle": sections.idle(peers, repeats, progress=progress)}
    if args.only == "program_threads":
        return {"system": sections.system(peers), "repeats": repeats, "results": [],
                "program_threads": sections.program_threads(peers, repeats, progress)}
    if args.only == "programs":
        return {"system": sections.system(peers), "repeats": repeats, "results": [],
                "programs": sections.programs(repeats, progress)}
    report = sections.run(
        peers, quick=args.quick,
        dtypes=set(args.dtypes.split(",")) if args.dtypes else None,
        sizes=tuple(int(s) for s in args.sizes.split(",")) if args.sizes else None,
        layouts=tuple(args.layouts.split(",")) if args.layouts else None,
        repeats=args.repeats, scale=not args.no_scale, calls_too=not args.no_calls,
        progress=progress)
    if args.programs or not args.quick:
        report["programs"] = sections.programs(report["repeats"], progress)
    return report


def _measure_target(argv, target):
    """The report of a child process running this command for one target."""
    env = dict(os.environ, FASTCLIP_SIMD=target, **PEER_ISA.get(target, {}))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "report.json")
        print(f"== SIMD target {target}", file=sys.stderr, flush=True)
        subprocess.run([sys.executable, "-m", "fastclip", "bench", *argv, "--in-process",
                        "--json", path], env=env, check=True, stdout=subprocess.DEVNULL)
        with open(path) as f:
            return json.load(f)


def _strip(argv, flag, takes_value):
    out, skip = [], False
    for a in argv:
        if skip:
            skip = False
            continue
        if a == flag:
            skip = takes_value
            continue
        if takes_value and a.startswith(flag + "="):
            continue
        out.append(a)
    return out


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser().parse_args(argv)
    if args.layouts and not set(args.layouts.split(",")) <= set(LAYOUTS_FULL):
        parser().error(f"unknown layout in {args.layouts!r}; choose from {', '.join(LAYOUTS_FULL)}")
    if args.from_json:
        with open(args.from_json) as f:
            saved = json.load(f)
        reports = saved.get("targets", [saved])
    elif args.in_process:
        reports = [_measure(args)]
    else:
        targets = targets_to_time(args.simd)
        child_argv = argv
        for flag, value in (("--json", True), ("--plot", True), ("--simd", True),
                            ("--full", False), ("--markdown", False)):
            child_argv = _strip(child_argv, flag, value)
        reports = [_measure_target(child_argv, t) for t in targets]
    render = rep.render_markdown if args.markdown else rep.render_text
    print("\n\n".join(render(r, full=args.full) for r in reports))
    if args.json and not args.from_json:
        with open(args.json, "w") as f:
            json.dump(reports[0] if args.in_process else {"targets": reports}, f, indent=1)
    if args.plot and reports[0]["results"]:
        rep.plot(reports[-1], args.plot)
    return 0
