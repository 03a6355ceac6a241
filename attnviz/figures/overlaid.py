"""A figure with drawings composed over and beside its grid: a walkthrough step's mechanics.

FlashAttention's tiles and running state (`layout.flash_state`) and the KV cache's slots
(`layout.cache_strip`) are overlays: plain records with `apply(layout) -> Layout`, which read
the figure's `Layout.grid` and add their items after the figure's. The figure under them is laid
out exactly as without them, so every backend (SVG, PNG, PDF, TikZ, PowerPoint) draws both.
"""

from __future__ import annotations

from .figure import Figure
from ..layout.frames import fit_to_frame, get_frame

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, Protocol

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

    def layout(self, cell: float | None = None, grid_top: float | None = None, panel: bool = False) -> Layout:
        """The figure's layout with its overlays drawn over and beside the grid."""
        layout = super().layout(cell, grid_top, panel)
        frame = get_frame(self.frame)
        fitted = bool(frame.aspect and layout.height and abs(layout.width / layout.height - frame.aspect) < 1e-6)
        for overlay in self.overlays:
            layout = overlay.apply(layout)
        # a layout made to a slide's exact aspect keeps it, the overlays' room included
        return fit_to_frame(layout, frame) if fitted else layout
