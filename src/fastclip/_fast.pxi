# The fast path: an ndarray of a kernel dtype straight to its loop, over any
# layout (csrc/walk.h), with scalar, array or where= operands.
# Part of fastclip/_ufunc.pyx (included there, in this order).

#: the bytes of freed results kept for reuse when FASTCLIP_REUSE_MIB is unset
#: (csrc/result_blocks.h): a 4K float64 image's result (66 MB) and then some,
#: twice what glibc keeps of its heap's free top (64 MiB at most)
REUSE_DEFAULT_MIB = 128


def _reuse_bytes_from_env():
    env = os.environ.get("FASTCLIP_REUSE_MIB", "").strip()
    if not env:
        return REUSE_DEFAULT_MIB << 20
    try:
        mib = int(env)
    except ValueError:
        mib = -1
    if mib < 0:
        raise ValueError(f"FASTCLIP_REUSE_MIB={env!r}: expected a whole number of MiB, "
                         f"0 or more (0: no reuse)")
    return mib << 20


fc_blocks_init(_reuse_bytes_from_env())
REUSE_MIN_BYTES = FC_BLOCK_MIN_BYTES


def set_reuse_bytes(npy_intp nbytes):
    """Keep up to nbytes of freed results for reuse (0: none); every block
    kept now is given back first."""
    if nbytes < 0:
        raise ValueError(f"set_reuse_bytes: expected 0 or more, got {nbytes}")
    fc_blocks_set_cap(<size_t>nbytes)


def reuse_cap_bytes():
    """The bytes of freed results kept at most (0: reuse is off)."""
    return fc_blocks_cap_bytes()


def reused_blocks():
    """(blocks kept, their bytes, results that took a kept block so far)."""
    cdef npy_intp count, nbytes, hits
    fc_blocks_stats(&count, &nbytes, &hits)
    return count, nbytes, hits


cdef object _new_result(ndarray a, cnp.dtype descr):
    """A new array for a's result, of type descr, laid out as np.clip lays
    out its own (C order for a C-contiguous a, else a's memory order, NumPy's
    K); from a block a freed result left when it is 16 MiB or more
    (csrc/result_blocks.h)."""
    cdef void *previous = fc_blocks_begin(cnp.PyArray_SIZE(a) * descr.itemsize)
    try:
        Py_INCREF(descr)        # both steal a reference
        if cnp.PyArray_IS_C_CONTIGUOUS(a):
            # without NewLikeArray's stride sorting
            return PyArray_NewFromDescr(&PyArray_Type, descr, cnp.PyArray_NDIM(a),
                                        cnp.PyArray_DIMS(a), NULL, NULL, 0, NULL)
        return PyArray_NewLikeArray(a, cnp.NPY_KEEPORDER, <void *>descr, 0)
    finally:
        fc_blocks_end(previous)


cdef void _extent(ndarray a, char **first, char **last) noexcept:
    """The lowest byte a's elements occupy, and one past the highest."""
    cdef int k
    cdef npy_intp span
    first[0] = <char *>cnp.PyArray_DATA(a)
    last[0] = first[0] + cnp.PyArray_ITEMSIZE(a)
    for k in range(cnp.PyArray_NDIM(a)):
        span = (cnp.PyArray_DIM(a, k) - 1) * cnp.PyArray_STRIDE(a, k)
        if span < 0:
            first[0] += span
        else:
            last[0] += span


cdef bint _overlaps_unevenly(ndarray x, const npy_intp *x_strides, ndarray out) noexcept:
    """True when operand x shares memory with out other than element for
    element (in place: the same data and, along each axis of out longer than
    1, the same stride; x_strides: x's along out's axes, 0 where it
    broadcasts). Conservative: compares extents."""
    cdef char *x_first
    cdef char *x_last
    cdef char *o_first
    cdef char *o_last
    cdef int k
    if cnp.PyArray_SIZE(x) == 0:
        return False
    if cnp.PyArray_DATA(x) == cnp.PyArray_DATA(out):
        for k in range(cnp.PyArray_NDIM(out)):
            if cnp.PyArray_DIM(out, k) > 1 and x_strides[k] != cnp.PyArray_STRIDE(out, k):
                return True
        return False
    _extent(x, &x_first, &x_last)
    _extent(out, &o_first, &o_last)
    return x_first < o_last and o_first < x_last


cdef inline bint _partly_overlap(ndarray a, ndarray out) noexcept:
    """_overlaps_unevenly for a and an out of its shape."""
    return _overlaps_unevenly(a, cnp.PyArray_STRIDES(a), out)


cdef object _mask_for(object where, ndarray a, ndarray res):
    """where= as a bool array of a's shape, or None (the call
    then goes NumPy's way). A mask that broadcasts is viewed at a's shape
    (stride 0 where it repeats); one that shares memory with out is left to
    NumPy's buffering."""
    cdef ndarray m
    cdef char *m_first
    cdef char *m_last
    cdef char *o_first
    cdef char *o_last
    if type(where) is not ndarray:
        return None
    m = <ndarray>where
    if (<cnp.dtype>cnp.PyArray_DESCR(m)).type_num != cnp.NPY_BOOL:
        return None
    if not cnp.PyArray_SAMESHAPE(m, a):
        try:
            m = np.broadcast_to(m, (<object>a).shape)
        except ValueError:
            return None     # NumPy raises its own error
    if cnp.PyArray_SIZE(a):
        _extent(m, &m_first, &m_last)
        _extent(res, &o_first, &o_last)
        if m_first < o_last and o_first < m_last:
            return None
    return m


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
    # (Hypothesis found it)
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
    their bits (tests/test_calls.py,
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


cdef bint _same_order(ndarray a, ndarray res) noexcept:
    """a and res contiguous in one memory order: then the walk's inner axis is
    the one NumPy's iterator picks, which decides, for bounds that repeat
    along it, between NumPy's scalar-bound and per-element loops (and so the
    bits of -0.0 ties and NaN payloads)."""
    return (cnp.PyArray_NDIM(a) <= 1 or
            (cnp.PyArray_IS_C_CONTIGUOUS(a) and cnp.PyArray_IS_C_CONTIGUOUS(res)) or
            (cnp.PyArray_IS_F_CONTIGUOUS(a) and cnp.PyArray_IS_F_CONTIGUOUS(res)))


cdef bint _all_in_order(ndarray a, object lo, object hi, bint c_order) noexcept:
    """a, and lo and hi where they are arrays, all contiguous in C (or F) order."""
    cdef object v
    for v in (a, lo, hi):
        if type(v) is ndarray and not (cnp.PyArray_IS_C_CONTIGUOUS(<ndarray>v) if c_order
                                        else cnp.PyArray_IS_F_CONTIGUOUS(<ndarray>v)):
            return False
    return True


cdef inline bint _prefers_numpy(fc_plan_t *plan, int row, int itemsize) noexcept:
    """csrc/walk.h's rule (short contiguous runs to NumPy's iterator), but
    for the int and IEEE float rows when the kernels have csrc/strided_rows.h,
    whose rows take those runs faster (at least STRIDED_ROWS_MIN_BYTES long)."""
    if (STRIDED_ROWS and ROW_KIND[row] in (KIND_INT, KIND_FLOAT)
            and plan.dims[plan.nd - 1] * itemsize >= STRIDED_ROWS_MIN_BYTES):
        return False
    return fc_plan_prefers_numpy(plan, itemsize)


cdef object _through_iterator(ndarray a, cnp.dtype descr, void *lo, void *hi, object out):
    """The same loop, walked by NumPy's iterator (whose buffering suits short
    runs close together, csrc/walk.h): the bounds, already converted exactly,
    as scalars of a's dtype, so the ufunc picks the same loop np.clip's
    argument handling would (no second pass through the argument rules)."""
    lo_s = PyArray_Scalar(lo, descr, None)
    hi_s = PyArray_Scalar(hi, descr, None)
    if out is None:
        return clip_ufunc(a, lo_s, hi_s)
    return clip_ufunc(a, lo_s, hi_s, out=out)


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


cdef inline bint _out_of_a_dtype(ndarray a, object out) noexcept:
    """out is None, or an exact ndarray of a's dtype (or an equivalent one):
    an out the kernel can write (clip's _route_of, _kernel_row)."""
    cdef cnp.dtype descr
    cdef cnp.dtype odescr
    if out is None:
        return True
    if type(out) is not ndarray:
        return False
    descr = <cnp.dtype>cnp.PyArray_DESCR(a)
    odescr = <cnp.dtype>cnp.PyArray_DESCR(<ndarray>out)
    return odescr is descr or cnp.PyArray_EquivTypes(odescr, descr)


cdef inline int _kernel_row(ndarray a, cnp.dtype descr, object out) noexcept:
    """a's row when the kernel can take a (a kernel dtype, native, aligned)
    and out (_out_of_a_dtype); else -1. An out of another dtype is decided
    before the bounds are converted, which _convert does again."""
    cdef int row
    if descr.type_num < 0 or descr.type_num >= 512:
        return -1
    row = ROW_BY_TYPENUM[descr.type_num]
    if row < 0 or not cnp.PyArray_ISNBO(descr.byteorder) or not cnp.PyArray_ISALIGNED(a):
        return -1
    return row if _out_of_a_dtype(a, out) else -1


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
        # x's NaN (found by the fuzzer, float8_e5m2 (6, 6, 6)).
        if ((b.lo_kind == BOUND_SCALAR and _is_nan_at(row, b.lo_ptr, True)) or
                (b.hi_kind == BOUND_SCALAR and _is_nan_at(row, b.hi_ptr, True))):
            return False
        if b.lo_kind == BOUND_REPEATING:
            b.lo_kind = BOUND_ARRAY
        if b.hi_kind == BOUND_REPEATING:
            b.hi_kind = BOUND_ARRAY
    return True


# how _fast makes a new result (_new_result_way)
cdef enum NewResult:
    NEW_DECLINED        # not at all: NumPy's way
    NEW_BY_ITERATOR     # the same loop, walked by NumPy's iterator
    NEW_BY_KERNEL       # a new array, written by the kernel


cdef NewResult _new_result_way(const FastBounds *b, int row, ndarray a, object a_min,
                               object a_max, object where,
                               const npy_intp **strides) noexcept:
    """How a call without out makes its result. NumPy's result takes the
    memory order of all its inputs (K order): with an array bound the kernel
    takes the call when they agree (and see _same_order); a's own strides
    otherwise tell the plan's shape, decided before allocating
    (csrc/walk.h)."""
    cdef fc_plan_t plan
    if b.lo_kind == BOUND_ARRAY or b.hi_kind == BOUND_ARRAY:
        if not (_all_in_order(a, a_min, a_max, True) or _all_in_order(a, a_min, a_max, False)):
            return NEW_DECLINED
    elif not (cnp.PyArray_IS_C_CONTIGUOUS(a) or cnp.PyArray_IS_F_CONTIGUOUS(a)):
        strides[FC_A] = strides[FC_OUT] = cnp.PyArray_STRIDES(a)
        fc_plan(&plan, cnp.PyArray_NDIM(a), cnp.PyArray_DIMS(a), strides)
        if where is None and not (MULTI_RUN_WALKS_TO_NUMPY and ROW_ML[row]) and (
                _prefers_numpy(&plan, row, cnp.PyArray_ITEMSIZE(a)) or
                (MULTI_RUN_WALKS_TO_NUMPY and plan.nd > 1)):
            return NEW_BY_ITERATOR
    return NEW_BY_KERNEL


cdef bint _out_takes(const FastBounds *b, ndarray a, object a_min, object a_max,
                     ndarray res) noexcept:
    """Whether the kernel can write res, an out of a's dtype: writeable,
    aligned, a's shape, and sharing memory with a only in place (each element
    is read before it is written; any other overlap needs NumPy's buffering),
    with array bounds likewise and in a's memory order."""
    if (not cnp.PyArray_ISWRITEABLE(res) or not cnp.PyArray_ISALIGNED(res)
            or not cnp.PyArray_SAMESHAPE(a, res) or _partly_overlap(a, res)):
        return False
    if b.lo_kind == BOUND_ARRAY or b.hi_kind == BOUND_ARRAY:
        if not _same_order(a, res):
            return False
        if ((b.lo_kind == BOUND_ARRAY and _overlaps_unevenly(<ndarray>a_min, b.lo_strides, res))
                or (b.hi_kind == BOUND_ARRAY
                    and _overlaps_unevenly(<ndarray>a_max, b.hi_strides, res))):
            return False
    return True


cdef object _fast(ndarray a, object a_min, object a_max, object out, object where=None):
    """Clip through the kernel directly, or return NotImplemented to say the
    call needs NumPy's way. where: None, or a where= mask (a result array
    given as out)."""
    cdef cnp.dtype descr = <cnp.dtype>cnp.PyArray_DESCR(a)
    cdef int row = _kernel_row(a, descr, out)
    cdef FastBounds b
    cdef const npy_intp *strides[FC_OPERANDS]
    cdef NewResult way
    cdef ndarray res
    cdef ndarray mask = None
    if row < 0 or not _take_bounds(&b, row, descr, a, a_min, a_max):
        return NotImplemented
    strides[FC_LO] = b.lo_strides if b.lo_kind == BOUND_ARRAY else NULL
    strides[FC_HI] = b.hi_strides if b.hi_kind == BOUND_ARRAY else NULL
    strides[FC_MASK] = NULL
    if out is None:
        way = _new_result_way(&b, row, a, a_min, a_max, where, strides)
        if way == NEW_DECLINED:
            return NotImplemented
        if way == NEW_BY_ITERATOR:
            return _through_iterator(a, descr, &b.lo_buf, &b.hi_buf, None)
        res = _new_result(a, descr)
    else:
        res = <ndarray>out
        if not _out_takes(&b, a, a_min, a_max, res):
            return NotImplemented
    if where is not None:
        mask = _mask_for(where, a, res)
        if mask is None:
            return NotImplemented
        strides[FC_MASK] = cnp.PyArray_STRIDES(mask)
    result = _run(&b, row, descr, a, res, mask, out is None, strides)
    if result is res and out is None and cnp.PyArray_NDIM(res) == 0:
        return res[()]          # a ufunc returns a scalar for 0-d input
    return result


cdef inline object _run(FastBounds *b, int row, cnp.dtype descr, ndarray a, ndarray res,
                 ndarray mask, bint fresh_result, const npy_intp **strides):
    """The kernel over a into res: res, or where the walk leaves the call to
    NumPy's iterator, its result (or NotImplemented)."""
    cdef npy_intp size = cnp.PyArray_SIZE(a)
    cdef npy_intp steps[4]
    cdef char *args[4]
    cdef void *fresh
    cdef fc_plan_t plan
    cdef int threads = 1
    cdef char *mask_data = NULL
    cdef fc_masked_t masked = NULL
    cdef bint scalar_bounds = b.lo_kind == BOUND_SCALAR and b.hi_kind == BOUND_SCALAR
    args[0] = <char *>cnp.PyArray_DATA(a)
    args[1] = b.lo_ptr
    args[2] = b.hi_ptr
    args[3] = <char *>cnp.PyArray_DATA(res)
    if size == 0:
        return res
    if (mask is None and scalar_bounds and
            (cnp.PyArray_NDIM(a) <= 1 or _same_order(a, res))):
        # The common call, one run: the loop directly (the plan and the walk
        # cost a small call a third more).
        steps[0] = cnp.PyArray_STRIDE(a, 0) if cnp.PyArray_NDIM(a) == 1 else descr.itemsize
        steps[1] = steps[2] = 0
        steps[3] = cnp.PyArray_STRIDE(res, 0) if cnp.PyArray_NDIM(a) == 1 else descr.itemsize
        # a new result is written without streaming stores (stream.h says
        # why), unless it took a kept block (whose pages the loop probes)
        fresh = (FC_FRESH_OUTPUT if fresh_result and size * descr.itemsize < FC_BLOCK_MIN_BYTES
                 else NULL)
        if size < GIL_RELEASE_THRESHOLD:
            LOOPS[row](args, &size, steps, fresh)
        else:
            with nogil:
                LOOPS[row](args, &size, steps, fresh)   # the loop splits a large run itself
        return res
    # runs along the output's smallest stride, dimensions merged where they
    # can be (csrc/walk.h)
    strides[FC_A] = cnp.PyArray_STRIDES(a)
    strides[FC_OUT] = cnp.PyArray_STRIDES(res)
    fc_plan(&plan, cnp.PyArray_NDIM(a), cnp.PyArray_DIMS(a), strides)
    if MULTI_RUN_WALKS_TO_NUMPY and plan.nd > 1 and not (ROW_ML[row] and scalar_bounds):
        if mask is None and scalar_bounds:
            return _through_iterator(a, descr, &b.lo_buf, &b.hi_buf, res)
        return NotImplemented
    if (mask is None and scalar_bounds and not (MULTI_RUN_WALKS_TO_NUMPY and ROW_ML[row])
            and _prefers_numpy(&plan, row, descr.itemsize)):
        return _through_iterator(a, descr, &b.lo_buf, &b.hi_buf, res)
    if mask is not None:
        masked = MASKED_ROWS[row]
        mask_data = <char *>cnp.PyArray_DATA(mask)
    if size < GIL_RELEASE_THRESHOLD:
        fc_walk(&plan, LOOPS[row], ROWS[row], masked, descr.itemsize, args, mask_data, 1)
    else:
        # several runs are shared among threads by the rule of one long run,
        # which the loop splits itself
        if plan.nd > 1:
            threads = _kernels.threads_for_bytes(size * descr.itemsize)
        with nogil:
            fc_walk(&plan, LOOPS[row], ROWS[row], masked, descr.itemsize, args, mask_data,
                    threads)
    return res
