"""attnviz's own docs: built with its own Sphinx directive (`make docs`)."""

import importlib.util
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "_ext"))

from attnviz import __version__  # noqa: E402

project = "attnviz"
author = "the attnviz authors"
copyright = "attnviz authors"  # noqa: A001 - Sphinx's name for it
release = version = __version__

extensions = [
    "attnviz.integrations.sphinx",  # the one line a docs author adds
    "sphinx.ext.autodoc",
    "attnviz_docs",  # this site's own helpers: generated references, examples shown with their source
]

root_doc = "index"
exclude_patterns = ["_build"]
templates_path = []
html_theme = "alabaster"
attnviz_defaults = {"theme": "light"}  # alabaster has no dark mode: the figures stay light with the page
# alabaster's column with the options below, at a 1,280 px page and on a 390 px phone (as Chromium lays it out): a
# figure wider than either is drawn again for it, its text 12 px or more (docs/docs-integration.rst)
attnviz_doc_widths = [780, 330]
html_theme_options = {
    "description": "Exact, honest pictures of attention",
    "page_width": "1060px",
    "sidebar_width": "220px",
    "fixed_sidebar": False,
    "show_powered_by": False,
}
html_static_path = ["_static"]
html_css_files = ["attnviz-docs.css"]
html_title = f"attnviz {release}"
html_last_updated_fmt = None
pygments_style = "friendly"
autodoc_member_order = "bysource"
# `make docs` installs Sphinx alone: the MkDocs plugin's reference is read with MkDocs stood in for when it is absent.
autodoc_mock_imports = [] if importlib.util.find_spec("mkdocs") else ["mkdocs"]
