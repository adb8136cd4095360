# The dtype table as C arrays by row; bounds as C values of a row; both
# bounds of a call as the kernel route takes them (_take_bounds: scalars,
# arrays broadcasting to x, refused where the kernel's bits may not be NumPy's).
# Part of fastclip/_ufunc.pyx (included there, in this order).

# The dtype table by row (declared in _ufunc.pxd, which every part of the
# module reads): filled here, at import, before any route can run.
ROW_SCALAR_TYPE = tuple(dt.type for dt in ROW_DTYPES)

_KIND_CODES = {name: code for code, name in enumerate(KINDS)}
assert [_KIND_CODES[k] for k in ("int", "float", "half", "bfloat16", "float8")] == [
    KIND_INT, KIND_FLOAT, KIND_HALF, KIND_BFLOAT16, KIND_FLOAT8], "RowKind and KINDS disagree"
for _i in range(512):
    ROW_BY_TYPENUM[_i] = -1
for _i, _row in enumerate(DTYPES):
    _dt = ROW_DTYPES[_i]
    assert _dt.num < 512
    ROW_BY_TYPENUM[_dt.num] = _i
    ROW_KIND[_i] = _KIND_CODES[_row.kind]
    ROW_ML[_i] = _row.char is None
    if _row.kind == "float8":
        _, F8_MANTISSA[_i], F8_BIAS[_i], _ = FLOAT8[_row.name]
        F8_HAS_INF[_i] = not saturates(_row.name)
    ROW_ITEMSIZE[_i] = _dt.itemsize
    ROW_LARGEST_BITS[_i] = LARGEST_BITS.get(_row.name, 0)
    ROW_SIGNED[_i] = _dt.kind == "i"
    if _dt.kind in "iu":
        INT_MIN[_i] = np.iinfo(_dt).min
        INT_MAX[_i] = min(int(np.iinfo(_dt).max), 2**63 - 1)
SCALAR_ROWS = {dt.type: k for k, dt in enumerate(ROW_DTYPES) if not ROW_ML[k]}
for _i, _dt in enumerate(ROW_DTYPES):
    for _j, _st in enumerate(ROW_DTYPES):
        PROMOTED_SCALAR[_i][_j] = (
            _i != _j and ROW_KIND[_i] in (KIND_INT, KIND_FLOAT)
            and ROW_KIND[_j] in (KIND_INT, KIND_FLOAT, KIND_HALF)
            and bool(np.can_cast(_st, _dt, "safe"))
            and _umath.clip(np.zeros(1, _dt), _st.type(0), _st.type(1)).dtype.num == _dt.num)


cdef inline int _row_of_num(int num) noexcept nogil:
    """The dtype table's row of a NumPy type number: -1 for none (a user
    dtype's number may pass the table's end)."""
    return ROW_BY_TYPENUM[num] if 0 <= num < 512 else -1


cdef inline int _row_of(cnp.dtype descr) noexcept:
    """The dtype table's row of a descriptor, -1 for none (byte order and
    alignment are the caller's to check)."""
    return _row_of_num(descr.type_num)

#: per integer row, its exact range as Python ints (None for the others)
cdef tuple ROW_INT_RANGE = tuple(
    (int(np.iinfo(dt).min), int(np.iinfo(dt).max)) if dt.kind in "iu" else None
    for dt in ROW_DTYPES)

# Below this many elements the kernel runs in less time than releasing and
# re-taking the GIL costs, so it keeps it; NumPy does the same
# (NPY_BEGIN_THREADS_THRESHOLDED, 500 elements).
cdef enum:
    GIL_RELEASE_THRESHOLD = 4096

# Python ints beyond 2**53 do not convert to a double exactly; NumPy's own
# conversion of them is left to NumPy.
cdef double EXACT_INT_LIMIT = 9007199254740992.0


cdef inline void _numpy_scalar_value(object v, void *buf, int itemsize) noexcept:
    """The value of a NumPy scalar of a built-in numeric type (an exact
    np.float32, np.int64, ...: not an ml_dtypes one) into buf. Such a scalar
    is its object header and then its value (numpy/arrayscalars.h:
    PyObject_HEAD, then obval; np.float64's layout is Python float's).
    PyArray_ScalarAsCtype looks the scalar's dtype up first, which made
    NumPy scalar bounds slower than Python floats on small arrays."""
    memcpy(buf, <char *><PyObject *>v + sizeof(PyObject), itemsize)


cdef bint _bound_to_c(int row, object v, void *buf) except -1:
    """Write bound v as the C value of table row `row` into buf.

    Returns False when v is not a bound the fast path takes exactly as NumPy
    would (then the call goes the slow way): only Python int/float (never bool)
    and NumPy scalars of the array's own type; ints must be in the type's range
    (np.clip drops out-of-range ints or raises); floats must not overflow
    (NumPy warns about that cast).
    """
    cdef int kind = ROW_KIND[row]
    cdef int overflow = 0
    cdef double d
    cdef long long ll
    cdef type tv = type(v)
    if tv is ROW_SCALAR_TYPE[row]:
        if not ROW_ML[row]:
            _numpy_scalar_value(v, buf, ROW_ITEMSIZE[row])
            return True
        # PyArray_ScalarAsCtype does not read ml_dtypes scalars; one goes
        # through float exactly, except NaN payloads (left to the ufunc).
        d = float(v)
        if d != d:
            return False
    elif kind == KIND_INT:
        if tv is not int:
            return _promoted_scalar_to_c(row, v, buf)
        return _python_int_to_c(row, v, buf)
    elif tv is float:
        d = PyFloat_AS_DOUBLE(v)
    elif tv is int:
        ll = PyLong_AsLongLongAndOverflow(v, &overflow)
        if overflow or not (-EXACT_INT_LIMIT <= ll <= EXACT_INT_LIMIT):
            return False
        d = <double>ll
    else:
        return _promoted_scalar_to_c(row, v, buf)
    return _double_to_c(row, d, buf)


cdef inline bint _python_int_to_c(int row, object v, void *buf) except -1:
    """_bound_to_c's Python int v for an integer row: in the type's range, or
    False."""
    cdef int overflow = 0
    cdef long long ll = PyLong_AsLongLongAndOverflow(v, &overflow)
    cdef unsigned long long ull
    if overflow:
        if overflow < 0 or ROW_SIGNED[row] or ROW_ITEMSIZE[row] != 8:
            return False
        try:
            ull = PyLong_AsUnsignedLongLong(v)  # 2**63 <= v < 2**64 for uint64
        except OverflowError:
            return False                        # np.clip has its own rules for it
        _store_uint(row, ull, buf)
        return True
    if not (INT_MIN[row] <= ll <= INT_MAX[row]):
        return False
    if ROW_SIGNED[row]:
        _store_int(row, ll, buf)
    else:
        _store_uint(row, <unsigned long long>ll, buf)
    return True


cdef inline bint _double_to_c(int row, double d, void *buf) except -1:
    """_bound_to_c's value d (exact as a double) for a float row, rounded as
    NumPy casts it; False where that overflows (NumPy warns)."""
    cdef int kind = ROW_KIND[row]
    cdef int overflow = 0
    cdef unsigned short bits
    cdef unsigned char bits8
    cdef float f
    if kind == KIND_FLOAT:
        if ROW_ITEMSIZE[row] == 8:
            memcpy(buf, &d, 8)
            return True
        f = <float>d
        if f - f != 0 and d - d == 0:      # a finite double that overflows float
            return False
        memcpy(buf, &f, 4)
        return True
    if kind == KIND_FLOAT8:
        bits8 = fc_double_to_float8(d, F8_MANTISSA[row], F8_BIAS[row], F8_HAS_INF[row],
                                    &overflow)
        if overflow:
            return False
        memcpy(buf, &bits8, 1)
        return True
    if kind == KIND_HALF:
        bits = fc_double_to_half(d, &overflow)
    else:
        bits = fc_double_to_bfloat16(d, &overflow)
    if overflow:
        return False
    memcpy(buf, &bits, 2)
    return True


cdef bint _promoted_scalar_to_c(int row, object v, void *buf) except -1:
    """A NumPy scalar of another row that np.clip promotes to this row's loop
    and casts exactly (PROMOTED_SCALAR), as this row's C value in buf; False
    for anything else, and for a NaN (its cast's flags are NumPy's to raise:
    a signaling one warns)."""
    cdef int src = SCALAR_ROWS.get(type(v), -1)
    cdef unsigned long long bits = 0
    cdef long long ll
    cdef double d
    cdef float f
    if src < 0 or not PROMOTED_SCALAR[row][src]:
        return False
    if ROW_KIND[src] == KIND_INT:
        _numpy_scalar_value(v, &bits, ROW_ITEMSIZE[src])
        if ROW_SIGNED[src]:
            # sign-extend the value of its size (x86-64 and aarch64 are little-endian)
            ll = <long long>(bits << (64 - 8 * ROW_ITEMSIZE[src])) >> (64 - 8 * ROW_ITEMSIZE[src])
            d = <double>ll
        else:
            ll = <long long>bits        # below 2**63 where an integer row takes it (a safe cast)
            d = <double>bits
        if ROW_KIND[row] == KIND_INT:
            if ROW_SIGNED[row]:
                _store_int(row, ll, buf)
            else:
                _store_uint(row, bits, buf)
            return True
        # into a float row: exact, or (int64, uint64 into float64, which
        # NumPy calls safe) rounded to nearest by C's conversion, as NumPy's
    else:
        d = float(v)                    # float16 or float32: exact
        if d != d:
            return False
    if ROW_ITEMSIZE[row] == 8:
        memcpy(buf, &d, 8)
    else:
        f = <float>d
        memcpy(buf, &f, 4)
    return True


cdef void _store_int(int row, long long v, void *buf) noexcept:
    cdef int size = ROW_ITEMSIZE[row]
    cdef signed char i8
    cdef short i16
    cdef int i32
    if size == 1:
        i8 = <signed char>v
        memcpy(buf, &i8, 1)
    elif size == 2:
        i16 = <short>v
        memcpy(buf, &i16, 2)
    elif size == 4:
        i32 = <int>v
        memcpy(buf, &i32, 4)
    else:
        memcpy(buf, &v, 8)


cdef void _store_uint(int row, unsigned long long v, void *buf) noexcept:
    cdef int size = ROW_ITEMSIZE[row]
    cdef unsigned char u8
    cdef unsigned short u16
    cdef unsigned int u32
    if size == 1:
        u8 = <unsigned char>v
        memcpy(buf, &u8, 1)
    elif size == 2:
        u16 = <unsigned short>v
        memcpy(buf, &u16, 2)
    elif size == 4:
        u32 = <unsigned int>v
        memcpy(buf, &u32, 4)
    else:
        memcpy(buf, &v, 8)


# how the walk takes a bound (_bound_operand)
cdef enum BoundKind:
    BOUND_REFUSED       # not at all: the call goes another way
    BOUND_SCALAR        # a C value, written into the bound's buffer
    BOUND_ARRAY         # an array of a's dtype broadcasting to a's shape
    BOUND_REPEATING     # BOUND_ARRAY, repeating along the inner axis: see _fast


cdef int _bound_operand(int row, cnp.dtype descr, object b, ndarray a, void *buf,
                        char **ptr, npy_intp *strides) except -1:
    """A bound as the walk takes it: BOUND_SCALAR, written into buf;
    BOUND_ARRAY, an array of a's dtype that broadcasts to a's shape (ptr and
    strides set, 0 along the axes it repeats); BOUND_REPEATING, such an array
    of a float row, without a zero or a NaN, that repeats along the inner axis
    and moves along another; BOUND_REFUSED for anything else."""
    cdef ndarray bb
    cdef cnp.dtype bd
    cdef int k, nd = cnp.PyArray_NDIM(a), nd_b, ax
    cdef bint moves, repeats
    cdef int inner
    if type(b) is not ndarray:      # an array is never a scalar bound (_bound_to_c)
        if _bound_to_c(row, b, buf):
            ptr[0] = <char *>buf
            return BOUND_SCALAR
        return BOUND_REFUSED
    bb = <ndarray>b
    bd = <cnp.dtype>cnp.PyArray_DESCR(bb)
    # the same type, not only an equivalent one: with an int64 'q' bound on an
    # int64 'l' array NumPy's loop search can pick the 'q' loop, and np.clip
    # then returns np.longlong where a's own type would be np.int64
    if (bd.type_num != descr.type_num or not cnp.PyArray_ISNBO(bd.byteorder)
            or not cnp.PyArray_ISALIGNED(bb)):
        return BOUND_REFUSED
    nd_b = cnp.PyArray_NDIM(bb)
    if nd_b > nd:
        return BOUND_REFUSED
    for k in range(nd):
        strides[k] = 0
    for k in range(nd_b):
        ax = nd - nd_b + k
        if cnp.PyArray_DIM(bb, k) == cnp.PyArray_DIM(a, ax):
            strides[ax] = cnp.PyArray_STRIDE(bb, k)
        elif cnp.PyArray_DIM(bb, k) != 1:
            return BOUND_REFUSED        # NumPy's broadcasting error, its way
    # A bound that repeats along an axis that can be the inner loop's: whether
    # NumPy then runs its scalar-bound or its per-element loop depends on how
    # its iterator buffers (np.clip of -0.0 in (3, 100000) against (3, 1)
    # bounds keeps -0.0, in (1000, 100) against (1000, 1) gives +0.0), so such
    # calls go through the iterator itself. A bound moving along a's innermost
    # axis (a (cols,) bound over C order), or along every axis, is per element
    # in NumPy whatever it buffers; one moving along none (size 1) is scalar.
    # (Array bounds are taken only with a and out in one memory order, so a's
    # innermost axis is the inner loop's, here and in NumPy.) Integers have no
    # -0.0 or NaN: both of NumPy's loops give the same values, and the walk
    # takes such bounds itself (faster than the iterator).
    moves = repeats = False
    inner = -1
    for k in range(nd):
        if cnp.PyArray_DIM(a, k) > 1:
            if strides[k] == 0:
                repeats = True
            else:
                moves = True
            if inner < 0 or abs(cnp.PyArray_STRIDE(a, k)) <= abs(cnp.PyArray_STRIDE(a, inner)):
                inner = k
    ptr[0] = <char *>cnp.PyArray_DATA(bb)
    if moves and repeats and strides[inner] == 0 and ROW_KIND[row] != KIND_INT:
        return BOUND_REPEATING if _no_zero_or_nan(row, bb) else BOUND_REFUSED
    return BOUND_ARRAY


cdef inline bint _is_nan_at(int row, const void *p, bint or_zero) noexcept:
    """Whether the element at p (of row row, a float row) is a NaN, or with
    or_zero a zero of either sign."""
    cdef int size = ROW_ITEMSIZE[row]
    cdef double v
    cdef unsigned int magnitude
    if ROW_KIND[row] == KIND_FLOAT:
        v = (<const float *>p)[0] if size == 4 else (<const double *>p)[0]
        return v != v or (or_zero and v == 0)
    # the 16- and 8-bit floats, by their bits
    magnitude = ((<const unsigned short *>p)[0] & 0x7fff if size == 2
                 else (<const unsigned char *>p)[0] & 0x7f)
    return magnitude > ROW_LARGEST_BITS[row] or (or_zero and magnitude == 0)


cdef bint _nan_or_zero_among(int row, const void *x, const void *lo, const void *hi) noexcept:
    """Whether element x, lo or hi (of a float row) is a NaN or a zero of
    either sign: where NumPy's scalar-bound and per-element loops can differ
    (a NaN; a tie of zeros, which needs two of them: x = -5 in (-0.0, +0.0)
    is -0.0 after the lower bound, then +0.0 per element and -0.0 with
    scalar bounds)."""
    return _is_nan_at(row, x, True) or _is_nan_at(row, lo, True) or _is_nan_at(row, hi, True)


cdef bint _no_zero_or_nan(int row, ndarray b) noexcept:
    """Whether a contiguous bound of a float row holds neither a NaN nor a
    zero of either sign. Then NumPy's two loops agree on every element
    (a tie with a non-zero bound has one bit pattern; a NaN x comes back
    itself from both), so a bound that repeats along the inner axis is the
    walk's whatever NumPy's iterator would buffer: float32/float64 (1000, 100),
    (3, 5000), (2, 8192), (1, 20000), ... against (rows, 1) bounds with
    infinities, lo > hi, x of NaNs with payloads and signed zeros, on NumPy
    2.1.3 and 2.4.6: np.clip equal bit for bit to its per-element loop and to
    its scalar-bound loop row by row. The 16- and 8-bit floats are read by
    their bits (tests/test_array_bounds.py,
    test_repeating_bounds_without_zero_or_nan_small_floats)."""
    cdef npy_intp k, n = cnp.PyArray_SIZE(b)
    cdef char *p = <char *>cnp.PyArray_DATA(b)
    cdef int size = ROW_ITEMSIZE[row]
    cdef float *f
    cdef double *d
    if not cnp.PyArray_IS_C_CONTIGUOUS(b):
        return False
    if ROW_KIND[row] == KIND_FLOAT:
        if size == 4:
            f = <float *>p
            for k in range(n):
                if f[k] != f[k] or f[k] == 0:
                    return False
        else:
            d = <double *>p
            for k in range(n):
                if d[k] != d[k] or d[k] == 0:
                    return False
        return True
    for k in range(n):
        if _is_nan_at(row, p + k * size, True):
            return False
    return True


cdef struct FastBounds:
    # both bounds as the walk takes them (_take_bounds)
    int lo_kind                 # a BoundKind
    int hi_kind
    unsigned long long lo_buf   # a scalar bound's C value
    unsigned long long hi_buf
    char *lo_ptr                # its buffer, or an array bound's data
    char *hi_ptr
    npy_intp lo_strides[cnp.NPY_MAXDIMS]    # an array bound's, along a's axes
    npy_intp hi_strides[cnp.NPY_MAXDIMS]


cdef inline bint _take_bounds(FastBounds *b, int row, cnp.dtype descr, ndarray a, object a_min,
                       object a_max) except -1:
    """Both bounds into b, as scalars or arrays the walk takes, where the
    kernel's result is NumPy's bit for bit; False where it may not be."""
    b.lo_buf = b.hi_buf = 0
    b.lo_kind = _bound_operand(row, descr, a_min, a, &b.lo_buf, &b.lo_ptr, b.lo_strides)
    b.hi_kind = _bound_operand(row, descr, a_max, a, &b.hi_buf, &b.hi_ptr, b.hi_strides)
    if b.lo_kind == BOUND_REFUSED or b.hi_kind == BOUND_REFUSED:
        return False
    if ((b.lo_kind == BOUND_ARRAY or b.hi_kind == BOUND_ARRAY) and ROW_KIND[row] != KIND_INT
            and cnp.PyArray_SIZE(a) == 1 and cnp.PyArray_NDIM(a) > 0
            and _nan_or_zero_among(row, cnp.PyArray_DATA(a), b.lo_ptr, b.hi_ptr)):
        # One element, all axes of size 1: NumPy's iterator passes an array
        # bound of a's own rank with its stride (the per-element loop: x's
        # NaN, and on a -0.0/+0.0 tie the bound) and a broadcast one with
        # stride 0 (the scalar-bound loop: the bound's NaN, x on a tie), as
        # its coalescing of those axes goes. Without a NaN or a zero among x,
        # lo and hi the two agree; with one, NumPy's iterator, with the same
        # loops, decides (np.clip([-5.0], [-0.0], [0.0]) is +0.0:
        # test_one_element_array_bounds).
        return False
    # An array bound of one element (gymnasium's Box(shape=(1,)) bounds) is
    # a scalar bound to NumPy's iterator (stride 0) wherever a has more than
    # one element, and where a has one the two loops agree (settled just
    # above): taken as a scalar bound, its C value read now, as NumPy copies
    # a bound that overlaps out before its loop; the scalar loop is the
    # quicker for a small call.
    if b.lo_kind == BOUND_ARRAY and cnp.PyArray_SIZE(<ndarray>a_min) == 1:
        memcpy(&b.lo_buf, b.lo_ptr, descr.itemsize)
        b.lo_ptr = <char *>&b.lo_buf
        b.lo_kind = BOUND_SCALAR
    if b.hi_kind == BOUND_ARRAY and cnp.PyArray_SIZE(<ndarray>a_max) == 1:
        memcpy(&b.hi_buf, b.hi_ptr, descr.itemsize)
        b.hi_ptr = <char *>&b.hi_buf
        b.hi_kind = BOUND_SCALAR
    if b.lo_kind == BOUND_REPEATING or b.hi_kind == BOUND_REPEATING:
        # A bound repeating along the inner axis is clean itself (zero and
        # NaN free), but NumPy's two loops still differ where the other bound
        # is a scalar (stride 0 there too) holding a NaN or a zero: x's NaN
        # per element, the bound's NaN from the scalar-bound loop. Which one
        # NumPy's iterator runs is its own affair: np.clip of a NaN in F-order
        # (6, 6) against a (6,) lower bound and a (1,) NaN upper bound keeps
        # x's NaN.
        if ((b.lo_kind == BOUND_SCALAR and _is_nan_at(row, b.lo_ptr, True)) or
                (b.hi_kind == BOUND_SCALAR and _is_nan_at(row, b.hi_ptr, True))):
            return False
        if b.lo_kind == BOUND_REPEATING:
            b.lo_kind = BOUND_ARRAY
        if b.hi_kind == BOUND_REPEATING:
            b.hi_kind = BOUND_ARRAY
    return True


cdef inline bint _scalar_bounds(FastBounds *b, ndarray a, object a_min, object a_max) except -1:
    """Both bounds into b as scalar operands of a's row, converted once for a
    call whose routes take scalar bounds alone (clip and convert, then the
    clip before a widening copy: _convert_route); False where either is not
    such a scalar."""
    cdef int row = _row_of(<cnp.dtype>cnp.PyArray_DESCR(a))
    b.lo_buf = b.hi_buf = 0
    if row < 0 or not (_bound_to_c(row, a_min, &b.lo_buf) and _bound_to_c(row, a_max, &b.hi_buf)):
        return False
    b.lo_kind = b.hi_kind = BOUND_SCALAR
    b.lo_ptr = <char *>&b.lo_buf
    b.hi_ptr = <char *>&b.hi_buf
    return True
