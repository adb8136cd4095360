"""Failures Hypothesis (tests/test_properties.py) found, pinned as cases.

Each runs fastclip.clip and its oracle on fresh inputs and compares result,
exception type and warnings, like the property test."""

import ml_dtypes
import numpy as np
import pytest

import fastclip
from tests.reference import (ML_FLOATS, assert_same, assert_same_outcome, compare, numpy_clip,
                             outcome, reference_clip)

BF16 = ml_dtypes.bfloat16


def test_float16_nan_cast_to_int16_does_not_warn():
    # NumPy's clip loop clears the FP status, hiding the invalid flag its own
    # cast (float16 NaN -> int16) raised before the loop; ours must too.
    compare(lambda clip: clip(np.full((1, 1, 5), np.nan, np.float16), min=0, max=0,
                              dtype=np.int16, casting="unsafe"))


def test_type_error_repeats_warnings_like_wrapfunc():
    # np.clip's _wrapfunc retries a call that raised TypeError, so the cast
    # overflow warning appears twice before the error
    def make(clip):
        a = np.zeros((), np.int8)
        a.flags.writeable = False
        return clip(a, min=None, max=3.4028235677973366e38, out=np.zeros((), np.int8),
                    dtype=np.float32)
    compare(make)


def test_bfloat16_with_bool_bounds_is_numpys_float32():
    compare(lambda clip: clip(np.zeros(3, BF16), False, False))
    compare(lambda clip: clip(np.zeros((), BF16), False, 0))


def test_bfloat16_scalar_bound_on_the_fast_path():
    # PyArray_ScalarAsCtype does not read ml_dtypes scalars (gave garbage)
    x = np.array([1, 2, 3], BF16)
    nan = np.array([0x7FC0], np.uint16).view(BF16)[0]
    for lo, hi in [(BF16(0.5), BF16(2.0)), (nan, BF16(2.0)), (BF16(0.5), nan)]:
        compare(lambda clip: clip(x, lo, hi), oracle=reference_clip)


def test_bfloat16_missing_bound_and_nan_does_not_warn():
    # ml_dtypes' bfloat16 minimum warns 'invalid value'; np.clip in float32 does not
    x = np.array([np.nan, 1, -2, 3], np.float32).astype(BF16).reshape(2, 2)
    compare(lambda clip: clip(x, min=None, max=BF16(0.5)), oracle=reference_clip)
    compare(lambda clip: clip(x, -1.0, None), oracle=reference_clip)


def test_bfloat16_huge_python_int_bound_with_bfloat16_out():
    # NumPy's bfloat16 minimum rejects 2**63 ("expected number, got int"); the
    # bfloat16 rule's float32 route takes it: the array is unchanged
    x = np.array([0, 1], BF16)
    out = np.zeros(2, BF16)
    assert fastclip.clip(x, None, 2**63, out=out) is out
    assert_same(out, reference_clip(x, None, 2**63))


@pytest.mark.parametrize("dtype", [np.int16, np.float32])
def test_overlapping_out_goes_through_numpys_buffering(dtype):
    def make(clip):
        base = np.arange(-5, 6).astype(dtype)
        a, out = base[1:], base[:-1]
        return clip(a, -2, 2, out=out), base
    compare(lambda clip: make(clip)[1])


def test_byte_swapped_bfloat16_stays_bfloat16():
    # a non-native bfloat16 array is still bfloat16 (docs/semantics.rst)
    x = np.array([-2, 0.5, 3], BF16)
    swapped = x.byteswap().view(x.dtype.newbyteorder())
    r = fastclip.clip(swapped, 0, 1)
    assert r.dtype == BF16
    assert_same(r, reference_clip(x, 0, 1))


def test_python_int_beyond_uint64_as_a_bound():
    # NumPy takes its object loop for 2**64; so must we
    def make(clip):
        a = np.array(7, np.uint64)
        return clip(a, 2**64, np.array(-3, np.int64), out=np.zeros((), np.uint64))
    compare(make)
    compare(lambda clip: clip(np.arange(3.0), -2**70, 2**70))


def test_only_the_chosen_kernel_module_is_imported():
    # importing the AVX-512 build runs AVX-512 code in its module init, a
    # SIGILL on CPUs without it (valgrind's, for one)
    import subprocess
    import sys
    code = ("import sys, fastclip; from fastclip import _ufunc; "
            "print(_ufunc.SIMD_TARGET, sorted(m for m in sys.modules if '_kernels_' in m))")
    for target in ("baseline", "sse42", "avx2"):
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env={**__import__("os").environ, "FASTCLIP_SIMD": target})
        chosen, loaded = r.stdout.split(" ", 1)
        assert loaded.strip() == str([f"fastclip._kernels_{chosen}"]), r.stdout + r.stderr


@pytest.mark.parametrize("a_type, bound_type", [("l", "q"), ("q", "l"), ("L", "Q"), ("Q", "L")])
def test_equivalent_int64_types_in_array_bounds(a_type, bound_type):
    # int64 'l' and 'q' (and uint64 'L', 'Q') are equivalent but distinct
    # types; with a bound array of the other one NumPy's loop search may pick
    # its loop, and the result's scalar type follows. The fast path takes only
    # bounds of a's own type.
    compare(lambda clip: clip(np.zeros((), a_type), 0, np.zeros((), bound_type)))
    compare(lambda clip: clip(np.arange(6, dtype=a_type), 1, np.full(6, 3, bound_type)))


@pytest.mark.parametrize("first, then", [("l", "q"), ("q", "l"), ("L", "Q"), ("Q", "L")])
@pytest.mark.parametrize("x_type", ["i", "H"])
def test_equivalent_int64_types_in_scalar_bounds_of_a_wider_loop(x_type, first, then):
    # A narrower x with NumPy int64 scalar bounds: np.clip's loop, and its
    # result's type, is the bounds' own ('q' bounds: np.longlong). The wider
    # loop's cache once keyed bounds by dtype, and np.dtype('l') ==
    # np.dtype('q'): whichever came first answered for both.
    x = np.arange(-3, 9).astype(x_type)
    for t in (first, then):
        compare(lambda clip: clip(x, np.dtype(t).type(1), np.dtype(t).type(5)))
        compare(lambda clip: clip(x, np.dtype(t).type(1), 5))


def test_bfloat16_out_of_its_own_dtype_keeps_the_bfloat16_rule():
    # Hypothesis drew a "fresh-other" out whose dtype was bfloat16 itself; the
    # property test took NumPy as the oracle, whose route raises ("expected
    # number, got int": ml_dtypes converting 2**63). docs/semantics.rst: the bound
    # rounds to bfloat16 through float32 and the result stays bfloat16.
    for x, expected in ((0.0, 0.0), (3e19, float(np.float32(2**63)))):
        a = np.array(x, BF16)
        out = np.zeros((), BF16)
        r = fastclip.clip(a, min=None, max=2**63, out=out, casting="unsafe")
        assert r is out and out.dtype == BF16
        assert float(out) == float(np.float32(expected).astype(BF16))


@pytest.mark.parametrize("dtype", ML_FLOATS, ids=str)
def test_one_sided_ml_float_keeps_the_layout(dtype):
    # an F-ordered float8 with one bound None keeps its order (a float8
    # widened by table lookup would be a C-ordered copy)
    base = np.linspace(-3, 3, 15).astype(np.float32).astype(dtype).reshape(3, 5)
    for a in (base.T, base[::-1, ::2], np.asfortranarray(base), np.array(2.5, dtype)):
        for lo, hi in ((-1.0, None), (None, 1.0)):
            assert_same(fastclip.clip(a, lo, hi), reference_clip(a, lo, hi))


@pytest.mark.parametrize("dtype", ML_FLOATS, ids=str)
def test_ml_float_strided_view_with_zero_bounds_of_both_signs(dtype):
    # NumPy 2.1's iterator buffers scalar bounds in walks of several runs
    # (its per-element loop then gives the -0.0
    # bound); the bfloat16/float8 rule (docs/semantics.rst) is np.clip of a.astype(float32), one run,
    # which keeps x's +0.0. fastclip walks these itself.
    base = np.zeros((1, 4, 5, 10), dtype)
    for a in (base[..., ::-2], base[:, ::2, :, ::3], np.zeros((4, 5, 5), dtype).transpose(2, 0, 1)):
        for lo, hi in ((0, -0.0), (-0.0, 0.0), (float("nan"), 1.0)):
            assert_same(fastclip.clip(a, lo, hi), reference_clip(a, lo, hi))


FLOAT_KINDS = [np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64), *ML_FLOATS]


@pytest.mark.parametrize("dtype", FLOAT_KINDS, ids=[d.name for d in FLOAT_KINDS])
def test_one_element_with_array_bounds_of_its_rank(dtype):
    # One element, every axis of size 1: NumPy's iterator hands a bound of
    # a's rank to its per-element loop (a NaN x comes back itself, x wins a
    # -0.0/+0.0 tie) and a broadcast one to its scalar-bound loop (the bound's
    # NaN, the bound on a tie).
    unsigned = np.dtype(f"u{dtype.itemsize}")
    quiet = int(np.array(np.nan, np.float32).astype(dtype).view(unsigned))
    sign = 1 << (8 * dtype.itemsize - 1)
    for x_bits, b_bits in ((quiet | sign, quiet | 1), (sign, 0)):     # NaNs; -0.0 against +0.0
        for x_shape, b_shape in (((1,), (1,)), ((1, 1), (1, 1)), ((1, 1), (1,)), ((1,), ()),
                                 ((1, 1, 1), (1, 1, 1)), ((), (1,))):
            def make(clip, lo_is_array):
                a = np.full(x_shape, x_bits, unsigned).view(dtype)
                b = np.full(b_shape, b_bits, unsigned).view(dtype)
                return clip(a, b if lo_is_array else 0, b)
            for lo_is_array in (False, True):
                compare(lambda clip: make(clip, lo_is_array), oracle=reference_clip)


def test_byte_swapped_ml_floats_keep_the_rule_under_any_casting():
    # every operand has the array's format, in either byte order (a float8 of
    # the other order is the same bytes): casting= names no conversion to
    # refuse, 'no' included, and the result is native
    for dtype in ML_FLOATS:
        x = np.array([-3.0, 0.5, 7.0], np.float32).astype(dtype)
        swapped = x.byteswap().view(dtype.newbyteorder())
        for lo in (-1, None):
            for out in (None, np.zeros(3, dtype), np.zeros(3, dtype.newbyteorder())):
                for casting in ("no", "equiv", "safe"):
                    r = fastclip.clip(swapped, lo, 1, out=out, casting=casting)
                    assert r.dtype.newbyteorder("=") == dtype
                    assert (out is None and r.dtype.isnative) or r is out
                    assert_same(r.astype(dtype), reference_clip(x, lo, 1))


def test_one_sided_ml_float_into_an_out_too_small_for_the_bounds():
    # the broadcast shape of a and the bounds must fit out (a float8 0-d a
    # with a (1, 1) bound into a 0-d out): NumPy's ValueError, not a copy
    for dtype in ML_FLOATS:
        for lo in (None, 0):
            compare(lambda clip: clip(np.zeros((), dtype), lo, np.zeros((1, 1), dtype),
                                      out=np.zeros((), dtype)), oracle=reference_clip)


@pytest.mark.parametrize("shape", [(3, 0, 6, 4), (3, 2, 6, 4)], ids=["empty", "full"])
def test_signaling_nan_in_a_bound_that_numpy_casts_warns_as_numpy_does(shape):
    """An int64 x with a NaN and a float32 array bound holding a signaling
    NaN: NumPy's loop is float64 and it casts the bound itself, warning or
    not by how its iterator casts it (not at all beside an empty x). The
    widened route took the call and cast the bound another way: a warning
    NumPy did not give (a case from the fuzzer)."""
    hi = np.array([0x1f2e3dcd, 0xffa6a8cd, 0x4c63e604, 0x562d115c], np.uint32).view(np.float32)
    quiet_f64 = np.array([0.5, np.nan, -2.0, 1e300])    # a float64 array bound, no cast
    for a in (np.zeros(shape, np.int64), np.zeros(shape, np.float16)):
        for lo in (float("nan"), 0.5, quiet_f64):
            assert_same_outcome(outcome(lambda: fastclip.clip(a, lo, hi)),
                                outcome(lambda: numpy_clip(a, lo, hi)), messages=True)
            assert_same_outcome(outcome(lambda: fastclip.clip(a, hi, lo)),
                                outcome(lambda: numpy_clip(a, hi, lo)), messages=True)


def test_fuzz_e5m2_nan_x_with_nan_one_element_bound():
    """A float8_e5m2 (6, 6, 6) F-order x with a (6,) lower bound, which repeats along the
    inner axis, and a (1,) NaN upper bound; where x is a NaN too, fastclip
    gave the bound's NaN (the scalar-bound loop) and NumPy's float32 route
    keeps x's (its per-element loop). The fuzzer's own arrays."""
    import ml_dtypes
    from tests.reference import assert_same, reference_clip
    case = np.load(__file__.replace("test_regressions.py", "data/fuzz_e5m2_nan_bounds.npz"))
    e5m2 = np.dtype(ml_dtypes.float8_e5m2)
    a = np.asfortranarray(case["a"]).view(e5m2)
    lo, hi = case["lo"].view(e5m2), case["hi"].view(e5m2)
    assert_same(fastclip.clip(a, lo, hi), reference_clip(a, lo, hi))
