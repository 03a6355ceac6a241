"""What a step slide shows in PowerPoint and reveal.js, decided once for both from the deck model.

The model (`model.Slide`) has already fitted the step's words into the deck's geometry: the title (28 pt
on one line, or 22 pt on two, shortened with … when longer), the sentences that fit the text column at
`slide_text.TEXT_PT` (the rest on continuation slides) and the formula when the sentences do not say it.
Here the sentences' notation becomes Unicode math (as in the PDF deck) and the formula is broken into
lines of MathML that fit the column (`math_blocks.Formula.lines`), for OMML and for reveal.js. A
formula that does not fit under the sentences is never shrunk: it is left to the notes, which hold the
whole step, and the slide's last line says so (`MORE_IN_NOTES`).
"""

from __future__ import annotations

import re

from ...records import dataclass
from ...render.tex_escape import math
from ...words.user_text import user_spans
from .math_blocks import line_height, read_formula
from .slide_text import LINE, TEXT_PT, TITLE_MIN_PT, lines_of, title_lines, unicode_prose

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    import xml.etree.ElementTree as ET

    from .math_blocks import Formula
    from .model import Geometry, Slide

__all__ = ["SlidePlan", "plan_slide", "sentence_runs", "MORE_IN_NOTES", "SENTENCE_GAP", "NOTE_PT", "PX_PER_PT",
           "TEXT_PT", "LINE"]

SENTENCE_GAP = 0.4 * TEXT_PT  # between two sentences (the PDF deck's)
NOTE_PT = 14.0  # the smallest text on a slide: the line that says the rest is in the notes
PX_PER_PT = 4 / 3  # a 13.333-inch slide shown 1,280 px wide (and a 10-inch one 960 px wide)
#: The last line of a slide whose formula goes on in the speaker notes.
MORE_IN_NOTES = "The formula is in the speaker notes."


@dataclass(frozen=True)
class SlidePlan:
    """One step slide, fitted: its title, the paragraphs and formula lines it shows, and its notes."""

    title: str
    title_pt: float
    paragraphs: tuple[str, ...]  # the model's sentences, attnviz's notation as Unicode math
    runs: tuple[tuple[tuple[str, str], ...], ...]  # the same sentences as `sentence_runs`: text, user and math
    formula: Formula | None
    formula_lines: tuple[list[ET.Element], ...]  # empty: no formula shown (none, or it is in the notes)
    more_in_notes: bool  # the slide ends with MORE_IN_NOTES
    sentences_pt: float  # the sentences' height: where the formula begins in the text column
    notes: str


def plan_slide(slide: Slide, geometry: Geometry, number: int) -> SlidePlan:
    """`slide` fitted into `geometry`'s boxes; `number` names it in a formula's errors."""
    fitted = title_lines(slide.heading, geometry.title.w)
    title_pt = fitted[0] if fitted else float(TITLE_MIN_PT)
    text = geometry.text
    paragraphs = tuple(unicode_prose(paragraph) for paragraph in slide.paragraphs)
    line_h = TEXT_PT * LINE
    height = sum(len(lines_of(p, text.w) or p.split()) * line_h for p in paragraphs) + SENTENCE_GAP * max(
        0, len(paragraphs) - 1)
    formula = read_formula(slide.formula, f"slide {number}: formula")
    lines: tuple[list[ET.Element], ...] = ()
    if formula is not None:
        found = formula.lines(text.w, TEXT_PT)
        gap = line_h / 2 if paragraphs else 0
        if found and height + gap + sum(line_height(line, TEXT_PT) for line in found) <= text.h:
            lines = tuple(found)
        height += gap
    said = list(slide.notes or slide.paragraphs)
    if said[:1] == [slide.heading]:
        said.pop(0)
    notes = (slide.heading, *(unicode_prose(note) for note in said))  # attnviz's notation as Unicode math
    runs = tuple(sentence_runs(paragraph) for paragraph in slide.paragraphs)
    return SlidePlan(slide.heading, title_pt, paragraphs, runs, formula, lines, formula is not None and not lines,
                     height, "\n".join(notes))


_NOTATION = re.compile(r"[_^·/√=<>]")  # what makes a run of words attnviz's notation, not only numbers
_WORD = re.compile(r"\S+")


def sentence_runs(sentence: str) -> tuple[tuple[str, str], ...]:
    r"""A model sentence as ("text", words), ("user", a user's text) and ("math", TeX) runs: the longest runs
    of attnviz's words that read as its notation (`tex_escape.math`) become math; the rest of its words are
    Unicode math (`slide_text.unicode_prose`); a user's spans stay exactly as written.

    >>> sentence_runs("the product: S_{1,1} = Q1·K1 = 1; keeps j<=i.")
    (('text', 'the product: '), ('math', 'S_{1,1} = Q_{1} \\cdot K_{1} = 1'), ('text', '; keeps j≤i.'))
    """
    runs: list[tuple[str, str]] = []
    at = 0
    for start, stop in (*user_spans(sentence), (len(sentence), len(sentence))):
        runs += _notation_runs(sentence[at:start])
        if stop > start:
            runs.append(("user", sentence[start:stop]))
        at = stop
    merged: list[tuple[str, str]] = []
    for kind, text in runs:
        if merged and merged[-1][0] == kind != "math":
            merged[-1] = (kind, merged[-1][1] + text)
        elif text:
            merged.append((kind, text))
    return tuple((kind, unicode_prose(text) if kind == "text" else text) for kind, text in merged)


def _notation_runs(text: str) -> list[tuple[str, str]]:
    words = list(_WORD.finditer(text))
    runs: list[tuple[str, str]] = []
    at, n = 0, 0
    while n < len(words):
        found = None
        for last in range(len(words) - 1, n - 1, -1):  # the longest run from here that reads as notation
            start, stop = words[n].start(), words[last].end()
            core = text[start:stop].rstrip(".,;:")
            if _NOTATION.search(core) and (tex := math(core)) is not None:
                found = (last, start, start + len(core), tex)
                break
        if found is None:
            n += 1
            continue
        last, start, stop, tex = found
        runs += [("text", text[at:start]), ("math", tex)]
        at, n = stop, last + 1
    runs.append(("text", text[at:]))
    return runs
