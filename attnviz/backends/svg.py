"""SVG backend: the only module that imports svgwrite.

It paints a `layout.Layout`: roles become colours and font attributes, numbers
are formatted by `fmt`, text and attribute values are escaped by svgwrite's XML
serialiser (ElementTree), once. Colours are presentation attributes, so the figure
looks right where stylesheets are blocked (strict CSP) or unsupported (CairoSVG).
"""

import sys

from ..layout import LEADING, Group, Mark, Rect, Text
from ..metrics import FONT_FAMILIES

__all__ = ["render_svg", "fmt", "PALETTE"]

#: Light theme, WCAG AA text contrast against its background.
PALETTE = {
    "background": "#ffffff",
    "title": "#111827",
    "subtitle": "#374151",
    "badge-fill": "#eef2ff",
    "badge-stroke": "#a5b4fc",
    "badge": "#3730a3",
    "note": "#4b5563",
    "vectors": "#1f2937",
    "caption": "#111827",
    "header": "#374151",
    "cell-fill": "#f8fafc",
    "cell-stroke": "#94a3b8",
    "score": "#0f172a",
    "masked-fill": "#eef0f3",
    "masked-hatch": "#cdd2da",
    "masked-stroke": "#9aa3af",
    "masked": "#4b5563",
    "computed-fill": "#fde68a",
    "computed-stroke": "#92400e",
    "score-computed": "#451a03",
    "softmax-heading": "#111827",
    "softmax-scores": "#1f2937",
    "softmax-weights": "#1f2937",
    "softmax-band": "#fef3c7",
    "footer": "#4b5563",
    "outputs-heading": "#111827",
    "output": "#1f2937",
    "rule": "#d1d5db",
    "pending-fill": "#ffffff",
    "pending-stroke": "#b4bfcc",
}


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


def render_svg(layout, id_prefix):
    """The layout as one standalone SVG document (a str)."""
    svgwrite = _svgwrite()
    from svgwrite.base import Desc, Title

    width, height = fmt(layout.width), fmt(layout.height)
    drawing = svgwrite.Drawing(size=(width, height), profile="full", debug=False)
    drawing.viewbox(0, 0, width, height)
    title, desc = Title(layout.title), Desc(layout.desc)
    title.xml.set("id", f"{id_prefix}-title")
    desc.xml.set("id", f"{id_prefix}-desc")
    drawing.update({"class": "attnviz", "id": id_prefix, "role": "img",
                    "aria-labelledby": f"{id_prefix}-title {id_prefix}-desc"})
    # <title> and <desc> come first, before svgwrite's <defs>.
    drawing.elements[:0] = [title, desc]
    drawing.defs.add(_hatch(drawing, f"{id_prefix}-hatch"))
    drawing.add(drawing.rect((0, 0), (width, height), fill=PALETTE["background"], class_="attnviz-background"))
    for item in layout.items:
        drawing.add(_element(drawing, item, id_prefix))
    # ElementTree writes a carriage return in text as is, and XML parsers read it back as a
    # newline; as a character reference it survives. attnviz itself never writes one.
    return drawing.tostring().replace("\r", "&#13;")


def _hatch(drawing, pattern_id):
    pattern = drawing.pattern(id=pattern_id, size=("8", "8"), patternUnits="userSpaceOnUse",
                              patternTransform="rotate(45)")
    pattern.add(drawing.rect((0, 0), ("8", "8"), fill=PALETTE["masked-fill"]))
    pattern.add(drawing.rect((0, 0), ("2.5", "8"), fill=PALETTE["masked-hatch"]))
    return pattern


def _element(drawing, item, id_prefix):
    if isinstance(item, Group):
        group = drawing.g(class_=" ".join(item.classes))
        group.update(dict(item.attrs))
        for child in item.children:
            group.add(_element(drawing, child, id_prefix))
        return group
    if isinstance(item, Text):
        return _text(drawing, item)
    if isinstance(item, Rect):
        return _rect(drawing, item, id_prefix)
    if isinstance(item, Mark):
        s = item.size
        points = [(item.x - s, item.y), (item.x, item.y), (item.x, item.y + s)]
        return drawing.polygon([(fmt(x), fmt(y)) for x, y in points], fill=PALETTE["computed-stroke"],
                               class_="attnviz-computed-mark")
    raise TypeError(f"cannot draw {item!r}")


def _rect(drawing, rect, id_prefix):
    paint = {
        "badge": dict(fill=PALETTE["badge-fill"], stroke=PALETTE["badge-stroke"]),
        "cell-score": dict(fill=PALETTE["cell-fill"], stroke=PALETTE["cell-stroke"]),
        "cell-masked": dict(fill=f"url(#{id_prefix}-hatch)", stroke=PALETTE["masked-stroke"],
                            stroke_dasharray="5 3"),
        "cell-computed": dict(fill=PALETTE["computed-fill"], stroke=PALETTE["computed-stroke"], stroke_width="3"),
        "softmax-band": dict(fill=PALETTE["softmax-band"]),
        "softmax-bar": dict(fill=PALETTE["computed-stroke"]),
        "rule": dict(fill=PALETTE["rule"]),
        "cell-pending": dict(fill=PALETTE["pending-fill"], stroke=PALETTE["pending-stroke"], stroke_dasharray="2 3"),
        "softmax-pending": dict(fill=PALETTE["pending-fill"], stroke=PALETTE["pending-stroke"],
                                stroke_dasharray="2 3"),
    }[rect.role]
    attrs = dict(insert=(fmt(rect.x), fmt(rect.y)), size=(fmt(rect.w), fmt(rect.h)), class_=f"attnviz-{rect.role}")
    if rect.rx:
        attrs.update(rx=fmt(rect.rx))
    return drawing.rect(**attrs, **paint)


def _text(drawing, text):
    style = text.style
    attrs = dict(class_=f"attnviz-{text.role}-text", fill=PALETTE[text.role],
                 font_family=FONT_FAMILIES[style.family], font_size=fmt(style.size))
    if text.anchor != "start":
        attrs["text_anchor"] = text.anchor
    if style.bold:
        attrs["font_weight"] = "bold"
    if style.italic:
        attrs["font_style"] = "italic"
    if len(text.lines) == 1:
        return drawing.text(text.lines[0], insert=(fmt(text.x), fmt(text.y)), **attrs)
    element = drawing.text("", insert=(fmt(text.x), fmt(text.y)), **attrs)
    line_height = style.size * LEADING
    for n, line in enumerate(text.lines):
        x = text.x + (text.indent if n else 0)
        element.add(drawing.tspan(line, x=[fmt(x)], y=[fmt(text.y + n * line_height)]))
    return element
