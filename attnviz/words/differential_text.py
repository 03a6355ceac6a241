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

__all__ = ["head_paragraphs", "difference_paragraphs", "SIGN_WORDS"]

#: A sign's words: how its cell shows it (its comparison, its edge's colour), in the slide's text.
SIGN_WORDS = {1: ">0 (blue)", -1: "<0 (vermillion)", 0: "=0"}


def head_paragraphs(h: int, attention: Attention) -> tuple[str, ...]:
    """Head `h`'s (1 or 2) slide, beside its score grid: its weights a_ij (b_ij) row by row, in the normalizer form
    the figure's softmax captions take on a slide (`e^1/Z_3`, Z_3 written out once)."""
    letter = "ab"[h - 1]
    said = [f"{letter}_ij: each row's softmax of head {h}'s scores."]
    for i in range(attention.shape[0]):
        kept = [j for j, keep in enumerate(attention.kept[i] or (), 1) if keep]
        if kept:
            names = ", ".join(f"{letter}{i + 1}{j}" for j in kept)
            weights = attention.weights(i)
            terms = ", ".join(notation.weight_terms(weights, "normalizer", i + 1))
            where = f", where {notation.normalizer_line(weights, i + 1)}" if weights.kind == "named" else ""
            said.append(f"Row {i + 1}: {names} = {terms}{where}.")
    return tuple(said)


def difference_paragraphs(lam: Fraction | str,
                          entries: dict[tuple[int, int], tuple[str, Fraction | None, int | None]]) -> tuple[str, ...]:
    """The difference's slide: what d_ij is, its exact entries, and each entry's sign, exact or certified (`entries`:
    each kept cell's (text, exact value or None, sign or None), as `figures.differential.difference_entry` gives)."""
    name = lam if isinstance(lam, str) else format_number(lam)
    said = [f"d_ij = a_ij − {name}·b_ij, the entries of A_1 − {name}·A_2" + ("." if name == "λ" else
                                                                                f" (λ = {name}).")]
    exact = [f"d{i}{j} = {text}" for (i, j), (text, value, _) in entries.items() if value is not None]
    if exact:
        said.append(f"Exact: {notation.and_list(exact)}.")
    if isinstance(lam, str):
        said.append(f"Each entry stays named (d21 = a21 − {name}·b21); its sign depends on λ.")
        return tuple(said)
    signs = [f"{SIGN_WORDS[sign]} {notation.and_list(cells)}" for sign in (1, -1, 0)
             if (cells := [f"d{i}{j}" for (i, j), (_, _, s) in entries.items() if s == sign])]
    unknown = [f"d{i}{j}" for (i, j), (_, _, s) in entries.items() if s is None]
    signs += [f"not certified (interval arithmetic needs mpmath) {notation.and_list(unknown)}"] if unknown else []
    said.append(f"Signs, exact or certified: {'; '.join(signs)}.")
    return tuple(said)
