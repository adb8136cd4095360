"""The benchmark runs and reports what it says (its speed figures are not tested)."""

import json
import subprocess
import sys
import time

import numpy as np
import pytest

import fastclip
from fastclip import bench
from fastclip._dtypes import DTYPES
from fastclip.bench.timing import time_interleaved, with_threads


def test_cases_come_from_the_table_and_compute_the_same_thing():
    rng = np.random.default_rng(0)
    for row in DTYPES:
        for layout in bench.LAYOUTS_FULL:
            case = bench.make_case(row, 1000, layout, rng)
            assert {"fastclip", "np.clip", "np.copyto"} <= set(case)
            a, b = case["fastclip"](), case["np.clip"]()
            if row.char is not None:    # np.clip returns float32 for bfloat16 and float8
                assert a.dtype == b.dtype and np.array_equal(a, b), (row.name, layout)


def _quick(tmp_path, *more):
    out = tmp_path / "r.json"
    r = subprocess.run([sys.executable, "-m", "fastclip", "bench", "--quick", "--sizes", "16",
                        "--layouts", "new,out",
                        "--dtypes", "float32,bfloat16", "--repeats", "2", "--peers", "",
                        "--no-scale", "--no-calls", "--json", str(out), *more],
                       capture_output=True, text=True, check=True)
    return r, json.loads(out.read_text())


def test_quick_run_prints_a_summary_a_target_and_keeps_every_figure(tmp_path):
    from fastclip.bench.cli import targets_to_time
    r, report = _quick(tmp_path)
    targets = targets_to_time(None)
    assert [t["system"]["simd_target"] for t in report["targets"]] == targets
    lines = r.stdout.splitlines()
    assert sum("SIMD" in line and "numpy" in line for line in lines) == len(targets)
    assert sum(line.startswith("one call, n=16") for line in lines) == 2 * len(targets)
    for t in report["targets"]:
        assert len(t["results"]) == 4
        assert all(set(x["seconds"]) >= {"fastclip", "np.clip", "np.copyto"} for x in t["results"])
    assert "[1/4]" in r.stderr


def test_full_run_prints_every_row_by_numpy_dtype_name(tmp_path):
    r, _ = _quick(tmp_path, "--full", "--simd", "avx2" if "avx2" in _targets() else "baseline")
    rows = [line for line in r.stdout.splitlines() if line.startswith(("float32 ", "bfloat16 "))]
    assert len(rows) == 4


def test_default_targets_are_those_from_avx2_up_or_else_the_cpus_own():
    from fastclip import _ufunc
    from fastclip.bench.cli import targets_to_time
    runs = targets_to_time("all")
    from_avx2 = runs[runs.index("avx2"):] if "avx2" in runs else runs[-1:]
    assert targets_to_time(None) == from_avx2
    assert targets_to_time(None)[-1] == _ufunc.SIMD_TARGET


def _targets():
    from fastclip.bench.cli import targets_to_time
    return targets_to_time("all")


def test_markdown_is_the_same_tables(tmp_path):
    r, report = _quick(tmp_path, "--markdown", "--simd", _targets()[0])
    assert "| call | speedup over np.clip |" in r.stdout
    assert r.stdout.count("| one call, n=16,") == 2


def test_a_saved_report_renders_as_the_run_printed_it(tmp_path):
    r, _ = _quick(tmp_path, "--full")
    again = subprocess.run([sys.executable, "-m", "fastclip", "bench", "--full", "--from-json",
                            str(tmp_path / "r.json")],
                           capture_output=True, text=True, check=True)
    assert again.stdout == r.stdout


def test_unknown_target_says_what_runs():
    r = subprocess.run([sys.executable, "-m", "fastclip", "bench", "--simd", "sse9"],
                       capture_output=True, text=True)
    assert r.returncode != 0 and "this CPU and build run" in r.stderr


def test_asv_suite_is_generated_from_the_same_cases():
    sys.path.insert(0, "bench")
    try:
        from benchmarks.bench_clip import Clip
    finally:
        sys.path.pop(0)
    assert Clip.params[0] == [row.name for row in DTYPES]
    suite = Clip()
    suite.setup("half", 16, "strided", "fastclip")
    suite.time_clip("half", 16, "strided", "fastclip")


def test_plot_without_matplotlib_says_so(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(SystemExit, match="pip install matplotlib"):
        bench.plot({"results": [], "system": {}}, "x.png")


def test_every_call_case_computes_what_np_clip_does():
    seen = set()
    for group, dtype, case, funcs in bench.call_cases():
        seen.add(group)
        got, expected = funcs["fastclip"](), funcs["np.clip"]()
        if dtype == "bfloat16":     # np.clip computes bfloat16 in float32
            expected = np.asarray(expected).astype(np.asarray(got).dtype)
        assert type(got) is type(expected) or isinstance(got, np.ndarray), (group, case)
        if "no out" in case:
            # where= without out: masked-off elements are undefined in both
            assert (got.dtype, got.shape) == (expected.dtype, expected.shape)
            continue
        assert np.array_equal(np.asarray(got), np.asarray(expected), equal_nan=True), (group, dtype, case)
    assert seen == {"array bounds", "where=", "N-d views", "scalars and sequences", "other calls",
                    "fresh memory"}


@pytest.mark.parametrize("distance", bench.SWEEP_DISTANCES)
def test_address_sweep_puts_out_where_it_says(distance):
    case = bench.sweep_case(np.dtype(np.float32), distance, n=5000)
    out = case["np.copyto"].__closure__
    arrays = {id(c.cell_contents): c.cell_contents for c in out if isinstance(c.cell_contents, np.ndarray)}
    x, o = sorted(arrays.values(), key=lambda v: v.ctypes.data)
    assert (o.ctypes.data - x.ctypes.data) % 4096 == distance
    assert x.ctypes.data % 4096 == 0 and o.ctypes.data >= x.ctypes.data + x.nbytes
    case["fastclip"]()
    assert np.array_equal(o, np.clip(x, *bench.bounds(x.dtype)))


def test_tables_render_the_ratios():
    t = {"fastclip": 1e-6, "np.clip": 4e-6, "torch.clamp": 2e-6, "np.copyto": 1e-6}
    system = {"date": "d", "cpu": "c", "cpus": 2, "simd_target": "avx2", "simd_compiled": ["avx2"],
              "fastclip": "0", "numpy": "2", "python": "3", "peers": [], "peers_missing": ["numba"]}
    report = {"system": system, "repeats": 1, "results": [],
              "calls": [{"group": "where=", "dtype": "float32", "case": "c", "seconds": t}],
              "address_sweep": [{"dtype": "float32", "distance": d, "seconds": t} for d in (0, 64)]}
    text = bench.render_text(report, full=True)
    assert "4.00x" in text and "2.00x" in text and "not installed: numba" in text  # noqa: prose
    assert "1.00  1.00" in text
    assert "| where= | 4.00x |" in bench.render_markdown(report)  # noqa: prose


def test_conversion_table_sets_fastclip_against_numpys_cast_where_timed():
    """The conversion cases time NumPy's cast alone into the destination's
    dtype, and the table gives fastclip's time over it (a '-' in a report
    saved before it was timed)."""
    cases = list(bench.convert_cases(n=1000, quick=True))
    assert cases
    for pair, funcs in cases:
        funcs["np.copyto cast"]()
        cast = funcs["np.copyto cast"].__defaults__[1]
        source = funcs["np.copyto cast"].__defaults__[0]
        assert pair.endswith("->" + cast.dtype.name), pair
        assert np.array_equal(cast, source.astype(cast.dtype), equal_nan=True), pair
    t = {"fastclip": 1e-6, "np.clip": 4e-6, "np.copyto": 5e-7, "np.copyto cast": 2.5e-6}
    system = {"date": "d", "cpu": "c", "cpus": 2, "simd_target": "avx2", "simd_compiled": ["avx2"],
              "fastclip": "0", "numpy": "2", "python": "3", "peers": [], "peers_missing": []}
    report = {"system": system, "repeats": 1, "results": [],
              "convert": [{"pair": "int32->float64", "seconds": t},
                          {"pair": "int8->float64", "seconds": {k: v for k, v in t.items()
                                                                  if k != "np.copyto cast"}}]}
    rows = [line.split() for line in bench.render_text(report, full=True).splitlines()
            if line.startswith(("int32->float64", "int8->float64"))]
    assert rows[0][6:8] == ["2.00", "0.40"] and rows[1][6:8] == ["2.00", "-"]


def test_peers_compute_what_np_clip_does():
    """Each peer's function, where installed, gives np.clip's values."""
    from fastclip.bench.peers import Peers
    peers = Peers()
    rng = np.random.default_rng(0)
    for name in ("float32", "float64", "int32", "uint8"):
        row = next(r for r in DTYPES if np.dtype(r.char or "V2").name == name)
        for layout in ("out", "new"):       # new: each peer makes its own result
            case = bench.make_case(row, 1000, layout, rng, peers)
            case["np.clip"]()
            expected = case["np.clip"]()
            for peer in ("torch.clamp", "numba np.clip", "numba loop", "numexpr"):
                if peer in case:
                    got = case[peer]()
                    got = got.numpy() if hasattr(got, "numpy") else got
                    assert np.array_equal(np.asarray(got), expected), (name, layout, peer)


def test_command_line_explains_itself():
    import fastclip
    run = [sys.executable, "-m", "fastclip"]
    r = subprocess.run(run + ["--version"], capture_output=True, text=True, check=True)
    assert r.stdout.strip() == f"fastclip {fastclip.__version__}"
    r = subprocess.run(run + ["--help"], capture_output=True, text=True, check=True)
    assert "bench" in r.stdout and "config" in r.stdout and "--version" in r.stdout
    r = subprocess.run(run + ["nonsense"], capture_output=True, text=True)
    assert r.returncode == 2 and "--help" in r.stderr


def test_with_threads_sets_the_threads_for_every_timed_call():
    seen = {1: set(), 2: set()}
    before = fastclip.get_num_threads()
    try:
        funcs = {n: with_threads(n, lambda n=n: seen[n].add(fastclip.get_num_threads()))
                 for n in seen}
        time_interleaved(funcs, repeats=4, min_seconds=0.0)
    finally:
        fastclip.set_num_threads(before)
    assert seen == {1: {1}, 2: {2}}


def test_a_programs_clip_calls_are_timed_as_it_is_and_patched(monkeypatch):
    """The programs section times a program's np.clip calls inside it: NumPy's
    as it is, fastclip's under the patch, and leaves numpy.clip as it was."""
    from fastclip.bench import sections

    ran, wrappers = [], {}
    for name, f in (("numpy", np.clip), ("fastclip", fastclip.clip)):
        def slow(*args, f=f, name=name, **kwargs):
            time.sleep(0.004)
            ran.append(name)
            return f(*args, **kwargs)
        wrappers[name] = slow
        monkeypatch.setattr(*((np, "clip") if name == "numpy" else (fastclip, "clip")), slow)
    x = np.arange(10.0)

    def program():
        np.clip(x, 2, 5)
        time.sleep(0.004)
    result = sections._clip_seconds(program, repeats=3)
    assert sorted(ran) == ["fastclip"] * 3 + ["numpy"] * 3
    assert 0.3 < result["clip_share"] < 0.7
    assert all(0.004 <= s < 0.04 for s in result["clip_seconds"].values())
    assert np.clip is wrappers["numpy"]


@pytest.mark.parametrize("gap_ms", [0, 20])
def test_idle_times_torch_in_turn_with_the_others(monkeypatch, gap_ms):
    # a slow spell on a shared host must fall on every contender alike: the
    # peer's series come between the others', not after all of them; after
    # gaps that outlast every thread's spin, the turns are call by call
    from fastclip.bench import sections

    ran = []

    class FakePeers:
        torch = object()

        def torch_clamp(self, x, lo, hi, out):
            return lambda: ran.append("torch.clamp")

    monkeypatch.setattr(np, "clip", lambda *args, **kwargs: ran.append("np.clip"))
    monkeypatch.setattr(fastclip, "clip", lambda *args, **kwargs: ran.append("fastclip"))
    rows = sections.idle(FakePeers(), repeats=3, sizes=(1024,), gaps_ms=(gap_ms,), series=2,
                         warm=1, settle_s=0)
    assert {"np.clip", "torch.clamp", "fastclip 1 thread"} <= set(rows[0]["seconds"])
    first_torch = ran.index("torch.clamp")
    assert "fastclip" in ran[first_torch:] and "np.clip" in ran[first_torch:]
    if gap_ms < sections.IDLE_CALL_TURNS_MS:
        assert ran.count("torch.clamp") == ran.count("np.clip") == 3 * 2
    else:
        # one uncounted round, then a call each a round, as many as counted
        assert ran.count("torch.clamp") == ran.count("np.clip") == 1 + 3 * (2 - 1)
        assert all(a != b for a, b in zip(ran, ran[1:]) if a != "fastclip")


def test_clip_and_convert_is_set_against_a_copy_of_the_calls_bytes():
    """The clip-and-convert rows' floor moves what the call moves (the source
    read, the destination written), not a copy of the source alone."""
    for pair, funcs in bench.convert_cases(n=1000, quick=True):
        x, _, _, out = funcs["fastclip"].__defaults__
        src, dst = funcs["np.copyto"].__defaults__
        assert src.nbytes == dst.nbytes == (x.nbytes + out.nbytes) // 2, pair


def test_a_ratios_spread_is_its_10th_to_90th_percentile_round_by_round():
    from fastclip.bench.timing import ratio_spread
    samples = {"a": [float(k) for k in range(1, 12)], "b": [1.0] * 11}
    assert ratio_spread(samples, "a", "b") == [2.0, 6.0, 10.0]
    assert ratio_spread(samples, "b", "a")[1] == 1 / 6


@pytest.mark.parametrize("first, rounds", [
    ([], 4),                    # settled at once
    ([1.3], 8),                 # one noisy round: two more steps of two rounds
    ([1.0, 1.5, 0.7, 1.3], 12),  # never settled: three times the repeats
])
def test_rounds_are_added_until_the_spread_is_settled(monkeypatch, first, rounds):
    from fastclip.bench import timing
    script = iter(first + [1.0] * 100)

    def fake_rounds(funcs, numbers, samples, start, stop):
        for _ in range(start, stop):
            samples["a"].append(next(script))
            samples["b"].append(1.0)
    monkeypatch.setattr(timing, "_sample_rounds", fake_rounds)
    monkeypatch.setattr(timing, "calibrate", lambda f, min_seconds: 1)
    medians, spreads, done = timing.time_with_spread({"a": None, "b": None}, 4, 0.0,
                                                     {"a/b": ("a", "b")})
    assert done == rounds
    assert medians == {"a": 1.0, "b": 1.0}
    assert spreads["a/b"][1] == 1.0


def test_the_threads_table_prints_each_ratios_spread():
    t = {"fastclip 1 thread": 4e-3, "fastclip 2 threads": 2e-3, "np.clip": 8e-3,
         "np.copyto": 4e-3, "torch.clamp": 2.2e-3}
    row = {"dtype": "float32", "n": 2**24, "layout": "out", "threads": 2, "seconds": t,
           "spread": {"all vs torch": [0.95, 1.1, 1.25], "all vs np": [3.5, 4.0, 4.5],
                      "1t vs copyto": [0.9, 1.0, 1.1]}}
    table = bench.report.threads_table({"threads": [row]})
    cells = ["1.10x (0.95-1.25)", "4.00x (3.50-4.50)", "1.00 (0.90-1.10)"]  # noqa: prose
    assert table.rows[0][6:] == cells
    del row["spread"]       # a report saved before spreads were measured
    cells = ["1.10x", "4.00x", "1.00"]  # noqa: prose
    assert bench.report.threads_table({"threads": [row]}).rows[0][6:] == cells


@pytest.mark.skipif(not fastclip._ufunc._kernels.HAVE_OPENMP
                    or fastclip._threads._available_cpus() < 2,
                    reason="built without OpenMP, or one CPU")
@pytest.mark.thread_unsafe(reason="switches the thread count and the pool's mode")
def test_the_threads_in_a_program_section_runs_each_contender_as_named(monkeypatch):
    """Each contender's calls run under its own settings, seen from inside
    the calls (fastclip's default on all CPUs, one thread, the OpenMP loop),
    every contender gets its rounds, and the settings are restored after the
    section; its table gives wall and CPU time and fastclip over one thread."""
    from fastclip import _ufunc
    from fastclip.bench import program_threads as section
    seen = {}

    def clipper(name, torch=None):
        def clip(x, lo, hi, out):
            seen.setdefault(name, set()).add(
                (fastclip.get_num_threads(), _ufunc.pool_modes()["openmp"]))
            np.clip(x, lo, hi, out=out)
        return clip
    monkeypatch.setattr(section, "_clipper", clipper)
    x = np.linspace(-1, 1, 1000, dtype=np.float32)
    names = section.contenders(None)
    assert names == [section.DEFAULT, section.ONE, section.OPENMP, "np.clip"]
    samples = section._calls_case(names, None, 2, x, np.empty_like(x), 3, work=(1e-4,))
    cpus = fastclip._threads._available_cpus()
    assert seen == {section.DEFAULT: {(cpus, False)}, section.ONE: {(1, False)},
                    section.OPENMP: {(cpus, True)}, "np.clip": {(cpus, False)}}
    assert all(len(v) == 2 and v[0]["wall"] > 0 and v[0]["cpu"] >= 0 for v in samples.values())

    before = fastclip.get_num_threads()
    fastclip.set_num_threads(1)
    monkeypatch.setattr(section, "mlp", lambda peers, rounds, steps: [
        section._row("MLP step", "a step", section._calls_case(names, None, rounds, x,
                                                                np.empty_like(x), steps))])
    monkeypatch.setattr(section, "split_cpu", lambda peers, rounds, calls: [])
    try:
        rows = section.program_threads(None, repeats=3, quick=True)
        assert fastclip.get_num_threads() == 1 and _ufunc.pool_modes()["openmp"] is False
    finally:
        fastclip.set_num_threads(before)
    assert [r["case"] for r in rows] == ["MLP step", "wake-up"]
    assert set(rows[1]["seconds"]) == {"time", "caller's part"}
    row = {"case": "a case", "what": "its calls",
           "seconds": {section.DEFAULT: {"wall": 2e-3, "cpu": 3e-3},
                       section.ONE: {"wall": 4e-3, "cpu": 4e-3}},
           "spread": {"wall fastclip/1": [0.4, 0.5, 0.6], "cpu fastclip/1": [0.7, 0.75, 0.8]}}
    table = bench.report.program_threads_table({"program_threads": [row]})
    assert table.rows == [["a case", "2 ms, 3 ms CPU", "4 ms, 4 ms CPU",  # noqa: prose
                           "0.50 (0.40-0.60)", "0.75 (0.70-0.80)"]]


def test_a_first_calls_one_time_cost_does_not_set_the_batch():
    """A contender whose first call probes something (fastclip's one-sided
    calls do, once a process) is timed in batches like the others, not one
    call a sample."""
    from fastclip.bench.timing import calibrate
    calls = []

    def f():
        if not calls:
            time.sleep(0.05)
        calls.append(1)

    assert calibrate(f, 0.01) > 1
