"""Figures written inside documents: what the Sphinx directive and the Markdown fence share.

A figure in a document is a TOML spec (the block's body, or a spec file) whose keys
options may override, as flags override a spec on the command line. Every key keeps
where it was set (`Setting`), so an error points at the line, option or file that
caused it. Nothing here imports Sphinx or Markdown.
"""

from __future__ import annotations

import html
import re
import zlib
from dataclasses import dataclass

from ..io import spec
from ..numbers.exact import InputError
from ..words.user_text import check_text

from ..io.spec import check_value, parse_spec, read_spec, with_the_seed
from ..publish.page import unique_alt

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from os import PathLike
    from typing import Any

    from ..figures.composite import Composite
    from ..figures.figure import Drawable, Figure
    from ..layout.mask_map import MapText
    from ..words.figure_text import FigureText


__all__ = ["FigureError", "Setting", "default_settings", "block_settings", "read_file", "file_settings",
           "make_figure", "default_alt", "id_prefix", "inline_html", "say", "DOCUMENT_THEME", "site_dark_selector",
           "with_site_look", "unique_alt"]


class FigureError(Exception):
    """A figure a document asks for cannot be drawn: `message`, and the document `line` to blame if known."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.message, self.line = message, line


def say(err: InputError) -> str:
    """An InputError as one message; a `where` that ends in a colon (an option, `:q:`) takes no second one.

    >>> say(InputError("vector 2 is empty", ":q:")), say(InputError("vector 2 is empty", "q"))
    (':q: vector 2 is empty', 'q: vector 2 is empty')
    """
    if err.where and err.where.endswith(":"):
        return f"{err.where} {err.what}"
    return str(err)


@dataclass(frozen=True)
class Setting:
    """One figure key's checked value, and where the document set it."""

    value: object  # a figure() argument
    label: str  # how errors name it: "q", ":q-tokens:", "figures/causal.toml: q"
    line: int | None = None  # 1-based line in the document, when known


def default_settings(mapping: object, label: str) -> dict[str, Setting]:
    """Site-wide figure keys (Sphinx's `attnviz_defaults`, the MkDocs plugin's `defaults`), checked;
    every figure starts from them. Raises InputError naming `label: key`."""
    if not isinstance(mapping, dict):
        raise InputError(f"expected a table of figure keys, like {{'theme': 'dark'}}, got {type(mapping).__name__}",
                         label)
    return {key: Setting(check_value(key, value, label), f"{label}: {key}") for key, value in mapping.items()}


#: A figure in a document follows the page: its own light or dark toggle (Furo, PyData, MkDocs Material,
#: JupyterLab), else the reader's system setting. A document's `theme` key, or the site's defaults, say otherwise.
DOCUMENT_THEME = Setting("auto", "theme")


def site_dark_selector(value: object, label: str) -> str | None:
    """A site's dark selector (Sphinx's `attnviz_dark_selector`, the MkDocs plugin's `dark_selector`), checked;
    None or "" for none. Raises InputError naming `label`."""
    from ..render.themes import check_dark_selector  # start-up: only a site that names its toggle needs it

    return check_dark_selector(value, label) if value not in (None, "") else None


def with_site_look(settings: Mapping[str, Setting], dark_selector: str | None, label: str) -> dict[str, Setting]:
    """`settings` starting from the document theme (`DOCUMENT_THEME`), and with the site's `dark_selector`
    when the figure's theme is auto and it names no selector of its own (other themes do not follow the page)."""
    looked = {"theme": DOCUMENT_THEME, **settings}
    if dark_selector and "dark_selector" not in looked and looked["theme"].value == "auto":
        looked["dark_selector"] = Setting(dark_selector, label)
    return looked


_KEY_LINE = re.compile(r"""\s*(?:"([^"]+)"|'([^']+)'|([A-Za-z0-9_-]+))\s*=""")


def block_settings(text: str, first_line: int = 1) -> dict[str, Setting]:
    """The keys of a TOML block, checked; `first_line` is the line number of the block's first
    line in the document (by default, lines are counted within the block)."""

    def at(n: int, message: str) -> FigureError:
        return FigureError(message, first_line + n - 1)

    try:
        mapping = parse_spec(text, "block")
    except InputError as err:
        if match := re.fullmatch(r"block:(\d+):(\d+)", err.where or ""):
            raise at(int(match[1]), f"{err.what} (column {match[2]})") from None
        raise FigureError(err.what, first_line) from None
    lines: dict[str, int] = {}
    for n, line in enumerate(text.splitlines(), 1):
        if match := _KEY_LINE.match(line):
            lines.setdefault(match[1] or match[2] or match[3], n)
    settings: dict[str, Setting] = {}
    for key, value in mapping.items():
        n = lines.get(key, 1)
        try:
            checked = check_value(key, value)
        except InputError as err:
            raise at(n, str(err)) from None
        settings[key] = Setting(checked, key, first_line + n - 1)
    return settings


def read_file(path: str | PathLike[str], shown: str, line: int | None = None) -> dict[str, Any]:
    """A spec file's mapping (not checked); errors name it as `shown` (what the author wrote)."""
    def rename(where: str | None) -> str | None:
        return shown + where[len(str(path)):] if where and where.startswith(str(path)) else where

    try:
        return read_spec(path)[0]
    except InputError as err:
        raise FigureError(say(err.relocated(rename)), line) from None


def file_settings(path: str | PathLike[str], shown: str, line: int | None = None) -> dict[str, Setting]:
    """The keys of a spec file at `path`, checked; errors name it as `shown`."""
    try:
        return {key: Setting(check_value(key, value, shown), f"{shown}: {key}", line)
                for key, value in read_file(path, shown, line).items()}
    except InputError as err:
        raise FigureError(say(err), line) from None


def make_figure(settings: Mapping[str, Setting], *, id_prefix: str | None,
                line: int | None = None) -> Figure | Composite:
    """The figure the settings describe; without q and k, the seed's. Errors are located at the
    setting they come from, else at `line`."""
    # start-up: a document's settings load no figure code until a figure is drawn
    from ..figures.from_arguments import build

    kwargs: dict[str, Any] = {key: setting.value for key, setting in settings.items()}
    if not with_the_seed(kwargs) and ("q" in kwargs) != ("k" in kwargs):
        given, missing = ("q", "k") if "q" in kwargs else ("k", "q")
        raise FigureError(f"{settings[given].label} gives the {given} vectors, so '{missing}' is needed too "
                          f"({spec.KEYS[missing].expects}, e.g. {spec.KEYS[missing].example})", settings[given].line)
    try:
        return build(kwargs, id_prefix=id_prefix)
    except InputError as err:
        raise _located(err, settings, line) from None


def default_alt(figure: Drawable) -> str:
    """What screen readers announce for a figure the document gives no alt text: its title and subtitle
    (panels composed into one figure: their title, else what each shows)."""
    words: FigureText | MapText | None = getattr(figure, "words", None)
    if words is None:
        if TYPE_CHECKING:  # a figure without words is composed of panels
            assert isinstance(figure, Composite)
        return figure.title or figure.description()
    return f"{words.title}. {words.subtitle}" if words.subtitle else words.title


def _located(err: InputError, settings: Mapping[str, Setting], line: int | None) -> FigureError:
    """The API names inputs `q`, `q/k`, `tokens: label 2`, `highlight '3,3'`: say where the document set them."""
    match = re.match(r"q/k|\w+", err.where or "")
    keys = () if not match else ("q", "k") if match[0] == "q/k" else (match[0],)
    places = [settings[key] for key in keys if key in settings]
    if not places:
        return FigureError(str(err), line)
    label = " and ".join(place.label for place in places)
    if TYPE_CHECKING:  # a setting was found: `where` named it
        assert err.where is not None and match is not None
    rest = err.where[match.end():]
    if label.endswith(":") and rest.startswith(":"):  # ":tokens:" + ": label 2"
        rest = rest[1:]
    return FigureError(say(InputError(err.what, label + rest)), next((p.line for p in places if p.line), line))


def id_prefix(page: str, number: int) -> str:
    """The id prefix of a page's `number`th figure: `attnviz-<page>-<number>`, the same in every build.

    Ids need to be unique within one HTML page; a page name that is not plain letters
    and digits also gets a short hash, so two names never give the same prefix.

    >>> id_prefix("index", 1), id_prefix("guide/tutorial", 2)
    ('attnviz-index-1', 'attnviz-guide-tutorial-49825c-2')
    """
    slug = re.sub(r"[^A-Za-z0-9]+", "-", page).strip("-") or "page"
    if slug != page:
        slug += f"-{zlib.crc32(page.encode('utf-8')) & 0xFFFFFF:06x}"
    return f"attnviz-{slug}-{number}"


def inline_html(svg: str, *, alt: str | None = None, classes: Iterable[str] = (),
                element_id: str | None = None) -> str:
    """The SVG ready to inline in an HTML page: wrapped in `<div class="attnviz-figure">`, scaled
    down to narrow columns, and with `alt` (if given) as what screen readers announce."""
    from ..publish.page import inline_svg, label_svg  # start-up: only HTML output inlines SVG

    svg = inline_svg(svg)
    if alt is not None:
        svg = label_svg(svg, check_text(alt, "alt"))
    end = svg.index(">")
    tag, body = svg[:end], svg[end:]
    tag = _style(tag, "max-width:100%;height:auto")
    names = " ".join(["attnviz-figure", *classes])
    ident = f' id="{html.escape(element_id)}"' if element_id else ""
    return f'<div class="{html.escape(names)}"{ident}>{tag}{body}</div>'


def _style(tag: str, rules: str) -> str:
    """Add CSS declarations to a start tag's style attribute, creating it if needed."""
    if match := re.search(r' style="([^"]*)"', tag):
        return f'{tag[:match.start(1)]}{rules};{match[1]}{tag[match.end(1):]}'
    return f'{tag} style="{rules}"'
