"""A FlashAttention step drawn as the papers draw it: every tile outlined over the grid, and beside the grid
a state column with each row's running maximum m_i, normaliser ℓ_i and this step's rescale factor.

The overlay reads only the step's `Layout.grid` (the first cell's top-left corner and the cell width) and
adds its items after the figure's, so the figure under it is laid out exactly as without it. Its words
(m_i, ℓ_i as named sums of e^(…) terms) are written by the walkthrough (`publish.walkthrough.flash`);
this module only places them.
"""

from __future__ import annotations

from ..records import dataclass, replace
from .figure import CELL_GAP, CELL_H, PAD
from .items import STYLES, Group, Rect, Text, measure, right_edge
from .metrics import ASCENT, DESCENT

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from .items import Item, Layout

__all__ = ["TileBox", "StateRow", "FlashOverlay", "cell_box", "STATE_GAP"]

STATE_GAP = 24  # between the grid's last column and the state column


@dataclass(frozen=True)
class TileBox:
    """One tile, 1-based and inclusive: queries rows[0]..rows[1], keys keys[0]..keys[1]."""

    rows: tuple[int, int]
    keys: tuple[int, int]
    skipped: bool = False  # every cell masked: FlashAttention skips it
    current: bool = False  # the tile of this step


@dataclass(frozen=True)
class StateRow:
    """Row q's running state after this step, as the walkthrough writes it."""

    q: int
    m: str  # `data-m`: m_i as attnviz writes numbers, "-inf" before the row's first tile
    lines: tuple[str, ...]  # "m3 = 2", "ℓ3 = e^(-1)+e^0", "rescale e^(1−2) = e^(-1)"
    in_tile: bool = False  # the row is in this step's tile: its state changed at this step
    rescale: str = ""  # `data-rescale`: m_old − m_new, when this step rescaled the row


@dataclass(frozen=True)
class FlashOverlay:
    """The tiles and the state column of one step, placed over and beside a figure's grid."""

    tiles: tuple[TileBox, ...]
    heading: str  # above the state column: "after tile 3 of 5"
    rows: tuple[StateRow, ...]
    width: float = 0  # the state column at least this wide: every step of a walk the same size (`column_width`)

    def column_width(self) -> float:
        """The state column's width for this step's words."""
        style = STYLES["state"]
        return max([measure(self.heading, STYLES["side-heading"])]
                   + [measure(line, style) for row in self.rows for line in row.lines]) + 16

    def sentence(self) -> str:
        """The tiles and the state in words: `tile rows 3-4, keys 3-4 current; 2 tiles skipped; m3 = 2, ...`."""
        current = [f"tile of queries {t.rows[0]}–{t.rows[1]}, keys {t.keys[0]}–{t.keys[1]} this step"
                   for t in self.tiles if t.current]
        skipped = sum(t.skipped for t in self.tiles)
        parts = [f"{len(self.tiles)} tiles outlined", *current] + ([f"{skipped} skipped, fully masked"] if skipped
                                                                     else [])
        return f"{self.heading}: " + ", ".join(parts) + "; " + "; ".join(", ".join(row.lines) for row in self.rows)

    def apply(self, layout: Layout) -> Layout:
        """`layout` with the tiles drawn over its grid and the state column beside it."""
        if layout.grid is None:
            return layout
        x_cells, y_cells, cell_w = layout.grid
        n_k = max((tile.keys[1] for tile in self.tiles), default=0)
        items: list[Item] = list(layout.items)
        ordered = sorted(self.tiles, key=lambda tile: tile.current)  # the current tile last: drawn on top
        items.append(Group(("attnviz-tiles",), (), tuple(_tile_rect(tile, layout.grid) for tile in ordered)))
        x = x_cells + n_k * (cell_w + CELL_GAP) - CELL_GAP + STATE_GAP
        items.append(Text("side-heading", x, y_cells - 10, (self.heading,)))
        style = STYLES["state"]
        width = max(self.width, self.column_width())
        line_h = style.size * 1.2
        for row in self.rows:
            top = y_cells + (row.q - 1) * (CELL_H + CELL_GAP)
            first = top + CELL_H / 2 - (len(row.lines) - 1) * line_h / 2 + (ASCENT - DESCENT) / 2 * style.size
            texts = tuple(Text("state", x + 8, first + n * line_h, (line,)) for n, line in enumerate(row.lines))
            band: tuple[Item, ...] = (Rect("state-band", x, top, width, CELL_H, rx=6),) if row.in_tile else ()
            attrs = (("data-q", str(row.q)), ("data-m", row.m)) + ((("data-rescale", row.rescale),)
                                                                    if row.rescale else ())
            classes = ("attnviz-state",) + (("attnviz-computed",) if row.in_tile else ())
            items.append(Group(classes, attrs, band + texts, box=(x, top, x + width, top + CELL_H)))
        right = max([x + width] + [right_edge(item) for item in items[len(layout.items):]])
        return replace(layout, items=items, width=max(layout.width, right + PAD))


def cell_box(grid: tuple[float, float, float], rows: tuple[int, int],
             keys: tuple[int, int]) -> tuple[float, float, float, float]:
    """(x, y, w, h) around cells rows[0]..rows[1] × keys[0]..keys[1] (1-based), its edges in the gaps."""
    x_cells, y_cells, cell_w = grid
    x = x_cells + (keys[0] - 1) * (cell_w + CELL_GAP) - CELL_GAP / 2
    y = y_cells + (rows[0] - 1) * (CELL_H + CELL_GAP) - CELL_GAP / 2
    return x, y, (keys[1] - keys[0] + 1) * (cell_w + CELL_GAP), (rows[1] - rows[0] + 1) * (CELL_H + CELL_GAP)


def _tile_rect(tile: TileBox, grid: tuple[float, float, float]) -> Rect:
    x, y, w, h = cell_box(grid, tile.rows, tile.keys)
    role = "tile-current" if tile.current else "tile-skipped" if tile.skipped else "tile"
    classes = "attnviz-tile" + (" attnviz-tile-current" if tile.current else "") + (
        " attnviz-tile-skipped" if tile.skipped else "")
    attrs = (("class", classes), ("data-rows", f"{tile.rows[0]}-{tile.rows[1]}"),
             ("data-keys", f"{tile.keys[0]}-{tile.keys[1]}"))
    return Rect(role, x, y, w, h, rx=3, attrs=attrs)
