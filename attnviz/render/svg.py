"""SVG backend: the only module that knows SVG.

It paints a `layout.Layout`: roles become colours (from `themes`) and font
attributes, numbers are formatted by `fmt`, text and attribute values are escaped
once, by `backends.xml`. Colours are presentation
attributes, so the figure looks right where style sheets are blocked (strict CSP)
or unsupported (CairoSVG); a scoped <style> layers CSS custom properties on top
(see `themes`).
"""

from functools import lru_cache

from ..layout.figure import LEADING, Group, Mark, Rect, Text
from ..layout.metrics import FONT_FAMILIES
from .themes import SHAPE_PAINT, TEXT_COLOUR, get_theme, stylesheet
from .xml import Element, attributes as _attributes, escape_text, leaf, parent

__all__ = ["render_svg", "fmt"]

@lru_cache(maxsize=4096)  # a grid repeats its column and row coordinates
def fmt(number):
    """A coordinate as short, stable text: at most two decimals, no trailing zeros.

    >>> fmt(12.0), fmt(3.14159), fmt(-0.001)
    ('12', '3.14', '0')
    """
    text = f"{number:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def render_svg(layout, id_prefix, theme="light", description=None, font_css=""):
    """The layout as one standalone SVG document (a str).

    `theme`: a theme name or `themes.Theme`; `description`: the sentence for the root's
    `aria-description`; `font_css`: @font-face and font-family rules of embedded fonts.
    """
    theme = get_theme(theme)
    painter = _Painter(theme.colours, id_prefix)
    width, height = fmt(layout.width), fmt(layout.height)
    root = Element("svg", {"xmlns": "http://www.w3.org/2000/svg", "version": "1.1", "class": "attnviz",
                           "id": id_prefix, "role": "img", "aria-labelledby": f"{id_prefix}-title {id_prefix}-desc",
                           "width": width, "height": height, "viewBox": f"0 0 {width} {height}",
                           "data-attnviz-theme": theme.name})
    if description:
        root.attributes["aria-description"] = description
    # <title> and <desc> come first, for screen readers.
    root.add(Element("title", {"id": f"{id_prefix}-title"}, layout.title))
    root.add(Element("desc", {"id": f"{id_prefix}-desc"}, layout.desc))
    css = stylesheet(id_prefix, theme, font_css)
    if css:
        root.add(Element("style", {}, css))
    root.add(Element("defs")).add(painter.hatch(f"{id_prefix}-hatch"))
    root.add(Element("rect", {"class": "attnviz-background", "x": "0", "y": "0", "width": width, "height": height,
                              **painter.shape("background")}))
    for item in layout.items:
        root.add(painter.element(item))
    return root.to_string()


class _Painter:
    """Turns layout items into SVG elements painted with one palette."""

    def __init__(self, palette, id_prefix):
        self.palette, self.id_prefix = palette, id_prefix
        self._paint = {}  # role: its presentation attributes, made once (a 64x64 grid has 4,096 cell rects)
        self._texts = {}  # (what, role): attribute text written once

    def _written(self, key, make):
        """Attribute text that is the same for every element of a role, made once."""
        if key not in self._texts:
            self._texts[key] = make()
        return self._texts[key]

    def shape(self, role):
        """Presentation attributes (fill, stroke) of a shape role (shared: do not change them)."""
        if role not in self._paint:
            self._paint[role] = self._shape(role)
        return self._paint[role]

    def _shape(self, role):
        fill, stroke = SHAPE_PAINT[role]
        if fill == "hatch":
            paint = {"fill": f"url(#{self.id_prefix}-hatch)"}
        else:
            paint = {"fill": self.palette[fill] if fill else "none"}
        if stroke:
            paint["stroke"] = self.palette[stroke]
        return paint

    def hatch(self, pattern_id):
        """Diagonal stripes for masked cells: they read as "masked" without colour, and in greyscale."""
        pattern = Element("pattern", {"id": pattern_id, "width": "8", "height": "8", "patternUnits": "userSpaceOnUse",
                                      "patternTransform": "rotate(45)"})
        pattern.add(leaf("rect", {"class": "attnviz-hatch-base", "x": "0", "y": "0", "width": "8", "height": "8",
                                  "fill": self.palette["masked-fill"]}))
        pattern.add(leaf("rect", {"class": "attnviz-hatch-stripe", "x": "0", "y": "0", "width": "2.5",
                                  "height": "8", "fill": self.palette["masked-hatch"]}))
        return pattern

    def element(self, item, inherited=None):
        """`inherited`: the shape role whose paint an enclosing group carries, so its rects need none."""
        if isinstance(item, Group):
            attributes = {"class": " ".join(item.classes)}
            attributes.update(item.attrs)
            if item.classes[0] in _GROUP_PAINT:
                inherited, hints = _GROUP_PAINT[item.classes[0]]
                attributes.update({**self.shape(inherited), **hints})
            return parent("g", attributes, [self.element(child, inherited) for child in item.children])
        if isinstance(item, Text):
            return self.text(item)
        if isinstance(item, Rect):
            return self.rect(item, paint=item.role != inherited)
        if isinstance(item, Mark):
            s = item.size
            points = [(item.x - s, item.y), (item.x, item.y), (item.x, item.y + s)]
            return leaf("polygon", {"class": f"attnviz-{item.role}",
                                       "points": " ".join(f"{fmt(x)},{fmt(y)}" for x, y in points),
                                       **self.shape(item.role)})
        raise TypeError(f"cannot draw {item!r}")

    def rect(self, rect, paint=True):
        head = _attributes({"class": f"attnviz-{rect.role}", **dict(rect.attrs)}) if rect.attrs else \
            self._written(("rect-class", rect.role), lambda: _attributes({"class": f"attnviz-{rect.role}"}))
        place = f' x="{fmt(rect.x)}" y="{fmt(rect.y)}" width="{fmt(rect.w)}" height="{fmt(rect.h)}"'
        if rect.rx:
            place += f' rx="{fmt(rect.rx)}"'
        # A role's paint and stroke are the same on every rect: written once.
        tail = self._written(("rect-paint", rect.role, paint), lambda: _attributes(
            {**(self.shape(rect.role) if paint else {}), **_STROKES.get(rect.role, {})}))
        return f"<rect{head}{place}{tail}/>"

    def text(self, text):
        style, role = text.style, text.role
        head = self._written(("text-class", role), lambda: _attributes({"class": f"attnviz-{role}-text"}))
        # The role's colour and font, the same on every text of the role: written once.
        font = self._written(("text-font", role), lambda: _attributes(
            {"fill": self.palette[TEXT_COLOUR[role]], "font-family": FONT_FAMILIES[style.family],
             "font-size": fmt(style.size)}))
        weight = self._written(("text-weight", role), lambda: _attributes(
            {**({"font-weight": "bold"} if style.bold else {}), **({"font-style": "italic"} if style.italic else {})}))
        written = f'{head} x="{fmt(text.x)}" y="{fmt(text.y)}"{font}'
        if text.anchor != "start":
            written += f' text-anchor="{text.anchor}"'
        if text.rotate:
            written += f' transform="rotate({text.rotate} {fmt(text.x)} {fmt(text.y)})"'
        written += weight
        line = text.lines[0] if len(text.lines) == 1 else "".join(text.lines)
        if _collapsible(line):  # a wrapped line's trailing space joins it to the next
            # Without this, SVG would drop a label's leading space and squeeze "a  b" to "a b".
            written += ' xml:space="preserve"'
        if len(text.lines) == 1:
            return f"<text{written}>{escape_text(text.lines[0])}</text>"
        line_height = style.size * LEADING
        tspans = "".join(
            leaf("tspan", {"x": fmt(text.x + (text.indent if n else 0)), "y": fmt(text.y + n * line_height)}, line)
            for n, line in enumerate(text.lines))
        return f"<text{written}>{tspans}</text>"


def _collapsible(text):
    """Whether SVG's default whitespace handling would strip, squeeze or delete (newlines) some of `text`.
    Plain string tests, not a regex: this runs on every text of a 64×64 figure."""
    return (text[:1] == " " or text[-1:] == " " or "  " in text or "\t" in text or "\n" in text
            or "\r" in text)


# A map's kept runs take their fill from the map (once, not on each of up to 1,024 rects); its cells are
# edge to edge at fractional sizes, where anti-aliased edges would show seams between rows.
_GROUP_PAINT = {"attnviz-map": ("kept", {"shape-rendering": "crispEdges"})}

# Stroke shapes are part of the meaning, not the theme: dashed = masked, thick = computed this step.
_STROKES = {
    "cell-masked": {"stroke-dasharray": "5 3"},
    "cell-computed": {"stroke-width": "3"},
    "cell-computed-outline": {"stroke-width": "3"},
    "cell-pending": {"stroke-dasharray": "2 3"},  # dotted = not computed yet (a walkthrough step)
    "softmax-pending": {"stroke-dasharray": "2 3"},
    "output-pending": {"stroke-dasharray": "2 3"},
    "computed": {"stroke-width": "2.5", "fill-opacity": "0.6"},  # a map's highlight: the cell under it shows
}
