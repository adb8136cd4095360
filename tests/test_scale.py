"""Dask and xarray at scale: lazy arrays computed chunk by chunk with
fastclip's kernels, on a cluster of worker processes (which proves the ufunc
and the kernels pickle and import there)."""

import numpy as np
import pytest

import fastclip
from tests.reference import BFLOAT16, assert_same, reference_clip

da = pytest.importorskip("dask.array")


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=40)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def test_local_cluster_of_worker_processes(client):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 300)).astype(np.float32)
    dx = da.from_array(x, chunks=(100, 150))
    r = fastclip.clip(dx, -1.0, 1.0)
    assert isinstance(r, da.Array) and r.chunks == dx.chunks
    assert_same(client.compute(r).result(), np.clip(x, -1.0, 1.0))
    # bfloat16 stays bfloat16 only through fastclip's loop: the workers ran it
    xb = x.astype(BFLOAT16)
    rb = fastclip.clip(da.from_array(xb, chunks=(100, 150)), -1.0, 1.0)
    assert rb.dtype == BFLOAT16
    assert_same(client.compute(rb).result(), reference_clip(xb, -1.0, 1.0))
    # the ufunc itself, with per-chunk array bounds
    lo = da.from_array(np.full((400, 300), -0.5, np.float32), chunks=(100, 150))
    ru = fastclip.clip_ufunc(dx, lo, np.float32(0.5))
    assert_same(client.compute(ru).result(), np.clip(x, np.float32(-0.5), np.float32(0.5)))


def test_workers_run_single_threaded_kernels(client):
    # the rule: calls from a worker's task thread are not split
    def threads_in_task():
        from fastclip import _ufunc
        return _ufunc._kernels.threads_for_bytes(1 << 30)

    assert set(client.run(lambda: 0).values()) == {0}
    futures = [client.submit(threads_in_task, pure=False) for _ in range(4)]
    assert [f.result() for f in futures] == [1, 1, 1, 1]


def test_xarray_numpy_and_dask_backed():
    xr = pytest.importorskip("xarray")
    data = np.linspace(-3, 3, 24, dtype=np.float64).reshape(4, 6)
    coords = {"t": np.arange(4), "c": list("abcdef")}
    for backing in (data, da.from_array(data, chunks=(2, 3))):
        arr = xr.DataArray(backing, dims=("t", "c"), coords=coords, attrs={"units": "m"})
        r = fastclip.clip(arr, -1, 1)
        assert isinstance(r, xr.DataArray) and r.dims == ("t", "c")
        assert list(r.coords["c"].values) == list("abcdef")
        assert isinstance(r.data, type(backing))
        assert_same(np.asarray(r.values), np.clip(data, -1, 1))
