"""Long token labels shortened in a framed grid's headers: a frame's choice (`layout.framed`) when the
figure does not fit with every label whole, as a panel's long title is shortened (`layout.panel_fit`).

A label longer than `LABEL_CHARS` letters is drawn in the grid's row and column headers as its first
letters and "…" (letters as a reader sees them: marks, vowel signs, skin tones and joined emoji stay whole,
`graphemes`); the vector lines and softmax rows keep it whole, and the choice's words, said in the figure's
<desc>, name every shortened label whole.

>>> short_label("internationalization"), short_label("naïve café"), short_label("cat")
('internat…', 'naïve ca…', 'cat')
"""

from __future__ import annotations

from ..records import replace
from .user_text import concat, graphemes, user_spans, user_text

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from .figure_text import FigureText

__all__ = ["LABEL_CHARS", "short_label", "with_short_labels"]

LABEL_CHARS = 8  # the most letters of a label a shortened header keeps, before its "…"


def short_label(label: str, most: int = LABEL_CHARS) -> str:
    """`label` cut after `most` letters (`graphemes`) with "…" (generated: the user's part keeps its span); a
    label no longer than `most` + 1 letters is drawn whole."""
    letters = graphemes(label) if len(label) > most + 1 else []  # (a short label loads no segmentation)
    if len(letters) <= most + 1:
        return label
    del letters[most:]
    while letters and letters[-1].isspace():  # (spaces before the "…" go, whole letters)
        letters.pop()
    return concat((user_text if user_spans(label) else str)("".join(letters)), "…")


def with_short_labels(words: FigureText) -> tuple[FigureText, str] | None:
    """`words` with its long labels shortened in the grid's headers and the choice's words (naming each
    shortened label whole), or None when no label is long."""
    q_labels = tuple(short_label(label) for label in words.q_labels)
    k_labels = tuple(short_label(label) for label in words.k_labels)
    if q_labels == words.q_labels and k_labels == words.k_labels:
        return None
    long = dict.fromkeys(label for label, short in zip(words.q_labels + words.k_labels, q_labels + k_labels)
                         if short != label)
    said = "long token labels shortened in the grid's headers with … (whole: " + ", ".join(long) + ")"
    return replace(words, q_labels=q_labels, k_labels=k_labels), said
