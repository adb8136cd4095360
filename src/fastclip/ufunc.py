"""``fastclip.ufunc.clip`` is fastclip's clip ufunc.

NumPy pickles a ufunc by name, looked up in the module given by its
``__module__``: this is that module, so the ufunc pickles by import path and
unpickles in Dask worker processes.
"""

from fastclip._ufunc import clip_ufunc as clip

__all__ = ["clip"]
