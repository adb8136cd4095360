# clip_ufunc: NumPy's ufunc over the chosen build's loops.
# Part of fastclip/_ufunc.pyx (included there, in this order).

cdef int N_ROWS = len(DTYPES)
cdef int N_BUILTIN = sum(1 for row in DTYPES if row.char is not None)
# Kept for the module's life: the ufunc points into these arrays.
cdef cnp.PyUFuncGenericFunction UFUNC_FUNCS[32]
cdef void *UFUNC_DATA[32]
cdef char UFUNC_TYPES[128]
cdef int ML_TYPES[4]

assert N_ROWS <= 32

#: the NumPy dtype of each table row, in table order
ROW_DTYPES = tuple(numpy_dtype(row) for row in DTYPES)

cdef int _i, _j, _k = 0
for _i, _row in enumerate(DTYPES):
    if _row.char is None:
        continue
    UFUNC_FUNCS[_k] = <cnp.PyUFuncGenericFunction>LOOPS[_i]
    UFUNC_DATA[_k] = NULL
    for _j in range(4):
        UFUNC_TYPES[4 * _k + _j] = ROW_DTYPES[_i].num
    _k += 1

cdef bytes _DOC = b"""clip(x, lo, hi, /, out=None, *, where=True, casting='same_kind', \
order='K', dtype=None, subok=True[, signature])

fastclip's clip as a NumPy ufunc: min(max(x, lo), hi) elementwise, with the
same loops as fastclip.clip. Bounds are required (use fastclip.clip for None).
"""

clip_ufunc = PyUFunc_FromFuncAndData_(N_BUILTIN)
fc_copy_type_resolver(clip_ufunc, np._core.umath.clip)

for _i, _row in enumerate(DTYPES):
    if _row.char is not None:
        continue
    for _j in range(4):
        ML_TYPES[_j] = ROW_DTYPES[_i].num
    cnp.PyUFunc_RegisterLoopForType(clip_ufunc, ROW_DTYPES[_i].num,
                                    <cnp.PyUFuncGenericFunction>LOOPS[_i],
                                    ML_TYPES, NULL)

# NumPy pickles a ufunc by its __name__ ("clip"), looked up in the module named
# by its __module__: fastclip/ufunc.py holds it as ``clip`` for that lookup, in
# this process and in a Dask worker that unpickles it. NumPy < 2.2 ufuncs take
# no __module__; pickle then searches sys.modules and finds the same module.
try:
    clip_ufunc.__module__ = "fastclip.ufunc"
except AttributeError:
    pass

_umath = np._core.umath
_fromnumeric = np._core.fromnumeric


cdef object PyUFunc_FromFuncAndData_(int ntypes):
    return cnp.PyUFunc_FromFuncAndData(UFUNC_FUNCS, UFUNC_DATA, UFUNC_TYPES,
                                       ntypes, 3, 1, cnp.PyUFunc_None,
                                       b"clip", _DOC, 0)
