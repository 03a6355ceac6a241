"""SVG backend: the only module that knows SVG.

It paints a `layout.Layout`: roles become colours (from `themes`) and font
attributes, numbers are formatted by `fmt`, text and attribute values are escaped
once, by `backends.xml`. Colours are presentation
attributes, so the figure looks right where style sheets are blocked (strict CSP)
or unsupported (CairoSVG); a scoped <style> layers CSS custom properties on top
(see `themes`).
"""

from functools import lru_cache

from ..layout import LEADING, Group, Mark, Rect, Text
from ..metrics import FONT_FAMILIES
from ..themes import SHAPE_PAINT, TEXT_COLOUR, get_theme, stylesheet
from .xml import Element, leaf, parent

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
        attributes = {"class": f"attnviz-{rect.role}"}
        if rect.attrs:
            attributes.update(rect.attrs)
        attributes.update(x=fmt(rect.x), y=fmt(rect.y), width=fmt(rect.w), height=fmt(rect.h))
        if rect.rx:
            attributes["rx"] = fmt(rect.rx)
        if paint:
            attributes.update(self.shape(rect.role))
        if rect.role in _STROKES:
            attributes.update(_STROKES[rect.role])
        return leaf("rect", attributes)

    def text(self, text):
        style = text.style
        attributes = {"class": f"attnviz-{text.role}-text", "x": fmt(text.x), "y": fmt(text.y),
                      "fill": self.palette[TEXT_COLOUR[text.role]], "font-family": FONT_FAMILIES[style.family],
                      "font-size": fmt(style.size)}
        if text.anchor != "start":
            attributes["text-anchor"] = text.anchor
        if text.rotate:
            attributes["transform"] = f"rotate({text.rotate} {fmt(text.x)} {fmt(text.y)})"
        if style.bold:
            attributes["font-weight"] = "bold"
        if style.italic:
            attributes["font-style"] = "italic"
        if _collapsible("".join(text.lines)):  # a wrapped line's trailing space joins it to the next
            # Without this, SVG would drop a label's leading space and squeeze "a  b" to "a b".
            attributes["xml:space"] = "preserve"
        if len(text.lines) == 1:
            return leaf("text", attributes, text.lines[0])
        line_height = style.size * LEADING
        return parent("text", attributes, [
            leaf("tspan", {"x": fmt(text.x + (text.indent if n else 0)), "y": fmt(text.y + n * line_height)}, line)
            for n, line in enumerate(text.lines)])


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
