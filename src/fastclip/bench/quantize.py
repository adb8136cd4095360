"""The benchmark's quantize section: fastclip.quantize beside what users run
for ONNX QuantizeLinear, where installed: the NumPy expression of
onnxruntime's quantization tool (quant_utils.quantize_nparray), onnx.reference's
operator alone, torch.quantize_per_tensor/per_channel (+ int_repr), and an
onnxruntime session holding one QuantizeLinear node; np.copyto of the call's
bytes (x read, the result written) as the floor. One thread each, and at
2^24 float32 -> int8 per tensor all threads.
"""

import warnings

import numpy as np

import fastclip
from fastclip._dtypes import DTYPES, numpy_dtype

SIZES_FULL = (16, 100_000, 2**24)
SIZES_QUICK = (16, 100_000)
_DTYPE = {row.name: numpy_dtype(row) for row in DTYPES}
PAIRS_FULL = [(src, dst) for src in ("float", "half")
              for dst in ("byte", "ubyte", "float8_e4m3fn")]
PAIRS_QUICK = [("float", "byte"), ("float", "float8_e4m3fn")]
#: the contenders' columns, after fastclip
PEERS = ("numpy tool", "onnx.reference", "onnxruntime", "onnxruntime no spin", "torch")
#: the all-threads row's pause before each batch: longer than onnxruntime's
#: threads spin on after a run (by default), so that no contender's calls
#: meet the cores the one before left spinning
ALL_THREADS_SETTLE_S = 0.2


def _shape(n, per_axis):
    """x's shape: per axis, channels along axis 0 (a weight's output channels)."""
    if not per_axis:
        return (n,)
    channels = 4 if n == 16 else 100 if n == 100_000 else 64
    return (channels, n // channels)


def _operands(src, dst, n, per_axis, rng):
    x = (rng.normal(size=_shape(n, per_axis)) * 40).astype(src)
    channels = x.shape[0] if per_axis else None
    scale = (np.float32(0.3) if channels is None
             else rng.uniform(0.2, 0.4, size=channels).astype(np.float32)).astype(src)
    if dst.kind in "iu":
        zero = np.full(channels or (), 3 if dst.kind == "i" else 128, dtype=dst)
    else:
        zero = np.zeros(channels or (), dtype=dst)
    return x, np.asarray(scale), zero


def _numpy_tool(x, scale, zero, dst, axis):
    """onnxruntime's quantize_nparray: integers only (its float8 path is
    onnx.reference's)."""
    if dst.kind not in "iu":
        return None
    info = np.iinfo(dst)
    s = scale if scale.ndim == 0 else scale.reshape(-1, *([1] * (x.ndim - 1)))
    z = zero if zero.ndim == 0 else zero.reshape(s.shape)

    def run():
        a = np.asarray((x.astype(np.float32) / s).round() + z)
        np.clip(a, info.min, info.max, out=a)
        return a.astype(dst)
    return run


def _onnx_reference(peers, x, scale, zero):
    if peers.onnx is None:
        return None
    from onnx.reference.ops.op_quantize_linear import _CommonQuantizeLinear

    def run():
        with np.errstate(all="ignore"):
            return _CommonQuantizeLinear._run(None, x, scale, zero, axis=0)
    return run


def _onnxruntime(peers, x, scale, zero, threads=1, spin=True):
    """A session of one QuantizeLinear node (opset 21; scale and zero point
    initializers), intra_op_num_threads=threads (0: its default, all);
    spin=False: its threads sleep after a run (allow_spinning 0) where by
    default they spin on the cores the next call needs."""
    if peers.onnxruntime is None or peers.onnx is None:
        return None
    from onnx import helper, numpy_helper
    ort = peers.onnxruntime
    to_type = helper.np_dtype_to_tensor_dtype
    node = helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], axis=0)
    graph = helper.make_graph(
        [node], "quantize", [helper.make_tensor_value_info("x", to_type(x.dtype), None)],
        [helper.make_tensor_value_info("y", to_type(zero.dtype), None)],
        initializer=[numpy_helper.from_array(scale, "s"), numpy_helper.from_array(zero, "z")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    if not spin:
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    session = ort.InferenceSession(model.SerializeToString(), options,
                                   providers=["CPUExecutionProvider"])
    feed = {"x": x}
    return lambda: session.run(None, feed)


def _torch(peers, x, scale, zero, dst):
    torch = peers.torch
    if torch is None or x.dtype != np.float32 or dst.kind not in "iu" or dst.itemsize != 1:
        return None
    warnings.filterwarnings("ignore", message="torch.quantize_per")    # deprecated, not gone
    qtype = torch.qint8 if dst.kind == "i" else torch.quint8
    t = torch.from_numpy(x)
    if scale.ndim == 0:
        s, z = float(scale), int(zero)
        return lambda: torch.quantize_per_tensor(t, s, z, qtype).int_repr()
    s = torch.from_numpy(scale.astype(np.float64))
    z = torch.from_numpy(zero.astype(np.int64))
    return lambda: torch.quantize_per_channel(t, s, z, 0, qtype).int_repr()


def cases(peers, quick=False):
    """(label, n, {contender: zero-argument function})."""
    rng = np.random.default_rng(6)
    for src_name, dst_name in PAIRS_QUICK if quick else PAIRS_FULL:
        src, dst = _DTYPE[src_name], _DTYPE[dst_name]
        for per_axis in (False, True):
            for n in SIZES_QUICK if quick else SIZES_FULL:
                x, scale, zero = _operands(src, dst, n, per_axis, rng)
                out = np.empty(x.shape, dst)
                moved = x.nbytes + out.nbytes
                copy_src, copy_dst = np.ones(moved // 2, np.uint8), np.empty(moved // 2, np.uint8)
                funcs = {"fastclip": lambda x=x, s=scale, z=zero, o=out: fastclip.quantize(
                             x, s, z, axis=0, out=o),
                         "np.copyto": lambda s=copy_src, c=copy_dst: np.copyto(c, s)}
                for name, f in (("numpy tool", _numpy_tool(x, scale, zero, dst, 0)),
                                ("onnx.reference", _onnx_reference(peers, x, scale, zero)),
                                ("onnxruntime", _onnxruntime(peers, x, scale, zero)),
                                ("torch", _torch(peers, x, scale, zero, dst))):
                    if f is not None:
                        funcs[name] = f
                what = "per axis" if per_axis else "per tensor"
                yield f"{src.name}->{dst.name} {what}", n, funcs


def all_threads_case(peers):
    """2^24 float32 -> int8 per tensor: fastclip and onnxruntime on all
    threads, each batch after a pause (timing.after_a_pause)."""
    from fastclip.bench.timing import after_a_pause, with_threads
    from fastclip import _threads
    every = _threads._available_cpus()
    x, scale, zero = _operands(_DTYPE["float"], _DTYPE["byte"], 2**24, False,
                               np.random.default_rng(6))
    out = np.empty(x.shape, np.int8)
    f = lambda: fastclip.quantize(x, scale, zero, out=out)   # noqa: E731
    funcs = {"fastclip": with_threads(every, f), "fastclip 1 thread": with_threads(1, f)}
    for name, spin in (("onnxruntime", True), ("onnxruntime no spin", False)):
        ort = _onnxruntime(peers, x, scale, zero, threads=0, spin=spin)
        if ort is not None:
            funcs[name] = ort
    return (f"float32->int8 per tensor, all {every} threads", 2**24,
            {k: after_a_pause(f, ALL_THREADS_SETTLE_S) for k, f in funcs.items()})


def section(peers, repeats, min_seconds, progress=None, quick=False):
    from fastclip.bench.sections import _OneThread, _say
    from fastclip.bench.timing import time_interleaved
    rows = []
    with _OneThread(peers):
        for label, n, funcs in cases(peers, quick):
            _say(progress, f"[quantize] {label} n={n}")
            rows.append({"case": label, "n": n, "threads": 1,
                         "seconds": time_interleaved(funcs, repeats, min_seconds)})
    if not quick:
        label, n, funcs = all_threads_case(peers)
        _say(progress, f"[quantize] {label}")
        rows.append({"case": label, "n": n, "threads": "all",
                     "seconds": time_interleaved(funcs, repeats, min_seconds)})
    return rows


def table(report, table_class, time_text, x_text):
    rows = []
    for r in report["quantize"]:
        t = r["seconds"]
        fc = t["fastclip"]
        copy = f"{fc / t['np.copyto']:.2f}" if "np.copyto" in t else "-"
        rows.append([r["case"], str(r["n"]), time_text(fc), copy,
                     *[x_text(t[p] / fc) if p in t else "-" for p in PEERS]])
    return table_class(
        "Quantize: fastclip.quantize (ONNX QuantizeLinear), one thread each but the last row",
        ["case", "n", "fastclip", "vs copyto", *PEERS], rows,
        "vs copyto: fastclip's time over a copy of as many bytes as the call moves (x read, "
        "the result written); a peer's column: its time over fastclip's. numpy tool: "
        "onnxruntime's quantize_nparray expression; onnxruntime: a session of one "
        "QuantizeLinear node; onnxruntime no spin: the same on all threads with "
        "session.intra_op.allow_spinning 0 (by default its threads spin after a run); torch: "
        "quantize_per_tensor/per_channel + int_repr. The all-threads row: each batch after "
        f"a pause of {ALL_THREADS_SETTLE_S * 1000:.0f} ms, which outlasts onnxruntime's spin, "
        "and one call not timed.")
