"""Every softmax slide shows its weights: in the step's expanded form where its words fit the slide's text
column, else in the normalizer form (`e^(s_t)/Z_8`, Z_8 written out once), else in the normalizer form with Z_8
said in words (the sum of the numerators). Never only in the notes, which keep the step's own words.
"""

from __future__ import annotations

import re

from ...words import notation

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

__all__ = ["WEIGHT_FORMS", "fitting_weights"]

#: The forms a slide writes a row's weights in, in order: (name, the weights' words for row i).
WEIGHT_FORMS: tuple[tuple[str, Callable[..., str]], ...] = (
    ("normalizer", lambda w, i: ", ".join(notation.weight_terms(w, "normalizer", i)) + ", where "
     + notation.normalizer_line(w, i)),
    ("normalizer, Z said", lambda w, i: ", ".join(notation.weight_terms(w, "normalizer", i)) + f", where Z_{i} is "
     "the sum of their numerators"),
)


def _rows(highlight: Sequence[object]) -> list[int]:
    """The rows whose softmax a step computes (its `softmax=I` targets)."""
    return [int(match[1]) for target in highlight if isinstance(target, str)
            and (match := re.fullmatch(r"softmax=(\d+)", target))]


def fitting_weights(paragraphs: Sequence[str], highlight: Sequence[object], attention: object,
                    fits: Callable[[Sequence[str]], bool]) -> tuple[str, ...]:
    """`paragraphs` with each softmax row's expanded weights rewritten in the first of `WEIGHT_FORMS` whose words
    `fits` the slide, when the step's own do not (unchanged when they fit, or when no weights are named)."""
    said = tuple(paragraphs)
    rows = _rows(highlight)
    if fits(said) or not rows or not hasattr(attention, "weights"):
        return said
    for _, form in WEIGHT_FORMS:
        written = said
        for i in rows:
            weights = attention.weights(i - 1)
            if weights.kind != "named":
                continue
            expanded = ", ".join(notation.weight_terms(weights, "expanded", i))
            written = tuple(p.replace(expanded, form(weights, i)) for p in written)
        if fits(written):
            return written
    return said
