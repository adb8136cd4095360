"""fastclip: numpy.clip, C-accelerated, for every numeric dtype, bfloat16 and float8.

Public names: ``clip`` (numpy.clip's signature and results), ``clip_ufunc``
(the same kernels as a numpy.ufunc), ``quantize`` (ONNX QuantizeLinear in
one pass; ``fastclip.onnx`` has it and Clip as onnx.reference ops), ``patch_numpy``/``unpatch_numpy``/
``patched``/``is_patched`` (fastclip as numpy.clip for a whole program),
``set_num_threads``/``get_num_threads``, ``set_reuse_mib``, ``show_config`` and
``__version__``.
"""

__version__ = "0.1.0"

try:
    from fastclip._ufunc import clip, clip_ufunc, quantize, set_reuse_mib
except ModuleNotFoundError as e:
    # As NumPy does: say what to do rather than leave a bare "No module named
    # 'fastclip._ufunc'" (python -m from a source tree without src/ layout
    # would also land here).
    if e.name != "fastclip._ufunc":
        raise
    import os as _os
    raise ImportError(
        f"fastclip's compiled extensions are missing from {_os.path.dirname(__file__)}: "
        "this is fastclip's source tree, not a built package. Install it "
        "(`python -m pip install .` from the repository's root) and import it from "
        "anywhere but src/, or build it in place for development with "
        "`python -m pip install -e .`.") from e

from fastclip._config import show_config  # noqa: E402
from fastclip._patch import is_patched, patch_numpy, patched, unpatch_numpy  # noqa: E402
from fastclip._threads import get_num_threads, set_num_threads  # noqa: E402
from fastclip import _threads  # noqa: E402
from fastclip import ufunc as _ufunc_module  # noqa: E402,F401  (pickling)

_threads._init()

__all__ = ["clip", "clip_ufunc", "quantize", "show_config", "set_num_threads", "get_num_threads",
           "set_reuse_mib",
           "patch_numpy", "unpatch_numpy", "patched", "is_patched", "__version__"]
