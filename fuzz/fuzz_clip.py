"""Differential fuzzing of fastclip.clip and fastclip.clip_ufunc against np.clip.

atheris (coverage-guided, libFuzzer) decodes each input into a call: dtype,
shape, layout (strides, negative steps, transposes, unaligned, byte-swapped,
read-only, broadcast), bounds of every kind, the form of out, ufunc keywords.
Both sides get fresh inputs built from the same recipe, under the same
np.errstate; a result that differs bit for bit, a different exception type or
different warnings is a crash.

    python fuzz/fuzz_clip.py -max_total_time=60          # or fuzz/run SECONDS
"""

import hashlib
import os
import sys

import atheris

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np  # noqa: E402

# Coverage feedback from fastclip's Python (the argument handling) and the
# recipe builder; the C kernels are checked by the comparison, not instrumented.
with atheris.instrument_imports(include=["fastclip", "tests"]):
    import fastclip  # noqa: E402
    from tests.arrays import ALL_DTYPES, KERNEL_DTYPES, ArraySpec, build  # noqa: E402
    from tests.reference import assert_same_outcome, is_ml_float, outcome, reference_clip  # noqa: E402

LAYOUTS = ["C", "F", "T", "strided", "unaligned", "broadcast"]
SPECIAL_PY = [0, 1, -1, 255, 256, -129, 2**31, 2**63, 2**64, -2**70, 0.5, -0.0, 1e39,
              float("inf"), float("-inf"), float("nan"), True, False, None]


class Source:
    """The fuzz input's decisions; once its bytes run out, a generator seeded
    by the input carries on, so short inputs still make full-size arrays."""

    def __init__(self, data):
        self.fdp = atheris.FuzzedDataProvider(data)
        self.rng = np.random.default_rng(int.from_bytes(hashlib.blake2b(data).digest()[:8], "little"))

    def int(self, lo, hi):
        if self.fdp.remaining_bytes():
            return self.fdp.ConsumeIntInRange(lo, hi)
        return int(self.rng.integers(lo, hi + 1))

    def pick(self, options):
        return options[self.int(0, len(options) - 1)]

    def bytes(self, n):
        b = self.fdp.ConsumeBytes(n)
        return b + self.rng.integers(0, 256, n - len(b), dtype=np.uint8).tobytes()

    def float(self):
        if self.fdp.remaining_bytes():
            return self.fdp.ConsumeRegularFloat()
        return float(self.rng.normal() * 10.0 ** int(self.rng.integers(-3, 40)))


def array_spec(src, dtype=None, max_dims=4):
    dtype = dtype if dtype is not None else src.pick(ALL_DTYPES)
    nd = src.int(0, max_dims)
    shape = tuple(src.int(0, 6) for _ in range(nd))
    n = int(np.prod(shape, dtype=np.int64))
    raw = src.bytes(n * dtype.itemsize) if not dtype.hasobject else b""
    return ArraySpec(dtype, shape, raw, src.pick(LAYOUTS),
                     tuple(src.pick([1, 2, 3, -1, -2]) for _ in shape),
                     swapped=src.int(0, 3) == 0, readonly=src.int(0, 5) == 0)


def bound_recipe(src, a_spec):
    kind = src.int(0, 5)
    if kind == 0:
        return ("py", src.pick(SPECIAL_PY))
    if kind == 1:
        return ("py", src.float() if src.int(0, 1) else src.int(-2**40, 2**40))
    dtype = src.pick(KERNEL_DTYPES + [a_spec.dtype] * 3)
    if kind in (2, 3):
        return ("npscalar" if kind == 2 else "0d", array_spec(src, dtype, max_dims=0))
    nd = src.int(0, len(a_spec.shape))
    shape = tuple(1 if src.int(0, 3) == 0 else s for s in a_spec.shape[len(a_spec.shape) - nd:])
    n = int(np.prod(shape, dtype=np.int64))
    return ("array", ArraySpec(dtype, shape, src.bytes(n * dtype.itemsize), "C",
                               tuple(1 for _ in shape), swapped=src.int(0, 3) == 0))


def make_bound(b):
    if b[0] == "py":
        return b[1]
    arr = build(b[1])
    return arr[()] if b[0] == "npscalar" else arr


def call(clip, a_spec, a_form, lo_r, hi_r, out_kind, out_dtype, kwargs, where, keywords):
    """One call of `clip` as TestOneInput drew it, on arrays built afresh: its
    result, its out and its a."""
    a = build(a_spec)
    if a_form != "array":
        first = a.reshape(-1)[:1].copy()
        a = first if a_form == "one" else first.reshape(())
        if a_form == "npscalar":
            a = a[()]
    lo, hi = make_bound(lo_r), make_bound(hi_r)
    kw = dict(kwargs)
    shape = np.shape(a)
    if out_kind == "fresh":
        kw["out"] = np.zeros(shape, np.asarray(a).dtype.newbyteorder("="))
    elif out_kind == "other":
        kw["out"] = np.zeros(shape, out_dtype)
    elif out_kind == "inplace" and isinstance(a, np.ndarray):
        kw["out"] = a
    if "out" in kw and where is not None:
        if where in ("mask", "row"):
            n = int(np.prod(shape, dtype=np.int64))
            mask = (np.arange(n) % 3 != 1).reshape(shape)
            kw["where"] = mask[..., :1] if where == "row" and shape and shape[-1] else mask
        else:
            kw["where"] = where
    if keywords and clip is not np._core.umath.clip and clip is not fastclip.clip_ufunc:
        r = clip(a, min=lo, max=hi, **kw)
    else:
        r = clip(a, lo, hi, **kw)
    return r, kw.get("out"), a


def TestOneInput(data):
    src = Source(data)
    a_spec = array_spec(src)
    # a itself: mostly the array; else its first element as a 0-d array or a
    # NumPy scalar (each with every kind of out), or a one-element array
    a_form = src.pick(["array"] * 4 + ["0d", "npscalar", "one"])
    if not np.prod(a_spec.shape, dtype=np.int64):
        a_form = "array"                # an empty array has no first element
    lo_r, hi_r = bound_recipe(src, a_spec), bound_recipe(src, a_spec)
    out_kind = src.pick(["none", "none", "fresh", "other", "other", "inplace"])
    own = a_spec.dtype.newbyteorder("=")
    # the other dtype: any kernel dtype, a's own format in either byte order
    out_dtype = src.pick(KERNEL_DTYPES + [own, own.newbyteorder()])
    kwargs = {}
    if src.int(0, 4) == 0:
        kwargs["casting"] = src.pick(["unsafe", "same_kind", "no", "equiv", "safe"])
    if src.int(0, 5) == 0:
        kwargs["dtype"] = src.pick([np.float64, np.float32, np.int32])
    where = src.pick([None, None, None, True, False, "mask", "row"])
    use_ufunc = src.int(0, 3) == 0
    keywords = src.int(0, 1) == 1
    # NumPy's error state around both calls (None: its default), where its
    # loops' and casts' floating-point flags warn or raise (drawn last, so the
    # corpus's inputs keep the calls they made)
    errors = src.pick([None, None, None, "warn", "raise"])

    def run(clip):
        return call(clip, a_spec, a_form, lo_r, hi_r, out_kind, out_dtype, kwargs, where, keywords)

    own_dtype_rule = (is_ml_float(own) and not use_ufunc and a_form != "npscalar"
                      and "dtype" not in kwargs
                      and (out_kind != "other" or out_dtype.newbyteorder("=") == own)
                      and all(b[0] == "py" and type(b[1]) is not bool or
                              (b[0] != "py" and b[1].dtype.newbyteorder("=") == own)
                              for b in (lo_r, hi_r)))
    if own_dtype_rule:
        # a bfloat16 or float8 array keeps its dtype, into an out of its
        # format and with where= too: the float32 route is the reference
        oracle = reference_clip
    elif use_ufunc:
        if any(b[0] == "py" and b[1] is None for b in (lo_r, hi_r)) or is_ml_float(a_spec.dtype) \
                or any(b[0] != "py" and is_ml_float(b[1].dtype) for b in (lo_r, hi_r)) \
                or (out_kind == "other" and is_ml_float(out_dtype)):
            return     # the ufunc takes no None; its bfloat16/float8 loops are ones NumPy's clip lacks
        if a_spec.dtype.newbyteorder("=") not in KERNEL_DTYPES or any(
                b[0] != "py" and b[1].dtype.newbyteorder("=") not in KERNEL_DTYPES
                for b in (lo_r, hi_r)):
            return     # clip_ufunc has loops for the table's dtypes only, by design
        oracle, ours = np._core.umath.clip, fastclip.clip_ufunc
    else:
        oracle = np.clip
    if not use_ufunc or own_dtype_rule:
        ours = fastclip.clip

    with np.errstate(**({} if errors is None else {"all": errors})):
        got = outcome(lambda: run(ours))
        expected = outcome(lambda: run(oracle))
    assert_same_outcome(got, expected, with_out=True)


def main():
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
