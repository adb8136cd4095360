"""How fastclip is compiled: the compiler family, the target architecture, and
the SIMD and OpenMP flags each combination gets.

Two layers, as in scikit-learn's ``sklearn/_build_utils/openmp_helpers.py``
and NumPy's compiler probes:

* pure tables (``target_arch``, ``simd_targets``, ``base_flags``,
  ``openmp_flags``, ``openmp_mode``): no compiler needed, so
  tests/test_build_flags.py checks them for every family and target,
  including MSVC, Apple clang and cross builds that cannot be compiled here;
* probes (``compiler_family``, ``compiles``, ``check_openmp``): small programs
  compiled with the compiler in use, so a flag the compiler lacks is dropped
  with a message instead of failing the build.

setup.py reads this package from the source tree; it is not installed.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap

FAMILIES = ("gcc", "clang", "apple-clang", "msvc")

# ---------------------------------------------------------------------------
# The target architecture, not the build host's: wheel builders cross-compile
# (macOS arm64 and universal2 from x86-64, Windows ARM64 from x64).

_ARCH_ALIASES = {
    "x86_64": "x86_64", "amd64": "x86_64", "x64": "x86_64", "intel": "x86_64",
    "aarch64": "aarch64", "arm64": "aarch64",
    "universal2": "universal2",
}


def _normalise_arch(name):
    name = name.lower()
    return _ARCH_ALIASES.get(name, name)


def target_arch(environ, platform_tag):
    """The architecture the extensions are compiled for.

    environ: the build's environment; platform_tag: ``sysconfig.get_platform()``
    (e.g. ``linux-x86_64``, ``macosx-11.0-arm64``, ``win-amd64``).
    Returns ``x86_64``, ``aarch64``, another machine name, or ``universal2``
    (several architectures in one binary, so no per-architecture flags).
    The cross-build settings come first: ``ARCHFLAGS`` (macOS, ``-arch X``,
    one or several), ``_PYTHON_HOST_PLATFORM`` (set by cibuildwheel and
    crossenv), ``VSCMD_ARG_TGT_ARCH`` (MSVC's developer prompt).
    """
    archflags = re.findall(r"-arch\s+(\S+)", environ.get("ARCHFLAGS", ""))
    if archflags:
        arches = {_normalise_arch(a) for a in archflags}
        return arches.pop() if len(arches) == 1 else "universal2"
    host = environ.get("_PYTHON_HOST_PLATFORM")
    if host:
        return _normalise_arch(host.rsplit("-", 1)[-1])
    vs_target = environ.get("VSCMD_ARG_TGT_ARCH")
    if vs_target:
        return _normalise_arch(vs_target)
    return _normalise_arch(platform_tag.rsplit("-", 1)[-1])


# ---------------------------------------------------------------------------
# Flags per compiler family

#: x86-64 SIMD targets, lowest first (fastclip._targets.TARGETS, the CPU
#: levels of csrc/cpu_features.h). GCC and clang spell out each extension;
#: sse42 is x86-64-v2 (SSE4.2, POPCNT; NumPy's own baseline from 2.4), for
#: CPUs without AVX2: SSE2 alone has no 64-bit compare and no 32-bit min/max,
#: so the baseline build's int64 and int32 loops are slower than np.clip's
#: own. MSVC builds no sse42 (its /arch:SSE4.2 is recent);
#: MSVC's /arch:AVX2 also lets it use FMA and F16C, /arch:AVX512 means
#: AVX-512 F/CD/BW/DQ/VL. The AVX-512 build vectorises at 256 bits (GCC's own
#: choice for AVX-512 CPUs), with AVX-512's instructions and mask registers: a
#: 512-bit build was slower on the memory-bound rows (docs/performance.md,
#: "Design decisions").
_X86_SIMD = {
    "gcc-like": {
        "baseline": [],
        "sse42": ["-msse4.2", "-mpopcnt"],
        "avx2": ["-mavx2", "-mfma", "-mf16c"],
        "avx512": ["-mavx2", "-mfma", "-mf16c", "-mavx512f", "-mavx512bw",
                   "-mavx512vl", "-mavx512dq", "-mprefer-vector-width=256"],
    },
    "msvc": {
        "baseline": [],
        "avx2": ["/arch:AVX2"],
        "avx512": ["/arch:AVX512"],
    },
}


def _style(family):
    if family not in FAMILIES:
        raise ValueError(f"unknown compiler family {family!r}: expected one of {FAMILIES}")
    return "msvc" if family == "msvc" else "gcc-like"


def simd_targets(family, arch):
    """{target: flags} to build for this compiler family and target
    architecture. Only an x86-64 target gets the x86 SIMD builds; any other
    (aarch64, universal2, ...) builds the portable kernels alone."""
    if arch != "x86_64":
        return {"baseline": []}
    return {t: list(f) for t, f in _X86_SIMD[_style(family)].items()}


def chosen_targets(environ, available):
    """The targets of *available* (simd_targets' keys) to build, by
    FASTCLIP_SIMD_TARGETS (names split by commas or spaces; unset or empty:
    all of them). baseline is always built: it is what a CPU below every
    other target runs. A name this compiler or architecture has no build for
    is left out as a target the compiler cannot build is; a name that is no
    target at all is an error."""
    value = environ.get("FASTCLIP_SIMD_TARGETS", "")
    names = value.replace(",", " ").lower().split()
    if not names:
        return list(available)
    known = _X86_SIMD["gcc-like"]
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"FASTCLIP_SIMD_TARGETS={value!r}: {', '.join(unknown)} is not a "
                         f"target; expected some of {', '.join(known)}")
    return [t for t in available if t == "baseline" or t in names]


def base_flags(family, environ=None):
    """Flags every extension gets. Never -ffast-math or /fp:fast: NaN and
    signed-zero results are part of the contract. -g0 after Python's own -g:
    the wheel carries the code, not its debug information, unless CFLAGS
    asks for -g (tools/sanitize does)."""
    if _style(family) == "msvc":
        return ["/O2"]
    environ = os.environ if environ is None else environ
    debug = any(f.startswith("-g") and f != "-g0" for f in environ.get("CFLAGS", "").split())
    return ["-O3", "-fno-math-errno", "-Wno-unused-function"] + ([] if debug else ["-g0"])


def optional_kernel_flags(family):
    """Flags the kernels get when the compiler accepts them (probed).

    -falign-loops=64: hot loops start on a 64-byte line; without it, which
    rows hit a slow case depended on where the linker put each (identical)
    loop. (clang accepts it from version 13.)

    -funroll-loops: GCC leaves the vectorised loops at one vector per
    iteration, slower in cache than NumPy's own unrolled loops."""
    if _style(family) == "msvc":
        return []
    return ["-falign-loops=64", "-funroll-loops"]


def openmp_flags(family):
    """(compile flags, link flags) that turn OpenMP on for this family.
    Apple clang has no -fopenmp driver flag: the preprocessor takes it and
    libomp (e.g. Homebrew's; its include and lib folders come from CFLAGS and
    LDFLAGS) is linked by hand."""
    if family == "msvc":
        return ["/openmp"], []
    if family == "apple-clang":
        return ["-Xpreprocessor", "-fopenmp"], ["-lomp"]
    _style(family)
    return ["-fopenmp"], ["-fopenmp"]


def openmp_mode(environ):
    """FASTCLIP_OPENMP: ``auto`` (default: use it when a test program builds
    and runs), ``required`` (fail the build without it) or ``off``."""
    value = environ.get("FASTCLIP_OPENMP", "").strip().lower()
    modes = {"": "auto", "auto": "auto", "1": "required", "required": "required",
             "on": "required", "0": "off", "off": "off"}
    if value not in modes:
        raise ValueError(f"FASTCLIP_OPENMP={environ['FASTCLIP_OPENMP']!r}: expected "
                         "auto, required (or 1) or off (or 0)")
    return modes[value]


# ---------------------------------------------------------------------------
# Probes with the compiler in use (a setuptools/distutils CCompiler)

def compiler_family(compiler):
    """gcc, clang, apple-clang or msvc, from the compiler's own macros."""
    if compiler.compiler_type == "msvc":
        return "msvc"
    words = [w for w in compiler.compiler_so if not w.startswith("-")]
    while words and os.path.basename(words[0]) in ("ccache", "sccache"):
        words = words[1:]
    try:
        macros = subprocess.run(words[:1] + ["-dM", "-E", "-x", "c", os.devnull],
                                capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return "gcc"    # distutils' unix compiler takes GCC's flags
    if "__apple_build_version__" in macros:
        return "apple-clang"
    if "__clang__" in macros:
        return "clang"
    return "gcc"


def compiles(compiler, code, flags, link_flags=None, run=False):
    """Whether `code` compiles with `flags`; with `link_flags`, also links;
    with `run`, also runs and returns what it printed ('' counts as failure)."""
    tmp = tempfile.mkdtemp(prefix="fastclip-probe-")
    src = os.path.join(tmp, "probe.c")
    with open(src, "w") as f:
        f.write(code)
    try:
        with _quiet():      # the compiler's complaints about a rejected flag
            objects = compiler.compile([src], output_dir=tmp, extra_postargs=list(flags))
            if link_flags is not None:
                compiler.link_executable(objects, "probe", output_dir=tmp,
                                         extra_postargs=list(link_flags))
        if not run:
            return True
        exe = os.path.join(tmp, "probe" + (".exe" if sys.platform == "win32" else ""))
        out = subprocess.run([exe], capture_output=True, text=True, timeout=60)
        return out.stdout if out.returncode == 0 else False
    except Exception:
        return False
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


class _quiet:
    """Send file descriptors 1 and 2 (the compiler's output) to /dev/null."""

    def __enter__(self):
        self.devnull = os.open(os.devnull, os.O_WRONLY)
        self.saved = [os.dup(1), os.dup(2)]
        os.dup2(self.devnull, 1)
        os.dup2(self.devnull, 2)

    def __exit__(self, *exc):
        for fd, saved in zip((1, 2), self.saved):
            os.dup2(saved, fd)
            os.close(saved)
        os.close(self.devnull)


SIMD_PROBES = {
    "sse42": """
        #include <nmmintrin.h>
        int main(void) {
            __m128i g = _mm_cmpgt_epi64(_mm_set1_epi64x(2), _mm_set1_epi64x(1));    /* SSE4.2 */
            __m128i m = _mm_max_epi32(g, _mm_set1_epi32(3));                        /* SSE4.1 */
            return _mm_cvtsi128_si32(m) + _mm_popcnt_u32((unsigned)_mm_cvtsi128_si32(g));
        }
    """,
    "avx2": """
        #include <immintrin.h>
        int main(void) {
            __m256 a = _mm256_fmadd_ps(_mm256_set1_ps(1.f), _mm256_set1_ps(2.f), _mm256_set1_ps(3.f));
            __m256i h = _mm256_max_epu16(_mm256_set1_epi16(1), _mm256_set1_epi16(2));
            __m128i p = _mm256_cvtps_ph(a, 0);
            return _mm_cvtsi128_si32(p) + _mm256_extract_epi32(h, 0);
        }
    """,
    "avx512": """
        #include <immintrin.h>
        int main(void) {
            __m512i b = _mm512_max_epu16(_mm512_set1_epi16(1), _mm512_set1_epi16(2));   /* BW */
            __m512d d = _mm512_and_pd(_mm512_set1_pd(1.), _mm512_set1_pd(2.));          /* DQ */
            __m256i v = _mm256_mask_mov_epi32(_mm256_set1_epi32(1), 3, _mm256_set1_epi32(2)); /* VL */
            return _mm512_reduce_add_epi32(_mm512_castpd_si512(d)) + _mm256_extract_epi32(v, 0)
                   + _mm_cvtsi128_si32(_mm512_castsi512_si128(b));
        }
    """,
}

OPENMP_PROBE = textwrap.dedent("""\
    #include <omp.h>
    #include <stdio.h>
    int main(void) {
        int n = 0;
        #pragma omp parallel reduction(+:n)
        n += 1;
        printf("nthreads=%d max=%d\\n", n, omp_get_max_threads());
        return 0;
    }
""")


def check_openmp(compiler, family, mode, cross):
    """(compile flags, link flags) for OpenMP, or None for a one-thread build.
    mode is openmp_mode()'s; a cross build links the probe but cannot run it."""
    if mode == "off":
        return None
    cflags, lflags = openmp_flags(family)
    # the probe is linked as a program, which distutils gives neither CFLAGS
    # nor LDFLAGS (where Homebrew's libomp is named, for instance)
    env_cflags = os.environ.get("CFLAGS", "").split()
    env_lflags = os.environ.get("LDFLAGS", "").split()
    ok = compiles(compiler, OPENMP_PROBE, env_cflags + cflags, env_lflags + lflags,
                  run=not cross)
    if ok and (cross or "nthreads=" in ok):
        return cflags, lflags
    message = (f"fastclip: OpenMP not available with this {family} compiler "
               f"(a test program with {' '.join(dict.fromkeys(cflags + lflags))} did not build and run); "
               "building a one-thread fastclip. Install the compiler's OpenMP runtime "
               "(e.g. Debian's libomp-dev for clang, Homebrew's libomp for Apple clang) "
               "and rebuild, or set FASTCLIP_OPENMP=off to silence this.")
    if mode == "required":
        raise RuntimeError(message.replace("building a one-thread fastclip",
                                           "FASTCLIP_OPENMP=required stops the build"))
    print("WARNING: " + message, file=sys.stderr)
    return None
