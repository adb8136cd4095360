/* Giving fastclip's clip ufunc the type resolution of NumPy's own clip.
 *
 * PyUFunc_FromFuncAndData installs NumPy's default resolver, a linear search
 * for the first loop every input casts to safely: int8 with a Python float
 * bound would then pick the float16 loop. NumPy's clip uses
 * PyUFunc_SimpleUniformOperationTypeResolver (promote all operands to one
 * dtype, then pick that loop), which is not in the public C-API; both ufuncs
 * are PyUFuncObjects, so we copy the function pointer from np._core.umath.clip.
 * tests/test_ufunc.py::test_promotion_matches_numpy holds the two to the same
 * result dtypes.
 */
#ifndef FASTCLIP_UFUNC_HELPERS_H
#define FASTCLIP_UFUNC_HELPERS_H

#include <Python.h>
#include <numpy/ufuncobject.h>

static inline void fc_copy_type_resolver(PyObject *dst, PyObject *src)
{
    ((PyUFuncObject *)dst)->type_resolver = ((PyUFuncObject *)src)->type_resolver;
}

#endif
