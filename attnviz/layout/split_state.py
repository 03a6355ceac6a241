"""Flash-Decoding's chunks drawn as the papers draw them: each chunk's key columns outlined over the grid, and beside
the grid one strip per chunk, side by side (they run in parallel), each with every row's own m_c and ℓ_c, then a last
strip for the combine step. Every step draws every strip (empty until its chunk is computed), so steps stay put.

Like `layout.flash_state.FlashOverlay`, whose tiles, sizes and typesetting it shares (not a subclass: records do
not inherit fields), it reads only the figure's
`Layout.grid` and adds its items after the figure's. Beside the grid a strip's rows line up with the grid's; under
it (a paper column) the strips go in as many columns as the region holds, each row a block.
"""

from __future__ import annotations

from ..records import dataclass, replace
from .figure import CELL_GAP, CELL_H, PAD, math_width
from .flash_state import (BELOW_GAP, BLOCK_GAP, STATE_GAP, Below, StateRow, TileBox, grid_bottom,
                          heading_height, tile_rect)
from .items import STYLES, Group, Rect, Text, measure, right_edge
from .metrics import ASCENT

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from .items import Item, Layout

__all__ = ["Strip", "SplitOverlay", "STRIP_GAP", "CELL_LINES"]

STRIP_GAP = 10  # between two strips (side by side, and between their lines under the grid)
#: A row's lines beside the grid, a cell high (m_c and ℓ_c); a partial output O_c's line is drawn under the grid, or
#: beside it for one query (whose row has no row under it), and said in the step's text everywhere.
CELL_LINES = 2


@dataclass(frozen=True)
class Strip:
    """One chunk's state (or the combine step's): its heading and each row's lines; `current` when this step
    computes it."""

    heading: str  # "chunk 1", "combined"
    rows: tuple[StateRow, ...]
    current: bool = False
    keys: str = ""  # `data-k`: a chunk's keys, "1-3" (1-based); "" for the combine step's strip


@dataclass(frozen=True)
class SplitOverlay:
    """The chunks' bands over the grid (`tiles`) and their strips beside (or under) it. `width`, `script` and
    `below` as `FlashOverlay`'s (`walk` in place of its `width`): the notation's scripts at `script` (0: not
    typeset), the region under the grid (None: beside it)."""

    tiles: tuple[TileBox, ...]
    heading: str  # above the strips: "after chunk 2 of 3"
    strips: tuple[Strip, ...]
    # every step's strips (this one's among them): each strip as wide as at its widest step, in this frame's
    # typesetting, so that every step of a walk is the same size
    walk: tuple[tuple[Strip, ...], ...] = ()
    script: float = 0
    below: Below | None = None
    in_text: bool = False  # only the chunks outlined, the strips said in the step's text (a deck's last fallback)

    def placed(self, script: float, below: Below | None) -> SplitOverlay:
        """This overlay typeset with scripts at `script` and drawn `below` the grid (None: beside it)."""
        return replace(self, script=script, below=below)

    def _text(self, role: str, x: float, y: float, line: str) -> Text:
        return Text(role, x, y, (line,), math=bool(self.script), script=self.script)

    def strip_widths(self, strips: tuple[Strip, ...] | None = None) -> tuple[float, ...]:
        """Each strip's width for this step's words (or `strips`'): its heading or its widest line."""
        style, math = STYLES["state"], bool(self.script)
        chosen = self.strips if strips is None else strips
        return tuple(max([measure(strip.heading, STYLES["side-heading"])]
                         + [math_width(line, style, math, self.script) for row in strip.rows
                            for line in self._lines(row)]) + 16 for strip in chosen)

    def _lines(self, row: StateRow) -> tuple[str, ...]:
        """Row q's lines as drawn: typeset where the frame typesets; under the grid, named by their query (a
        block there is not beside its row)."""
        lines = row.drawn(bool(self.script))
        if self.below is None:  # beside the grid a row has a cell's height: its first two lines, but for one query
            return lines if self._queries() == 1 else lines[:CELL_LINES]
        if not lines:
            return lines
        return (f"Q{row.q}: {lines[0]}", *(f"      {line}" for line in lines[1:]))

    def column_width(self) -> float:
        """The widest strip's width."""
        return max(self._widths(), default=0.0)

    def _widths(self) -> tuple[float, ...]:
        """Each strip's width: at its widest step of the walk."""
        return tuple(max(column) for column in zip(*(self.strip_widths(strips) for strips in (self.strips,
                                                                                             *self.walk))))

    def _strip_w(self) -> float:
        return self.column_width()

    def _strip_h(self) -> float:
        """A strip's height under the grid: its heading, then a block a row."""
        rows = max((len(strip.rows) for strip in self.strips), default=0)
        return heading_height() + 8 + rows * (self._block_h() + BLOCK_GAP) - BLOCK_GAP

    def _queries(self) -> int:
        """The grid's rows (every chunk spans them all)."""
        return max((tile.rows[1] for tile in self.tiles), default=0)

    def _block_h(self) -> float:
        """A row's height in a strip: a cell's beside the grid (a query's lines taller only where it is the one
        query), else its lines' and a margin."""
        lines = max((len(self._lines(row)) for strip in self.strips for row in strip.rows), default=1)
        if self.below is None and lines <= CELL_LINES:
            return CELL_H
        style = STYLES["state"]
        return (lines - 1) * style.size * 1.2 + 1.3 * style.size + 10

    def _row_step(self) -> float:
        """From one row's top to the next's in a strip: the grid's rows beside it, else the blocks'."""
        height = self._block_h()
        return CELL_H + CELL_GAP if self.below is None and height == CELL_H else height + BLOCK_GAP

    def _flow(self) -> list[tuple[float, int]]:
        """Each strip's (x offset, line) under the grid: side by side, each at its own width, a new line where the
        region ends."""
        assert self.below is not None
        places, x, line = [], 0.0, 0
        for width in self._widths():
            if x and x + width > self.below.width:
                x, line = 0.0, line + 1
            places.append((x, line))
            x += width + STRIP_GAP
        return places

    def room(self) -> float:
        """Right of the grid (beside): every strip side by side; under it: the heading and the strips' lines."""
        n = max(1, len(self.strips))
        if self.in_text:
            return 0.0
        if self.below is None:
            return sum(self._widths()) + (n - 1) * STRIP_GAP + STATE_GAP
        lines = max((line for _, line in self._flow()), default=0) + 1
        return heading_height() + 8 + lines * (self._strip_h() + STRIP_GAP) - STRIP_GAP + BELOW_GAP

    def room_width(self) -> float:
        """The width under the grid at its narrowest arrangement: one strip (none when the text says them)."""
        return 0.0 if self.in_text else self._strip_w()

    def placement(self) -> str:
        """Where the strips are drawn."""
        if self.in_text:
            return "the chunks outlined over the grid, their strips in the step's text"
        if self.below is None:
            return f"{len(self.strips)} strips beside the grid"
        lines = max((line for _, line in self._flow()), default=0) + 1
        return f"{len(self.strips)} strips under the grid" + (f", in {lines} lines" if lines > 1 else "")

    def sentence(self) -> str:
        """The chunks and each strip's state in words."""
        current = [t for t in self.tiles if t.current]
        now = "".join(f", keys {t.keys[0]}–{t.keys[1]} this step" for t in current)
        strips = "; ".join(f"{strip.heading}"
                           + (f" (keys {strip.keys.replace('-', '–')})" if strip.keys else "") + ": "
                           + (", ".join(f"row {row.q} " + ", ".join(row.lines) for row in strip.rows) or "not yet")
                           for strip in self.strips)
        return f"{self.heading}: {len(self.tiles)} chunks outlined{now}; {strips}"

    def state_text(self) -> str:
        """The strips as the step's text says them when the figure leaves them out, but the one this step computes
        (its own sentences say that one), a sentence a row of a strip: `After chunk 2 of 2 (side by side). Chunk 1
        (keys 1–4), row 1: m = 2, ℓ = …. Chunk 1 (keys 1–4), row 2: …. Not yet: combined.`"""
        said = [self.heading[0].upper() + self.heading[1:] + "."]
        for strip in self.strips:
            if strip.rows and not strip.current:  # a sentence a row: each fits a slide's column
                keys = f" (keys {strip.keys.replace('-', '–')})" if strip.keys else ""
                said += [f"{strip.heading[0].upper()}{strip.heading[1:]}{keys}, row {row.q}: "
                         + ", ".join(row.notation or row.lines) + "." for row in strip.rows]
        waiting = [strip.heading for strip in self.strips if not strip.rows]
        return " ".join(said + ([f"Not yet: {', '.join(waiting)}."] if waiting else []))

    def apply(self, layout: Layout) -> Layout:
        """`layout` with the chunks outlined over its grid and the strips beside (or under) it."""
        if layout.grid is None:
            return layout
        x_cells, y_cells, cell_w = layout.grid
        n_k = max((tile.keys[1] for tile in self.tiles), default=0)
        n_q = max((tile.rows[1] for tile in self.tiles), default=0)
        cells = self.below.cells if self.below is not None else (CELL_H, CELL_GAP)
        items: list[Item] = list(layout.items)
        ordered = sorted(self.tiles, key=lambda tile: tile.current)
        items.append(Group(("attnviz-tiles",), (), tuple(tile_rect(tile, layout.grid, cells) for tile in ordered)))
        if self.in_text:  # (the chunks lie within the grid)
            return replace(layout, items=items)
        if self.below is None:
            # (beside the grid the strips' own headings head them; the step's heading is the section's)
            x0, top = x_cells + n_k * (cell_w + CELL_GAP) - CELL_GAP + STATE_GAP, y_cells
            widths = self._widths()
            origins = [(x0 + sum(widths[:n]) + n * STRIP_GAP, top) for n in range(len(self.strips))]
        else:
            top = grid_bottom(layout.grid, n_q, cells) + BELOW_GAP
            items.append(self._text("side-heading", self.below.x, top + ASCENT * STYLES["side-heading"].size,
                                    self.heading))
            first = top + heading_height() + 8
            origins = [(self.below.x + dx, first + line * (self._strip_h() + STRIP_GAP) + heading_height() + 8)
                       for dx, line in self._flow()]
        widths = self._widths()
        for strip, (x, y), w in zip(self.strips, origins, widths):
            items.append(self._strip(strip, x, y, w, n_q))
        right = max(right_edge(item) for item in items[len(layout.items) + 1:])
        bottom = max(item.box[3] for item in items[len(layout.items) + 2:] if isinstance(item, Group) and item.box)
        return replace(layout, items=items, width=max(layout.width, right + PAD),
                       height=max(layout.height, bottom + PAD))

    def _strip(self, strip: Strip, x: float, top: float, width: float, n_q: int) -> Group:
        """One strip: its heading above its first row, each row's lines at the row's place (of `n_q`)."""
        heading = self._text("side-heading", x + 8, top - 10, strip.heading)
        step = self._row_step()
        rows = tuple(self._row(row, x, top + (row.q - 1) * step if self.below is None else top + n * step, width)
                     for n, row in enumerate(strip.rows))
        height = n_q * step  # a row's place for every query, filled or not: every step the same size
        frame: tuple[Item, ...] = (Rect("tile-current" if strip.current else "tile", x, top - 4, width,
                                        max(height, step) + 4, rx=6, attrs=(("class", "attnviz-strip-frame"),)),)
        classes = ("attnviz-strip",) + (() if strip.keys else ("attnviz-strip-combined",)) + (
            ("attnviz-computed",) if strip.current else ())
        return Group(classes, (("data-k", strip.keys),) if strip.keys else (), frame + (heading,) + rows,
                     box=(x, top - 10 - 1.3 * STYLES["side-heading"].size, x + width, top + max(height, step)))

    def _row(self, row: StateRow, x: float, top: float, width: float) -> Group:
        """Row q's lines in the strip, centred on a cell's (or a block's) height."""
        line_h, height = STYLES["state"].size * 1.2, self._block_h()
        lines = self._lines(row)
        first = top + height / 2 - (len(lines) - 1) * line_h / 2 + 0.35 * STYLES["state"].size
        texts = tuple(self._text("state", x + 8, first + n * line_h, line) for n, line in enumerate(lines))
        return Group(("attnviz-state",), (("data-q", str(row.q)), ("data-m", row.m)), texts,
                     box=(x, top, x + width, top + height))

