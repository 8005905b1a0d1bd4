"""Sphinx configuration for Cadence's documentation site.

The site builds offline: Markdown pages through myst-parser, the API reference from docstrings through
autodoc and napoleon, formulas through MathJax (loaded by the reader's browser, not at build time), the
default ``alabaster`` theme, and no intersphinx. ``tests/docs/test_sphinx_build.py`` builds it with
``-W --keep-going`` (every warning is an error), so a broken reference fails the test suite.

Build by hand::

    python -m sphinx -W --keep-going -b html docs docs/_build/html
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # the packages, when Cadence is not installed into the environment

project = "Cadence"
author = "the Cadence authors"
copyright = "the Cadence authors"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
]

source_suffix = {".md": "markdown"}
root_doc = "index"
# Only pages are sources: the build scripts, pictures and build output are not.
exclude_patterns = ["_build", "conf.py", "make_pictures.py", "images", "**/.ipynb_checkpoints"]

# Markdown: `#anchor` links to headings, $math$ in pages, ```{directive}``` blocks.
myst_enable_extensions = ["dollarmath", "colon_fence"]
myst_heading_anchors = 3

# API reference: members in source order, signatures with defaults, type hints in the description.
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_format = "short"
autodoc_preserve_defaults = True
autodoc_default_options = {"show-inheritance": True}
napoleon_google_docstring = True
napoleon_numpy_docstring = True

# Offline: the default theme, nothing fetched at build time.
html_theme = "alabaster"
html_title = "Cadence"
html_static_path = ["_static"]
html_css_files = ["cadence.css"]
html_theme_options = {
    "description": "Learning-rate schedules in training time",
    "fixed_sidebar": True,
    "page_width": "1240px",
    "sidebar_width": "240px",
}
html_show_sourcelink = False
html_last_updated_fmt = None  # deterministic output
pygments_style = "sphinx"
