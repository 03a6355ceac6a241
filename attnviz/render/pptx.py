"""PowerPoint backend: paints a `layout.Layout` as native shapes on a python-pptx slide.

Rectangles are rectangles (rounded, dashed, hatched as the SVG draws them), the highlight's
corner mark is a triangle, and each drawn line of text is a text box in DejaVu at the
layout's size, placed so its baseline is where the layout put it: everything stays editable
in PowerPoint, Keynote, LibreOffice and Google Slides. Nothing is a picture.
"""

from __future__ import annotations

from ..layout.items import measure
from ..layout.math_text import SCRIPT_SCALE, SUB_DROP, SUP_RISE, runs_width
from ..layout.metrics import ASCENT, DESCENT
from .painter import paint as paint_layout
from .themes import get_theme

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Mapping

    from pptx.shapes.autoshape import Shape
    from pptx.dml.color import RGBColor
    from pptx.enum.shapes import MSO_SHAPE
    from pptx.shapes.shapetree import SlideShapes
    from pptx.slide import Slide
    from pptx.util import Length

    from ..layout.items import Group, Layout, Mark, Rect, Text
    from .painter import Paint
    from .themes import Theme

__all__ = ["EMU_PER_PX", "paint", "PptxPainter"]

EMU_PER_PX = 9525  # English Metric Units in a CSS pixel (1/96 inch)
_FONTS = {"sans": "DejaVu Sans", "mono": "DejaVu Sans Mono"}
_DASHES = {"dashed": "DASH", "dotted": "ROUND_DOT"}  # painter.DASHES in PowerPoint's named dashes


def paint(slide: Slide, layout: Layout, theme: str | Theme, left: float, top: float, scale: float) -> None:
    """Draw `layout` on `slide` with its top-left corner at (`left`, `top`) EMU, `scale` EMU per layout unit."""
    paint_layout(layout.items, layout.width, layout.height,
                 PptxPainter(slide.shapes, get_theme(theme).colours, left, top, scale))


class PptxPainter:
    """The PowerPoint backend of the painter interface (`painter.Painter`): native, editable shapes."""

    def __init__(self, shapes: SlideShapes, palette: Mapping[str, str], left: float, top: float,
                 scale: float) -> None:
        self.shapes, self.palette, self.left, self.top, self.scale = shapes, palette, left, top, scale

    def emu(self, x: float, y: float, w: float, h: float) -> tuple[Length, Length, Length, Length]:
        """A box in layout units, (x, y, width, height), in EMU on the slide (at least 1 EMU a side)."""
        from pptx.util import Emu  # python-pptx: the slides extra

        s = self.scale
        return (Emu(round(self.left + x * s)), Emu(round(self.top + y * s)), Emu(max(1, round(w * s))),
                Emu(max(1, round(h * s))))

    def colour(self, key: str) -> RGBColor:
        """The theme's colour `key` as python-pptx's RGB colour."""
        from pptx.dml.color import RGBColor  # python-pptx: the slides extra, imported when a deck is drawn

        hex_digits = self.palette[key][1:].upper()
        colour: RGBColor = RGBColor.from_string(hex_digits)  # type: ignore[no-untyped-call]  # unannotated in pptx
        return colour

    def open_group(self, group: Group, paint: Paint | None) -> None:
        """Nothing: every shape carries its own paint, so a group is only its children."""

    def close_group(self, group: Group) -> None:
        """Nothing (see `open_group`)."""

    def _shape(self, kind: MSO_SHAPE, x: float, y: float, w: float, h: float) -> Shape:
        from pptx.oxml.ns import qn  # python-pptx: the slides extra

        shape = self.shapes.add_shape(kind, *self.emu(x, y, w, h))
        style = shape._element.find(qn("p:style"))  # the template's theme style would add a shadow
        if style is not None:
            shape._element.remove(style)
        return shape

    def rect(self, rect: Rect, paint: Paint) -> None:
        """A rectangle (rounded when the layout's is), filled, hatched or see-through as its paint says."""
        from pptx.enum.dml import MSO_LINE_DASH_STYLE, MSO_PATTERN_TYPE  # python-pptx: the slides extra
        from pptx.enum.shapes import MSO_SHAPE
        from pptx.util import Emu

        kind = MSO_SHAPE.ROUNDED_RECTANGLE if rect.rx else MSO_SHAPE.RECTANGLE
        shape = self._shape(kind, rect.x, rect.y, rect.w, rect.h)
        if rect.rx:
            shape.adjustments[0] = min(0.5, rect.rx / min(rect.w, rect.h))
        if paint.fill == "hatch":
            shape.fill.patterned()
            shape.fill.pattern = MSO_PATTERN_TYPE.WIDE_UPWARD_DIAGONAL
            shape.fill.fore_color.rgb = self.colour("masked-hatch")
            shape.fill.back_color.rgb = self.colour("masked-fill")
        elif paint.fill:
            shape.fill.solid()
            shape.fill.fore_color.rgb = self.colour(paint.fill)
            if paint.fill_opacity != 1:
                _see_through(shape, paint.fill_opacity)
        else:
            shape.fill.background()
        if paint.stroke:
            shape.line.color.rgb = self.colour(paint.stroke)
            shape.line.width = Emu(round(paint.width * self.scale))
            if paint.dash:
                shape.line.dash_style = getattr(MSO_LINE_DASH_STYLE, _DASHES[paint.dash])
        else:
            shape.line.fill.background()

    def mark(self, mark: Mark, paint: Paint) -> None:
        """The highlight's corner triangle."""
        from pptx.enum.shapes import MSO_SHAPE  # python-pptx: the slides extra

        assert paint.fill is not None  # a mark's role is filled (themes.SHAPE_PAINT)
        # PowerPoint's right triangle has its right angle bottom-left; turned half round, top-right.
        shape = self._shape(MSO_SHAPE.RIGHT_TRIANGLE, mark.x - mark.size, mark.y, mark.size, mark.size)
        shape.rotation = 180
        shape.fill.solid()
        shape.fill.fore_color.rgb = self.colour(paint.fill)
        shape.line.fill.background()

    def text(self, text: Text, colour: str) -> None:
        """One text box a drawn line, its baseline where the layout put it."""
        from pptx.enum.text import MSO_ANCHOR, MSO_AUTO_SIZE, PP_ALIGN  # python-pptx: the slides extra
        from pptx.util import Pt

        style = text.style
        height = (ASCENT + DESCENT) * style.size
        slack = 0.1 * style.size  # a little room, so no viewer wraps a line its own font draws wider
        line_runs = text.line_runs()  # a frame's typeset notation: scripts as baseline-offset runs
        for n, line in enumerate(text.lines):
            if not line.strip():
                continue
            width = (runs_width(line_runs[n], style, text.script) if text.math else measure(line, style)) + 2 * slack
            x = text.x + (text.indent if n else 0)
            x0 = {"start": x - slack, "middle": x - width / 2, "end": x - width + slack}[text.anchor]
            top = text.y + n * style.size * 1.35 - ASCENT * style.size
            if text.rotate == -90:  # the box turns about its centre: put that centre where the turn takes it
                cx, cy = x0 + width / 2 - text.x, top + height / 2 - text.y
                x0, top = text.x + cy - width / 2, text.y - cx - height / 2
            box = self.shapes.add_textbox(*self.emu(x0, top, width, height))
            if text.rotate == -90:
                box.rotation = 270
            frame = box.text_frame
            frame.word_wrap = False
            frame.auto_size = MSO_AUTO_SIZE.NONE
            frame.margin_left = frame.margin_right = frame.margin_top = frame.margin_bottom = 0
            frame.vertical_anchor = MSO_ANCHOR.TOP
            paragraph = frame.paragraphs[0]
            paragraph.alignment = {"start": PP_ALIGN.LEFT, "middle": PP_ALIGN.CENTER, "end": PP_ALIGN.RIGHT}[
                text.anchor]
            paragraph.line_spacing = 1.0
            for piece, kind in line_runs[n] if text.math else ((line, ""),):
                run = paragraph.add_run()
                run.text = piece
                font = run.font
                font.name = _FONTS[style.family]
                scale = (text.script / style.size or SCRIPT_SCALE) if kind in _BASELINES else 1
                font.size = Pt(style.size * scale * 0.75 * self.scale / EMU_PER_PX)  # 0.75 pt a pixel
                font.bold = style.bold
                font.italic = style.italic
                font.color.rgb = self.colour(colour)
                if kind in _BASELINES:  # DrawingML's baseline offset: thousandths of a percent of the run's size
                    run._r.get_or_add_rPr().set("baseline", str(round(_BASELINES[kind] / scale * 100_000)))


# A script's shift as DrawingML writes it: a percentage of its own size (1,000 a percent).
_BASELINES = {"sup": SUP_RISE, "sub": -SUB_DROP}  # in em of the line's size


def _see_through(shape: Shape, opacity: float) -> None:
    """A solid fill at `opacity` (python-pptx has no call for it: DrawingML's <a:alpha> on the colour)."""
    from pptx.oxml.ns import qn  # python-pptx: the slides extra

    colour = shape.fill._xPr.find(qn("a:solidFill")).find(qn("a:srgbClr"))
    alpha = colour.makeelement(qn("a:alpha"), {"val": str(round(opacity * 100_000))})
    colour.append(alpha)
