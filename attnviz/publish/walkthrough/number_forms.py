"""A walkthrough writes its numbers as its figure does: values that came as decimals (or were rounded to them) as
decimals (`1.71`, `-10.8027`), each kind of quantity in one form (`words.claims.decimal_kinds`), in its sentences,
its TeX formulas and its state strips alike; and it says what its exactness is exact for (inputs rounded to N
decimals) in its intro, as the figure's badge does.
"""

from __future__ import annotations

import dataclasses
import functools

from ...numbers.exact import DecimalForm
from ...words.claims import decimal_kinds, exact_for

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    from ...figures.figure import Drawable
    from ..document import Document

    Walk = TypeVar("Walk", bound="Callable[..., tuple[Document, Any]]")

__all__ = ["number_kinds", "rounded_inputs", "in_form", "exact_word", "rounding_sentence", "written_as_given"]

#: The kinds of quantity written as decimals by the walkthrough being made (innermost last): {} writes fractions.
_KINDS: list[dict[str, bool]] = [{}]
#: What the walkthrough being made rounded its inputs to (`Drawable.rounded`; innermost last).
_ROUNDED: list[int | str | None] = [None]


def number_kinds(fig: Drawable) -> dict[str, bool]:
    """For a figure whose inputs came as decimals: which kinds of quantity (vectors, scores, logits, outputs) its
    walkthrough writes as decimals, over every row (a walkthrough draws them all); {} for other inputs."""
    panels: tuple[Drawable, ...] = getattr(fig, "panels", ())
    if panels:  # several heads: a kind is written as decimals where every panel writes it so
        each = [number_kinds(panel) for panel in panels]
        return {kind: all(kinds.get(kind, False) for kinds in each) for kind in each[0]}
    attention = getattr(fig, "attention", None)
    if not fig.decimal_inputs or attention is None:
        return {}
    return decimal_kinds(attention, range(attention.shape[0]))


def rounded_inputs(fig: Drawable) -> int | str | None:
    """What `fig`'s inputs were rounded to (`Drawable.rounded`), or its first panel's (a figure of several heads)."""
    panels: tuple[Drawable, ...] = getattr(fig, "panels", ())
    return fig.rounded if fig.rounded is not None or not panels else panels[0].rounded


def in_form(kind: str) -> DecimalForm:
    """`with in_form("vectors"):` numbers written as the walkthrough being made writes that kind ("weights": pinned
    weights, computed quantities of their own, always fractions as the figure's captions write them)."""
    return DecimalForm(_KINDS[-1].get(kind, False))


def exact_word() -> str:
    """"exact", or for the walkthrough being made of rounded inputs "exact for inputs rounded to 2 decimals"."""
    return exact_for(_ROUNDED[-1]) or "exact"


def rounding_sentence(rounded: int | str | None) -> str:
    """What every value of a walkthrough of rounded inputs is exact for ("" when the inputs were not rounded)."""
    if rounded is None:
        return ""
    how = "from those decimals" if isinstance(rounded, str) else "from the inputs as rounded, not as given"
    return f"Every number here is {exact_for(rounded)}: computed exactly {how}."


def written_as_given(kind: str) -> Callable[[Walk], Walk]:
    """A walkthrough (fig, ...) -> (Document, figures) that writes its numbers in the form its figure's inputs came
    in (`kind`: the quantity its steps mostly write; a step may choose another with `in_form`), and whose intro says
    what exact is exact for when the inputs were rounded."""

    def wrap(walk: Walk) -> Walk:
        @functools.wraps(walk)
        def walked(fig: Drawable, /, *args: Any, **kwargs: Any) -> tuple[Document, Any]:
            kinds = number_kinds(fig)
            _KINDS.append(kinds)
            _ROUNDED.append(rounded_inputs(fig))
            try:
                with DecimalForm(kinds.get(kind, False)):
                    document, figures = walk(fig, *args, **kwargs)
            finally:
                _KINDS.pop()
                _ROUNDED.pop()
            sentence = rounding_sentence(rounded_inputs(fig))
            if sentence:
                document = dataclasses.replace(document, intro=(*document.intro, sentence))
            return document, figures

        return walked  # type: ignore[return-value]  # the same signature as `walk`

    return wrap
