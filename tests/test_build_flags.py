"""The build's choices (_build_utils): which flags each compiler family and
target architecture gets, including the compilers and cross builds that
cannot be run here (MSVC, Apple clang, macOS universal2/arm64, Windows ARM64);
and that the modules in use were really compiled for their SIMD target."""

import importlib
import os
import platform
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
bu = pytest.importorskip("_build_utils", reason="the build helpers ship in the source tree")

from fastclip import _ufunc  # noqa: E402


@pytest.mark.parametrize("environ, platform_tag, arch", [
    ({}, "linux-x86_64", "x86_64"),
    ({}, "linux-aarch64", "aarch64"),
    ({}, "win-amd64", "x86_64"),
    ({}, "win-arm64", "aarch64"),
    ({}, "macosx-11.0-arm64", "aarch64"),
    ({}, "macosx-10.9-x86_64", "x86_64"),
    ({}, "macosx-10.9-universal2", "universal2"),
    ({}, "linux-ppc64le", "ppc64le"),
    # cross builds: the target's settings win over the build host's platform
    ({"ARCHFLAGS": "-arch arm64"}, "macosx-10.9-x86_64", "aarch64"),
    ({"ARCHFLAGS": "-arch x86_64"}, "macosx-11.0-arm64", "x86_64"),
    ({"ARCHFLAGS": "-arch arm64 -arch x86_64"}, "macosx-10.9-x86_64", "universal2"),
    ({"_PYTHON_HOST_PLATFORM": "macosx-11.0-arm64"}, "macosx-10.9-x86_64", "aarch64"),
    ({"_PYTHON_HOST_PLATFORM": "linux-aarch64"}, "linux-x86_64", "aarch64"),
    ({"VSCMD_ARG_TGT_ARCH": "arm64"}, "win-amd64", "aarch64"),
    ({"VSCMD_ARG_TGT_ARCH": "x64"}, "win-amd64", "x86_64"),
])
def test_target_arch(environ, platform_tag, arch):
    assert bu.target_arch(environ, platform_tag) == arch


@pytest.mark.parametrize("family", ["gcc", "clang", "apple-clang"])
def test_gcc_like_x86_64_gets_four_targets(family):
    t = bu.simd_targets(family, "x86_64")
    assert list(t) == list(_ufunc.TARGETS)
    assert t["baseline"] == []
    assert t["sse42"] == ["-msse4.2", "-mpopcnt"]
    assert {"-mavx2", "-mfma", "-mf16c"} <= set(t["avx2"])
    assert {"-mavx512f", "-mavx512bw", "-mavx512vl", "-mavx512dq"} <= set(t["avx512"])
    assert not any(f.startswith("/") for flags in t.values() for f in flags)


def test_msvc_x86_64_gets_its_own_spelling():
    t = bu.simd_targets("msvc", "x86_64")
    assert t == {"baseline": [], "avx2": ["/arch:AVX2"], "avx512": ["/arch:AVX512"]}
    assert bu.base_flags("msvc") == ["/O2"]
    assert bu.optional_kernel_flags("msvc") == []
    assert bu.openmp_flags("msvc") == (["/openmp"], [])


@pytest.mark.parametrize("family", bu.FAMILIES)
@pytest.mark.parametrize("arch", ["aarch64", "universal2", "ppc64le", "riscv64"])
def test_other_architectures_build_only_the_portable_kernels(family, arch):
    assert bu.simd_targets(family, arch) == {"baseline": []}


@pytest.mark.parametrize("value, family, arch, chosen", [
    (None, "gcc", "x86_64", ["baseline", "sse42", "avx2", "avx512"]),
    ("", "gcc", "x86_64", ["baseline", "sse42", "avx2", "avx512"]),
    ("avx2", "gcc", "x86_64", ["baseline", "avx2"]),          # baseline always
    ("AVX512, baseline", "clang", "x86_64", ["baseline", "avx512"]),
    ("sse42 avx2", "msvc", "x86_64", ["baseline", "avx2"]),    # MSVC has no sse42 build
    ("avx2,avx512", "gcc", "aarch64", ["baseline"]),
])
def test_simd_targets_to_build(value, family, arch, chosen):
    environ = {} if value is None else {"FASTCLIP_SIMD_TARGETS": value}
    assert bu.chosen_targets(environ, bu.simd_targets(family, arch)) == chosen


def test_simd_targets_to_build_rejects_what_is_no_target():
    with pytest.raises(ValueError, match="FASTCLIP_SIMD_TARGETS='avx2,neon': neon is not"):
        bu.chosen_targets({"FASTCLIP_SIMD_TARGETS": "avx2,neon"},
                          bu.simd_targets("gcc", "x86_64"))


@pytest.mark.parametrize("family", ["gcc", "clang", "apple-clang"])
def test_gcc_like_flags(family):
    flags = bu.base_flags(family, {})
    assert "-O3" in flags and "-Wno-unused-function" in flags
    assert not any("fast-math" in f or f.startswith("-march") for f in flags)
    # no debug information in a wheel, unless CFLAGS asks for it
    assert "-g0" in flags
    assert "-g0" not in bu.base_flags(family, {"CFLAGS": "-fsanitize=address -g"})


def test_openmp_flags_per_family():
    assert bu.openmp_flags("gcc") == (["-fopenmp"], ["-fopenmp"])
    assert bu.openmp_flags("clang") == (["-fopenmp"], ["-fopenmp"])
    assert bu.openmp_flags("apple-clang") == (["-Xpreprocessor", "-fopenmp"], ["-lomp"])
    with pytest.raises(ValueError, match="unknown compiler family"):
        bu.openmp_flags("icc")


@pytest.mark.parametrize("value, mode", [
    (None, "auto"), ("", "auto"), ("auto", "auto"), ("AUTO", "auto"),
    ("required", "required"), ("1", "required"), ("on", "required"),
    ("off", "off"), ("0", "off"),       # "0" is off, not "set, so off"
])
def test_openmp_mode(value, mode):
    environ = {} if value is None else {"FASTCLIP_OPENMP": value}
    assert bu.openmp_mode(environ) == mode


def test_openmp_mode_rejects_what_it_does_not_know():
    with pytest.raises(ValueError, match="FASTCLIP_OPENMP='yes please'"):
        bu.openmp_mode({"FASTCLIP_OPENMP": "yes please"})


@pytest.mark.skipif(not (sys.platform.startswith("linux") and platform.machine() == "x86_64"
                         and os.path.exists("/proc/cpuinfo")),
                    reason="reads the x86 flags of Linux's /proc/cpuinfo")
def test_cpu_level_agrees_with_the_kernels_cpuinfo_flags():
    """csrc/cpu_features.h reads CPUID and XCR0 bits by number; Linux names
    the same features in /proc/cpuinfo (and drops those the OS does not
    enable). A wrong bit would choose a lower target without a word, or a
    higher one and a SIGILL."""
    with open("/proc/cpuinfo") as f:
        flags = next(set(line.split(":", 1)[1].split()) for line in f if line.startswith("flags"))
    needs = [{"ssse3", "sse4_1", "sse4_2", "popcnt"},                  # sse42
             {"avx", "fma", "f16c", "avx2"},                            # avx2
             {"avx512f", "avx512dq", "avx512bw", "avx512vl"}]           # avx512
    expected = 0
    while expected < len(needs) and needs[expected] <= flags:
        expected += 1
    assert _ufunc.CPU_LEVEL == expected, sorted(flags)


def test_modules_were_compiled_for_their_target():
    """A kernel module whose SIMD flags were lost would be baseline code under
    an AVX-512 name (it happened: cythonize copies the Extension objects)."""
    runnable = [t for t in _ufunc.COMPILED_TARGETS if _ufunc.TARGETS.index(t) <= _ufunc.CPU_LEVEL]
    assert runnable
    for target in runnable:
        module = importlib.import_module("fastclip._kernels_" + target)
        assert module.TARGET == target
        assert module.COMPILED_LEVEL == _ufunc.TARGETS.index(target), target
