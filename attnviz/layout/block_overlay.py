"""FlexAttention's blocks over a score grid: the outlines (`layout.block_outlines`) and their legend beside the
grid, or under it where the side has no room (a paper column): an overlay (`figures.overlaid`)."""

from __future__ import annotations

from ..records import dataclass, replace
from .block_outlines import legend_rows, outlines
from .figure import CELL_GAP, CELL_H, PAD
from .flash_state import BELOW_GAP, STATE_GAP, Below, cell_box, grid_bottom
from .items import STYLES, Text, measure, right_edge
from .mask_map import legend_entries
from .metrics import ASCENT, DESCENT

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from ..engine.blocks import Blocks
    from .items import Item, Layout

__all__ = ["BlocksOverlay"]


@dataclass(frozen=True)
class BlocksOverlay:
    """The blocks outlined over a score grid, their legend beside the grid (or `below` it): an overlay
    (`figures.overlaid`)."""

    blocks: Blocks
    script: float = 0  # the overlay's notation is plain words: nothing is typeset
    below: Below | None = None
    in_text: bool = False  # only the outlines drawn, the legend said in the step's text (a deck's last fallback)

    def heading(self) -> str:
        """Above the legend: "FlexAttention blocks of 4"."""
        return f"FlexAttention {self.blocks.size_words()}"

    def column_width(self) -> float:
        """The legend's width, one entry a line."""
        style = STYLES["legend"]
        entries = [(20 if role else 0) + measure(words, style) for _, role, words in legend_rows(self.blocks)]
        return max([measure(self.heading(), STYLES["side-heading"])] + entries)

    def placed(self, script: float, below: Below | None) -> BlocksOverlay:
        """The overlay drawn `below` the grid (None: beside it)."""
        return replace(self, script=script, below=below)

    def room(self) -> float:
        """The room it takes: right of the grid (beside), or under it (`below`); none when the text says it."""
        if self.in_text:
            return 0.0
        if self.below is None:
            return self.column_width() + STATE_GAP
        return _heading_h() + 8 + legend_entries(legend_rows(self.blocks), 0, 0, self.below.width)[1] + BELOW_GAP

    def room_width(self) -> float:
        """Its widest: one entry a line (none when the text says it)."""
        return 0.0 if self.in_text else self.column_width()

    def placement(self) -> str:
        """Where the legend is drawn."""
        if self.in_text:
            return "the blocks outlined over the grid, their legend in the step's text"
        return "beside the grid" if self.below is None else "under the grid"

    def sentence(self) -> str:
        """What it draws, for assistive technology."""
        return f"FlexAttention {self.blocks.summary()}, outlined over the grid"

    def state_text(self) -> str:
        """The legend as the step's text says it when the figure leaves it out: `FlexAttention blocks of 4, outlined
        over the grid: full block: no mask call (6); …; sparsity 37.5%.`"""
        entries = "; ".join(words for _, _, words in legend_rows(self.blocks))
        return f"{self.heading()}, outlined over the grid: {entries}."

    def apply(self, layout: Layout) -> Layout:
        """`layout` with the outlines over its grid and the legend beside (or under) it."""
        if layout.grid is None:
            return layout
        cells = self.below.cells if self.below is not None else (CELL_H, CELL_GAP)
        grid = layout.grid
        inset = cells[1] / 4  # in the gap between cells: neighbours' outlines touch, never overlap

        def box(rows: tuple[int, int], keys: tuple[int, int]) -> tuple[float, float, float, float]:
            x, y, w, h = cell_box(grid, rows, keys, cells)
            return x + inset, y + inset, w - 2 * inset, h - 2 * inset

        if self.in_text:  # (the outlines lie within the grid)
            return replace(layout, items=[*layout.items, outlines(self.blocks, box)])
        n_q, n_k = self.blocks.shape
        if self.below is None:
            x, heading_y = grid[0] + n_k * (grid[2] + CELL_GAP) - CELL_GAP + STATE_GAP, grid[1] - 10
            width = self.column_width()
        else:
            x, width = self.below.x, self.below.width
            heading_y = grid_bottom(grid, n_q, cells) + BELOW_GAP + ASCENT * STYLES["side-heading"].size
        heading = Text("side-heading", x, heading_y, (self.heading(),))
        legend, bottom = legend_entries(legend_rows(self.blocks), x, heading_y + DESCENT * STYLES["side-heading"].size
                                        + 8, width)
        items: list[Item] = [*layout.items, outlines(self.blocks, box), heading, *legend]
        right = max([right_edge(heading)] + [right_edge(item) for item in legend])
        return replace(layout, items=items, width=max(layout.width, right + PAD), height=max(layout.height,
                                                                                            bottom + PAD))


def _heading_h() -> float:
    return (ASCENT + DESCENT) * STYLES["side-heading"].size
