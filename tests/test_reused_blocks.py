"""New results of 16 MiB and more take the blocks freed results left, where
the user asks for it (csrc/result_blocks.h, fastclip.set_reuse_mib): every
element rewritten, the cap kept, off by default, safe from several threads."""

import os
import subprocess
import sys
import threading

import numpy as np
import pytest
from numpy._core.multiarray import get_handler_name

import fastclip
from fastclip import _ufunc

pytestmark = pytest.mark.thread_unsafe(reason="the kept blocks are one set for the process")

MIB = 1 << 20
CAP_MIB = 128                       # what the tests keep
U = _ufunc.REUSE_MIN_BYTES          # the smallest result kept (16 MiB)
ROWS = U // 4096                    # rows of 1024 float32 making U bytes


@pytest.fixture(autouse=True)
def _empty_slots():
    cap = _ufunc.reuse_cap_bytes()
    fastclip.set_reuse_mib(CAP_MIB)         # gives back what earlier tests left
    yield
    fastclip.set_reuse_mib(cap >> 20)


def _bits(a):
    return a.view(f"u{a.dtype.itemsize}")


# (name, x of a fill, bounds): each call's result is at least U
CALLS = [
    ("float32, C order", lambda v: np.full((ROWS, 1024), v, np.float32), (-1.5, 2.5)),
    ("float64, F order", lambda v: np.asfortranarray(np.full((ROWS, 768), v)), (-1.5, 2.5)),
    ("uint8 widened by float bounds",
     lambda v: np.full((ROWS // 2, 1024), int(v * 10) % 256, np.uint8), (10.0, 200.0)),
    ("float32 with np.float64 bounds", lambda v: np.full((ROWS // 2, 1024), v, np.float32),
     (np.float64(-1.5), np.float64(2.5))),
    ("int16 per-element bounds", lambda v: np.full((2 * ROWS, 1024), int(v * 100), np.int16),
     (np.arange(1024, dtype=np.int16) - 600, np.int16(700))),
]


@pytest.mark.parametrize("name, make, bounds", CALLS, ids=[c[0] for c in CALLS])
def test_a_freed_results_block_is_reused_with_every_element_rewritten(name, make, bounds):
    lo, hi = bounds
    first = fastclip.clip(make(-3.0), lo, hi)
    assert first.nbytes >= _ufunc.REUSE_MIN_BYTES
    assert get_handler_name(first) == "fastclip_reused_blocks"
    address = first.ctypes.data
    del first
    _, _, hits = _ufunc.reused_blocks()
    x = make(1.25)
    second = fastclip.clip(x, lo, hi)
    assert second.ctypes.data == address, "the freed block was not taken"
    assert _ufunc.reused_blocks()[2] == hits + 1
    expected = np.clip(x, lo, hi)
    assert second.dtype == expected.dtype and second.strides == expected.strides
    assert np.array_equal(_bits(second), _bits(expected)), "an element kept the last call's value"


def test_small_results_and_out_are_numpys_own():
    assert get_handler_name(fastclip.clip(np.ones(1000), 0, 1)) == "default_allocator"
    # just under U: left to NumPy's allocator (a block malloc just freed is warm)
    assert get_handler_name(fastclip.clip(np.ones(U // 8 - 1), 0, 1)) == "default_allocator"
    out = np.empty(U // 8)
    fastclip.clip(np.ones(U // 8), 0, 1, out=out)
    assert get_handler_name(out) == "default_allocator"


def test_the_kept_bytes_stay_under_the_cap_and_the_oldest_go_first():
    fastclip.set_reuse_mib(5 * U >> 20)
    for nbytes in [U, 2 * U, 3 * U]:
        fastclip.clip(np.zeros(nbytes, np.uint8), 0, 1)     # made and freed at once
    count, held, _ = _ufunc.reused_blocks()
    # 1 + 2 fit, 3 more pushes out the oldest (1), then 2 + 3 = 5 fit
    assert (count, held) == (2, 5 * U)
    fastclip.clip(np.zeros(6 * U, np.uint8), 0, 1)          # larger than the cap: not kept
    assert _ufunc.reused_blocks()[:2] == (2, 5 * U)
    for k in range(12):
        fastclip.clip(np.zeros(U + 4096 * k, np.uint8), 0, 1)
    count, held, _ = _ufunc.reused_blocks()
    assert count <= 8 and held <= 5 * U


def test_reuse_off():
    fastclip.set_reuse_mib(0)
    r = fastclip.clip(np.ones(U // 4), 0, 1)
    assert get_handler_name(r) == "default_allocator"
    del r
    assert _ufunc.reused_blocks()[:2] == (0, 0)


def _python(code, **env):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=120)


def test_reuse_is_off_by_default_and_fastclip_reuse_mib_sets_the_cap():
    """By default nothing a program frees is kept; FASTCLIP_REUSE_MIB and
    set_reuse_mib turn reuse on, show_config says what is kept, and a bad
    value says what is wrong."""
    code = ("import numpy as np, fastclip\n"
            "from numpy._core.multiarray import get_handler_name\n"
            "print(get_handler_name(fastclip.clip(np.ones(1 << 21), 0, 1)))\n"   # 16 MiB
            "fastclip.show_config()\n")
    env = {k: v for k, v in os.environ.items() if k != "FASTCLIP_REUSE_MIB"}
    default = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env=env, timeout=120).stdout
    assert default.split()[0] == "default_allocator"
    assert "new results: fresh memory each time, nothing kept" in default
    assert _python(code, FASTCLIP_REUSE_MIB="0").stdout == default
    on = _python(code, FASTCLIP_REUSE_MIB="64").stdout
    assert on.split()[0] == "fastclip_reused_blocks"
    assert "up to 64 MiB kept, 16 MiB kept now" in on
    later = _python("import fastclip\nfastclip.set_reuse_mib(32)\n" + code).stdout
    assert later.split()[0] == "fastclip_reused_blocks" and "up to 32 MiB kept" in later
    bad = _python(code, FASTCLIP_REUSE_MIB="lots")
    assert bad.returncode != 0
    assert "ValueError: FASTCLIP_REUSE_MIB='lots': expected a whole number of MiB" in bad.stderr
    for wrong in (-1, 1.5, "8", True):
        with pytest.raises(ValueError, match="set_reuse_mib: expected a whole number of MiB"):
            fastclip.set_reuse_mib(wrong)


def test_a_resized_result_is_freed_by_size():
    r = fastclip.clip(np.arange(U // 8, dtype=np.float64), 10, 20)
    r.resize((U // 16 + 3,), refcheck=False)    # realloc through the same handler, to U / 2
    assert np.array_equal(r[:100], np.clip(np.arange(100.0), 10, 20))
    del r                                       # freed with its new size: below U, not kept
    assert _ufunc.reused_blocks()[:2] == (0, 0)


def test_threads_making_and_freeing_results_at_once_get_their_own_blocks():
    sizes = [U // 4, U // 4 + 1024, U // 2]     # float32: U, U + 4 KiB, 2 U
    failures = []
    start = threading.Barrier(4)

    def work(seed):
        rng = np.random.default_rng(seed)
        start.wait()
        for i in range(15):
            x = rng.standard_normal(sizes[i % 3], dtype=np.float32)
            r = fastclip.clip(x, -0.5, 0.5)
            x2 = rng.standard_normal(sizes[(i + 1) % 3], dtype=np.float32)
            r2 = fastclip.clip(x2, -1, 1)
            if not (np.array_equal(r, np.clip(x, -0.5, 0.5))
                    and np.array_equal(r2, np.clip(x2, -1, 1))):
                failures.append((seed, i))
            del r, r2

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures
    assert _ufunc.reused_blocks()[2] > 0, "no result took a kept block"


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork")
def test_a_forked_child_reuses_blocks_too():
    code = ("import os, numpy as np, fastclip\n"
            "from fastclip import _ufunc\n"
            "fastclip.set_reuse_mib(64)\n"
            "fastclip.clip(np.ones(2 << 20), 0, 1)    # a kept block, inherited by the child\n"
            "pid = os.fork()\n"
            "if pid == 0:\n"
            "    x = np.arange(2 << 20, dtype=np.float64)\n"
            "    ok = np.array_equal(fastclip.clip(x, 5, 9), np.clip(x, 5, 9))\n"
            "    os._exit(0 if ok and _ufunc.reused_blocks()[2] == 1 else 1)\n"
            "print(os.waitpid(pid, 0)[1])\n")
    r = _python(code)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["0"]
