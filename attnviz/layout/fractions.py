"""A softmax row's named weights as stacked fractions (a slide's choice where they fit): each weight's
numerator over a bar over its denominator, `e¹` over `e⁰+e¹`, instead of `e^1/(e^0+e^1)` on one line.

The parts are plain layout items (texts and a bar), so every backend draws them as it draws the rest.

>>> split_fraction("e^1/(e^0+e^1)"), split_fraction("e^(1/2)/Z_2"), split_fraction("… 5 more …")
(('e^1', 'e^0+e^1'), ('e^(1/2)', 'Z_2'), None)
"""

from __future__ import annotations

from .items import Rect, Text
from .metrics import ASCENT, DESCENT

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable

    from .items import Item, TextStyle

__all__ = ["split_fraction", "stacked_weights", "GAP", "SIDE"]

GAP, SIDE = 3.0, 4.0  # room between the bar and each part; beyond the wider part at each end of the bar


def split_fraction(term: str) -> tuple[str, str] | None:
    """(numerator, denominator) of `a/b` split at its outermost slash, the denominator's own brackets
    dropped; None for a term that is no fraction."""
    depth = 0
    for n, ch in enumerate(term):
        depth += (ch == "(") - (ch == ")")
        if ch == "/" and depth == 0:
            top, bottom = term[:n], term[n + 1:]
            if bottom.startswith("(") and bottom.endswith(")") and _closes_last(bottom):
                bottom = bottom[1:-1]
            return (top, bottom) if top and bottom else None
    return None


def _closes_last(text: str) -> bool:
    """Whether `text`'s first bracket closes only at its end: `(a+b)`, not `(a)+(b)`."""
    depth = 0
    for n, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if depth == 0:
            return n == len(text) - 1
    return False


def stacked_weights(line: str, x: float, top: float, room: float, role: str, style: TextStyle,
                    text: Callable[..., Text], width: Callable[[str, str], float]) -> tuple[list[Item], float] | None:
    """The items of `weights a/b, c/d, ...` stacked, from `x` and `top`, and their bottom; None when some
    weight is no fraction or the line would be wider than `room`. `text` makes a text of `role` (the layout's
    sizes), `width` measures one."""
    label, _, rest = line.partition(" ")
    if label != "weights" or not rest:
        return None
    fractions = [split_fraction(term) for term in rest.split(", ")]
    if any(fraction is None for fraction in fractions):
        return None
    size = style.size
    thick = max(1.5, size / 14)
    bar_y = top + (ASCENT + DESCENT) * size + GAP
    axis = bar_y + thick / 2 + 0.3 * size  # the label's and commas' baseline: the bar at the math axis
    items: list[Item] = [text(role, x, axis, (label + " ",))]
    at = x + width(label + " ", role)
    for n, fraction in enumerate(fractions):
        assert fraction is not None  # every term is one (checked above)
        numerator, denominator = fraction
        span = max(width(numerator, role), width(denominator, role)) + 2 * SIDE
        items += [text(role, at + span / 2, top + ASCENT * size, (numerator,), anchor="middle"),
                  Rect("fraction-bar", at, bar_y, span, thick),
                  text(role, at + span / 2, bar_y + thick + GAP + ASCENT * size, (denominator,), anchor="middle")]
        at += span
        if n < len(fractions) - 1:
            items.append(text(role, at, axis, (",",)))
            at += width(", ", role)
    return None if at - x > room else (items, bar_y + thick + GAP + (ASCENT + DESCENT) * size)
