# Every other call on an ndarray: outs of another dtype (fused, or clipped
# then cast), results wider than the array (cast, then clipped), and NumPy's
# argument rules for the rest.
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

# The same as C tables, for _convert: the fused loop by (source row,
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
    CONVERSION_BY_ROWS[ROW_BY_TYPENUM[_src]][ROW_BY_TYPENUM[_dst]] = _k
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
    WIDENING_BY_ROWS[ROW_BY_TYPENUM[_src]][ROW_BY_TYPENUM[_wide]] = _k
for (_src, _wide, _dst), _k in WIDENING_INTO_INDEX.items():
    WIDENING_INTO_BY_ROWS[ROW_BY_TYPENUM[_src]][ROW_BY_TYPENUM[_wide]][ROW_BY_TYPENUM[_dst]] = _k


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


cdef object _convert(ndarray a, object a_min, object a_max, ndarray out, object casting,
                     object where=None):
    """np.clip(a, a_min, a_max, out=out, casting=casting) with out of another
    dtype, in one pass (csrc/convert.h), or NotImplemented (NumPy's clip and
    cast): a pair of CONVERSION_INDEX, both contiguous, scalar bounds whose
    conversions are in the destination's range, and no NaN met in a. With
    where (not None), the same with where=where: a contiguous bool array of
    a's shape, out written only where it is set."""
    cdef cnp.dtype descr = <cnp.dtype>cnp.PyArray_DESCR(a)
    cdef cnp.dtype odescr = <cnp.dtype>cnp.PyArray_DESCR(out)
    cdef unsigned long long lo_buf = 0, hi_buf = 0
    cdef int k, row, out_row, nan
    cdef npy_intp n
    cdef char *px
    cdef char *po
    cdef const unsigned char *pm = NULL
    if not (0 <= descr.type_num < 512 and 0 <= odescr.type_num < 512):
        return NotImplemented
    row = ROW_BY_TYPENUM[descr.type_num]
    out_row = ROW_BY_TYPENUM[odescr.type_num]
    if row < 0 or out_row < 0:
        return NotImplemented
    k = CONVERSION_BY_ROWS[row][out_row]
    if k < 0:
        return NotImplemented
    if not (cnp.PyArray_ISNBO(descr.byteorder) and cnp.PyArray_ISNBO(odescr.byteorder)
            and cnp.PyArray_IS_C_CONTIGUOUS(a) and cnp.PyArray_IS_C_CONTIGUOUS(out)
            and cnp.PyArray_ISALIGNED(a) and cnp.PyArray_ISALIGNED(out)
            and cnp.PyArray_ISWRITEABLE(out) and cnp.PyArray_SAMESHAPE(a, out)):
        return NotImplemented
    if not _conversion_allowed(k, descr, odescr, casting):
        return NotImplemented
    if MAY_UNDERFLOW[k] and not _underflow_ignored():
        return NotImplemented
    if not (_bound_to_c(row, a_min, &lo_buf) and _bound_to_c(row, a_max, &hi_buf)):
        return NotImplemented
    if not CONVERT.in_range(k, &lo_buf, &hi_buf):
        return NotImplemented
    n = cnp.PyArray_SIZE(a)
    px = <char *>cnp.PyArray_DATA(a)
    po = <char *>cnp.PyArray_DATA(out)
    if n and px < po + n * odescr.itemsize and po < px + n * descr.itemsize:
        return NotImplemented                   # out overlaps a: NumPy buffers
    if where is not None:
        if not (type(where) is ndarray
                and (<cnp.dtype>cnp.PyArray_DESCR(<ndarray>where)).type_num == cnp.NPY_BOOL
                and cnp.PyArray_IS_C_CONTIGUOUS(<ndarray>where)
                and cnp.PyArray_SAMESHAPE(a, <ndarray>where)):
            return NotImplemented
        pm = <const unsigned char *>cnp.PyArray_DATA(<ndarray>where)
        if n and <const char *>pm < po + n * odescr.itemsize and po < <const char *>pm + n:
            return NotImplemented               # out overlaps the mask
        if n < GIL_RELEASE_THRESHOLD:
            nan = CONVERT.run_masked(k, px, po, pm, n, &lo_buf, &hi_buf)
        else:
            with nogil:
                nan = CONVERT.run_masked(k, px, po, pm, n, &lo_buf, &hi_buf)
    elif n < GIL_RELEASE_THRESHOLD:
        nan = CONVERT.run(k, px, po, n, &lo_buf, &hi_buf)
    else:
        with nogil:
            nan = CONVERT.run(k, px, po, n, &lo_buf, &hi_buf)
    if nan:
        return NotImplemented                   # NumPy rewrites every element
    return out


#: (a's type number, out's, casting) -> whether np.can_cast(a, out, casting)
#: with a safe cast: a value-preserving widening, clipped first, then copied
cdef dict _SAFE_WIDENING = {}


cdef object _into_other_dtype(ndarray a, object a_min, object a_max, ndarray out,
                              object casting, bint ufunc_after=True):
    """np.clip(a, a_min, a_max, out=out) with out of a dtype pair that
    _convert does not fuse, and scalar bounds the fast path takes. NumPy
    picks the loop from the inputs alone (outputs take no part in its
    dispatch unless signature= names them), clips in a's dtype and casts into
    out. A widening that casting allows: the fast path into a new array, then
    np.copyto. Any other pair: fastclip's ufunc, without _numpy_rules's argument
    rules, which these bounds do not need and which cost more than the call
    (not ufunc_after: NotImplemented instead, for _one_sided)."""
    cdef cnp.dtype descr = <cnp.dtype>cnp.PyArray_DESCR(a)
    cdef cnp.dtype odescr = <cnp.dtype>cnp.PyArray_DESCR(out)
    cdef unsigned long long buf = 0
    cdef int row
    if not 0 <= descr.type_num < 512 or descr.type_num == odescr.type_num:
        return NotImplemented
    row = ROW_BY_TYPENUM[descr.type_num]
    if row < 0 or ROW_ML[row] or not (_bound_to_c(row, a_min, &buf)
                                      and _bound_to_c(row, a_max, &buf)):
        return NotImplemented
    if _casting_code(casting) < 0:
        return NotImplemented                   # NumPy's error, its way
    if _drops_int_bound(row, a_min, a_max):
        return NotImplemented   # NumPy drops the bound: np.minimum/maximum, their errors
    if _can_widen_into(a, out, casting):
        clipped = _fast(a, a_min, a_max, None)
        # a 0-d a clips to a NumPy scalar, not an array: the ufunc's call
        if type(clipped) is ndarray and _widen_into(out, <ndarray>clipped, row):
            return out
    if not ufunc_after:
        return NotImplemented
    try:
        return clip_ufunc(a, a_min, a_max, out=out, casting=casting)
    except TypeError:
        # as _numpy_rules.clip: NumPy's _wrapfunc calls again after a TypeError,
        # which raises it again (and repeats any warning)
        return clip_ufunc(a, a_min, a_max, out=out, casting=casting)


cdef bint _can_widen_into(ndarray a, ndarray out, object casting) except -1:
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


cdef bint _widen_into(ndarray dst, ndarray src, int row):
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


cdef inline bint _drops_int_bound(int row, object a_min, object a_max):
    """numpy/_core/_methods.py::_clip: an integer array drops a Python int
    bound at or beyond its dtype's range (NEP 50: no value-based casting)."""
    if ROW_KIND[row] != KIND_INT:
        return False
    lo, hi = <tuple>ROW_INT_RANGE[row]
    return (type(a_min) is int and a_min <= lo) or (type(a_max) is int and a_max >= hi)


cdef tuple _drop_int_bounds(int row, object a_min, object a_max):
    """(a_min, a_max) with the Python int bounds _drops_int_bound finds
    made None, as numpy/_core/_methods.py::_clip makes them."""
    lo, hi = <tuple>ROW_INT_RANGE[row]
    if type(a_min) is int and a_min <= lo:
        a_min = None
    if type(a_max) is int and a_max >= hi:
        a_max = None
    return a_min, a_max


cdef bint _operand_has_loop(object v):
    """A bound that fastclip's ufunc resolves like NumPy's clip: a Python
    number, or a NumPy scalar or array of a kernel dtype other than the
    ml_dtypes formats (mixed with other dtypes NumPy has no clip loop for
    them and promotes, where fastclip's ufunc would pick their loop; a
    Python int beyond int64/uint64 makes NumPy take its object loop)."""
    cdef type tv = type(v)
    cdef int num
    if tv is float or tv is bool:
        return True
    if tv is int:
        return -2**63 <= v < 2**64      # beyond: NumPy's object loop
    # the common kinds first, without isinstance's tuple and v.dtype's lookup
    if tv is ndarray:
        num = (<cnp.dtype>cnp.PyArray_DESCR(<ndarray>v)).type_num
        return 0 <= num < 512 and ROW_BY_TYPENUM[num] >= 0 and not ROW_ML[ROW_BY_TYPENUM[num]]
    if tv in SCALAR_ROWS:
        return True                     # a kernel row's scalar, not ml_dtypes'
    if isinstance(v, (ndarray, np.generic)):
        num = (<cnp.dtype>v.dtype).type_num
        return 0 <= num < 512 and ROW_BY_TYPENUM[num] >= 0 and not ROW_ML[ROW_BY_TYPENUM[num]]
    return False


cpdef bint keeps_own_dtype(cnp.dtype dtype, object a_min, object a_max, object out,
                           dict kwargs):
    """docs/semantics.rst, the bfloat16/float8 rule: whether a bfloat16 or
    float8 array of this dtype keeps it: each bound a Python int/float, a
    scalar or array of that format, or None, and no other computation asked
    for (dtype=, signature=, an out of another format). Formats are told
    apart by type number, which both byte orders share."""
    cdef int num = dtype.type_num
    if "dtype" in kwargs or "signature" in kwargs:
        return False
    if out is not None and not (isinstance(out, ndarray)
                                and (<cnp.dtype>out.dtype).type_num == num):
        return False
    for b in (a_min, a_max):
        if not (b is None or type(b) is int or type(b) is float
                or (isinstance(b, (ndarray, np.generic))
                    and (<cnp.dtype>b.dtype).type_num == num)):
            return False
    return True


#: (a's type number, bound keys, dtype=) -> the dtype of np.clip's loop when
#: it is wider than a's and _widened takes the call, else None
_WIDER_LOOP = {}


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


cdef object _widened(ndarray a, object a_min, object a_max, object dtype, ndarray out,
                     object casting="same_kind"):
    """np.clip whose loop is of a wider dtype than a's: float32 x with
    np.float64 scalar bounds, an int x with Python float bounds, dtype=
    float64, a float16 or bfloat16 x with float32 array bounds. NumPy casts x
    into the loop's dtype as its iterator goes and clips there; so does this,
    into a new array of np.clip's layout. Scalar bounds: cast and clipped in
    one pass (csrc/widen.h) where a and the result are contiguous, else cast
    by np.copyto (a safe cast: exact, or int64 into float64 rounded as NumPy
    rounds it) and clipped by the fast path in place; with out (of exactly
    the loop's dtype, laid out like the result would be, apart from a), into
    out. Array bounds: see _widened_by_array_bounds. NotImplemented for
    anything else."""
    cdef cnp.dtype descr = <cnp.dtype>cnp.PyArray_DESCR(a)
    cdef int row = ROW_BY_TYPENUM[descr.type_num], wide_row
    if cnp.PyArray_NDIM(a) == 0 or not cnp.PyArray_ISNBO(descr.byteorder):
        return NotImplemented
    k_lo, k_hi = _bound_key(a_min), _bound_key(a_max)
    if k_lo is None or k_hi is None:
        if out is None and dtype is None:
            return _widened_by_array_bounds(a, a_min, a_max)
        return NotImplemented
    wide = _cached_wider_loop(descr, k_lo, k_hi, dtype)
    if wide is None:
        return NotImplemented
    wide_row = ROW_BY_TYPENUM[(<cnp.dtype>wide).type_num]
    int_source = ROW_KIND[row] == KIND_INT
    if ROW_KIND[wide_row] == KIND_FLOAT and (_zero_or_nan(a_min, int_source)
                                             or _zero_or_nan(a_max, int_source)):
        return NotImplemented
    if (ROW_KIND[row] in (KIND_FLOAT, KIND_HALF) and cnp.PyArray_SIZE(a) <= SNAN_SCAN_MAX
            and not (cnp.PyArray_IS_C_CONTIGUOUS(a) or cnp.PyArray_IS_F_CONTIGUOUS(a))):
        return NotImplemented       # neither scanned nor worth np.errstate's cost
    a_min = _as_wide_bound(a_min, wide, wide_row)
    a_max = _as_wide_bound(a_max, wide, wide_row)
    if out is not None:
        odescr = <cnp.dtype>cnp.PyArray_DESCR(out)
        if not (cnp.PyArray_ISNBO(odescr.byteorder) and cnp.PyArray_SAMESHAPE(a, out)
                and cnp.PyArray_ISWRITEABLE(out) and cnp.PyArray_ISALIGNED(out)
                and not _partly_overlap(a, out)
                and cnp.PyArray_DATA(a) != cnp.PyArray_DATA(out)):
            return NotImplemented
        if not cnp.PyArray_EquivTypes(odescr, <cnp.dtype>wide):
            return _widened_into_other(a, a_min, a_max, <cnp.dtype>wide, out, casting)
        return out if _widen_and_clip(a, out, wide_row, a_min, a_max) == 1 else NotImplemented
    result = _new_result(a, <cnp.dtype>wide)
    done = _widen_and_clip(a, <ndarray>result, wide_row, a_min, a_max)
    if done == 1:
        return result
    # no np.copyto for an ml_dtypes x: its cast's floating-point flags are ml_dtypes' own
    if done == -1 or ROW_ML[row] or not _widen_into(<ndarray>result, a, row):
        return NotImplemented
    return _fast(<ndarray>result, a_min, a_max, result)


cdef object _widened_into_other(ndarray a, object a_min, object a_max, cnp.dtype wide,
                                ndarray out, object casting):
    """_widened's call with an out of a third dtype (a uint8 image with Python
    float bounds into float32: NumPy clips in float64, then casts into out):
    a's widening loop and the wide type's fused conversion into out's, in
    one loop (WIDENINGS_INTO) or chained through an L1 buffer (csrc/convert.h,
    fc_chain_range), or for an integer x with whole-number bounds x's own
    conversion into out (_integer_route), where a and out are contiguous in
    one memory order, NumPy lets the wide type cast into out (`casting`), and the bounds, in
    the wide type, convert inside out's range. The bounds are the wide
    type's already (_widened). Else NotImplemented (NumPy's clip and cast,
    which rewrite all of out)."""
    cdef unsigned long long lo_buf = 0, hi_buf = 0
    cdef int wide_row = ROW_BY_TYPENUM[wide.type_num], a_row, out_num, out_row, k, widen, fused, nan, direct
    cdef npy_intp n = cnp.PyArray_SIZE(a)
    cdef char *px = <char *>cnp.PyArray_DATA(a)
    cdef char *po = <char *>cnp.PyArray_DATA(out)
    a_row = ROW_BY_TYPENUM[(<cnp.dtype>cnp.PyArray_DESCR(a)).type_num]    # _widened's row
    out_num = (<cnp.dtype>cnp.PyArray_DESCR(out)).type_num
    if not 0 <= out_num < 512 or ROW_BY_TYPENUM[out_num] < 0:
        return NotImplemented
    out_row = ROW_BY_TYPENUM[out_num]
    k = CONVERSION_BY_ROWS[wide_row][out_row]
    widen = WIDENING_BY_ROWS[a_row][wide_row]
    if k < 0 or widen < 0:
        return NotImplemented
    if not ((cnp.PyArray_IS_C_CONTIGUOUS(a) and cnp.PyArray_IS_C_CONTIGUOUS(out)) or
            (cnp.PyArray_IS_F_CONTIGUOUS(a) and cnp.PyArray_IS_F_CONTIGUOUS(out))):
        return NotImplemented
    if not _conversion_allowed(k, wide, <cnp.dtype>cnp.PyArray_DESCR(out), casting):
        return NotImplemented                   # NumPy's error, its way
    if MAY_UNDERFLOW[k] and not _underflow_ignored():
        return NotImplemented
    if not (_bound_to_c(wide_row, a_min, &lo_buf) and _bound_to_c(wide_row, a_max, &hi_buf)
            and CONVERT.in_range(widen, &lo_buf, &hi_buf) and CONVERT.in_range(k, &lo_buf, &hi_buf)):
        return NotImplemented
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
        nan = _widen_into_out(fused, widen, k, px, po, n, &lo_buf, &hi_buf)
    else:
        with nogil:
            nan = _widen_into_out(fused, widen, k, px, po, n, &lo_buf, &hi_buf)
    return NotImplemented if nan else out


cdef int FLOAT32_ROW = ROW_BY_TYPENUM[np.dtype(np.float32).num]


cdef inline bint _whole_in_int32(double d) noexcept:
    # -0.0 is not: an int x of 0 ties with it and keeps +0.0, a negative one
    # becomes -0.0 (_widened hands such a bound to NumPy before this)
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
    unchanged (float64: _widen_and_clip's result, the wide type itself).
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


cdef inline int _widen_into_out(int fused, int widen, int k, const char *px, char *po, npy_intp n,
                                const void *lo, const void *hi) noexcept nogil:
    """The fused loop `fused` (of WIDENINGS_INTO), or with -1 the widening
    loop `widen` chained with conversion k; nonzero: a NaN met."""
    if fused >= 0:
        return CONVERT.run(fused, px, po, n, lo, hi)
    return CONVERT.chain(widen, k, px, po, n, lo, hi)


cdef object _widened_by_array_bounds(ndarray a, object a_min, object a_max):
    """np.clip(a, a_min, a_max) with an array bound, whose loop is of a
    wider dtype than a's (float16 or bfloat16 x with a float32 array bound):
    a cast exactly into a new array of the loop's dtype by its widening loop
    (csrc/widen.h, with bounds that clip nothing), then clipped there in place, as
    NumPy's iterator casts x and runs the loop. Taken only where both run
    NumPy's per-element loop (an array bound spans a's innermost axis, so its
    stride there is not 0, in NumPy's buffers as in the widened array) and
    lay the result out alike (a C-contiguous, the array bounds too or of one
    dimension, none broadcasting a to a larger shape), and whose NumPy
    bounds are of the loop's dtype already (Python numbers beside them).
    NotImplemented for anything else."""
    cdef cnp.dtype descr = <cnp.dtype>cnp.PyArray_DESCR(a)
    cdef int nd = cnp.PyArray_NDIM(a), inner = nd - 1, wide_row
    cdef bint spans_inner = False
    if not cnp.PyArray_IS_C_CONTIGUOUS(a) or (
            _same_dtype_array(a_min, descr) and _same_dtype_array(a_max, descr)):
        return NotImplemented           # no wider loop: the common call, at once
    while inner >= 0 and cnp.PyArray_DIMS(a)[inner] == 1:
        inner -= 1
    if inner < 0:
        return NotImplemented           # one element: NumPy's coalescing decides
    keys = []
    for b in (a_min, a_max):
        k = _bound_key(b)
        if k is None:
            if type(b) is not ndarray or not _fits_within(<ndarray>b, a):
                return NotImplemented
            k = (<ndarray>b).dtype
            j = inner - (nd - cnp.PyArray_NDIM(<ndarray>b))
            spans_inner |= j >= 0 and cnp.PyArray_DIMS(<ndarray>b)[j] == cnp.PyArray_DIMS(a)[inner]
        keys.append(k)
    if not spans_inner:
        return NotImplemented
    wide = _cached_wider_loop(descr, keys[0], keys[1], None)
    if wide is None:
        return NotImplemented
    wide_row = ROW_BY_TYPENUM[(<cnp.dtype>wide).type_num]
    if WIDENING_BY_ROWS[ROW_BY_TYPENUM[descr.type_num]][wide_row] < 0:
        return NotImplemented           # float8 x: no widening loop
    for k in keys:
        if isinstance(k, np.dtype) and k != wide:
            # a bound NumPy casts too: how and when its iterator casts it
            # (whole, or buffered, or not at all for an empty x) decides
            # whether a signaling NaN in it warns
            return NotImplemented
    result = _new_result(a, <cnp.dtype>wide)
    whole = <tuple>ROW_INT_RANGE[wide_row] if ROW_KIND[wide_row] == KIND_INT else _WHOLE_FLOAT_RANGE
    if _widen_and_clip(a, <ndarray>result, wide_row, whole[0], whole[1]) != 1:
        return NotImplemented           # a signaling NaN: NumPy's cast reports it
    if _fast(<ndarray>result, a_min, a_max, result) is NotImplemented:
        clip_ufunc(result, a_min, a_max, out=result)
    return result


#: _cached_wider_loop's answers without dtype= by a's row and the two bound
#: keys' codes (_key_code): a list read by index, not a dict by a built tuple
#: key (that key and lookup are a large share of _widened's work with Python
#: bounds, and hashing NumPy dtypes costs more)
cdef enum:
    KEY_CODES = 34                  # Python int, Python float, 32 rows
cdef list _WIDER_BY_CODES = [NotImplemented] * (32 * KEY_CODES * KEY_CODES)


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
    row = ROW_BY_TYPENUM[num] if 0 <= num < 512 else -1
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
    cdef int slot = -1, row = ROW_BY_TYPENUM[descr.type_num]    # a kernel dtype's: _widened's caller
    cdef int c_lo, c_hi
    if dtype is None and row >= 0:
        c_lo = _key_code(k_lo)
        c_hi = _key_code(k_hi)
        if c_lo >= 0 and c_hi >= 0:
            slot = (row * KEY_CODES + c_lo) * KEY_CODES + c_hi
            wide = _WIDER_BY_CODES[slot]
            if wide is not NotImplemented:
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


cdef int _widen_and_clip(ndarray a, ndarray result, int wide_row, object a_min,
                         object a_max) except -2:
    """result = clip(a cast to result's dtype), in one pass by the widening
    loop of the pair (csrc/widen.h): 1 done; 0 not this route (a layout or a
    pair it has not: a and result must be contiguous in one memory order);
    -1 a signaling NaN met (the ufunc's call, see _widen_into)."""
    cdef unsigned long long lo_buf = 0, hi_buf = 0
    cdef npy_intp n = cnp.PyArray_SIZE(a)
    cdef int nan, direct
    cdef char *px = <char *>cnp.PyArray_DATA(a)
    cdef char *po = <char *>cnp.PyArray_DATA(result)
    cdef int a_row = ROW_BY_TYPENUM[(<cnp.dtype>cnp.PyArray_DESCR(a)).type_num]
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
            and 0 <= wide.num < 512 and ROW_BY_TYPENUM[wide.num] >= 0
            and not ROW_ML[ROW_BY_TYPENUM[wide.num]] and np.can_cast(descr, wide, "safe")):
        return None
    for k in (k_lo, k_hi):
        if isinstance(k, np.dtype) and not np.can_cast(k, wide, "safe"):
            return None
    return wide


cdef object _one_sided(ndarray a, int row, object a_min, object a_max, object out,
                       object casting):
    """np.clip with one bound None, which NumPy runs as np.maximum(a, a_min)
    or np.minimum(a, a_max) (numpy/_core/_methods.py::_clip): clip's own
    routes with the missing bound at the end of the range, where that gives
    np.maximum's bits: the fast path, and for a scalar bound the fused
    conversion into an out of another dtype and the wider loops (an integer
    x with a float bound: a float64 result). Else NotImplemented (NumPy's
    ufunc).

    - An integer x with an integer bound: always (no NaN, no signed zero,
      whatever the loop). With a float bound, an integer x widens to no
      -0.0, so only a -0.0 bound (or a NaN) is left to NumPy (_zero_or_nan).
    - A float x: where NumPy's np.maximum/np.minimum return a NaN x's own
      bits (_probe_nans_kept: on x86, not on aarch64), and the bound is no
      NaN and no zero in the loop's type. A tie with a non-zero bound has
      one bit pattern; on a -0.0/+0.0 tie np.maximum returned the bound on
      x86 (NumPy 2.4, AVX-512, every length tried) where the clip keeps x,
      and aarch64's fmax orders the zeros. A Python float bound goes into x's
      own type, where a tiny one becomes zero (1e-50 into float32: a -0.0
      came back where NumPy gave +0.0, until test_one_sided_bounds_are_numpys
      had tiny bounds): below float16's smallest step, 2**-24, it is
      treated as a zero. A zero or NaN bound in x's own loop (float32 and
      float64) takes _ties_to_bound's loop, which has np.maximum's rule on
      a tie; else NumPy.
    - float16 x in its own loop: any bound, where NumPy's float16 loop keeps
      x on a tie as the kernel does (_HALF_TIES_KEPT).

    NumPy runs a one-sided clip as np.maximum or np.minimum, several times
    slower than a kernel (float16 far more: its loop converts each element)."""
    cdef int kind = ROW_KIND[row], src = -1
    cdef bint lower = a_max is None
    cdef type tb
    bound = a_min if lower else a_max
    tb = type(bound)
    if tb is not int and tb is not float:
        src = SCALAR_ROWS.get(tb, -1)
        if src < 0:
            # an array or another object: the fast path alone, for an
            # integer x (which refuses what its loop is not)
            if kind == KIND_INT and ROW_INT_RANGE[row] is not None:
                end = (<tuple>ROW_INT_RANGE[row])[1 if lower else 0]
                return _one_sided_fast(a, bound, end, lower, out, casting)
            return NotImplemented
    if kind == KIND_INT:
        if ROW_INT_RANGE[row] is None:
            return NotImplemented
        # the end of x's own range, also in a float loop (rounded: 2**63
        # for int64): x never passes it, and a narrower float out converts
        # it, where it refuses an infinity. A bound beyond it is the end
        # itself: clip(x, b, b) is b everywhere, as np.maximum(x, b) is; a
        # Python int there is NumPy's OverflowError. (NumPy scalars compared
        # as Python numbers: np.float16(2) > 65535.0 casts 65535.0 into
        # float16, and warns of an overflow.)
        end = (<tuple>ROW_INT_RANGE[row])[1 if lower else 0]
        if tb is not int:
            if tb is float or ROW_KIND[src] != KIND_INT:
                if _zero_or_nan(bound, True):
                    return NotImplemented
                end = float(end)
                b = float(bound)
            else:
                b = int(bound)
            if (b > end) if lower else (b < end):
                end = bound
    elif kind == KIND_FLOAT or kind == KIND_HALF:
        if _NANS_KEPT < 0:
            _probe_nans_kept()
        if not _NANS_KEPT:
            return NotImplemented
        if kind == KIND_HALF and _HALF_TIES_KEPT and (tb is int or tb is float or src == row):
            # float16's own loop (np.float64 and wider bounds: _widened's own
            # checks), which keeps x on a tie, zeros included, and gives a NaN
            # x, else a NaN bound, as the kernel does: any bound
            pass
        elif tb is int or (src >= 0 and ROW_KIND[src] == KIND_INT):
            if bound == 0:
                return (_ties_to_bound_into(a, row, bound, lower, out, casting) if tb is int
                        else NotImplemented)
        elif not fabs(float(bound)) >= _SMALLEST_FLOAT16:      # also a NaN
            return (_ties_to_bound_into(a, row, bound, lower, out, casting)
                    if tb is float or src == row else NotImplemented)
        end = _INF if lower else -_INF
    else:
        return NotImplemented
    result = _one_sided_fast(a, bound, end, lower, out, casting)
    if result is not NotImplemented or not _operand_has_loop(bound):
        return result
    if tb is int and kind == KIND_INT and ((bound > end) if lower else (bound < end)):
        return NotImplemented       # NumPy's OverflowError (the fast path refused it)
    lo, hi = (bound, end) if lower else (end, bound)
    # a loop wider than x's: a NumPy scalar bound, or a float one on an
    # integer x (NEP 50: a Python number takes x's own type otherwise); not
    # tried where there is none (float32 x with a Python float bound into
    # float16, which goes to NumPy: the try would only add to a small call)
    wider = src >= 0 or (kind == KIND_INT and tb is float)
    if out is None:
        return _widened(a, lo, hi, None, None) if casting is None and wider else NotImplemented
    if type(out) is not ndarray:
        return NotImplemented
    if casting is None:
        casting = "same_kind"
    result = _convert(a, lo, hi, <ndarray>out, casting)
    if result is NotImplemented and (cnp.PyArray_ITEMSIZE(<ndarray>out)
                                     > cnp.PyArray_ITEMSIZE(a)):
        # (a safe cast, which _into_other_dtype's route needs, widens)
        result = _into_other_dtype(a, lo, hi, <ndarray>out, casting, False)
    if result is NotImplemented and wider and not ROW_ML[row] and casting in _WIDENING_CASTINGS:
        result = _widened(a, lo, hi, None, <ndarray>out, casting)
    return result


cdef object _ties_to_bound_into(ndarray a, int row, object bound, bint lower, object out,
                                object casting):
    """_ties_to_bound, and for an out of a wider dtype (a safe cast that
    casting allows) its result in x's dtype widened into out: NumPy's
    np.maximum(x, 0, out=out) runs its loop in x's dtype and casts, which the
    fused conversions cannot follow (they keep x on a -0.0/+0.0 tie); NumPy's
    own route there is a loop and a buffered cast."""
    result = _ties_to_bound(a, row, bound, lower, out, casting)
    if (result is NotImplemented and type(out) is ndarray
            and cnp.PyArray_ITEMSIZE(<ndarray>out) < cnp.PyArray_ITEMSIZE(a)):
        return _narrowed_past_the_tie(a, row, bound, lower, <ndarray>out, casting)
    if (result is NotImplemented and type(out) is ndarray
            and (casting is None or (type(casting) is str and casting in _CASTS_ANY_SCALAR))
            and _can_widen_into(a, <ndarray>out, "same_kind" if casting is None else casting)):
        clipped = _ties_to_bound(a, row, bound, lower, None, casting)
        if clipped is not NotImplemented and _widen_into(<ndarray>out, <ndarray>clipped, row):
            return out
    return result


cdef object _ties_to_bound(ndarray a, int row, object bound, bint lower, object out,
                           object casting):
    """_one_sided's call with a float32/float64 bound in x's own loop that is
    zero or NaN there (clip(x, 0, None), common), where the fast path's
    scalar-bound rule keeps x on a -0.0/+0.0 tie and np.maximum returns the
    bound: TIES_TO_BOUND's loop, the per-element rule with both bounds
    scalars, where NumPy's np.maximum/np.minimum follow that rule (probed:
    _TIES_TO_BOUND_OK), over a contiguous x into a new result of its layout
    or an out of its dtype and layout (or x itself). One thread. Else
    NotImplemented."""
    cdef unsigned long long b_buf = 0, e_buf = 0
    cdef fc_span_t loop = TIES_TO_BOUND[row]
    cdef cnp.dtype descr = <cnp.dtype>cnp.PyArray_DESCR(a)
    cdef cnp.dtype odescr
    cdef ndarray res
    cdef npy_intp n
    cdef bint c_order
    if loop == NULL or not _TIES_TO_BOUND_OK or cnp.PyArray_NDIM(a) == 0:
        return NotImplemented
    if casting is not None and not (type(casting) is str and casting in _CASTS_ANY_SCALAR):
        return NotImplemented
    if not (cnp.PyArray_ISNBO(descr.byteorder) and cnp.PyArray_ISALIGNED(a)):
        return NotImplemented
    c_order = cnp.PyArray_IS_C_CONTIGUOUS(a)
    if not (c_order or cnp.PyArray_IS_F_CONTIGUOUS(a)):
        return NotImplemented
    if not (_bound_to_c(row, bound, &b_buf)
            and _bound_to_c(row, _INF if lower else -_INF, &e_buf)):
        return NotImplemented
    if out is None:
        res = _new_result(a, descr)
    else:
        if type(out) is not ndarray:
            return NotImplemented
        res = <ndarray>out
        odescr = <cnp.dtype>cnp.PyArray_DESCR(res)
        if not ((odescr is descr or cnp.PyArray_EquivTypes(odescr, descr))
                and cnp.PyArray_ISNBO(odescr.byteorder) and cnp.PyArray_ISALIGNED(res)
                and cnp.PyArray_ISWRITEABLE(res) and cnp.PyArray_SAMESHAPE(a, res)
                and (cnp.PyArray_IS_C_CONTIGUOUS(res) if c_order
                     else cnp.PyArray_IS_F_CONTIGUOUS(res))
                and not _partly_overlap(a, res)):
            return NotImplemented
    n = cnp.PyArray_SIZE(a)
    if n < GIL_RELEASE_THRESHOLD:
        _run_ties_to_bound(loop, a, res, lower, &b_buf, &e_buf, n)
    else:
        with nogil:
            _run_ties_to_bound(loop, a, res, lower, &b_buf, &e_buf, n)
    return res


#: the smallest positive subnormal of float32 and float64, by row (0: none)
cdef double SMALLEST_SUBNORMAL[32]
for _i, _row in enumerate(DTYPES):
    SMALLEST_SUBNORMAL[_i] = (float(np.finfo(numpy_dtype(_row)).smallest_subnormal)
                              if _row.kind == "float" else 0.0)


cdef object _narrowed_past_the_tie(ndarray a, int row, object bound, bint lower, ndarray out,
                                   object casting):
    """_ties_to_bound_into's call with an out narrower than x (float64 into
    float32: np.maximum(x, 0, out=float32)) by the fused conversion
    (_convert), whose clip keeps x on a tie where np.maximum returns the
    bound. A bound of +0.0 below (or -0.0 above) becomes the smallest
    subnormal of its sign: the zeros of x then come out that bound's zero
    where NumPy's do, and every value between it and the bound (that
    subnormal, the zeros, nothing else) converts to that zero in out, as
    the bound does (a narrower float's smallest step is far larger; an
    integer's zero has no sign), so every element has NumPy's bits. NumPy's
    cast of those zeros raises no underflow flag; the subnormal's conversion
    does, so this runs only where underflow is ignored, as MAY_UNDERFLOW's
    loops do (_convert). -0.0 below or +0.0 above would need the other
    zero: NumPy's route. A bound that is not zero ties only with its own
    value, alike either way."""
    cdef double b = float(bound)
    if b != b:
        return NotImplemented
    if b == 0.0:
        if (copysign(1.0, b) < 0.0) == lower or SMALLEST_SUBNORMAL[row] == 0.0:
            return NotImplemented
        b = SMALLEST_SUBNORMAL[row] if lower else -SMALLEST_SUBNORMAL[row]
    return _convert(a, b if lower else -_INF, _INF if lower else b, out,
                    "same_kind" if casting is None else casting)


cdef inline void _run_ties_to_bound(fc_span_t loop, ndarray a, ndarray res, bint lower,
                                    const void *bound, const void *end, npy_intp n) noexcept nogil:
    if lower:
        loop(<const char *>cnp.PyArray_DATA(a), <const char *>bound, <const char *>end,
             <char *>cnp.PyArray_DATA(res), n)
    else:
        loop(<const char *>cnp.PyArray_DATA(a), <const char *>end, <const char *>bound,
             <char *>cnp.PyArray_DATA(res), n)
    fc_clear_fpstatus()      # a signaling NaN's compare: NumPy's maximum warns of none


cdef inline object _one_sided_fast(ndarray a, object bound, object end, bint lower, object out,
                                   object casting):
    """_one_sided's fast path: as clip() takes it for two bounds (a casting
    under which a Python number converts to any dtype, out of a's dtype)."""
    if casting is not None and not (type(casting) is str and casting in _CASTS_ANY_SCALAR):
        return NotImplemented
    if lower:
        return _fast(a, bound, end, out)
    return _fast(a, end, bound, out)


#: 1 where np.maximum and np.minimum with a scalar bound return a NaN x's own
#: bits, signaling ones too, in every float dtype, as the kernels do; 0 where
#: not, and the float rows' one-sided calls go to NumPy; -1 until probed
cdef int _NANS_KEPT = -1
#: (probed with it) whether NumPy's float16 np.maximum and np.minimum keep x
#: on a -0.0/+0.0 tie, as its scalar loop does (npy_half_ge, npy_half_le) and
#: the float16 kernel too: then a zero bound takes the kernel, where NumPy's
#: loop converts each element to float32 and back
cdef bint _HALF_TIES_KEPT = False
#: (probed with it) whether NumPy's float32 and float64 np.maximum and
#: np.minimum with a scalar bound follow the per-element rule: a tie, zeros
#: included, takes the bound; a NaN x is kept, then a NaN bound (x86, NumPy
#: 2.4): then a zero or NaN bound takes TIES_TO_BOUND's loop
cdef bint _TIES_TO_BOUND_OK = False


cdef void _probe_nans_kept() except *:
    """Sets _NANS_KEPT, _HALF_TIES_KEPT and _TIES_TO_BOUND_OK from NumPy's
    answers on this machine, once. On NaNs: NumPy 2.4 keeps
    the bits on x86; on aarch64 its vector max (vmaxq) quiets a signaling
    NaN (0x7fa34585 came back 0x7fe34585 under qemu, where fastclip kept
    it, until tools/aarch64 ran test_one_sided_bounds_are_numpys), and a
    NumPy that returned a NaN of its own would differ too. Probed on
    contiguous and strided x of an odd length (SIMD bodies and tails) with
    NaNs of both signs, quiet and signaling."""
    global _NANS_KEPT, _HALF_TIES_KEPT, _TIES_TO_BOUND_OK
    zeros = np.array([-0.0, 0.0, 1.0, -1.0] * 251, np.float16)
    ties = True
    for view in (zeros, zeros[1::2], zeros[::-3]):
        for bound in (np.float16(0.0), np.float16(-0.0)):
            for result in (_umath.maximum(view, bound), _umath.minimum(view, bound)):
                ties &= result.tobytes() == (np.where(view == 0, view, result)).tobytes()
    _HALF_TIES_KEPT = ties
    kept = True
    for dt in (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)):
        u = np.dtype(f"u{dt.itemsize}")
        inf_bits = int(np.array(np.inf, dt).view(u))
        quiet_bits = int(np.array(np.nan, dt).view(u))
        sign_bit = 1 << (8 * dt.itemsize - 1)
        nans = np.array([inf_bits | 1, quiet_bits | 5, sign_bit | inf_bits | 3,
                         sign_bit | quiet_bits | 1], u)
        x = np.linspace(-2.0, 2.0, 1001).astype(dt)
        x.view(u)[::5] = np.resize(nans, x[::5].size)
        for view in (x, x[1::2]):
            with np.errstate(invalid="ignore"):
                for result in (_umath.maximum(view, 0.5), _umath.minimum(view, 0.5)):
                    kept &= np.array_equal(result.view(u)[np.isnan(view)],
                                           view.view(u)[np.isnan(view)])
    _NANS_KEPT = kept
    rule = True
    for dt in (np.dtype(np.float32), np.dtype(np.float64)):
        u = np.dtype(f"u{dt.itemsize}")
        x = np.array([-0.0, 0.0, 1.0, -1.0, np.nan, -np.inf, np.inf] * 143, dt)
        x.view(u)[4::14] |= 1 << (8 * dt.itemsize - 1)       # NaNs of both signs
        for view in (x, x[1::2], x[::-3]):
            for b in (dt.type(0.0), dt.type(-0.0), dt.type(np.nan)):
                with np.errstate(invalid="ignore"):
                    for got, take_x in ((_umath.maximum(view, b), view > b),
                                        (_umath.minimum(view, b), view < b)):
                        want = np.where(take_x | np.isnan(view), view, b)
                        rule &= got.tobytes() == want.tobytes()
    _TIES_TO_BOUND_OK = rule


#: float16's smallest subnormal: a Python float bound at least this large is
#: no zero in any float type (the 16-, 32- and 64-bit ones round it to itself
#: or further from zero)
cdef double _SMALLEST_FLOAT16 = 2.0 ** -24


cdef object _INF = float("inf")


#: ndarray subclass -> whether np.clip runs ndarray's own clip on it, through
#: the ufuncs (_plain_subclass)
cdef dict _PLAIN_SUBCLASS = {}


cdef bint _plain_subclass(type t):
    """An ndarray subclass that keeps ndarray's clip, __array_ufunc__ and
    __array_function__ (np.matrix, np.memmap, most users' own): np.clip then
    runs numpy/_core/_methods.py::_clip on it, whose ufuncs wrap the result
    in the subclass (__array_wrap__). MaskedArray is one in NumPy 2.4 and
    2.5, where its clip is ndarray's; in older NumPy it has its own."""
    ok = _PLAIN_SUBCLASS.get(t)
    if ok is None:
        ok = (issubclass(t, ndarray) and getattr(t, "clip", None) is ndarray.clip
              and getattr(t, "__array_ufunc__", None) is ndarray.__array_ufunc__
              and getattr(t, "__array_function__", None) is ndarray.__array_function__)
        _PLAIN_SUBCLASS[t] = ok
    return ok


cdef bint _plain_operand(object v):
    """An operand NumPy's ufunc machinery dispatches on no differently for
    fastclip's ufunc than for its own: not an array of a type with its own
    __array_ufunc__ (a number, a NumPy scalar, an ndarray or plain subclass)."""
    cdef type tv = type(v)
    if tv is float or tv is int or tv is bool or tv is ndarray or v is None:
        return True
    if isinstance(v, ndarray):
        return _plain_subclass(tv)
    return isinstance(v, np.generic)


cdef object _subclass_call(ndarray a, object a_min, object a_max, object out, dict kwargs):
    """np.clip on a plain subclass (_plain_subclass): _methods._clip as
    _ndarray_call follows it, through the ufuncs alone, fastclip's where it
    has the loop, so that the result is wrapped as NumPy's is, without
    np.clip's own detour through fromnumeric."""
    cdef int num = (<cnp.dtype>cnp.PyArray_DESCR(a)).type_num
    cdef int row = ROW_BY_TYPENUM[num] if 0 <= num < 512 else -1
    if row >= 0 and _drops_int_bound(row, a_min, a_max):
        a_min, a_max = _drop_int_bounds(row, a_min, a_max)
    if a_min is None and a_max is None:
        return _umath.positive(a, out=out, **kwargs)
    if a_min is None:
        return _umath.minimum(a, a_max, out=out, **kwargs)
    if a_max is None:
        return _umath.maximum(a, a_min, out=out, **kwargs)
    if (row >= 0 and not ROW_ML[row] and _operand_has_loop(a_min) and _operand_has_loop(a_max)
            and _plain_operand(a_min) and _plain_operand(a_max) and _plain_operand(out)
            and _plain_operand(kwargs.get("where"))):
        return clip_ufunc(a, a_min, a_max, out=out, **kwargs)
    return _umath.clip(a, a_min, a_max, out=out, **kwargs)


cdef object _ndarray_call(ndarray a, object a_min, object a_max, object out, dict kwargs):
    """Every other call on an exact ndarray, but a bfloat16 or float8 one
    that keeps its dtype (_numpy_rules): numpy/_core/_methods.py::_clip (what
    np.clip runs for an ndarray), with fastclip's ufunc where it has the loop
    and NumPy's where not.
    Written here, not left to _numpy_rules, for its cost: through _numpy_rules a small
    call was slower than np.clip itself."""
    cdef int num = (<cnp.dtype>cnp.PyArray_DESCR(a)).type_num
    cdef int row = ROW_BY_TYPENUM[num] if 0 <= num < 512 else -1
    if row >= 0 and _drops_int_bound(row, a_min, a_max):
        a_min, a_max = _drop_int_bounds(row, a_min, a_max)
    if a_min is None and a_max is None:
        if (row >= 0 and type(out) is ndarray and ROW_INT_RANGE[row] is not None
                and (not kwargs or (len(kwargs) == 1 and "casting" in kwargs))):
            # both bounds dropped, an out of another dtype: a cast, which the
            # fused loop over the range's ends does in one pass where NumPy's
            # positive runs its loop into a buffer, then casts
            lo, hi = <tuple>ROW_INT_RANGE[row]
            result = _convert(a, lo, hi, <ndarray>out, kwargs.get("casting", "same_kind"))
            if result is not NotImplemented:
                return result
        return _umath.positive(a, out=out, **kwargs)
    if row >= 0 and (a_min is None or a_max is None) and (not kwargs or (
            len(kwargs) == 1 and "casting" in kwargs)):
        result = _one_sided(a, row, a_min, a_max, out, kwargs.get("casting") if kwargs else None)
        if result is not NotImplemented:
            return result
    if a_min is None:
        return _umath.minimum(a, a_max, out=out, **kwargs)
    if a_max is None:
        return _umath.maximum(a, a_min, out=out, **kwargs)
    if row >= 0 and _operand_has_loop(a_min) and _operand_has_loop(a_max):
        if out is None and (not kwargs or (len(kwargs) == 1 and "dtype" in kwargs)):
            # an ml_dtypes x here does not keep its dtype: a wider loop or NumPy's
            result = _widened(a, a_min, a_max, kwargs.get("dtype"), None)
            if result is not NotImplemented:
                return result
        elif not ROW_ML[row] and type(out) is ndarray and (not kwargs or (
                len(kwargs) == 1 and kwargs.get("casting") in _WIDENING_CASTINGS)):
            result = _widened(a, a_min, a_max, None, <ndarray>out,
                              kwargs.get("casting", "same_kind"))
            if result is not NotImplemented:
                return result
        if not ROW_ML[row]:
            return clip_ufunc(a, a_min, a_max, out=out, **kwargs)
    return _umath.clip(a, a_min, a_max, out=out, **kwargs)
