# Route: a result wider than x (NEP 50 promotion by a bound: a NumPy scalar
# of a wider type, a float bound on an integer x, array bounds of a wider
# dtype): x widened exactly, then clipped in the wide type, or the fused
# widening loop; into an out of a third dtype, chained with its conversion.
# Part of fastclip/_ufunc.pyx (included there, in this order).

#: a kernel row's NumPy scalar type -> its dtype, the object v.dtype gives
#: (NumPy's singleton), without the attribute lookup that builds it
cdef dict _SCALAR_DTYPE = {t: np.dtype(t) for t in SCALAR_ROWS}
cdef tuple _ROW_DTYPES = ROW_DTYPES


cdef object _bound_key(object v):
    """What NumPy's type resolution sees of a scalar bound: a Python float
    or int's type (a weak scalar, NEP 50), a NumPy scalar's dtype; None for
    anything else (arrays, 0-d ones included, and bools)."""
    cdef type t = type(v)
    if t is float or t is int:
        return t
    d = _SCALAR_DTYPE.get(t)
    if d is not None:
        return d
    if isinstance(v, np.generic):
        return v.dtype
    return None


cdef object _as_wide_bound(object v, object wide, int wide_row):
    """Scalar bound v as the wide loop takes it: a Python number or a NumPy
    scalar that _bound_to_c converts into wide's row exactly as NumPy casts
    it (of wide's own type, or PROMOTED_SCALAR) as it is; any other NumPy
    scalar cast to wide's type (exact: _wider_loop checked the cast safe).
    Building that scalar costs more than the rest of the call."""
    cdef type t = type(v)
    cdef int src
    if t is float or t is int:
        return v
    src = SCALAR_ROWS.get(t, -1)
    if src == wide_row:
        return v                        # of wide's own type
    if src >= 0 and PROMOTED_SCALAR[wide_row][src]:
        return v
    return wide.type(v)


cdef bint _zero_or_nan(object v, bint int_source):
    # float bounds on which NumPy's scalar-bound and per-element loops differ
    # (a -0.0/+0.0 tie, a NaN x's payload). Which one NumPy runs behind its
    # casting buffers is its own: NumPy 2.1 takes the per-element one for a
    # 2-D strided view (int8 (12, 21)[:, ::2] with a -0.0 bound: +0.0 where
    # the fast path keeps -0.0; without this check 584 of 66,000 calls of
    # test_wider_loops_are_numpys' kinds differed there, none on 2.4). An
    # integer x widens to no -0.0 and no NaN, so a +0.0 bound ties only with
    # +0.0 and every loop gives the same bits: skimage's rescale_intensity
    # clips a uint8 image with (0.0, 255.0) when the image spans its range.
    f = float(v)
    return f != f or (f == 0.0 and (not int_source or copysign(1.0, f) < 0.0))


#: castings under which NumPy casts x into its wider loop (a safe cast) and
#: the loop's result into an out of that loop's dtype (no cast)
_WIDENING_CASTINGS = frozenset(("safe", "same_kind", "unsafe"))


cdef object _widen_new(ndarray a, object a_min, object a_max, object dtype):
    """np.clip whose loop is of a wider dtype than a's: float32 x with
    np.float64 scalar bounds, an int x with Python float bounds, dtype=
    float64, a float16 or bfloat16 x with float32 array bounds. NumPy casts x
    into the loop's dtype as its iterator goes and clips there; so does this,
    into a new array of np.clip's layout. Scalar bounds: cast and clipped in
    one pass (csrc/widen.h) where a and the result are contiguous, else cast
    by np.copyto (a safe cast: exact, or int64 into float64 rounded as NumPy
    rounds it) and clipped by the fast path in place. Array bounds:
    _widen_array_bounds. Into an out: _widen_into_out. Declines where the
    wider loop is not NumPy's (_scalar_bounds_wide_loop,
    _array_bounds_wide_loop) or the cast met a signaling NaN."""
    cdef cnp.dtype descr = <cnp.dtype>cnp.PyArray_DESCR(a)
    cdef int row = _row_of(descr), wide_row, done
    k_lo, k_hi = _bound_key(a_min), _bound_key(a_max)
    if ((k_lo is None or k_hi is None) and dtype is None and cnp.PyArray_NDIM(a) != 0
            and cnp.PyArray_ISNBO(descr.byteorder)):
        wide = _array_bounds_wide_loop(a, a_min, a_max)
        if wide is not None:
            result = _new_result(a, <cnp.dtype>wide)
            if _widen_array_bounds(a, a_min, a_max, <ndarray>result):
                return result
    else:
        wide = _scalar_bounds_wide_loop(a, row, k_lo, k_hi, a_min, a_max, dtype)
        if wide is not None:
            wide_row = _row_of(<cnp.dtype>wide)
            a_min = _as_wide_bound(a_min, wide, wide_row)
            a_max = _as_wide_bound(a_max, wide, wide_row)
            result = _new_result(a, <cnp.dtype>wide)
            done = _widen_loop(a, <ndarray>result, wide_row, a_min, a_max)
            # not contiguous: np.copyto, then the fast path in place; not for
            # an ml_dtypes x, whose cast's floating-point flags are ml_dtypes' own
            if done == 1 or (done == 0 and not ROW_ML[row]
                             and _widen_copy(<ndarray>result, a, row)
                             and _kernel_into(<ndarray>result, a_min, a_max, <ndarray>result)):
                return result
    return NotImplemented


cdef bint _widen_into_out(ndarray a, object a_min, object a_max, ndarray out,
                        object casting) except -1:
    """_widen_new's call with scalar bounds into out, of exactly the loop's
    dtype (laid out like the result would be, apart from a: _widen_out_takes)
    or of a third one (_widen_into_third): whether it wrote out."""
    cdef int row = _row_of(<cnp.dtype>cnp.PyArray_DESCR(a)), wide_row
    wide = _scalar_bounds_wide_loop(a, row, _bound_key(a_min), _bound_key(a_max), a_min, a_max,
                                    None)
    if wide is None or not _widen_out_takes(a, out):
        return False
    wide_row = _row_of(<cnp.dtype>wide)
    a_min = _as_wide_bound(a_min, wide, wide_row)
    a_max = _as_wide_bound(a_max, wide, wide_row)
    if not cnp.PyArray_EquivTypes(<cnp.dtype>cnp.PyArray_DESCR(out), <cnp.dtype>wide):
        return _widen_into_third(a, a_min, a_max, <cnp.dtype>wide, out, casting)
    return _widen_loop(a, out, wide_row, a_min, a_max) == 1


cdef inline object _scalar_bounds_wide_loop(ndarray a, int row, object k_lo, object k_hi,
                                            object a_min, object a_max, object dtype):
    """The wider loop's dtype where _widen_new takes a call with scalar bounds
    (their keys k_lo, k_hi: _bound_key, None for an array), else None: a is
    native and not 0-d, there is one, the bounds are no float zero or NaN
    where the loop is a float one (_zero_or_nan), and a float x is
    contiguous or larger than SNAN_SCAN_MAX (a small strided one is neither
    scanned for signaling NaNs nor worth np.errstate's cost)."""
    if (k_lo is None or k_hi is None or cnp.PyArray_NDIM(a) == 0
            or not cnp.PyArray_ISNBO((<cnp.dtype>cnp.PyArray_DESCR(a)).byteorder)):
        return None
    wide = _cached_wider_loop(<cnp.dtype>cnp.PyArray_DESCR(a), k_lo, k_hi, dtype)
    if wide is None:
        return None
    int_source = ROW_KIND[row] == KIND_INT
    if ROW_KIND[_row_of(<cnp.dtype>wide)] == KIND_FLOAT and (
            _zero_or_nan(a_min, int_source) or _zero_or_nan(a_max, int_source)):
        return None
    if (ROW_KIND[row] in (KIND_FLOAT, KIND_HALF) and cnp.PyArray_SIZE(a) <= SNAN_SCAN_MAX
            and not (cnp.PyArray_IS_C_CONTIGUOUS(a) or cnp.PyArray_IS_F_CONTIGUOUS(a))):
        return None
    return wide


cdef inline bint _widen_out_takes(ndarray a, ndarray out) noexcept:
    """An out _widen_new writes: native, a's shape, writeable, aligned, and
    apart from a (neither overlapping it partly nor a itself)."""
    return (cnp.PyArray_ISNBO((<cnp.dtype>cnp.PyArray_DESCR(out)).byteorder)
            and cnp.PyArray_SAMESHAPE(a, out) and cnp.PyArray_ISWRITEABLE(out)
            and cnp.PyArray_ISALIGNED(out) and not _partly_overlap(a, out)
            and cnp.PyArray_DATA(a) != cnp.PyArray_DATA(out))


cdef bint _widen_into_third(ndarray a, object a_min, object a_max, cnp.dtype wide,
                              ndarray out, object casting) except -1:
    """_widen_new's call with an out of a third dtype (a uint8 image with Python
    float bounds into float32: NumPy clips in float64, then casts into out):
    a's widening loop and the wide type's fused conversion into out's, in
    one loop (WIDENINGS_INTO) or chained through an L1 buffer (csrc/convert.h,
    fc_chain_range), or for an integer x with whole-number bounds x's own
    conversion into out (_integer_route), where a and out are contiguous in
    one memory order, NumPy lets the wide type cast into out (`casting`), and the bounds, in
    the wide type, convert inside out's range. The bounds are the wide
    type's already (_widen_into_out). Whether it wrote out (else NumPy's clip
    and cast, which rewrite all of out)."""
    cdef unsigned long long lo_buf = 0, hi_buf = 0
    cdef int wide_row = _row_of(wide), a_row, out_row, k = -1
    cdef int widen = -1, fused, nan, direct
    cdef npy_intp n = cnp.PyArray_SIZE(a)
    cdef char *px = <char *>cnp.PyArray_DATA(a)
    cdef char *po = <char *>cnp.PyArray_DATA(out)
    a_row = _row_of(<cnp.dtype>cnp.PyArray_DESCR(a))    # _widen_new's row
    out_row = _row_of(<cnp.dtype>cnp.PyArray_DESCR(out))
    if out_row >= 0:
        k = CONVERSION_BY_ROWS[wide_row][out_row]
        widen = WIDENING_BY_ROWS[a_row][wide_row]
    if not (k >= 0 and widen >= 0
            and ((cnp.PyArray_IS_C_CONTIGUOUS(a) and cnp.PyArray_IS_C_CONTIGUOUS(out)) or
                 (cnp.PyArray_IS_F_CONTIGUOUS(a) and cnp.PyArray_IS_F_CONTIGUOUS(out)))
            # else NumPy's error, its way
            and _conversion_allowed(k, wide, <cnp.dtype>cnp.PyArray_DESCR(out), casting)
            and not (MAY_UNDERFLOW[k] and not _underflow_ignored())
            and _bound_to_c(wide_row, a_min, &lo_buf) and _bound_to_c(wide_row, a_max, &hi_buf)
            and CONVERT.in_range(widen, &lo_buf, &hi_buf)
            and CONVERT.in_range(k, &lo_buf, &hi_buf)):
        return False
    direct = _integer_route(a_row, wide_row, out_row, &lo_buf, &hi_buf)
    if direct >= 0:
        widen, k, fused = -1, direct, direct
    else:
        # both loops in one pass where WIDENINGS_INTO has the triple (the
        # chain reads and writes the wide array twice), else chained
        fused = WIDENING_INTO_BY_ROWS[a_row][wide_row][out_row]
        if fused >= 0 and not CONVERT.in_range(fused, &lo_buf, &hi_buf):
            fused = -1          # the chain, whose conversion reports an overflow
    if n < GIL_RELEASE_THRESHOLD:
        nan = _widen_loop_into(fused, widen, k, px, po, n, &lo_buf, &hi_buf)
    else:
        with nogil:
            nan = _widen_loop_into(fused, widen, k, px, po, n, &lo_buf, &hi_buf)
    return not nan


cdef int FLOAT32_ROW = _row_of_num(np.dtype(np.float32).num)


cdef inline bint _whole_in_int32(double d) noexcept:
    # -0.0 is not: an int x of 0 ties with it and keeps +0.0, a negative one
    # becomes -0.0 (_widen_new hands such a bound to NumPy before this)
    return (-2147483648.0 <= d <= 2147483647.0 and d == <double>(<long long>d)
            and not (d == 0.0 and copysign(1.0, d) < 0.0))


cdef int _integer_route(int a_row, int wide_row, int out_row, unsigned long long *lo_buf,
                        unsigned long long *hi_buf) except -2:
    """The conversion straight from integer row a_row into out_row, its
    bounds written over lo_buf and hi_buf (bounds of wide_row, checked by
    the caller to convert inside out's range), or -1 where it does not hold
    (wide_row other than float64, PY_FLOAT_ROW, among them).
    An integer x clipped in float64 by whole-number bounds within int32 and
    x's own range is x clipped as an integer, exactly: each bound is exact in
    float64, an x between them too (|x| < 2**31), and an x beyond a bound is
    beyond it in float64 as well (the cast is monotone; a tie gives the
    bound). That value then goes into out once, as NumPy's cast of it: into
    float32 rounded once from the exact integer, into float64 or an integer
    unchanged (float64: _widen_loop's result, the wide type itself).
    The source's conversion (int64 -> float32: csrc/convert_vector.h, bounds
    within int32) skips the float64 steps."""
    cdef unsigned long long lo_int = 0, hi_int = 0
    cdef double lo = (<double *>lo_buf)[0], hi = (<double *>hi_buf)[0]
    cdef int direct
    if (wide_row != PY_FLOAT_ROW or ROW_KIND[a_row] != KIND_INT
            or not (out_row in (FLOAT32_ROW, PY_FLOAT_ROW) or ROW_KIND[out_row] == KIND_INT)):
        return -1
    direct = CONVERSION_BY_ROWS[a_row][out_row]
    if direct < 0 or not (_whole_in_int32(lo) and _whole_in_int32(hi)):
        return -1
    if not (_bound_to_c(a_row, <long long>lo, &lo_int) and _bound_to_c(a_row, <long long>hi, &hi_int)
            and CONVERT.in_range(direct, &lo_int, &hi_int)):
        return -1
    lo_buf[0], hi_buf[0] = lo_int, hi_int
    return direct


cdef inline int _widen_loop_into(int fused, int widen, int k, const char *px, char *po, npy_intp n,
                                const void *lo, const void *hi) noexcept nogil:
    """The fused loop `fused` (of WIDENINGS_INTO), or with -1 the widening
    loop `widen` chained with conversion k; nonzero: a NaN met."""
    if fused >= 0:
        return CONVERT.run(fused, px, po, n, lo, hi)
    return CONVERT.chain(widen, k, px, po, n, lo, hi)


cdef bint _widen_array_bounds(ndarray a, object a_min, object a_max,
                                   ndarray result) except -1:
    """np.clip(a, a_min, a_max) with an array bound, whose loop is of a
    wider dtype than a's (float16 or bfloat16 x with a float32 array bound),
    into result, a new array of that dtype: a cast exactly by its widening
    loop (csrc/widen.h, with bounds that clip nothing), then clipped there in
    place, as NumPy's iterator casts x and runs the loop. Whether it did
    (not where the cast met a signaling NaN, which NumPy's cast reports).
    Taken (_array_bounds_wide_loop) only where both run NumPy's per-element
    loop (an array bound spans a's innermost axis, so its stride there is
    not 0, in NumPy's buffers as in the widened array) and lay the result
    out alike (a C-contiguous, the array bounds too or of one dimension,
    none broadcasting a to a larger shape), and whose NumPy bounds are of
    the loop's dtype already (Python numbers beside them)."""
    cdef int wide_row = _row_of(<cnp.dtype>cnp.PyArray_DESCR(result))
    whole = (<tuple>ROW_INT_RANGE[wide_row] if ROW_KIND[wide_row] == KIND_INT
             else _WHOLE_FLOAT_RANGE)
    if _widen_loop(a, result, wide_row, whole[0], whole[1]) != 1:
        return False
    if not _kernel_into(result, a_min, a_max, result):
        clip_ufunc(result, a_min, a_max, out=result)
    return True


cdef object _array_bounds_wide_loop(ndarray a, object a_min, object a_max):
    """The wider loop's dtype where _widen_array_bounds takes the call
    (see there), else None."""
    cdef cnp.dtype descr = <cnp.dtype>cnp.PyArray_DESCR(a)
    cdef int nd = cnp.PyArray_NDIM(a), inner = nd - 1
    cdef bint spans_inner = False
    if not cnp.PyArray_IS_C_CONTIGUOUS(a) or (
            _same_dtype_array(a_min, descr) and _same_dtype_array(a_max, descr)):
        return None                     # no wider loop: the common call, at once
    while inner >= 0 and cnp.PyArray_DIMS(a)[inner] == 1:
        inner -= 1
    if inner < 0:
        return None                     # one element: NumPy's coalescing decides
    keys = []
    for b in (a_min, a_max):
        k = _bound_key(b)
        if k is None:
            if type(b) is not ndarray or not _fits_within(<ndarray>b, a):
                return None
            k = (<ndarray>b).dtype
            j = inner - (nd - cnp.PyArray_NDIM(<ndarray>b))
            spans_inner |= j >= 0 and cnp.PyArray_DIMS(<ndarray>b)[j] == cnp.PyArray_DIMS(a)[inner]
        keys.append(k)
    wide = _cached_wider_loop(descr, keys[0], keys[1], None) if spans_inner else None
    if (wide is None or WIDENING_BY_ROWS[_row_of(descr)][
            _row_of(<cnp.dtype>wide)] < 0):
        return None                     # (float8 x: no widening loop)
    for k in keys:
        if isinstance(k, np.dtype) and k != wide:
            # a bound NumPy casts too: how and when its iterator casts it
            # (whole, or buffered, or not at all for an empty x) decides
            # whether a signaling NaN in it warns
            return None
    return wide


#: _cached_wider_loop's answers without dtype= by a's row and the two bound
#: keys' codes (_key_code): a list read by index, not a dict by a built tuple
#: key (that key and lookup are a large share of _widen_new's work with Python
#: bounds, and hashing NumPy dtypes costs more)
cdef enum:
    KEY_CODES = 34                  # Python int, Python float, 32 rows
cdef object _NOT_CACHED = object()  # a slot not yet filled (None is an answer: no wider loop)
cdef list _WIDER_BY_CODES = [_NOT_CACHED] * (32 * KEY_CODES * KEY_CODES)


cdef inline int _key_code(object k):
    """A bound key (_bound_key) as a small int: 0 Python int, 1 Python float,
    2 + row for a kernel row's own dtype (NumPy's native singleton); -1 for
    any other."""
    cdef int num, row
    if k is int:
        return 0
    if k is float:
        return 1
    if not isinstance(k, cnp.dtype):
        return -1
    num = (<cnp.dtype>k).type_num
    row = _row_of_num(num)
    return 2 + row if row >= 0 and k is _ROW_DTYPES[row] else -1


cdef object _dict_key(object k):
    """A bound key as _WIDER_LOOP's dict takes it: a dtype by its type number
    and byte order, as np.dtype('l') == np.dtype('q') (and hashes alike)
    where np.clip's result types differ."""
    if isinstance(k, cnp.dtype):
        return ((<cnp.dtype>k).type_num, (<cnp.dtype>k).byteorder)
    return k


cdef object _cached_wider_loop(cnp.dtype descr, object k_lo, object k_hi, object dtype):
    """_wider_loop, remembered by (a's type number, bound keys, dtype=)."""
    cdef int slot = -1, row = _row_of(descr)    # a kernel dtype's: _widen_new's caller
    cdef int c_lo, c_hi
    if dtype is None and row >= 0:
        c_lo = _key_code(k_lo)
        c_hi = _key_code(k_hi)
        if c_lo >= 0 and c_hi >= 0:
            slot = (row * KEY_CODES + c_lo) * KEY_CODES + c_hi
            wide = _WIDER_BY_CODES[slot]
            if wide is not _NOT_CACHED:
                return wide
    key = (descr.type_num, _dict_key(k_lo), _dict_key(k_hi), _dict_key(dtype))
    if key in _WIDER_LOOP:
        wide = _WIDER_LOOP[key]
    else:
        wide = _WIDER_LOOP[key] = _wider_loop(descr, k_lo, k_hi, dtype)
    if slot >= 0:
        _WIDER_BY_CODES[slot] = wide
    return wide


#: bounds that clip nothing: a widening loop's plain cast
cdef tuple _WHOLE_FLOAT_RANGE = (float("-inf"), float("inf"))


cdef inline bint _same_dtype_array(object b, cnp.dtype descr):
    return type(b) is ndarray and (<cnp.dtype>cnp.PyArray_DESCR(<ndarray>b)).type_num == descr.type_num


cdef bint _fits_within(ndarray b, ndarray a):
    """b broadcasts to a's shape (not to a larger one) and is C-contiguous
    or of one dimension (its layout then cannot sway np.clip's result's)."""
    cdef int nd = cnp.PyArray_NDIM(b), offset = cnp.PyArray_NDIM(a) - nd, i
    if offset < 0 or not (nd <= 1 or cnp.PyArray_IS_C_CONTIGUOUS(b)):
        return False
    for i in range(nd):
        if cnp.PyArray_DIMS(b)[i] != 1 and cnp.PyArray_DIMS(b)[i] != cnp.PyArray_DIMS(a)[offset + i]:
            return False
    return True


cdef int _widen_loop(ndarray a, ndarray result, int wide_row, object a_min,
                         object a_max) except -2:
    """result = clip(a cast to result's dtype), in one pass by the widening
    loop of the pair (csrc/widen.h): 1 done; 0 not this route (a layout or a
    pair it has not: a and result must be contiguous in one memory order);
    -1 a signaling NaN met (the ufunc's call, see _widen_copy)."""
    cdef unsigned long long lo_buf = 0, hi_buf = 0
    cdef npy_intp n = cnp.PyArray_SIZE(a)
    cdef int nan, direct
    cdef char *px = <char *>cnp.PyArray_DATA(a)
    cdef char *po = <char *>cnp.PyArray_DATA(result)
    cdef int a_row = _row_of(<cnp.dtype>cnp.PyArray_DESCR(a))
    cdef int k = WIDENING_BY_ROWS[a_row][wide_row]
    if k < 0 or not (
            (cnp.PyArray_IS_C_CONTIGUOUS(a) and cnp.PyArray_IS_C_CONTIGUOUS(result)) or
            (cnp.PyArray_IS_F_CONTIGUOUS(a) and cnp.PyArray_IS_F_CONTIGUOUS(result))):
        return 0
    if not (_bound_to_c(wide_row, a_min, &lo_buf) and _bound_to_c(wide_row, a_max, &hi_buf)):
        return 0
    # an integer x of up to 4 bytes with whole-number bounds: its own
    # conversion into float64 (_integer_route), which clips in x's narrower
    # lanes. int64 keeps the widening loop, which its conversion does not beat
    direct = (_integer_route(a_row, wide_row, wide_row, &lo_buf, &hi_buf)
              if ROW_ITEMSIZE[a_row] <= 4 else -1)
    if direct >= 0:
        k = direct
    if n < GIL_RELEASE_THRESHOLD:
        nan = CONVERT.run(k, px, po, n, &lo_buf, &hi_buf)
    else:
        with nogil:
            nan = CONVERT.run(k, px, po, n, &lo_buf, &hi_buf)
    return -1 if nan else 1


def _wider_loop(cnp.dtype descr, k_lo, k_hi, dtype):
    """The dtype of NumPy's clip loop for these operands (its own type
    resolution) when it is a kernel dtype wider than descr that every
    operand casts to safely; else None."""
    try:
        if dtype is None:
            loop = _umath.clip.resolve_dtypes((descr, k_lo, k_hi, None))
        else:
            loop = _umath.clip.resolve_dtypes((descr, k_lo, k_hi, None),
                                              signature=(None, None, None, np.dtype(dtype)))
    except Exception:
        return None
    wide = loop[3]
    if not (wide.isnative and all(d == wide for d in loop) and wide != descr
            and _row_of(wide) >= 0 and not ROW_ML[_row_of(wide)]
            and np.can_cast(descr, wide, "safe")):
        return None
    for k in (k_lo, k_hi):
        if isinstance(k, np.dtype) and not np.can_cast(k, wide, "safe"):
            return None
    return wide
