"""Budgets: how much a figure, a page or an image may become, checked before the work that makes it.

Each input limit (64 tokens, 40 digits, 200 sections) holds alone, but together they allow gigabytes of output. So what
the output will be is estimated first, from exact values and the figure's words (no layout, no drawing), and refused at
once with the budget named and the way out. Budgets are on output size (characters, pixels), not on token counts: a view
that draws less of a large grid fits where the full view does not.

    value digits   no score, logit or output of more than MAX_VALUE_DIGITS digits (numerator and
                   denominator each), bounded from the inputs' digits before any score is summed
    figure         FIGURE_CHARS characters of SVG, estimated from the words (a mask map: from the runs it draws,
                   one rectangle a run, known before layout)
    page           PAGE_CHARS characters in all (index.html and every step SVG), PAGE_TEX characters of
                   formulas, estimated from the first figure and the sections
    PNG            PNG_PIXELS pixels (and Cairo's 32,767 a side); PDF: PDF_POINTS points a side
    deck           PAGE_CHARS characters over its slides' figures (estimated before any is laid out);
                   PowerPoint: PPTX_SHAPES shapes (one a rectangle, mark or line of text), counted before drawing
"""

from __future__ import annotations

import math

# The engine's digit limit, listed here with the other budgets (and importable from here as before).
from ..engine.limits import MAX_VALUE_DIGITS, check_inputs, check_values
from ..numbers.exact import InputError

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from ..figures.api import Drawable
    from ..publish.document import Document

__all__ = ["MAX_VALUE_DIGITS", "FIGURE_CHARS", "PAGE_CHARS", "PAGE_TEX", "PNG_PIXELS", "MAX_PIXELS_A_SIDE",
           "PDF_POINTS", "check_inputs", "check_values", "figure_chars", "drawable_chars", "check_figure", "check_page",
           "check_png", "check_pdf", "PPTX_SHAPES", "check_deck", "check_shapes"]

FIGURE_CHARS = 8_000_000  # the 64x64 benchmark figure is ~2.5 million; the seed 10 thousand
PAGE_CHARS = 24_000_000  # the seed's page and steps together are ~60 thousand
PAGE_TEX = 200_000  # characters of TeX over a page's formulas: typesetting costs ~30 µs a character
PNG_PIXELS = 25_000_000  # 100 MB of pixels while Cairo draws (~5 s); the seed at scale 2 is 2 million
MAX_PIXELS_A_SIDE = 32767  # Cairo's largest image surface
PDF_POINTS = 14_400  # a side: the largest page PDF readers open (200 inches)
PPTX_SHAPES = 50_000  # python-pptx slows with every shape a slide holds (it scans their ids); a 64x64 figure is ~9,000

# Markup around the words, per kind of text: a cell is a group, a rect, a text and an aria-label
# (~450 characters), any other text ~250. Words appear in the SVG about twice (text and aria-label).
_MARKUP = {"Cell": 450}
_OTHER_MARKUP = 250
_FIXED = 6_000  # <svg>, <title>, <desc>, <defs>, the background
_FONTS = 400_000  # --embed-font: the subset fonts as data: URLs, at most
_WAYS_OUT = ("write each row's softmax sum once (--softmax normalizer), show part of the grid (--elide), "
             "draw the mask alone (--view mask), or use fewer tokens or shorter numbers")
# A mask map's rectangles, each a run of cells (markup and coordinates; the numbers' digits added apart):
# a kept run, a highlighted run (with its paint), and the bar beside a row with no kept key.
_KEPT_RUN, _COMPUTED_RUN, _EMPTY_ROW = 110, 190, 130
_MAP_WAYS_OUT = ("the map draws one rectangle per run of kept keys: use a simpler mask (fewer, longer runs: "
                 "fewer documents or segments), fewer tokens, or another --view")
_STRIP_LAYER = 220  # a model figure's strip: one rectangle a layer (class, place, data-layer, data-type), and ticks
_MATHML_PER_TEX = 12  # MathML characters per TeX character, at most ~11 in practice


def figure_chars(words: object, embed_font: bool = False) -> int:
    """The SVG's characters, estimated from the figure's words alone (an upper estimate; no layout)."""
    total = _FIXED + _FONTS * bool(embed_font)
    # The grid's cells, most of a large figure's words, counted directly rather than walked field by field.
    cells = getattr(words, "cells", ())
    total += sum(2 * len(cell.text) + _MARKUP["Cell"] + _checkable(cell) for row in cells for cell in row)
    for kind, text in _texts(words, skip="cells"):
        total += 2 * len(text) + _MARKUP.get(kind, _OTHER_MARKUP)
    # Each cell's aria-label names its row's and column's labels ("Q(the) K(cat) score 2").
    labels = [getattr(words, name, ()) for name in ("q_labels", "k_labels")]
    if all(labels):
        cells = sum(map(len, getattr(words, "cells", ())))
        total += cells * sum(sum(map(len, axis)) // len(axis) for axis in labels)
    return total + _map_chars(words)


def _checkable(cell: object) -> int:
    """A cell's data-value and data-weight attributes (`words.values`), with their names and quotes."""
    value, weight = getattr(cell, "value", ""), getattr(cell, "weight", "")
    return (len(value) + 14 if value else 0) + (len(weight) + 15 if weight else 0)


def _map_chars(words: object) -> int:
    """A mask map's rectangles (none for other words): one a run, so a map of alternating documents is
    n²/2 rectangles, not n; the runs are in the words, counted before any layout."""
    runs: Sequence[Sequence[object]] = getattr(words, "runs", ())
    computed: Sequence[Sequence[object]] = getattr(words, "computed", ())
    digits = len(str(len(runs) + len(getattr(words, "k_labels", ()))))  # of data-q, data-k (first-last)
    kept = sum(map(len, runs))
    return (kept * (_KEPT_RUN + 2 * digits) + sum(map(len, computed)) * (_COMPUTED_RUN + 3 * digits)
            + sum(not row for row in runs) * _EMPTY_ROW)


def drawable_chars(fig: Drawable) -> int:
    """`figure_chars` of a figure, or summed over the panels of a composed one (heads, `compose`), with a
    model figure's strip of layers (`strip_layers`: one rectangle a layer)."""
    panels: Sequence[Drawable] | None = getattr(fig, "panels", None)
    if panels is not None:
        return sum(map(drawable_chars, panels)) + _STRIP_LAYER * getattr(fig, "strip_layers", 0)
    words: object = getattr(fig, "words", None)  # a figure without panels has words
    return figure_chars(words, fig.embed_font)


def check_figure(words: object, embed_font: bool = False, size: int | None = None) -> None:
    """Refuse a figure over FIGURE_CHARS, before its layout is made (`size`: already estimated, for panels)."""
    size = figure_chars(words, embed_font) if size is None else size
    if size > FIGURE_CHARS:
        ways_out = _MAP_WAYS_OUT if getattr(words, "view", None) == "mask" else _WAYS_OUT
        raise InputError(f"the figure would be about {size:,} characters of SVG, past the budget of {FIGURE_CHARS:,} "
                         f"per figure: {ways_out}", "figure")


def check_page(document: Document, figure_sizes: Sequence[int], where: str = "page") -> None:
    """Refuse a page (index.html and one SVG per section) over PAGE_CHARS or PAGE_TEX, before it is drawn.

    `figure_sizes`: each section's `figure_chars`; each figure is written twice (inline and as a step)."""
    tex = sum(len(section.formula or "") for section in document.sections)
    if tex > PAGE_TEX:
        raise InputError(f"the formulas add up to {tex:,} characters of TeX, past the budget of {PAGE_TEX:,} per "
                         "page: use fewer sections or shorter formulas (or, for a walkthrough, fewer tokens, "
                         "dimensions or digits)", where)
    words = sum(len(p) for section in document.sections for p in (section.heading, *section.paragraphs))
    size = 2 * sum(figure_sizes) + 2 * words + _MATHML_PER_TEX * tex + 20_000
    if size > PAGE_CHARS:
        count = len(document.sections)
        each = max(figure_sizes, default=0)
        raise InputError(f"the page would be about {size:,} characters (index.html and {count} step SVGs of up to "
                         f"{each:,} characters each, written twice), past the budget of {PAGE_CHARS:,} per page: use "
                         f"fewer sections, or smaller figures ({_WAYS_OUT})", where)


def check_deck(figure_sizes: Sequence[int], where: str = "slides") -> None:
    """Refuse a deck whose slides' figures (`drawable_chars` each) add up past PAGE_CHARS, before any is laid
    out: every format draws each slide's figure once (an SVG, Cairo, TikZ or PowerPoint shapes)."""
    size = sum(figure_sizes)
    if size > PAGE_CHARS:
        raise InputError(f"the deck's {len(figure_sizes)} slides would draw about {size:,} characters of figures, "
                         f"past the budget of {PAGE_CHARS:,} per deck: use fewer steps or highlights, or smaller "
                         f"figures ({_WAYS_OUT})", where)


def check_shapes(shapes: int, where: str = "-f") -> None:
    """Refuse a PowerPoint deck of more than PPTX_SHAPES shapes (counted from its layouts), before any is added."""
    if shapes > PPTX_SHAPES:
        raise InputError(f"the PowerPoint deck would be {shapes:,} shapes, past the budget of {PPTX_SHAPES:,}: "
                         f"use another format (-f pdf, svg-animated), fewer steps, or draw less ({_WAYS_OUT})", where)


def check_png(width: float, height: float, scale: float, where: str = "scale") -> None:
    """Refuse a PNG of more than PNG_PIXELS pixels, or wider or taller than Cairo can draw, before drawing."""
    pixels = (round(width * scale), round(height * scale))
    if max(pixels) > MAX_PIXELS_A_SIDE or pixels[0] * pixels[1] > PNG_PIXELS:
        limit = (f"the budget of {PNG_PIXELS:,} pixels" if max(pixels) <= MAX_PIXELS_A_SIDE
                 else f"{MAX_PIXELS_A_SIDE:,} a side, the most Cairo can draw")
        lower = "the width" if where in ("width", "--width") else "the scale or DPI"
        raise InputError(f"the PNG would be {pixels[0]:,}x{pixels[1]:,} pixels, past {limit}: lower {lower}, "
                         f"export SVG, or draw less (--elide, --view mask, fewer tokens)", where)


def check_pdf(width: float, height: float, where: str = "-f") -> None:
    """Refuse a PDF page larger than PDF_POINTS a side (one SVG unit is 3/4 point)."""
    points = (math.ceil(width * 0.75), math.ceil(height * 0.75))
    if max(points) > PDF_POINTS:
        raise InputError(f"the PDF page would be {points[0]:,}x{points[1]:,} points, past {PDF_POINTS:,} a side, the "
                         "largest page PDF readers open: export SVG, or draw less (--elide, --view mask, fewer tokens)",
                         where)


def _texts(words: object, skip: str | None = None) -> Iterator[tuple[str, str]]:
    """(kind, text) of every string in the words, walking records (or dataclasses), tuples and lists;
    the words' own field `skip` left out."""
    names: Sequence[str] = [name for name in _field_names(type(words)) if name != skip]
    stack: list[tuple[str, object]] = [(type(words).__name__, getattr(words, name)) for name in names] if names else \
        [(type(words).__name__, words)]
    while stack:
        kind, item = stack.pop()
        if isinstance(item, str):
            yield kind, item
        elif isinstance(item, (tuple, list)):
            stack.extend([(kind, x) for x in item])
        elif names := _field_names(type(item)):
            kind = type(item).__name__
            stack.extend([(kind, getattr(item, name)) for name in names])


# By type: a 64-token figure's words are 4,000 records of a handful of types. (A dict, not functools.cache,
# whose typed signature takes only Hashable arguments, which a class is not to a type checker.)
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    """The fields of an `attnviz.records` record or a dataclass type, found once per type; () for anything else.
    (Not `dataclasses.fields`: importing dataclasses costs the default render a quarter of its time.)"""
    if cls not in _FIELD_NAMES:
        if fields := getattr(cls, "__record_fields__", None):
            _FIELD_NAMES[cls] = tuple(f.name for f in fields)
        else:
            fields = getattr(cls, "__dataclass_fields__", None)
            _FIELD_NAMES[cls] = tuple(fields) if isinstance(fields, dict) else ()
    return _FIELD_NAMES[cls]
