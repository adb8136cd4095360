"""docs/semantics.rst, Operator mappings: the ONNX Clip and oneDNN Graph Clamp mappings.

The ONNX examples are read from the seed document itself
(tests/data/onnx-Clip-12.rst, a verbatim copy of shared/seeds/)."""

import ast
import os
import re

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, strategies as st

import fastclip
from tests.reference import bits

SEED = os.path.join(os.path.dirname(__file__), "data", "onnx-Clip-12.rst")


def onnx_examples():
    """(name, node inputs, {input name: array}, expected output) per example."""
    with open(SEED) as f:
        text = f.read().split("Examples\n--------", 1)[1]
    text = text.split("Differences with previous version", 1)[0]
    examples = []
    for name, body in re.findall(r"\*\*(test_\w+)\*\*(.*?)(?=\*\*test_|\Z)", text, re.S):
        node_inputs = [s.strip().strip('"') for s in
                       re.search(r"Clip\((.*?)\)", body).group(1).split(",")]
        arrays = {}
        for var, dtype, literal in re.findall(
                r"^\s+(\w+): shape=\([\d, ]*\), dtype=(\w+)\n(.*?)(?=^\s+\w+: shape=|^\s*Outputs:|\Z)",
                body, re.S | re.M):
            arrays[var] = np.array(ast.literal_eval(" ".join(literal.split())), dtype=dtype)
        examples.append((name, node_inputs, arrays))
    return examples


EXAMPLES = onnx_examples()


def test_seed_examples_were_read():
    assert [e[0] for e in EXAMPLES] == ["test_clip_default_int8_inbounds",
                                        "test_clip_default_int8_max",
                                        "test_clip_default_int8_min"]
    assert EXAMPLES[1][2]["x"].shape == (3, 4, 5)


@pytest.mark.parametrize("name,node_inputs,arrays", EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_onnx_clip12_examples(name, node_inputs, arrays):
    # Clip(x, min, max): an omitted input (absent or "") is None
    x = arrays["x"]
    lo = arrays.get("min") if len(node_inputs) > 1 and node_inputs[1] else None
    hi = arrays.get("max") if len(node_inputs) > 2 and node_inputs[2] else None
    got = fastclip.clip(x, lo, hi)
    assert got.dtype == x.dtype == arrays["y"].dtype
    assert np.array_equal(got, arrays["y"])


ONNX_TYPES = [np.float64, np.float32, np.float16, np.int8, np.int16, np.int32, np.int64,
              np.uint8, np.uint16, np.uint32, np.uint64, ml_dtypes.bfloat16]


@pytest.mark.parametrize("dtype", ONNX_TYPES, ids=lambda t: np.dtype(t).name)
def test_onnx_clip_keeps_dtype_and_min_gt_max_gives_max(dtype):
    x = np.arange(-5, 6).astype(dtype) if np.dtype(dtype).kind != "u" else np.arange(11).astype(dtype)
    lo, hi = np.array(7, dtype), np.array(3, dtype)   # 0-d tensors, min > max
    got = fastclip.clip(x, lo, hi)
    assert got.dtype == np.dtype(dtype)
    assert (got == hi).all()
    # an omitted bound is None: np.clip's behaviour, +-inf left as they are
    if np.dtype(dtype).kind == "f" or dtype is ml_dtypes.bfloat16:
        inf = np.array([-np.inf, np.inf], dtype)
        assert bits(fastclip.clip(inf, None, np.array(1, dtype))) == bits(np.array([-np.inf, 1], dtype))


def _bits_to_float64(a):
    with np.errstate(invalid="ignore"):     # signalling NaNs warn in the cast
        if a.dtype == ml_dtypes.bfloat16:   # exact, by bits
            a = (a.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
        return a.astype(np.float64)


# attributes beyond float16's range warn about the cast, as np.clip does
@pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")
@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16],
                         ids=["f32", "f16", "bf16"])
@given(lo=st.floats(width=32, allow_nan=False), hi=st.floats(width=32, allow_nan=False),
       seed=st.integers(0, 2**32 - 1))
def test_onednn_clamp_mapping(dtype, lo, hi, seed):
    """Clamp(src; min, max) with f32 attributes is fastclip.clip(src, float(min),
    float(max)), keeping src's dtype and equal to the formula evaluated in
    float64 and rounded to src's type (rounding is monotonic)."""
    rng = np.random.default_rng(seed)
    width = np.dtype(dtype).itemsize * 8
    raw = rng.integers(0, 2**width, 300, dtype=np.uint64).astype(f"u{width // 8}")
    src = raw.view(dtype)
    src = src[~np.isnan(_bits_to_float64(src))]
    got = fastclip.clip(src, float(np.float32(lo)), float(np.float32(hi)))
    assert got.dtype == src.dtype
    x = _bits_to_float64(src)
    with np.errstate(over="ignore"):
        formula = np.minimum(np.maximum(x, float(lo)), float(hi)).astype(dtype)
    assert np.array_equal(got.astype(np.float64), formula.astype(np.float64))
