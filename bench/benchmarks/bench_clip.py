"""asv suite: the same cases as ``python -m fastclip bench`` (src/fastclip/bench/),
generated from the dtype table, so the two never drift apart.

    cd bench && asv run --python=same --quick     # against the installed fastclip
"""

import numpy as np

from fastclip._dtypes import DTYPES
from fastclip.bench import LAYOUTS_FULL, SIZES_FULL, call_cases, make_case

ROWS = {row.name: row for row in DTYPES}


class Clip:
    params = (list(ROWS), list(SIZES_FULL), list(LAYOUTS_FULL), ["fastclip", "np.clip"])
    param_names = ["dtype", "n", "layout", "impl"]

    def setup(self, dtype, n, layout, impl):
        case = make_case(ROWS[dtype], n, layout, np.random.default_rng(0))
        self.func = case[impl]

    def time_clip(self, dtype, n, layout, impl):
        self.func()


class Calls:
    """The every-call section (array bounds, where=, N-d views, scalars)."""
    params = ([f"{g}|{d}|{c}" for g, d, c, _ in call_cases()], ["fastclip", "np.clip"])
    param_names = ["case", "impl"]

    def setup(self, case, impl):
        self.func = next(f[impl] for g, d, c, f in call_cases() if f"{g}|{d}|{c}" == case)

    def time_call(self, case, impl):
        self.func()
