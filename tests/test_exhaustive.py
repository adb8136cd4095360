"""Every bit pattern of the 16-bit types, every (x, lo, hi) triple of the 8-bit
types, compared bit for bit with the reference (np.clip, or the float32 route
for bfloat16 and the float8s) in each way NumPy's loop can see the bounds: scalar (stride 0)
and per element. Run under each SIMD target by .ci/run (FASTCLIP_SIMD)."""

import itertools

import numpy as np
import pytest

import fastclip
from tests.reference import (BFLOAT16, FLOAT8, _bound_as_f32, _from_f32, _to_f32, assert_same,
                             numpy_clip, reference_clip)

N16 = 2**16


def all_patterns(dtype):
    return np.arange(N16, dtype=np.uint32).astype(np.uint16).view(dtype)


def from_bits(dtype, values):
    return np.array(values, dtype=np.uint16).view(dtype)


# Bounds: NaNs (two payloads, both signs), +-inf, +-0, subnormals, the
# smallest normal, the largest finite, ordinary values; every pair is tried,
# so lo > hi and equal bounds are covered.
FLOAT16_BOUNDS = [0x7E00, 0xFE01, 0x7C01, 0x7C00, 0xFC00, 0x0000, 0x8000, 0x0001,
                  0x8001, 0x03FF, 0x0400, 0x7BFF, 0xFBFF, 0x3C00, 0xBC00, 0x3800,
                  0xC100]
BFLOAT16_BOUNDS = [0x7FC0, 0xFFC1, 0x7F81, 0x7F80, 0xFF80, 0x0000, 0x8000, 0x0001,
                   0x8001, 0x007F, 0x0080, 0x7F7F, 0xFF7F, 0x3F80, 0xBF80, 0x3F00,
                   0xC020]
INT16_BOUNDS = {np.int16: [-32768, -32767, -1, 0, 1, 1000, 32766, 32767],
                np.uint16: [0, 1, 2, 1000, 32767, 32768, 65534, 65535]}

FLOAT_CASES = [(np.dtype(np.float16), FLOAT16_BOUNDS), (BFLOAT16, BFLOAT16_BOUNDS)]


@pytest.mark.parametrize("dtype,bound_bits", FLOAT_CASES, ids=["float16", "bfloat16"])
@pytest.mark.parametrize("start", [0, 1], ids=["aligned-start", "odd-start"])
def test_16bit_float_scalar_bounds(dtype, bound_bits, start):
    x = all_patterns(dtype)[start:]
    checked = 0
    for lo, hi in itertools.product(from_bits(dtype, bound_bits), repeat=2):
        expected = reference_clip(x, lo, hi)
        assert_same(fastclip.clip(x, lo, hi), expected)
        assert_same(fastclip.clip_ufunc(x, lo, hi), expected)
        # Python floats: the fast path's own conversion of the bounds
        assert_same(fastclip.clip(x, float(lo), float(hi)),
                    reference_clip(x, float(lo), float(hi)))
        # strided input, and out= into a strided view
        out = np.empty(2 * x.size, dtype)[::2]
        assert fastclip.clip(x, lo, hi, out=out) is out
        assert_same(out.copy(), expected)
        checked += 4 * x.size
    assert checked == 4 * (N16 - start) * len(bound_bits) ** 2


@pytest.mark.parametrize("dtype,bound_bits", FLOAT_CASES, ids=["float16", "bfloat16"])
def test_16bit_float_array_bounds(dtype, bound_bits):
    x = all_patterns(dtype)
    for lo, hi in itertools.product(from_bits(dtype, bound_bits), repeat=2):
        lo_a, hi_a = np.full(N16, lo), np.full(N16, hi)
        assert_same(fastclip.clip(x, lo_a, hi_a), reference_clip(x, lo_a, hi_a))
    # bounds that vary element by element: all patterns against shifted copies
    for shift_lo, shift_hi in [(1, 2), (257, 40000), (12345, 333), (32768, 0)]:
        lo_a, hi_a = np.roll(x, shift_lo), np.roll(x, shift_hi)
        assert_same(fastclip.clip(x, lo_a, hi_a), reference_clip(x, lo_a, hi_a))
        # one bound scalar, the other per element
        assert_same(fastclip.clip(x, lo_a, x[7]), reference_clip(x, lo_a, x[7]))
        assert_same(fastclip.clip(x, x[9], hi_a), reference_clip(x, x[9], hi_a))


@pytest.mark.parametrize("dtype", [np.int16, np.uint16])
@pytest.mark.parametrize("start", [0, 1], ids=["aligned-start", "odd-start"])
def test_16bit_int_every_value(dtype, start):
    x = all_patterns(dtype)[start:]
    for lo, hi in itertools.product(INT16_BOUNDS[dtype], repeat=2):
        expected = np.clip(x, dtype(lo), dtype(hi))
        assert_same(fastclip.clip(x, lo, hi), expected)
        assert_same(fastclip.clip(x, np.full(x.size, lo, dtype), hi), expected)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8])
def test_8bit_every_triple(dtype):
    values = np.arange(256, dtype=np.uint16).astype(np.uint8).view(dtype)
    # per-element bounds: one broadcast call covers all 2**24 triples
    x, lo, hi = values[:, None, None], values[None, :, None], values[None, None, :]
    got = fastclip.clip(x, lo, hi)
    assert got.shape == (256, 256, 256)
    assert_same(got, np.clip(x, lo, hi))
    # the same triples as contiguous arrays (the vectorised per-element loop,
    # not the iterator's broadcast strides), and with one bound a scalar
    xc, loc, hic = (np.ascontiguousarray(v).ravel() for v in np.broadcast_arrays(x, lo, hi))
    assert_same(fastclip.clip(xc, loc, hic), got.ravel())
    xr = np.tile(values, 256)                   # every (x, other bound) pair
    br = np.repeat(values, 256)
    for v in values.tolist():
        assert_same(fastclip.clip(xr, v, br), np.clip(xr, dtype(v), br))
        assert_same(fastclip.clip(xr, br, v), np.clip(xr, br, dtype(v)))
    # scalar bounds: every (lo, hi) pair over all x, through the fast path
    for lo_v in values.tolist():
        expected_rows = np.clip(values, lo_v, values[:, None])
        for j, hi_v in enumerate(values.tolist()):
            assert_same(fastclip.clip(values, lo_v, hi_v), expected_rows[j])


@pytest.mark.parametrize("dtype", FLOAT8, ids=str)
def test_float8_every_triple(dtype):
    """The bfloat16/float8 rule (docs/semantics.rst) for float8: np.clip in float32, converted back (the
    reference), for all 2**24 (x, lo, hi) bit patterns, NaNs of every payload
    and both zeros included."""
    values = np.arange(256, dtype=np.uint16).astype(np.uint8).view(dtype)
    # per-element bounds: one broadcast call, then the same triples contiguous
    x, lo, hi = values[:, None, None], values[None, :, None], values[None, None, :]
    xc, loc, hic = (np.ascontiguousarray(v).ravel() for v in np.broadcast_arrays(x, lo, hi))
    expected = reference_clip(xc, loc, hic)
    assert_same(fastclip.clip(xc, loc, hic), expected)
    assert_same(fastclip.clip(x, lo, hi), expected.reshape(256, 256, 256))
    # one bound a scalar, the other per element: every (x, other bound) pair
    xr, br = np.tile(values, 256), np.repeat(values, 256)
    for v in values:
        assert_same(fastclip.clip(xr, v, br), reference_clip(xr, v, br))
        assert_same(fastclip.clip(xr, br, v), reference_clip(xr, br, v))
    # scalar bounds: every (lo, hi) pair over all x, as float8 scalars (the
    # fast path and the ufunc) and as Python floats (rounded by the fast path;
    # NaN patterns become ml_dtypes' NaN of their sign), each row against
    # NumPy's float32 clip with those scalar bounds
    wide = _to_f32(values)
    for bounds_as in ("float8", "python"):
        got = np.empty((256, 256, 256), dtype)
        ufunc_got = np.empty((256, 256, 256), dtype)
        want = np.empty((256, 256, 256), np.float32)
        bounds = [float(v) for v in values] if bounds_as == "python" else list(values)
        # each bound's float32 form once (per pair it was half the test's time)
        bounds_f32 = [_bound_as_f32(b, dtype) for b in bounds]
        for i, lo_b in enumerate(bounds):
            for j, hi_b in enumerate(bounds):
                if bounds_as == "float8":
                    fastclip.clip_ufunc(values, lo_b, hi_b, out=ufunc_got[i, j])
                fastclip.clip(values, lo_b, hi_b, out=got[i, j])
                numpy_clip(wide, bounds_f32[i], bounds_f32[j], out=want[i, j])
        expected = _from_f32(want, dtype)
        assert_same(got, expected)
        if bounds_as == "float8":
            assert_same(ufunc_got, expected)
    # strided input and output, odd start: one pair of each kind
    xs = np.repeat(values, 3)[1::3]
    out = np.empty(512, dtype)[::2]
    for lo_v, hi_v in [(values[0x38], values[0x48]), (values[0xb8], values[0x7f])]:
        assert fastclip.clip(xs, lo_v, hi_v, out=out) is out
        assert_same(out.copy(), reference_clip(values, lo_v, hi_v))
