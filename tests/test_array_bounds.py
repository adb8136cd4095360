"""Array bounds from the fast path, against np.clip: full-shape, row,
column, 0-d and mixed bounds in every layout, one-element bounds, bounds that
repeat along a row, broadcast bounds and array bounds beside a NaN or zero
scalar bound; the scalar-bound or per-element loop chosen as NumPy's iterator
would."""

import itertools

import ml_dtypes
import numpy as np
import pytest

import fastclip
from fastclip._dtypes import DTYPES, numpy_dtype
from tests.arrays import KERNEL_DTYPES, typical_bounds, values
from tests.reference import assert_same, assert_same_outcome, numpy_clip, outcome, reference_clip

KERNEL = [numpy_dtype(r) for r in DTYPES]



def _bounds_cases(dtype, rng):
    """(a, lo, hi) triples: full-shape, row, column, 0-d and mixed bounds, C
    and F order, 1-D strided."""
    a = values(dtype, 40 * 30, rng).reshape(40, 30)
    full_lo, full_hi = values(dtype, 1200, rng).reshape(40, 30), values(dtype, 1200, rng).reshape(40, 30)
    row_lo, row_hi = values(dtype, 30, rng), values(dtype, 30, rng)
    col_lo, col_hi = values(dtype, 40, rng).reshape(40, 1), values(dtype, 40, rng).reshape(40, 1)
    lo0, hi0 = typical_bounds(dtype)
    for x in (a, np.asfortranarray(a)):
        yield x, full_lo, full_hi
        yield x, np.asfortranarray(full_lo), full_hi
        yield x, row_lo, row_hi
        yield x, col_lo, col_hi
        yield x, row_lo, col_hi
        yield x, np.array(lo0, dtype), row_hi             # 0-d array bound
        yield x, lo0, full_hi                             # scalar and array
        yield x, full_lo, hi0
    flat = values(dtype, 3000, rng)
    yield flat[::3], flat[1::3], flat[2::3]               # 1-D strided, all three


@pytest.mark.parametrize("dtype", KERNEL, ids=str)
def test_array_bounds(dtype):
    rng = np.random.default_rng(17)
    for a, lo, hi in _bounds_cases(dtype, rng):
        expected = reference_clip(a, lo, hi)
        assert_same(fastclip.clip(a, lo, hi), expected)
        out = np.zeros_like(expected)
        assert fastclip.clip(a, lo, hi, out=out) is out
        assert_same(out, expected)
        if isinstance(lo, np.ndarray) and lo.shape == a.shape and lo.flags.c_contiguous == a.flags.c_contiguous:
            lo2 = lo.copy(order="K")                      # out=lo: in place on a bound
            assert fastclip.clip(a, lo2, hi, out=lo2) is lo2
            assert_same(np.ascontiguousarray(lo2), np.ascontiguousarray(reference_clip(a, lo, hi)))


def test_array_bounds_nan_payloads_and_zeros():
    """NumPy's per-element loop: NaN from x, then lo, then hi; a tie takes the
    bound. Row bounds over C order are per element, column bounds scalar per
    row: the bits must be NumPy's either way."""
    q, p = np.float32(np.uint32(0x7FC00001).view(np.float32)), np.float32(np.uint32(0xFFC00002).view(np.float32))
    xs = np.array([q, -0.0, 0.0, 1.0, np.nan, -np.inf], np.float32)
    a = np.tile(xs, (6, 1))
    for lo in (xs, xs[::-1].copy(), np.full(6, p), xs.reshape(6, 1), np.full((6, 1), -0.0, np.float32)):
        for hi in (xs[::-1].copy(), np.full(6, 0.0, np.float32), xs.reshape(6, 1)):
            expected = reference_clip(a, lo, hi)
            assert_same(fastclip.clip(a, lo, hi), expected)
            assert_same(fastclip.clip(np.asfortranarray(a), lo, hi),
                        reference_clip(np.asfortranarray(a), lo, hi))


@pytest.mark.parametrize("dtype", KERNEL_DTYPES, ids=str)
def test_cols_bounds_on_rows_around_each_pass_size(dtype):
    """(cols,) bounds, and a scalar beside them, on rows of every length
    around the sizes at which the rows' bounds are repeated into buffers (4
    KiB of a bound, at most 2048 elements: two rows of 256 float64 fit, 257
    do not) and 7 rows, so that the last pass is short: the reference's bits
    (np.clip's; for bfloat16 and float8, kept in their dtype)."""
    rng = np.random.default_rng(dtype.itemsize)
    lo_v, hi_v = typical_bounds(dtype)
    for cols in (255, 256, 257, 511, 512, 513, 683, 1023, 1024, 1025, 2047, 2048, 2049):
        x = values(dtype, 7 * cols, rng).reshape(7, cols)
        with np.errstate(all="ignore"):
            lo = np.where(rng.random(cols) < 0.5, lo_v, lo_v + 1).astype(dtype)
            hi = np.where(rng.random(cols) < 0.5, hi_v, hi_v - 3).astype(dtype)
        for a_lo, a_hi in ((lo, hi), (lo[:1].reshape(()), hi), (lo, hi[:1].reshape(()))):
            assert_same(fastclip.clip(x, a_lo, a_hi), reference_clip(x, a_lo, a_hi))


@pytest.mark.parametrize("dtype", KERNEL_DTYPES, ids=str)
def test_one_element_array_bounds(dtype):
    """Array bounds of one element (0-d, (1,), (1, 1)), which the fast path
    takes as scalar bounds, against x of one element and of many, contiguous
    in both orders and strided, with zeros of both signs and NaNs in x and
    in the bounds: the reference's bits (np.clip's; bfloat16 and float8 kept
    in their dtype), into a new array, into out= and in place (x a NaN of
    the other sign than the bounds' NaN too: in place NumPy's iterator runs
    the scalar-bound loop where it runs the per-element one for another out,
    so np.clip's answer there differs, and bfloat16 and float8 give the new
    result's)."""
    rng = np.random.default_rng(21)
    lo_v, hi_v = typical_bounds(dtype)
    pairs = [(lo_v, hi_v), (hi_v, lo_v)]
    if dtype.kind in "fV":
        pairs += [(-0.0, 0.0), (0.0, -0.0), (np.nan, hi_v), (lo_v, np.nan)]
    base = values(dtype, 120, rng)
    xs = [base[:1], base[:1].reshape(1, 1), base[:7], base[:12].reshape(3, 4),
          np.asfortranarray(base[:12].reshape(3, 4)), base[::3][:20]]
    if dtype.kind in "fV":
        xs.append(np.array([-np.nan]).astype(dtype))
    for lo_n, hi_n in pairs:
        with np.errstate(all="ignore"):
            lo1, hi1 = np.array(lo_n).astype(dtype), np.array(hi_n).astype(dtype)
        for x in xs:
            for shape in [(), (1,), (1, 1)][:x.ndim + 1]:
                a_lo, a_hi = lo1.reshape(shape), hi1.reshape(shape)
                for bounds in ((a_lo, a_hi), (a_lo, hi1.reshape(())[()]), (lo_n, a_hi)):
                    expected = reference_clip(x, *bounds)
                    assert_same(fastclip.clip(x, *bounds), expected)
                    out = np.zeros_like(x, order="K")
                    if out.dtype == expected.dtype:
                        assert fastclip.clip(x, *bounds, out=out) is out
                        assert_same(out, np.asarray(expected).reshape(out.shape))
                        mine, theirs = x.copy(order="K"), x.copy(order="K")
                        assert fastclip.clip(mine, *bounds, out=mine) is mine
                        reference_clip(theirs, *bounds, out=theirs)
                        assert_same(mine, theirs)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16, np.uint8], ids=str)
def test_one_element_bound_inside_out(dtype):
    """A one-element bound that is a view of out: NumPy copies an input that
    overlaps out before its loop, so every element is clipped to the bound's
    value from before the call, as the fast path reads it."""
    x = np.arange(-5, 15).astype(dtype) if dtype != np.uint8 else np.arange(20).astype(dtype)
    for at in (0, 7, 19):
        out, out_np = np.full(20, 9, dtype), np.full(20, 9, dtype)
        assert fastclip.clip(x, out[at:at + 1], 12, out=out) is out
        numpy_clip(x, out_np[at:at + 1], 12, out=out_np)
        assert_same(out, out_np)


REPEATING_SHAPES = [(1000, 100), (3, 5000), (2, 8192), (1, 20000), (200, 17), (8193, 1), (16, 8, 33)]
SMALL_FLOATS = [np.float16, ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2]


def _repeating_bounds_agree(x, lo, hi, expect=numpy_clip):
    for a in (x, np.asfortranarray(x)):
        expected = expect(a, lo, hi)
        assert_same(fastclip.clip(a, lo, hi), expected)
        out, expected_in_out = np.empty_like(a), np.empty_like(a)
        assert fastclip.clip(a, lo, hi, out=out) is out
        assert_same(out, expect(a, lo, hi, out=expected_in_out))
    # the same bounds with one zero or NaN among them: NumPy's answer still
    for odd in (0.0, -0.0, np.nan):
        lo2 = lo.copy()
        lo2.flat[len(lo2.flat) // 2] = odd
        assert_same(fastclip.clip(x, lo2, hi), expect(x, lo2, hi))


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=str)
@pytest.mark.parametrize("shape", REPEATING_SHAPES, ids=str)
def test_repeating_bounds_without_zero_or_nan(dtype, shape):
    """Bounds that repeat along the inner axis ((rows, 1), (a, b, 1)) with
    no zero and no NaN are the walk's (NumPy's two loops agree on them):
    np.clip's bits against x of NaNs with payloads, signed zeros, ties and
    infinities, and lo > hi rows, C and F order."""
    rng = np.random.default_rng(sum(shape))
    special = np.array([0.0, -0.0, np.nan, -np.nan, 1.0, -1.0, 2.0, -2.0, 0.5, np.inf, -np.inf],
                       dtype)
    x = rng.choice(special, size=shape)
    bits = x.view(f"u{x.itemsize}")
    nan = np.isnan(x)
    bits[nan] |= rng.integers(1, 1000, size=nan.sum()).astype(bits.dtype)
    nonzero = np.array([1.0, -1.0, 2.0, -2.0, 0.5, np.inf, -np.inf, 3.0], dtype)
    bshape = shape[:-1] + (1,)
    _repeating_bounds_agree(x, rng.choice(nonzero, size=bshape), rng.choice(nonzero, size=bshape))


@pytest.mark.parametrize("dtype", SMALL_FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", REPEATING_SHAPES, ids=str)
def test_repeating_bounds_without_zero_or_nan_small_floats(dtype, shape):
    """The same for the 16- and 8-bit floats, whose zeros and NaNs are read
    off the bits: x of every kind of bit pattern (NaNs of any payload, both
    zeros, infinities, subnormals), bounds of random non-zero, non-NaN
    patterns (ties with x among them), lo > hi in some rows; against the
    slow reference (np.clip of bfloat16 and the float8s returns float32)."""
    dtype = np.dtype(dtype)
    rng = np.random.default_rng(sum(shape) + dtype.itemsize)
    u = f"u{dtype.itemsize}"
    x = rng.integers(0, 1 << (8 * dtype.itemsize), size=shape).astype(u).view(dtype)
    patterns = np.arange(1 << (8 * dtype.itemsize)).astype(u).view(dtype)[:: 1 if dtype.itemsize == 1 else 7]
    with np.errstate(invalid="ignore"):         # signaling NaNs, quieted by the cast
        wide = patterns.astype(np.float32)
    ordinary = patterns[~np.isnan(wide) & (wide != 0)]
    bshape = shape[:-1] + (1,)
    _repeating_bounds_agree(x, rng.choice(ordinary, size=bshape), rng.choice(ordinary, size=bshape),
                            reference_clip)


def test_bound_overlapping_out_is_numpys():
    def call(clip):
        base = np.arange(-50, 50, dtype=np.float64)
        x, lo, out = np.linspace(-60, 60, 60), base[10:70], base[20:80]
        return clip(x, lo, 30.0, out=out), out, None
    assert_same_outcome(outcome(lambda: call(fastclip.clip)), outcome(lambda: call(numpy_clip)),
                        with_out=True)


@pytest.mark.parametrize("shape", [(3, 20000), (20000, 3), (64, 64, 64), (1000, 100)], ids=str)
def test_broadcast_bounds_take_numpys_loop(shape):
    """Whether NumPy runs its scalar-bound loop (keeps -0.0 against a +0.0
    bound) or its per-element loop (gives +0.0) for bounds that repeat along
    some axes depends on its iterator's buffering, so on the shape; the bits
    must be NumPy's for each, C and F order, every broadcast of the bounds."""
    rng = np.random.default_rng(len(shape))
    x = np.where(rng.random(shape) < 0.5, -0.0, np.nan).astype(np.float32)
    for order in ("C", "F"):
        a = np.asarray(x, order=order)
        for k in range(len(shape)):
            bshape = tuple(s if j == k else 1 for j, s in enumerate(shape))
            for bs in (bshape, bshape[k:], shape[k:]):
                lo = np.where(rng.random(bs) < 0.5, 0.0, np.float32(np.uint32(0x7FC00005).view(np.float32)))
                lo = lo.astype(np.float32)
                hi = np.ones(bs, np.float32)
                assert_same(fastclip.clip(a, lo, hi), reference_clip(a, lo, hi))
                out = np.empty(shape, np.float32, order=order)
                fastclip.clip(a, lo, hi, out=out)
                assert_same(out, np.asarray(reference_clip(a, lo, hi), order=order))


def _broadcast_shapes(shape):
    """Every shape that broadcasts to shape: each axis kept or 1, with leading
    axes dropped or not."""
    out = set()
    for keep in itertools.product((True, False), repeat=len(shape)):
        full = tuple(s if k else 1 for s, k in zip(shape, keep))
        for drop in range(len(shape) + 1):
            out.add(full[drop:])
    return sorted(out)


@pytest.mark.parametrize("dtype", [np.float32, np.float64] + SMALL_FLOATS,
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(2, 6), (6, 2), (3, 4, 5)], ids=str)
def test_array_bound_beside_a_nan_or_zero_scalar_bound(dtype, shape):
    """An array bound free of zeros and NaNs, of every broadcast shape, beside
    a scalar bound (Python float, own-dtype scalar, 0-d and (1,) arrays) that
    is a NaN with a payload, -0.0, +0.0 or 1.0, x holding NaNs of another
    payload and zeros of both signs, C and F order, into a new array and into
    out: NumPy's bits (the reference for the 16- and 8-bit floats). A (6,)
    bound over F-order x repeats along the inner axis, where NumPy's
    per-element loop keeps x's NaN and its scalar-bound loop would give the
    scalar's."""
    dtype = np.dtype(dtype)
    rng = np.random.default_rng(len(shape) + dtype.itemsize)
    u = np.dtype(f"u{dtype.itemsize}")
    with np.errstate(invalid="ignore", over="ignore"):
        x = rng.choice(np.array([np.nan, 0.0, -0.0, 0.25, -3.0, 1.0], np.float32), size=shape)
        x = x.astype(dtype)
        nan_bits = np.array([np.nan]).astype(dtype).view(u)[0]
        x.view(u)[np.isnan(x.astype(np.float32))] = nan_bits + 1 if dtype.itemsize > 1 else nan_bits
        other_nan = (np.array([-np.nan]).astype(dtype).view(u) ^ (2 if dtype.itemsize > 1 else 0)
                     ).view(dtype)[0]
    assert np.isnan(np.float32(other_nan))
    scalars = [other_nan, dtype.type(-0.0), dtype.type(0.0), dtype.type(1.0)]
    checked = 0
    for order in ("C", "F"):
        a = np.asarray(x, order=order)
        for bshape in _broadcast_shapes(shape):
            arr = rng.choice(np.array([-2.0, -0.5, 0.5, 2.0], np.float32), size=bshape).astype(dtype)
            for s in scalars:
                for bound in (float(np.float32(s)), s, np.array(s, dtype), np.array([s], dtype)):
                    for lo, hi in ((arr, bound), (bound, arr)):
                        expected = reference_clip(a, lo, hi)
                        assert_same(fastclip.clip(a, lo, hi), expected)
                        out = np.empty(shape, dtype, order=order)
                        assert fastclip.clip(a, lo, hi, out=out) is out
                        assert_same(out, reference_clip(a, lo, hi, out=np.empty(shape, dtype, order=order)))
                        checked += 1
    assert checked == 2 * len(_broadcast_shapes(shape)) * len(scalars) * 4 * 2
