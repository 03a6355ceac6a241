"""A score grid with FlexAttention's blocks outlined over it (`--blocks` in the full and scores views): an
`OverlaidFigure` whose overlay is `layout.block_outlines.BlocksOverlay`, and a `ScoresFigure` (its attention,
highlight and words are the grid's)."""

from __future__ import annotations

from .figure import ScoresFigure
from .overlaid import OverlaidFigure

__all__ = ["BlockedScoresFigure"]


class BlockedScoresFigure(OverlaidFigure, ScoresFigure):
    """A full or scores figure with its blocks outlined and their legend beside the grid."""
