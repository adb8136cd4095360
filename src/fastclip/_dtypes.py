"""The one dtype table.

Every typed kernel, the ufunc's type list, the fast path's dispatch, the tests
and the benchmark are generated from ``DTYPES``; adding a dtype is adding a row.
setup.py reads this file (without importing the package) as the Tempita context
for ``_kernels.pyx.in``.

Columns:

name
    suffix of the generated loop (``clip_<name>``) and the row's label.
c_type
    C storage type of one element.
char
    NumPy type character, or None for an ml_dtypes format (bfloat16, the
    float8s) whose loop is registered with ``PyUFunc_RegisterLoopForType``.
kind
    ``int``: plain ``<``/``>``.  ``float``: IEEE compare.  ``half``,
    ``bfloat16`` and ``float8``: 16- and 8-bit floats compared through integer
    order keys, bits kept.

The order is NumPy's own order of clip loops (``np._core.umath.clip.types``),
so the ufunc's linear type search picks the same loop NumPy's clip picks.
"""

from collections import namedtuple

DType = namedtuple("DType", "name c_type char kind")

#: the kinds of the table, in the order of the C codes the modules give them
#: (_bounds.pxi's RowKind)
KINDS = ("int", "float", "half", "bfloat16", "float8")

# name,        c_type,                char, kind
DTYPES = [
    DType("byte",      "signed char",        "b", "int"),
    DType("ubyte",     "unsigned char",      "B", "int"),
    DType("short",     "short",              "h", "int"),
    DType("ushort",    "unsigned short",     "H", "int"),
    DType("int",       "int",                "i", "int"),
    DType("uint",      "unsigned int",       "I", "int"),
    DType("long",      "long",               "l", "int"),
    DType("ulong",     "unsigned long",      "L", "int"),
    DType("longlong",  "long long",          "q", "int"),
    DType("ulonglong", "unsigned long long", "Q", "int"),
    DType("half",      "unsigned short",     "e", "half"),
    DType("float",     "float",              "f", "float"),
    DType("double",    "double",             "d", "float"),
    DType("bfloat16",  "unsigned short",     None, "bfloat16"),
    # ml_dtypes' float8s, the ONNX FLOAT8E4M3FN and FLOAT8E5M2 (OCP) formats
    DType("float8_e4m3fn", "unsigned char",  None, "float8"),
    DType("float8_e5m2",   "unsigned char",  None, "float8"),
]

# float8 formats: (exponent bits, mantissa bits, exponent bias, largest finite
# value); csrc/conversion_vectors.h.in writes each format's vector groups
# from them
FLOAT8 = {"float8_e4m3fn": (4, 3, 7, 448.0), "float8_e5m2": (5, 2, 15, 57344.0)}

# Clip and convert in one pass: (source row, destination row). Each pair is a
# fused loop (csrc/convert.h, chosen by the rows' kinds) that the fast path runs
# for np.clip(x, lo, hi, out=o) with x of the source dtype and o of the
# destination dtype. Any other pair keeps NumPy's clip-then-cast.
CONVERSIONS = [
    *((src, dst) for src in ("float", "double") for dst in ("ubyte", "byte", "ushort", "short")),
    ("float", "half"), ("double", "half"), ("float", "bfloat16"), ("double", "bfloat16"),
    ("double", "float"),
    *((src, f8) for src in ("float", "double") for f8 in ("float8_e4m3fn", "float8_e5m2")),
    *((src, dst) for src in ("int", "long", "longlong") for dst in ("ubyte", "byte", "ushort", "short")),
    *((src, "float") for src in ("ubyte", "byte", "ushort", "short", "half")),
    # widenings (exact) that a result of a wider type asks for
    ("float", "double"), ("int", "double"), ("int", "long"),
    *((src, "int") for src in ("ubyte", "byte", "ushort", "short")),
    ("ubyte", "short"), ("byte", "short"),
    # an integer image into a float array, a 16-bit image into an 8-bit one,
    # int64 into int32: without a row they go clip-then-copy, two passes
    *((src, "double") for src in ("ubyte", "byte", "ushort", "short", "long")),
    ("int", "float"), ("long", "float"), ("long", "int"),
    ("short", "ubyte"), ("ushort", "ubyte"),
]

# the integer rows of NumPy's default integer types: (bits, signed), with C's
# long of 64 bits (LP64)
INT_WIDTHS = {"byte": (8, True), "ubyte": (8, False), "short": (16, True), "ushort": (16, False),
               "int": (32, True), "uint": (32, False), "long": (64, True), "ulong": (64, False)}

# Results wider than x: calls whose NumPy loop is of a wider dtype than x's
# (float32 x with float64 bounds, an integer x with Python float bounds,
# dtype=float64, bfloat16 x with a float32 bound, an int8 x with np.int32
# bounds). NumPy casts x into the
# loop's dtype as its iterator goes and clips there; a widening loop
# fc_widen_<source>_<wide> (csrc/widen.h) does both in one pass: (source row,
# the loop's row).
WIDENINGS = [
    *((src, "double") for src in ("byte", "ubyte", "short", "ushort", "int", "uint", "long",
                                  "ulong", "longlong", "ulonglong", "half", "float", "bfloat16")),
    *((src, "float") for src in ("byte", "ubyte", "short", "ushort", "half", "bfloat16")),
    # an integer x with bounds of a wider integer dtype (np.int32(0), an int64
    # array) or dtype=: each cast NumPy calls safe (a wider signed type, or a
    # wider unsigned one from an unsigned x); the fast path checks
    # np.can_cast(x, wide, "safe") at run time, where C's long may be narrower
    *((src, wide) for src, (s_bits, s_signed) in INT_WIDTHS.items()
      for wide, (w_bits, w_signed) in INT_WIDTHS.items()
      if w_bits > s_bits and (w_signed or not s_signed)),
]

# Widenings on into a third dtype in one loop: an integer x with float bounds
# into float32 out= (a uint8 image with Python float bounds: NumPy clips in
# float64, then casts), where the chain of the widening loop and the float64
# -> float32 conversion through an L1 buffer (csrc/convert.h) cost a round
# trip through it: (source row, the loop's row, out's row),
# csrc/conversion_loops.h.in.
WIDENINGS_INTO = [(src, "double", "float") for src in (
    "byte", "ubyte", "short", "ushort", "int", "uint", "long", "ulong", "longlong", "ulonglong")]

# float64 -> bfloat16 and the float8s round as the installed ml_dtypes casts,
# which changed between releases: 0.7 rounds once, earlier releases rounded to
# float32 first (1 + 2**-4 + 2**-40 becomes 1.125 in float8_e4m3fn rounded
# once, 1.0 through float32). Such a pair has a loop for each rounding; at
# import fastclip keeps the one whose results equal ml_dtypes' cast on a probe
# of halfway points, or none (the pair then goes NumPy's way) if a release
# rounds in yet another way.
ML_ROUNDINGS = ("once", "via_float32")


def conversion_loops():
    """(source, destination, rounding) of each fused loop, in CONVERSIONS
    order: rounding is None, or one of ML_ROUNDINGS for a float64 -> ml_dtypes
    pair, which has a loop for each."""
    rows = {r.name: r for r in DTYPES}
    loops = []
    for src, dst in CONVERSIONS:
        if src == "double" and rows[dst].char is None:
            loops += [(src, dst, rounding) for rounding in ML_ROUNDINGS]
        else:
            loops.append((src, dst, None))
    return loops


LoopConstants = namedtuple(
    "LoopConstants", "name T kind keyed lane_kind largest ge le strided_pair bits K SK key_of order_of "
    "sign_bit magnitude_bits neg_inf_key neg_zero_key pos_zero_key pos_inf_key")


def loop_constants(row):
    """What the typed loops of a row are written with, in both templates
    (src/fastclip/_kernel_loops.pxi.in, csrc/typed_loops.h.in): its name,
    C type and kind; keyed (the 16- and 8-bit floats, compared through
    order keys); the lane kind of the generic vector clip (csrc/simd/simd.h);
    the largest non-NaN magnitude's bits; the per-element compares (float16
    keeps x on a tie, see the per-element loops' docstring); strided_pair
    (x and out both strided, scalar bounds: clipped where they are, no
    buffer, for the 4- and 8-byte int and IEEE float rows); and for a keyed
    row its key width and types, and the unsigned order keys of -largest,
    -0, +0, +largest (as hex literals)."""
    name, T, kind = row.name, row.c_type, row.kind
    keyed = kind in ("half", "bfloat16", "float8")
    lane_kind = ("FC_LANE_FLOAT" if kind == "float" else "FC_LANE_UNSIGNED" if T.startswith("unsigned")
                 else "FC_LANE_SIGNED")
    largest = LARGEST_BITS.get(name)
    ge, le = (">=", "<=") if kind == "half" else (">", "<")
    strided_pair = not keyed and T not in ("signed char", "unsigned char", "short", "unsigned short")
    keys = (None,) * 11
    if keyed:
        bits = 8 if kind == "float8" else 16
        K, SK = ("unsigned char", "signed char") if bits == 8 else ("unsigned short", "short")
        key_of, order_of = ("unsigned_key8", "order_key8") if bits == 8 else ("unsigned_key", "order_key")
        sign_bit, magnitude_bits = hex(1 << (bits - 1)), hex((1 << (bits - 1)) - 1)
        neg_inf_key = hex(int(magnitude_bits, 16) ^ largest)
        pos_inf_key = hex(int(sign_bit, 16) | largest)
        keys = (bits, K, SK, key_of, order_of, sign_bit, magnitude_bits, neg_inf_key,
                magnitude_bits, sign_bit, pos_inf_key)
    return LoopConstants(name, T, kind, keyed, lane_kind, largest, ge, le, strided_pair, *keys)


def conversion_loop_name(src, dst, rounding):
    """The C name's suffix of a fused loop: fc_cvt_<this>, fc_in_range_<this>."""
    return f"{src}_{dst}" if rounding is None else f"{src}_{dst}_{rounding}"


# The pairs whose fused loop starts with a vector body (GCC's vectoriser
# leaves their narrowing packs and float8 rounding several times slower at
# AVX2, and slower at AVX-512 for float sources too), and the shape of that
# body: csrc/conversion_vectors.h.in writes each shape's loop once, over
# csrc/convert_vector.h's groups and packs, for each pair where the build's
# vector layer has that shape (the others
# leave the pair to the scalar loop and GCC's vectoriser: csrc/simd/avx512.h,
# int64 sources and float64 -> float32).
#   truncate: float32 and float64 into 8- and 16-bit integers
#   int64_narrow: int64 into 8- and 16-bit integers
#   int64_lanes, small_int_lanes: int64, 8- and 16-bit integers into int32,
#       float32 and float64 lane by lane
#   float8: float32 and float64 into the float8s
#   bfloat16_from_double: float64 into bfloat16, each of ML_ROUNDINGS
#   own: a body written out in csrc/convert_vector.h for the pair alone
#       (fc_cvt_vector_<pair>)
VECTOR_CONVERSIONS = {
    **{(src, dst): "truncate" for src in ("float", "double")
       for dst in ("ubyte", "byte", "ushort", "short")},
    **{(src, dst): "int64_narrow" for src in ("long", "longlong")
       for dst in ("ubyte", "byte", "ushort", "short")},
    **{(src, f8): "float8" for src in ("float", "double") for f8 in ("float8_e4m3fn", "float8_e5m2")},
    ("double", "float"): "own", ("double", "bfloat16"): "bfloat16_from_double",
    **{("long", dst): "int64_lanes" for dst in ("int", "float", "double")},
    **{(src, dst): "small_int_lanes" for src in ("ubyte", "byte", "ushort", "short")
       for dst in ("int", "float", "double")},
}

#: pairs fused whatever the bounds (the others: bounds inside the
#: destination's range), so that the one-sided calls are fused too:
#: - the integer narrowings, int32 and int64 into 8- and 16-bit integers,
#:   int16 and uint16 into uint8, and int64 -> int32: C's cast wraps as
#:   NumPy's does (np.clip(u16, 0, None, out=u8),
#:   whose bound NumPy drops, is np.positive into a cast; np.minimum(x, 100,
#:   out=int32) ends at int64's range; int64 -> int32's vector body takes only
#:   bounds within int32, csrc/convert_vector.h bounds_fit_s32, the scalar
#:   loop the rest); int64 into 8 and 16 bits likewise, whose vector body
#:   clips in 64 bits and keeps the low bits where a bound lies beyond the
#:   destination (csrc/conversion_vectors.h.in, int64_narrow). float32 and float64 into
#:   integers are not here: C's cast of a value beyond the range is undefined.
#: - float64 -> float32, whose C cast overflows to infinity as NumPy's does,
#:   the loop reporting the overflow flag (csrc/convert.h fc_double_float_from);
#:   float32 and float64 -> float16, whose loop hands NumPy a value beyond
#:   float16's range (csrc/convert.h FC_HALF_NARROWING, its ANY_BOUNDS
#:   argument, and fc_cvt_double_half's vector body);
#:   float32 -> bfloat16, whose rounding (fc_float_to_bfloat16) carries a
#:   value beyond bfloat16's range into infinity as ml_dtypes' does, with no
#:   warning from either; float32 and float64 -> the float8s, whose loop
#:   hands NumPy a value that rounds beyond the format's largest code that
#:   is not a NaN (float8_kept_limit; ml_dtypes makes it NaN in e4m3fn,
#:   infinity in e5m2, and warns of neither; float64's rounding to float32
#:   first may raise the overflow flag only for such a value, and NumPy's
#:   ufunc clears the flags before its own loop); float64 -> bfloat16, whose
#:   loop hands NumPy a value beyond float32's range (ml_dtypes' cast warns
#:   of overflow for such a double; one within it but beyond bfloat16's
#:   range becomes infinity in both, with no warning).
ANY_BOUNDS = {*((src, dst) for src in ("int", "long", "longlong")
                for dst in ("ubyte", "byte", "ushort", "short")),
              ("short", "ubyte"), ("ushort", "ubyte"), ("long", "int"), ("double", "float"),
              ("float", "half"), ("double", "half"), ("float", "bfloat16"), ("double", "bfloat16"),
              *((src, f8) for src in ("float", "double") for f8 in ("float8_e4m3fn", "float8_e5m2"))}

# C limits of the integer destinations of CONVERSIONS
INT_RANGE = {"ubyte": ("0", "UCHAR_MAX"), "byte": ("SCHAR_MIN", "SCHAR_MAX"),
             "ushort": ("0", "USHRT_MAX"), "short": ("SHRT_MIN", "SHRT_MAX"),
             "int": ("INT_MIN", "INT_MAX"), "long": ("LONG_MIN", "LONG_MAX")}
assert not ANY_BOUNDS & {(s, d) for s, d in CONVERSIONS
                         if s in ("float", "double") and d in INT_RANGE}, \
    "C's float -> int cast beyond the range"


# where= into an out of another dtype (csrc/convert.h fc_convert_masked):
# the pairs with a loop of masked stores straight into out, widenings into
# 32- and 64-bit items, where the vector layer has masked stores (AVX2,
# AVX-512). The others go through an L1 buffer and a blend, which doubles the
# stores (csrc/convert.h has the timings).
MASKED_CONVERSIONS = [
    *((src, dst) for src in ("ubyte", "byte", "ushort", "short") for dst in ("int", "float", "double")),
    ("int", "float"), ("int", "double"), ("float", "double"),
]
assert set(MASKED_CONVERSIONS) <= set(CONVERSIONS)
assert set(VECTOR_CONVERSIONS) <= set(CONVERSIONS)
assert set(VECTOR_CONVERSIONS.values()) <= {"truncate", "int64_narrow", "int64_lanes", "small_int_lanes",
                                            "float8", "bfloat16_from_double", "own"}, \
    "a shape csrc/conversion_vectors.h.in does not write"
# csrc/conversion_loops.h.in writes these three float16 loops by name
assert {(s, d) for s, d in CONVERSIONS if "half" in (s, d)} == {
    ("float", "half"), ("double", "half"), ("half", "float")}
# the template writes these destinations' loops for any bounds alone
assert all((s, d) in ANY_BOUNDS for s, d in CONVERSIONS if d in ("bfloat16", *FLOAT8))


# The 16- and 8-bit float formats: the largest magnitude that is not a NaN, as
# bits (infinity; the largest finite value in float8_e4m3fn, which has no
# infinity and whose only NaN is S.1111.111). A NaN is (bits & ~sign) > this.
LARGEST_BITS = {"half": 0x7C00, "bfloat16": 0x7F80, "float8_e4m3fn": 0x7E, "float8_e5m2": 0x7C}


def float8_kept_limit(name):
    """The largest magnitude whose rounding to a float8 format is at most
    its largest code that is not a NaN (LARGEST_BITS: 464 for
    float8_e4m3fn, whose 448 it rounds to; 73728 for float8_e5m2, whose
    infinity): that code's value, its exponent continued past the top, plus
    half its unit (a tie rounds to the even code, that one)."""
    _, m, bias, _ = FLOAT8[name]
    code = LARGEST_BITS[name]
    exponent = (code >> m) - bias
    return 2.0 ** exponent * (1 + (code & ((1 << m) - 1)) / 2 ** m) + 2.0 ** (exponent - m - 1)


def saturates(name):
    """A float8 format without infinity (float8_e4m3fn): the bfloat16/float8 rule (docs/semantics.rst) rounds
    a bound beyond its finite range to the largest finite value of its sign.
    (Infinity's bits, an all-ones exponent, are the largest non-NaN ones in a
    format that has it.)"""
    e, m, _, _ = FLOAT8[name]
    return LARGEST_BITS[name] != ((1 << e) - 1) << m


def finite_range(dtype):
    """(lowest, highest) finite value of a NumPy dtype of the table (ints as
    Python ints): the destination ranges of CONVERSIONS."""
    import numpy as np

    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return int(info.min), int(info.max)
    if dtype.name in FLOAT8:
        top = FLOAT8[dtype.name][3]
    elif dtype.name == "bfloat16":
        top = 3.3895313892515355e38
    else:
        top = float(np.finfo(dtype).max)
    return -top, top


def numpy_dtype(row):
    """The NumPy dtype of a table row (bfloat16 and the float8s come from ml_dtypes)."""
    import numpy as np

    if row.char is not None:
        return np.dtype(row.char)
    import ml_dtypes

    return np.dtype(getattr(ml_dtypes, row.name))
