"""Only certain digits: decimal weights for inputs that were rounded (`decimals=N` with `--weights decimal=M`).

Each input rounded to N decimals stands for any value within half a unit of its last place (±5·10^-(N+1)). Those
intervals are carried through the scores exactly (interval products and sums of Fractions), through the scale and the
bias (exact), and through the softmax with mpmath's interval arithmetic (outward rounding at every step):

    w_t >= 1 / (1 + Σ_{u≠t} e^(hi L_u - lo L_t)),    w_t <= 1 / (1 + Σ_{u≠t} e^(lo L_u - hi L_t)).

A weight is then written with the most decimals (at most M) at which both ends of its interval round to the same text:
every input the rounded ones stand for gives a weight that rounds to that text, so it agrees with the weight of the
unrounded inputs (a model's own) rounded as far. An output Σ w_t·V_t is enclosed the same way (and within the smallest
and largest value, as a weighted mean). A value not certain to one decimal is written as its interval, "0.44..0.46".
"""

from __future__ import annotations

import math
from fractions import Fraction

from .rounding import exact_interval, fixed_text, mpmath_modules, round_fraction

TYPE_CHECKING = False  # a type checker takes it as True
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from ..engine.attention import Attention
    from ..typing import Exact

    Bounds = tuple[Fraction, Fraction]

__all__ = ["half_unit", "certain_weights", "certain_output", "certain_text", "FAR", "BITS"]

BITS = 160  # mpmath's precision: the enclosures' own rounding is far below any certain digit
FAR = 2000  # a logit gap past this many nats is held as [0, e^-FAR]


def half_unit(decimals: int) -> Fraction:
    """Half a unit in the last place of an input rounded to `decimals`: the most it can be off."""
    return Fraction(1, 2 * 10**decimals)


def _widened(x: Fraction, h: Fraction) -> Bounds:
    return x - h, x + h


def _product(a: Bounds, b: Bounds) -> Bounds:
    ends = [x * y for x in a for y in b]
    return min(ends), max(ends)


def score_bounds(q: Sequence[Fraction], k: Sequence[Fraction], h: Fraction) -> Bounds:
    """The least and greatest Σ q_t·k_t over inputs within ±h of q and k (exact; each term's extremes)."""
    low = high = Fraction(0)
    for x, y in zip(q, k):
        a, b = _product(_widened(x, h), _widened(y, h))
        low, high = low + a, high + b
    return low, high


def _logit_bounds(iv: Any, attention: Attention, i: int, j: int, h: Fraction) -> tuple[Any, Any]:
    """(low, high) mpmath numbers around row i, key j's logit: the scale (positive) and exact biases added."""
    low, high = (exact_interval(iv, s) for s in score_bounds(attention.q[i], attention.k[j], h))
    if attention.scale is not None:
        factor = exact_interval(iv, attention.scale.factor)
        low, high = low * factor, high * factor
    for bias in attention.biases:
        term: Exact = bias.value(i, j)
        low, high = low + exact_interval(iv, term), high + exact_interval(iv, term)
    return low.a, high.b


def _exp(iv: Any, x: Any) -> Any:
    """e^x as an interval; past FAR nats below 0 held as [0, e^-FAR] (a term too small to move any digit)."""
    if _end(x, 1) < -FAR:
        return iv.mpf([0, iv.exp(iv.mpf(-FAR)).b])
    return iv.exp(x)


def weight_bounds(attention: Attention, i: int, h: Fraction) -> list[tuple[Fraction, Fraction]]:
    """Row i's kept weights, each as (low, high): every input within ±h of the figure's gives a weight in it."""
    iv = mpmath_modules()[0]
    saved, iv.prec = iv.prec, BITS
    try:
        kept = [j for j, keep in enumerate(attention.kept[i] or ()) if keep]
        logits = [_logit_bounds(iv, attention, i, j, h) for j in kept]
        out = []
        for t, (low_t, high_t) in enumerate(logits):
            others = [bounds for u, bounds in enumerate(logits) if u != t]
            # a lower bound: the others as large as they can be, this one as small
            least = 1 / (1 + sum((_exp(iv, high_u - low_t) for _, high_u in others), iv.mpf(0)))
            most = 1 / (1 + sum((_exp(iv, low_u - high_t) for low_u, _ in others), iv.mpf(0)))
            out.append((max(_end(least, 0), Fraction(0)), min(_end(most, 1), Fraction(1))))
        return out
    finally:
        iv.prec = saved


def _end(x: Any, end: int) -> Fraction:
    """An interval's lower (0) or upper (1) end, exactly."""
    return Fraction(*mpmath_modules()[1].to_rational(x._mpi_[end]))


def certain_text(low: Fraction, high: Fraction, places: int) -> tuple[str, bool]:
    """(text, approximate): the value with the most decimals (1 to `places`) to which every value in [low, high]
    rounds alike (so each digit written is the same for all of them); the value itself when the interval is one
    point that fits; else the interval, outward to 2 decimals at most ("0.39..0.41").

    >>> certain_text(Fraction(2687, 10000), Fraction(2693, 10000), 3), certain_text(Fraction(1, 2), Fraction(1, 2), 3)
    (('0.269', True), ('0.5', False))
    >>> certain_text(Fraction(995, 1000), Fraction(1005, 1000), 3)
    ('1.00', True)
    >>> certain_text(Fraction(4449, 10000), Fraction(4551, 10000), 3)
    ('0.44..0.46', True)
    """
    if low == high:
        return round_fraction(low, places)
    for p in range(places, 0, -1):
        a, b = (round(x * 10**p) for x in (low, high))
        if a == b:
            return fixed_text(a, p), True
    p = min(places, 2)
    return f"{fixed_text(math.floor(low * 10**p), p)}..{fixed_text(math.ceil(high * 10**p), p)}", True


def certain_weights(attention: Attention, i: int, decimals: int, places: int) -> list[tuple[str, bool]]:
    """Row i's kept weights as text: only the digits (up to `places`) that hold for every input within the rounding
    of inputs rounded to `decimals`."""
    return [certain_text(low, high, places) for low, high in weight_bounds(attention, i, half_unit(decimals))]


def certain_output(attention: Attention, i: int, decimals: int, places: int) -> list[tuple[str, bool]]:
    """Row i's output components, each with only its certain digits: Σ w_t·V_t over the weights' intervals and the
    values' (each ±h), and within the least and greatest value (a weighted mean lies between them)."""
    h = half_unit(decimals)
    assert attention.values is not None and attention.kept[i] is not None
    weights = weight_bounds(attention, i, h)
    kept = [v for v, keep in zip(attention.values, attention.kept[i] or ()) if keep]
    texts = []
    for c in range(len(attention.values[0])):
        values = [_widened(v[c], h) for v in kept]
        low = high = Fraction(0)
        for w, v in zip(weights, values):
            a, b = _product(w, v)
            low, high = low + a, high + b
        low, high = max(low, min(v[0] for v in values)), min(high, max(v[1] for v in values))
        texts.append(certain_text(low, high, places))
    return texts
