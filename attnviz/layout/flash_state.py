"""A FlashAttention step drawn as the papers draw it: every tile outlined over the grid, and beside the grid
a state column with each row's running maximum m_i, normaliser ℓ_i and this step's rescale factor.

The overlay reads only the step's `Layout.grid` (the first cell's top-left corner and the cell width) and
adds its items after the figure's, so the figure under it is laid out exactly as without it. Its words
(m_i, ℓ_i as named sums of e^(…) terms) are written by the walkthrough (`publish.walkthrough.flash`);
this module only places them. Where the side has no room (a paper column), the state goes `below` the
grid instead: a block a row, in as many columns as the region holds (`Below`). In a slide or column
frame (`script` set) the state's notation is typeset: ℓ₃ = e⁻¹+e⁰, its scripts at the frame's floor.
"""

from __future__ import annotations

from ..records import dataclass, replace
from .figure import CELL_GAP, CELL_H, PAD, math_width
from .items import STYLES, Group, Rect, Text, measure, right_edge
from .metrics import ASCENT, DESCENT

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from .items import Item, Layout

__all__ = ["TileBox", "StateRow", "FlashOverlay", "Below", "cell_box", "grid_bottom", "STATE_GAP", "BELOW_GAP",
           "BLOCK_GAP", "COLUMN_GAP", "heading_height", "tile_rect"]

STATE_GAP = 24  # between the grid's last column and the state column
BELOW_GAP = 20  # between the grid's last row and mechanics drawn under it, and after them
_BLOCK_GAP, _COLUMN_GAP = 6, 16  # between a row's blocks under the grid, and between their columns


@dataclass(frozen=True)
class Below:
    """The region a step's mechanics take under the grid (layout units): from `x`, at most `width` wide; the
    grid's `cells` (height, gap) are then the frame's own, not the doc's (no state row sits beside a cell)."""

    x: float
    width: float
    cells: tuple[float, float] = (CELL_H, CELL_GAP)


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
    notation: tuple[str, ...] = ()  # `lines` in notation, for a frame that typesets it ("m_3 = 2"); () : `lines`

    def drawn(self, math: bool) -> tuple[str, ...]:
        """The lines as drawn: in notation where the frame typesets it, else as the doc frame writes them."""
        return self.notation if math and self.notation else self.lines


@dataclass(frozen=True)
class FlashOverlay:
    """The tiles and the state column of one step, placed over and beside a figure's grid."""

    tiles: tuple[TileBox, ...]
    heading: str  # above the state column: "after tile 3 of 5"
    rows: tuple[StateRow, ...]
    width: float = 0  # the state column at least this wide: every step of a walk the same size (`column_width`)
    script: float = 0  # in a slide or column frame, the size of the typeset notation's scripts (0: not typeset)
    below: Below | None = None  # the region under the grid to draw the state in (None: beside the grid)
    in_text: bool = False  # only the tiles drawn, the state said in the step's text (a deck's last fallback)

    def column_width(self) -> float:
        """The state column's width for this step's words."""
        style = STYLES["state"]
        math = bool(self.script)
        return max([measure(self.heading, STYLES["side-heading"])]
                   + [math_width(line, style, math, self.script) for row in self.rows for line in row.drawn(math)]) + 16

    def placed(self, script: float, below: Below | None) -> FlashOverlay:
        """This overlay typeset with scripts at `script` and drawn `below` the grid (None: beside it)."""
        return replace(self, script=script, below=below)

    def room(self) -> float:
        """The room it takes: right of the grid (beside), or under it (`below`)."""
        if self.in_text:
            return 0.0
        width = max(self.width, self.column_width())
        if self.below is None:
            return width + STATE_GAP
        return _heading_h() + 8 + self._columns(width)[1] * (self._block_h() + _BLOCK_GAP) - _BLOCK_GAP + BELOW_GAP

    def _block_h(self) -> float:
        """A row's block under the grid: its lines and a margin (beside the grid, a row is a cell high)."""
        if self.below is None:
            return CELL_H
        style = STYLES["state"]
        lines = max((len(row.lines) for row in self.rows), default=1)
        return (lines - 1) * style.size * 1.2 + (ASCENT + DESCENT) * style.size + 10

    def room_width(self) -> float:
        """The state's width in one column."""
        return 0.0 if self.in_text else max(self.width, self.column_width())

    def placement(self) -> str:
        """Where the state is drawn: beside the grid, or under it in so many columns."""
        if self.in_text:
            return "the tiles over the grid, the running state in the step's text"
        if self.below is None:
            return "beside the grid"
        columns = self._columns(self.room_width())[0]
        return "under the grid" + (f", in {columns} columns" if columns > 1 else "")

    def _columns(self, width: float) -> tuple[int, int]:
        """(columns, rows a column) of the blocks under the grid: as many columns as the region holds."""
        assert self.below is not None
        n = max(1, len(self.rows))
        columns = max(1, min(n, int((self.below.width + _COLUMN_GAP) // (width + _COLUMN_GAP))))
        per_column = -(-n // columns)
        return -(-n // per_column), per_column

    def sentence(self) -> str:
        """The tiles and the state in words: `tile rows 3-4, keys 3-4 current; 2 tiles skipped; m3 = 2, ...`."""
        current = [f"tile of queries {t.rows[0]}–{t.rows[1]}, keys {t.keys[0]}–{t.keys[1]} this step"
                   for t in self.tiles if t.current]
        skipped = sum(t.skipped for t in self.tiles)
        parts = [f"{len(self.tiles)} tiles outlined", *current] + [f"{skipped} skipped, fully masked"] * (skipped > 0)
        return f"{self.heading}: " + ", ".join(parts) + "; " + "; ".join(", ".join(row.lines) for row in self.rows)

    def state_text(self) -> str:
        """The state as the step's text says it when the figure leaves it out: `Running state after tile 3 of 5.
        Row 1: m_1 = 2, ℓ_1 = e^0+e^(-1). Row 2: …` (attnviz's notation, one sentence a row)."""
        rows = [f"Row {row.q}: " + ", ".join(row.notation or row.lines) + "." for row in self.rows]
        return " ".join([self.heading[0].upper() + self.heading[1:] + ".", *rows])

    def apply(self, layout: Layout) -> Layout:
        """`layout` with the tiles drawn over its grid and the state column beside it (or under it)."""
        if layout.grid is None:
            return layout
        x_cells, y_cells, cell_w = layout.grid
        n_k = max((tile.keys[1] for tile in self.tiles), default=0)
        items: list[Item] = list(layout.items)
        ordered = sorted(self.tiles, key=lambda tile: tile.current)  # the current tile last: drawn on top
        cells = self.below.cells if self.below is not None else (CELL_H, CELL_GAP)
        items.append(Group(("attnviz-tiles",), (), tuple(_tile_rect(tile, layout.grid, cells) for tile in ordered)))
        if self.in_text:  # (the tiles lie within the grid)
            return replace(layout, items=items)
        width = max(self.width, self.column_width())
        if self.below is None:
            x = x_cells + n_k * (cell_w + CELL_GAP) - CELL_GAP + STATE_GAP  # (beside, the doc's cells)
            items.append(self._text("side-heading", x, y_cells - 10, self.heading))
            tops = [(x, y_cells + (row.q - 1) * (CELL_H + CELL_GAP)) for row in self.rows]
        else:
            top = grid_bottom(layout.grid, len(self.rows), self.below.cells) + BELOW_GAP
            items.append(self._text("side-heading", self.below.x, top + ASCENT * STYLES["side-heading"].size,
                                    self.heading))
            per_column = self._columns(width)[1]
            first = top + _heading_h() + 8
            tops = [(self.below.x + (n // per_column) * (width + _COLUMN_GAP),
                     first + (n % per_column) * (self._block_h() + _BLOCK_GAP)) for n in range(len(self.rows))]
        items += [self._row(row, x, top, width) for row, (x, top) in zip(self.rows, tops)]
        # (the tiles lie within the grid: only the state widens the figure)
        right = max([tops[-1][0] + width if tops else 0] + [right_edge(item) for item in items[len(layout.items) + 1:]])
        bottom = max([top + self._block_h() + PAD for _, top in tops], default=0)
        return replace(layout, items=items, width=max(layout.width, right + PAD), height=max(layout.height, bottom))

    def _text(self, role: str, x: float, y: float, line: str) -> Text:
        return Text(role, x, y, (line,), math=bool(self.script), script=self.script)

    def _row(self, row: StateRow, x: float, top: float, width: float) -> Group:
        """Row q's state: its lines centred on a cell's height at `top`, banded when its tile is this step's."""
        line_h, height = STYLES["state"].size * 1.2, self._block_h()
        lines = row.drawn(bool(self.script))
        first = top + height / 2 - (len(lines) - 1) * line_h / 2 + (ASCENT - DESCENT) / 2 * STYLES["state"].size
        texts = tuple(self._text("state", x + 8, first + n * line_h, line) for n, line in enumerate(lines))
        band: tuple[Item, ...] = (Rect("state-band", x, top, width, height, rx=6),) if row.in_tile else ()
        attrs = (("data-q", str(row.q)), ("data-m", row.m)) + ((("data-rescale", row.rescale),) if row.rescale else ())
        classes = ("attnviz-state",) + (("attnviz-computed",) if row.in_tile else ())
        return Group(classes, attrs, band + texts, box=(x, top, x + width, top + height))


def _heading_h() -> float:
    """The height of a heading's line (`side-heading`)."""
    return (ASCENT + DESCENT) * STYLES["side-heading"].size


def grid_bottom(grid: tuple[float, float, float], rows: int, cells: tuple[float, float] = (CELL_H, CELL_GAP)) -> float:
    """The y of the bottom edge of a grid of `rows` rows of `cells` (height, gap)."""
    return grid[1] + rows * (cells[0] + cells[1]) - cells[1]


def cell_box(grid: tuple[float, float, float], rows: tuple[int, int], keys: tuple[int, int],
             cells: tuple[float, float] = (CELL_H, CELL_GAP)) -> tuple[float, float, float, float]:
    """(x, y, w, h) around cells rows[0]..rows[1] × keys[0]..keys[1] (1-based), its edges in the gaps; `cells`:
    the grid's cell height and gap (the doc's by default)."""
    x_cells, y_cells, cell_w = grid
    cell_h, gap = cells
    x = x_cells + (keys[0] - 1) * (cell_w + gap) - gap / 2
    y = y_cells + (rows[0] - 1) * (cell_h + gap) - gap / 2
    return x, y, (keys[1] - keys[0] + 1) * (cell_w + gap), (rows[1] - rows[0] + 1) * (cell_h + gap)


def _tile_rect(tile: TileBox, grid: tuple[float, float, float], cells: tuple[float, float]) -> Rect:
    x, y, w, h = cell_box(grid, tile.rows, tile.keys, cells)
    role = "tile-current" if tile.current else "tile-skipped" if tile.skipped else "tile"
    classes = "attnviz-tile" + (" attnviz-tile-current" if tile.current else "") + (
        " attnviz-tile-skipped" if tile.skipped else "")
    attrs = (("class", classes), ("data-rows", f"{tile.rows[0]}-{tile.rows[1]}"),
             ("data-keys", f"{tile.keys[0]}-{tile.keys[1]}"))
    return Rect(role, x, y, w, h, rx=3, attrs=attrs)


# The names Flash-Decoding's strips (layout.split_state) share with this state column.
BLOCK_GAP, COLUMN_GAP = _BLOCK_GAP, _COLUMN_GAP
heading_height, tile_rect = _heading_h, _tile_rect
