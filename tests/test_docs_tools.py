"""The tools that keep the docs honest: tools/check_prose.py finds what belongs
in a commit message, and tools/splice_bench.py puts a run's figures, and only
those, into the pages. Both run from a clone (CI runs them on the tree)."""

import importlib.util
import json
import pathlib
import subprocess
import sys

import pytest

TOOLS = pathlib.Path(__file__).resolve().parent.parent / "tools"
pytestmark = pytest.mark.skipif(not (TOOLS / "check_prose.py").exists(),
                                reason="not a clone: tools/ is not here")


def _check(tmp_path, name, text):
    """check_prose's findings for one file of that name and text."""
    path = tmp_path / name
    path.write_text(text)
    r = subprocess.run([sys.executable, str(TOOLS / "check_prose.py"), str(path)],
                       capture_output=True, text=True)
    found = [line.split(": ", 2)[1] for line in r.stdout.splitlines()]
    assert r.returncode == len(found), r.stdout + r.stderr
    return found


@pytest.mark.parametrize("line, what", [
    ("/* the loop took 12.5 us at n=1e5 */", "measured figure"),
    ("# 1.85x np.clip on this CPU", "measured figure"),
    ("# float32 15.2 -> 12.6 after the change", "measured figure"),
    ("# medians of 15 in three processes", "measured figure"),
    ("# the build took 58.5 s", "measured figure"),
    ("# fixed in 2d7a532, see there", "commit hash"),
    ("# seen on 2026-12-03 on a VM", "date"),
    ("# timed again in alternating pairs", "run narration"),
    ("# as in this run, the loop", "run narration"),
    ("# x's NaN (found by the fuzzer, float8_e5m2 (6, 6, 6))", "run narration"),
    ("    # found by fuzz/run: a non-native bfloat16 array", "run narration"),
    ("# (Hypothesis found it)", "run narration"),
    ('"""... the new result\'s, found by Hypothesis."""', "run narration"),
    ("#   gave +0.0, until test_one_sided_bounds_are_numpys had tiny bounds", "run narration"),
])
def test_check_prose_finds_what_belongs_in_a_commit_message(tmp_path, line, what):
    assert what in _check(tmp_path, "kernel.h", line + "\n")


@pytest.mark.parametrize("line", [
    "/* AVX2 has no 64-bit min: compare and blend */",
    "x = 3.3895313892515355e38   # bfloat16's largest",
    "# below 1.0x np.clip is a bug",
    "for offset in (0x7fc00000, 0xdeadbeef): pass",
    "# this runs once per process",
    'assert "4.00x" in text  # noqa: prose',
    '"""Flags chosen for the compiler that will build, found by probing it."""',
    'echo "the fuzzer found a difference under $target" >&2',
    "# the nearest of dst's finite values, found by search",
])
def test_check_prose_lets_reasons_through(tmp_path, line):
    assert _check(tmp_path, "kernel.py", line + "\n") == []


def test_check_prose_holds_docs_to_their_own_rules(tmp_path):
    """The docs carry figures (the benchmark's tables), but no hashes, dates
    or narration, and a markdown exponent outside code renders as bold."""
    assert _check(tmp_path, "page.md", "| float32 | 3.21x | 12.5 us |\n") == []
    assert _check(tmp_path, "page.md", "In this run float32 read 3.21x.\n") == ["run narration"]
    assert _check(tmp_path, "page.rst", "Fixed in 2d7a532.\n") == ["commit hash"]
    assert _check(tmp_path, "page.md", "at 2**24 elements, 2**22 too\n") == [
        "exponent outside code (renders as bold)"]
    assert _check(tmp_path, "page.md", "at `2**24` elements, 2^22 too\n") == []
    assert _check(tmp_path, "page.md", "```python\nx = np.ones(2**24)\n```\n") == []


def _splice_module():
    spec = importlib.util.spec_from_file_location("splice_bench", TOOLS / "splice_bench.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _report(np_clip_seconds):
    """A one-target report whose every row the README's table needs, with
    fastclip at 1 us and np.clip at np_clip_seconds."""
    splice = _splice_module()
    system = {"date": "d", "cpu": "Some CPU (family 1 model 2)", "cpus": 2, "simd_target": "avx2",
              "simd_compiled": ["avx2"], "fastclip": "0", "numpy": "2", "python": "3",
              "peers": [], "peers_missing": []}
    t = {"fastclip": 1e-6, "np.clip": np_clip_seconds, "np.copyto": 1e-6}
    results = [{"dtype": "float32", "n": n, "layout": "out", "seconds": t}
               for n in (16, 100000, 16777216)]
    groups = [g for g in splice.README_ROWS if not g.startswith(("one call", "clip and"))]
    calls = [{"group": g, "dtype": "float32", "case": "c", "seconds": t} for g in groups]
    return {"system": system, "repeats": 1, "results": results, "calls": calls,
            "convert": [{"pair": "float32->uint8", "seconds": t}]}


def test_splice_puts_the_runs_figures_between_the_markers_and_names_what_trails(tmp_path):
    splice = _splice_module()
    perf = "# P\n\nkept\n<!-- bench:avx2 -->\nold\n<!-- /bench:avx2 -->\nkept too\n"
    readme = "# R\n<!-- summary:avx2 -->\nold\n<!-- /summary:avx2 -->\nend\n"
    path = tmp_path / "run.json"
    path.write_text(json.dumps({"targets": [_report(4e-6)]}))
    new_perf, new_readme = splice.spliced(str(path), perf, readme)
    assert "old" not in new_perf and new_perf.startswith("# P\n\nkept\n")
    assert new_perf.endswith("<!-- /bench:avx2 -->\nkept too\n")
    assert "Some CPU (family 1 model 2)" in new_perf and "| where= | 4.00x |" in new_perf  # noqa: prose
    assert "**AVX2**: the avx2 build on Some CPU" in new_readme
    assert "No cell of the full run" in new_readme
    path.write_text(json.dumps({"targets": [_report(0.5e-6)]}))
    _, trailing = splice.spliced(str(path), perf, readme)
    assert "fastclip trails (AVX2): np.clip: float32 n=16 out (0.500x)" in trailing  # noqa: prose
    with pytest.raises(SystemExit, match="no '<!-- bench:avx2 -->'"):
        splice.spliced(str(path), "# no markers\n", readme)
