"""The exact engine's own limit: no score, logit or output of more than MAX_VALUE_DIGITS digits
(numerator and denominator each), bounded from the inputs' digits before any score is summed.

Every way in (`figure()`, `flash()`) checks it; `words.budget` lists it with the other budgets.
"""

from __future__ import annotations

import math

from ..numbers.exact import InputError, digits
from ..numbers.surds import Surd

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from fractions import Fraction

    from .attention import Attention

__all__ = ["MAX_VALUE_DIGITS", "check_inputs", "check_values"]

MAX_VALUE_DIGITS = 200  # 40-digit entries over a common denominator give scores of ~82 digits


def check_inputs(q: Sequence[Sequence[Fraction]], k: Sequence[Sequence[Fraction]],
                 v: Sequence[Sequence[Fraction]] | None = None) -> None:
    """Refuse vectors whose scores or outputs could need more than MAX_VALUE_DIGITS digits, from their digits
    alone: before a score is summed (64 fractions over unrelated 40-digit denominators take minutes to add)."""
    q_den, q_num = _row_bounds(q)
    k_den, k_num = _row_bounds(k)
    den = q_den + k_den
    num = q_num + k_num + digits(len(q[0]))
    if max(den, num) > MAX_VALUE_DIGITS:
        raise InputError(f"scores could need {max(den, num):,} digits or more (the entries' denominators have no "
                         f"smaller common multiple), past the limit of {MAX_VALUE_DIGITS} digits per value: give "
                         "each vector's entries a common denominator, or use fewer digits", "q/k")
    if v is not None:
        v_den, v_num = _row_bounds(list(zip(*v)))  # each column's bounds
        den, num = v_den + digits(len(v)), v_num + digits(len(v))
        if max(den, num) > MAX_VALUE_DIGITS:
            raise InputError(f"outputs could need {max(den, num):,} digits or more (each column's denominators have "
                             f"no smaller common multiple), past the limit of {MAX_VALUE_DIGITS} digits per value: "
                             "give each column a common denominator, or use fewer digits", "v")


def check_values(attention: Attention) -> None:
    """Refuse a figure whose logits (scale and biases applied) have more than MAX_VALUE_DIGITS digits."""
    if attention.logits is None:
        return
    for row in attention.logits:
        for logit in row or ():  # an elided figure computes only the rows it shows
            # c·tanh(x/c) or x+b[3] (a T5 bias by name): its x
            value = logit.x if hasattr(logit, "x") else logit
            parts = (value.a, value.b) if isinstance(value, Surd) else (value,)  # a + b·√r is written with a, b
            size = max(max(digits(x.numerator), digits(x.denominator)) for x in parts)
            if size > MAX_VALUE_DIGITS:
                raise InputError(f"a logit of {size:,} digits, past the limit of {MAX_VALUE_DIGITS} digits per "
                                 "value: use a scale and biases with fewer digits",
                                 "bias" if attention.biases else "scale")


def _row_bounds(vectors: Iterable[Sequence[Fraction]]) -> tuple[int, int]:
    """(digits of the largest common denominator of a vector's entries, digits of its largest numerator over it);
    the common denominator is built up only while it stays within the limit."""
    worst_den = worst_num = 0
    for row in vectors:
        common = 1
        for x in row:
            common = math.lcm(common, x.denominator)
            if common.bit_length() > 4 * MAX_VALUE_DIGITS:  # > 1.2 digits a bit: already past the limit
                return digits(common), digits(common)
        largest = max(abs(x.numerator) * (common // x.denominator) for x in row)
        worst_den, worst_num = max(worst_den, digits(common)), max(worst_num, digits(largest))
    return worst_den, worst_num

