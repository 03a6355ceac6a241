"""A walkthrough's mechanics said in its steps' text where the figure with them does not fit its frame.

A FlashAttention step draws each row's running state beside (or under) its grid, a decoding step its KV cache's
slots. In a slide frame that room may be past the frame at its text floor (an 8-token decode with values); then,
rather than refusing, every step of the walk keeps only what lies over its grid (the tiles, the cache's marks) and
its text says the rest (`FlashOverlay.state_text`, `CacheStrip.state_text`): the steps stay the same size, the
grid still. The deck does the same as its last fallback (`publish.deck.fitting.STATE_REDUCTIONS`).
"""

from __future__ import annotations

import copy
from dataclasses import replace

from ...layout.frames import get_frame
from ...numbers.exact import InputError

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import TypeVar

    from ..document import Document

    Step = TypeVar("Step")

__all__ = ["state_in_text", "with_state_in_text", "state_paragraphs"]


def with_state_in_text(fig: Step) -> Step:
    """`fig` (a copy) drawing only what its overlays put over its grid, their state said in its text instead."""
    moved = copy.copy(fig)
    # (an overlay that cannot say its state in text, Flash-Decoding's strips, stays drawn)
    moved.overlays = tuple(replace(overlay, in_text=True) if hasattr(overlay, "in_text") else overlay  # type: ignore[attr-defined]
                           for overlay in getattr(fig, "overlays", ()))
    return moved


def state_paragraphs(fig: object) -> tuple[str, ...]:
    """What `fig`'s overlays leave to its step's text: a paragraph for each overlay drawn only over the grid."""
    return tuple(overlay.state_text() for overlay in getattr(fig, "overlays", ()) if getattr(overlay, "in_text", False))


def state_in_text(document: Document, figures: Sequence[Step]) -> tuple[Document, list[Step]]:
    """The walk as it is where every step fits its frame (or the frame is the doc's, which fits any); else every
    step with its mechanics' state in its text. The refusal stands when even that does not fit."""
    if not figures or get_frame(getattr(figures[0], "frame", "doc")).name == "doc":
        return document, list(figures)
    try:
        for fig in figures:
            fig.layout()  # type: ignore[attr-defined]
        return document, list(figures)
    except InputError as refused:
        if refused.where != "frame":
            raise
        moved = [with_state_in_text(fig) for fig in figures]
        try:
            for fig in moved:
                fig.layout()  # type: ignore[attr-defined]
        except InputError as still:
            if still.where != "frame":
                raise
            raise refused from None
    sections = tuple(replace(section, paragraphs=tuple(section.paragraphs) + state_paragraphs(fig))
                     for section, fig in zip(document.sections, moved))
    return replace(document, sections=sections), moved
