"""Opt-in decimal weights (`--weights decimal=N`), every printed digit correct.

The only path where a value is approximated. A weight e^x_t / Σ e^x_u (and an output Σ w_j·V_j) is enclosed in an
interval with mpmath's interval arithmetic (outward rounding at every step), at increasing precision until both ends of
the interval round to the same N-decimal text. The rounded text is then the correctly rounded value, whatever the
precision used to find it.

That loop ends because the value is never a rounding boundary: by Lindemann–Weierstrass, e^x for distinct algebraic x
are linearly independent over the algebraic numbers, so a named weight (exponents not all equal) is irrational, and an
output is rational only in the case `_rational_output` detects (then it is rounded exactly, like pinned weights). A
precision cap guards the loop anyway. mpmath is imported only here, and only when decimal weights are asked for.
"""

from __future__ import annotations

import importlib
import re
from fractions import Fraction

from .exact import InputError
from .surds import Surd

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from ..engine.attention import Weights
    from ..typing import Exact

    Interval = Any  # an mpmath interval (mpmath has no type hints)

__all__ = ["MAX_PLACES", "parse_weights", "round_fraction", "rounded_weights", "rounded_output"]

MAX_PLACES = 30
START_BITS, MAX_BITS = 64, 1 << 15


def parse_weights(value: object) -> int | None:
    """"named" (the default: no decimals) -> None; "decimal=N" -> N.

    >>> parse_weights("decimal=3"), parse_weights("named")
    (3, None)
    """
    if value is None or (isinstance(value, str) and value.strip() == "named"):
        return None
    match = re.fullmatch(r"\s*decimal\s*=\s*(\d{1,3})\s*", value) if isinstance(value, str) else None
    if not match:
        raise InputError(f"expected \"named\" or \"decimal=N\" (N decimal places, 1 to {MAX_PLACES}), "
                         f"got {value!r}", "weights")
    places = int(match[1])
    if not 1 <= places <= MAX_PLACES:
        raise InputError(f"decimal places must be 1 to {MAX_PLACES}, got {places}", "weights")
    return places


def round_fraction(value: Fraction, places: int) -> tuple[str, bool]:
    """An exact value as text with at most `places` decimals: exact when it fits ("0.5"),
    else the nearest N-decimal value (ties to even), marked approximate.

    >>> round_fraction(Fraction(1, 2), 3), round_fraction(Fraction(1, 3), 3), round_fraction(Fraction(-2, 3), 2)
    (('0.5', False), ('0.333', True), ('-0.67', True))
    """
    for k in range(places + 1):
        scaled = value * 10**k
        if scaled.denominator == 1:
            return _fixed(scaled.numerator, k), False
    return _fixed(round(value * 10**places), places), True


def rounded_weights(weights: Weights, places: int) -> list[tuple[str, bool]]:
    """One row's weights as [(text, approximate), ...]; `weights` is an `engine.Weights`."""
    if weights.kind == "pinned":
        return [round_fraction(v, places) for v in weights.values]
    if weights.kind == "undefined":
        return []
    exps = weights.exponents
    return [(text, True) for text in _decide(lambda iv: _weight_intervals(iv, exps), len(exps), places)]


def rounded_output(weights: Weights, values: Sequence[Sequence[Fraction]], places: int) -> tuple[list[str], bool]:
    """One row's output Σ_j w_j·V_j as ([component texts], approximate); `values` are the kept keys' V_j."""
    if weights.kind == "undefined":
        return [], False
    if weights.kind == "pinned":
        exact = [sum((w * v[c] for w, v in zip(weights.values, values)), Fraction(0)) for c in range(len(values[0]))]
        texts = [round_fraction(x, places) for x in exact]
        if any(approx for _, approx in texts):
            return [_fixed(round(x * 10**places), places) for x in exact], True
        return [text for text, _ in texts], False
    exps = weights.exponents
    columns = [[v[c] for v in values] for c in range(len(values[0]))]
    rational = [_rational_output(exps, column) for column in columns]
    irrational = [column for column, r in zip(columns, rational) if r is None]

    def outputs(iv: Any) -> list[Interval]:
        ws = _weight_intervals(iv, exps)
        return [sum((w * _interval(iv, Fraction(v)) for w, v in zip(ws, column)), iv.mpf(0)) for column in irrational]

    decided = iter(_decide(outputs, len(irrational), places))
    return [_fixed(round(r * 10**places), places) if r is not None else next(decided) for r in rational], True


def _rational_output(exponents: Sequence[Exact], column: Sequence[Fraction]) -> Fraction | None:
    """Σ e^x_j·v_j / Σ e^x_j when it is rational, else None. Grouping equal exponents, the sum is
    Σ_g e^x_g·s_g / Σ_g e^x_g·n_g; it equals a rational c only if s_g = c·n_g for every group g
    (the e^x_g are linearly independent), i.e. when every group has the same mean value c."""
    groups: dict[Exact, tuple[Fraction, int]] = {}
    for x, v in zip(exponents, column):
        total, count = groups.get(x, (Fraction(0), 0))
        groups[x] = (total + v, count + 1)
    means = {total / count for total, count in groups.values()}
    return means.pop() if len(means) == 1 else None


def _decide(compute: Callable[[Any], list[Interval]], count: int, places: int) -> list[str]:
    """Texts of the `count` intervals `compute(iv)` returns, each rounded to `places` decimals: evaluated at
    rising precision until both ends of every interval round to the same text."""
    # By name, here: mpmath (the decimal extra; no type hints, so `Any`) is slow to import; only decimal=N needs it
    try:
        iv, libmp = importlib.import_module("mpmath").iv, importlib.import_module("mpmath.libmp")
    except ImportError:
        raise InputError("decimal weights need mpmath: pip install 'attnviz[decimal]'", "weights") from None
    # An end under 10^-(places+1) rounds to 0: it is not made a fraction, whose denominator would be 2 to the
    # power of its exponent (a weight e^(-10^10) is an end of 10^10 bits' exponent: gigabytes)
    tiny = libmp.from_rational(1, 10 ** (places + 1), 53, libmp.round_down)

    def scaled(end: Any) -> int:
        return 0 if libmp.mpf_lt(libmp.mpf_abs(end), tiny) else round(Fraction(*libmp.to_rational(end)) * 10**places)

    bits = START_BITS + 4 * places
    texts: list[str | None] = [None] * count
    saved = iv.prec
    try:
        while None in texts and bits <= MAX_BITS:
            iv.prec = bits
            for n, interval in enumerate(compute(iv)):
                low, high = (scaled(end) for end in interval._mpi_)
                if texts[n] is None and low == high:
                    texts[n] = _fixed(low, places)
            bits *= 2
    finally:
        iv.prec = saved
    if None in texts:
        raise InputError(f"cannot decide the rounding to {places} decimals within {MAX_BITS} bits of precision; "
                         "use fewer decimals", "weights")
    return [text for text in texts if text is not None]


def _interval(iv: Any, x: Exact) -> Interval:
    """An exact value (Fraction or Surd) as an mpmath interval that contains it."""
    if isinstance(x, Surd):
        return _interval(iv, x.a) + _interval(iv, x.b) * iv.sqrt(x.r)
    return iv.mpf(x.numerator) / x.denominator


def _weight_intervals(iv: Any, exponents: Sequence[Exact]) -> list[Interval]:
    """Intervals holding each e^x_t / Σ_u e^x_u, as e^(x_t - x_1) / Σ_u e^(x_u - x_1): the differences are
    exact, so nothing cancels in floating point, and each exponential is computed once per row."""
    terms = [iv.exp(_interval(iv, x - exponents[0])) for x in exponents]
    total = sum(terms, iv.mpf(0))
    return [term / total for term in terms]


def _fixed(scaled: int, places: int) -> str:
    """The integer `scaled` / 10^places as text with exactly `places` decimals."""
    sign = "-" if scaled < 0 else ""
    whole, frac = divmod(abs(scaled), 10**places)
    return f"{sign}{whole}.{frac:0{places}d}" if places else f"{sign}{whole}"
