"""Sphinx configuration of relplan's documentation site.

Build it with ``sphinx-build -W docs docs/_build/html`` after ``pip install -e ".[docs]"``.
Pages are Markdown (MyST); the Python reference comes from the numpydoc docstrings; the
examples in ``examples/`` run at build time (sphinx-gallery).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
REPO = DOCS.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(DOCS))  # gallery_scraper
os.chdir(REPO)  # pages and examples name configs/ and studies/ from the repository root

from relplan.version import __version__  # noqa: E402

project = "relplan"
author = "the relplan developers"
copyright = "the relplan developers, Apache-2.0"
release = __version__
version = __version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = [
    "_build",
    "auto_examples/*.ipynb",
    "auto_examples/*.py",
    "auto_examples/*.zip",
    "auto_examples/*.md5",
    # generated study reports: shipped as files beside the pages, linked, not rendered
    "fleet-behaviours",
    "fleet-spares",
    "fleet-plan",
    "plan-seed-moe",
    "recovery-stacks",
    "recovery-stacks-llama3",
    "recovery-crossover",
    "spot",
    "health-checks",
    "network-vs-gpus",
    "_incoming",
]
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3
suppress_warnings = ["myst.xref_missing", "myst.header"]

autodoc_typehints = "none"
autodoc_member_order = "bysource"
numpydoc_show_class_members = False
numpydoc_validation_checks: set[str] = set()

sphinx_gallery_conf = {
    "examples_dirs": str(REPO / "examples"),
    "gallery_dirs": str(DOCS / "auto_examples"),
    "filename_pattern": r"plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    # relplan's figures belong to no pyplot manager: gallery_scraper finds them in the
    # examples' variables; matplotlib's scraper still catches pyplot figures
    "image_scrapers": ("matplotlib", "gallery_scraper.relplan_figures"),
    "within_subsection_order": "FileNameSortKey",
}

html_theme = "pydata_sphinx_theme"
html_title = f"relplan {__version__}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
}
html_static_path: list[str] = []
