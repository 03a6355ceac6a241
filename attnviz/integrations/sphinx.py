"""Sphinx extension: `extensions = ["attnviz.integrations.sphinx"]` adds the `attnviz` directive.

    .. attnviz::
       :q: 1,0; 0,1; 1,1
       :k: 1,0; 0,1; 1,1
       :highlight: 3,3
       :alt: Causal attention scores for three tokens
       :caption: The exact register.

The figure comes from a spec file (`.. attnviz:: figures/causal.toml`, relative to the
document), or a TOML body, or neither (the seed figure); every spec key is also an option
(`:q-tokens:` or `:q_tokens:`) that overrides it. HTML builders inline the SVG, with ids
unique on the page (`attnviz-<docname>-<n>`, the same in every build); other builders get
an image file. A figure that cannot be drawn is an error naming the document and line,
and the build ends with a non-zero status.

Figures follow the page's light or dark toggle (theme `auto`, the default here; see
`render.themes.PAGE_TOGGLES`). `attnviz_defaults = {"theme": "dark"}` in conf.py gives every figure
those keys (a figure's own keys win); `attnviz_dark_selector = "html.dark"` names a site's own toggle.
`.. attnviz-page:: document.toml` puts a whole document spec (`attnviz page`) inside a page.
"""

from __future__ import annotations

import difflib
import time
import os
from pathlib import Path

from docutils import nodes  # type: ignore[import-untyped]  # docutils ships no types
from docutils.parsers.rst import directives  # type: ignore[import-untyped]  # (nor does its parser)
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from .. import __version__
from . import settings as embed
from .doc_widths import drawn_at_widths, site_widths, theme_widths, widths_html
from ..figures.options import SPEC_OPTIONS
from ..io import spec
from ..numbers.exact import InputError
from ..words.user_text import check_text

from ..io.spec import parse_spec, value_from_text

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

    from sphinx.application import Sphinx
    from sphinx.config import Config
    from sphinx.environment import BuildEnvironment
    from sphinx.util.typing import ExtensionMetadata
    from sphinx.writers.html5 import HTML5Translator

    from .docs_cache import Drawn, FigureCache
    from .settings import Setting


__all__ = ["AttnvizDirective", "AttnvizPageDirective", "attnviz_figure", "attnviz_formula", "setup"]

logger = logging.getLogger(__name__)

#: The directive's own options; every other option is a spec key.
OWN_OPTIONS = {
    "alt": directives.unchanged_required,  # what screen readers announce (default: title and subtitle)
    "caption": directives.unchanged_required,  # a figure caption below, with inline markup
    "name": directives.unchanged_required,  # a target for :ref: and :numref:
    "class": directives.class_option,  # classes for the figure's <div>
}


class attnviz_figure(nodes.General, nodes.Element):  # type: ignore[misc]  # noqa: N801 - docutils: no types; names nodes in lower case
    """A drawn figure: `svg`, `alt` and `prefix`; HTML inlines it, other builders get an image."""


class attnviz_formula(nodes.General, nodes.Element):  # type: ignore[misc]  # noqa: N801 - docutils: no types
    """A document section's formula: `tex`, and `mathml` for HTML; other builders get a math block."""


class _AnyOption(dict[str, "Callable[[str], Any]"]):
    """Every option parses (as text), so `run` can answer an unknown one with the nearest known name."""

    def __missing__(self, name: str) -> Callable[[str], Any]:
        unchanged: Callable[[str], Any] = directives.unchanged
        return unchanged


def _option_spec() -> _AnyOption:
    """The directive's options: its own, then every spec key from the option table, as `q_tokens` and `q-tokens`."""
    options = _AnyOption(OWN_OPTIONS)
    for option in SPEC_OPTIONS:
        options[option.name] = options[option.directive_option] = directives.unchanged
    return options


class AttnvizDirective(SphinxDirective):
    """`.. attnviz::` draws a figure from a spec file, a TOML body or options (one per spec key)."""
    optional_arguments = 1  # a spec file
    final_argument_whitespace = True
    has_content = True  # or a TOML spec
    option_spec = _option_spec()

    def run(self) -> list[nodes.Node]:
        """The figure node (in a captioned figure when given a :caption:)."""
        try:
            drawn, alt = self._figure()
        except embed.FigureError as err:
            _fail(self.env, self.env.docname, err.line or self.lineno, err.message)
            return []
        plain, at_widths = drawn
        node = attnviz_figure(svg=plain.svg, prefix=plain.prefix, alt=alt if alt is not None else plain.alt,
                              widths=[(width, one.svg, one.prefix) for width, one in at_widths])
        node["has_alt"] = alt is not None
        node["classes"] += self.options.get("class", [])
        self.set_source_info(node)
        if "caption" not in self.options:
            self.add_name(node)
            return [node]
        caption_nodes, messages = self.parse_inline(self.options["caption"], lineno=self._line_of("caption"))
        caption = nodes.caption(self.options["caption"], "", *caption_nodes)
        self.set_source_info(caption)
        wrapper = nodes.figure("", node, caption, classes=["attnviz"])
        self.set_source_info(wrapper)
        self.add_name(wrapper)
        return [wrapper, *messages]

    def _figure(self) -> tuple[tuple[Drawn, list[tuple[int, Drawn]]], str | None]:
        settings = _defaults(self.config)
        if self.arguments and self.content:
            raise embed.FigureError("give a spec file or a TOML body, not both", self.lineno)
        if self.arguments:
            shown = self.arguments[0]
            _, path = self.env.relfn2path(shown, self.env.docname)
            self.env.note_dependency(path)
            settings.update(embed.file_settings(Path(path), shown, self.lineno))
        elif self.content:
            settings.update(embed.block_settings("\n".join(self.content), self.content_offset + 1))
        settings.update(self._option_settings())
        settings = embed.with_site_look(settings, _dark_selector(self.config), DARK_SELECTOR)
        alt = self.options.get("alt")
        if alt is not None:
            try:
                alt = " ".join(check_text(alt, ":alt:").split())  # an option may run over several lines
            except InputError as err:
                raise embed.FigureError(embed.say(err), self._line_of("alt")) from None
        prefix = embed.id_prefix(self.env.docname, self.env.new_serialno("attnviz") + 1)
        figures = _figure_cache(self.env)
        drawn = drawn_at_widths(figures, settings, _doc_widths(self.config), id_prefix=prefix, line=self.lineno)
        for reused in [False] * figures.drawn + [True] * figures.reused:  # (each width's drawing counted)
            _count(self.env, reused, 0.0)
        _count_time(self.env, figures.seconds)
        return drawn, alt

    def _option_settings(self) -> dict[str, Setting]:
        settings: dict[str, Setting] = {}
        for name, text in self.options.items():
            if name in OWN_OPTIONS:
                continue
            key, line, label = name.replace("-", "_"), self._line_of(name), f":{name}:"
            if key not in spec.KEYS:
                raise embed.FigureError(_unknown_option(name), line)
            if key in settings:
                raise embed.FigureError(f"{label} and {settings[key].label} set the same key; give one", line)
            try:
                settings[key] = embed.Setting(value_from_text(key, text, label), label, line)
            except InputError as err:
                raise embed.FigureError(embed.say(err), line) from None
        return settings

    def _line_of(self, option: str) -> int:
        """The document line of `:option:` (docutils keeps only the directive's own line)."""
        for offset, text in enumerate(self.block_text.splitlines()):
            if text.lstrip().startswith(f":{option}:"):
                line: int = self.lineno + offset
                return line
        directive_line: int = self.lineno
        return directive_line


class AttnvizPageDirective(SphinxDirective):
    """`.. attnviz-page:: document.toml`: a whole document spec (what `attnviz page` makes a page of),
    inside this page: its heading and sections as rubrics, paragraphs, formulas (MathML in HTML)
    and each section's figure. A TOML body works too; neither gives the seed document."""

    optional_arguments = 1
    final_argument_whitespace = True
    has_content = True
    option_spec = {"class": directives.class_option}

    def run(self) -> list[nodes.Node]:
        """The document's sections: headings, formulas and figures."""
        try:
            return self._nodes()
        except embed.FigureError as err:
            _fail(self.env, self.env.docname, err.line or self.lineno, err.message)
            return []

    def _nodes(self) -> list[nodes.Node]:
        # start-up: only the page directive reads documents
        from dataclasses import replace

        from ..publish.document import build_figures, default_document, parse_document
        from ..publish.mathml import tex_to_mathml

        if self.arguments and self.content:
            raise embed.FigureError("give a document spec file or a TOML body, not both", self.lineno)
        mapping: dict[str, Any] | None = None
        name = "the seed document"
        if self.arguments:
            name = self.arguments[0]
            _, path = self.env.relfn2path(name, self.env.docname)
            self.env.note_dependency(path)
            mapping = embed.read_file(Path(path), name, self.lineno)
        try:
            if self.content:
                name = "body"
                mapping = parse_spec("\n".join(self.content), name)
            document = default_document() if mapping is None else parse_document(mapping, name)
            given = {key: embed.Setting(value, key) for key, value in document.figure.items()}
            looked = embed.with_site_look(given, _dark_selector(self.config), DARK_SELECTOR)  # as the page's
            document = replace(document, figure={key: setting.value for key, setting in looked.items()})
            figures = build_figures(document, name)
            formulas = [section.formula and tex_to_mathml(section.formula, f"{name}: section {n}: formula")
                        for n, section in enumerate(document.sections, 1)]
        except InputError as err:
            raise embed.FigureError(embed.say(err), self.lineno) from None

        box = nodes.container(classes=["attnviz-page", *self.options.get("class", [])])
        if document.title:
            box += nodes.paragraph(document.title, document.title, classes=["attnviz-series"])
        box += nodes.rubric(document.heading, document.heading, classes=["attnviz-heading"])
        box.extend(nodes.paragraph(text, text, classes=["attnviz-intro"]) for text in document.intro)
        if document.legend:
            box += nodes.paragraph(document.legend, document.legend, classes=["attnviz-legend"])
        for section, figure, mathml in zip(document.sections, figures, formulas, strict=True):
            box += nodes.rubric(section.heading, section.heading, classes=["attnviz-section"])
            box.extend(nodes.paragraph(text, text) for text in section.paragraphs)
            if section.formula:
                box += attnviz_formula(tex=section.formula, mathml=mathml)
            prefix = embed.id_prefix(self.env.docname, self.env.new_serialno("attnviz") + 1)
            started = time.perf_counter()
            svg = figure.svg(id_prefix=prefix)
            _count(self.env, False, time.perf_counter() - started)  # a page's figures are in the build's summary
            box += attnviz_figure(svg=svg, prefix=prefix, alt=embed.default_alt(figure), has_alt=False)
        for node in box.findall():
            self.set_source_info(node)
        return [box]


DEFAULTS = "attnviz_defaults"
DARK_SELECTOR = "attnviz_dark_selector"  # conf.py: the site's own dark toggle, for its auto figures
CACHE = "attnviz_cache"  # conf.py: False draws every figure on every read
DOC_WIDTHS = "attnviz_doc_widths"  # conf.py: the content widths doc figures are drawn for ([]: none; None: the theme's)


def _figure_cache(env: BuildEnvironment) -> FigureCache:
    """Figures kept beside the doctrees (they survive `-E`), by a hash of their settings and attnviz."""
    from .docs_cache import FigureCache  # start-up: only a cached build needs it

    return FigureCache(os.path.join(env.doctreedir, "attnviz-figures") if getattr(env.config, CACHE) else None)


# How many figures this build drew and read back, and the time attnviz took: reported at the end.
# Kept per document, as the failures are, so parallel readers' counts merge without double counting.

def _stats(env: BuildEnvironment) -> dict[str, tuple[int, int, float]]:
    # Kept as an attribute of the environment (pickled with it); through vars(), since Sphinx's type declares none.
    stats: dict[str, tuple[int, int, float]] = vars(env).setdefault("attnviz_stats", {})
    return stats


def _count(env: BuildEnvironment, reused: bool, seconds: float) -> None:
    drawn, read_back, took = _stats(env).get(env.docname, (0, 0, 0.0))
    _stats(env)[env.docname] = (drawn + (not reused), read_back + reused, took + seconds)


def _count_time(env: BuildEnvironment, seconds: float) -> None:
    drawn, read_back, took = _stats(env).get(env.docname, (0, 0, 0.0))
    _stats(env)[env.docname] = (drawn, read_back, took + seconds)


def _doc_widths(config: Config) -> tuple[int, ...]:
    """The content widths doc figures are drawn for: conf.py's `attnviz_doc_widths`, else the HTML theme's."""
    try:
        widths = site_widths(getattr(config, DOC_WIDTHS), DOC_WIDTHS)
    except InputError:
        widths = ()  # (`_check_defaults` has reported it once)
    return theme_widths(widths, getattr(config, "html_theme", None))


def _reset_stats(app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
    vars(env)["attnviz_stats"] = {}


def _defaults(config: Config) -> dict[str, Setting]:
    """conf.py's `attnviz_defaults`, checked (`_check_defaults` has reported any error once)."""
    try:
        return embed.default_settings(getattr(config, DEFAULTS), DEFAULTS)
    except InputError:
        return {}


def _dark_selector(config: Config) -> str | None:
    """conf.py's `attnviz_dark_selector`, checked (`_check_defaults` has reported any error once)."""
    try:
        return embed.site_dark_selector(getattr(config, DARK_SELECTOR), DARK_SELECTOR)
    except InputError:
        return None


def _check_defaults(app: Sphinx, config: Config) -> None:
    for name, check in ((DEFAULTS, embed.default_settings), (DARK_SELECTOR, embed.site_dark_selector),
                        (DOC_WIDTHS, site_widths)):
        try:
            check(getattr(config, name), name)
        except InputError as err:
            logger.error("attnviz: conf.py: %s", embed.say(err))
            app.statuscode = 1


def _unknown_option(name: str) -> str:
    known = [*OWN_OPTIONS, *(option.directive_option for option in SPEC_OPTIONS)]
    close = difflib.get_close_matches(name.replace("_", "-"), known, n=1, cutoff=0.5)
    hint = f"; did you mean ':{close[0]}:'?" if close else f"; known options: {', '.join(known)}"
    return f"unknown option ':{name}:'{hint}"


# Failures: logged where they happen, remembered per document (so an unchanged document keeps
# failing in incremental and parallel builds), and turned into a non-zero exit status at the end.

def _failures(env: BuildEnvironment) -> dict[str, list[int]]:
    failures: dict[str, list[int]] = vars(env).setdefault("attnviz_failures", {})  # as _stats
    return failures


def _fail(env: BuildEnvironment, docname: str, line: int, message: str) -> None:
    logger.error("attnviz: %s", message, location=(docname, line))
    _failures(env).setdefault(docname, []).append(line)


def _purge(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    _failures(env).pop(docname, None)


def _merge(app: Sphinx, env: BuildEnvironment, docnames: Iterable[str], other: BuildEnvironment) -> None:
    theirs = _failures(other)
    _failures(env).update({docname: theirs[docname] for docname in docnames if docname in theirs})
    counts = _stats(other)
    _stats(env).update({docname: counts[docname] for docname in docnames if docname in counts})


def _add_host_stylesheet(app: Sphinx) -> None:
    """attnviz.css in _static: the figures' colours as CSS custom properties (`themes.host_stylesheet`)."""
    from pathlib import Path  # start-up: only HTML builds write the style sheet

    from ..render.themes import host_stylesheet

    if app.builder.format != "html":
        return
    static = Path(app.outdir) / "_static"
    static.mkdir(parents=True, exist_ok=True)
    (static / CSS_FILE).write_text(host_stylesheet(_dark_selector(app.config)), encoding="utf-8")
    app.add_css_file(CSS_FILE)


def _finish(app: Sphinx, exception: Exception | None) -> None:
    counts = _stats(app.env).values()
    if counts:
        drawn, reused, seconds = (sum(column) for column in zip(*counts))
        from .docs_cache import build_summary  # start-up: only a build's end sums up

        logger.info(build_summary(drawn, reused, seconds))
    failures = _failures(app.env)
    if exception is None and failures:
        places = ", ".join(f"{app.env.doc2path(docname, False)}:{line}"
                           for docname in sorted(failures) for line in failures[docname])
        count = sum(map(len, failures.values()))
        logger.error("attnviz: %d figure%s could not be drawn (%s); the build fails",
                     count, "" if count == 1 else "s", places)
        app.statuscode = app.statuscode or 1


# Output: HTML inlines the SVG; any other builder gets an image file it can use.

def _visit_html(translator: HTML5Translator, node: attnviz_figure) -> None:
    # Accessible names are unique on a page: the translator writes one document.
    seen: set[str] = getattr(translator, "attnviz_names", set())
    translator.attnviz_names = seen
    alt = embed.unique_alt(node["svg"], node["alt"] if node["has_alt"] else None, seen)
    at_widths = node.get("widths") or [(0, node["svg"], node["prefix"])]
    translator.body.append(widths_html(at_widths, alt=alt, classes=node["classes"],
                                       element_id=(node["ids"] or [None])[0]))
    raise nodes.SkipNode


def _visit_formula_html(translator: HTML5Translator, node: attnviz_formula) -> None:
    # A formula wider than a phone's column scrolls in its own box, not the whole page (`attnviz.css`).
    translator.body.append(f'<div class="attnviz-formula" tabindex="0">{node["mathml"]}</div>')
    raise nodes.SkipNode


def _as_images(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    if app.builder.format == "html":
        return
    for node in list(doctree.findall(attnviz_formula)):
        math = nodes.math_block(node["tex"], node["tex"], docname=docname, number=None, label=None, nowrap=False)
        math.source, math.line = node.source, node.line
        node.replace_self(math)
    for node in list(doctree.findall(attnviz_figure)):
        uri = _write_image(app, node)
        image = nodes.image(uri=uri, alt=node["alt"], candidates={"*": uri}, ids=node["ids"], classes=node["classes"])
        image.source, image.line = node.source, node.line
        node.replace_self(image)


def _write_image(app: Sphinx, node: attnviz_figure) -> str:
    """Write the figure as the best image type the builder takes: SVG, else the first of the builder's types
    a format of the table (render.formats) writes, through its writer (budget, title; PDF and PNG need CairoSVG)."""
    from ..render.formats import FORMATS  # start-up: only a builder that is not HTML writes image files

    types, chosen = app.builder.supported_image_types, FORMATS["svg"]
    data: str | bytes = node["svg"] + "\n"
    if types and chosen.mime not in types:
        wanted = [entry for mime in types for entry in FORMATS.values() if entry.mime == mime]  # the builder's order
        try:
            if not wanted:
                raise InputError(f"attnviz writes none of its image types ({', '.join(types)})", "format")
            chosen, data = wanted[0], wanted[0].write(_drawn(node["svg"]))
        except InputError as err:  # CairoSVG or Cairo missing, or past the format's budget: the SVG instead
            logger.warning("attnviz: the %s builder does not take SVG images, and a figure could not be converted: "
                           "%s", app.builder.name, err, location=node, once=True)
    uri = f"_images/{node['prefix']}.{chosen.extension}"
    path = Path(app.builder.outdir, uri)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return uri


def _drawn(svg: str) -> Any:
    """A figure already drawn (its SVG, perhaps from the docs cache) as a format's writer draws it (`raster.Picture`):
    a doc figure, its size the SVG's, its title the SVG's <title>."""
    from types import SimpleNamespace  # start-up: only a builder that is not HTML reads a drawn figure back
    from xml.etree import ElementTree

    root = ElementTree.fromstring(svg)
    _, _, width, height = map(float, root.get("viewBox", "0 0 0 0").split())  # (a framed root's size is in inches)
    laid = SimpleNamespace(width=width, height=height, title=root.findtext("{http://www.w3.org/2000/svg}title") or "")
    return SimpleNamespace(frame="doc", svg=lambda: svg, layout=lambda: laid, painted=lambda layout: svg)


CSS_FILE = "attnviz.css"


def setup(app: Sphinx) -> ExtensionMetadata:
    """Sphinx's entry point (`extensions = ["attnviz.integrations.sphinx"]`): the `attnviz` and `attnviz-page`
    directives, the `attnviz_defaults` and `attnviz_dark_selector` settings and the host style sheet
    `_static/attnviz.css`."""
    app.add_node(attnviz_figure, html=(_visit_html, None))
    app.add_node(attnviz_formula, html=(_visit_formula_html, None))
    app.add_config_value(DEFAULTS, {}, "env", types=dict)
    app.add_config_value(CACHE, True, "", types=bool)
    app.add_config_value(DARK_SELECTOR, None, "env", types=(str, type(None)))
    app.add_config_value(DOC_WIDTHS, None, "env", types=(list, tuple, type(None)))
    app.connect("env-before-read-docs", _reset_stats)
    app.connect("config-inited", _check_defaults)
    app.add_directive("attnviz", AttnvizDirective)
    app.add_directive("attnviz-page", AttnvizPageDirective)
    app.connect("doctree-resolved", _as_images)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("build-finished", _finish)
    app.connect("builder-inited", _add_host_stylesheet)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}
