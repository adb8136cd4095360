"""fastclip as ``numpy.clip`` for a whole program: patch_numpy, unpatch_numpy,
patched.

NumPy has no hook for this: ``__array_function__`` lets a *type* take over
NumPy functions for its own objects, never a function for plain ndarrays, and
``ndarray.clip`` is a method of a built-in type. So the module attribute is
replaced, as scikit-learn-intelex's ``patch_sklearn`` and mkl_fft's
``patch_numpy_fft`` do. Every library that calls ``np.clip(...)`` (looking the
name up at call time) then runs fastclip; fastclip's own hand-off to NumPy uses
NumPy's implementation directly (``fastclip._numpy_fallback.numpy_clip``), so it
cannot come back to itself.

State: the patch is on while ``patch_numpy()`` is in force or any
``patched()`` block is open (a count, so blocks in several threads and nested
blocks end correctly); every change happens under one lock.
"""

import contextlib
import threading

import numpy

_lock = threading.Lock()
_explicit = False        # patch_numpy() in force
_blocks = 0              # open patched() blocks
_original = None         # what numpy.clip was when the patch went on


def _apply():
    """Make numpy.clip match the state (called with the lock held)."""
    global _original
    from fastclip import clip
    want = _explicit or _blocks > 0
    if want and numpy.clip is not clip:
        if _original is None:
            _original = numpy.clip
        numpy.clip = clip
    elif not want and _original is not None:
        if numpy.clip is clip:      # not if someone replaced it after us
            numpy.clip = _original
        _original = None


def patch_numpy():
    """Make ``numpy.clip`` fastclip's clip for the whole program.

    Every later ``np.clip(...)`` call, in your code and in every library that
    calls it by that name (matplotlib, scikit-image, pandas, SciPy, xarray,
    ...), runs fastclip: the same results as NumPy's (bfloat16 and float8 arrays
    keep their dtype, docs/semantics.rst), faster. Idempotent and safe from any thread;
    ``unpatch_numpy()`` puts back exactly the function that was there.

    What it cannot reach:

    * a name bound before patching, e.g. ``from numpy import clip`` at the top
      of a module imported earlier, keeps NumPy's function;
    * ``ndarray.clip`` (``a.clip(0, 1)``) is a method of a built-in type and
      cannot be replaced;
    * pandas' ``Series.clip``/``DataFrame.clip`` and other libraries' own clip
      methods run their own code.
    """
    global _explicit
    with _lock:
        _explicit = True
        _apply()


def unpatch_numpy():
    """Undo ``patch_numpy()``: ``numpy.clip`` is again the function it was
    before (if no ``patched()`` block is still open, and unless something else
    has replaced ``numpy.clip`` since, which is then left alone). Idempotent."""
    global _explicit
    with _lock:
        _explicit = False
        _apply()


@contextlib.contextmanager
def patched():
    """``with fastclip.patched():`` - ``numpy.clip`` is fastclip's clip inside
    the block, as with ``patch_numpy()``; afterwards it is what it was (still
    patched if ``patch_numpy()`` is in force or another block is open)."""
    global _blocks
    with _lock:
        _blocks += 1
        _apply()
    try:
        yield
    finally:
        with _lock:
            _blocks -= 1
            _apply()


def is_patched():
    """Whether ``numpy.clip`` is fastclip's clip now."""
    from fastclip import clip
    return numpy.clip is clip
