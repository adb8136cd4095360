# The one way tests reach inside the module (_for_tests), by name.
# Part of fastclip/_ufunc.pyx (included at its end).

def _for_tests(what, *args, **kwargs):
    """The one way tests reach inside, by name:

    - "convert" (a, a_min, a_max, out, casting="same_kind", where=None):
      whether the fused clip-and-convert route did the call (out written);
    - "widened" (a, a_min, a_max, out, casting="same_kind"): whether a wider
      loop's route wrote out itself;
    - "fast" (a, a_min, a_max, out=None), "scalar" (a, a_min, a_max): that
      route alone, its result or NotImplemented where the call goes another
      way;
    - "pool" (): the thread pool's (helpers started, chunks they have done,
      wake-ups). Its modes (every split call waiting for its helpers, with
      chunks of any size; each mechanism off) are pool_modes' (_targets.pxi).
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


def _test_convert(a, a_min, a_max, out, casting="same_kind", where=None):
    return _convert(a, a_min, a_max, out, casting, where) is out


def _test_widened(a, a_min, a_max, out, casting="same_kind"):
    return _widened(a, a_min, a_max, None, out, casting) is out


def _test_fast(a, a_min, a_max, out=None):
    return _fast(a, a_min, a_max, out)


def _test_scalar(a, a_min, a_max):
    return _scalar(a, a_min, a_max)
