"""MkDocs plugin: `plugins: [attnviz]` in mkdocs.yml, then ```attnviz fences in any page.

It turns on pymdownx.superfences with the attnviz fence (attnviz.markdown), next to any
custom fences already configured, and tells the fence which page it is in, so ids are
unique per page (`attnviz-<page>-<n>`) and errors name the page, line and block.

    plugins:
      - attnviz:
          defaults: {theme: dark}   # optional: figure keys every block starts from (default theme: auto)
          dark_selector: html.dark  # optional: the site's own dark toggle (default: Material's, then the system's)
          cache: true               # default: figures kept in cache_dir, drawn again only when they change
          cache_dir: .cache/attnviz # default, beside mkdocs.yml
"""

from __future__ import annotations

import functools
import logging
import os

from mkdocs.config import config_options
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin

from . import settings as embed
from .doc_widths import site_widths, theme_widths
from ..numbers.exact import InputError
from .markdown import FENCE, fence_format, set_page

TYPE_CHECKING = False  # a type checker takes it as True
if TYPE_CHECKING:
    from mkdocs.config.base import LegacyConfig
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files
    from mkdocs.structure.pages import Page

    # The plugin's options are a config_scheme (a LegacyConfig). Only to a type checker: at run time
    # BasePlugin[...] would put a class of its own between BasePlugin and the plugin.
    _Base = BasePlugin[LegacyConfig]
else:
    _Base = BasePlugin

__all__ = ["AttnvizPlugin"]

log = logging.getLogger("mkdocs.plugins.attnviz")

SUPERFENCES = "pymdownx.superfences"
CSS_FILE = "assets/attnviz.css"
#: The one line MkDocs prints when the fence's carrier is missing.
MISSING = ("attnviz: the attnviz fences need pymdown-extensions (superfences): pip install 'attnviz[mkdocs]' "
           "or pip install pymdown-extensions")


class AttnvizPlugin(_Base):  # type: ignore[no-untyped-call]  # mkdocs: BasePlugin.__init_subclass__ is not annotated
    """The MkDocs plugin: `attnviz` fences drawn as inline SVG figures."""
    config_scheme = (("defaults", config_options.Type(dict, default={})),
                     ("cache", config_options.Type(bool, default=True)),
                     ("cache_dir", config_options.Type(str, default=".cache/attnviz")),
                     ("dark_selector", config_options.Type(str, default="")),
                     ("doc_widths", config_options.Type(list, default=None)))

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        """Register the fence with pymdownx.superfences, with the site's defaults and cache."""
        from .docs_cache import FigureCache  # start-up: only a cached build needs it

        folder: str | None = None
        if self.config["cache"]:
            folder = os.path.join(os.path.dirname(os.path.abspath(config.config_file_path or "mkdocs.yml")),
                                  self.config["cache_dir"])
        self.figures = FigureCache(folder)
        try:
            defaults = embed.default_settings(self.config["defaults"], "attnviz: defaults")
            self.dark_selector = embed.site_dark_selector(self.config["dark_selector"], "attnviz: dark_selector")
            widths = theme_widths(site_widths(self.config["doc_widths"], "attnviz: doc_widths"), config.theme.name)
        except InputError as err:
            raise PluginError(f"mkdocs.yml: {embed.say(err)}") from None
        try:
            import pymdownx.superfences  # type: ignore[import-untyped]  # noqa: F401  # pymdownx ships no types
        except ImportError:
            raise PluginError(MISSING) from None
        if SUPERFENCES not in config.markdown_extensions:
            config.markdown_extensions.append(SUPERFENCES)
        options = config.mdx_configs.setdefault(SUPERFENCES, {})
        fences = options.setdefault("custom_fences", [])
        if not any(fence.get("name") == FENCE["name"] for fence in fences):
            fences.append(dict(FENCE, format=functools.partial(fence_format, defaults=defaults, cache=self.figures,
                                                               dark_selector=self.dark_selector, doc_widths=widths)))
        if CSS_FILE not in config.extra_css:
            config.extra_css.append(CSS_FILE)
        return config

    def on_post_build(self, config: MkDocsConfig) -> None:
        """assets/attnviz.css: the figures' colours as CSS custom properties (`themes.host_stylesheet`)."""
        if self.figures.drawn or self.figures.reused:
            log.info(self.figures.summary())
        from pathlib import Path  # start-up: only the build's end writes the style sheet

        from ..render.themes import host_stylesheet

        path = Path(config.site_dir) / CSS_FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(host_stylesheet(self.dark_selector), encoding="utf-8")

    def on_page_markdown(self, markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
        """Note the page being rendered, so figure ids and errors name it."""
        set_page(page.file.src_uri, page.file.content_string)
        return markdown

    def on_page_content(self, html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
        """Forget the page once it is rendered."""
        set_page(None)
        return html

    def on_build_error(self, error: Exception) -> None:
        """Forget the page when the build fails."""
        set_page(None)
