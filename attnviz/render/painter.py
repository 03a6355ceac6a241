"""The one painter interface: a layout is walked once, here, and every backend draws it.

Like matplotlib's `RendererBase`, a backend (SVG, TikZ, PowerPoint) implements a handful of
drawing calls: `open_group`, `close_group`, `rect`, `mark` and `text`. What a role means (its
fill, stroke, dash, width, opacity) is resolved once, in `ROLE_PAINT`, so the pictures cannot
drift apart: dashed = masked, dotted = not computed yet, thick = computed this step, and a mask
map's highlight is see-through in every format.
"""

from __future__ import annotations

import math

from ..layout.items import Group, Mark, Rect, Text
from ..records import dataclass
from .themes import SHAPE_PAINT, TEXT_COLOUR

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Protocol, TypedDict

    from ..layout.items import Item

    class StrokeMeaning(TypedDict, total=False):
        """A role's stroke beyond its colours: its weight (a key of `STROKE_WEIGHTS`) and `Paint`'s fields of the
        same names."""

        weight: str
        dash: str
        fill_opacity: float

    class Painter(Protocol):
        """What a backend implements to draw a layout."""

        def open_group(self, group: Group, paint: Paint | None) -> None:
            """A group begins; `paint`: the paint its rects of that role share, if the group carries it."""

        def close_group(self, group: Group) -> None:
            """The group that began last ends."""

        def rect(self, rect: Rect, paint: Paint) -> None:
            """A rectangle, painted as its role says."""

        def mark(self, mark: Mark, paint: Paint) -> None:
            """A highlight's corner triangle (its top-right corner at mark.x, mark.y)."""

        def text(self, text: Text, colour: str) -> None:
            """A text of one or more lines; `colour`: the theme's colour key for its role. A typeset text
            (`text.math`, in the slide and column frames) is drawn run by run (`text.line_runs()`): plain
            runs and the user's runs as text, "sup" and "sub" runs at `math_text.SCRIPT_SCALE` of the size,
            raised `SUP_RISE` or lowered `SUB_DROP` em; its width is `math_text.runs_width`."""

__all__ = ["Hatch", "Paint", "STROKE_WEIGHTS", "ROLE_PAINT", "GROUP_PAINT", "DASHES", "paint", "walk", "stripes"]

#: Stroke dash patterns by meaning, as (on, off) lengths in layout units.
DASHES = {"dashed": (5, 3), "dotted": (2, 3)}


@dataclass(frozen=True, slots=True)
class Hatch:
    """Stripes: `width` wide, `period` apart (layout units), at `angle` degrees (the SVG pattern's rotation;
    45: rising left to right, "/")."""

    period: float
    width: float
    angle: float


def stripes(rect: Rect, hatch: Hatch) -> list[tuple[float, float, float, float]]:
    """(x0, y0, x1, y1) of each stripe's centre line across the rectangle (clip it to the rectangle): for
    backends that draw stripes as lines (TikZ, Cairo)."""
    x, y, w, h, angle = rect.x, rect.y, rect.w, rect.h, math.radians(hatch.angle)
    step = hatch.period / math.sin(angle)  # the stripes' spacing along a horizontal line
    run = h * round(1 / math.tan(angle), 12)  # how far a stripe leans across the rectangle's height
    lines, c = [], 0.0
    while c < w + run:
        lines.append((x + c, y, x + c - run, y + h))
        c += step
    return lines


@dataclass(frozen=True, slots=True)
class Paint:
    """How a shape role is drawn. Colours are keys of the theme's colours; `fill` may be "hatch"
    (the masked cells' stripes: masked-fill with masked-hatch stripes)."""

    role: str
    fill: str | None
    stroke: str | None
    width: float = 1  # stroke width, layout units (1 = a CSS pixel): one of `STROKE_WEIGHTS`
    dash: str | None = None  # a key of DASHES: "dashed" = masked, "dotted" = not computed yet
    fill_opacity: float = 1  # below 1: what lies under the shape shows through
    hatch: Hatch | None = None  # fill "hatch": the stripes' geometry


#: The stroke scale: every drawn stroke is one of three weights, in layout units (docs/styling.rst). `hairline`: a
#: cell's, a slot's or a badge's border, grid lines, a map's frame; `regular`: what groups cells (FlashAttention's
#: tiles, FlexAttention's blocks, Flash-Decoding's chunks), an evicted slot, a differential cell's sign; `bold`:
#: what this step computes (its cells, its tile, the new slot) and a map's highlighted cells.
STROKE_WEIGHTS = {"hairline": 1.0, "regular": 2.0, "bold": 3.0}

# The stroke's meaning beyond colour (colours come from themes.SHAPE_PAINT): its weight (hairline unless named),
# dash and see-through fill.
_STROKE_MEANING: dict[str, StrokeMeaning] = {
    "cell-masked": {"dash": "dashed"},
    "cell-computed": {"weight": "bold"},
    "cell-positive": {"weight": "regular"},
    "cell-negative": {"weight": "regular"},
    "cell-computed-outline": {"weight": "bold"},
    "cell-pending": {"dash": "dotted"},
    "softmax-pending": {"dash": "dotted"},
    "output-pending": {"dash": "dotted"},
    "computed": {"weight": "bold", "fill_opacity": 0.6},  # a map's highlight: the cell under it shows
    "tile": {"weight": "regular"},
    "tile-current": {"weight": "bold"},
    "tile-skipped": {"weight": "regular", "dash": "dashed"},
    "slot-new": {"weight": "bold"},
    "slot-empty": {"dash": "dotted"},
    "evicted": {"weight": "regular", "fill_opacity": 0.35},
    "future": {"dash": "dotted"},
    "block-full": {"weight": "regular"},
    "block-partial": {"weight": "regular", "dash": "dashed"},
    "block-empty": {"weight": "regular", "dash": "dotted"},
}

#: The masked cells' stripes (masked-hatch on masked-fill): they read as "masked" without colour, and in greyscale.
MASKED_HATCH = Hatch(period=8, width=2.5, angle=45)


def _paint(role: str, fill: str | None, stroke: str | None) -> Paint:
    """A shape role's paint: its colours, and its stroke's weight, dash and fill opacity (`_STROKE_MEANING`)."""
    meaning = _STROKE_MEANING.get(role, {})
    return Paint(role, fill, stroke, STROKE_WEIGHTS[meaning.get("weight", "hairline")], meaning.get("dash"),
                 meaning.get("fill_opacity", 1), MASKED_HATCH if fill == "hatch" else None)


#: Every shape role's paint, resolved once.
ROLE_PAINT: dict[str, Paint] = {role: _paint(role, fill, stroke) for role, (fill, stroke) in SHAPE_PAINT.items()}

#: Groups whose rects of one role share the group's paint (a map's up to 1,024 kept runs): first class -> role.
GROUP_PAINT = {"attnviz-map": "kept", "attnviz-gridlines": "map-gridline"}


def walk(items: Iterable[Item], painter: Painter) -> None:
    """Draw `items` (and their groups' children, in order) through `painter`."""
    for item in items:
        if isinstance(item, Group):
            role = GROUP_PAINT.get(item.classes[0])
            painter.open_group(item, None if role is None else ROLE_PAINT[role])
            walk(item.children, painter)
            painter.close_group(item)
        elif isinstance(item, Text):
            painter.text(item, TEXT_COLOUR[item.role])
        elif isinstance(item, Rect):
            painter.rect(item, ROLE_PAINT[item.role])
        elif isinstance(item, Mark):
            painter.mark(item, ROLE_PAINT[item.role])
        else:
            raise TypeError(f"cannot draw {item!r}")


def paint(layout_items: Iterable[Item], width: float, height: float, painter: Painter) -> None:
    """The background, then every item: a whole figure."""
    painter.rect(Rect("background", 0, 0, width, height), ROLE_PAINT["background"])
    walk(layout_items, painter)
