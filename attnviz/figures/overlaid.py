"""A figure with drawings composed over and beside its grid: a walkthrough step's mechanics.

FlashAttention's tiles and running state (`layout.flash_state`) and the KV cache's slots
(`layout.cache_strip`) are overlays: plain records with `apply(layout) -> Layout`, which read
the figure's `Layout.grid` and add their items after the figure's. The figure under them is laid
out exactly as without them, so every backend (SVG, PNG, PDF, TikZ, PowerPoint) draws both.
"""

from __future__ import annotations

from .figure import Figure
from ..layout.frames import FRAMES, fit_to_frame, get_frame, text_floor_misses
from ..numbers.exact import InputError

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, Protocol

    from ..layout.frames import Frame
    from ..layout.items import Layout

    class Overlay(Protocol):
        """A drawing placed over and beside a laid-out figure."""

        def apply(self, layout: Layout) -> Layout:
            """`layout` with the overlay's items added."""

        def sentence(self) -> str:
            """What the overlay draws, for assistive technology."""

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
            return self._framed(frame, titled and frame.name in FRAMES)  # (a deck's slide has its own title)
        layout = super().layout(cell, grid_top, panel, titled)
        fitted = bool(frame.aspect and layout.height and abs(layout.width / layout.height - frame.aspect) < 1e-6)
        for overlay in self.overlays:
            layout = overlay.apply(layout)
        # a layout made to a slide's exact aspect keeps it, the overlays' room included
        return fit_to_frame(layout, frame) if fitted else layout

    def _framed(self, frame: Frame, titled: bool) -> Layout:
        """In a slide or column frame: the overlays are drawn at the doc's sizes over a grid laid out `k`
        times the doc's cell size with room beside it, and the whole then scaled by `k`, so the overlays'
        text reaches the frame's floor and their geometry (cell_box, CELL_H) stays theirs. Refused in one
        line when the result is past the frame or a text under its floor."""
        from ..layout.figure import CELL_GAP, CELL_H  # start-up: only a framed step needs them
        from ..layout.flash_state import STATE_GAP
        from ..layout.framed import frame_metrics
        from ..layout.items import STYLES, scaled

        metrics = frame_metrics(frame)
        floor = frame.min_size(metrics.canvas_w)
        k = max(1.0, floor / min(STYLES[role].size for role in OVERLAY_ROLES))
        side = max((_side_width(overlay) for overlay in self.overlays), default=0.0)
        layout = super().layout(titled=titled, cells=(CELL_H * k, CELL_GAP * k), side=(side + STATE_GAP) * k)
        small = scaled(layout, 1 / k)
        for overlay in self.overlays:
            small = overlay.apply(small)
        drawn = scaled(small, k)
        drawn.choices = layout.choices + (f"the step's mechanics beside the grid, their text {k:.2f}× the doc's",)
        if not _within(drawn, frame, metrics.canvas_w):
            raise InputError(f"the step's figure with its mechanics is {drawn.width:.0f} × {drawn.height:.0f} at "
                             f"the {frame.name} frame's text floor, past its {metrics.canvas_w:.0f} units' width"
                             + (f" × {metrics.canvas_w / frame.aspect:.0f}" if frame.aspect else "")
                             + f"; try {WAYS_OUT.get(frame.name, '')}--view scores, --frame doc or fewer tokens",
                             "frame")
        return fit_to_frame(drawn, frame)


#: A wider frame to try first, by frame.
WAYS_OUT = {"column": "--frame column-wide, ", "slide-4:3": "--frame slide, "}
#: The text roles the mechanics draw (`layout.flash_state`, `layout.cache_strip`).
OVERLAY_ROLES = ("state", "side-heading", "slot", "slot-note", "legend")


def _side_width(overlay: object) -> float:
    """The room an overlay takes right of the grid, at the doc's sizes (0 for one that takes none)."""
    from ..layout.cache_strip import CacheStrip  # start-up: only a framed step needs them
    from ..layout.flash_state import FlashOverlay

    if isinstance(overlay, FlashOverlay):
        return max(overlay.width, overlay.column_width())
    if isinstance(overlay, CacheStrip):
        return max(overlay.extent()[0], overlay.reserve[0])
    return 0.0


def _within(layout: Layout, frame: Frame, width: float) -> bool:
    """Whether `layout` fits `frame`'s canvas (a slide's, or a column's width and a page's height) with no
    text under its floor."""
    tallest = width / frame.aspect if frame.aspect else layout.width * 9 / frame.width_in
    return (layout.width <= width + 1e-6 and layout.height <= tallest + 1e-6
            and not text_floor_misses(layout, frame))
