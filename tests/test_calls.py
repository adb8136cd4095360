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


# ---------------------------------------------------------------------------
# where= into a given out (the masked kernel of the fast path)

from fastclip._dtypes import DTYPES, numpy_dtype  # noqa: E402
from tests.arrays import typical_bounds, values  # noqa: E402
from tests.reference import assert_same  # noqa: E402

KERNEL = [numpy_dtype(r) for r in DTYPES]


def _masked_expected(a, lo, hi, out_before, mask):
    """The unmasked reference, blended into out's old contents by NumPy."""
    expected = out_before.copy()
    np.copyto(expected, reference_clip(a, lo, hi), where=mask)
    return expected


def _layouts(dtype, rng):
    """(a, out inside a guarded buffer, mask) triples of every kind the walk takes."""
    for n in (0, 1, 7, 1023, 1024, 1025, 3000):
        a = values(dtype, n, rng)
        for p in (0.5, 0.95, 0.0, 1.0):
            yield a, (n,), 1, rng.random(n) < p
    a2 = values(dtype, 60 * 50, rng).reshape(60, 50)
    yield a2, (60, 50), 1, rng.random((60, 50)) < 0.5               # C
    yield np.asfortranarray(a2), (60, 50), "F", np.asfortranarray(rng.random((60, 50)) < 0.5)
    yield a2, (60, 50), "T", rng.random((60, 50)) < 0.5              # out transposed
    yield a2, (60, 50), 1, rng.random(50) < 0.5                      # mask (cols,)
    yield a2, (60, 50), 1, rng.random((60, 1)) < 0.5                 # mask (rows, 1)
    yield a2, (60, 50), 1, np.array(True)                            # 0-d mask
    yield a2[:, ::3], (60, 17), 1, rng.random((60, 17)) < 0.5        # strided input
    yield values(dtype, 2000, rng)[::-2], (1000,), 2, rng.random(1000) < 0.5   # out strided too


@pytest.mark.parametrize("dtype", KERNEL, ids=str)
def test_where_into_out(dtype):
    rng = np.random.default_rng(99)
    lo, hi = typical_bounds(dtype)
    nan_bounds = [(lo, hi)]
    if dtype.kind == "f" or dtype == KERNEL[-1]:
        nan_bounds.append((float("nan"), hi))
    for a, shape, out_kind, mask in _layouts(dtype, rng):
        for lo_, hi_ in nan_bounds:
            # out sits in a bigger buffer of a recognisable pattern: bytes
            # outside out must survive, and so must masked-off elements
            if out_kind == "T":
                guard = values(dtype, shape[0] * shape[1] + 16, rng)
                out = guard[8:-8].reshape(shape[::-1]).T
            elif out_kind == "F":
                guard = values(dtype, int(np.prod(shape)) + 16, rng)
                out = guard[8:-8].reshape(shape[::-1]).T
                assert out.flags.f_contiguous
            else:
                step = out_kind
                guard = values(dtype, int(np.prod(shape)) * step + 16, rng)
                out = guard[8:8 + int(np.prod(shape)) * step:step].reshape(shape)
            guard_before, out_before = guard.copy(), out.copy()
            expected = _masked_expected(a, lo_, hi_, out_before, mask)
            r = fastclip.clip(a, lo_, hi_, out=out, where=mask)
            assert r is out
            assert_same(out.copy(), expected.copy())
            inside = np.zeros(guard.size, bool)
            inside[8:-8] = True
            outside = ~inside
            assert guard.view(np.uint8).reshape(guard.size, -1)[outside].tobytes() == \
                guard_before.view(np.uint8).reshape(guard.size, -1)[outside].tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.uint8, np.float16], ids=str)
def test_where_in_place_and_odd_masks(dtype):
    rng = np.random.default_rng(5)
    dtype = np.dtype(dtype)
    lo, hi = typical_bounds(dtype)
    a = values(dtype, 5000, rng)
    mask = rng.random(5000) < 0.5
    expected = _masked_expected(a, lo, hi, a, mask)
    b = a.copy()
    assert fastclip.clip(b, lo, hi, out=b, where=mask) is b
    assert_same(b, expected)
    # masks the kernel does not take give NumPy's answer (or its error)
    for odd in (mask.astype(np.uint8), mask.tolist(), True, False, mask[:10],
                np.zeros(0, bool), mask.view(np.int8)):
        def call(clip):
            out = a.copy()
            return clip(a, lo, hi, out=out, where=odd), out, None
        assert_same_outcome(outcome(lambda: call(fastclip.clip)),
                            outcome(lambda: call(numpy_clip)), with_out=True)
    # a mask that shares memory with out: NumPy's buffering decides the answer
    def overlapping(clip):
        base = (np.arange(6000) % 3 == 0).astype(np.uint8)
        out, where = base[:5000], base[1000:6000].view(bool)
        x = (np.arange(5000) % 7).astype(np.uint8)
        return clip(x, 1, 4, out=out, where=where), out, None
    assert_same_outcome(outcome(lambda: overlapping(fastclip.clip)),
                        outcome(lambda: overlapping(numpy_clip)), with_out=True)
