"""Real libraries' own tests with numpy.clip as NumPy's and as fastclip's.

    python tools/downstream.py            # the long run (pandas, scipy, matplotlib, xarray, dask)
    python tools/downstream.py --quick    # the part CI runs
    python tools/downstream.py LIB/PATH/test_x.py ...   # chosen modules (paths in site-packages)

Each test module runs twice in its own pytest process, once as it is and once
under fastclip.patch_numpy() (this file is also that process's pytest plugin:
pytest_configure below), and every test's outcome (passed, failed, skipped,
xfailed, error) is compared. Prints, per
library, the tests compared, the outcomes that changed (each one named), the
clip calls that went through fastclip, and the wall time both ways. Exits 1
when any outcome changed. The libraries must be installed (their wheels ship
their tests): pip install pandas scipy matplotlib xarray dask pytest hypothesis
pytz (xarray's tests import pytz).
"""

import argparse
import functools
import os
import subprocess
import sys
import sysconfig
import tempfile
import time
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))

# Modules whose code under test calls np.clip (the recorded-calls table of docs/performance.md) or that test
# clip itself; paths inside site-packages.
LONG = {
    "matplotlib": ["matplotlib/tests/test_ticker.py", "matplotlib/tests/test_colors.py",
                   "matplotlib/tests/test_image.py", "matplotlib/tests/test_streamplot.py",
                   "matplotlib/tests/test_widgets.py", "matplotlib/tests/test_contour.py"],
    "pandas": ["pandas/tests/frame/methods/test_cov_corr.py",
               "pandas/tests/series/methods/test_cov_corr.py",
               "pandas/tests/frame/methods/test_clip.py",
               "pandas/tests/series/methods/test_clip.py",
               "pandas/tests/test_nanops.py"],
    "scipy": ["scipy/optimize/tests/test_linesearch.py", "scipy/optimize/tests/test_nonlin.py",
              "scipy/stats/tests/test_mstats_basic.py", "scipy/optimize/tests/test__dual_annealing.py"],
    "xarray": ["xarray/tests/test_variable.py", "xarray/tests/test_dataarray.py",
               "xarray/tests/test_duck_array_ops.py"],
    # dask.array binds np.clip when it is imported (clip = wrap_elemwise(np.clip)):
    # these test that it behaves the same, not that it runs fastclip
    "dask": ["dask/array/tests/test_ufunc.py", "dask/array/tests/test_array_core.py"],
}
QUICK = {
    "matplotlib": ["matplotlib/tests/test_ticker.py"],
    "xarray": ["xarray/tests/test_variable.py"],
}


def outcomes(junit_xml):
    """{test id: outcome} from pytest's JUnit XML."""
    result = {}
    for case in ET.parse(junit_xml).getroot().iter("testcase"):
        key = f"{case.get('classname')}::{case.get('name')}"
        tags = {child.tag: child for child in case}
        if "error" in tags:
            state = "error"
        elif "failure" in tags:
            state = "failed"
        elif "skipped" in tags:
            state = "xfailed" if tags["skipped"].get("type") == "pytest.xfail" else "skipped"
        else:
            state = "passed"
        # a test can appear twice (a teardown error); the worse outcome wins
        if result.get(key) not in ("error", "failed"):
            result[key] = state
    return result


def prepare(site, lib):
    """matplotlib's wheel ships its tests but not their baseline images, and
    its tests package refuses to import without that folder: an empty one lets
    the modules run (image comparisons then fail the same way on both sides;
    the tick, colour and widget logic runs for real)."""
    if lib == "matplotlib":
        os.makedirs(os.path.join(site, "matplotlib", "tests", "baseline_images"), exist_ok=True)


def run_module(path, patched, site):
    """(outcomes, seconds, clip calls through fastclip) of one pytest run."""
    with tempfile.TemporaryDirectory() as tmp:
        xml = os.path.join(tmp, "junit.xml")
        count = os.path.join(tmp, "count")
        env = dict(os.environ, FASTCLIP_DOWNSTREAM_PATCH="1" if patched else "0",
                   FASTCLIP_DOWNSTREAM_COUNT=count, MPLBACKEND="agg",
                   PYTHONPATH=os.pathsep.join([HERE, os.environ.get("PYTHONPATH", "")]))
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
               "-p", "downstream", f"--junitxml={xml}", "--rootdir", site,
               "-o", "addopts=", os.path.join(site, path)]
        start = time.perf_counter()
        proc = subprocess.run(cmd, cwd=site, env=env, capture_output=True, text=True)
        seconds = time.perf_counter() - start
        if not os.path.exists(xml):
            raise RuntimeError(f"pytest did not run {path}:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
        calls = 0
        if patched and os.path.exists(count):
            with open(count) as f:
                calls = int(f.read())
        result = outcomes(xml)
        if proc.returncode in (2, 3, 4) or not result:
            # interrupted, internal error, usage error or nothing collected: a
            # comparison of two broken runs would prove nothing
            raise RuntimeError(f"pytest could not run {path} (exit {proc.returncode}):\n"
                               f"{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
        return result, seconds, calls


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the part CI runs")
    parser.add_argument("modules", nargs="*", help="test modules, paths inside site-packages")
    args = parser.parse_args(argv)
    site = sysconfig.get_paths()["purelib"]
    if args.modules:
        plan = {}
        for m in args.modules:
            plan.setdefault(m.split("/")[0], []).append(m)
    else:
        plan = QUICK if args.quick else LONG
    changed_total = 0
    rows = []
    for lib, modules in plan.items():
        prepare(site, lib)
        for k, path in enumerate(modules):
            if not os.path.exists(os.path.join(site, path)):
                print(f"{path}: not installed (pip install {lib})", file=sys.stderr)
                return 2
            # alternate the order, so a warm cache does not always favour one side
            sides = (False, True) if k % 2 == 0 else (True, False)
            res = {patched: run_module(path, patched, site) for patched in sides}
            (plain, t_plain, _), (under, t_patch, calls) = res[False], res[True]
            changed = sorted(t for t in set(plain) | set(under) if plain.get(t) != under.get(t))
            changed_total += len(changed)
            counts = {s: sum(1 for v in plain.values() if v == s)
                      for s in ("passed", "failed", "skipped", "xfailed", "error")}
            rows.append((lib, path, len(plain), counts, len(changed), calls, t_plain, t_patch))
            for t in changed[:20]:
                print(f"  CHANGED {t}: {plain.get(t)} -> {under.get(t)}")
            print(f"{path}: {len(plain)} tests ({', '.join(f'{v} {k}' for k, v in counts.items() if v)}), "
                  f"{len(changed)} changed, {calls} clip calls through fastclip, "
                  f"{t_plain:.1f} s as is, {t_patch:.1f} s patched", flush=True)
    print("\n| library | test modules | tests compared | outcomes changed | clip calls through fastclip "
          "| wall time as is | patched |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for lib in plan:
        mine = [r for r in rows if r[0] == lib]
        print(f"| {lib} | {len(mine)} | {sum(r[2] for r in mine)} | {sum(r[4] for r in mine)} | "
              f"{sum(r[5] for r in mine)} | {sum(r[6] for r in mine):.1f} s | {sum(r[7] for r in mine):.1f} s |")
    print(f"\noutcomes changed by the patch: {changed_total}")
    return 1 if changed_total else 0


# ---- the pytest plugin of each run: with FASTCLIP_DOWNSTREAM_PATCH=1,
# fastclip.patch_numpy() before any test module is imported, and the number of
# numpy.clip calls that reached fastclip written to FASTCLIP_DOWNSTREAM_COUNT
# (a thin wrapper around the patched numpy.clip counts them: the patch was
# really exercised)

_calls = 0


def pytest_configure(config):
    if os.environ.get("FASTCLIP_DOWNSTREAM_PATCH") != "1":
        return
    import numpy
    import fastclip

    fastclip.patch_numpy()
    patched = numpy.clip

    @functools.wraps(patched)
    def counting_clip(*args, **kwargs):
        global _calls
        _calls += 1
        return patched(*args, **kwargs)

    numpy.clip = counting_clip


def pytest_unconfigure(config):
    path = os.environ.get("FASTCLIP_DOWNSTREAM_COUNT")
    if path and os.environ.get("FASTCLIP_DOWNSTREAM_PATCH") == "1":
        with open(path, "w") as f:
            f.write(str(_calls))


if __name__ == "__main__":
    sys.exit(main())
