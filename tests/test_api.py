"""fastclip.clip's API: np.clip's signature, errors, bfloat16 and float8, configuration."""

import inspect
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import fastclip
from tests.reference import (BFLOAT16, FLOAT8, ML_FLOATS, assert_same, assert_same_outcome,
                             outcome, reference_clip)


def test_signature_is_numpys():
    ours = inspect.signature(fastclip.clip)
    theirs = inspect.signature(np.clip)
    assert list(ours.parameters) == list(theirs.parameters)
    for name, p in theirs.parameters.items():
        assert ours.parameters[name].kind == p.kind, name
        assert ours.parameters[name].default is p.default, name


@pytest.mark.parametrize("call,exc", [
    (lambda clip, a: clip(a, 1), TypeError),                       # a_max missing
    (lambda clip, a: clip(a, a_max=1), TypeError),                 # a_min missing
    (lambda clip, a: clip(a, 0, 1, min=0), ValueError),            # both spellings
    (lambda clip, a: clip(a.astype(np.uint8), 300, 400), OverflowError),
    (lambda clip, a: clip(a, 0, 1, out=np.empty(3)), ValueError),  # wrong shape
    (lambda clip, a: clip(a, 0, 1, out=[0] * 8), TypeError),       # not an array
    (lambda clip, a: clip(a, "x", 1), TypeError),                  # string bound
    (lambda clip, a: clip(a, 0, 1, bogus=1), TypeError),           # unknown keyword
], ids=["no-a_max", "no-a_min", "min-and-a_min", "uint8-overflow", "out-shape",
        "out-list", "str-bound", "bad-kwarg"])
def test_errors_are_numpys(call, exc):
    a = np.arange(8, dtype=np.int32)
    with pytest.raises(exc) as theirs:
        call(np.clip, a)
    with pytest.raises(exc) as ours:
        call(fastclip.clip, a)
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value) == str(theirs.value)


def test_read_only_out_is_refused_and_not_written():
    a = np.arange(5.0)
    out = np.zeros(5)
    out.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        fastclip.clip(a, 1, 3, out=out)
    assert (out == 0).all()


def test_nep50_python_scalars():
    i8 = np.arange(-5, 5, dtype=np.int8)
    assert_same(fastclip.clip(i8, 0, 300), np.clip(i8, 0, 300))   # bound dropped
    assert fastclip.clip(i8, 0, 300).dtype == np.int8
    assert fastclip.clip(i8, 0.5, 3).dtype == np.float64
    assert_same(fastclip.clip(i8, 0.5, 3), np.clip(i8, 0.5, 3))


def test_out_is_returned_and_in_place_works():
    a = np.linspace(-2, 2, 9, dtype=np.float32)
    expected = np.clip(a, -1, 1)
    out = np.empty_like(a)
    assert fastclip.clip(a, -1, 1, out=out) is out
    assert_same(out, expected)
    assert fastclip.clip(a, -1, 1, out=a) is a
    assert_same(a, expected)


def test_zero_d_gives_a_scalar_like_numpy():
    for v in (np.array(3.0), np.array(3, np.int16), np.array(-7, BFLOAT16),
              np.array(-7, FLOAT8[0]), np.array(-7, FLOAT8[1])):
        assert_same(fastclip.clip(v, 0, 1), reference_clip(v, 0, 1))


def test_no_warnings_for_nan_inputs():
    a = np.array([np.nan, 1.0, -np.inf], np.float32)
    with np.errstate(all="raise"):
        assert_same(fastclip.clip(a, 0, 0.5), np.clip(a, 0, 0.5))
        assert_same(fastclip.clip(a, np.float32(np.nan), 0.5), np.clip(a, np.float32(np.nan), 0.5))
        assert_same(fastclip.clip(a, a, a[::-1].copy()), np.clip(a, a, a[::-1].copy()))


def test_warnings_are_part_of_the_compared_outcome():
    """tests.reference's comparison, which the tests use wherever an input may
    raise a floating-point flag, fails when one side warns and the other is
    silent, or when they warn differently: the same result is not enough."""
    a = np.array([np.nan, 2.0], np.float32)

    def warns(message):
        def clip(*args, **kwargs):
            warnings.warn(message, RuntimeWarning)
            return np.clip(*args, **kwargs)
        return clip
    quiet = outcome(lambda: np.clip(a, 0, 1))
    noted = outcome(lambda: warns("invalid value encountered in clip")(a, 0, 1))
    assert_same_outcome(noted, outcome(lambda: warns("invalid value encountered in clip")(a, 0, 1)))
    for got, expected in ((noted, quiet), (quiet, noted),
                          (noted, outcome(lambda: warns("overflow encountered in cast")(a, 0, 1)))):
        with pytest.raises(AssertionError):
            assert_same_outcome(got, expected)


@pytest.mark.parametrize("dtype", ML_FLOATS, ids=str)
@pytest.mark.parametrize("bounds", [(-1.0, 1.0), (-1, 1), (None, 0.3), ("own", None),
                                    ("own array", "own array"), (1000, 2000), (-1e6, 1e39)])
def test_bfloat16_and_float8_keep_their_dtype(dtype, bounds):
    a = np.linspace(-3, 3, 101).astype(dtype)
    own = {"own": dtype.type(-1), "own array": np.array(-1, dtype)}
    overflows = 1e39 in bounds          # the Python bounds, before any is a bfloat16
    bounds = tuple(own.get(b, b) if isinstance(b, str) else b for b in bounds)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = fastclip.clip(a, *bounds)
        expected = reference_clip(a, *bounds)
    assert r.dtype == dtype
    assert_same(r, expected)
    # the warnings of the reference route (1e39 overflows float32) and no others
    assert len(caught) == (2 if overflows else 0), [str(w.message) for w in caught]
    # out= and in place keep the same values
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = np.empty_like(a)
        assert fastclip.clip(a, *bounds, out=out) is out
        assert_same(out, r)
        b = a.copy()
        assert fastclip.clip(b, *bounds, out=b) is b
        assert_same(b, r)


def test_float8_e4m3fn_bounds_saturate_instead_of_becoming_nan():
    # docs/semantics.rst: e4m3fn has no infinity; ml_dtypes casts 1000 to NaN, the
    # rule rounds it to the largest finite value, 448
    e4m3fn = FLOAT8[0]
    a = np.array([-448, -3, 0, 3, 448], np.float32).astype(e4m3fn)
    assert np.isnan(np.float32(1000).astype(e4m3fn))
    assert (fastclip.clip(a, 1000, 2000).astype(np.float32) == 448).all()
    assert (fastclip.clip(a, -2000, -1000.0).astype(np.float32) == -448).all()
    assert (fastclip.clip(a, -np.inf, np.inf) == a).all()
    assert_same(fastclip.clip(a, -1, float("inf")), reference_clip(a, -1, float("inf")))
    # e5m2 has infinity: 1e5 rounds to it, as ml_dtypes rounds
    e5m2 = FLOAT8[1]
    b = np.array([-7e4, 5e4], np.float32).astype(e5m2)
    assert_same(fastclip.clip(b, -1e5, 1e5), b)


def test_bfloat16_is_where_fastclip_differs_from_numpy():
    a = np.linspace(-3, 3, 11).astype(BFLOAT16)
    assert np.clip(a, -1.0, 1.0).dtype == np.float32
    assert fastclip.clip(a, -1.0, 1.0).dtype == BFLOAT16


def test_bfloat16_python_bound_rounds_through_float32():
    """A Python-number bound of a bfloat16 array rounds to float32, then to
    bfloat16 (docs/semantics.rst), whatever ml_dtypes' own double -> bfloat16
    cast does. 1 + 2**-8 + 2**-30 is 1 + 2**-8 in float32, halfway between
    bfloat16's 1.0 and 1.0078125, and ties to even: 1.0. Rounded once it
    would be 1.0078125."""
    a = np.array([1.0, 1.5, 2.0], BFLOAT16)
    lo = 1 + 2**-8 + 2**-30
    assert np.float32(lo) == 1 + 2**-8
    for clipped in (fastclip.clip(a, lo, 5.0), fastclip.clip(a[::-1], lo, 5.0)[::-1],
                    fastclip.clip(a.copy(), lo, 5.0, out=a.copy())):
        assert clipped.dtype == BFLOAT16
        assert clipped.view(np.uint16).tolist() == [0x3F80, 0x3FC0, 0x4000]   # 1.0, 1.5, 2.0
    assert_same(fastclip.clip(a, lo, 5.0), reference_clip(a, lo, 5.0))
    # the same bound rounds up where it is above the tie in float32 too
    up = 1 + 2**-8 + 2**-20
    assert fastclip.clip(a, up, 5.0).view(np.uint16)[0] == 0x3F81       # 1.0078125


def test_delegated_dtypes_are_numpys():
    for a in (np.array([1 + 2j, -3j]), np.array([True, False]), np.array([3, 9], "M8[D]"),
              np.array([1.5, -2.5], np.longdouble), np.array([1, "x"], object)[:1]):
        lo, hi = (a[:1], a[:1]) if a.dtype.kind in "MO" else (0, 1)
        assert_same(fastclip.clip(a, lo, hi), np.clip(a, lo, hi))


@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")  # np.matrix is the case
def test_subclasses_lists_and_scalars_are_numpys():
    m = np.ma.masked_array([1.0, 5.0, -3.0], mask=[0, 1, 0])
    r = fastclip.clip(m, 0, 2)
    assert isinstance(r, np.ma.MaskedArray) and r.mask.tolist() == [False, True, False]
    assert_same(fastclip.clip([1, 5, -3], 0, 2), np.clip([1, 5, -3], 0, 2))
    assert_same(fastclip.clip(5.5, 0, 2), np.clip(5.5, 0, 2))
    mat = np.matrix([[1, 5]])
    assert type(fastclip.clip(mat, 0, 2)) is np.matrix


def test_show_config_names_the_target(capsys):
    fastclip.show_config()
    text = capsys.readouterr().out
    from fastclip import _ufunc
    assert f"SIMD target: {_ufunc.SIMD_TARGET}" in text
    assert fastclip.__version__ in text


def run_python(code, **env):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, **env})


@pytest.mark.parametrize("target", ["baseline", "sse42", "avx2", "avx512"])
def test_fastclip_simd_forces_a_lower_target(target):
    from fastclip import _ufunc
    if target not in _ufunc.COMPILED_TARGETS:
        pytest.skip(f"{target} not compiled on this machine")
    code = "from fastclip import _ufunc; print(_ufunc.SIMD_TARGET)"
    r = run_python(code, FASTCLIP_SIMD=target)
    assert r.returncode == 0, r.stderr
    if _ufunc.TARGETS.index(target) <= _ufunc.CPU_LEVEL:
        expected = target
    else:
        # a target the CPU lacks: the best it runs, as with FASTCLIP_SIMD unset
        # (not this process's target, which a FASTCLIP_SIMD of the run lowers)
        expected = run_python(code, FASTCLIP_SIMD="").stdout.strip()
        assert expected != target
    assert r.stdout.strip() == expected


def test_bad_fastclip_simd_is_a_clear_error():
    r = run_python("import fastclip", FASTCLIP_SIMD="sse9")
    assert r.returncode != 0
    assert "FASTCLIP_SIMD='sse9'" in r.stderr and "baseline" in r.stderr
