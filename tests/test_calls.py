"""Every kind of call a user makes, against np.clip (issue 10): Python and
NumPy scalars, 0-d arrays, lists and tuples as `a`, each with every kind of
scalar bound; the same result (type, dtype, bits), exception type and
warnings. The scalar path and the sequence path answer most of these without
NumPy; the rest must still be NumPy's answer."""

import itertools

import ml_dtypes
import numpy as np
import pytest

import fastclip
from tests.reference import assert_same_outcome, numpy_clip, outcome, reference_clip

NAN = float("nan")

SCALARS = [
    1.5, -0.0, 0.0, NAN, float("inf"), -float("inf"), 1e300,
    7, -3, 0, 2**53 + 1, 2**62, 2**63 - 1, 2**63, 2**64, 2**70, -2**63, -2**70, True,
    np.float64(1.5), np.float64(-0.0), np.float64(NAN), np.float32(-2.5), np.float32(NAN),
    np.float16(3), np.float16(-0.0), np.int8(5), np.int8(-128), np.uint8(200),
    np.int16(-7), np.uint16(65535), np.int32(-5), np.uint32(7), np.int64(9),
    np.longlong(-9), np.uint64(2**63 + 5), np.ulonglong(3), np.bool_(True),
    ml_dtypes.bfloat16(2.5), np.longdouble(1.5), np.complex128(1 + 2j),
]
ZERO_D = [np.array(v) for v in SCALARS if not isinstance(v, int) or abs(v) < 2**63]
SEQUENCES = [[1, 5, -3], [1.5, NAN, -0.0, 2.5], (1, 2, 3), (0.5, -2.0), [], (),
             [[1, 2], [3, 4]], [True, False], [1, 2.5], [2**63, 1], [2**70, 1],
             list(range(16)), [np.float32(1), np.float32(5)], [1 + 1j, 2],
             [ml_dtypes.bfloat16(1), ml_dtypes.bfloat16(5)]]
BOUNDS = [
    (0, 1), (0.5, 2.5), (-1, None), (None, 0), (NAN, 1), (0, NAN), (-0.0, 0.0),
    (0.0, -0.0), (3, 1), (0, 300), (-129, 5), (-1, 2**64), (2**70, 1),
    (np.float64(0.5), 3), (np.float32(0.5), 3), (np.int8(1), np.int8(4)),
    (np.float16(0.5), np.float16(2)), (ml_dtypes.bfloat16(0.5), 2), (True, 5),
    (np.array(1.0), 2), (1e39, 1e40),
]


def _ids(values):
    return [f"{type(v).__name__}({v!r})"[:40] for v in values]


@pytest.mark.parametrize("a", SCALARS + ZERO_D + SEQUENCES, ids=_ids(SCALARS + ZERO_D + SEQUENCES))
def test_scalars_zero_d_and_sequences(a):
    for lo, hi in BOUNDS:
        got = outcome(lambda: fastclip.clip(a, lo, hi))
        expected = outcome(lambda: reference_clip(a, lo, hi))
        assert_same_outcome(got, expected)


@pytest.mark.parametrize("a", [1.5, 7, np.float32(3), np.array(2.0), [1, 5, -3], (1.5, -2.0)],
                         ids=_ids([1.5, 7, np.float32(3), np.array(2.0), [1, 5, -3], (1.5, -2.0)]))
def test_with_out_and_keywords(a):
    """out=, min=/max= and ufunc keywords with non-array inputs: NumPy's answer."""
    shape, dtype = np.shape(a), np.asarray(a).dtype
    for kwargs in ({"min": 0, "max": 1}, {"dtype": np.float32}, {"casting": "unsafe"}):
        got = outcome(lambda: fastclip.clip(a, **({} if "min" in kwargs else {"a_min": 0, "a_max": 1}),
                                            **kwargs))
        expected = outcome(lambda: numpy_clip(a, **({} if "min" in kwargs else {"a_min": 0, "a_max": 1}),
                                              **kwargs))
        assert_same_outcome(got, expected)

    def with_out(clip):
        out = np.zeros(shape, dtype)
        return clip(a, 0, 1, out=out), out, None
    assert_same_outcome(outcome(lambda: with_out(fastclip.clip)),
                        outcome(lambda: with_out(numpy_clip)), with_out=True)


def test_every_kernel_scalar_type_takes_the_scalar_path():
    """Not a speed test: the scalar path must answer for each kernel scalar type
    (a NotImplemented there would send the call the slow way, still correct)."""
    from fastclip import _ufunc
    for value in [1.5, 7] + [np.dtype(c).type(3) for c in "bBhHiIlLqQefd"]:
        assert _ufunc._scalar_for_tests(value, 0, 2) is not NotImplemented, type(value)
    for value in [True, 2**70, ml_dtypes.bfloat16(1), np.longdouble(1), "1"]:
        assert _ufunc._scalar_for_tests(value, 0, 2) is NotImplemented, type(value)


def test_bounds_product_covers_pairs():
    """A guard on the table above: both orders of every interesting pair."""
    assert len(BOUNDS) == len(set(map(repr, BOUNDS)))
    assert any(lo is None for lo, _ in BOUNDS) and any(hi is None for _, hi in BOUNDS)
    assert list(itertools.islice(SCALARS, 1)) == [1.5]
