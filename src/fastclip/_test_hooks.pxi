# The one way tests reach inside the module (_for_tests), by name.
# Part of fastclip/_ufunc.pyx (included at its end).

def _for_tests(what, *args, **kwargs):
    """The one way tests reach inside, by name:

    - "convert" (a, a_min, a_max, out, casting="same_kind", where=None):
      whether the fused clip-and-convert route did the call (out written);
    - "widened" (a, a_min, a_max, out, casting="same_kind"): whether a wider
      loop's route wrote out itself;
    - "fast" (a, a_min, a_max, out=None), "scalar" (a, a_min, a_max): whether
      that route's loop takes the call (_kernel_way, _scalar_row and the
      bounds), not another way;
    - "pool" (): the thread pool's (helpers started, asleep now, chunks they
      have done, wake-ups, a wake-up's time and the caller's part of it). Its modes (every split call
      waiting for its helpers, with chunks of any size; the OpenMP loop) are
      pool_modes' (_targets.pxi).
    """
    if what == "convert":
        return _test_convert(*args, **kwargs)
    if what == "widened":
        return _test_widened(*args, **kwargs)
    if what == "fast":
        return _test_fast(*args, **kwargs)
    if what == "scalar":
        return _test_scalar(*args, **kwargs)
    if what == "pool":
        return _test_pool(*args, **kwargs)
    raise ValueError(f"no test hook {what!r}")


def _test_convert(ndarray a, a_min, a_max, out, casting="same_kind", where=None):
    return _convert_bounds_into(a, a_min, a_max, out, casting, where)


def _test_widened(a, a_min, a_max, out, casting="same_kind"):
    return _widen_into_out(a, a_min, a_max, out, casting)


def _test_fast(ndarray a, a_min, a_max, out=None):
    cdef FastBounds b
    cdef const npy_intp *strides[FC_OPERANDS]
    cdef cnp.dtype descr = <cnp.dtype>cnp.PyArray_DESCR(a)
    return _kernel_way(&b, _kernel_row(a, descr, out), descr, a, a_min, a_max, out, None, None,
                       strides) != KERNEL_DECLINED


def _test_scalar(a, a_min, a_max):
    cdef unsigned long long x_buf = 0, lo_buf = 0, hi_buf = 0
    cdef int row = _scalar_row(a, &x_buf)
    return row >= 0 and _bound_to_c(row, a_min, &lo_buf) and _bound_to_c(row, a_max, &hi_buf)
