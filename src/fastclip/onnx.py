"""ONNX's reference runtime on fastclip's kernels: ``Clip`` and
``QuantizeLinear`` as onnx.reference op classes (onnx is an optional
dependency: ``pip install fastclip-numpy[onnx]``)::

    from onnx.reference import ReferenceEvaluator
    import fastclip.onnx

    session = ReferenceEvaluator(model, new_ops=fastclip.onnx.OPS)

onnx.reference takes a class of new_ops by its name alone, so each class here
is its operator at every opset. A call fastclip has loops for runs on them
(fastclip.clip, fastclip.quantize); any other (an int4, float4 or
float8 *fnuz result, a ``precision`` attribute, an int32 x) is the
reference's own.
"""

import numpy as np
from onnx.helper import tensor_dtype_to_np_dtype
from onnx.reference.op_run import OpRun
from onnx.reference.ops.op_quantize_linear import _CommonQuantizeLinear

import fastclip
from fastclip._dtypes import DTYPES, numpy_dtype

_DTYPE = {row.name: numpy_dtype(row) for row in DTYPES}
#: what fastclip.quantize divides and writes
_QUANTIZE_SOURCES = {_DTYPE[n] for n in ("float", "half", "bfloat16")}
_QUANTIZE_RESULTS = {_DTYPE[n] for n in ("byte", "ubyte", "short", "ushort", "float8_e4m3fn",
                                        "float8_e5m2")}

__all__ = ["Clip", "QuantizeLinear", "OPS"]


class Clip(OpRun):
    """Clip (opsets 6, 11, 12, 13): fastclip.clip, which is np.clip bit for
    bit, the reference's own function."""

    op_domain = ""

    def _run(self, data, *minmax, min=None, max=None):  # noqa: A002  (the attributes' names)
        lo = minmax[0] if len(minmax) > 0 else min      # opset 11 on: inputs; 6: attributes
        hi = minmax[1] if len(minmax) > 1 else max
        if lo is None and hi is None:
            return (data,)
        res = fastclip.clip(data, lo, hi)
        return (res if res.dtype == data.dtype else res.astype(data.dtype),)


class QuantizeLinear(OpRun):
    """QuantizeLinear (opsets 10 to 25): fastclip.quantize where it has
    loops for the call, the reference's own function otherwise."""

    op_domain = ""

    def _run(self, x, y_scale, zero_point=None, axis=1, saturate=1, block_size=0,
             output_dtype=0, precision=0):
        dtype = tensor_dtype_to_np_dtype(output_dtype) if output_dtype else None
        result = dtype if zero_point is None else zero_point.dtype
        if (not precision and x.dtype in _QUANTIZE_SOURCES
                and np.asarray(y_scale).dtype in _QUANTIZE_SOURCES
                and (result is None or result in _QUANTIZE_RESULTS)):
            return (fastclip.quantize(x, y_scale, zero_point, dtype=dtype, axis=axis,
                                      block_size=block_size or 0, saturate=bool(saturate)),)
        extra = {"precision": precision} if precision else {}    # (opset 23 on)
        return _CommonQuantizeLinear._run(self, x, y_scale, zero_point, axis=axis,
                                          saturate=saturate, block_size=block_size,
                                          output_dtype=output_dtype or None, **extra)


#: the classes to pass as ReferenceEvaluator(model, new_ops=fastclip.onnx.OPS)
OPS = [Clip, QuantizeLinear]
