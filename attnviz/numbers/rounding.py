"""Opt-in decimal weights (`--weights decimal=N`), every printed digit correct.

The only path where a value is approximated. A weight e^x_t / Σ e^x_u (and an output Σ w_j·V_j) is enclosed in an
interval with mpmath's interval arithmetic (outward rounding at every step), at increasing precision until both ends of
the interval round to the same N-decimal text. The rounded text is then the correctly rounded value, whatever the
precision used to find it.

That loop ends because the value is never a rounding boundary: by Lindemann–Weierstrass, e^x for distinct algebraic x
are linearly independent over the algebraic numbers, so a named weight (exponents not all equal) is irrational, and an
output is rational only in the case `_rational_output` detects (then it is rounded exactly, like pinned weights). A
precision cap guards the loop anyway. mpmath is imported only here, and only when decimal weights are asked for.

Time and memory are bounded for any logits within the digit limits, because the gaps to a row's largest logit
(exact: Fractions or surds a + b·√r, compared exactly) are looked at first: a weight whose gap is past
(N+1)·ln 10 + ln k (with rational bounds on the logarithms) is under 10^-(N+1)/k and rounds to 0, and the largest
then rounds to 1 if it is alone; a term whose gap is past FAR is held as [0, e^-FAR], never computed; and an output
that is a rounding tie but for such terms is rounded by the sign of their pull, decided on its own.
"""

from __future__ import annotations

import importlib
import re
from fractions import Fraction

from math import isqrt

from .exact import InputError
from .surds import Surd, sign

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from ..engine.attention import Weights
    from ..engine.softmax_forms import Logit
    from ..typing import Exact

    Interval = Any  # an mpmath interval (mpmath has no type hints)

__all__ = ["MAX_PLACES", "parse_weights", "round_fraction", "rounded_weights", "rounded_output", "rounded_sink_share",
           "certified_sign", "rounded_difference", "sign_of_exp_sum", "fixed_text", "exact_interval", "mpmath_modules"]

MAX_PLACES = 30
START_BITS, MAX_BITS = 64, 1 << 15
#: Rationals just above ln 2 = 0.6931471... and ln 10 = 2.3025850...: every decision from a gap is exact.
LN2_ABOVE, LN10_ABOVE = Fraction(693148, 10**6), Fraction(2302586, 10**6)
#: A term e^-gap whose gap is past FAR nats is under 2^-(1.44·MAX_BITS), finer than any precision used: it is
#: held as the interval [0, e^-FAR], never computed (e^-(10^200) would need 10^200-bit exponents' arithmetic).
FAR = MAX_BITS


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
            return fixed_text(scaled.numerator, k), False
    return fixed_text(round(value * 10**places), places), True


def rounded_weights(weights: Weights, places: int) -> list[tuple[str, bool]]:
    """One row's weights as [(text, approximate), ...]; `weights` is an `engine.Weights`.

    Decided from the exact gaps to the row's largest logit first: a weight whose gap is past (N+1)·ln 10 + ln k
    is under 10^-(N+1)/k, so it rounds to 0, and the largest, alone, rounds to 1 when every other one does.
    Only the rest are enclosed in intervals, so no gap, however large, reaches mpmath's exponential."""
    if weights.kind == "pinned":
        return [round_fraction(v, places) for v in weights.values]
    if weights.kind == "undefined":
        return []
    if _other_form(weights):
        return [(text, True) for text in _decide(lambda iv: _form_intervals(iv, weights), len(weights.exponents),
                                                 places)]
    gaps = _gaps(weights.exponents)  # type: ignore[arg-type]  # exact: the plain softmax's
    negligible = (places + 1) * LN10_ABOVE + _ln_above(len(gaps))  # e^-gap < 10^-(places+1)/k past it
    near = [t for t, gap in enumerate(gaps) if not _beyond(gap, negligible)]
    kept = set(near)
    if len(near) == 1:  # the largest alone: 1 - w < (k-1)·10^-(places+1)/k, so it rounds to 1
        texts = iter([fixed_text(10**places, places)])
    else:
        texts = iter(_decide(lambda iv: _weight_intervals(iv, gaps, near), len(near), places))
    return [(next(texts) if t in kept else fixed_text(0, places), True) for t in range(len(gaps))]


def rounded_output(weights: Weights, values: Sequence[Sequence[Fraction]], places: int) -> tuple[list[str], bool]:
    """One row's output Σ_j w_j·V_j as ([component texts], approximate); `values` are the kept keys' V_j."""
    if weights.kind == "undefined":
        return [], False
    if weights.kind == "pinned":
        exact = [sum((w * v[c] for w, v in zip(weights.values, values)), Fraction(0)) for c in range(len(values[0]))]
        texts = [round_fraction(x, places) for x in exact]
        if any(approx for _, approx in texts):
            return [fixed_text(round(x * 10**places), places) for x in exact], True
        return [text for text, _ in texts], False
    if _other_form(weights):
        def form_outputs(iv: Any) -> list[Interval]:
            terms = _form_intervals(iv, weights)
            return [sum((t * exact_interval(iv, v[c]) for t, v in zip(terms, values)), iv.mpf(0))
                    for c in range(len(values[0]))]

        return _decide(form_outputs, len(values[0]), places), True
    gaps = _gaps(weights.exponents)  # type: ignore[arg-type]  # exact: the plain softmax's
    columns = [[v[c] for v in values] for c in range(len(values[0]))]
    known = [_known_output(gaps, column, places) for column in columns]
    pending = [column for column, text in zip(columns, known) if text is None]

    def outputs(iv: Any) -> list[Interval]:
        terms = _terms(iv, gaps)
        total = sum(terms, iv.mpf(0))
        return [sum((t * exact_interval(iv, v) for t, v in zip(terms, column)), iv.mpf(0)) / total
                for column in pending]

    decided = iter(_decide(outputs, len(pending), places))
    return [text if text is not None else next(decided) for text in known], True


def _other_form(weights: Weights) -> bool:
    """Whether the row's weights are not the plain softmax of exact logits: a sink, sigmoids or capped logits."""
    return weights.sink is not None or weights.form == "sigmoid" or any(
        hasattr(x, "cap") for x in weights.exponents)


def _logit_interval(iv: Any, x: Logit) -> Interval:
    """An interval holding an exact logit, or a capped one c·tanh(x/c)."""
    if hasattr(x, "cap"):  # tanh(y) = 1 - 2/(e^(2y) + 1): mpmath's intervals have exp, not tanh
        cap = exact_interval(iv, x.cap)  # a Capped
        return cap * (1 - 2 / (iv.exp(2 * exact_interval(iv, x.x) / cap) + 1))  # type: ignore[union-attr]
    return exact_interval(iv, x)  # type: ignore[arg-type]  # exact: decimal weights refuse a named logit


def certified_sign(wa: Weights, ta: int, wb: Weights, tb: int, lam: Fraction) -> int:
    """The sign of a − λ·b, a the weight `ta` of row `wa` and b the weight `tb` of row `wb` (plain softmaxes),
    decided on intervals at rising precision (a difference exactly 0 is a rounding tie at 0: said as 0)."""
    def difference(iv: Any) -> list[Interval]:
        return [_one_weight(iv, wa, ta) - exact_interval(iv, lam) * _one_weight(iv, wb, tb)]

    try:
        return int(_refine(difference, _sign_of_interval)[0])
    except _Undecided:
        return 0  # equal to within 2^-MAX_BITS: by Lindemann–Weierstrass only when exactly equal


def _sign_of_interval(ends: tuple[Any, Any]) -> int | None:
    """1 or -1 when both ends of an interval have that sign; None while it still holds 0."""
    mpf_sign = mpmath_modules()[1].mpf_sign
    low, high = mpf_sign(ends[0]), mpf_sign(ends[1])
    return 1 if low > 0 else -1 if high < 0 else None


def rounded_difference(wa: Weights, ta: int, wb: Weights, tb: int, lam: Fraction, places: int) -> str:
    """a − λ·b rounded to `places` decimals (marked ≈ unless exact), a and b weights of plain softmax rows."""
    if wa.kind == "pinned" and wb.kind == "pinned":
        text, approximate = round_fraction(wa.values[ta] - lam * wb.values[tb], places)
        return ("≈" if approximate else "") + text
    return "≈" + _decide(lambda iv: [_one_weight(iv, wa, ta) - exact_interval(iv, lam) * _one_weight(iv, wb, tb)], 1,
                         places)[0]


def _one_weight(iv: Any, weights: Weights, t: int) -> Interval:
    if weights.kind == "pinned":
        return exact_interval(iv, weights.values[t])
    gaps = _gaps(weights.exponents)  # type: ignore[arg-type]  # exact: the plain softmax's
    return _weight_intervals(iv, gaps, [t])[0]


def rounded_sink_share(weights: Weights, places: int) -> str:
    """The sink's share of a row, e^s/(e^s+Σe^x), rounded to `places` (marked ≈ by the caller when not exact)."""
    if weights.kind == "pinned":
        text, approximate = round_fraction(1 - sum(weights.values, Fraction(0)), places)
        return ("≈" if approximate else "") + text
    return "≈" + _decide(lambda iv: [1 - sum(_form_intervals(iv, weights), iv.mpf(0))], 1, places)[0]


def _form_intervals(iv: Any, weights: Weights) -> list[Interval]:
    """Intervals holding each weight of a row with a sink (e^x_t/(e^s+Σe^x_u)), of sigmoids (1/(1+n·e^(-x_t))) or
    of capped logits; the exponents are taken relative to the largest exact one, so no term overflows."""
    logits = [_logit_interval(iv, x) for x in weights.exponents]
    if weights.form == "sigmoid":
        count = iv.mpf(weights.sigmoid_count or 1)
        return [1 / (1 + count * iv.exp(-x)) for x in logits]
    sink = None if weights.sink is None else exact_interval(iv, weights.sink)  # type: ignore[arg-type]  # a number
    top = max([x.b for x in logits] + ([sink.b] if sink is not None else []))
    terms = [iv.exp(x - top) for x in logits]
    total = sum(terms, iv.mpf(0)) + (iv.exp(sink - top) if sink is not None else 0)
    return [t / total for t in terms]


def _known_output(gaps: Sequence[Exact], column: Sequence[Fraction], places: int) -> str | None:
    """An output's text when it is decided without intervals: a rational output, rounded exactly; or one that
    is a rounding tie c up to terms whose gaps are past FAR, rounded the way their sum pulls it."""
    rational = _rational_output(gaps, column)
    if rational is not None:
        return fixed_text(round(rational * 10**places), places)
    far = [_beyond(gap, FAR) for gap in gaps]
    if not any(far):
        return None
    near = _rational_output([g for g, f in zip(gaps, far) if not f], [v for v, f in zip(column, far) if not f])
    if near is None or (twice := near * 2 * 10**places).denominator != 1 or twice.numerator % 2 == 0:
        return None  # no tie: the intervals decide it, the far terms' part being far below any boundary
    # O = c + Σ_far e^-g·(V - c) / Σ e^-g: past the tie c = (m + 1/2)/10^N by the sign of that sum
    tie = twice / (2 * 10**places)
    pull = _sign_of_sum([g for g, f in zip(gaps, far) if f], [v - tie for v, f in zip(column, far) if f])
    return fixed_text((twice.numerator - 1) // 2 + (pull > 0), places)


def sign_of_exp_sum(exponents: Sequence[Exact], coefficients: Sequence[Fraction]) -> int:
    """The sign of Σ c·e^x for exact exponents x and rational coefficients c, not all 0 once equal exponents are
    summed (NSA's selection compares its importances with it), certified by interval arithmetic."""
    return _sign_of_sum([-x for x in exponents], coefficients)


def _sign_of_sum(gaps: Sequence[Exact], coefficients: Sequence[Fraction]) -> int:
    """The sign of Σ e^-g·s, never 0 here: equal gaps are summed first (the e^-g of distinct gaps are linearly
    independent), then Σ e^-(g - g_min)·s is enclosed at rising precision until the interval excludes 0."""
    groups: dict[Exact, Fraction] = {}
    for gap, s in zip(gaps, coefficients):
        groups[gap] = groups.get(gap, Fraction(0)) + s
    kept = [(gap, s) for gap, s in groups.items() if s]
    relative = _gaps([-gap for gap, _ in kept])  # g - g_min, all >= 0

    def total(iv: Any) -> list[Interval]:
        return [sum((t * exact_interval(iv, s) for t, (_, s) in zip(_terms(iv, relative), kept)), iv.mpf(0))]

    try:
        return int(_refine(total, _sign_of_interval)[0])
    except _Undecided:
        raise InputError(f"cannot decide an output's rounding within {MAX_BITS} bits of precision; "
                         "use fewer decimals", "weights") from None


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


def _gaps(exponents: Sequence[Exact]) -> list[Exact]:
    """Each exponent's exact distance below the largest (compared exactly, surds included): all >= 0."""
    top = exponents[0]
    for x in exponents[1:]:
        top = x if sign(x - top) > 0 else top
    return [top - x for x in exponents]


def _beyond(gap: Exact, bound: Fraction | int) -> bool:
    """gap > bound, exactly."""
    return sign(gap - bound) > 0


def _ln_above(n: int) -> Fraction:
    """A rational upper bound on ln n (n >= 1): n < 2^bits, so ln n < bits·ln 2."""
    return n.bit_length() * LN2_ABOVE


def mpmath_modules() -> tuple[Any, Any]:
    """(mpmath.iv, mpmath.libmp), or an InputError naming the decimal extra when mpmath is not installed."""
    # By name, here: mpmath (the decimal extra; no type hints, so `Any`) is slow to import; only decimal=N needs it
    try:
        return importlib.import_module("mpmath").iv, importlib.import_module("mpmath.libmp")
    except ImportError:
        raise InputError("decimal weights need mpmath: pip install 'attnviz[decimal]'", "weights") from None


def _decide(compute: Callable[[Any], list[Interval]], count: int, places: int) -> list[str]:
    """Texts of the `count` intervals `compute(iv)` returns, each rounded to `places` decimals: evaluated at
    rising precision until both ends of every interval round to the same text."""
    if not count:
        return []
    libmp = mpmath_modules()[1]
    # An end under 10^-(places+1) rounds to 0: it is not made a fraction, whose denominator would be 2 to the
    # power of its exponent (a weight e^(-10^10) is an end of 10^10 bits' exponent: gigabytes)
    tiny = libmp.from_rational(1, 10 ** (places + 1), 53, libmp.round_down)

    def scaled(end: Any) -> int:
        return 0 if libmp.mpf_lt(libmp.mpf_abs(end), tiny) else round(Fraction(*libmp.to_rational(end)) * 10**places)

    def settle(ends: tuple[Any, Any]) -> str | None:
        low, high = (scaled(end) for end in ends)
        return fixed_text(low, places) if low == high else None

    try:
        return _refine(compute, settle, START_BITS + 4 * places)
    except _Undecided:
        raise InputError(f"cannot decide the rounding to {places} decimals within {MAX_BITS} bits of precision; "
                         "use fewer decimals", "weights") from None


class _Undecided(Exception):
    """Raised by `_refine` when MAX_BITS is not enough."""


def _refine(compute: Callable[[Any], list[Interval]], settle: Callable[[Any], Any], bits: int = START_BITS,
            ) -> list[Any]:
    """settle(ends) of each interval `compute(iv)` returns, at rising precision until none is None."""
    iv = mpmath_modules()[0]
    results: list[Any] = []
    saved = iv.prec
    try:
        while bits <= MAX_BITS:
            iv.prec = bits
            found = [settle(interval._mpi_) for interval in compute(iv)]
            results = [old if old is not None else new for old, new in zip(results, found)] if results else found
            if None not in results:
                return results
            bits *= 2
    finally:
        iv.prec = saved
    raise _Undecided


def exact_interval(iv: Any, x: Exact) -> Interval:
    """An exact value (Fraction or Surd) as an mpmath interval that contains it: a surd from exact rational
    bounds on √r, close enough that a + b·√r is known to ~2^-prec however large a and b are."""
    if isinstance(x, Surd):
        low, high = _surd_bounds(x, iv.prec)
        return iv.mpf([exact_interval(iv, low).a, exact_interval(iv, high).b])
    return iv.mpf(x.numerator) / x.denominator


def _surd_bounds(x: Surd, bits: int) -> tuple[Fraction, Fraction]:
    """Rationals low <= a + b·√r <= high, at most 2^-bits apart."""
    shift = bits + max(0, abs(x.b.numerator).bit_length() - x.b.denominator.bit_length() + 1)
    root = isqrt(x.r << (2 * shift))  # root/2^shift <= √r < (root + 1)/2^shift
    ends = sorted(x.a + x.b * Fraction(n, 1 << shift) for n in (root, root + 1))
    return ends[0], ends[1]


def _terms(iv: Any, gaps: Sequence[Exact]) -> list[Interval]:
    """Intervals holding each e^-gap; a gap past FAR is held as [0, e^-FAR], below any precision used."""
    floor = iv.mpf([0, iv.exp(iv.mpf(-FAR)).b])
    return [floor if _beyond(gap, FAR) else iv.exp(-exact_interval(iv, gap)) for gap in gaps]


def _weight_intervals(iv: Any, gaps: Sequence[Exact], rows: Sequence[int]) -> list[Interval]:
    """Intervals holding e^-g_t / Σ_u e^-g_u for t in `rows`: the largest term is e^0 = 1 and every other is at
    most 1, so nothing overflows, the sum is at least 1, and each exponential is computed once per row."""
    terms = _terms(iv, gaps)
    total = sum(terms, iv.mpf(0))
    return [terms[t] / total for t in rows]


def fixed_text(scaled: int, places: int) -> str:
    """The integer `scaled` / 10^places as text with exactly `places` decimals."""
    minus = "-" if scaled < 0 else ""
    whole, frac = divmod(abs(scaled), 10**places)
    return f"{minus}{whole}.{frac:0{places}d}" if places else f"{minus}{whole}"
