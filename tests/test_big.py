"""More than 2**31 elements: indices and sizes must not overflow 32 bits."""

import numpy as np
import pytest

import fastclip

N = 2**31 + 4096 + 3        # past 2**31, not a multiple of any vector width


@pytest.fixture(scope="module")
def big_int8():
    try:
        a = np.empty(N, np.int8)
    except MemoryError:
        pytest.skip("not enough memory for a 2 GiB array")
    pattern = np.arange(256, dtype=np.uint8).view(np.int8)
    full = (N // 256) * 256
    a[:full].reshape(-1, 256)[:] = pattern
    a[full:] = pattern[: N - full]
    return a, pattern, full


def test_more_than_2_31_elements(big_int8):
    a, pattern, full = big_int8
    r = fastclip.clip(a, -10, 20)
    expected = np.clip(pattern, -10, 20)
    assert r.shape == (N,) and r.dtype == np.int8
    assert (r[:full].reshape(-1, 256) == expected).all()
    assert (r[full:] == expected[: N - full]).all()
    # the elements past 2**31 in particular, and in place
    assert (r[2**31 - 256: 2**31 + 256] == np.clip(a[2**31 - 256: 2**31 + 256], -10, 20)).all()
    del r
    fastclip.clip(a, -10, 20, out=a)
    assert (a[full:] == expected[: N - full]).all()
    assert (a[:full].reshape(-1, 256) == expected).all()
