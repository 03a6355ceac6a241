"""SVG backend: the only module that imports svgwrite.

It paints a `layout.Layout`: roles become colours (from `themes`) and font
attributes, numbers are formatted by `fmt`, text and attribute values are escaped
by svgwrite's XML serialiser (ElementTree), once. Colours are presentation
attributes, so the figure looks right where style sheets are blocked (strict CSP)
or unsupported (CairoSVG); a scoped <style> layers CSS custom properties on top
(see `themes`).
"""

import sys

from ..layout import LEADING, Group, Mark, Rect, Text
from ..metrics import FONT_FAMILIES
from ..themes import SHAPE_PAINT, TEXT_COLOUR, get_theme, stylesheet

__all__ = ["render_svg", "fmt"]

def fmt(number):
    """A coordinate as short, stable text: at most two decimals, no trailing zeros.

    >>> fmt(12.0), fmt(3.14159), fmt(-0.001)
    ('12', '3.14', '0')
    """
    text = f"{number:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


# Modules svgwrite imports but never uses with the validator off (web-font embedding, the
# validator's path-data regexes): they cost about 70 ms of every command's start-up. While
# svgwrite is imported they are placeholders whose functions load the real module when called.
_UNUSED_AT_IMPORT = {
    "urllib.request": ("urlopen",),
    "svgwrite.data.svgparser": ("is_valid_transferlist", "is_valid_pathdata", "is_valid_animation_timing"),
}


def _svgwrite():
    if "svgwrite" in sys.modules:
        return sys.modules["svgwrite"]
    import importlib
    import types

    def deferred(module_name, name):
        def call(*args, **kwargs):
            return getattr(importlib.import_module(module_name), name)(*args, **kwargs)
        return call

    placed = []
    for module_name, names in _UNUSED_AT_IMPORT.items():
        if module_name not in sys.modules:
            placeholder = types.ModuleType(module_name)
            for name in names:
                setattr(placeholder, name, deferred(module_name, name))
            sys.modules[module_name] = placeholder
            placed.append(module_name)
    try:
        import svgwrite
    finally:
        for module_name in placed:
            del sys.modules[module_name]
    return svgwrite


def render_svg(layout, id_prefix, theme="light", description=None, font_css=""):
    """The layout as one standalone SVG document (a str).

    `theme`: a theme name or `themes.Theme`; `description`: the sentence for the root's
    `aria-description`; `font_css`: @font-face and font-family rules of embedded fonts.
    """
    svgwrite = _svgwrite()
    from svgwrite.base import Desc, Title
    from svgwrite.container import Style

    theme = get_theme(theme)
    painter = _Painter(drawing := svgwrite.Drawing(size=(fmt(layout.width), fmt(layout.height)), profile="full",
                                                    debug=False), theme.colours, id_prefix)
    width, height = fmt(layout.width), fmt(layout.height)
    drawing.viewbox(0, 0, width, height)
    title, desc = Title(layout.title), Desc(layout.desc)
    title.xml.set("id", f"{id_prefix}-title")
    desc.xml.set("id", f"{id_prefix}-desc")
    drawing.update({"class": "attnviz", "id": id_prefix, "role": "img",
                    "aria-labelledby": f"{id_prefix}-title {id_prefix}-desc"})
    if description:
        drawing.update({"aria-description": description})
    # <title> and <desc> come first, then the style, then svgwrite's <defs>.
    drawing.elements[:0] = [title, desc, Style(stylesheet(id_prefix, theme, font_css))]
    drawing.defs.add(painter.hatch(f"{id_prefix}-hatch"))
    drawing.add(drawing.rect((0, 0), (width, height), class_="attnviz-background", **painter.shape("background")))
    for item in layout.items:
        drawing.add(painter.element(item))
    # ElementTree writes a carriage return in text as is, and XML parsers read it back as a
    # newline; as a character reference it survives. attnviz itself never writes one.
    return drawing.tostring().replace("\r", "&#13;")


class _Painter:
    """Turns layout items into svgwrite elements painted with one palette."""

    def __init__(self, drawing, palette, id_prefix):
        self.drawing, self.palette, self.id_prefix = drawing, palette, id_prefix

    def shape(self, role):
        """Presentation attributes (fill, stroke) of a shape role."""
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
        d = self.drawing
        pattern = d.pattern(id=pattern_id, size=("8", "8"), patternUnits="userSpaceOnUse",
                            patternTransform="rotate(45)")
        pattern.add(d.rect((0, 0), ("8", "8"), fill=self.palette["masked-fill"], class_="attnviz-hatch-base"))
        pattern.add(d.rect((0, 0), ("2.5", "8"), fill=self.palette["masked-hatch"], class_="attnviz-hatch-stripe"))
        return pattern

    def element(self, item):
        d = self.drawing
        if isinstance(item, Group):
            group = d.g(class_=" ".join(item.classes))
            group.update(dict(item.attrs))
            for child in item.children:
                group.add(self.element(child))
            return group
        if isinstance(item, Text):
            return self.text(item)
        if isinstance(item, Rect):
            return self.rect(item)
        if isinstance(item, Mark):
            s = item.size
            points = [(item.x - s, item.y), (item.x, item.y), (item.x, item.y + s)]
            return d.polygon([(fmt(x), fmt(y)) for x, y in points], class_=f"attnviz-{item.role}",
                             **self.shape(item.role))
        raise TypeError(f"cannot draw {item!r}")

    def rect(self, rect):
        attrs = dict(insert=(fmt(rect.x), fmt(rect.y)), size=(fmt(rect.w), fmt(rect.h)),
                     class_=f"attnviz-{rect.role}", **self.shape(rect.role))
        if rect.rx:
            attrs.update(rx=fmt(rect.rx))
        attrs.update(_STROKES.get(rect.role, {}))
        return self.drawing.rect(**attrs)

    def text(self, text):
        d, style = self.drawing, text.style
        attrs = dict(class_=f"attnviz-{text.role}-text", fill=self.palette[TEXT_COLOUR[text.role]],
                     font_family=FONT_FAMILIES[style.family], font_size=fmt(style.size))
        if text.anchor != "start":
            attrs["text_anchor"] = text.anchor
        if text.rotate:
            attrs["transform"] = f"rotate({text.rotate} {fmt(text.x)} {fmt(text.y)})"
        if style.bold:
            attrs["font_weight"] = "bold"
        if style.italic:
            attrs["font_style"] = "italic"
        if len(text.lines) == 1:
            return d.text(text.lines[0], insert=(fmt(text.x), fmt(text.y)), **attrs)
        element = d.text("", insert=(fmt(text.x), fmt(text.y)), **attrs)
        line_height = style.size * LEADING
        for n, line in enumerate(text.lines):
            x = text.x + (text.indent if n else 0)
            element.add(d.tspan(line, x=[fmt(x)], y=[fmt(text.y + n * line_height)]))
        return element


# Stroke shapes are part of the meaning, not the theme: dashed = masked, thick = computed this step.
_STROKES = {
    "cell-masked": dict(stroke_dasharray="5 3"),
    "cell-computed": dict(stroke_width="3"),
    "cell-computed-outline": dict(stroke_width="3"),
    "cell-pending": dict(stroke_dasharray="2 3"),  # dotted = not computed yet (a walkthrough step)
    "softmax-pending": dict(stroke_dasharray="2 3"),
}
