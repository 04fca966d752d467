"""Sphinx configuration of the ufsel documentation (``make docs``)."""

from __future__ import annotations

import os
import re
from pathlib import Path

# The gallery runs in this process, with one BLAS/OpenMP thread unless OMP_NUM_THREADS
# says otherwise: on a busy machine, the examples' small fits are much slower with
# several threads competing for the cores than with one.
os.environ.setdefault("OMP_NUM_THREADS", "1")

from threadpoolctl import threadpool_limits  # noqa: E402

import ufsel  # noqa: E402

_THREADS = threadpool_limits(int(os.environ["OMP_NUM_THREADS"]))

DOCS = Path(__file__).resolve().parent

project = "ufsel"
author = "the ufsel authors"
copyright = "the ufsel authors"
release = version = ufsel.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "auto_examples/*.ipynb", "auto_examples/*.py",
                    "auto_examples/*.zip", "auto_examples/*.md5", "sg_execution_times.rst",
                    "README.md", "**/README.md", "examples"]
templates_path = ["_templates"]

# MyST: guide pages are Markdown.
myst_enable_extensions = ["colon_fence", "dollarmath", "deflist"]
myst_heading_anchors = 3

# API reference: one page per public name, from the docstrings.
autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": False, "inherited-members": False}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks: set[str] = set()
# Cross-reference types written in the "Parameters" sections only where a target exists.
numpydoc_xref_param_type = False

# Gallery: every docs/examples/*.py is executed (the same files run in `make test`).
sphinx_gallery_conf = {
    "examples_dirs": "examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r".*\.py$",
    "ignore_pattern": r"__init__\.py",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "matplotlib_animations": False,
    "show_memory": False,
}
os.environ.setdefault("MPLBACKEND", "Agg")

html_theme = "pydata_sphinx_theme"
html_title = f"ufsel {release}"
html_theme_options = {
    "navbar_end": ["navbar-icon-links"],
    "secondary_sidebar_items": ["page-toc"],
    "show_toc_level": 2,
    "navigation_with_keys": False,
}
html_static_path = ["_static"]
html_css_files = ["ufsel.css"]
html_show_sourcelink = False
# Top-level pages without sub-pages have no section navigation: no empty left column.
html_sidebars = {"index": [], "getting_started": []}

# The user guide's pages, in reading order, are the pages that its index (guide/index.md, a
# numbered list of links that reads as such on GitHub too) links to. The toctree that the
# site's navigation needs is appended to that page here, hidden (the list already shows
# the pages), and a guide page that the list does not link comes after them, so that no
# page drops out of the site.
_GUIDE_LINK = re.compile(r"\]\(([\w-]+)\.md\)")


def guide_pages(index_text):
    """The guide pages linked from the text of guide/index.md, in the order linked."""
    pages = []
    for name in _GUIDE_LINK.findall(index_text):
        if name not in pages and (DOCS / "guide" / f"{name}.md").is_file():
            pages.append(name)
    return pages


def _guide_toctree(app, docname, source):
    if docname != "guide/index":
        return
    linked = guide_pages(source[0])
    others = sorted(p.stem for p in (DOCS / "guide").glob("*.md")
                    if p.stem not in linked and p.stem != "index")
    source[0] += ("\n\n```{toctree}\n:hidden:\n:maxdepth: 2\n\n"
                  + "\n".join(linked + others) + "\n```\n")


def setup(app):
    app.connect("source-read", _guide_toctree)
