# Type stubs: clip's overloads follow NumPy's own for numpy.clip
# (numpy/_core/fromnumeric.pyi of NumPy 2.5, which keeps an array's shape
# type), so a call types as it would with np.clip.
from contextlib import AbstractContextManager
from typing import Any, Literal, SupportsIndex, TypedDict, TypeVar, overload, Unpack

import numpy as np
from numpy._typing import _ArrayLike   # (private, but stable since NumPy 1.21)
from numpy.typing import ArrayLike, DTypeLike, NDArray

_ScalarT = TypeVar("_ScalarT", bound=np.generic)
_ScalarOrArrayT = TypeVar("_ScalarOrArrayT", bound=np.generic | np.ndarray[Any, Any])
_ArrayT = TypeVar("_ArrayT", bound=np.ndarray[Any, Any])

class _UFuncKwargs(TypedDict, total=False):
    where: ArrayLike | None
    order: Literal["K", "A", "C", "F"] | None
    subok: bool
    signature: str | tuple[str | None, ...]
    casting: Literal["no", "equiv", "safe", "same_kind", "unsafe"]

__version__: str
clip_ufunc: np.ufunc

# (overlaps the ArrayLike overloads as NumPy's first one does, numpy#27032)
@overload
def clip(  # type: ignore[overload-overlap]
    a: _ScalarOrArrayT,
    a_min: ArrayLike | None = ...,
    a_max: ArrayLike | None = ...,
    out: None = None,
    *,
    min: ArrayLike | None = ...,
    max: ArrayLike | None = ...,
    dtype: None = None,
    **kwargs: Unpack[_UFuncKwargs],
) -> _ScalarOrArrayT: ...
@overload
def clip(
    a: complex | bytes | str,
    a_min: ArrayLike | None = ...,
    a_max: ArrayLike | None = ...,
    out: None = None,
    *,
    min: ArrayLike | None = ...,
    max: ArrayLike | None = ...,
    dtype: None = None,
    **kwargs: Unpack[_UFuncKwargs],
) -> Any: ...
@overload
def clip(
    a: _ArrayLike[_ScalarT],
    a_min: ArrayLike | None = ...,
    a_max: ArrayLike | None = ...,
    out: None = None,
    *,
    min: ArrayLike | None = ...,
    max: ArrayLike | None = ...,
    dtype: None = None,
    **kwargs: Unpack[_UFuncKwargs],
) -> NDArray[_ScalarT]: ...
@overload
def clip(
    a: ArrayLike,
    a_min: ArrayLike | None = ...,
    a_max: ArrayLike | None = ...,
    out: None = None,
    *,
    min: ArrayLike | None = ...,
    max: ArrayLike | None = ...,
    dtype: None = None,
    **kwargs: Unpack[_UFuncKwargs],
) -> NDArray[Any]: ...
@overload
def clip(
    a: ArrayLike,
    a_min: ArrayLike | None,
    a_max: ArrayLike | None,
    out: _ArrayT,
    *,
    min: ArrayLike | None = ...,
    max: ArrayLike | None = ...,
    dtype: DTypeLike | None = None,
    **kwargs: Unpack[_UFuncKwargs],
) -> _ArrayT: ...
@overload
def clip(
    a: ArrayLike,
    a_min: ArrayLike | None = ...,
    a_max: ArrayLike | None = ...,
    *,
    out: _ArrayT,
    min: ArrayLike | None = ...,
    max: ArrayLike | None = ...,
    dtype: DTypeLike | None = None,
    **kwargs: Unpack[_UFuncKwargs],
) -> _ArrayT: ...
@overload
def clip(
    a: ArrayLike,
    a_min: ArrayLike | None = ...,
    a_max: ArrayLike | None = ...,
    out: None = None,
    *,
    min: ArrayLike | None = ...,
    max: ArrayLike | None = ...,
    dtype: DTypeLike | None = None,
    **kwargs: Unpack[_UFuncKwargs],
) -> Any: ...

def quantize(
    x: ArrayLike,
    scale: ArrayLike,
    zero_point: ArrayLike | None = None,
    *,
    dtype: DTypeLike | None = None,
    axis: SupportsIndex = 1,
    block_size: SupportsIndex = 0,
    saturate: bool = True,
    out: NDArray[Any] | None = None,
) -> NDArray[Any]: ...
def show_config() -> None: ...
def set_num_threads(n: SupportsIndex) -> None: ...
def get_num_threads() -> int: ...
def set_reuse_mib(mib: int) -> None: ...
def patch_numpy() -> None: ...
def unpatch_numpy() -> None: ...
def patched() -> AbstractContextManager[None]: ...
def is_patched() -> bool: ...
