"""Streaming stores (csrc/stream.h): the threshold is half the L3 the
machine lists, and results at and beyond it, streamed or stored plainly, on
one thread and two, from the clip and from clip-and-convert, are NumPy's
bytes."""

import os

import numpy as np
import pytest

import fastclip
from fastclip import _ufunc
from tests.reference import BFLOAT16, assert_same, reference_clip


def _sysfs_l3_bytes():
    """The L3 Linux lists for cpu 0, read here apart from csrc/stream.h."""
    import glob
    for index in glob.glob("/sys/devices/system/cpu/cpu0/cache/index*"):
        with open(os.path.join(index, "level")) as f:
            if f.read().strip() != "3":
                continue
        with open(os.path.join(index, "size")) as f:
            size = f.read().strip()
        return int(size[:-1]) << {"K": 10, "M": 20}[size[-1]]
    return None


def test_the_streaming_threshold_is_half_the_machines_l3():
    stores = _ufunc._kernels.stores()
    l3 = _sysfs_l3_bytes()
    if l3 is not None:
        assert (stores["l3_bytes"], stores["l3_source"]) == (l3, "Linux's cache list for cpu 0")
    assert stores["stream_min_bytes"] == stores["l3_bytes"] // 2
    out = np.full(stores["stream_min_bytes"], 1, np.uint8)
    if _ufunc._kernels.STREAM_STORES:
        assert _ufunc._kernels.streams_into(out.ctypes.data, out.nbytes)
    assert not _ufunc._kernels.streams_into(out.ctypes.data, out.nbytes - 1)


# Results of STREAMED_BYTES: streamed with the threshold forced low, on one
# thread and on two (whose shared threshold is twice it), plain stores with it
# forced high.
STREAM_THRESHOLDS = {"streamed": 1 << 20, "plain": 1 << 62}
STREAMED_BYTES = 3 << 20


@pytest.fixture(params=sorted(STREAM_THRESHOLDS))
def store_kind(request):
    """The streaming threshold forced low or high for one test."""
    previous = _ufunc._kernels.set_stream_min_bytes(STREAM_THRESHOLDS[request.param])
    try:
        yield request.param
    finally:
        _ufunc._kernels.set_stream_min_bytes(previous)


def _expect_store_kind(out, store_kind):
    streams = _ufunc._kernels.streams_into(out.ctypes.data, out.nbytes)
    assert streams == (store_kind == "streamed" and _ufunc._kernels.STREAM_STORES)


@pytest.mark.parametrize("dtype", ["uint8", "float32", "float64", "bfloat16"])
def test_streamed_and_plain_stores_give_the_same_bytes(dtype, store_kind):
    """Out-of-place results from the streaming threshold go out with
    streaming stores (csrc/stream.h): a head up to a 64-byte boundary, whole
    blocks, a tail; below it plain stores. Either way, NumPy's bytes."""
    dt = BFLOAT16 if dtype == "bfloat16" else np.dtype(dtype)
    n = STREAMED_BYTES // dt.itemsize + 1000 + 3
    rng = np.random.default_rng(5)
    a = (rng.integers(0, 256, n) if dt.kind == "u" else rng.normal(size=n)).astype(dt)
    lo, hi = (10, 200) if dt.kind == "u" else (-0.5, 0.5)
    expected = reference_clip(a, lo, hi)
    before = fastclip.get_num_threads()
    try:
        for threads in (1, 2):
            fastclip.set_num_threads(threads)
            for offset in (0, 1, 7):        # output starting off a 64-byte line
                # np.full writes its pages (np.zeros' stay unmapped, and
                # fresh memory is not streamed into)
                out = np.full(n + 8, 3, dt)[offset: offset + n]
                _expect_store_kind(out, store_kind)
                assert fastclip.clip(a, lo, hi, out=out) is out
                assert_same(out, expected)
    finally:
        fastclip.set_num_threads(before)


@pytest.mark.parametrize("src, dst, bounds", [
    ("float32", "float64", (np.float64(-0.5), np.float64(0.5))),   # the wider loop
    ("float32", "float64", (-0.5, 0.5)),        # clip in float32, then widen
    ("float64", "float32", (-0.5, 0.5)),
    ("float32", "uint8", (0, 200)),
    ("int16", "float64", (-100, 100)),
])
def test_streamed_and_plain_conversions_give_the_same_bytes(src, dst, bounds, store_kind):
    """Clip-and-convert results from the streaming threshold, into memory in
    place, stream out of an L1 buffer (csrc/convert.h, fc_convert_streamed):
    a head up to a 64-byte boundary, whole blocks, a tail; on each thread's
    part (a narrowing keeps plain stores: its stores are a fraction of its
    traffic). A NaN met in a streamed block hands the call to NumPy, whose
    answer replaces all of it. Below it, plain stores; either way NumPy's
    bytes."""
    src, dst = np.dtype(src), np.dtype(dst)
    n = STREAMED_BYTES // dst.itemsize + 1000 + 3
    rng = np.random.default_rng(6)
    a = (rng.normal(size=n) * 300).astype(src)
    lo, hi = bounds
    before = fastclip.get_num_threads()
    try:
        for threads in (1, 2):
            fastclip.set_num_threads(threads)
            for offset in (0, 1, 7):
                for nan_at in ((None, n - 5000) if src.kind == "f" else (None,)):
                    x = a.copy()
                    if nan_at is not None:
                        x[nan_at] = np.nan
                    out = np.full(n + 8, 3, dst)[offset: offset + n]
                    _expect_store_kind(out, store_kind)
                    expected = np.full(n, 3, dst)
                    np.clip(x, lo, hi, out=expected, casting="unsafe")
                    with np.errstate(invalid="ignore"):
                        assert fastclip.clip(x, lo, hi, out=out, casting="unsafe") is out
                    assert_same(out, expected)
    finally:
        fastclip.set_num_threads(before)
