"""What a figure claims, and how it writes its numbers: exactness bound to the inputs as they were read (rounded to
N decimals, or read at a narrow float dtype's precision), a mask's rule as computed or as given, and for inputs that
came as decimals, which kinds of quantity are written as decimals (each kind in one form).
"""

from __future__ import annotations

from ..numbers.exact import terminates

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Iterable

    from ..engine.attention import Attention
    from ..engine.bound_mask import BoundMask

__all__ = ["exact_for", "rounded_subtitle", "scores_claim", "mask_claim", "footer_text", "part_kind",
           "decimal_kinds"]


def exact_for(rounded: int | str | None) -> str:
    """"exact for inputs rounded to 2 decimals" (or "exact for float32 inputs read as their shortest decimals"): what
    exact means when the inputs were rounded ("" when not)."""
    if isinstance(rounded, str):
        return f"exact for {rounded} inputs read as their shortest decimals"
    return "" if rounded is None else f"exact for inputs rounded to {rounded} decimal{'s' * (rounded != 1)}"


def rounded_subtitle(subtitle: str, rounded: int | str | None) -> str:
    """The default subtitle, its exactness bound to the rounded inputs: "Score and mask structure with named softmax,
    exact for inputs rounded to 2 decimals."."""
    if rounded is None:
        return subtitle
    return f"{subtitle.removeprefix('Exact ').capitalize().removesuffix('.')}, {exact_for(rounded)}."


def scores_claim(rounded: int | str | None) -> str:
    """The badge's words for the scores."""
    return "exact scores" if rounded is None else f"scores {exact_for(rounded)}"


def mask_claim(mask: BoundMask) -> str:
    """What the badge says of the mask: exact, or its rule as the user gave it (not read, not checked)."""
    return f"{mask.name} mask as given" if mask.given else f"exact {mask.name} mask"


def footer_text(places: int | None, rounded: int | str | None) -> str:
    """The footer: named weights, rounded ones, or (inputs rounded to decimals) only their certain digits."""
    if places is None:
        return "softmax is named: no decimal attention weights are pinned"
    if not isinstance(rounded, int):
        return f"softmax weights marked ≈ are rounded to {places} decimal{'s' * (places > 1)}, not exact"
    half_unit = "0." + "0" * rounded + "5"  # half a unit in the inputs' last place: 0.005 for 2 decimals
    return (f"weights marked ≈ show only the digits (up to {places}) that hold for every input within "
            f"±{half_unit} of those shown")


#: The kind of quantity each part of the figure writes, each kind written in one form (`decimal_kinds`); the grid
#: shows scores or logits (`show`), the softmax rows the logits (the scores when there is no scale or bias).
_PART_KINDS = {"q_line": "vectors", "k_line": "vectors", "more_vectors": "vectors", "output_rows": "outputs",
               "softmax_rows": "logits"}


def part_kind(part: str, show: str) -> str:
    """The kind of quantity a part of the figure writes ("" for none); `show`: what the grid's cells show."""
    if part == "cells":
        return "logits" if show == "logits" else "scores"
    return _PART_KINDS.get(part, "")


def decimal_kinds(attention: Attention, rows: Iterable[int]) -> dict[str, bool]:
    """For inputs that came as decimals: which kinds of quantity (vectors, scores, logits, outputs) end as decimals in
    every value the figure shows, and so are written as decimals (a kind with one value that does not end, 1/3, is
    written in fractions throughout)."""
    shown = list(rows)
    biases = [row for b in attention.biases for row in b.rows]
    vectors = [*attention.q, *attention.k, *(attention.values or ()), *biases]
    scores = [attention.scores[i] or () for i in shown]
    logits = [attention.logits[i] or () for i in shown] if attention.logits is not None else scores
    outputs = [attention.output(i) or () for i in shown] if attention.values is not None else []
    return {kind: all(terminates(x) for row in values for x in row)
            for kind, values in (("vectors", vectors), ("scores", scores), ("logits", logits), ("outputs", outputs))}
