"""MkDocs plugin: `plugins: [attnviz]` in mkdocs.yml, then ```attnviz fences in any page.

It turns on pymdownx.superfences with the attnviz fence (attnviz.markdown), next to any
custom fences already configured, and tells the fence which page it is in, so ids are
unique per page (`attnviz-<page>-<n>`) and errors name the page, line and block.
"""

from mkdocs.plugins import BasePlugin

from .markdown import FENCE, set_page

__all__ = ["AttnvizPlugin"]

SUPERFENCES = "pymdownx.superfences"


class AttnvizPlugin(BasePlugin):
    def on_config(self, config):
        if SUPERFENCES not in config.markdown_extensions:
            config.markdown_extensions.append(SUPERFENCES)
        options = config.mdx_configs.setdefault(SUPERFENCES, {})
        fences = options.setdefault("custom_fences", [])
        if not any(fence.get("name") == FENCE["name"] for fence in fences):
            fences.append(dict(FENCE))
        return config

    def on_page_markdown(self, markdown, page, config, files):
        set_page(page.file.src_uri, page.file.content_string)
        return markdown

    def on_page_content(self, html, page, config, files):
        set_page(None)
        return html

    def on_build_error(self, error):
        set_page(None)
