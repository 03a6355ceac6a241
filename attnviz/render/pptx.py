"""PowerPoint backend: paints a `layout.Layout` as native shapes on a python-pptx slide.

Rectangles are rectangles (rounded, dashed, hatched as the SVG draws them), the highlight's
corner mark is a triangle, and each drawn line of text is a text box in DejaVu at the
layout's size, placed so its baseline is where the layout put it: everything stays editable
in PowerPoint, Keynote, LibreOffice and Google Slides. Nothing is a picture.
"""

from ..layout.figure import Group, Mark, Rect, Text, measure
from ..layout.metrics import ASCENT, DESCENT
from .themes import SHAPE_PAINT, TEXT_COLOUR, get_theme

__all__ = ["EMU_PER_PX", "paint"]

EMU_PER_PX = 9525  # English Metric Units in a CSS pixel (1/96 inch)
_FONTS = {"sans": "DejaVu Sans", "mono": "DejaVu Sans Mono"}
_DASHES = {"cell-masked": "DASH", "cell-pending": "ROUND_DOT", "softmax-pending": "ROUND_DOT",
           "output-pending": "ROUND_DOT"}
_WIDTHS = {"cell-computed": 3, "cell-computed-outline": 3}  # px: thick = computed this step


def paint(slide, layout, theme, left, top, scale):
    """Draw `layout` on `slide` with its top-left corner at (`left`, `top`) EMU, `scale` EMU per layout unit."""
    painter = _Painter(slide.shapes, get_theme(theme).colours, left, top, scale)
    painter.rect(Rect("background", 0, 0, layout.width, layout.height))
    for item in layout.items:
        painter.item(item)


class _Painter:
    def __init__(self, shapes, palette, left, top, scale):
        self.shapes, self.palette, self.left, self.top, self.scale = shapes, palette, left, top, scale

    def emu(self, x, y, w, h):
        s = self.scale
        return round(self.left + x * s), round(self.top + y * s), max(1, round(w * s)), max(1, round(h * s))

    def colour(self, key):
        from pptx.dml.color import RGBColor

        return RGBColor.from_string(self.palette[key][1:].upper())

    def item(self, item):
        if isinstance(item, Group):
            for child in item.children:
                self.item(child)
        elif isinstance(item, Text):
            self.text(item)
        elif isinstance(item, Rect):
            self.rect(item)
        elif isinstance(item, Mark):
            self.mark(item)
        else:
            raise TypeError(f"cannot draw {item!r}")

    def _shape(self, kind, x, y, w, h):
        from pptx.oxml.ns import qn

        shape = self.shapes.add_shape(kind, *self.emu(x, y, w, h))
        style = shape._element.find(qn("p:style"))  # the template's theme style would add a shadow
        if style is not None:
            shape._element.remove(style)
        return shape

    def rect(self, rect):
        from pptx.enum.dml import MSO_LINE_DASH_STYLE, MSO_PATTERN_TYPE
        from pptx.enum.shapes import MSO_SHAPE
        from pptx.util import Emu

        kind = MSO_SHAPE.ROUNDED_RECTANGLE if rect.rx else MSO_SHAPE.RECTANGLE
        shape = self._shape(kind, rect.x, rect.y, rect.w, rect.h)
        if rect.rx:
            shape.adjustments[0] = min(0.5, rect.rx / min(rect.w, rect.h))
        fill, stroke = SHAPE_PAINT[rect.role]
        if fill == "hatch":
            shape.fill.patterned()
            shape.fill.pattern = MSO_PATTERN_TYPE.WIDE_UPWARD_DIAGONAL
            shape.fill.fore_color.rgb = self.colour("masked-hatch")
            shape.fill.back_color.rgb = self.colour("masked-fill")
        elif fill:
            shape.fill.solid()
            shape.fill.fore_color.rgb = self.colour(fill)
        else:
            shape.fill.background()
        if stroke:
            shape.line.color.rgb = self.colour(stroke)
            shape.line.width = Emu(round(_WIDTHS.get(rect.role, 1) * self.scale))
            if rect.role in _DASHES:
                shape.line.dash_style = getattr(MSO_LINE_DASH_STYLE, _DASHES[rect.role])
        else:
            shape.line.fill.background()

    def mark(self, mark):
        from pptx.enum.shapes import MSO_SHAPE

        # PowerPoint's right triangle has its right angle bottom-left; turned half round, top-right.
        shape = self._shape(MSO_SHAPE.RIGHT_TRIANGLE, mark.x - mark.size, mark.y, mark.size, mark.size)
        shape.rotation = 180
        shape.fill.solid()
        shape.fill.fore_color.rgb = self.colour(SHAPE_PAINT[mark.role][0])
        shape.line.fill.background()

    def text(self, text):
        from pptx.enum.text import MSO_ANCHOR, MSO_AUTO_SIZE, PP_ALIGN
        from pptx.util import Pt

        style = text.style
        height = (ASCENT + DESCENT) * style.size
        slack = 0.1 * style.size  # a little room, so no viewer wraps a line its own font draws wider
        for n, line in enumerate(text.lines):
            if not line.strip():
                continue
            width = measure(line, style) + 2 * slack
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
            run = paragraph.add_run()
            run.text = line
            font = run.font
            font.name = _FONTS[style.family]
            font.size = Pt(style.size * 0.75 * self.scale / EMU_PER_PX)  # 0.75 pt a pixel
            font.bold = style.bold
            font.italic = style.italic
            font.color.rgb = self.colour(TEXT_COLOUR[text.role])
