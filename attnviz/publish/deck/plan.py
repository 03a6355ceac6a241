"""What each step slide shows and what its speaker notes carry, decided once for PowerPoint and reveal.js.

A slide shows its title (28 pt on one line, or 24 or 20 pt on two), its sentences at 18 pt and its formula
at 18 pt, broken into lines that fit the text box (`math_blocks.Formula.lines`). What does not fit is
never shrunk: it moves to the notes, and the slide's last line says so (`geometry.MORE_IN_NOTES`).
The notes always hold the whole step: title, sentences and the formula with its exact values.
"""

from __future__ import annotations

from ...records import dataclass
from .geometry import LINE, SENTENCE_PT, fit_lines, fit_title, slide_boxes
from .math_blocks import line_height, read_formula

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    import xml.etree.ElementTree as ET

    from .geometry import SlideBoxes
    from .math_blocks import Formula
    from .model import Deck, Slide

__all__ = ["SlidePlan", "plan_slide", "deck_aspect", "deck_boxes"]


@dataclass(frozen=True)
class SlidePlan:
    """One step slide, fitted: its title, the paragraphs and formula lines it shows, and its notes."""

    title: str  # as shown (cut, with an ellipsis, when too long: the notes have it whole)
    title_pt: float
    paragraphs: tuple[str, ...]  # as shown: whole paragraphs, or the first lines of one
    formula: Formula | None
    formula_lines: tuple[list[ET.Element], ...]  # empty: no formula shown (none, or it moved to the notes)
    more_in_notes: bool  # the slide ends with geometry.MORE_IN_NOTES
    sentences_pt: float  # the shown sentences' height: where the formula begins in the text box
    notes: str


def deck_aspect(deck: Deck) -> str:
    """"4:3" for a deck whose figures are laid out in the slide-4:3 frame, else "16:9"."""
    return "4:3" if deck.slides and deck.slides[0].figure.frame == "slide-4:3" else "16:9"


def deck_boxes(deck: Deck) -> SlideBoxes:
    """The boxes every step slide of `deck` uses (the text box only if some step has words)."""
    with_text = any(slide.paragraphs or slide.formula for slide in deck.slides)
    return slide_boxes(deck_aspect(deck), with_text)


def plan_slide(slide: Slide, boxes: SlideBoxes, number: int) -> SlidePlan:
    """`slide` fitted into `boxes`; `number` names it in a formula's errors."""
    title_pt, title_lines, _ = fit_title(slide.heading, boxes.title.w, boxes.title.h)
    formula = read_formula(slide.formula, f"slide {number}: formula")
    text = boxes.text
    paragraphs: tuple[str, ...] = ()
    lines: tuple[list[ET.Element], ...] = ()
    moved: list[str] = []
    height = 0.0
    if text is not None:  # else no step of the deck has words
        found = formula.lines(text.w, SENTENCE_PT) if formula else None
        reserved = [sum(line_height(line, SENTENCE_PT) for line in found)] if found else []
        shown, moved, fits = fit_lines(slide.paragraphs, text.w, text.h, reserved)
        paragraphs = tuple(" ".join(p) for p in shown)
        height = sum(len(p) for p in shown) * SENTENCE_PT * LINE + SENTENCE_PT / 2 * len(shown)
        if found and fits:
            lines = tuple(found)
        elif formula is not None:
            moved.append(formula.linear())
    notes = [slide.heading, *slide.paragraphs]
    if formula is not None:
        notes.append(formula.linear())
    return SlidePlan(" ".join(title_lines), title_pt, paragraphs, formula, lines, bool(moved), height,
                     "\n".join(notes))

