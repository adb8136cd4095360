"""Hypothesis: fastclip.clip against np.clip (the oracle) over every dtype,
layout, kind of bound, kind of out and ufunc keyword. Same result bit for bit,
or the same exception type; the same warnings. A failure Hypothesis finds is
pinned as a case of tests/test_regressions.py."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import fastclip
from tests.arrays import KERNEL_DTYPES, ArraySpec, array_specs, build, raw_elements
from tests.reference import assert_same_outcome, is_ml_float, numpy_clip, outcome, reference_clip

BIG = 2**70


@st.composite
def bounds(draw, a_spec):
    kind = draw(st.sampled_from(["none", "pyint", "pyfloat", "pybool", "npscalar",
                                 "0d", "array", "pyfloat", "pyint"]))
    if kind == "none":
        return ("none",)
    if kind == "pyint":
        return ("py", draw(st.one_of(st.integers(-300, 300), st.integers(-BIG, BIG),
                                     st.sampled_from([2**63 - 1, 2**63, 2**64 - 1, -2**63,
                                                      2**31, -2**31 - 1, 2**53 + 1]))))
    if kind == "pyfloat":
        return ("py", draw(st.one_of(st.floats(), st.sampled_from(
            [0.0, -0.0, 0.5, -1.5, 1e39, 70000.0, float("inf"), float("nan")]))))
    if kind == "pybool":
        return ("py", draw(st.booleans()))
    dtype = draw(st.sampled_from(KERNEL_DTYPES + [a_spec.dtype] * 4 + [np.dtype("F")]))
    if kind in ("npscalar", "0d"):
        raw = draw(raw_elements(dtype, 1)) if not dtype.hasobject else b""
        return (kind, ArraySpec(dtype, (), raw))
    # an array that broadcasts against a: a's trailing shape, some sides 1
    shape = list(a_spec.shape[len(a_spec.shape) - draw(st.integers(0, len(a_spec.shape))):])
    shape = tuple(1 if draw(st.booleans()) and draw(st.booleans()) else s for s in shape)
    spec = draw(array_specs(dtypes=[dtype], max_dims=0))
    raw = draw(raw_elements(dtype, int(np.prod(shape, dtype=np.int64)))) if not dtype.hasobject else b""
    return ("array", ArraySpec(dtype, shape, raw, spec.layout if spec.layout != "broadcast" else "C",
                               tuple(draw(st.sampled_from([1, 2, -1])) for _ in shape),
                               spec.swapped, spec.readonly))


def make_bound(b):
    if b[0] == "none":
        return None
    if b[0] == "py":
        return b[1]
    arr = build(b[1])
    return arr[()] if b[0] == "npscalar" else arr


@st.composite
def cases(draw):
    a_spec = draw(array_specs())
    lo, hi = draw(bounds(a_spec)), draw(bounds(a_spec))
    out_kind = draw(st.sampled_from(["none", "none", "fresh", "fresh-other", "fresh-other",
                                     "fresh-strided", "inplace", "overlap"]))
    if out_kind == "overlap" and not (len(a_spec.shape) == 1 and a_spec.shape[0] > 1
                                      and not a_spec.readonly and a_spec.layout != "broadcast"
                                      and not a_spec.dtype.hasobject):
        out_kind = "none"
    out_dtype = draw(st.sampled_from(KERNEL_DTYPES)) if out_kind == "fresh-other" else None
    kwargs = {}
    if draw(st.integers(0, 4)) == 0:
        kwargs["dtype"] = draw(st.sampled_from([np.float64, np.float32, np.int16]))
    if out_kind == "fresh-other" or draw(st.integers(0, 4)) == 0:
        kwargs["casting"] = draw(st.sampled_from(["unsafe", "same_kind"]))
    if out_kind != "none" and draw(st.integers(0, 3)) == 0:
        kwargs["where"] = draw(st.lists(st.booleans(), min_size=1, max_size=1))[0] if draw(
            st.booleans()) else "mask"
    keywords = draw(st.integers(0, 4)) == 0
    # what a is: mostly the array, else a Python scalar, a NumPy scalar, a 0-d
    # array (its first element), or a list or tuple of its elements
    a_form = draw(st.sampled_from(["array"] * 5 + ["python", "npscalar", "npscalar", "0d", "0d",
                                                   "list", "tuple"]))
    if a_form != "array" and out_kind in ("inplace", "overlap"):
        out_kind = "none"
        kwargs.pop("where", None)
    return a_spec, lo, hi, out_kind, out_dtype, kwargs, keywords, a_form


def as_form(a, form):
    if form == "array":
        return a
    if form in ("list", "tuple"):
        items = a.tolist()
        return tuple(items) if form == "tuple" and isinstance(items, list) else items
    first = a.ravel()[:1].copy().reshape(())
    if first.size == 0:
        return a
    if form == "0d":
        return first
    return first[()].item() if form == "python" else first[()]


def make_call(case):
    """A function running one clip implementation on fresh inputs, returning
    (result, out array or None, input array)."""
    a_spec, lo_b, hi_b, out_kind, out_dtype, kwargs, keywords, a_form = case

    def run(clip):
        a = as_form(build(a_spec), a_form)
        lo, hi = make_bound(lo_b), make_bound(hi_b)
        kw = dict(kwargs)
        out = None
        shape, dtype = np.shape(a), np.asarray(a).dtype
        if out_kind in ("fresh", "fresh-other"):
            out = np.zeros(shape, out_dtype or dtype.newbyteorder("="))
        elif out_kind == "fresh-strided":     # every axis of out a view with gaps
            out = np.zeros(shape + (2,), dtype.newbyteorder("="))[..., 0]
        elif out_kind == "inplace":
            out = a
        elif out_kind == "overlap":
            base = np.zeros(a.size + 1, a.dtype)
            base[1:] = a
            a, out = base[1:], base[:-1]
        if out is None:
            kw.pop("where", None)   # without out, masked-off elements are undefined
        if isinstance(kw.get("where"), str):
            kw["where"] = (np.arange(np.size(a)).reshape(shape) % 3) != 1
        if out is not None:
            kw["out"] = out
        if keywords:
            result = clip(a, min=lo, max=hi, **kw)
        else:
            result = clip(a, lo, hi, **kw)
        return result, out, a

    return run


def own_dtype_rule_applies(case):
    """docs/semantics.rst, the bfloat16/float8 rule: a bfloat16 or float8 array keeps its dtype."""
    a_spec, lo_b, hi_b, out_kind, out_dtype, kwargs, keywords, a_form = case
    own = a_spec.dtype.newbyteorder("=")

    def own_bound(b):
        return b[0] == "none" or (b[0] == "py" and type(b[1]) is not bool) or (
            b[0] != "py" and b[1].dtype.newbyteorder("=") == own)

    return (is_ml_float(own) and own_bound(lo_b) and own_bound(hi_b)
            and "dtype" not in kwargs
            and (out_kind != "fresh-other" or out_dtype == own)   # an out of a's dtype
            and a_form in ("array", "0d"))


@pytest.mark.thread_unsafe(reason="compares warnings, which warnings.catch_warnings records process-wide")
@given(cases(), st.sampled_from([None, None, None, "warn", "raise"]))
def test_matches_numpy(case, errors):
    """errors: np.errstate(all=errors) around both calls (None: NumPy's
    default), where NumPy warns of or raises what its loops and casts flag."""
    run = make_call(case)
    # the own-dtype rule (a bfloat16 or float8 array keeps its dtype, into an
    # out of its format and with where= too): the float32 route is the reference
    oracle = reference_clip if own_dtype_rule_applies(case) else numpy_clip
    with np.errstate(**({} if errors is None else {"all": errors})):
        assert_same_outcome(outcome(lambda: run(fastclip.clip)), outcome(lambda: run(oracle)),
                            with_out=True)


def test_generator_covers_the_interesting_inputs():
    """The recipe builder makes what it says (a guard on the generator itself)."""
    spec = ArraySpec(np.dtype(np.float32), (3, 4), np.arange(12, dtype=np.float32).tobytes())
    assert build(spec).flags.c_contiguous
    assert build(ArraySpec(spec.dtype, spec.shape, spec.raw, "F")).flags.f_contiguous
    s = build(ArraySpec(spec.dtype, spec.shape, spec.raw, "strided", (2, -1)))
    assert s.strides[0] > 0 > s.strides[1]
    assert not build(ArraySpec(spec.dtype, spec.shape, spec.raw, "unaligned")).flags.aligned
    assert build(ArraySpec(spec.dtype, spec.shape, spec.raw, "broadcast")).strides[-1] == 0
    sw = build(ArraySpec(spec.dtype, spec.shape, spec.raw, swapped=True))
    assert not sw.dtype.isnative and np.array_equal(sw, build(spec))
    assert not build(ArraySpec(spec.dtype, spec.shape, spec.raw, readonly=True)).flags.writeable
