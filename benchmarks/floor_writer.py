"""The floor: a figure's SVG written with plain string formatting and nothing else.

Given a figure's layout (every position and text, computed beforehand, outside the timing),
`write(layout, ...)` emits the same elements, attributes and text as attnviz's SVG backend,
byte for byte, as f-strings appended to one list: no element objects, no attribute
dictionaries, no caches. It is the least any writer of this SVG must do, so attnviz's whole
render (vectors -> exact engine -> words -> layout -> SVG) is measured against it.
`bench_render.py` checks the bytes are the same before timing either.
"""

from attnviz.layout.figure import LEADING, Group, Mark, Rect, Text
from attnviz.layout.metrics import FONT_FAMILIES
from attnviz.render.themes import SHAPE_PAINT, TEXT_COLOUR, get_theme, stylesheet

__all__ = ["write"]

STROKES = {"cell-masked": ' stroke-dasharray="5 3"', "cell-computed": ' stroke-width="3"',
           "cell-computed-outline": ' stroke-width="3"', "cell-pending": ' stroke-dasharray="2 3"',
           "softmax-pending": ' stroke-dasharray="2 3"', "output-pending": ' stroke-dasharray="2 3"'}


def num(x):
    text = f"{x:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def text_escape(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\r", "&#13;")


def attr_escape(s):
    return (s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
            .replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;"))


def write(layout, id_prefix, description, theme="light"):
    theme = get_theme(theme)
    palette = theme.colours
    out = []
    w, h = num(layout.width), num(layout.height)
    out.append(f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" class="attnviz" id="{id_prefix}" role="img" '
               f'aria-labelledby="{id_prefix}-title {id_prefix}-desc" width="{w}" height="{h}" '
               f'viewBox="0 0 {w} {h}" data-attnviz-theme="{theme.name}" '
               f'aria-description="{attr_escape(description)}">')
    out.append(f'<title id="{id_prefix}-title">{text_escape(layout.title)}</title>')
    out.append(f'<desc id="{id_prefix}-desc">{text_escape(layout.desc)}</desc>')
    css = stylesheet(id_prefix, theme)
    if css:
        out.append(f"<style>{text_escape(css)}</style>")
    out.append(f'<defs><pattern id="{id_prefix}-hatch" width="8" height="8" patternUnits="userSpaceOnUse" '
               f'patternTransform="rotate(45)"><rect class="attnviz-hatch-base" x="0" y="0" width="8" height="8" '
               f'fill="{palette["masked-fill"]}"/><rect class="attnviz-hatch-stripe" x="0" y="0" width="2.5" '
               f'height="8" fill="{palette["masked-hatch"]}"/></pattern></defs>')
    out.append(f'<rect class="attnviz-background" x="0" y="0" width="{w}" height="{h}"'
               f'{paint("background", palette, id_prefix)}/>')
    for item in layout.items:
        item_svg(item, out, palette, id_prefix)
    out.append("</svg>")
    return "".join(out)


def paint(role, palette, id_prefix):
    fill, stroke = SHAPE_PAINT[role]
    text = f' fill="url(#{id_prefix}-hatch)"' if fill == "hatch" else f' fill="{palette[fill] if fill else "none"}"'
    return text + (f' stroke="{palette[stroke]}"' if stroke else "")


def item_svg(item, out, palette, id_prefix):
    if isinstance(item, Group):
        attrs = "".join(f' {name}="{attr_escape(str(value))}"' for name, value in item.attrs)
        out.append(f'<g class="{" ".join(item.classes)}"{attrs}>')
        for child in item.children:
            item_svg(child, out, palette, id_prefix)
        out.append("</g>")
    elif isinstance(item, Text):
        style = item.style
        attrs = (f' class="attnviz-{item.role}-text" x="{num(item.x)}" y="{num(item.y)}" '
                 f'fill="{palette[TEXT_COLOUR[item.role]]}" font-family="{attr_escape(FONT_FAMILIES[style.family])}" '
                 f'font-size="{num(style.size)}"')
        if item.anchor != "start":
            attrs += f' text-anchor="{item.anchor}"'
        if item.rotate:
            attrs += f' transform="rotate({item.rotate} {num(item.x)} {num(item.y)})"'
        if style.bold:
            attrs += ' font-weight="bold"'
        if style.italic:
            attrs += ' font-style="italic"'
        whole = "".join(item.lines)
        if whole[:1] == " " or whole[-1:] == " " or "  " in whole or "\t" in whole or "\n" in whole or "\r" in whole:
            attrs += ' xml:space="preserve"'
        if len(item.lines) == 1:
            out.append(f"<text{attrs}>{text_escape(item.lines[0])}</text>")
        else:
            out.append(f"<text{attrs}>")
            step = style.size * LEADING
            for n, line in enumerate(item.lines):
                x = item.x + (item.indent if n else 0)
                out.append(f'<tspan x="{num(x)}" y="{num(item.y + n * step)}">{text_escape(line)}</tspan>')
            out.append("</text>")
    elif isinstance(item, Rect):
        rx = f' rx="{num(item.rx)}"' if item.rx else ""
        out.append(f'<rect class="attnviz-{item.role}" x="{num(item.x)}" y="{num(item.y)}" width="{num(item.w)}" '
                   f'height="{num(item.h)}"{rx}{paint(item.role, palette, id_prefix)}{STROKES.get(item.role, "")}/>')
    elif isinstance(item, Mark):
        s = item.size
        points = f"{num(item.x - s)},{num(item.y)} {num(item.x)},{num(item.y)} {num(item.x)},{num(item.y + s)}"
        out.append(f'<polygon class="attnviz-{item.role}" points="{points}"{paint(item.role, palette, id_prefix)}/>')
    else:
        raise TypeError(f"cannot write {item!r}")
