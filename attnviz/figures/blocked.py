"""A score grid with FlexAttention's blocks outlined over it (`--blocks` in the full and scores views): an
`OverlaidFigure` whose overlay is `layout.block_outlines.BlocksOverlay`, and a `ScoresFigure` (its attention,
highlight and words are the grid's)."""

from __future__ import annotations

from .figure import Figure, ScoresFigure
from .overlaid import OverlaidFigure

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from typing import Any

    from ..engine.attention import Attention
    from ..words.figure_text import FigureText
    from ..words.highlight import Highlight

__all__ = ["BlockedScoresFigure", "step_of"]


class BlockedScoresFigure(OverlaidFigure, ScoresFigure):
    """A full or scores figure with its blocks outlined and their legend beside the grid."""


def step_of(fig: Figure, attention: Attention, marks: Highlight, words: FigureText, **look: Any) -> Figure:
    """One step's figure of `fig` (a walkthrough's, a deck's highlight): a plain `Figure` of `words`, or, when `fig`
    outlines FlexAttention's blocks, one that outlines them too (the same blocks on every step). `look`: the
    figure's id prefix, theme, font and frame, as `Figure` takes them."""
    if isinstance(fig, BlockedScoresFigure):
        return BlockedScoresFigure(attention, marks, words, overlays=fig.overlays, **look)
    return Figure(attention, marks, words, **look)
