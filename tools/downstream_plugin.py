"""pytest plugin for tools/downstream.py: with FASTCLIP_DOWNSTREAM_PATCH=1,
fastclip.patch_numpy() before any test module is imported, and the number of
numpy.clip calls that reached fastclip written to FASTCLIP_DOWNSTREAM_COUNT.

The count comes from a thin wrapper around the patched numpy.clip (one Python
call per clip call); it shows the patch was really exercised."""

import functools
import os

_calls = 0


def pytest_configure(config):
    if os.environ.get("FASTCLIP_DOWNSTREAM_PATCH") != "1":
        return
    import numpy
    import fastclip

    fastclip.patch_numpy()
    patched = numpy.clip

    @functools.wraps(patched)
    def counting_clip(*args, **kwargs):
        global _calls
        _calls += 1
        return patched(*args, **kwargs)

    numpy.clip = counting_clip


def pytest_unconfigure(config):
    path = os.environ.get("FASTCLIP_DOWNSTREAM_COUNT")
    if path and os.environ.get("FASTCLIP_DOWNSTREAM_PATCH") == "1":
        with open(path, "w") as f:
            f.write(str(_calls))
