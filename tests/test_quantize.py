"""fastclip.quantize against ONNX QuantizeLinear, bit for bit: against
tests/reference.py's reference_quantize (onnx.reference's arithmetic, in
float64 where the reference's int32 cast is undefined), and against
onnx.reference's own operator, where onnx is installed, on every element the
reference defines."""

import math

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, strategies as st

import fastclip
from tests.reference import QUANT_INT_RANGES, bits, quant_operand, reference_quantize

BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
E4M3FN = np.dtype(ml_dtypes.float8_e4m3fn)
E5M2 = np.dtype(ml_dtypes.float8_e5m2)
SOURCES = [np.dtype(np.float32), np.dtype(np.float16), BFLOAT16]
RESULTS = [*QUANT_INT_RANGES, E4M3FN, E5M2]


def onnx_quantize(x, scale, zero_point, axis=1, block_size=0, dtype=None, saturate=True):
    """onnx.reference's QuantizeLinear (opset 21) on the operands, or None
    where onnx is not installed."""
    try:
        from onnx.helper import np_dtype_to_tensor_dtype
        from onnx.reference.ops.op_quantize_linear import _CommonQuantizeLinear
    except ImportError:
        return None
    out_type = None if dtype is None else np_dtype_to_tensor_dtype(np.dtype(dtype))
    scale = np.asarray(scale, dtype=np.asarray(x).dtype) if isinstance(scale, float) else scale
    zero_point = None if zero_point is None else np.asarray(zero_point)
    with np.errstate(all="ignore"):
        # the operator's body; the op object is not needed for it
        return _CommonQuantizeLinear._run(None, np.asarray(x), np.asarray(scale), zero_point,
                                          axis=axis, block_size=block_size,
                                          output_dtype=out_type, saturate=saturate)[0]


def reference_defined(x, scale, dtype, axis=1, block_size=0):
    """Where onnx.reference's result is the operator's: every float8 result;
    an integer one where x / scale rounds into the int32 range (its cast
    first, then the clip)."""
    if dtype not in QUANT_INT_RANGES:
        return np.ones(np.shape(x), dtype=bool)
    s = (np.asarray(scale, dtype=np.asarray(x).dtype) if isinstance(scale, float)
         else quant_operand(scale, np.shape(x), axis, block_size))
    with np.errstate(all="ignore"):
        quotient = (np.asarray(x) / s).astype(np.float64)     # in the division's dtype
    return np.isfinite(quotient) & (np.abs(quotient) < 2.0**31 - 2.0**17)


def check(x, scale, zero_point=None, **kwargs):
    """fastclip.quantize against both references; its result."""
    got = fastclip.quantize(x, scale, zero_point, **kwargs)
    dtype, saturate = kwargs.get("dtype"), kwargs.get("saturate", True)
    axis, block_size = kwargs.get("axis", 1), kwargs.get("block_size", 0)
    expected = reference_quantize(x, scale, zero_point, axis=axis, block_size=block_size,
                                  dtype=dtype, saturate=saturate)
    assert got.dtype == expected.dtype and got.shape == np.shape(x)
    assert bits(got) == bits(expected), _first_difference(x, got, expected)
    if np.ndim(scale) == 0 and np.ndim(zero_point) == 0 and not kwargs.get("block_size"):
        # as NumPy scalars (quantize's route for one scale, where x allows)
        as_scalars = fastclip.quantize(np.ascontiguousarray(x), _scalar(scale),
                                       _scalar(zero_point), **kwargs)
        assert bits(as_scalars) == bits(expected), _first_difference(x, as_scalars, expected)
    onnx_result = onnx_quantize(x, scale, zero_point, axis, block_size, dtype, saturate)
    if onnx_result is not None:
        defined = reference_defined(x, scale, got.dtype, axis, block_size)
        g = np.asarray(got).view(np.uint8 if got.itemsize == 1 else np.uint16)
        o = np.asarray(onnx_result).view(g.dtype)
        assert np.array_equal(g[defined], o[defined]), _first_difference(x, got, onnx_result)
    return got


def _scalar(v):
    return v[()] if isinstance(v, np.ndarray) else v


def _first_difference(x, got, expected):
    g = np.asarray(got).ravel().view(np.uint8 if got.itemsize == 1 else np.uint16)
    e = np.asarray(expected).ravel().view(g.dtype)
    k = int(np.flatnonzero(g != e)[0])
    return f"at {k}: x={np.asarray(x).ravel()[k]!r} got {got.ravel()[k]!r} expected {expected.ravel()[k]!r}"


def every_pattern(dtype):
    """Every value of a 16-bit float dtype, NaNs and infinities included."""
    return np.arange(65536, dtype=np.uint32).astype(np.uint16).view(dtype)


@pytest.mark.parametrize("dst", RESULTS, ids=str)
@pytest.mark.parametrize("src", [np.dtype(np.float16), BFLOAT16], ids=str)
def test_every_16_bit_input(src, dst):
    x = every_pattern(src)
    for scale in (1.0, 0.0371, 300.0, -2.5, 1e-3):
        s = np.asarray(scale, dtype=src)
        if dst in QUANT_INT_RANGES:
            lo, hi = QUANT_INT_RANGES[dst]
            for z in (0, lo, (lo + hi) // 2 + 1, hi):
                check(x, s, np.asarray(z, dtype=dst))
        else:
            check(x, s, np.zeros((), dtype=dst))
            check(x, s, np.zeros((), dtype=dst), saturate=False)
    # a float32 scale: the division in float32, unrounded
    check(x, np.float32(0.0371), None, dtype=dst)
    check(x, np.float32(0.0371), None, dtype=dst, saturate=False)


# float32's edges: signed zeros, subnormals, ties, the ends of every integer
# range, beyond int32, infinities, quiet and signaling NaNs of either sign
_F32_BITS = [0x00000000, 0x80000000, 0x00000001, 0x807fffff, 0x7f800000, 0xff800000,
             0x7fc00000, 0xffc00000, 0x7f800001, 0xffa00000, 0x7f7fffff, 0xff7fffff,
             0x4f000000, 0xcf000000, 0x4f800000, 0x7e967699]
SPECIAL_F32 = np.concatenate([
    np.array(_F32_BITS, dtype=np.uint32).view(np.float32),
    np.arange(-70000, 70000, 0.5, dtype=np.float32),
    np.nextafter(np.arange(-300, 300, 0.5, dtype=np.float32), np.float32(np.inf)),
    np.nextafter(np.arange(-300, 300, 0.5, dtype=np.float32), np.float32(-np.inf)),
    np.array([2**31, -2**31, 2**31 - 128, 3e9, -3e9, 1e38, 448, 464, 465, 57344, 61440],
             dtype=np.float32),
    # either side of the float8 formats' largest finite values and the ties past them
    np.array([np.nextafter(np.float32(v), np.float32(t)) * sign
              for v in (448, 464, 480, 57344, 61440, 65536, 73728) for t in (0, np.inf)
              for sign in (1, -1)], dtype=np.float32),
])


@pytest.mark.parametrize("dst", RESULTS, ids=str)
def test_float32_edges(dst):
    for scale in (np.float32(1.0), np.float32(0.25), np.float32(-3.0), 1.0 / 3.0):
        if dst in QUANT_INT_RANGES:
            lo, hi = QUANT_INT_RANGES[dst]
            for z in (0, lo, hi, (lo + hi) // 2):
                check(SPECIAL_F32, scale, np.asarray(z, dtype=dst))
        else:
            check(SPECIAL_F32, scale, None, dtype=dst)
            check(SPECIAL_F32, scale, None, dtype=dst, saturate=False)


def test_nan_and_beyond_int32_saturate():
    """The operator's saturation where onnx.reference's int32 cast is
    undefined: +inf and beyond int32 to qmax, -inf and below to qmin, NaN
    to qmin (onnxruntime's answer), for every zero point."""
    x = np.array([np.nan, -np.nan, np.inf, -np.inf, 3e9, -3e9, 1e38], dtype=np.float32)
    for dst, (lo, hi) in QUANT_INT_RANGES.items():
        for z in (lo, 0 if lo < 0 else lo + 1, hi):
            got = fastclip.quantize(x, np.float32(1.0), np.asarray(z, dtype=dst))
            assert got.tolist() == [lo, lo, hi, lo, hi, lo, hi], (dst, z)


def test_float8_nan_keeps_its_sign_and_overflow_saturates():
    x = np.array([np.nan, -np.nan, np.inf, -np.inf, 1e6, -500.0, 3.0], dtype=np.float32)
    for dst in (E4M3FN, E5M2):
        top = float(ml_dtypes.finfo(dst).max)
        got = fastclip.quantize(x, 1.0, dtype=dst)
        saturated = np.array([top, -top, top, max(-500.0, -top), 3.0], np.float32).astype(dst)
        assert bits(got[2:]) == bits(saturated)
        assert np.isnan(got[:2].astype(np.float32)).all()
        assert got[:2].view(np.uint8).tolist() == np.array([np.nan, -np.nan], np.float32).astype(
            dst).view(np.uint8).tolist()        # ml_dtypes' NaN codes, the sign kept


def test_saturate_false_overflows_as_ml_dtypes_casts():
    x = np.array([1.0, 500.0, -1e6, np.inf, 3.0], dtype=np.float32)
    for dst in (E4M3FN, E5M2):
        got = fastclip.quantize(x, np.float32(0.5), dtype=dst, saturate=False)
        with np.errstate(all="ignore"):
            expected = (x / np.float32(0.5)).astype(dst)
        assert bits(got) == bits(expected)
    # integers always saturate: the attribute is the float8 results'
    assert fastclip.quantize(x, 1.0, dtype=np.int8, saturate=False).tolist() == [1, 127, -128,
                                                                               127, 3]


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
def test_per_axis_and_blocks(axis):
    rng = np.random.default_rng(7)
    x = (rng.normal(size=(4, 6, 5)) * 40).astype(np.float32)
    n = x.shape[axis]
    check(x, rng.uniform(0.1, 2, size=n).astype(np.float32),
          rng.integers(-20, 20, size=n).astype(np.int8), axis=axis)
    for block in (1, 2, 3, 4, 7):
        shape = list(x.shape)
        shape[axis] = -(-n // block)
        scale = rng.uniform(0.1, 2, size=shape).astype(np.float32)
        check(x, scale, rng.integers(0, 255, size=shape).astype(np.uint8), axis=axis,
              block_size=block)
        check(x, scale, None, axis=axis, block_size=block, dtype=E4M3FN)


@pytest.mark.parametrize("threads", [1, 2])
def test_large_calls_split_across_threads(threads):
    rng = np.random.default_rng(3)
    x = (rng.normal(size=(64, 8192)) * 300).astype(np.float32)
    x[5, 100] = np.nan
    before = fastclip.get_num_threads()
    fastclip.set_num_threads(threads)
    try:
        check(x, np.float32(0.7), np.int8(-3))
        check(x, rng.uniform(0.5, 3, size=64).astype(np.float32),
              rng.integers(0, 100, size=64).astype(np.uint8), axis=0)
        check(x, rng.uniform(0.5, 3, size=8192).astype(np.float32), None, axis=1,
              dtype=np.int16)
        check(x, rng.uniform(0.5, 3, size=(64, 256)).astype(np.float32), None, axis=1,
              block_size=32, dtype=E5M2)
        check(x.astype(np.float16), np.float16(0.7), np.int8(1))
    finally:
        fastclip.set_num_threads(before)


def test_layouts_and_out():
    rng = np.random.default_rng(11)
    base = (rng.normal(size=(9, 12)) * 50).astype(np.float32)
    for x in (base, base.T, base[::2, ::-3], np.asfortranarray(base)):
        expected = check(x, np.float32(0.3), np.int8(4))
        out = np.full(x.shape, 99, dtype=np.int8)
        assert fastclip.quantize(x, np.float32(0.3), np.int8(4), out=out) is out
        assert bits(out) == bits(expected)
        big = np.full((x.shape[0] * 2, x.shape[1]), 99, dtype=np.int8)
        view = big[::2]
        fastclip.quantize(x, np.float32(0.3), np.int8(4), out=view)
        assert bits(view) == bits(expected)
        assert (big[1::2] == 99).all()      # nothing written between


def test_out_overlapping_x():
    """out sharing x's memory: the result as if x were read first."""
    buf = np.zeros(64, dtype=np.float32)
    x = buf[:32]
    x[:] = np.linspace(-100, 100, 32, dtype=np.float32)
    expected = reference_quantize(x.copy(), np.float32(2.0), np.int8(0))
    out = buf.view(np.int8)[8:8 + 32]
    fastclip.quantize(x, np.float32(2.0), np.int8(0), out=out)
    assert bits(out) == bits(expected)


def test_byte_swapped_operands():
    rng = np.random.default_rng(5)
    x = (rng.normal(size=(3, 8)) * 100).astype(np.float32)
    scale = rng.uniform(0.5, 2, size=3).astype(np.float32)
    zero = rng.integers(-100, 100, size=3).astype(np.int16)
    expected = check(x, scale, zero, axis=0)
    got = fastclip.quantize(x.astype(">f4"), scale.astype(">f4"), zero.astype(">i2"), axis=0)
    assert got.dtype == np.int16 and bits(got) == bits(expected)


def test_result_dtype_rules():
    x = np.linspace(-3, 3, 7, dtype=np.float32)
    assert fastclip.quantize(x, 0.1).dtype == np.uint8          # neither: uint8
    assert fastclip.quantize(x, 0.1, dtype=np.int16).dtype == np.int16
    assert fastclip.quantize(x, 0.1, np.int8(0)).dtype == np.int8
    assert fastclip.quantize(x, 0.1, 3, dtype="int8").tolist() == [-27, -17, -7, 3, 13, 23, 33]
    assert fastclip.quantize(np.empty((0, 3), np.float32), 0.1).shape == (0, 3)


def test_python_float_scale_is_rounded_to_x_dtype():
    """A Python float scale is NumPy's weak scalar: x / 0.1 divides by
    float16(0.1) for a float16 x, in float16."""
    x = every_pattern(np.float16)
    check(x, 0.1, np.int8(0))
    check(x, 0.1, None, dtype=E5M2)


REFUSALS = [
    (dict(x=np.zeros(3, np.float64)), TypeError, "quantize takes x of float32"),
    (dict(x=np.zeros(3, np.int32)), TypeError, "quantize takes x of float32"),
    (dict(scale=np.float64(0.5)), TypeError, "scale of dtype float64"),
    (dict(scale=np.int32(2)), TypeError, "scale of dtype int32"),
    (dict(scale=0.0), ValueError, "scale must be finite and nonzero"),
    (dict(scale=np.float32(np.inf)), ValueError, "scale must be finite and nonzero"),
    (dict(scale=np.array([1, np.nan, 1], np.float32), axis=1), ValueError, "finite and nonzero"),
    (dict(scale=1e-50), ValueError, "scale must be finite and nonzero"),   # 0 in float32
    (dict(scale=np.ones(4, np.float32), axis=1), ValueError, "scale of shape \\(4,\\)"),
    (dict(scale=np.ones((2, 3), np.float32)), ValueError, "scale of shape \\(2, 3\\)"),
    (dict(scale=np.ones(3, np.float32), axis=2), np.exceptions.AxisError, "axis 2"),
    (dict(scale=np.ones((2, 3), np.float32), block_size=2), ValueError, "expected \\(2, 2\\)"),
    (dict(x=[1.0, 2.0]), TypeError, "not float64"),       # a list of Python floats
    (dict(block_size=-1), ValueError, "block_size must be 0 or positive"),
    (dict(zero_point=300, dtype=np.uint8), ValueError, "zero point 300 is out of uint8"),
    (dict(zero_point=-1), ValueError, "zero point -1 is out of uint8"),
    (dict(zero_point=1.5, dtype=np.int8), TypeError, "must be an integer"),
    (dict(zero_point=np.int8(1), dtype=np.uint8), ValueError, "does not match"),
    (dict(zero_point=np.int32(1)), ValueError, "not int32"),
    (dict(dtype=np.float16), ValueError, "not float16"),
    (dict(dtype=ml_dtypes.int4), ValueError, "not int4"),
    (dict(zero_point=np.ones(1, E4M3FN)), ValueError, "float8 zero point must be 0"),
    (dict(scale=np.ones(3, np.float32), zero_point=np.zeros(2, np.uint8)), ValueError,
     "zero point of shape \\(2,\\)"),
    (dict(out=np.zeros((2, 3), np.int8)), TypeError, "out has dtype int8; this call writes uint8"),
    (dict(out=np.zeros((3, 2), np.uint8)), ValueError, "out has shape \\(3, 2\\)"),
    (dict(out=[0] * 6), TypeError, "out must be a numpy array"),
]


@pytest.mark.parametrize("call,error,message", REFUSALS, ids=lambda v: None)
def test_refusals_write_nothing(call, error, message):
    call = dict(call)
    x = call.pop("x", np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3))
    scale = call.pop("scale", np.float32(0.01))
    out = call.get("out")
    before = None if not isinstance(out, np.ndarray) else out.copy()
    with pytest.raises(error, match=message):
        fastclip.quantize(x, scale, **call)
    if before is not None:
        assert bits(out) == bits(before)


def test_read_only_out():
    out = np.zeros(3, np.uint8)
    out.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        fastclip.quantize(np.ones(3, np.float32), 0.5, out=out)


_VALUES = st.one_of(
    st.floats(width=32, allow_nan=True, allow_infinity=True),
    st.floats(-300, 300, width=32),
    st.integers(-600, 600).map(lambda k: k / 2),            # ties
)


@st.composite
def quantize_calls(draw):
    src = draw(st.sampled_from(SOURCES))
    dst = draw(st.sampled_from(RESULTS))
    shape = tuple(draw(st.lists(st.integers(1, 7), min_size=1, max_size=3)))
    x = np.array(draw(st.lists(_VALUES, min_size=math.prod(shape),
                               max_size=math.prod(shape))), dtype=np.float32)
    with np.errstate(all="ignore"):
        x = x.reshape(shape).astype(src)
    layout = draw(st.sampled_from(["C", "F", "reversed"]))
    if layout == "F":
        x = np.asfortranarray(x)
    elif layout == "reversed":
        x = x[..., ::-1]
    mode = draw(st.sampled_from(["tensor", "axis", "block"]))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    block = draw(st.integers(1, 4)) if mode == "block" else 0
    if mode == "tensor":
        sshape = ()
    elif mode == "axis":
        sshape = (shape[axis],)
    else:
        sshape = list(shape)
        sshape[axis] = -(-shape[axis] // block)
        sshape = tuple(sshape)
    sdtype = draw(st.sampled_from([src, np.dtype(np.float32), None]))
    magnitudes = st.floats(1e-3, 1e3).map(lambda v: v * draw(st.sampled_from([1, -1])))
    svalues = np.array(draw(st.lists(magnitudes, min_size=math.prod(sshape),
                                     max_size=math.prod(sshape))), dtype=np.float64)
    if sdtype is None and mode == "tensor":
        scale = float(svalues[0])
    else:
        scale = svalues.reshape(sshape).astype(sdtype or src)
    zero_point = None
    if dst in QUANT_INT_RANGES and draw(st.booleans()):
        lo, hi = QUANT_INT_RANGES[dst]
        zero_point = np.array(draw(st.lists(st.integers(lo, hi), min_size=math.prod(sshape),
                                            max_size=math.prod(sshape))),
                              dtype=dst).reshape(sshape)
    kwargs = dict(axis=axis, block_size=block)
    if zero_point is None:
        kwargs["dtype"] = dst
    if draw(st.booleans()):
        kwargs["saturate"] = False      # a float8 result as ml_dtypes casts; integers saturate
    return x, scale, zero_point, kwargs


@given(quantize_calls())
def test_matches_reference(call):
    x, scale, zero_point, kwargs = call
    check(x, scale, zero_point, **kwargs)
