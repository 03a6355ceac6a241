"""Panels in rows under a heading: what a composed figure and a framed figure's grid of panels both draw."""

from __future__ import annotations

from ..layout.figure import PAD, STYLES, Group, Text, split_keep, text_height, translate, wrap
from ..layout.metrics import ASCENT

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..layout.items import Item, Layout

__all__ = ["heading", "placed_panels"]


def heading(title: str | None, shared: list[tuple[str, str]], width: float) -> tuple[list[Item], float]:
    """The title, then what every panel says (said once, under it), wrapped to `width`; and the y under them."""
    items: list[Item] = []
    y: float = PAD if title else 0
    for role, text in ([("title", title)] if title else []) + shared:
        y = max(y, PAD - 8)
        lines = wrap(split_keep(text, " "), role, width)
        items.append(Text(role, PAD, y + ASCENT * STYLES[role].size, lines))
        y += text_height(role, len(lines)) + 4
    return items, y


def placed_panels(layouts: Sequence[Layout], kinds: Sequence[tuple[str, int, int] | None], rows: list[list[int]],
                  columns: int, attrs: Sequence[tuple[tuple[str, str], ...]] | None, y: float,
                  gap: float = 0) -> tuple[list[Item], float, float]:
    """The panels' groups placed in their rows from `y`, `gap` apart (in a column, grids of one kind line up on
    their left edge); and the right edge and the y under them."""
    lefts: dict[tuple[str, int, int], float] = {}
    for kind, layout in zip(kinds, layouts):
        if kind and layout.grid and columns == 1:
            lefts[kind] = max(lefts.get(kind, 0), layout.grid[0])
    widths = [max(layouts[row[c]].width if c < len(row) else 0 for row in rows) for c in range(columns)]
    items: list[Item] = []
    right: float = 0
    for row in rows:
        x: float = 0
        for c, n in enumerate(row):
            layout, kind = layouts[n], kinds[n]
            dx = x + (lefts[kind] - layout.grid[0] if kind in lefts and kind and layout.grid else 0)
            moved = tuple(translate(item, dx, y) for item in layout.items)
            extra = attrs[n] if attrs is not None else ()
            items.append(Group(("attnviz-panel",), (("data-panel", str(n + 1)), *extra), moved))
            right = max(right, dx + layout.width)
            x += widths[c] + gap
        y += max(layouts[n].height for n in row)
    return items, right, y
