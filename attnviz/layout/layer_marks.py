"""The marks over a model's strip of layers: what differs in a layer besides its mask (no rotary positions, soft-capped
logits, a learned sink logit), one row of glyphs a kind of mark above the layers' squares, each glyph its own shape
(a square, a bar, a corner triangle) in the text's colour, so that neither colour nor a hover tells them apart; and
their legend entries, each with its glyph.
"""

from __future__ import annotations

from .items import STYLES, Group, Mark, Rect, Text, measure
from .metrics import ASCENT, DESCENT

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from .items import Item

__all__ = ["LAYER_MARKS", "ROW", "marks_of", "mark_rows", "mark_legend"]

#: (key, the strip cell's attribute that holds it, the value that marks it (None: any), the legend's words; {} is the
#: attribute's value). Their order is the rows' order, top to bottom.
LAYER_MARKS = (("nope", "data-positions", "nope", "no rotary positions (NoPE)"),
               ("softcap", "data-softcap", None, "logits soft-capped at {}"),
               ("sink", "data-sink", "learned", "a learned sink logit"))
ROW = 10  # a row of glyphs: 8 high and a gap
_SWATCH = 14  # a legend entry's glyph box, as a layer type's swatch


def marks_of(attrs: Iterable[tuple[str, str]]) -> dict[str, str]:
    """The marks a strip cell's attributes hold: {key: its legend words}."""
    given = dict(attrs)
    return {key: words.format(given[attr]) for key, attr, value, words in LAYER_MARKS
            if attr in given and (value is None or given[attr] == value)}


def _glyph(key: str, x: float, y: float, w: float, h: float) -> Rect | Mark:
    """A mark's glyph in the box (x, y, w, h): a square (NoPE), a bar across (soft-capping), a triangle (sink)."""
    if key == "nope":
        side = min(w, h, 10.0)
        return Rect("layer-mark", x + (w - side) / 2, y + (h - side) / 2, side, side)
    if key == "softcap":
        inset = 1.5 if w >= 6 else 0.0  # neighbouring layers' bars apart, as their squares are
        return Rect("layer-mark", x + inset, y + h / 2 - 1.5, w - 2 * inset, 3)
    side = min(w, h)
    return Mark("layer-mark", x + (w + side) / 2, y + (h - side) / 2, side)


def mark_rows(cells: Sequence[tuple[float, float, dict[str, str]]], y: float) -> tuple[list[Item], float]:
    """The rows of glyphs over the cells (x, width, marks) from `y`: one row a kind of mark any cell holds; returns
    (the items, their height)."""
    keys = [key for key, *_ in LAYER_MARKS if any(key in marks for _, _, marks in cells)]
    items: list[Item] = []
    for row, key in enumerate(keys):
        glyphs = tuple(_glyph(key, x, y + row * ROW, w, ROW - 2) for x, w, marks in cells if key in marks)
        items.append(Group(("attnviz-layer-marks",), (("data-mark", key),), glyphs))
    return items, len(keys) * ROW


def mark_legend(entries: dict[str, str], x0: float, y: float, room: float) -> tuple[list[Item], float]:
    """A legend entry a mark (its glyph, then its words), wrapped to `room`; returns (the items, the y under them)."""
    style, gap, row_h = STYLES["legend"], 22, 22
    items: list[Item] = []
    x = x0
    for key, words in entries.items():
        width = _SWATCH + 6 + measure(words, style)
        if x > x0 and x + width > x0 + room:
            x, y = x0, y + row_h
        baseline = y + _SWATCH / 2 + (ASCENT - DESCENT) / 2 * style.size
        items.append(Group(("attnviz-legend-entry",), (("data-legend", key),), (
            _glyph(key, x, y, _SWATCH, _SWATCH), Text("legend", x + _SWATCH + 6, baseline, (words,)))))
        x += width + gap
    return [Group(("attnviz-legend",), (), tuple(items))] if items else [], y + (row_h if items else 0)
