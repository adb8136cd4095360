"""Sphinx configuration: the API reference from the docstrings (numpydoc, the
convention of NumPy, SciPy and pandas), the pages in reST and, for the
benchmark's tables, which its markdown renderer writes, MyST markdown."""

import fastclip

project = "fastclip"
author = "the fastclip developers"
copyright = "the fastclip developers"
release = version = fastclip.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.doctest",
    "numpydoc",
    "myst_parser",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "bench.txt"]
numpydoc_show_class_members = False
numpydoc_xref_param_type = False
# Docstrings are checked as written: numpydoc's own warnings are errors under -W.
numpydoc_validation_checks = set()
# (no intersphinx: CI reaches the package registries only)
html_theme = "alabaster"
myst_heading_anchors = 3

# the examples run as doctests (python -m sphinx -b doctest docs docs/_build)
doctest_global_setup = """
import numpy as np
import ml_dtypes
import fastclip
"""
