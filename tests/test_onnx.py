"""fastclip.onnx's op classes under onnx.reference's ReferenceEvaluator: ONNX's
own backend test cases for Clip and QuantizeLinear (the generators the onnx
package ships, each case a node, its inputs and expected outputs), with
fastclip's classes as new_ops. Every case the reference runtime passes
passes; the rest are named with the reason."""

import warnings

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx.numpy_helper import to_array  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

import fastclip.onnx  # noqa: E402
from tests.reference import bits  # noqa: E402

OPERATORS = ("Clip", "QuantizeLinear")


def _cases():
    from onnx.backend.test.case import node
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        # the generators of every operator run at import (their own casts warn)
        warnings.simplefilter("ignore")
        every = node.collect_testcases()
    return [c for c in every if c.model.graph.node[0].op_type in OPERATORS]


CASES = _cases()


def _arrays(values):
    return [to_array(v) if isinstance(v, onnx.TensorProto) else np.asarray(v) for v in values]


def _run(case, new_ops):
    session = ReferenceEvaluator(case.model, new_ops=new_ops)
    names = [i.name for i in case.model.graph.input]
    results = []
    for inputs, _ in case.data_sets:
        with np.errstate(all="ignore"):
            results.append(session.run(None, dict(zip(names, _arrays(inputs)))))
    return results


def _matches(results, case):
    for got, (_, expected) in zip(results, case.data_sets):
        for g, e in zip(got, _arrays(expected)):
            if g.dtype != e.dtype or g.shape != e.shape or bits(g) != bits(e):
                return False
    return True


def test_the_cases_are_there():
    names = {c.model.graph.node[0].op_type for c in CASES}
    assert names == set(OPERATORS)
    assert len(CASES) >= 20


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_backend_case(case):
    assert _matches(_run(case, None), case), f"{case.name}: onnx.reference itself differs"
    assert _matches(_run(case, fastclip.onnx.OPS), case)


#: the cases that call neither fastclip.clip nor fastclip.quantize under
#: fastclip.onnx.OPS, and why: results fastclip.quantize has no loops for
#: (onnx.reference's own function runs them), a Clip without bounds
WITHOUT_FASTCLIP = {
    "test_clip_default_inbounds": "no bounds: the input is the output",
    "test_clip_default_int8_inbounds": "no bounds: the input is the output",
    "test_quantizelinear_int4": "an int4 result",
    "test_quantizelinear_uint4": "a uint4 result",
    "test_quantizelinear_int2": "an int2 result",
    "test_quantizelinear_uint2": "a uint2 result",
    "test_quantizelinear_float4e2m1": "a float4e2m1 result",
}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_fastclip_runs_the_case(case, monkeypatch):
    """fastclip's function runs every case but those of WITHOUT_FASTCLIP."""
    calls = []
    for name in ("clip", "quantize"):
        real = getattr(fastclip, name)
        monkeypatch.setattr(fastclip, name,
                            lambda *a, _real=real, **k: calls.append(1) or _real(*a, **k))
    _run(case, fastclip.onnx.OPS)
    assert bool(calls) == (case.name not in WITHOUT_FASTCLIP), WITHOUT_FASTCLIP.get(case.name)
