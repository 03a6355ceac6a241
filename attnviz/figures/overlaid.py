"""A figure with drawings composed over and beside its grid: a walkthrough step's mechanics.

FlashAttention's tiles and running state (`layout.flash_state`) and the KV cache's slots
(`layout.cache_strip`) are overlays: plain records with `apply(layout) -> Layout`, which read
the figure's `Layout.grid` and add their items after the figure's. The figure under them is laid
out exactly as without them, so every backend (SVG, PNG, PDF, TikZ, PowerPoint) draws both.

In a slide or column frame the mechanics go beside the grid where that fits the frame at its floor, else
under it (a paper column; `Below`), and their notation is typeset (ℓ₃ = e⁻¹+e⁰). Every step of one
walkthrough takes the same room either way (the walk's widest state, its fullest cache), so steps stay put.
"""

from __future__ import annotations

from .figure import Figure
from ..engine.mask_cells import MaskCells
from ..layout.figure import PAD
from ..layout.frames import FRAMES, fit_to_frame, get_frame, text_floor_misses
from ..numbers.exact import InputError
from ..words.budget import check_figure

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, Protocol

    from ..layout.figure import Metrics
    from ..layout.flash_state import Below
    from ..layout.frames import Frame
    from ..layout.items import Layout
    from ..words.figure_text import FigureText

    class Overlay(Protocol):
        """A drawing placed over and beside a laid-out figure."""

        def apply(self, layout: Layout) -> Layout:
            """`layout` with the overlay's items added."""

        def sentence(self) -> str:
            """What the overlay draws, for assistive technology."""

        @property
        def script(self) -> float:
            """The size its notation's scripts are typeset at (0: not typeset)."""

        def placed(self, script: float, below: Below | None) -> Overlay:
            """The overlay typeset with scripts at `script`, drawn in `below` under the grid (None: beside)."""

        def room(self) -> float:
            """The room it takes right of the grid (beside it) or under it (below), at the doc's sizes."""

        def room_width(self) -> float:
            """The width it takes under the grid at its widest (one column, a row of slots), at the doc's sizes."""

        def placement(self) -> str:
            """Where it is drawn, for `Layout.choices`: "beside the grid", "under the grid, in 2 columns"."""

__all__ = ["OverlaidFigure"]


class OverlaidFigure(Figure):
    """A `Figure` whose layout carries `overlays`, applied in order after the figure is laid out."""

    def __init__(self, *args: Any, overlays: Sequence[Overlay] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.overlays = tuple(overlays)

    def _key(self) -> object:
        return (self.words, self.overlays)

    def description(self) -> str:
        """The figure's sentence, then what its overlays draw."""
        return "; ".join([super().description(), *(overlay.sentence() for overlay in self.overlays)])

    def layout(self, cell: float | None = None, grid_top: float | None = None, panel: bool = False,
               titled: bool = True, cells: tuple[float, float] | None = None, side: float = 0) -> Layout:
        """The figure's layout with its overlays drawn over and beside the grid."""
        frame = get_frame(self.frame)
        if frame.name != "doc" and cell is None and grid_top is None and not panel and self.view != "mask":
            return self._framed(frame, titled and frame.kind in FRAMES)  # (a deck's slide has its own title)
        layout = super().layout(cell, grid_top, panel, titled)
        fitted = bool(frame.aspect and layout.height and abs(layout.width / layout.height - frame.aspect) < 1e-6)
        for overlay in self.overlays:
            layout = overlay.apply(layout)
        # a layout made to a slide's exact aspect keeps it, the overlays' room included
        return fit_to_frame(layout, frame) if fitted else layout

    def _framed(self, frame: Frame, titled: bool) -> Layout:
        """In a slide or column frame: the overlays are drawn at the doc's sizes over a grid laid out `k`
        times the doc's cell size with room beside it (or, where that does not fit, under it), and the whole
        then scaled by `k`, so the overlays' text reaches the frame's floor and their geometry (cell_box,
        CELL_H) stays theirs; their notation is typeset, its scripts at the floor. Refused in one line when
        neither fits the frame with every text at its floor."""
        from ..layout.figure import CELL_GAP, CELL_H  # start-up: only a framed step needs them
        from ..layout.framed import frame_metrics
        from ..layout.items import STYLES

        metrics = frame_metrics(frame)
        floor = frame.min_size(metrics.canvas_w)
        k = max(1.0, floor / min(STYLES[role].size for role in OVERLAY_ROLES))
        cells = (CELL_H * k, CELL_GAP * k)
        overlays = [overlay.placed(floor / k, None) for overlay in self.overlays]
        refusal = ""  # the last arrangement's: the one that came closest
        for where in ("beside", "under"):
            try:
                drawn = (self._beside(frame, titled, k, cells, overlays) if where == "beside"
                         else self._under(frame, titled, k, metrics, overlays))
            except InputError as refused:  # the figure itself is past the frame at its floor, with this room
                refusal = str(refused).removeprefix("frame: ")
                continue
            if _within(drawn, frame, metrics.canvas_w):
                return fit_to_frame(drawn, frame)
            refusal = (f"the step's figure with its mechanics is {drawn.width:.0f} × {drawn.height:.0f} at the "
                       f"{frame.name} frame's text floor, past its {metrics.canvas_w:.0f} units' width"
                       + (f" × {metrics.canvas_w / frame.aspect:.0f}" if frame.aspect else "")
                       + f"; try {WAYS_OUT.get(frame.kind, '')}--view scores, --frame doc or fewer tokens")
        raise InputError(refusal, "frame")

    def _beside(self, frame: Frame, titled: bool, k: float, cells: tuple[float, float],
                overlays: Sequence[Overlay]) -> Layout:
        """The step laid out with its mechanics right of the grid, `k` times the doc's size."""
        side = max((overlay.room() for overlay in overlays), default=0.0)
        return _drawn(self._framed_figure(frame, titled, cells, side=side * k), overlays, k)

    def _under(self, frame: Frame, titled: bool, k: float, metrics: Metrics, overlays: Sequence[Overlay]) -> Layout:
        """The step laid out with its mechanics under the grid, `k` times the doc's size: in a column, as wide
        as the column right of the row labels; on a slide, under the grid, the captions beside both (the
        grid's side widened where the mechanics are wider than it)."""
        from ..layout.flash_state import Below  # start-up: only a framed step needs it

        cells = (metrics.cell_h, metrics.cell_gap)  # under the grid, no state row sits beside a cell: the frame's
        n_k, gap = len(self.words.k_labels), cells[1] / k
        widest = max(overlay.room_width() for overlay in overlays)

        def room(width: float) -> float:
            return max(overlay.placed(overlay.script, Below(0, width)).room() for overlay in overlays)

        side, width, below = 0.0, widest, room(widest)
        for _ in range(3):  # the room settles once the grid's does (its choices may narrow its cells)
            layout = self._framed_figure(frame, titled, cells, side=side * k, below=below * k)
            assert layout.grid is not None  # a full figure's step has its grid
            x_cells, _, cell_w = (value / k for value in layout.grid)
            grid_w = n_k * (cell_w + gap) - gap
            if frame.is_slide:
                wanted_side, width = max(0.0, widest - grid_w), max(grid_w, widest)
            else:
                wanted_side, width = 0.0, metrics.canvas_w / k - x_cells - PAD
            wanted = room(width)
            if abs(wanted_side - side) < 1e-6 and abs(wanted - below) < 1e-6:
                break
            side, below = wanted_side, wanted
        placed = [overlay.placed(overlay.script, Below(x_cells, width, (cells[0] / k, gap))) for overlay in overlays]
        return _drawn(layout, placed, k)

    def _framed_figure(self, frame: Frame, titled: bool, cells: tuple[float, float], side: float = 0,
                       below: float = 0) -> Layout:
        """The figure under the overlays, laid out for `frame` with that room kept beside and under its grid."""
        from ..layout.framed import Framing, lay_out_framed  # start-up: only a framed step needs it

        words = self.words
        if TYPE_CHECKING:  # a walkthrough step is a full figure's
            assert isinstance(words, FigureText)
        check_figure(words, self.embed_font)
        attention = None if isinstance(self.attention, MaskCells) else self.attention
        return lay_out_framed(words, frame, Framing(attention, "title", self.elided, titled, cells, side, below,
                                                    self._step_wraps, step=self._step_wraps is not None))


def _drawn(layout: Layout, overlays: Sequence[Overlay], k: float) -> Layout:
    """`layout` (laid out at `k` times the doc's cell size) with `overlays` drawn at the doc's sizes, the
    whole at `layout`'s: every overlay's text `k` times its doc size (a choice the layout says)."""
    from ..layout.items import scaled  # start-up: only a framed step needs it

    small = scaled(layout, 1 / k)
    for overlay in overlays:
        small = overlay.apply(small)
    drawn = scaled(small, k)
    drawn.choices = layout.choices + (f"the step's mechanics {', '.join(o.placement() for o in overlays)}, "
                                      f"their text {k:.2f}× the doc's",)
    return drawn


#: A wider frame to try first, by frame.
WAYS_OUT = {"column": "--frame column-wide, ", "slide-4:3": "--frame slide, "}
#: The text roles the mechanics draw (`layout.flash_state`, `layout.cache_strip`).
OVERLAY_ROLES = ("state", "side-heading", "slot", "slot-note", "legend")


def _within(layout: Layout, frame: Frame, width: float) -> bool:
    """Whether `layout` fits `frame`'s canvas (a slide's, or a column's width and a page's height) with no
    text under its floor."""
    tallest = width / frame.aspect if frame.aspect else layout.width * 9 / frame.width_in
    return layout.width <= width + 1e-6 and layout.height <= tallest + 1e-6 and not text_floor_misses(layout, frame)
