"""What a deck's slides of differential attention say (figures.differential): each head's weights row by row, then
the difference d_ij = a_ij − λ·b_ij, its exact entries and its certified signs, in the words the figure draws
(`a21`, `d21`, blue and vermillion edges).
"""

from __future__ import annotations

from ..numbers.exact import format_number
from . import notation

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from fractions import Fraction

    from ..engine.attention import Attention
    from .figure_text import FigureText

__all__ = ["head_paragraphs", "difference_paragraphs", "SIGN_WORDS"]

#: A certified sign's words: how the cell shows it (its edge's colour, its comparison), in the slide's text.
SIGN_WORDS = {1: "Positive (a blue edge, >0)", -1: "Negative (a vermillion edge, <0)", 0: "Exactly 0"}


def head_paragraphs(h: int, attention: Attention, words: FigureText) -> tuple[str, ...]:
    """Head `h`'s (1 or 2) slide: its scores and mask, then its weights a_ij (b_ij) row by row, each row's
    written out as the figure's softmax captions write them (`weights_fit` may shorten them to fit)."""
    letter, sub = "ab"[h - 1], "₁₂"[h - 1]
    said = [f"Head {h}: {words.grid_caption}; its weights {letter}_ij (A{sub}) are each row's softmax of them."]
    for i in range(attention.shape[0]):
        weights = attention.weights(i)
        kept = [j for j, keep in enumerate(attention.kept[i] or (), 1) if keep]
        if not kept:
            continue
        names = ", ".join(f"{letter}{i + 1}{j}" for j in kept)
        said.append(f"Row {i + 1}: {names} = {', '.join(notation.weight_terms(weights, 'expanded', i + 1))}.")
    return tuple(said)


def difference_paragraphs(lam: Fraction | str, words: FigureText,
                          entries: dict[tuple[int, int], tuple[str, Fraction | None, int | None]]) -> tuple[str, ...]:
    """The difference's slide: what d_ij is, its exact entries, and each entry's certified sign (`entries`: each
    kept cell's (text, exact value or None, sign or None), as `figures.differential.difference_entry` gives them)."""
    name = lam if isinstance(lam, str) else format_number(lam)
    said = [f"The difference d_ij = a_ij − {name}·b_ij (λ = {name}): head 1's weights minus {name} times head 2's, "
            f"A₁ − {name}·A₂, under the {words.grid_caption.rpartition(' with ')[2] or 'heads’ mask'}."]
    exact = [f"d{i}{j} = {text}" for (i, j), (text, value, _) in entries.items() if value is not None]
    if exact:
        said.append(f"Exact where both weights are pinned: {notation.and_list(exact)}.")
    if isinstance(lam, str):
        said.append(f"With λ a name, each other entry stays named (d21 = a21 − {name}·b21) and its sign depends on λ.")
        return tuple(said)
    for sign in (1, -1, 0):
        cells = [f"d{i}{j}" for (i, j), (_, _, s) in entries.items() if s == sign]
        if cells:
            said.append(f"{SIGN_WORDS[sign]}, exact or certified by interval arithmetic: {notation.and_list(cells)}.")
    unknown = [f"d{i}{j}" for (i, j), (_, _, s) in entries.items() if s is None]
    if unknown:
        said.append(f"Sign not certified (interval arithmetic needs the decimal extra, mpmath): "
                    f"{notation.and_list(unknown)}.")
    return tuple(said)
