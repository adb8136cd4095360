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
    NumPy type character, or None for a user dtype (bfloat16) whose loop is
    registered with ``PyUFunc_RegisterLoopForType``.
kind
    ``int``: plain ``<``/``>``.  ``float``: IEEE compare.  ``half`` and
    ``bfloat16``: 16-bit floats compared through integer order keys, bits kept.

The order is NumPy's own order of clip loops (``np._core.umath.clip.types``),
so the ufunc's linear type search picks the same loop NumPy's clip picks.
"""

from collections import namedtuple

DType = namedtuple("DType", "name c_type char kind")

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
]

# The 16-bit float formats: bits of the exponent field (all ones means inf/NaN).
EXPONENT_MASK = {"half": 0x7C00, "bfloat16": 0x7F80}


def numpy_dtype(row):
    """The NumPy dtype of a table row (bfloat16 comes from ml_dtypes)."""
    import numpy as np

    if row.char is not None:
        return np.dtype(row.char)
    import ml_dtypes

    return np.dtype(getattr(ml_dtypes, row.name))
