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
exclude_patterns = ["_build"]
numpydoc_show_class_members = False
numpydoc_xref_param_type = False
# Docstrings are checked as written: numpydoc's own warnings are errors under -W.
numpydoc_validation_checks = set()
# (no intersphinx: CI reaches the package registries only)
html_theme = "pydata_sphinx_theme"
html_title = f"fastclip {version}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    # no icons or links that fetch from the network: CI reaches the package
    # registries only, and the pages work offline
    "icon_links": [],
}
# no left sidebar (the pages are few: the top bar lists them), and the
# article as wide as the page, for the benchmark's tables
html_sidebars = {"**": []}
html_static_path = ["_static"]
html_css_files = ["wide.css"]
myst_heading_anchors = 3

# the examples run as doctests (python -m sphinx -b doctest docs docs/_build)
doctest_global_setup = """
import numpy as np
import ml_dtypes
import fastclip
"""
