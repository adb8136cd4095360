"""The slow, obvious twin of fastclip.clip, and the bit-for-bit comparison.

np.clip is the oracle. The one deliberate difference (docs/semantics.rst): a
bfloat16, float8_e4m3fn or float8_e5m2 array with Python-scalar, own-dtype or
None bounds keeps its dtype, and equals np.clip in float32 with the bounds
rounded to the dtype first (float8_e4m3fn saturating at +-448), converted
back. Widening and narrowing are exact both ways (the result is always one of
x, lo, hi), so NaN payloads are compared too: bfloat16 by bit shifts; a float8
by ml_dtypes' conversion, with each NaN pattern carried as a float32 quiet NaN
whose low byte is the pattern.
"""

import warnings

import ml_dtypes
import numpy as np

BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
FLOAT8 = [np.dtype(ml_dtypes.float8_e4m3fn), np.dtype(ml_dtypes.float8_e5m2)]
#: the formats NumPy clips in float32 and fastclip keeps (docs/semantics.rst)
ML_FLOATS = [BFLOAT16, *FLOAT8]

#: the oracle: NumPy's own clip, not whatever ``numpy.clip`` is bound to when
#: a test runs (tests/test_patch.py binds it to fastclip.clip)
numpy_clip = np._core.fromnumeric.clip


def is_bfloat16(dtype):
    return np.dtype(dtype).newbyteorder("=") == BFLOAT16


def is_ml_float(dtype):
    return np.dtype(dtype).newbyteorder("=") in ML_FLOATS


def _to_f32(x):
    x = np.asarray(x)
    if is_bfloat16(x.dtype):
        bits = x.astype(x.dtype.newbyteorder("=")).view(np.uint16)
        return (bits.astype(np.uint32) << 16).view(np.float32)
    wide = x.astype(np.float32)
    pattern = x.view(np.uint8).astype(np.uint32)
    nan_bits = 0x7FC00000 | ((pattern & 0x80) << 24) | pattern
    return np.where(np.isnan(wide), nan_bits.view(np.float32), wide)


def _from_f32(x, dtype):
    x = np.asarray(x)
    bits = x.view(np.uint32)
    if is_bfloat16(dtype):
        assert not (bits & 0xFFFF).any(), "result is not one of x, lo, hi"
        return (bits >> 16).astype(np.uint16).view(BFLOAT16)
    narrow = x.astype(dtype)
    nan = np.isnan(x)
    assert ((bits[nan] & 0x7FFFFF00) == 0x7FC00000).all(), "a NaN that is not x, lo or hi"
    narrow.view(np.uint8)[nan] = (bits[nan] & 0xFF).astype(np.uint8)
    assert (narrow[~nan].astype(np.float32) == x[~nan]).all(), "result is not one of x, lo, hi"
    return narrow


def _keeps_own_dtype(a, bounds):
    if not (isinstance(a, np.ndarray) and type(a) is np.ndarray and is_ml_float(a.dtype)):
        return False
    for b in bounds:
        if b is None or type(b) in (int, float):
            continue
        if (isinstance(b, (np.ndarray, np.generic))
                and b.dtype.newbyteorder("=") == a.dtype.newbyteorder("=")):
            continue
        return False
    return True


#: float8_e4m3fn has no infinity: a bound beyond +-448 saturates (docs/semantics.rst)
SATURATE_AT = {FLOAT8[0]: 448.0}


def _bound_as_f32(b, dtype):
    """A bound of the float32 route: Python numbers round to the dtype
    (through float32, as ml_dtypes does; saturating where the format has no
    infinity), then widen exactly; arrays keep their shape."""
    if b is None:
        return None
    if type(b) in (int, float):
        f = np.float32(b)
        top = SATURATE_AT.get(dtype)
        if top is not None and not np.isnan(f):
            f = np.float32(min(max(f, -top), top))
        return _to_f32(f.astype(dtype))
    return _to_f32(b)


def _own_out(out, dtype):
    """An out that keeps the own-dtype rule: none, or an array of the same
    format in either byte order."""
    return out is None or (type(out) is np.ndarray and out.dtype.newbyteorder("=") == dtype)


def reference_clip(a, *args, **kwargs):
    """What fastclip.clip(a, *args, **kwargs) must return. Under the own-dtype
    rule, out= (in place, overlapping or not) and where= write the clipped
    values computed from a before any write, as a ufunc does; casting= is moot
    there (every operand has a's format, in either byte order)."""
    lo = args[0] if len(args) > 0 else kwargs.get("min", kwargs.get("a_min"))
    hi = args[1] if len(args) > 1 else kwargs.get("max", kwargs.get("a_max"))
    out = args[2] if len(args) > 2 else kwargs.get("out")
    extra = set(kwargs) - {"min", "max", "a_min", "a_max", "out", "where", "casting"}
    if (not extra and len(args) <= 3 and _keeps_own_dtype(a, (lo, hi))
            and _own_out(out, a.dtype.newbyteorder("="))
            and kwargs.get("casting", "same_kind") in ("no", "equiv", "safe", "same_kind", "unsafe")):
        dtype = a.dtype.newbyteorder("=")
        lo32, hi32 = _bound_as_f32(lo, dtype), _bound_as_f32(hi, dtype)
        if out is not None:
            # into a float32 out of out's shape: NumPy's broadcasting, its errors
            wide = np.zeros_like(out, dtype=np.float32)     # out's layout: the iterator's order
            where = kwargs.get("where", True)
            numpy_clip(_to_f32(a), lo32, hi32, out=wide, where=where)
            np.copyto(out, _from_f32(wide, dtype), where=where)
            return out
        r = numpy_clip(_to_f32(a), lo32, hi32)
        if np.ndim(r) == 0 and not isinstance(r, np.ndarray):
            return _from_f32(np.asarray(r), dtype)[()]
        return _from_f32(r, dtype)      # native byte order, whatever a's
    return numpy_clip(a, *args, **kwargs)


def bits(x):
    """x's raw bytes in C order and native byte order: equal bytes means equal
    bits, NaN payloads and signed zeros included."""
    x = np.asarray(x)
    if x.dtype.char in "gG":
        # long double storage has padding bytes nobody writes: compare values
        # (repr keeps NaN, signed zeros and every digit)
        return repr([repr(v) for v in x.ravel().tolist()]).encode()
    return x.astype(x.dtype.newbyteorder("="), order="C", copy=True).tobytes()


def assert_same(got, expected):
    """Same type, dtype, shape, layout and bits."""
    assert type(got) is type(expected), (type(got), type(expected))
    if isinstance(expected, (np.ndarray, np.generic)):
        # the type number too: np.dtype('l') == np.dtype('q'), but the two
        # are distinct types (np.int64 and np.longlong scalars on Linux)
        assert (got.dtype, got.dtype.num) == (expected.dtype, expected.dtype.num), (
            got.dtype.char, expected.dtype.char)
        assert np.shape(got) == np.shape(expected)
    if isinstance(expected, np.ndarray):
        assert got.flags.c_contiguous == expected.flags.c_contiguous
        assert got.flags.f_contiguous == expected.flags.f_contiguous
    if np.asarray(expected).dtype.hasobject:
        # element reprs: NaN objects compare unequal to themselves
        assert (list(map(repr, np.asarray(got).ravel().tolist()))
                == list(map(repr, np.asarray(expected).ravel().tolist())))
    else:
        assert bits(got) == bits(expected), _diff(got, expected)


def _diff(got, expected):
    g = np.asarray(got).ravel()
    e = np.asarray(expected).ravel()
    width = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}.get(e.dtype.itemsize)
    if width is None or g.dtype.itemsize != e.dtype.itemsize:
        return f"got {got!r}, expected {expected!r}"
    gb = g.astype(g.dtype.newbyteorder("=")).view(width)
    eb = e.astype(e.dtype.newbyteorder("=")).view(width)
    bad = np.flatnonzero(gb != eb)[:5]
    return (f"{bad.size}+ differences, first at {bad.tolist()}: got bits "
            f"{[hex(v) for v in gb[bad]]}, expected {[hex(v) for v in eb[bad]]}")


def outcome(fn):
    """Run fn(); return ('ok', value, warnings) or ('raise', exception type, warnings)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = fn()
        except Exception as exc:  # compared by type with the oracle's
            return "raise", type(exc), _warning_list(caught), exc
    return "ok", value, _warning_list(caught), None


def _warning_list(caught):
    return sorted((w.category.__name__, str(w.message)) for w in caught)


def assert_same_outcome(got, expected, messages=False, with_out=False):
    """got and expected are outcome()s of the same call by two implementations:
    both raised the same exception type (and message, if asked), or both
    returned the same thing; and the same warnings. A tuple result is compared
    item by item; with_out: it is (result, out or None, input), and whether the
    result is out must agree too."""
    assert got[0] == expected[0], (got, expected)
    if expected[0] == "raise":
        assert got[1] is expected[1], (got[3], expected[3])
        if messages:
            assert str(got[3]) == str(expected[3])
    elif isinstance(expected[1], tuple):
        for g, e in zip(got[1], expected[1]):
            if e is not None:
                assert_same(g, e)
        if with_out and expected[1][1] is not None:
            assert (got[1][0] is got[1][1]) == (expected[1][0] is expected[1][1])
    else:
        assert_same(got[1], expected[1])
    assert got[2] == expected[2], (got[2], expected[2])


def compare(make, oracle=numpy_clip, messages=False):
    """make(clip) builds fresh inputs and calls clip: fastclip.clip's outcome
    (result, exception type and, with messages, its text, warnings) against
    the oracle's, NumPy's own clip or reference_clip. Returns fastclip's."""
    import fastclip
    got = outcome(lambda: make(fastclip.clip))
    assert_same_outcome(got, outcome(lambda: make(oracle)), messages=messages)
    return got


def check_three_ways(clip, a, lo, hi):
    """clip(a, lo, hi) into a new array, into out=, and in place, each equal to
    the reference; returns the reference result."""
    expected = reference_clip(a, lo, hi)
    assert_same(clip(a, lo, hi), expected)
    out = np.zeros(a.shape, expected.dtype)
    assert clip(a, lo, hi, out=out) is out
    assert_same(out, expected)
    b = a.copy()
    assert clip(b, lo, hi, out=b) is b
    assert_same(b, expected)
    return expected


#: ONNX QuantizeLinear's integer results and their ranges
QUANT_INT_RANGES = {np.dtype(t): (np.iinfo(t).min, np.iinfo(t).max)
                    for t in (np.int8, np.uint8, np.int16, np.uint16)}


def quant_operand(value, shape, axis, block_size):
    """onnx.reference's reshape_input: a scale or zero point as an array that
    broadcasts against x's shape."""
    value = np.asarray(value)
    if value.ndim == 0 or value.size == 1:
        return value.reshape(())
    if not block_size:
        dims = [1] * len(shape)
        dims[axis] = value.size
        return value.reshape(dims)
    value = np.repeat(value, block_size, axis=axis)
    return value.take(np.arange(shape[axis]), axis=axis)


def reference_quantize(x, scale, zero_point=None, *, axis=1, block_size=0, dtype=None,
                       saturate=True):
    """QuantizeLinear as onnx.reference computes it (x / scale in NumPy's
    promotion, np.rint, + zero point, np.clip, cast; float8 by
    onnx.numpy_helper.saturate_cast, or with saturate=False ml_dtypes' own
    cast), but in float64 rather than through an int32 cast, so that what the
    reference leaves undefined saturates as the operator says (NaN to the
    range's low end, docs/semantics.rst)."""
    x = np.asarray(x)
    if zero_point is not None:
        dtype = np.asarray(zero_point).dtype
    dtype = np.dtype(np.uint8 if dtype is None else dtype)
    # a Python float is rounded to x's dtype (NumPy's weak scalar; NumPy 2.3
    # with ml_dtypes 0.5 divided a bfloat16 by one in float32)
    s = (np.asarray(scale, dtype=x.dtype) if isinstance(scale, (float, int))
         else quant_operand(scale, x.shape, axis, block_size))
    with np.errstate(all="ignore"):
        q = x / s
        if dtype in QUANT_INT_RANGES:
            lo, hi = QUANT_INT_RANGES[dtype]
            r = np.rint(q).astype(np.float64)
            if zero_point is not None:
                r = r + quant_operand(zero_point, x.shape, axis, block_size).astype(np.float64)
            r = np.where(np.isnan(r), lo, r)
            return np.clip(r, lo, hi).astype(dtype)
        if not saturate:
            return q.astype(dtype)
        top = float(ml_dtypes.finfo(dtype).max)
        return np.clip(q, -top, top).astype(dtype)
