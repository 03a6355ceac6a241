"""Whether an SVG is one attnviz could have written: the check a figure read back from a docs cache passes.

A docs cache's entries are inlined into pages, so one is taken only if it is data of the kind attnviz
itself draws (`svg`, `xml`, `themes`): only the elements and attributes in `ELEMENTS`, each inside the
elements it can sit in; ids under the figure's own prefix, and `url(#id)` the only reference (no href,
no `url()` elsewhere); a `<style>` that only paints the figure itself (every rule scoped to
`:where(#prefix)` and its descendants, only the at-rules, properties and functions attnviz writes, fonts
only as `data:font/woff` URLs). No script, event handler, `foreignObject`, external reference, comment,
CDATA, processing instruction or DOCTYPE (so no entity): the standard library's expat reads the text,
bounded in size, after a plain scan has refused `<!` and `<?` outright.
"""

from __future__ import annotations

import re
from xml.parsers import expat

from ..words.budget import FIGURE_CHARS
from .themes import check_dark_selector

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["ELEMENTS", "MAX_SVG_CHARS", "svg_problem", "css_problem"]

SVG_NS = "http://www.w3.org/2000/svg"
MAX_SVG_CHARS = 2 * FIGURE_CHARS  # the figure budget, and room for --embed-font's faces
_GRAPHIC = frozenset({"svg", "g"})
_RECT = ("class", "x", "y", "width", "height", "rx", "fill", "stroke", "stroke-width", "stroke-dasharray",
         "fill-opacity", "data-k", "data-keys", "data-layer", "data-part", "data-q", "data-rows", "data-slot",
         "data-type", "data-drawn", "data-positions", "data-softcap", "data-sink")  # the last: a model's strip
#: Every element attnviz writes: (the elements it sits in (None: the root), the attributes it may have).
ELEMENTS: dict[str, tuple[frozenset[str] | None, frozenset[str]]] = {
    "svg": (None, frozenset({"xmlns", "version", "class", "id", "role", "aria-labelledby", "aria-description",
                             "width", "height", "viewBox", "data-attnviz-theme"})),
    "title": (frozenset({"svg"}), frozenset({"id"})),
    "desc": (frozenset({"svg"}), frozenset({"id"})),
    "style": (frozenset({"svg"}), frozenset()),
    "defs": (frozenset({"svg"}), frozenset()),
    "pattern": (frozenset({"defs"}), frozenset({"id", "width", "height", "patternUnits", "patternTransform"})),
    "g": (_GRAPHIC, frozenset({"class", "aria-label", "fill", "shape-rendering", "data-head", "data-k",
                               "data-kv-head", "data-layers", "data-legend", "data-m", "data-panel", "data-q",
                               "data-rescale", "data-shape", "data-stack", "data-t", "data-value",
                               "data-weight", "data-block", "data-sparsity", "data-parent", "data-tokens",
                               "data-mark"})),
    "rect": (_GRAPHIC | {"pattern"}, frozenset(_RECT)),
    "polygon": (_GRAPHIC, frozenset({"class", "fill", "points"})),
    "text": (_GRAPHIC, frozenset({"class", "x", "y", "fill", "font-family", "font-size", "font-style",
                                  "font-weight", "text-anchor", "transform", "xml:space"})),
    "tspan": (frozenset({"text"}), frozenset({"x", "y", "dy", "font-size"})),
}
#: Attributes whose value is words (accessible names, data, class names): any text.
_WORDS = re.compile(r"aria-label|aria-description|class|data-[a-z-]+")
#: Every other value: numbers, names, colours, `rotate(...)`, `url(#id)`, font lists; the functions named.
_VALUE = re.compile(r"[A-Za-z0-9 #.,%()'_-]*")
_FUNCTIONS = frozenset({"url", "rotate"})
_CALL = re.compile(r"([A-Za-z_-]*)\(([^()]*)\)")  # one call, its argument holding no other


class _Refused(Exception):
    """What makes the SVG one attnviz would not write."""


def svg_problem(svg: str, id_prefix: str) -> str | None:
    """None if `svg` is a figure attnviz could have written with ids under `id_prefix`; else the first thing
    found that it would not write.

    >>> svg_problem('<svg xmlns="http://www.w3.org/2000/svg" id="p"><title id="p-title">A</title></svg>', "p")
    >>> svg_problem('<svg xmlns="http://www.w3.org/2000/svg" id="p"><script>alert(1)</script></svg>', "p")
    '<script> is not an element attnviz writes'
    """
    if len(svg) > MAX_SVG_CHARS:
        return f"longer than {MAX_SVG_CHARS:,} characters"
    if "<!" in svg or "<?" in svg:  # DOCTYPE, entity, comment, CDATA, processing instruction, XML declaration
        return "a declaration, comment or processing instruction"
    reader = _Reader(id_prefix)
    try:
        reader.read(svg)
        return css_problem(reader.css, id_prefix) if reader.css is not None else None
    except _Refused as err:
        return str(err)
    except expat.ExpatError as err:
        return f"not well-formed XML ({err})"


class _Reader:
    """One pass of expat over the SVG, each element checked as it starts; the <style> text kept for its check."""

    def __init__(self, id_prefix: str) -> None:
        self.prefix = id_prefix
        self.open: list[str] = []
        self.css: str | None = None

    def read(self, svg: str) -> None:
        parser = expat.ParserCreate()
        parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
        parser.StartElementHandler = self.start
        parser.EndElementHandler = lambda name: self.open.pop()
        parser.CharacterDataHandler = self.text
        for handler in ("StartDoctypeDeclHandler", "EntityDeclHandler", "ProcessingInstructionHandler",
                        "CommentHandler", "StartCdataSectionHandler", "ExternalEntityRefHandler"):
            setattr(parser, handler, _refuse)  # the scan above already refused them: a second lock
        parser.Parse(svg, True)

    def start(self, name: str, attributes: dict[str, str]) -> None:
        if name not in ELEMENTS:
            raise _Refused(f"<{name}> is not an element attnviz writes")
        parents, allowed = ELEMENTS[name]
        parent = self.open[-1] if self.open else None
        if (parent is None) != (parents is None) or (parents is not None and parent not in parents):
            raise _Refused(f"<{name}> inside <{parent}>" if parent else f"<{name}> as the root")
        for attribute, value in attributes.items():
            if attribute not in allowed:
                raise _Refused(f"<{name} {attribute}> is not an attribute attnviz writes")
            self.value(attribute, value)
        if name == "svg" and (attributes.get("xmlns") != SVG_NS or attributes.get("id") != self.prefix):
            raise _Refused(f"the root is not an SVG with id {self.prefix!r}")
        if name == "style":  # one style sheet, as attnviz writes: each is checked, none slips past a later one
            if self.css is not None:
                raise _Refused("a second <style>")
            self.css = ""
        self.open.append(name)

    def text(self, data: str) -> None:
        if self.open and self.open[-1] == "style" and self.css is not None:
            self.css += data

    def value(self, attribute: str, value: str) -> None:
        if attribute in ("id", "aria-labelledby"):
            for name in value.split(" "):
                self.own_id(name, attribute)
        elif not _WORDS.fullmatch(attribute) and attribute != "xmlns":
            if not _VALUE.fullmatch(value):
                raise _Refused(f"{attribute}={value[:40]!r}: not a value attnviz writes")
            if {"(", ")"} & set(_CALL.sub("", value)):  # a call inside another (`rotate( url(x)`) or left open
                raise _Refused(f"{attribute}={value[:40]!r}: not a value attnviz writes")
            for function, argument in _CALL.findall(value):
                if function.lower() not in _FUNCTIONS:
                    raise _Refused(f"{attribute}: {function}() is not a function attnviz writes")
                if function.lower() == "url":
                    self.own_id(argument.removeprefix("#") if argument.startswith("#") else "", attribute)

    def own_id(self, name: str, where: str) -> None:
        if not (name == self.prefix or (name.startswith(self.prefix + "-") and _ID.fullmatch(name))):
            raise _Refused(f"{where}: {name[:40]!r} is not an id of this figure ({self.prefix}-...)")


_ID = re.compile(r"[A-Za-z0-9_-]+")


def _refuse(*_: object) -> None:
    raise _Refused("a declaration, comment or processing instruction")


# The style sheet: at-rules as `themes` and `font_embed` write them, and rules that paint the figure's own elements.
_GROUPS = frozenset({"@supports (color: var(--attnviz-x))", "@media (prefers-color-scheme: dark)"})
_FONT_FACE = re.compile(r'\s*font-family: "([A-Za-z0-9_-]+)"; font-weight: (?:normal|bold); '
                        r'font-style: (?:normal|italic); src: url\(data:font/woff;base64,[A-Za-z0-9+/]*={0,2}\) '
                        r'format\("woff"\)\s*')
_DESCENDANT = r"(?:\s+(?:[a-z]+)?(?:\.[A-Za-z0-9_-]+)+|\s+:is\(\.[A-Za-z0-9_-]+(?:,\s*\.[A-Za-z0-9_-]+)*\))*"
_PROPERTY = re.compile(r"--_attnviz-[a-z0-9-]+|fill|stroke|font-family")
_CSS_VALUE = re.compile(r"[A-Za-z0-9 #.,%()'\"_-]+")


def css_problem(css: str, id_prefix: str) -> str | None:
    """None if `css` is a <style> attnviz could have written for the figure `id_prefix`; else what is wrong.

    >>> css_problem(':where(#p) rect.attnviz-cell { fill: var(--attnviz-cell-fill, #fff) }', "p")
    >>> css_problem(':where(#p) + p { fill: red }', "p")
    "a selector that reaches outside the figure: ':where(#p) + p'"
    """
    if not _only_known_at_rules(css):
        return "an escape, comment, import or character attnviz does not write"
    try:
        _check_blocks(css, id_prefix)
    except _Refused as err:
        return str(err)
    return None


def _only_known_at_rules(css: str) -> bool:
    """Whether `@` and `/` appear only in the at-rules attnviz writes, and `\\ < & !` not at all."""
    if any(c in css for c in "\\<&!"):
        return False
    rest = _FONT_URL.sub("", css)
    rest = rest.replace("@font-face", "")
    for group in _GROUPS:
        rest = rest.replace(group, "")
    return "@" not in rest and "/" not in rest


_FONT_URL = re.compile(r"url\(data:font/woff;base64,[A-Za-z0-9+/]*={0,2}\)")


def _pieces(css: str) -> Iterator[tuple[str, str]]:
    """(text, the brace after it) for each brace; ("", text left) at the end."""
    start = 0
    for match in re.finditer(r"[{}]", css):
        yield css[start:match.start()], match[0]
        start = match.end()
    yield css[start:], ""


def _check_blocks(css: str, id_prefix: str) -> None:
    open_blocks: list[str] = []  # "group", "face" or "rule", innermost last
    for text, brace in _pieces(css):
        if '"' in text and text.count('"') % 2 or "'" in text and text.count("'") % 2:
            raise _Refused("a brace inside a quoted string")  # attnviz writes none
        if brace == "{":
            if open_blocks and open_blocks[-1] != "group":
                raise _Refused("a block inside a rule")
            open_blocks.append(_block_kind(text.strip(), id_prefix))
        elif brace == "}":
            if not open_blocks:
                raise _Refused("an unbalanced '}'")
            _check_body(open_blocks.pop(), text, id_prefix)
        elif open_blocks or text.strip():
            raise _Refused("an unclosed block" if open_blocks else "text outside any rule")


def _block_kind(prelude: str, id_prefix: str) -> str:
    if prelude in _GROUPS:
        return "group"
    if prelude == "@font-face":
        return "face"
    _check_selector(prelude, id_prefix)
    return "rule"


def _check_selector(selector: str, id_prefix: str) -> None:
    """A rule's selector reaches only the figure: `[:where(CONTEXT) ]:where(#prefix)` and descendants of it."""
    scope = f":where(#{id_prefix})"
    context, found, rest = selector.rpartition(scope)
    context = context.strip()
    good = bool(found) and re.fullmatch(_DESCENDANT, rest) is not None
    if good and context:
        try:  # the page's light or dark toggle around the figure, as `themes.check_dark_selector` takes it
            good = context.startswith(":where(") and context.endswith(")") and bool(
                check_dark_selector(context[7:-1], "selector"))
        except ValueError:
            good = False
    if not good:
        raise _Refused(f"a selector that reaches outside the figure: {selector[:80]!r}")


def _check_body(kind: str, body: str, id_prefix: str) -> None:
    if kind == "group":
        if body.strip():
            raise _Refused("text outside any rule")
    elif kind == "face":  # a face is the page's, not the figure's: only the figure's own names (font_embed's)
        face = _FONT_FACE.fullmatch(body)
        if not (face and face[1].startswith(id_prefix + "-")):
            raise _Refused("an @font-face that is not one of this figure's embedded fonts")
    else:
        for declaration in filter(str.strip, body.split(";")):
            name, colon, value = declaration.partition(":")
            if not (colon and _PROPERTY.fullmatch(name.strip()) and _CSS_VALUE.fullmatch(value.strip())):
                raise _Refused(f"a declaration attnviz does not write: {declaration.strip()[:60]!r}")
            if any(function.lower() != "var" for function in re.findall(r"([A-Za-z_-]*)\(", value)):
                raise _Refused(f"a function attnviz does not write: {declaration.strip()[:60]!r}")
