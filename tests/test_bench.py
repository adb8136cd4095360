"""The benchmark runs and reports what it says (its speed figures are not tested)."""

import json
import subprocess
import sys

import numpy as np
import pytest

from fastclip import bench
from fastclip._dtypes import DTYPES


def test_cases_come_from_the_table_and_compute_the_same_thing():
    rng = np.random.default_rng(0)
    for row in DTYPES:
        for layout in bench.LAYOUTS_FULL:
            case = bench.make_case(row, 1000, layout, rng)
            assert {"fastclip", "np.clip", "np.copyto"} <= set(case)
            a, b = case["fastclip"](), case["np.clip"]()
            if row.char is not None:    # np.clip returns float32 for bfloat16 and float8
                assert a.dtype == b.dtype and np.array_equal(a, b), (row.name, layout)


def test_quick_run_prints_the_table_and_json(tmp_path):
    out = tmp_path / "r.json"
    r = subprocess.run([sys.executable, "-m", "fastclip", "bench", "--quick", "--sizes", "16",
                        "--dtypes", "float32,bfloat16", "--repeats", "2", "--no-torch", "--no-scale",
                        "--no-calls",
                        "--json", str(out)], capture_output=True, text=True, check=True)
    lines = r.stdout.splitlines()
    assert "SIMD" in lines[0] and "numpy" in lines[0]
    assert sum(line.startswith(("float32", "bfloat16")) for line in lines) == 4
    report = json.loads(out.read_text())
    assert len(report["results"]) == 4
    assert all(set(x["seconds"]) >= {"fastclip", "np.clip", "np.copyto"} for x in report["results"])
    assert "[1/4]" in r.stderr


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
        bench.plot({"results": [], "system": ""}, "x.png")


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
    assert np.array_equal(o, np.clip(x, *bench._bounds(x.dtype)))


def test_calls_table_formats():
    t = {"fastclip": 1e-6, "np.clip": 4e-6, "torch.clamp": 2e-6, "np.copyto": 1e-6}
    report = {"system": "s", "results": [],
              "calls": [{"group": "where=", "dtype": "float32", "case": "c", "seconds": t}],
              "address_sweep": [{"dtype": "float32", "distance": d, "seconds": t} for d in (0, 64)]}
    text = bench.format_table(report)
    assert "4.0x" in text and "2.00x" in text and "1.00   1.00" in text
