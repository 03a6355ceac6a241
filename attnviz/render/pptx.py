"""PowerPoint backend: paints a `layout.Layout` as DrawingML shapes, one named group a figure.

Rectangles are rectangles (rounded, dashed, hatched as the SVG draws them), the highlight's
corner mark is a triangle, and each drawn line of text is a text box in DejaVu at the layout's
size, its baseline where the layout put it: everything stays editable in PowerPoint, Keynote,
LibreOffice and Google Slides. Nothing is a picture.

Colours are the deck theme's scheme colours (`<a:schemeClr val="accent1"/>`, `SCHEME`), never RGB but for
the colours no slot holds (`UNSLOTTED`), so PowerPoint's Design → Variants restyles the figure; `colour_scheme`
writes a theme's palette into those slots. Every shape is named by its role and the cell, softmax row or output
row it belongs to (`cell 3,3`, `cell 3,3 score`), the same on every step, so PowerPoint's Morph transition moves
each shape to where the next step has it. The shapes are written as XML with ids counted here: no
per-shape search through the slide's ids, so a deck of a hundred steps is quick.
"""

from __future__ import annotations

from ..layout.items import Group, measure
from ..layout.math_text import SCRIPT_SCALE, SUB_DROP, SUP_RISE, runs_width
from ..layout.metrics import ASCENT, DESCENT
from .painter import paint as paint_layout
from .xml import escape_attribute, escape_text

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Mapping

    from ..layout.items import Layout, Mark, Rect, Text, TextStyle
    from ..layout.math_text import Run
    from .painter import Paint

__all__ = ["EMU_PER_PT", "SCHEME", "SLOTS", "UNSLOTTED", "colour_scheme", "figure_group", "PptxPainter", "shape_name",
           "clean_attribute", "clean_text"]

EMU_PER_PT = 12700  # English Metric Units in a point
EMU_PER_PX = 9525  # in a CSS pixel (1/96 inch)
FONTS = {"sans": "DejaVu Sans", "mono": "DejaVu Sans Mono"}
_DASHES = {"dashed": "dash", "dotted": "sysDot"}  # painter.DASHES in DrawingML's preset dashes
_HATCHES: dict[float, str] = {45: "wdUpDiag"}  # a painter.Hatch's angle in DrawingML's preset patterns

#: The theme's scheme slots (`<a:clrScheme>`) and the attnviz colour each one holds.
SLOTS = {"dk1": "text", "lt1": "background", "dk2": "text-muted", "lt2": "cell-fill", "accent1": "computed-fill",
         "accent2": "computed-stroke", "accent3": "badge-stroke", "accent4": "masked-stroke",
         "accent5": "cell-stroke", "accent6": "masked-hatch", "hlink": "band-fill", "folHlink": "badge-fill"}
_ON_SLIDE = {"dk1": "tx1", "lt1": "bg1", "dk2": "tx2", "lt2": "bg2"}  # what a slide calls them (the clrMap)
#: Every attnviz colour as the scheme colour a slide names: the slot that holds it, or the nearest one.
SCHEME = {colour: _ON_SLIDE.get(slot, slot) for slot, colour in SLOTS.items()} | {
    "pending-fill": "bg1", "masked-fill": "bg2", "masked-text": "tx2", "computed-text": "tx1", "badge-text": "tx1",
    "rule": "accent6", "pending-stroke": "accent5", "band-fill": "accent1", "badge-fill": "accent3"}
#: The colours no scheme slot holds (the twelve slots are the figure's own): a union's parts (`--color-by part`) and
#: the block classes that borrow their colours (`--blocks`), Okabe and Ito's colour-blind-safe set. They are
#: written as the theme's RGB, so Design > Variants leaves them as they are.
UNSLOTTED = frozenset(f"part-{n}" for n in range(1, 7))
#: Fills drawn as a see-through accent over the slide (colour: its opacity), and never from the hyperlink slots
#: (which hold colours for the theme alone): a slide pasted into a deck of another theme, whose accents may be
#: dark (Office's accent1 is #156082, its hlink #0000FF), keeps a light fill behind its dark text. The highlight's
#: slot holds the colour that, so see-through over the background, is attnviz's highlight (`colour_scheme`); the
#: band (the highlight's, fainter) and the badge's fill are attnviz's near enough in both themes.
TINTS = {"computed-fill": 0.6, "band-fill": 0.3, "badge-fill": 0.18}
# C0 controls (but tab and newline) cannot be written in XML 1.0: drawn as the replacement character
_CONTROLS = {code: "\ufffd" for code in (*range(0, 9), 11, 12, *range(14, 32))}


def clean_text(text: str) -> str:
    """`text` escaped as XML character data, any character XML 1.0 cannot hold drawn as U+FFFD."""
    return escape_text(clean_attribute(text))


def clean_attribute(text: str) -> str:
    """`text` with any character XML 1.0 cannot hold as U+FFFD (escape it with `escape_attribute`)."""
    return text.translate(_CONTROLS)


def colour_scheme(palette: Mapping[str, str], name: str) -> str:
    """The `<a:clrScheme>` holding `palette`'s colours in `SLOTS` (in the order DrawingML requires)."""
    held = dict(palette, **{"computed-fill": _opaque(palette["computed-fill"], palette["background"],
                                                      TINTS["computed-fill"])})
    slots = "".join(f'<a:{slot}><a:srgbClr val="{held[colour][1:].upper()}"/></a:{slot}>'
                    for slot, colour in SLOTS.items())
    return f'<a:clrScheme name="{escape_attribute(name)}">{slots}</a:clrScheme>'


def _opaque(seen: str, under: str, opacity: float) -> str:
    """The colour that, `opacity` see-through over `under`, shows as `seen` (each channel as near as 0-255 allow).

    >>> _opaque("#fde68a", "#ffffff", 0.6)
    '#fcd53c'
    """
    channels = [(int(seen[n:n + 2], 16), int(under[n:n + 2], 16)) for n in (1, 3, 5)]
    return "#" + "".join(f"{min(255, max(0, round((a - b * (1 - opacity)) / opacity))):02x}" for a, b in channels)


def figure_group(layout: Layout, name: str, first_id: int, left: float, top: float, scale: float,
                 description: str = "", palette: Mapping[str, str] | None = None) -> tuple[str, int]:
    """(`<p:grpSp>` markup, the next free id): `layout` drawn with its top-left corner at (`left`, `top`)
    EMU, `scale` EMU a layout unit, as one group called `name` whose shapes have ids from `first_id`;
    `description`: its alternative text (what a screen reader says for the figure); `palette`: the theme's colours,
    for the few that have no scheme slot (`UNSLOTTED`; the light theme's when None)."""
    painter = PptxPainter(first_id + 1, left, top, scale, palette)
    paint_layout(layout.items, layout.width, layout.height, painter)
    x0, y0 = round(left), round(top)
    cx, cy = round(left + layout.width * scale) - x0, round(top + layout.height * scale) - y0
    xfrm = f'<a:off x="{x0}" y="{y0}"/><a:ext cx="{cx}" cy="{cy}"/><a:chOff x="{x0}" y="{y0}"/>' \
           f'<a:chExt cx="{cx}" cy="{cy}"/>'
    descr = f' descr="{escape_attribute(clean_attribute(description))}"' if description else ""
    group = (f'<p:grpSp><p:nvGrpSpPr><p:cNvPr id="{first_id}" name="{escape_attribute(name)}"{descr}/>'
             f'<p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr><a:xfrm>{xfrm}</a:xfrm></p:grpSpPr>{"".join(painter.parts)}'
             "</p:grpSp>")
    return group, painter.next_id


def shape_name(group: Group) -> str | None:
    """What a layout group's shapes are called after: "cell 3,3", "softmax 2", "output 2", "row 5",
    "row band 5", "panel 1"; None for a group that names nothing of its own."""
    attrs = dict(group.attrs)
    kind = group.classes[0].removeprefix("attnviz-") if group.classes else ""
    if kind == "cell" and "data-q" in attrs and "data-k" in attrs:
        return f"cell {attrs['data-q']},{attrs['data-k']}"
    if kind in ("softmax-row", "output-row", "row") and "data-q" in attrs:
        return f"{kind.removesuffix('-row')} {attrs['data-q']}"
    if kind == "row-band" and "data-q" in attrs:
        return f"row band {attrs['data-q']}"
    if kind == "panel" and "data-panel" in attrs:
        return f"panel {attrs['data-panel']}"
    if kind == "legend-entry" and "data-legend" in attrs:
        return f"legend {attrs['data-legend']}"
    return None


class PptxPainter:
    """The PowerPoint backend of the painter interface (`painter.Painter`): shapes as DrawingML markup."""

    def __init__(self, first_id: int, left: float, top: float, scale: float,
                 palette: Mapping[str, str] | None = None) -> None:
        self.left, self.top, self.scale = left, top, scale
        self.palette = palette
        self.next_id = first_id
        self.parts: list[str] = []
        self._context: list[str | None] = []
        self._used: dict[str, int] = {}

    def _name(self, role: str, main: bool = False) -> str:
        """A shape's name: its group's ("cell 3,3") for the group's first rect (`main`), else the group's
        and its role's; numbered from the second of one name on."""
        context = next((c for c in reversed(self._context) if c), None)
        base = context if context and main and context not in self._used else \
            f"{context} {role}" if context else role
        count = self._used.get(base, 0) + 1
        self._used[base] = count
        return base if count == 1 else f"{base} {count}"

    def _edges(self, x: float, y: float, w: float, h: float) -> tuple[int, int, int, int]:
        """(x, y, cx, cy) EMU of a box in layout units: each edge rounded once, so boxes that meet in the
        layout meet on the slide (no seams between a map's rows), at least 1 EMU a side."""
        s = self.scale
        x0, y0 = round(self.left + x * s), round(self.top + y * s)
        return x0, y0, max(1, round(self.left + (x + w) * s) - x0), max(1, round(self.top + (y + h) * s) - y0)

    def _shape(self, name: str, geometry: str, box: tuple[int, int, int, int], fill: str, line: str,
               rotation: int = 0) -> None:
        shape_id, self.next_id = self.next_id, self.next_id + 1
        x, y, cx, cy = box
        rot = f' rot="{rotation * 60000}"' if rotation else ""
        self.parts.append(
            f'<p:sp><p:nvSpPr><p:cNvPr id="{shape_id}" name="{escape_attribute(name)}"/><p:cNvSpPr/><p:nvPr/>'
            f'</p:nvSpPr><p:spPr><a:xfrm{rot}><a:off x="{x}" y="{y}"/><a:ext cx="{cx}" cy="{cy}"/></a:xfrm>'
            f"{geometry}{fill}{line}</p:spPr></p:sp>")

    def open_group(self, group: Group, paint: Paint | None) -> None:
        """A layout group names the shapes in it (`shape_name`); every shape carries its own paint."""
        self._context.append(shape_name(group))

    def close_group(self, group: Group) -> None:
        """The group's names end."""
        self._context.pop()

    def _fill(self, paint: Paint) -> str:
        if paint.hatch is not None:
            return (f'<a:pattFill prst="{_HATCHES[paint.hatch.angle]}"><a:fgClr>{_scheme("masked-hatch")}</a:fgClr>'
                    f'<a:bgClr>{_scheme("masked-fill")}</a:bgClr></a:pattFill>')
        if paint.fill:
            return f"<a:solidFill>{_scheme(paint.fill, paint.fill_opacity, self.palette)}</a:solidFill>"
        return "<a:noFill/>"

    def _line(self, paint: Paint) -> str:
        if not paint.stroke:
            return "<a:ln><a:noFill/></a:ln>"
        dash = f'<a:prstDash val="{_DASHES[paint.dash]}"/>' if paint.dash else ""
        stroke = _scheme(paint.stroke, 1, self.palette)
        return f'<a:ln w="{round(paint.width * self.scale)}"><a:solidFill>{stroke}</a:solidFill>{dash}</a:ln>'

    def rect(self, rect: Rect, paint: Paint) -> None:
        """A rectangle (rounded when the layout's is), filled, hatched or see-through as its paint says."""
        if rect.rx:
            adjust = round(min(0.5, rect.rx / min(rect.w, rect.h)) * 100000)
            geometry = f'<a:prstGeom prst="roundRect"><a:avLst><a:gd name="adj" fmla="val {adjust}"/></a:avLst>' \
                       "</a:prstGeom>"
        else:
            geometry = '<a:prstGeom prst="rect"><a:avLst/></a:prstGeom>'
        self._shape(self._name(rect.role, main=True), geometry, self._edges(rect.x, rect.y, rect.w, rect.h),
                    self._fill(paint), self._line(paint))

    def mark(self, mark: Mark, paint: Paint) -> None:
        """The highlight's corner triangle: PowerPoint's right triangle (right angle bottom-left) turned half round."""
        self._shape(self._name("mark"), '<a:prstGeom prst="rtTriangle"><a:avLst/></a:prstGeom>',
                    self._edges(mark.x - mark.size, mark.y, mark.size, mark.size), self._fill(paint),
                    "<a:ln><a:noFill/></a:ln>", rotation=180)

    def text(self, text: Text, colour: str) -> None:
        """One text box a drawn line, its baseline where the layout put it."""
        style = text.style
        height = (ASCENT + DESCENT) * style.size
        slack = 0.1 * style.size  # a little room, so no viewer wraps a line its own font draws wider
        align = {"start": "l", "middle": "ctr", "end": "r"}[text.anchor]
        name = self._name(text.role)
        line_runs = text.line_runs()  # a frame's typeset notation: scripts as baseline-offset runs
        # A line's height is its own font's, exactly (single spacing, 1.2 em): a script, written larger than it
        # is drawn (`OFFICE_SCRIPT`), must not push the line's baseline down.
        points = style.size * self.scale / EMU_PER_PT
        spacing = (f'<a:spcPts val="{round(points * 120)}"/>' if text.math else '<a:spcPct val="100000"/>')
        for n, line in enumerate(text.lines):
            if not line.strip():
                continue
            width = (runs_width(line_runs[n], style, text.script) if text.math else measure(line, style)) + 2 * slack
            x = text.x + (text.indent if n else 0)
            x0 = {"start": x - slack, "middle": x - width / 2, "end": x - width + slack}[text.anchor]
            top = text.y + n * style.size * 1.35 - ASCENT * style.size
            rotation = 0
            if text.rotate == -90:  # the box turns about its centre: put that centre where the turn takes it
                cx, cy = x0 + width / 2 - text.x, top + height / 2 - text.y
                x0, top, rotation = text.x + cy - width / 2, text.y - cx - height / 2, 270
            shape_id, self.next_id = self.next_id, self.next_id + 1
            x, y, w, h = self._edges(x0, top, width, height)
            rot = f' rot="{rotation * 60000}"' if rotation else ""
            line_name = name if n == 0 else f"{name} line {n + 1}"
            self.parts.append(
                f'<p:sp><p:nvSpPr><p:cNvPr id="{shape_id}" name="{escape_attribute(line_name)}"/>'
                f'<p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr><p:spPr><a:xfrm{rot}><a:off x="{x}" y="{y}"/>'
                f'<a:ext cx="{w}" cy="{h}"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom><a:noFill/>'
                f'</p:spPr><p:txBody><a:bodyPr wrap="none" lIns="0" tIns="0" rIns="0" bIns="0" anchor="t">'
                f'<a:noAutofit/></a:bodyPr><a:lstStyle/><a:p><a:pPr algn="{align}"><a:lnSpc>{spacing}'
                f'</a:lnSpc></a:pPr>{self._runs(text, line_runs[n], line, colour)}</a:p>'
                "</p:txBody></p:sp>")


    def _runs(self, text: Text, runs: tuple[Run, ...], line: str, colour: str) -> str:
        """A drawn line's `<a:r>`s: one, or for a typeset text one a run, its scripts smaller and shifted."""
        style = text.style
        if not text.math:
            return self.run(line, style, colour)
        script = (text.script / style.size) or SCRIPT_SCALE  # a script's size, of its line's
        # Office draws a raised or lowered run smaller than its size (LibreOffice at 58 %, PowerPoint at about
        # 65 %), and shifts it by a share of that size: a script is written so it is drawn at its own size.
        authored = script / OFFICE_SCRIPT
        return "".join(self.run(piece, style, colour, authored, _SHIFTS[kind] / authored) if kind in _SHIFTS
                       else self.run(piece, style, colour) for piece, kind in runs)

    def run(self, piece: str, style: TextStyle, colour: str, scale: float = 1, baseline: float = 0) -> str:
        """One `<a:r>` of `piece` in `style` at the painter's scale; `scale`, `baseline`: a script's size (of
        the line's) and its shift (in its own size: 0.3 raises it 30 %), for typeset notation."""
        shift = f' baseline="{round(baseline * 100000)}"' if baseline else ""
        font = FONTS[style.family]
        return (f'<a:r><a:rPr lang="en-US" sz="{round(style.size * scale * self.scale / EMU_PER_PT * 100)}" '
                f'b="{int(style.bold)}" i="{int(style.italic)}"{shift} dirty="0"><a:solidFill>{_scheme(colour)}'
                f'</a:solidFill><a:latin typeface="{font}"/><a:cs typeface="{font}"/></a:rPr>'
                f"<a:t>{clean_text(piece)}</a:t></a:r>")


#: How much smaller than its `sz` Office draws a run with a `baseline` (LibreOffice's DFLT_ESC_PROP; PowerPoint
#: draws it at about 65 %, so a script written for 58 % is drawn at least at its size in both).
OFFICE_SCRIPT = 0.58
#: A script's baseline shift, in em of its line's size (up is positive in DrawingML).
_SHIFTS = {"sup": SUP_RISE, "sub": -SUB_DROP}


def _scheme(colour: str, opacity: float = 1, palette: Mapping[str, str] | None = None) -> str:
    """The scheme colour that stands for the theme's `colour`, see-through below `opacity` 1; a colour of
    `UNSLOTTED` as its RGB in `palette` (the light theme's when None)."""
    if colour in UNSLOTTED:
        from .themes import get_theme  # (only a union's parts and FlexAttention's blocks have such colours)

        rgb = (palette or get_theme("light").colours)[colour][1:].upper()
        alpha = f'<a:alpha val="{round(opacity * 100000)}"/>' if opacity != 1 else ""
        return f'<a:srgbClr val="{rgb}">{alpha}</a:srgbClr>' if alpha else f'<a:srgbClr val="{rgb}"/>'
    opacity *= TINTS.get(colour, 1)
    alpha = f'<a:alpha val="{round(opacity * 100000)}"/>' if opacity != 1 else ""
    return f'<a:schemeClr val="{SCHEME[colour]}">{alpha}</a:schemeClr>' if alpha else \
        f'<a:schemeClr val="{SCHEME[colour]}"/>'
