"""Long strided runs: the strided loops work in blocks (a gather into a buffer,
the contiguous kernel, a scatter), so sizes around and past the block length
and every kind of step, for input and output, against np.clip / the reference."""

import itertools

import numpy as np
import pytest

import fastclip
from fastclip import _ufunc
from fastclip._dtypes import DTYPES, numpy_dtype
from tests.arrays import typical_bounds, values
from tests.reference import assert_same, reference_clip

BLOCK = _ufunc._kernels.GATHER_BLOCK
SPAN_BLOCK = _ufunc._kernels.SPAN_BLOCK_BYTES or 512    # 512: any length, where no span rows
SIZES = [BLOCK - 1, BLOCK, BLOCK + 1, 3 * BLOCK + 7]
STEPS = [1, 2, 3, -1, -2]
DTYPES_ = [numpy_dtype(r) for r in DTYPES]


@pytest.mark.parametrize("dtype", DTYPES_, ids=str)
def test_long_strided_runs(dtype):
    rng = np.random.default_rng(12345)
    lo, hi = typical_bounds(dtype)
    for n, s_in, s_out in itertools.product(SIZES, STEPS, STEPS):
        a = values(dtype, n * abs(s_in), rng)[::s_in]
        assert a.size == n
        expected = reference_clip(a, lo, hi)
        assert_same(fastclip.clip(a, lo, hi), expected)
        out_base = np.zeros(n * abs(s_out), dtype)
        out = out_base[::s_out]
        assert fastclip.clip(a, lo, hi, out=out) is out
        assert_same(out.copy(), expected)
        # the elements between the strided ones are never written
        if abs(s_out) > 1:
            mask = np.ones(out_base.size, bool)
            mask[::s_out] = False
            assert not out_base.view(np.uint8).reshape(out_base.size, -1)[mask].any()


@pytest.mark.parametrize("split", [False, True], ids=["configured", "split"])
@pytest.mark.parametrize("dtype", DTYPES_, ids=str)
def test_strided_rows(dtype, split):
    """Rows at a small stride, in place and into an out of the same strides,
    and every other element into a contiguous result (csrc/strided_rows.h's
    masked vectors, under AVX-512; under AVX2 and NEON the 1- and 2-byte
    rows' span clipped in blocks of SPAN_BLOCK bytes): lengths around every
    lane count (8, 16, 32, 64 a vector) and one past a whole number of span
    blocks (a last block shorter than a vector, which starts back over the
    one before), strides up to past the masked loop's limit, reversed; the
    elements between and around the strided ones never written."""
    rng = np.random.default_rng(31)
    lo, hi = typical_bounds(dtype)
    bounds = [(lo, hi), (hi, lo)] + ([(-0.0, 0.0), (0.0, -0.0)] if dtype.kind == "f" else [])
    _split_every_call(split)
    try:
        _check_strided_rows(dtype, rng, bounds)
    finally:
        _split_every_call(False)


def _row_shapes(itemsize):
    """(n, s, rows): the lengths, steps and row counts of test_strided_rows."""
    for s, rows in itertools.product([1, 2, 3, 5, 8, 9, -1, -3, -8], [1, 3]):
        for n in [1, 2, 7, 8, 15, 31, 33, 63, 64, 65, 129, 300,
                  SPAN_BLOCK // (abs(s) * itemsize) + 1]:
            yield n, s, rows


def _check_strided_rows(dtype, rng, bounds):
    for n, s, rows in _row_shapes(dtype.itemsize):
        width = n * abs(s) + 3                          # each row: the view's span and 3 more
        base = values(dtype, rows * width, rng).reshape(rows, width)
        pick = (slice(None), slice(1, 1 + n * abs(s)))
        for b_lo, b_hi in bounds:
            view = base[pick][:, ::s]
            assert view.shape == (rows, n), (view.shape, n, s)
            # in place
            expected = base.copy()
            expected[pick][:, ::s] = reference_clip(view, b_lo, b_hi)
            got = base.copy()
            assert fastclip.clip(got[pick][:, ::s], b_lo, b_hi, out=got[pick][:, ::s]) is not None
            assert_same(got, expected)
            # into another array of the same strides
            out_base = np.zeros_like(base)
            expected = out_base.copy()
            expected[pick][:, ::s] = reference_clip(view, b_lo, b_hi)
            fastclip.clip(view, b_lo, b_hi, out=out_base[pick][:, ::s])
            assert_same(out_base, expected)
        # every other element into a contiguous result; the row's last
        # element is the last of base's memory
        halves = values(dtype, rows * (2 * n - 1), rng).reshape(rows, 2 * n - 1)[:, ::2]
        assert halves.shape == (rows, n)
        for b_lo, b_hi in bounds:
            expected = reference_clip(halves, b_lo, b_hi)
            assert_same(fastclip.clip(halves, b_lo, b_hi), expected)
            out = np.zeros((rows, n + 1), dtype)
            fastclip.clip(halves, b_lo, b_hi, out=out[:, :n])
            assert_same(out[:, :n].copy(), expected)
            assert not out[:, n:].view(np.uint8).any()


@pytest.mark.parametrize("dtype", DTYPES_, ids=str)
def test_two_d_views(dtype):
    """Transposed and column-strided 2-D views go through the ufunc with the
    same loops; the output layout is np.clip's."""
    rng = np.random.default_rng(7)
    base = values(dtype, 300 * 80, rng).reshape(300, 80)
    lo, hi = typical_bounds(dtype)
    for view in (base.T, base[:, ::2], base[::3, ::-2], base[:, 1:]):
        assert_same(fastclip.clip(view, lo, hi), reference_clip(view, lo, hi))


def _split_every_call(split):
    """Threads on for every call, each call waiting for its helper and cut
    into chunks of any size (chunk edges everywhere), or as configured."""
    import threading
    from fastclip import _threads, _ufunc
    if split:
        _ufunc._kernels.configure_threads(2, 0, threading.main_thread().ident,
                                          _ufunc.thread_pool())
        _ufunc.pool_modes(split_every_call=True)
    else:
        _ufunc.pool_modes(split_every_call=False)
        _threads._apply()


def _nd_cases(dtype, rng):
    """(input, out or None) pairs for the N-d walk: permuted and reversed views,
    outs transposed from their input (the gathered, buffered walk), length-1
    and zero-length axes, 5 and 32 dimensions."""
    base = values(dtype, 6 * 40 * 50, rng).reshape(6, 40, 50)
    yield base[:, ::2, ::-3], None
    yield base.transpose(2, 0, 1), None
    holder = values(dtype, 6 * 40 * 50, rng).reshape(6, 40, 50)
    yield holder[::-1, 1:, ::2], "inplace"          # reversed and strided, in place
    yield base, np.empty(base.shape[::-1], dtype).T                     # transposed out
    yield base, np.empty((40, 6, 50), dtype).transpose(1, 0, 2)         # permuted out
    yield base[:, :, ::7], np.empty((8, 40, 6), dtype).transpose(2, 1, 0)
    yield base.transpose(1, 2, 0), np.empty((50, 40, 6), dtype)[::-1].transpose(1, 0, 2)
    # short rows that do not merge, gathered several to a buffer
    # (short_rows_<name>): every other element, every third, contiguous
    # pieces; more rows than one buffer holds; into a new result and in place
    yield base[:, ::2, ::2], None
    yield values(dtype, 2000 * 3 * 4, rng).reshape(2000, 3, 4)[:, :2, ::2], None
    yield values(dtype, 2000 * 3 * 6, rng).reshape(2000, 3, 6)[:, :2, ::3], None
    yield values(dtype, 2000 * 3 * 80, rng).reshape(2000, 3, 80)[:, ::2, 5:75], None
    yield values(dtype, 2000 * 3 * 4, rng).reshape(2000, 3, 4)[::-1, :2, ::2], "inplace"
    yield values(dtype, 900 * 3 * 6, rng).reshape(900, 3, 6)[:, 1:, ::-3], "inplace"
    five = values(dtype, 3 * 4 * 5 * 6 * 7, rng).reshape(3, 4, 5, 6, 7)
    yield five[:, ::-1, :, ::2], None
    yield five, np.empty(five.shape[::-1], dtype).T
    yield base[:, :1, :], np.empty((6, 1, 50), dtype)
    yield base[:, :0, :], None
    thirty_two = values(dtype, 2**10, rng).reshape((2,) * 10 + (1,) * 22)
    yield thirty_two.transpose(list(range(31, -1, -1))), None
    yield thirty_two[::-1], np.empty(thirty_two.shape[::-1], dtype).T


@pytest.mark.parametrize("split", [False, True], ids=["configured", "split"])
@pytest.mark.parametrize("dtype", DTYPES_, ids=str)
def test_nd_walks(dtype, split):
    rng = np.random.default_rng(11)
    lo, hi = typical_bounds(dtype)
    _split_every_call(split)
    try:
        for a, out in _nd_cases(dtype, rng):
            expected = reference_clip(a, lo, hi)
            if out is None:
                assert_same(fastclip.clip(a, lo, hi), expected)
            elif isinstance(out, str):
                assert fastclip.clip(a, lo, hi, out=a) is a
                assert_same(a.copy(), expected.copy())
            else:
                assert fastclip.clip(a, lo, hi, out=out) is out
                assert_same(out.copy(), np.ascontiguousarray(expected))
    finally:
        _split_every_call(False)


def _transposing_cases(dtype, rng):
    """(a, out, lo, hi): out= laid out in another axis order than a, with axes
    longer than the walk's 64-element tiles (csrc/walk.h) and not multiples of
    them, so tiles with partial rows and columns are walked; scalar bounds and
    bounds that broadcast."""
    lo, hi = typical_bounds(dtype)
    for shape, perm in [((150, 130), (1, 0)), ((3, 150, 130), (2, 0, 1)), ((130, 3, 150), (1, 2, 0)),
                        ((65, 2, 129), (2, 1, 0)), ((2, 65, 3, 129), (3, 1, 0, 2))]:
        a = values(dtype, int(np.prod(shape)), rng).reshape(shape)
        out_base = np.empty(tuple(shape[p] for p in perm), dtype)
        out = out_base.transpose(np.argsort(perm))      # out's own memory order is perm
        assert out.shape == a.shape
        yield a, out, lo, hi
        yield a[..., ::-1], out, lo, hi
        row = values(dtype, shape[-1], rng)
        yield a, out, row, hi                           # per-element bound along the last axis
        yield a, out, np.minimum(row, dtype.type(hi)) if dtype.kind in "iu" else lo, row


@pytest.mark.parametrize("split", [False, True], ids=["configured", "split"])
@pytest.mark.parametrize("dtype", DTYPES_, ids=str)
def test_transposing_walks(dtype, split):
    rng = np.random.default_rng(23)
    _split_every_call(split)
    try:
        for a, out, lo, hi in _transposing_cases(dtype, rng):
            expected = reference_clip(a, lo, hi)
            out[...] = 0
            assert fastclip.clip(a, lo, hi, out=out) is out
            assert_same(np.ascontiguousarray(out), np.ascontiguousarray(expected))
    finally:
        _split_every_call(False)


def _at(offset, n, dtype):
    """n elements of dtype starting `offset` bytes past a 64-byte boundary,
    0xAA on either side of them"""
    dtype = np.dtype(dtype)
    buf = np.full(n * dtype.itemsize + 256, 0xAA, np.uint8)
    start = (-buf.ctypes.data) % 64 + offset
    return buf, buf[start:start + n * dtype.itemsize].view(dtype)


@pytest.mark.parametrize("dtype", DTYPES_, ids=str)
def test_outputs_at_every_offset_from_a_cache_line(dtype):
    """Contiguous calls of 4 KiB and more start their vector stores on a
    64-byte boundary, the elements before it done apart (_kernel_loops.pxi.in
    scalar_run, csrc/convert.h fc_convert_aligned): an out, or x in place,
    at each element-aligned offset from a line, lengths around the split,
    against the reference; nothing written outside out."""
    rng = np.random.default_rng(41)
    lo, hi = typical_bounds(dtype)
    for n in (4096 // dtype.itemsize - 1, 4096 // dtype.itemsize, 5003):
        x = values(dtype, n, rng)
        expected = reference_clip(x, lo, hi)
        for offset in range(0, 64, dtype.itemsize):
            buf, out = _at(offset, n, dtype)
            before = buf.copy()
            fastclip.clip(x, lo, hi, out=out)
            assert_same(out, expected)
            outside = np.ones(buf.size, bool)
            outside[out.ctypes.data - buf.ctypes.data:][:out.nbytes] = False
            assert (buf[outside] == before[outside]).all(), offset
            _, y = _at(offset, n, dtype)
            y[...] = x
            fastclip.clip(y, lo, hi, out=y)
            assert_same(y, expected)


@pytest.mark.parametrize("src, dst", [("b", "d"), ("B", "f"), ("f", "d"), ("h", "i"), ("i", "d"),
                                      ("f", "B"), ("d", "f")])
def test_conversions_into_every_offset_from_a_cache_line(src, dst):
    """Clip and convert into an out at each element-aligned offset from a
    64-byte line, as np.clip with casting='unsafe' gives it."""
    rng = np.random.default_rng(43)
    src, dst = np.dtype(src), np.dtype(dst)
    n = 5003
    with np.errstate(invalid="ignore"):     # the setup's cast of negatives to uint8 (ARM warns)
        x = (rng.normal(size=n) * 60).astype(src)
    lo, hi = (-50, 100) if src.kind in "iu" and dst.kind == "f" else (0, 100)
    expected = np.clip(x, lo, hi, out=np.empty(n, dst), casting="unsafe")
    for offset in range(0, 64, dst.itemsize):
        buf, out = _at(offset, n, dst)
        before = buf.copy()
        fastclip.clip(x, lo, hi, out=out, casting="unsafe")
        assert_same(out, expected)
        outside = np.ones(buf.size, bool)
        outside[out.ctypes.data - buf.ctypes.data:][:out.nbytes] = False
        assert (buf[outside] == before[outside]).all(), offset


KEYED = [numpy_dtype(r) for r in DTYPES if r.kind in ("half", "bfloat16", "float8")]


@pytest.mark.parametrize("dtype", KEYED, ids=str)
def test_outputs_a_little_past_x_modulo_4096(dtype):
    """The 16- and 8-bit floats' scalar-bounds loops run their loads a block
    ahead of their stores where out starts up to four vectors past x modulo
    4 KiB (csrc/keyed.h FC_KEYED_LOOP): out at every element-aligned
    distance up to 320 bytes past x modulo 4096, lengths around the blocks,
    bounds taking each of the loops (of opposite signs, of one sign, a zero
    bound), against the reference; nothing written outside out."""
    rng = np.random.default_rng(47)
    for n in (255, 256, 511, 512, 1000, 5003):
        x_bytes = -(-n * dtype.itemsize // 4096) * 4096
        buf = np.full(2 * x_bytes + 4096 + 320 + 4096, 0xAA, np.uint8)
        base = (-buf.ctypes.data) % 4096
        x = buf[base:base + n * dtype.itemsize].view(dtype)
        x[...] = values(dtype, n, rng)
        for lo, hi in ((-1.0, 100.0), (1.0, 100.0), (0.0, 3.0), (-100.0, -0.5)):
            expected = reference_clip(x, lo, hi)
            for distance in range(dtype.itemsize, 321, dtype.itemsize):
                start = base + x_bytes + distance
                out = buf[start:start + n * dtype.itemsize].view(dtype)
                before = buf.copy()
                fastclip.clip(x, lo, hi, out=out)
                assert_same(out, expected)
                outside = np.ones(buf.size, bool)
                outside[start:start + out.nbytes] = False
                assert (buf[outside] == before[outside]).all(), (n, lo, hi, distance)
