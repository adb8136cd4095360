# fastclip.quantize: ONNX QuantizeLinear (opsets 10, 13, 19, 21) in one pass
# over the kernel module's loop (csrc/quantize.h, which has the arithmetic).
# Here the operator's rules for its operands: the result's dtype from the zero
# point or `dtype` (uint8 when neither), the scale's form (one value, one
# along `axis`, or blocks of `block_size` along it), every refusal made before
# anything is written. docs/semantics.rst has them for users.

cdef dict _Q_DTYPE = {row.name: numpy_dtype(row) for row in DTYPES}
cdef dict _Q_SOURCES = {_Q_DTYPE["float"]: FC_Q_FLOAT, _Q_DTYPE["half"]: FC_Q_HALF,
                        _Q_DTYPE["bfloat16"]: FC_Q_BFLOAT16}
cdef dict _Q_RESULTS = {_Q_DTYPE["byte"]: FC_Q_INT8, _Q_DTYPE["ubyte"]: FC_Q_UINT8,
                        _Q_DTYPE["short"]: FC_Q_INT16, _Q_DTYPE["ushort"]: FC_Q_UINT16,
                        _Q_DTYPE["float8_e4m3fn"]: FC_Q_E4M3FN,
                        _Q_DTYPE["float8_e5m2"]: FC_Q_E5M2}
# saturate=False: a float8 result as ml_dtypes casts (an integer one saturates all the same)
cdef dict _Q_UNSATURATED = {FC_Q_E4M3FN: FC_Q_E4M3FN_UNSATURATED,
                            FC_Q_E5M2: FC_Q_E5M2_UNSATURATED}
cdef object _UINT8 = np.dtype(np.uint8)
cdef object _FLOAT32 = np.dtype(np.float32)


cdef int _q_dst(object rdt, bint saturate) except -1:
    """The loops' code of the result dtype rdt (a key of _Q_RESULTS)."""
    cdef int dst = _Q_RESULTS[rdt]
    return dst if saturate else _Q_UNSATURATED.get(dst, dst)


# the one-scale route's operands: the result's dtype by what dtype= names (a
# type or a dtype; None: uint8), or by a NumPy scalar zero point's type
cdef dict _Q_RESULT_TYPES = {None: _Q_DTYPE["ubyte"],
                             **{d: d for d in _Q_RESULTS}, **{d.type: d for d in _Q_RESULTS}}
cdef dict _Q_ZERO_TYPES = {d.type: d for d in _Q_RESULTS if d.kind in "iu"}


cdef object _q_native(object a):
    """a in its dtype's native byte order (the tables hold native dtypes)."""
    return a if a.dtype.isnative else a.astype(a.dtype.newbyteorder("="))


cdef str _q_names(dict table):
    return ", ".join(str(d) for d in table)


cdef object _q_result_dtype(object zero_point, object dtype):
    """(the result's dtype, the zero point as an array of it or None)."""
    cdef object want = None if dtype is None else np.dtype(dtype)
    cdef object zp = None
    if zero_point is not None:
        if type(zero_point) is int or type(zero_point) is float:
            zdt = want if want is not None else _UINT8
            if zdt in _Q_RESULTS and zdt.kind in "iu" and type(zero_point) is not int:
                raise TypeError(f"a zero point of {zdt} must be an integer, not {zero_point!r}")
            if zdt.kind in "iu" and not (np.iinfo(zdt).min <= zero_point <= np.iinfo(zdt).max):
                raise ValueError(f"zero point {zero_point} is out of {zdt}'s range "
                                 f"[{np.iinfo(zdt).min}, {np.iinfo(zdt).max}]")
            zp = np.asarray(zero_point, dtype=zdt)
        else:
            zp = _q_native(np.asarray(zero_point))
        if want is not None and zp.dtype != want:
            raise ValueError(f"dtype={want} does not match the zero point's dtype {zp.dtype}")
        want = zp.dtype
    if want is None:
        want = _UINT8
    if want not in _Q_RESULTS:
        raise ValueError(f"quantize writes {_q_names(_Q_RESULTS)} (QuantizeLinear's types "
                         f"fastclip has loops for), not {want}")
    return want, zp


cdef object _q_scale(ndarray x, object scale):
    """(the division's dtype, the scale as an array of it)."""
    if type(scale) is float or type(scale) is int:
        return x.dtype, np.asarray(scale, dtype=x.dtype)    # NumPy's weak scalar: x's dtype
    s = _q_native(np.asarray(scale))
    if s.dtype not in _Q_SOURCES:
        raise TypeError(f"scale of dtype {s.dtype}: quantize divides in float32, float16 or "
                        f"bfloat16 (x's dtype), so the scale is one of those or a Python float")
    # NumPy's promotion among the three: x's dtype, or float32 for a pair
    div = x.dtype if s.dtype == x.dtype else _FLOAT32
    s = s.astype(div, copy=False)
    return div, s


cdef int _q_axis(object axis, int ndim) except -1:
    cdef int ax = operator.index(axis)
    if not -ndim <= ax < ndim:
        raise np.exceptions.AxisError(ax, ndim)
    return ax + ndim if ax < 0 else ax


cdef _q_refuse_scale(ndarray s32):
    """A ValueError unless every scale (float32, contiguous) is finite and
    nonzero."""
    cdef const float *v = <const float *>cnp.PyArray_DATA(s32)
    cdef npy_intp k, n = cnp.PyArray_SIZE(s32), bad = 0, first = -1
    for k in range(n):
        if not (v[k] == v[k] and v[k] != 0 and fabs(v[k]) <= 3.4028234663852886e38):
            bad += 1
            if first < 0:
                first = k
    if bad:
        raise ValueError(f"scale must be finite and nonzero: {v[first]} ({bad} of {n} scales)")


cdef float _q_bits_to_float(int src, const void *p) noexcept:
    """A value of x's dtype, as _double_to_c stored it at p, as a float32."""
    cdef unsigned short h
    cdef unsigned int bits, e, m
    cdef float f
    if src != FC_Q_BFLOAT16 and src != FC_Q_HALF:
        memcpy(&f, p, 4)
        return f
    memcpy(&h, p, 2)
    bits = h
    if src == FC_Q_BFLOAT16:
        bits = bits << 16
    else:
        e = (bits >> 10) & 0x1f
        m = bits & 0x3ff
        if e == 0x1f:
            return 0        # infinity or NaN: the caller hands the call on, to be refused
        f = <float>ldexp(m, -24) if e == 0 else <float>ldexp(m + 1024, <int>e - 25)
        return -f if bits & 0x8000 else f
    memcpy(&f, &bits, 4)
    return f


cdef object _quantize_one_scale(object x, object scale, object zero_point, object dtype,
                                object out, bint saturate):
    """The common call at a small call's cost: a C-contiguous x; one scale,
    a Python float or a NumPy scalar or 0-d array of x's dtype; no zero
    point, or a NumPy integer scalar, or a 0-d array; out None or
    C-contiguous. NotImplemented for anything else (quantize's general
    route then decides it, refusals included)."""
    cdef ndarray xa, res
    cdef float s, z = 0
    cdef unsigned long long bits = 0     # room for any row's value (_double_to_c)
    cdef fc_quantize_job_t job
    if type(x) is not ndarray:
        return NotImplemented
    xa = <ndarray>x
    if not (cnp.PyArray_IS_C_CONTIGUOUS(xa) and cnp.PyArray_ISALIGNED(xa)):
        return NotImplemented
    src = _Q_SOURCES.get(xa.descr)
    if src is None:
        return NotImplemented
    if type(scale) is float:             # NumPy's weak scalar: rounded to x's dtype
        if not _double_to_c(_row_of(xa.descr), PyFloat_AS_DOUBLE(scale), &bits):
            return NotImplemented
        s = _q_bits_to_float(src, &bits)
    elif type(scale) is xa.dtype.type or (type(scale) is ndarray
                                          and cnp.PyArray_NDIM(<ndarray>scale) == 0
                                          and (<ndarray>scale).descr == xa.descr):
        s = <float>float(scale)          # exact: scale is of x's dtype
    else:
        return NotImplemented
    if not (s == s and s != 0 and fabs(s) <= 3.4028234663852886e38):
        return NotImplemented            # refused by the general route
    if zero_point is None:
        rdt = _Q_RESULT_TYPES.get(dtype)
    elif dtype is not None:
        return NotImplemented
    elif type(zero_point) is ndarray and cnp.PyArray_NDIM(<ndarray>zero_point) == 0:
        rdt = _Q_RESULT_TYPES.get((<ndarray>zero_point).descr)
        if rdt is not None:
            z = <float>float(zero_point)
    else:
        rdt = _Q_ZERO_TYPES.get(type(zero_point))
        if rdt is not None:
            z = <float>int(zero_point)
    if rdt is None or (z != 0 and rdt.kind not in "iu"):
        return NotImplemented
    if out is None:
        res = _new_result(xa, rdt)
    elif (type(out) is ndarray and cnp.PyArray_IS_C_CONTIGUOUS(out)
            and cnp.PyArray_ISALIGNED(out) and cnp.PyArray_ISWRITEABLE(out)
            and (<ndarray>out).descr is rdt and cnp.PyArray_SAMESHAPE(xa, out)
            and not _extents_overlap(xa, out)):
        res = <ndarray>out
    else:
        return NotImplemented
    job.x = <const char *>cnp.PyArray_DATA(xa)
    job.out = <char *>cnp.PyArray_DATA(res)
    job.n = cnp.PyArray_SIZE(xa)
    job.src = job.div = src
    job.dst = _q_dst(rdt, saturate)
    job.src_size = cnp.PyArray_ITEMSIZE(xa)
    job.dst_size = cnp.PyArray_ITEMSIZE(res)
    job.scale = &s
    job.zero = &z
    job.axis_len = job.inner = job.block = 1
    job.s_outer = job.s_axis = job.s_inner = 0
    if job.n < GIL_RELEASE_THRESHOLD:
        QUANTIZE.run(&job)
    else:
        with nogil:
            QUANTIZE.run(&job)
    return res


def quantize(x, scale, zero_point=None, *, dtype=None, axis=1, block_size=0, saturate=True,
             out=None):
    """quantize(x, scale, zero_point=None, *, dtype=None, axis=1, block_size=0, saturate=True, out=None)

    ONNX QuantizeLinear in one pass: ``saturate(round_half_even(x / scale) +
    zero_point)`` into int8, uint8, int16 or uint16, ``saturate_cast(x /
    scale)`` into float8_e4m3fn or float8_e5m2.

    x: float32, float16 or bfloat16, any layout. scale: a Python float, or an
    array of x's dtype (or float32) holding one value (per tensor), one value
    a position along ``axis`` (1-D), or, with ``block_size`` > 0, x's shape
    with ``ceil(x.shape[axis] / block_size)`` along ``axis`` (blocks); finite
    and nonzero. zero_point: the scale's shape (or one value), of the
    result's dtype; None: zero. dtype: the result's, when no zero point gives
    it (uint8 when neither does). saturate=False: a float8 result overflows to
    NaN (float8_e4m3fn) or infinity (float8_e5m2) as ml_dtypes' cast does
    (integers always saturate). out: an array of the result's dtype and x's
    shape.

    The division is in x's dtype (NumPy's promotion of x's and the scale's),
    as onnx.reference computes it, whose results these are bit for bit;
    where the reference's int32 cast is undefined (a quotient beyond int32,
    infinity, NaN) the result saturates, NaN to the range's low end
    (docs/semantics.rst).
    """
    cdef ndarray xa
    cdef object res
    cdef int ax = 0
    cdef bint sat = saturate
    if block_size is 0 or block_size == 0:
        res = _quantize_one_scale(x, scale, zero_point, dtype, out, sat)
        if res is not NotImplemented:
            return res
    xa = _q_native(x if type(x) is ndarray else np.asarray(x))
    cdef npy_intp block = operator.index(block_size)
    if xa.dtype not in _Q_SOURCES:
        raise TypeError(f"quantize takes x of {_q_names(_Q_SOURCES)}, not {xa.dtype}")
    rdt, zp = _q_result_dtype(zero_point, dtype)
    div, s = _q_scale(xa, scale)
    if block < 0:
        raise ValueError(f"block_size must be 0 or positive, not {block}")
    cdef tuple shape = (<object>xa).shape
    if s.size != 1:
        ax = _q_axis(axis, xa.ndim)
        _q_check_scale_shape(s, shape, ax, block)
    s32 = np.ascontiguousarray(s, dtype=np.float32)
    _q_refuse_scale(s32)
    zf = _q_zero_points(zp, s.shape, rdt)
    res = _q_result(out, shape, rdt)
    if xa.size != 0:
        _q_run(xa, res, div, s32, zf, ax if s.size != 1 else -1, block, sat)
    return res


cdef _q_check_scale_shape(object s, tuple shape, int ax, npy_intp block):
    """A ValueError unless s is one scale a position along axis (block 0) or
    a block's (x's shape, ceil(shape[ax] / block) along ax)."""
    if block == 0:
        if s.ndim != 1 or s.shape[0] != shape[ax]:
            raise ValueError(f"scale of shape {s.shape}: one value, or one for each of the "
                             f"{shape[ax]} positions along axis {ax} (1-D), or blocks "
                             f"with block_size > 0")
        return
    want = shape[:ax] + (-(-shape[ax] // block),) + shape[ax + 1:]
    if s.shape != want:
        raise ValueError(f"scale of shape {s.shape} for blocks of {block} along axis "
                         f"{ax} of x's shape {shape}: expected {want}")


cdef object _q_zero_points(object zp, tuple scale_shape, object rdt):
    """The zero points as float32 in the scale's shape, C order (zeros for
    None); a ValueError for another shape or a nonzero float8 one."""
    if zp is None:
        return np.zeros(scale_shape, dtype=np.float32)
    if zp.shape != scale_shape and zp.size != 1:
        raise ValueError(f"zero point of shape {zp.shape} for a scale of shape {scale_shape}: "
                         f"the scale's shape, or one value")
    zf = np.ascontiguousarray(zp, dtype=np.float32)
    if zp.size == 1:
        zf = np.full(scale_shape, zf.ravel()[0], dtype=np.float32)
    if rdt.kind not in "iu" and np.count_nonzero(zf):
        raise ValueError("a float8 zero point must be 0 (QuantizeLinear adds none "
                         "to a float8 result)")
    return zf


cdef ndarray _q_result(object out, tuple shape, object rdt):
    """out, checked, or a new array for the result."""
    if out is None:
        return np.empty(shape, dtype=rdt)
    if not isinstance(out, ndarray):
        raise TypeError(f"out must be a numpy array, not {type(out).__name__}")
    if out.dtype != rdt:
        raise TypeError(f"out has dtype {out.dtype}; this call writes {rdt}")
    if out.shape != shape:
        raise ValueError(f"out has shape {out.shape}; x's is {shape}")
    if not out.flags.writeable:
        raise ValueError("output array is read-only")
    return <ndarray>out


cdef _q_run(ndarray xa, ndarray res, object div, ndarray s32, ndarray zf, int ax,
            npy_intp block, bint saturate):
    """The loop over x into res (through C-ordered copies where either is
    not C-contiguous and aligned, or they overlap); ax -1: one scale."""
    cdef fc_quantize_job_t job
    cdef ndarray xc = xa, target = res
    cdef int k
    if not (cnp.PyArray_IS_C_CONTIGUOUS(xa) and cnp.PyArray_ISALIGNED(xa)):
        xc = np.array(xa, order="C")
    if (not cnp.PyArray_IS_C_CONTIGUOUS(res) or not cnp.PyArray_ISALIGNED(res)
            or _extents_overlap(xc, res)):
        target = np.empty((<object>xa).shape, dtype=res.dtype)
    job.x = <const char *>cnp.PyArray_DATA(xc)
    job.out = <char *>cnp.PyArray_DATA(target)
    job.n = cnp.PyArray_SIZE(xc)
    job.src = _Q_SOURCES[xa.dtype]
    job.div = _Q_SOURCES[div]
    job.dst = _q_dst(res.dtype, saturate)
    job.src_size = cnp.PyArray_ITEMSIZE(xa)
    job.dst_size = cnp.PyArray_ITEMSIZE(res)
    job.scale = <const float *>cnp.PyArray_DATA(s32)
    job.zero = <const float *>cnp.PyArray_DATA(zf)
    job.axis_len = job.inner = job.block = 1
    job.s_outer = job.s_axis = job.s_inner = 0
    if ax >= 0:
        job.axis_len = xa.shape[ax]
        for k in range(ax + 1, xa.ndim):
            job.inner *= xa.shape[k]
        if block == 0:
            job.s_axis = 1
        else:
            job.block = block
            job.s_inner = 1
            job.s_axis = job.inner
            job.s_outer = cnp.PyArray_DIM(s32, ax) * job.inner
    with nogil:
        QUANTIZE.run(&job)
    if target is not res:
        np.copyto(res, target)
