from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

__version__: str
clip_ufunc: np.ufunc

def clip(
    a: ArrayLike,
    a_min: ArrayLike | None = ...,
    a_max: ArrayLike | None = ...,
    out: NDArray[Any] | None = None,
    *,
    min: ArrayLike | None = ...,
    max: ArrayLike | None = ...,
    **kwargs: Any,
) -> Any: ...
def show_config() -> None: ...
def set_num_threads(n: int) -> None: ...
def get_num_threads() -> int: ...
