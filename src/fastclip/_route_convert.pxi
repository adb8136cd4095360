# Route: an out of another dtype. The fused clip-and-convert loops (csrc/
# convert.h) where the dtype table has the pair, else the clip into a
# temporary of x's dtype and NumPy's cast (_into_other_dtype).
# Part of fastclip/_ufunc.pyx (included there, in this order).

def _rounding_probe(dst):
    """Doubles inside dst's finite range on which the ML_ROUNDINGS differ: the
    halfway points between neighbouring finite values of dst (each for a
    float8, a sample for bfloat16) and doubles just off them, which a float32
    rounds onto them."""
    n = 1 << (8 * dst.itemsize)
    patterns = np.arange(n // 2, dtype=np.uint32)       # the positive values
    if n > 256:
        patterns = np.concatenate([patterns[:256], patterns[256::61]])
    with np.errstate(invalid="ignore"):
        v = patterns.astype(f"u{dst.itemsize}").view(dst).astype(np.float64)
    v = np.unique(v[np.isfinite(v)])
    mid = (v[: v.size - 1] + v[1:]) / 2
    x = np.concatenate([mid, mid * (1 + 2.0**-30), mid * (1 - 2.0**-30)])
    return np.concatenate([x, -x])


cdef bint _rounds_as_cast(int k, cnp.dtype dst) except -1:
    """Whether fused loop k (float64 into dst) gives ml_dtypes' cast of each
    double of _rounding_probe(dst), bit for bit."""
    cdef ndarray x = _rounding_probe(dst)
    cdef ndarray o = np.empty((<object>x).shape, dst)
    cdef double lo, hi
    lo, hi = finite_range(dst)
    if CONVERT.run(k, <char *>cnp.PyArray_DATA(x), <char *>cnp.PyArray_DATA(o),
                   cnp.PyArray_SIZE(x), &lo, &hi):
        return False
    unsigned = f"u{dst.itemsize}"
    return bool((o.view(unsigned) == x.astype(dst).view(unsigned)).all())


def _conversion_index():
    """(source type number, destination type number) -> the index of its
    fused loop in conversion_loops() (fastclip/_dtypes.py), and (source,
    destination) -> the rounding kept for a float64 -> ml_dtypes pair (the
    loop that rounds as the installed ml_dtypes casts; None: neither does,
    and the pair is left out, to NumPy's clip and ml_dtypes' cast)."""
    rows = {row.name: row for row in DTYPES}
    index, rounding = {}, {}
    for k, (src, dst, how) in enumerate(conversion_loops()):
        src_dtype, dst_dtype = numpy_dtype(rows[src]), numpy_dtype(rows[dst])
        key = (src_dtype.num, dst_dtype.num)
        if how is not None:
            rounding.setdefault((src, dst), None)
            if key in index or not _rounds_as_cast(k, dst_dtype):
                continue
            rounding[(src, dst)] = how
        index[key] = k
    return index, rounding


def _widening_index():
    """(source type number, wide type number) -> the index of the pair's
    widening loop (fastclip/_dtypes.py WIDENINGS), after the conversions';
    (source, wide, destination type numbers) -> that of the triple's loop
    of WIDENINGS_INTO, after those."""
    rows = {row.name: row for row in DTYPES}
    num = lambda name: numpy_dtype(rows[name]).num
    first = len(conversion_loops())
    pairs = {(num(src), num(wide)): first + j for j, (src, wide) in enumerate(WIDENINGS)}
    first += len(WIDENINGS)
    triples = {(num(src), num(wide), num(dst)): first + j
               for j, (src, wide, dst) in enumerate(WIDENINGS_INTO)}
    return pairs, triples


WIDENING_INDEX, WIDENING_INTO_INDEX = _widening_index()


#: CONVERSION_INDEX: (source, destination type numbers) -> fused loop index;
#: ML_ROUNDING: (source, destination) -> the rounding of a float64 ->
#: ml_dtypes loop in use, None where no loop rounds as ml_dtypes casts
CONVERSION_INDEX, ML_ROUNDING = _conversion_index()

# The same as C tables, for _convert_into: the fused loop by (source row,
# destination row), -1 for none, and per loop and casting rule
# (_CASTING_NAMES) whether NumPy lets the loop's output cast into out, -1
# until asked (a dict lookup of a built tuple key, twice a call, is a large
# share of a small call). Each entry is a pure
# function of its place: threads filling one store equal bytes.
cdef int CONVERSION_BY_ROWS[32][32]
cdef signed char CASTING_OK[512][5]
#: NumPy's casting rules, a code each (CASTING_OK's second index)
cdef tuple _CASTING_NAMES = ("no", "equiv", "safe", "same_kind", "unsafe")
for _i in range(32):
    for _j in range(32):
        CONVERSION_BY_ROWS[_i][_j] = -1
for (_src, _dst), _k in CONVERSION_INDEX.items():
    assert _k < 512, "CASTING_OK is too small for the fused loops"
    CONVERSION_BY_ROWS[_row_of_num(_src)][_row_of_num(_dst)] = _k
for _k in range(512):
    for _j in range(5):
        CASTING_OK[_k][_j] = -1
# WIDENING_INDEX and WIDENING_INTO_INDEX by rows, for the same reason: the
# widening loop by (source row, wide row), the triple's fused loop by
# (source row, wide row, destination row), -1 for none
cdef int WIDENING_BY_ROWS[32][32]
cdef int WIDENING_INTO_BY_ROWS[32][32][32]
for _i in range(32):
    for _j in range(32):
        WIDENING_BY_ROWS[_i][_j] = -1
        for _k in range(32):
            WIDENING_INTO_BY_ROWS[_i][_j][_k] = -1
for (_src, _wide), _k in WIDENING_INDEX.items():
    WIDENING_BY_ROWS[_row_of_num(_src)][_row_of_num(_wide)] = _k
for (_src, _wide, _dst), _k in WIDENING_INTO_INDEX.items():
    WIDENING_INTO_BY_ROWS[_row_of_num(_src)][_row_of_num(_wide)][_row_of_num(_dst)] = _k


#: per fused loop, whether a value its source holds as normal can be tiny
#: (subnormal or zero) in its destination, a float narrowing: NumPy's cast
#: then sets the underflow flag, and np.clip warns or raises as np.errstate's
#: `under` says ("underflow encountered in clip": float64 1e-300 into
#: float32, float32 1e-8 into float16; ignored by default). Such a loop runs
#: only where underflow is ignored (_underflow_ignored); else NumPy's clip
#: and cast, which report it.
cdef bint MAY_UNDERFLOW[512]


def _may_underflow():
    import ml_dtypes
    rows = {row.name: row for row in DTYPES}
    floats = ("float", "half", "bfloat16", "float8")
    for k, (src, dst, _) in enumerate(conversion_loops()):
        MAY_UNDERFLOW[k] = (rows[src].kind in floats and rows[dst].kind in floats
                            and ml_dtypes.finfo(numpy_dtype(rows[dst])).smallest_normal
                            > ml_dtypes.finfo(numpy_dtype(rows[src])).smallest_subnormal)


_may_underflow()

#: NumPy's error state (np.errstate, np.seterr): a context variable whose
#: value is a new object for each state (NumPy 2's _ufunc_config.py); a C
#: global, not a module one (two dict lookups a call)
cdef object _ERRSTATE = getattr(np._core._multiarray_umath, "_extobj_contextvar", None)
#: (the error state last read, whether its `under` was "ignore"): one
#: object, replaced whole, so that no thread reads one state's answer for
#: another's
cdef tuple _UNDERFLOW_SEEN = (None, True)


cdef bint _underflow_ignored() except -1:
    """Whether np.errstate ignores underflow (its default): a context
    variable's read where the state is the one last read (a tenth of its
    .get()'s instructions), np.geterr() where not."""
    global _UNDERFLOW_SEEN
    if _ERRSTATE is None:
        return np.geterr()["under"] == "ignore"
    state = contextvar_value(_ERRSTATE)
    seen = _UNDERFLOW_SEEN
    if seen[0] is not state:
        # the state is held in the tuple: its identity cannot be reused
        seen = _UNDERFLOW_SEEN = (state, np.geterr()["under"] == "ignore")
    return seen[1]


cdef inline int _casting_code(object casting):
    """casting's place in _CASTING_NAMES, or -1 (not a str, or no rule).
    A literal in the caller's code is the same interned str: identity first."""
    cdef int code
    if type(casting) is not str:
        return -1
    for code in range(5):
        if casting is _CASTING_NAMES[code]:
            return code
    for code in range(5):
        if casting == _CASTING_NAMES[code]:
            return code
    return -1
#: casting rules under which a Python-number bound converts to any dtype
_CASTS_ANY_SCALAR = frozenset(("same_kind", "unsafe"))


cdef int _conversion_allowed(int k, cnp.dtype src, cnp.dtype dst, object casting) except -1:
    """np.can_cast(src, dst, casting), src -> dst being conversion k, kept in
    CASTING_OK; 0 too for a casting that names no rule (NumPy's error, its way)."""
    cdef int code = _casting_code(casting)
    cdef int ok
    if code < 0:
        return 0
    ok = CASTING_OK[k][code]
    if ok < 0:
        ok = bool(np.can_cast(src, dst, casting))
        CASTING_OK[k][code] = ok
    return ok


cdef object _convert_route(ndarray a, object a_min, object a_max, ndarray out, dict kwargs):
    """An out of another dtype (keywords: casting=, where=): clip and convert
    in one pass (_convert_into); without where=, a call the fused loop does
    not take by _into_other_dtype. Else NumPy's argument rules
    (_ndarray_route). The bounds are converted once (_scalar_bounds) for
    each of these."""
    cdef FastBounds b
    cdef FastBounds *scalars = &b if _scalar_bounds(&b, a, a_min, a_max) else NULL
    casting = kwargs.get("casting", "same_kind")
    if "where" in kwargs:
        if _convert_into(a, scalars, out, casting, kwargs["where"]):
            return out
    elif _convert_into(a, scalars, out, casting):
        return out
    elif _into_other_takes(a, scalars, a_min, a_max, out, casting):
        return _into_other_dtype(a, scalars, a_min, a_max, out, casting)
    return _ndarray_route(a, a_min, a_max, out, kwargs)


cdef inline int _conversion_loop(ndarray a, const FastBounds *b, ndarray out,
                                 object casting) except -2:
    """The fused loop that takes np.clip(a, a_min, a_max, out=out,
    casting=casting), b its bounds (_scalar_bounds; NULL: not both scalars),
    or -1: a pair of CONVERSION_INDEX that casting allows, both native,
    aligned, contiguous and of one shape, out writeable and apart from a, no
    underflow that NumPy's errstate would see, bounds whose conversions are
    in the destination's range."""
    cdef cnp.dtype descr = <cnp.dtype>cnp.PyArray_DESCR(a)
    cdef cnp.dtype odescr = <cnp.dtype>cnp.PyArray_DESCR(out)
    cdef int row = _row_of(descr), out_row = _row_of(odescr)
    cdef int k = CONVERSION_BY_ROWS[row][out_row] if row >= 0 and out_row >= 0 else -1
    if (b != NULL and k >= 0
            and cnp.PyArray_ISNBO(descr.byteorder) and cnp.PyArray_ISNBO(odescr.byteorder)
            and cnp.PyArray_IS_C_CONTIGUOUS(a) and cnp.PyArray_IS_C_CONTIGUOUS(out)
            and cnp.PyArray_ISALIGNED(a) and cnp.PyArray_ISALIGNED(out)
            and cnp.PyArray_ISWRITEABLE(out) and cnp.PyArray_SAMESHAPE(a, out)
            and _conversion_allowed(k, descr, odescr, casting)
            and not (MAY_UNDERFLOW[k] and not _underflow_ignored())
            and CONVERT.in_range(k, &b.lo_buf, &b.hi_buf)
            and not _extents_overlap(a, out)):         # NumPy buffers
        return k
    return -1


cdef const unsigned char *_conversion_mask(object where, ndarray a, ndarray out) noexcept:
    """where='s data where the fused masked loop takes it: a contiguous bool
    array of a's shape, apart from out; else NULL."""
    if not (type(where) is ndarray
            and (<cnp.dtype>cnp.PyArray_DESCR(<ndarray>where)).type_num == cnp.NPY_BOOL
            and cnp.PyArray_IS_C_CONTIGUOUS(<ndarray>where)
            and cnp.PyArray_SAMESHAPE(a, <ndarray>where)
            and not _extents_overlap(<ndarray>where, out)):
        return NULL
    return <const unsigned char *>cnp.PyArray_DATA(<ndarray>where)


cdef bint _convert_into(ndarray a, const FastBounds *b, ndarray out, object casting,
                        object where=None) except -1:
    """np.clip(a, a_min, a_max, out=out, casting=casting) with out of another
    dtype, b the bounds (_scalar_bounds; NULL: not both scalars), in one pass
    (csrc/convert.h): whether it wrote out, which it does where the fused
    loop takes the call (_conversion_loop) and meets no NaN in a (NumPy's
    clip and cast rewrite every element then). With where (not None), the
    same with where=where, the mask as _conversion_mask takes it: out
    written only where it is set."""
    cdef int k = _conversion_loop(a, b, out, casting)
    cdef npy_intp n = cnp.PyArray_SIZE(a)
    cdef const char *px = <const char *>cnp.PyArray_DATA(a)
    cdef char *po = <char *>cnp.PyArray_DATA(out)
    cdef const unsigned char *pm = NULL
    cdef int nan
    if k < 0:
        return False
    if where is not None:
        pm = _conversion_mask(where, a, out)
        if pm == NULL:
            return False
        if n < GIL_RELEASE_THRESHOLD:
            nan = CONVERT.run_masked(k, px, po, pm, n, &b.lo_buf, &b.hi_buf)
        else:
            with nogil:
                nan = CONVERT.run_masked(k, px, po, pm, n, &b.lo_buf, &b.hi_buf)
    elif n < GIL_RELEASE_THRESHOLD:
        nan = CONVERT.run(k, px, po, n, &b.lo_buf, &b.hi_buf)
    else:
        with nogil:
            nan = CONVERT.run(k, px, po, n, &b.lo_buf, &b.hi_buf)
    return not nan



cdef bint _convert_bounds_into(ndarray a, object a_min, object a_max, ndarray out, object casting,
                               object where=None) except -1:
    """_convert_into for a caller that needs the bounds for nothing else: they
    are converted here (_scalar_bounds); whether it wrote out."""
    cdef FastBounds b
    return _scalar_bounds(&b, a, a_min, a_max) and _convert_into(a, &b, out, casting, where)

#: (a's type number, out's, casting) -> whether np.can_cast(a, out, casting)
#: with a safe cast: a value-preserving widening, clipped first, then copied
cdef dict _SAFE_WIDENING = {}


cdef object _into_other_dtype(ndarray a, FastBounds *b, object a_min, object a_max,
                              ndarray out, object casting):
    """np.clip(a, a_min, a_max, out=out) with out of a dtype pair that
    _convert_into does not fuse, and scalar bounds the fast path takes
    (_into_other_takes). NumPy picks the loop from the inputs alone (outputs
    take no part in its dispatch unless signature= names them), clips in a's
    dtype and casts into out. A widening that casting allows:
    _clip_then_widen. Any other pair: fastclip's ufunc, without
    _numpy_rules_call's argument rules, which these bounds do not need and which
    cost more than the call."""
    if _clip_then_widen(a, b, out, casting):
        return out
    try:
        return clip_ufunc(a, a_min, a_max, out=out, casting=casting)
    except TypeError:
        # as _ndarray_route: NumPy's _wrapfunc calls again after a TypeError,
        # which raises it again (and repeats any warning)
        return clip_ufunc(a, a_min, a_max, out=out, casting=casting)


cdef bint _into_other_takes(ndarray a, const FastBounds *b, object a_min, object a_max,
                            ndarray out, object casting) except -1:
    """Whether _into_other_dtype takes the call: a's row a kernel one (not
    ml_dtypes'), out of another dtype, both bounds into a's type exactly (b:
    _scalar_bounds, not NULL), a casting that names a rule (else NumPy's
    error, its way), and no bound NumPy drops (np.minimum/maximum, their
    errors)."""
    cdef cnp.dtype descr = <cnp.dtype>cnp.PyArray_DESCR(a)
    cdef int row = _row_of(descr)
    return (b != NULL and row >= 0
            and descr.type_num != (<cnp.dtype>cnp.PyArray_DESCR(out)).type_num
            and not ROW_ML[row]
            and _casting_code(casting) >= 0
            and not _has_dropped_int_bound(row, a_min, a_max))


cdef bint _clip_then_widen(ndarray a, FastBounds *b, ndarray out, object casting) except -1:
    """For a call _into_other_takes (b its bounds), into an out whose dtype a
    widens into safely (_clip_then_widen_takes): the fast path into a new
    array, then np.copyto; whether it wrote out (not for a 0-d a, which
    clips to a NumPy scalar, nor a signaling NaN: _widen_copy)."""
    cdef int row = _row_of(<cnp.dtype>cnp.PyArray_DESCR(a))
    if not _clip_then_widen_takes(a, out, casting):
        return False
    clipped = _fast(a, None, None, None, None, b)
    return type(clipped) is ndarray and _widen_copy(out, <ndarray>clipped, row)


cdef bint _clip_then_widen_takes(ndarray a, ndarray out, object casting) except -1:
    """Whether out, writeable and of a's shape, has a dtype that is a
    value-preserving widening of a's (native byte orders) that casting (a
    valid name) allows: _SAFE_WIDENING, filled as met."""
    cdef cnp.dtype descr = <cnp.dtype>cnp.PyArray_DESCR(a)
    cdef cnp.dtype odescr = <cnp.dtype>cnp.PyArray_DESCR(out)
    if not (cnp.PyArray_ISWRITEABLE(out) and cnp.PyArray_SAMESHAPE(a, out)):
        return False
    key = (descr.type_num, odescr.type_num, casting)
    widening = _SAFE_WIDENING.get(key)
    if widening is None:
        widening = _SAFE_WIDENING[key] = bool(
            descr.type_num != odescr.type_num
            and cnp.PyArray_ISNBO(descr.byteorder) and cnp.PyArray_ISNBO(odescr.byteorder)
            and np.can_cast(descr, odescr, "safe") and np.can_cast(descr, odescr, casting))
    return widening


#: a float source up to this many elements is scanned for a signaling NaN
#: before its cast; a larger one is cast under np.errstate(invalid="raise"),
#: whose fixed cost is then smaller than the scan
cdef npy_intp SNAN_SCAN_MAX = 4096


cdef bint _widen_copy(ndarray dst, ndarray src, int row):
    """np.copyto(dst, src), a safe widening of src (of row row), or False
    where src holds a signaling NaN: its cast raises FE_INVALID, which
    np.clip reports as "invalid value encountered in clip" and np.copyto as
    "... in cast", so the caller leaves such a call to the ufunc (dst may be
    partly written then; the ufunc writes all of it)."""
    if ROW_KIND[row] not in (KIND_FLOAT, KIND_HALF):
        np.copyto(dst, src, casting="safe")
        return True
    if (cnp.PyArray_SIZE(src) <= SNAN_SCAN_MAX
            and (cnp.PyArray_IS_C_CONTIGUOUS(src) or cnp.PyArray_IS_F_CONTIGUOUS(src))):
        if fc_has_signaling_nan(cnp.PyArray_DATA(src), cnp.PyArray_SIZE(src), ROW_ITEMSIZE[row]):
            return False
        np.copyto(dst, src, casting="safe")
        return True
    try:
        with np.errstate(invalid="raise"):
            np.copyto(dst, src, casting="safe")
    except FloatingPointError:
        return False
    return True
