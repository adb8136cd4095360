"""Build: render the Tempita templates, then compile the Cython extensions.

src/fastclip/_kernels.pyx.in is rendered once per SIMD target into
src/fastclip/_kernels_<target>.pyx (generated, never committed) and compiled
with that target's flags; fastclip picks one at import. The flags come from
_build_utils: per compiler family (GCC, clang, Apple clang, MSVC) and per
*target* architecture (cross builds included), each SIMD target and OpenMP
probed with the compiler in use. No -march=native (a wheel built here must run
on any x86-64) and never -ffast-math (it would break NaN and signed-zero
results).

Environment: FASTCLIP_OPENMP=auto|required|off (see _build_utils.openmp_mode);
FASTCLIP_SIMD_TARGETS, the kernel targets to build (default all; see
_build_utils.chosen_targets).
"""

import glob
import os
import platform
import runpy
import sys
import sysconfig

import numpy as np
from Cython.Build import cythonize
from Cython.Tempita import Template
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import _build_utils as bu  # noqa: E402

PKG = os.path.join("src", "fastclip")
TABLE = runpy.run_path(os.path.join(HERE, PKG, "_dtypes.py"))
ARCH = bu.target_arch(os.environ, sysconfig.get_platform())
OPENMP_MODE = bu.openmp_mode(os.environ)
# The targets this architecture could have, less those FASTCLIP_SIMD_TARGETS
# leaves out; the compiler decides which it gets. (The family does not change
# which targets exist, only how they are spelled.)
TARGETS = bu.chosen_targets(os.environ, bu.simd_targets("gcc", ARCH))


# what the templates read of the dtype table
TEMPLATE_NAMES = ("DTYPES", "LARGEST_BITS", "FLOAT8", "INT_RANGE", "INT_WIDTHS", "ANY_BOUNDS",
                  "VECTOR_CONVERSIONS", "MASKED_CONVERSIONS", "WIDENINGS", "WIDENINGS_INTO",
                  "conversion_loops", "conversion_loop_name", "float8_kept_limit", "loop_constants",
                  "ML_ROUNDINGS")


def render(template, target, out):
    text = Template(open(template).read(), name=template).substitute(
        target=target, **{name: TABLE[name] for name in TEMPLATE_NAMES})
    what = f"generated from {os.path.basename(template)}" + (f" for target {target}" if target
                                                             else "") + ", do not edit"
    text = (f"/* {what} */\n" if out.endswith(".h") else f"# {what}\n") + text
    if not os.path.exists(out) or open(out).read() != text:
        with open(out, "w") as f:
            f.write(text)


KERNEL_PREFIX = "fastclip._kernels_"


def simd_target_of(ext):
    """The SIMD target of a kernel extension, None for the others (by name:
    cythonize hands build_ext new Extension objects)."""
    return ext.name[len(KERNEL_PREFIX):] if ext.name.startswith(KERNEL_PREFIX) else None


def extensions():
    common = dict(
        include_dirs=[np.get_include(), os.path.join(HERE, "csrc")],
        # a changed C helper rebuilds the modules that include it (cythonize
        # and build_ext otherwise see only the .pyx, and an edit to csrc/*.h
        # would leave stale loops in place)
        depends=sorted(glob.glob(os.path.join("csrc", "*.h"))
                       + glob.glob(os.path.join("csrc", "simd", "*.h"))),
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_2_0_API_VERSION"),
                       ("NPY_TARGET_VERSION", "NPY_2_0_API_VERSION")],
    )
    # the conversion loops' table, C rendered from the dtype table, which
    # every kernel module includes (found beside its generated .c)
    conversions = os.path.join(PKG, "_conversion_loops.h")
    vectors = os.path.join(PKG, "_conversion_vectors.h")
    render(os.path.join("csrc", "conversion_vectors.h.in"), None, vectors)
    render(os.path.join("csrc", "conversion_loops.h.in"), None, conversions)
    common["depends"] += [vectors, conversions]
    # the typed loops, a block a row of the table, which every kernel module
    # includes: their Cython and their C
    typed = os.path.join(PKG, "_typed_loops.h")
    render(os.path.join("csrc", "typed_loops.h.in"), None, typed)
    common["depends"].append(typed)
    render(os.path.join(PKG, "_kernel_loops.pxi.in"), None, os.path.join(PKG, "_kernel_loops.pxi"))
    exts = []
    template = os.path.join(PKG, "_kernels.pyx.in")
    for target in TARGETS:
        pyx = os.path.join(PKG, f"_kernels_{target}.pyx")
        render(template, target, pyx)
        exts.append(Extension(KERNEL_PREFIX + target, [pyx], **common))
    exts.append(Extension("fastclip._ufunc", [os.path.join(PKG, "_ufunc.pyx")], **common))
    return exts


class BuildExt(build_ext):
    """Flags chosen for the compiler that will build, found by probing it."""

    def finalize_options(self):
        super().finalize_options()
        # The extensions compile side by side, one a core: each kernel target
        # is a large C file, and two at a time on 2 cores take about half the
        # time (CI builds fastclip ten times).
        if self.parallel is None:
            self.parallel = os.cpu_count() or 1

    def build_extensions(self):
        family = bu.compiler_family(self.compiler)
        cross = ARCH != bu.target_arch({}, platform.machine())   # probes link, not run
        simd = {t: f for t, f in bu.simd_targets(family, ARCH).items() if t in TARGETS}
        env_cflags = os.environ.get("CFLAGS", "").split()
        usable = {}
        for target, flags in simd.items():
            probe = bu.SIMD_PROBES.get(target)
            if probe is None or bu.compiles(self.compiler, probe, env_cflags + flags):
                usable[target] = flags
            else:
                print(f"WARNING: fastclip: the {family} compiler cannot build the {target} "
                      f"target ({' '.join(flags)}); it is left out.", file=sys.stderr)
        kernel_extra = [f for f in bu.optional_kernel_flags(family)
                        if bu.compiles(self.compiler, "int main(void) { return 0; }\n", [f])]
        openmp = bu.check_openmp(self.compiler, family, OPENMP_MODE, cross)
        omp_c, omp_l = openmp if openmp else ([], [])
        print(f"fastclip: {family} compiler, target {ARCH}, SIMD targets "
              f"{', '.join(usable)}, OpenMP {'on (' + ' '.join(omp_c) + ')' if openmp else 'off'}",
              file=sys.stderr)

        kept = []
        for ext in self.extensions:
            target = simd_target_of(ext)
            if target is not None and target not in usable:
                continue
            ext.extra_compile_args = (bu.base_flags(family) + usable.get(target, [])
                                      + (kernel_extra if target else []) + omp_c)
            ext.extra_link_args = omp_l
            kept.append(ext)
        self.extensions[:] = kept
        super().build_extensions()


def license_metadata():
    """BSD-3-Clause as the running setuptools spells it: a PEP 639 expression
    from 77 on, the License field before (pip install --no-build-isolation
    uses whatever setuptools the environment has)."""
    import setuptools
    major = int(setuptools.__version__.split(".")[0])
    return ({"license_expression": "BSD-3-Clause", "license_files": ["LICENSE"]}
            if major >= 77 else {"license": "BSD-3-Clause"})


setup(ext_modules=cythonize(extensions(), language_level=3,
                            compiler_directives={"embedsignature": True}),
      cmdclass={"build_ext": BuildExt},
      **license_metadata())
