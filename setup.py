"""Build: render the Tempita templates, then compile the Cython extensions.

fastclip/_kernels.pyx.in is rendered once per SIMD target into
fastclip/_kernels_<target>.pyx (generated, never committed) and compiled with
that target's flags; fastclip._ufunc picks one at import. No -march=native (a
wheel built here must run on any x86-64) and never -ffast-math (it would break
NaN and signed-zero results).
"""

import os
import platform
import runpy

import numpy as np
from Cython.Build import cythonize
from Cython.Tempita import Template
from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE = runpy.run_path(os.path.join(HERE, "fastclip", "_dtypes.py"))

# target -> extra compiler flags (x86-64 only; other machines build baseline)
X86_TARGETS = {
    "baseline": [],
    "avx2": ["-mavx2", "-mfma", "-mf16c"],
    "avx512": ["-mavx2", "-mfma", "-mf16c", "-mavx512f", "-mavx512bw",
               "-mavx512vl", "-mavx512dq", "-mprefer-vector-width=512"],
}
IS_X86_64 = platform.machine().lower() in ("x86_64", "amd64")
TARGETS = X86_TARGETS if IS_X86_64 else {"baseline": []}

# Large calls are split across threads with OpenMP (csrc/parallel.h);
# FASTCLIP_NO_OPENMP=1 builds without it (one thread), e.g. for a compiler
# that lacks it.
OPENMP = [] if os.environ.get("FASTCLIP_NO_OPENMP") else ["-fopenmp"]

# Hot loops start on a 64-byte line. Without it, which rows hit a slow case
# depended on where the linker put each (identical) loop: n=2**24 out= on one
# thread, int64 'q' took 15.1 ms and uint32 4.8 ms while 'l' took 7.7 ms and
# int32 3.1 ms; aligned, no row is past 9.7 ms / 3.3 ms (8-byte rows a little
# slower than the lucky placements, none twice as slow).
LOOP_ALIGN = ["-falign-loops=64"]

COMMON = dict(
    include_dirs=[np.get_include(), os.path.join(HERE, "csrc")],
    define_macros=[("NPY_NO_DEPRECATED_API", "NPY_2_0_API_VERSION"),
                   ("NPY_TARGET_VERSION", "NPY_2_0_API_VERSION")],
    extra_compile_args=["-O3", "-fno-math-errno", "-Wno-unused-function"],
)


def render(template, target, out):
    text = Template(open(template).read(), name=template).substitute(
        DTYPES=TABLE["DTYPES"], EXPONENT_MASK=TABLE["EXPONENT_MASK"], target=target)
    header = f"# generated from {os.path.basename(template)} for target {target}, do not edit\n"
    text = header + text
    if not os.path.exists(out) or open(out).read() != text:
        with open(out, "w") as f:
            f.write(text)


def extensions():
    exts = []
    template = os.path.join("fastclip", "_kernels.pyx.in")
    for target, flags in TARGETS.items():
        pyx = os.path.join("fastclip", f"_kernels_{target}.pyx")
        render(template, target, pyx)
        kw = dict(COMMON)
        kw["extra_compile_args"] = COMMON["extra_compile_args"] + flags + OPENMP + LOOP_ALIGN
        kw["extra_link_args"] = OPENMP
        exts.append(Extension(f"fastclip._kernels_{target}", [pyx], **kw))
    kw = dict(COMMON)
    kw["extra_compile_args"] = COMMON["extra_compile_args"] + OPENMP
    kw["extra_link_args"] = OPENMP
    exts.append(Extension("fastclip._ufunc", [os.path.join("fastclip", "_ufunc.pyx")], **kw))
    return exts


setup(ext_modules=cythonize(extensions(), language_level=3,
                            compiler_directives={"embedsignature": True}))
