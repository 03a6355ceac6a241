"""The PDF deck: one page per slide, 13.333 × 7.5 in (960 × 540 pt; 10 × 7.5 in for 4:3), each with the
step's title, its figure in the figure region and its sentences beside it in Unicode math, the same story
as the Beamer deck. Drawn straight onto one Cairo PDF surface (`CairoPainter`, the painter interface), so
the font is embedded once and a 91-step deck takes about a second.
"""

from __future__ import annotations

import io
import math

from ...layout.items import LEADING, measure
from ...layout.math_text import SCRIPT_SCALE, SUB_DROP, SUP_RISE, strip_runs
from ...numbers.exact import InputError
from ...render.painter import DASHES, paint, stripes, walk
from ...render.themes import get_theme
from .slide_text import LINE, TEXT_PT, lines_of, title_lines, unicode_math, unicode_prose
from .visible import visible_highlights

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from typing import Any

    from ...layout.items import Group, Item, Mark, Rect, Text
    from ...render.painter import Hatch, Paint
    from .model import Box, Deck

__all__ = ["pdf_deck", "CairoPainter"]

_FACES = {"sans": "DejaVu Sans", "mono": "DejaVu Sans Mono"}


def _rgb(colour: str) -> tuple[float, float, float]:
    return int(colour[1:3], 16) / 255, int(colour[3:5], 16) / 255, int(colour[5:7], 16) / 255


class CairoPainter:
    """The Cairo backend of the painter interface (`painter.Painter`): a layout onto a Cairo context."""

    def __init__(self, context: Any, colours: dict[str, str]) -> None:
        self.context, self.colours = context, colours

    def _set(self, name: str, opacity: float = 1) -> None:
        self.context.set_source_rgba(*_rgb(self.colours[name]), opacity)

    def open_group(self, group: Group, paint: Paint | None) -> None:
        """Nothing: every shape carries its own paint."""

    def close_group(self, group: Group) -> None:
        """Nothing (see `open_group`)."""

    def _path(self, rect: Rect) -> None:
        c, r = self.context, min(rect.rx, rect.w / 2, rect.h / 2)
        if not r:
            c.rectangle(rect.x, rect.y, rect.w, rect.h)
            return
        x, y, w, h = rect.x, rect.y, rect.w, rect.h
        c.new_sub_path()
        c.arc(x + w - r, y + r, r, -math.pi / 2, 0)
        c.arc(x + w - r, y + h - r, r, 0, math.pi / 2)
        c.arc(x + r, y + h - r, r, math.pi / 2, math.pi)
        c.arc(x + r, y + r, r, math.pi, 3 * math.pi / 2)
        c.close_path()

    def rect(self, rect: Rect, paint: Paint) -> None:
        """A rectangle: filled (striped, for masked cells), then stroked, as its paint says."""
        c = self.context
        if paint.fill:
            self._path(rect)
            self._set("masked-fill" if paint.fill == "hatch" else paint.fill, paint.fill_opacity)
            if paint.hatch is not None:
                c.save()
                c.clip_preserve()
                c.fill()
                self._stripes(rect, paint.hatch)
                c.restore()
            else:
                c.fill()
        if paint.stroke:
            self._path(rect)
            self._set(paint.stroke)
            c.set_line_width(paint.width)
            c.set_dash([*DASHES[paint.dash]] if paint.dash else [])
            c.stroke()
            c.set_dash([])

    def _stripes(self, rect: Rect, hatch: Hatch) -> None:
        c = self.context
        for x0, y0, x1, y1 in stripes(rect, hatch):
            c.move_to(x0, y0)
            c.line_to(x1, y1)
        self._set("masked-hatch")
        c.set_line_width(hatch.width)
        c.stroke()

    def mark(self, mark: Mark, paint: Paint) -> None:
        """The highlight's corner triangle."""
        c = self.context
        c.move_to(mark.x - mark.size, mark.y)
        c.line_to(mark.x, mark.y)
        c.line_to(mark.x, mark.y + mark.size)
        c.close_path()
        self._set(paint.fill or "text")
        c.fill()

    def text(self, text: Text, colour: str) -> None:
        """Each line at its place, in DejaVu, as the SVG draws it."""
        style = text.style
        c = self.context
        self._set(colour)
        _font(c, style.family, style.bold, style.italic, style.size)
        c.save()
        if text.rotate:
            c.translate(text.x, text.y)
            c.rotate(math.radians(text.rotate))
            c.translate(-text.x, -text.y)
        if text.math:  # typeset notation: scripts smaller, raised or lowered, as the SVG's tspans
            self._typeset(text)
            c.restore()
            return
        for n, line in enumerate(text.lines):
            if not line.strip():
                continue
            x = text.x + (text.indent if n else 0)
            y = text.y + n * style.size * LEADING
            width = measure(line.rstrip(), style)
            x -= {"start": 0, "middle": width / 2, "end": width}[text.anchor]
            c.move_to(x, y)
            c.show_text(line.rstrip())
        c.restore()

    def _typeset(self, text: Text) -> None:
        """A math text's runs (`Text.line_runs`) from each line's measured left edge."""
        style, c = text.style, self.context
        script = text.script or style.size * SCRIPT_SCALE
        shifts = {"sup": -SUP_RISE * style.size, "sub": SUB_DROP * style.size}
        for n, (runs, box) in enumerate(zip(text.line_runs(), text.line_boxes())):
            x, base = box[0], text.y + n * style.size * LEADING
            for run, kind in strip_runs(runs):
                size = script if kind in shifts else style.size
                _font(c, style.family, style.bold, style.italic, size)
                c.move_to(x, base + shifts.get(kind, 0.0))
                c.show_text(run)
                x = c.get_current_point()[0]  # Cairo's own advance, as a browser's: each run after the last


def _font(context: Any, family: str, bold: bool, italic: bool, size: float) -> None:
    import cairocffi  # type: ignore[import-untyped]  # loaded with the surface already; named here only

    context.select_font_face(_FACES.get(family, "DejaVu Sans"),
                             cairocffi.FONT_SLANT_OBLIQUE if italic else cairocffi.FONT_SLANT_NORMAL,
                             cairocffi.FONT_WEIGHT_BOLD if bold else cairocffi.FONT_WEIGHT_NORMAL)
    context.set_font_size(size)


def _write(context: Any, lines: list[str], box: Box, y: float, size: float, bold: bool = False) -> float:
    """`lines` from `y` (the first line's top) in the box; returns the y under them."""
    _font(context, "sans", bold, False, size)
    for line in lines:
        y += size
        context.move_to(box.x, y)
        context.show_text(line)
        y += size * (LINE - 1)
    return y


def pdf_deck(deck: Deck) -> bytes:
    """The deck as one PDF: an optional title page, then a page per slide. Same deck, same bytes."""
    try:
        import cairocffi  # only a PDF deck draws with Cairo (optional: attnviz[slides])
    except ImportError:
        raise InputError("PDF decks need CairoSVG's cairocffi: pip install 'attnviz[slides]'", "-f") from None
    shape = deck.geometry
    theme = get_theme(deck.theme)
    colours = dict(theme.colours)
    out = io.BytesIO()
    surface = cairocffi.PDFSurface(out, shape.width, shape.height)
    surface.set_metadata(cairocffi.PDF_METADATA_CREATE_DATE, "")
    surface.set_metadata(cairocffi.PDF_METADATA_TITLE, deck.title)
    context = cairocffi.Context(surface)
    parts: dict[Item, Any] = {}

    def page_background() -> None:
        context.set_source_rgb(*_rgb(colours["background"]))
        context.paint()
        context.set_source_rgb(*_rgb(colours["text"]))

    if deck.title_page is not None:
        page = deck.title_page
        page_background()
        y = shape.height / 3
        said: list[tuple[str, float, bool]] = [(page.title, 40, True), (page.subtitle, 24, False),
                                               (" · ".join(filter(None, (page.author, page.date))), 20, False)]
        for words, size, bold in said:
            lines = lines_of(words, shape.title.w, size) or [words]
            y = _write(context, lines, shape.title, y, size, bold) + size / 2
        context.show_page()
    for slide, drawn in zip(deck.slides, deck.layouts()):
        box = shape.figure
        layout = visible_highlights(drawn, box.w / drawn.width)  # a map's one cell at 512 tokens: ringed
        page_background()
        fitted = title_lines(slide.heading, shape.title.w)
        title_pt, lines = fitted if fitted is not None else (22.0, [slide.heading])
        _write(context, lines, shape.title, shape.title.y + (shape.title.h - len(lines) * title_pt * LINE) / 2,
               title_pt, bold=True)
        context.save()
        context.translate(box.x, box.y)
        context.scale(box.w / layout.width, box.h / layout.height)
        paint([], layout.width, layout.height, CairoPainter(context, colours))  # the figure's background
        for item in layout.items:  # each part drawn once, a form the pages that show it share
            if item not in parts:
                parts[item] = cairocffi.RecordingSurface(cairocffi.CONTENT_COLOR_ALPHA, None)
                walk([item], CairoPainter(cairocffi.Context(parts[item]), colours))
            context.set_source_surface(parts[item], 0, 0)
            context.paint()
        context.restore()
        context.set_source_rgb(*_rgb(colours["text"]))
        y = shape.text.y
        for sentence in slide.paragraphs:
            y = _write(context, lines_of(unicode_prose(sentence), shape.text.w, typeset=False) or [], shape.text, y,
                       TEXT_PT)
            y += TEXT_PT * 0.4
        if slide.formula:
            formula = unicode_math(slide.formula)
            _write(context, lines_of(formula, shape.text.w, typeset=False) or [formula], shape.text, y + TEXT_PT * 0.4,
                   TEXT_PT)
        context.show_page()
    surface.finish()
    return out.getvalue()
