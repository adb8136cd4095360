"""``python -m fastclip bench``: fastclip beside np.clip, np.copyto and the
peers installed (torch.clamp, numba, numexpr).

    cases.py     the cases, from the dtype table: {contender: function}
    peers.py     the peers' adapters (skipped where not installed)
    timing.py    interleaved medians, and the spread of a ratio round by round
    sections.py  each section's run, the raw seconds (the JSON)
    report.py    the tables, as text or markdown, and the plot
    cli.py       the command line: a process per SIMD target
"""

from fastclip.bench.cases import (LAYOUTS_FULL, SIZES_FULL, SWEEP_DISTANCES, bounds,  # noqa: F401
                                  call_cases, convert_cases, make_case, sweep_case)
from fastclip.bench.cli import main  # noqa: F401
from fastclip.bench.report import plot, render_markdown, render_text  # noqa: F401
from fastclip.bench.timing import time_interleaved  # noqa: F401
