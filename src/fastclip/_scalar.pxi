# Python numbers, NumPy scalars and sequences.
# Part of fastclip/_ufunc.pyx (included there, in this order).

#: the row a Python int becomes (np.asarray(7).dtype: int64, 'l' on Linux,
#: 'q' on Windows) and a Python float (float64)
cdef int PY_INT_ROW = _row_of_num(np.dtype(int).num)
cdef int PY_FLOAT_ROW = _row_of_num(np.dtype(float).num)


cdef object _scalar(object a, object a_min, object a_max):
    """np.clip of a Python int/float or a NumPy scalar of a kernel dtype, with
    scalar bounds: one element through the same loop, on the stack, returned
    as the NumPy scalar np.clip returns (np.clip(1.5, 0, 1) is np.float64(1.0)).
    Anything else (bool, ints beyond int64, bfloat16 and float8 scalars,
    which NumPy computes in float32, bounds the fast path does not take
    exactly) goes NumPy's way (_other_call)."""
    cdef unsigned long long x_buf = 0, lo_buf = 0, hi_buf = 0, out_buf = 0
    cdef char *args[4]
    cdef npy_intp one = 1
    cdef npy_intp steps[4]
    cdef int row = _scalar_row(a, &x_buf)
    if row < 0 or not _bound_to_c(row, a_min, &lo_buf) or not _bound_to_c(row, a_max, &hi_buf):
        return _other_call(a, a_min, a_max, None, {})
    args[0] = <char *>&x_buf
    args[1] = <char *>&lo_buf
    args[2] = <char *>&hi_buf
    args[3] = <char *>&out_buf
    steps[0] = steps[1] = steps[2] = steps[3] = 0
    LOOPS[row](args, &one, steps, NULL)
    return PyArray_Scalar(&out_buf, <cnp.dtype>ROW_DTYPES[row], None)


cdef int _scalar_row(object a, unsigned long long *x_buf) except -2:
    """The row of _scalar's a, its value into x_buf; -1 where the scalar
    route does not take a (an int beyond int64, which NumPy makes uint64 or
    object, or a type that is no kernel row's)."""
    cdef type ta = type(a)
    cdef int row, overflow = 0
    cdef long long ll
    cdef double d
    if ta is float:
        d = PyFloat_AS_DOUBLE(a)
        memcpy(x_buf, &d, 8)
        return PY_FLOAT_ROW
    if ta is int:
        ll = PyLong_AsLongLongAndOverflow(a, &overflow)
        memcpy(x_buf, &ll, 8)
        return -1 if overflow else PY_INT_ROW
    row = SCALAR_ROWS.get(ta, -1)
    if row >= 0:
        _numpy_scalar_value(a, x_buf, ROW_ITEMSIZE[row])
    return row


cdef object _sequence(object a, object a_min, object a_max, object out):
    """A list or a tuple: the kernel route on np.asarray(a) (declining to
    clip(), which takes NumPy's way), but for bfloat16 or float8 elements."""
    cdef ndarray arr = np.asarray(a)
    cdef int row = _row_of(<cnp.dtype>cnp.PyArray_DESCR(arr))
    if row >= 0 and ROW_ML[row]:
        return _other_call(a, a_min, a_max, out, {})
    return _fast(arr, a_min, a_max, out)
