"""What the softmax exponentiates: the score scaled (S/√d, or R·S) plus biases (ALiBi, a matrix).

Read from text ("sqrt", "1/8", "alibi=1/2", "matrix=0,-1;0,0") or from the API (a number, a
callable bias(q_idx, kv_idx)), and bound to the grid's shape. Everything stays exact: a scale of
1/√d with d not a perfect square is a `surds.Surd`, never a float.
"""

from __future__ import annotations

import re
from fractions import Fraction

from .attention import Bias, Scale, check_matrix_shape
from .mask_functions import arity
from .mask_grammar import ALIGNMENTS
from ..numbers.arrays import FloatText, plain_scalar
from ..numbers.exact import InputError, format_number, parse_number, to_exact
from ..numbers.surds import Surd, format_exact, inverse_sqrt, sign, surd

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ..typing import BiasSpec, Exact, ScaleSpec

__all__ = ["resolve_scale", "resolve_biases", "parse_slope", "alibi_exponents", "SLOPES"]

_POWER = re.compile(r"\s*(\d{1,3})\s*\^\s*(\(?)\s*([+-]?\d{1,3})\s*(?:/\s*(\d{1,3})\s*)?(\)?)\s*")
_HEAD = re.compile(r"\s*head\s*:\s*(\d{1,4})\s*/\s*(\d{1,4})\s*")
MAX_HEADS = 1024


def resolve_scale(scale: ScaleSpec | None, d: int) -> Scale | None:
    """None, "sqrt" (S/√d) or an exact positive number R (R·S), as a `Scale` (None when it is 1)."""
    if scale is None:
        return None
    if isinstance(scale, str) and scale.strip().lower() == "sqrt":
        return Scale(f"S_ij/√{d}", inverse_sqrt(d))
    try:
        factor = to_exact(scale)
    except InputError as err:
        raise InputError(f"expected \"sqrt\" or an exact number like 1/8; {err.what}", "scale") from None
    if factor <= 0:
        raise InputError(f"a scale factor must be positive, got {format_number(factor)}", "scale")
    return None if factor == 1 else Scale(f"{format_number(factor)}·S_ij", factor)


#: What a slope may be, for the errors that refuse one.
SLOPES = ("a slope is an exact number (1/2, 0.25), a power whose value is a number or a multiple of a "
          "square root (2^-3, 2^(-1/2), 4^(-1/4) = √2/2; base and exponent of up to 3 digits), or head:H/N "
          "(every head's slope is exact for up to 16 heads)")


def parse_slope(text: str) -> Exact:
    """An ALiBi slope: an exact number (`1/2`, `0.25`), a power like `2^-3` or `2^(-1/2)` whose value is a number or a
    multiple of a square root (`4^(-1/4)` is √2/2, `8^(-1/3)` is 1/2), or `head:H/N`, the paper's slope for head H of N.

    >>> parse_slope("2^-3"), parse_slope("1/16"), parse_slope("2^(-1/2)"), parse_slope("4^(-1/4)")
    (Fraction(1, 8), Fraction(1, 16), Surd(0, 1/2, 2), Surd(0, 1/2, 2))
    >>> parse_slope("head:3/12")
    Fraction(1, 8)
    """
    if match := _HEAD.fullmatch(text):
        head, heads = int(match[1]), int(match[2])
        if not 1 <= heads <= MAX_HEADS:
            raise InputError(f"needs a head count from 1 to {MAX_HEADS}, got {heads}")
        if not 1 <= head <= heads:
            raise InputError(f"head {head} of {heads}: heads are numbered 1 to {heads}")
        exponent = alibi_exponents(heads)[head - 1]
        return _power(2, exponent, f"head {head} of {heads} has slope {_power_text(2, exponent)}, which")
    if match := _POWER.fullmatch(text):
        if bool(match[2]) != bool(match[5]):
            raise InputError(f"{text.strip()!r} has an unclosed parenthesis")
        base, exponent = int(match[1]), Fraction(int(match[3]), int(match[4] or 1))
        if base == 0 and exponent < 0:
            raise InputError(f"{text.strip()!r} divides by zero")
        return _power(base, exponent, f"{_power_text(base, exponent)}")
    try:
        return parse_number(text)
    except InputError as err:  # say what a slope may be, not only what a number may be
        if "is not a number" not in err.what:  # a number, but a bad one (too many digits, 1/0): as it says
            raise
    raise InputError(f"{text.strip()!r} is not a slope: {SLOPES}")


def alibi_exponents(heads: int) -> list[Fraction]:
    """The ALiBi paper's slopes for `heads` heads, as exponents e with slope 2^e: 2^(-8h/H) for a
    power of two H; otherwise those of the power of two below, then every other one of the power
    of two above (Press et al., `get_slopes`).

    >>> [str(e) for e in alibi_exponents(4)], [str(e) for e in alibi_exponents(6)]
    (['-2', '-4', '-6', '-8'], ['-2', '-4', '-6', '-8', '-1', '-3'])
    """
    if heads & (heads - 1) == 0:
        return [Fraction(-8 * h, heads) for h in range(1, heads + 1)]
    below = 1 << (heads.bit_length() - 1)
    return alibi_exponents(below) + alibi_exponents(2 * below)[0::2][:heads - below]


def _power_text(base: int, exponent: Fraction) -> str:
    return f"{base}^{exponent}" if exponent.denominator == 1 and exponent >= 0 else f"{base}^({exponent})"


def _power(base: int, exponent: Fraction, what: str) -> Exact:
    """base^exponent exactly: a Fraction, or b·√r when the exponent comes to a half-integer once the
    base is written as a power itself (4^(-1/4) = 2^(-1/2))."""
    if exponent == 0 or base in (0, 1):
        return Fraction(base) ** int(exponent != 0)
    root, k = _perfect_power(base)
    reduced = exponent * k
    if reduced.denominator == 1:
        return Fraction(root) ** reduced.numerator
    if reduced.denominator == 2:
        whole = (reduced.numerator - 1) // 2  # root^(m/2) = root^((m-1)/2)·√root
        return surd(0, Fraction(root) ** whole, root)
    name = {3: "cube", 4: "fourth"}.get(reduced.denominator, f"{reduced.denominator}th")
    raise InputError(f"{what} is a {name} root; logits stay exact with square roots only (a + b·√r): {SLOPES}")


def _perfect_power(base: int) -> tuple[int, int]:
    """(root, k) with root^k = base and k as large as possible: 64 -> (2, 6), 12 -> (12, 1)."""
    for k in range(base.bit_length(), 1, -1):
        guess = round(base ** (1 / k))
        for root in (guess - 1, guess, guess + 1):  # a float root may be off by one
            if root > 1 and root ** k == base:
                return root, k
    return base, 1


def resolve_biases(bias: BiasSpec | None, n_q: int, n_k: int, align: str = "top-left", *,
                   scale: Scale | None = None, scores: Callable[[int, int], Exact] | None = None,
                   causal: bool = False) -> Any:  # a tuple[Bias, ...]: see the note below
    """Biases (a string, a callable, or a list of them) as a tuple of `Bias` for an n_q×n_k grid.

    A FlexAttention `score_mod(score, b, h, q_idx, kv_idx)` among them is given the logit so far:
    `scores(i, j)` (S_ij, exact) times the `scale`, plus the biases before it. `causal`: the mask keeps no key after
    its query (T5's buckets are then a decoder's, one-sided)."""
    # Declared Any, not tuple[Bias, ...], for one caller: figures.api assigns it to a variable first
    # set to () (so typed tuple[()]); annotate that variable there, then declare the tuple here.
    biases: tuple[Bias, ...] = _resolve_biases(bias, n_q, n_k, align, scale, scores, causal)
    return biases


def _resolve_biases(bias: BiasSpec | None, n_q: int, n_k: int, align: str, scale: Scale | None,
                    scores: Callable[[int, int], Exact] | None, causal: bool = False) -> tuple[Bias, ...]:
    if bias is None:
        return ()
    if align not in ALIGNMENTS:
        raise InputError(f"expected {' or '.join(ALIGNMENTS)}, got {align!r}", "align")
    offset = n_k - n_q if align == "bottom-right" else 0
    items: list[object] = list(bias) if isinstance(bias, (list, tuple)) else [bias]
    factor: Exact = Fraction(1) if scale is None else scale.factor
    radicals = {scale.factor.r: "the scale"} if scale is not None and isinstance(scale.factor, Surd) else {}
    out: list[Bias] = []
    for item in items:
        if callable(item) and arity(item) == 5:
            if any(b.term is not None for b in out):
                raise InputError("a score_mod is given the logit so far as a number, but a T5 bias without values is "
                                 "a name (b[k]): give its values (t5=N,D,values=...) or put the score_mod first",
                                 "bias")
            assert scores is not None  # a score_mod is given the scores (figure() passes them)
            out.append(_score_mod(item, _logit_so_far(scores, factor, tuple(out))))
            continue
        out.append(_one(item, n_q, n_k, offset, causal))
        slope = out[-1].slope
        if isinstance(slope, Surd):
            here = f"bias {item!r}"
            if radicals and slope.r not in radicals:
                (r, other), = radicals.items()
                raise InputError(f"its slope {format_exact(slope)} and {other} would mix √{slope.r} with √{r}; "
                                 "exact logits here hold one square root at a time", here)
            radicals.setdefault(slope.r, here)
    return tuple(out)


def _logit_so_far(scores: Callable[[int, int], Exact], factor: Exact,
                  before: tuple[Bias, ...]) -> Callable[[int, int], Exact]:
    """The logit a score_mod is given at (i, j): the scaled score plus the biases before it."""
    def logit(i: int, j: int) -> Exact:
        return scores(i, j) * factor + sum((b.value(i, j) for b in before), Fraction(0))

    return logit


class _Index(int):
    """A position as a score_mod sees it: an int whose arithmetic stays exact, so `(kv_idx - q_idx) / 2`
    is the Fraction -1/2, not a float; it still indexes lists and tuples."""

    def _wrap(self, value: int) -> int:
        return _Index(value) if type(value) is int else value

    def __add__(self, other: int) -> int:
        return self._wrap(int(self) + other) if isinstance(other, int) else NotImplemented

    def __sub__(self, other: int) -> int:
        return self._wrap(int(self) - other) if isinstance(other, int) else NotImplemented

    def __mul__(self, other: int) -> int:
        return self._wrap(int(self) * other) if isinstance(other, int) else NotImplemented

    def __rsub__(self, other: int) -> int:
        return self._wrap(other - int(self)) if isinstance(other, int) else NotImplemented

    __radd__, __rmul__ = __add__, __mul__

    def __neg__(self) -> int:
        return _Index(-int(self))

    def __abs__(self) -> int:
        return _Index(abs(int(self)))

    # Division gives a Fraction where int's gives a float: typed Any, as int's signature says float.
    def __truediv__(self, other: int) -> Any:
        return Fraction(int(self), other) if isinstance(other, int) and other else NotImplemented

    def __rtruediv__(self, other: int) -> Any:
        return Fraction(other, int(self)) if isinstance(other, int) and self else NotImplemented


def _score_mod(function: Callable[..., object], before: Callable[[int, int], Exact]) -> Bias:
    """A FlexAttention score_mod as a bias: its value is the change it makes to the logit it is given,
    called with exact numbers so the figure stays exact."""
    label = getattr(function, "__name__", "score_mod")
    label = label if isinstance(label, str) and label.isidentifier() else "score_mod"

    def value(i: int, j: int) -> Exact:
        x = before(i, j)
        call = f"{label}(score, 0, 0, {i}, {j})"
        try:
            result = function(x, _Index(0), _Index(0), _Index(i), _Index(j))
        except Exception as err:  # noqa: BLE001 - the user's code: report it as their input's problem
            raise InputError(f"{call} raised {type(err).__name__}: {err}; attnviz calls a score_mod with exact numbers "
                             "(not tensors) to keep the figure exact, so it may use +, -, *, /, abs and comparisons "
                             "but not torch functions: rewrite that part, or give the bias as matrix=ROW;ROW;...",
                             "bias") from None
        result = int(result) if type(result) is _Index else result
        result = plain_scalar(result)  # a numpy or torch scalar: its Python number
        result = float(result) if isinstance(result, FloatText) else result
        if isinstance(result, bool) or not isinstance(result, (int, Fraction, Surd)):
            shown = repr(result) if len(repr(result)) <= 40 else type(result).__name__
            if isinstance(result, float):
                raise InputError(f"{call} returned the float {shown}; floats are not exact: compute with ints and "
                                 "fractions.Fraction (1/2 as Fraction(1, 2)), or give the bias as matrix=ROW;ROW;...",
                                 "bias")
            raise InputError(f"{call} returned {shown}; a score_mod returns the new logit, a number", "bias")
        return result - x

    return Bias(f"→{label}", value, named=lambda i, j: f"→{label}", filled=lambda i, j: f"→{label}", wraps=label)


def _one(item: object, n_q: int, n_k: int, offset: int, causal: bool = False) -> Bias:
    if callable(item):
        return _custom(item)
    if not isinstance(item, str):
        raise InputError(f"expected a bias like \"alibi=1/2\" or \"matrix=0,-1;0,0\", or a function "
                         f"bias(q_idx, kv_idx), got {type(item).__name__}", "bias")
    where = f"bias {item!r}"
    kind, has_value, value = (part.strip() for part in item.partition("="))
    kind = kind.lower()
    if kind not in _FORMS:
        raise InputError(f"unknown bias {kind!r}; biases are alibi=M (a slope like 1/2, 2^-3, 2^(-1/2) or "
                         "head:H/N), matrix=ROW;ROW;... (rows of exact numbers) and t5=NUM_BUCKETS,MAX_DISTANCE"
                         "[,values=B0,B1,...] (T5's relative-position buckets)", where)
    if not has_value or not value:
        raise InputError(f"'{kind}' needs a value: {_FORMS[kind]}", where)
    try:
        if kind == "t5":
            from .t5_buckets import t5_bias  # start-up: only T5's buckets need them

            return t5_bias(value, offset, causal)
        return _alibi(parse_slope(value), offset) if kind == "alibi" else _matrix(value, n_q, n_k)
    except InputError as err:
        raise InputError(err.what, f"{where}" + (f": {err.where}" if err.where else "")) from None


#: Each bias's form, as errors write it.
_FORMS = {"alibi": "alibi=M", "matrix": "matrix=ROW;ROW;...", "t5": "t5=NUM_BUCKETS,MAX_DISTANCE[,values=B0,B1,...]"}


def _alibi(slope: Exact, offset: int) -> Bias:
    """ALiBi: slope·(j - i), the distance from query i (at key position i+offset) to key j."""
    shift = "" if offset == 0 else f"{'-' if offset > 0 else '+'}{abs(offset)}"
    # A slope of 0 is still written ("+0·(j-i)"): the figure says what was asked, and 0 needs its sign.
    if isinstance(slope, Surd):
        coefficient = f"{'+' if sign(slope) > 0 else ''}{format_exact(slope)}·"
        if slope.a != 0:
            coefficient = f"+({format_exact(slope)})·"
    else:
        signs = {Fraction(1): "+", Fraction(-1): "-"}  # a slope of ±1 is written without its 1
        coefficient = signs.get(slope, f"{'+' if slope >= 0 else ''}{format_number(slope)}·")
    return Bias(f"{coefficient}(j-i{shift})", lambda i, j: slope * (j - i - offset),
                filled=lambda i, j: f"{coefficient}({j}-{i}{shift})", slope=slope)


def _matrix(text: str, n_q: int, n_k: int) -> Bias:
    rows = [row.strip() for row in text.split(";")]
    if len(rows) > 1 and rows[-1] == "":
        rows.pop()
    parsed = []
    for n, row in enumerate(rows, 1):
        try:
            parsed.append(tuple(parse_number(entry) for entry in row.split(",")))
        except InputError as err:
            raise InputError(f"row {n}: {err.what}") from None
    check_matrix_shape(parsed, n_q, n_k)
    values = tuple(parsed)
    return Bias("+B_ij", lambda i, j: values[i][j], rows=values, named=lambda i, j: f"+B_{{{i},{j}}}")


def _custom(function: Callable[[int, int], object]) -> Bias:
    label = getattr(function, "__name__", "bias")
    label = label if label.isidentifier() else "bias"

    def value(i: int, j: int) -> Exact:
        try:
            result = function(i, j)
        except Exception as err:  # noqa: BLE001 - the user's code: report it as their input's problem
            raise InputError(f"{label}({i}, {j}) raised {type(err).__name__}: {err}", "bias") from None
        if result is None:
            raise InputError(f"{label}({i}, {j}) returned None; it must return a number", "bias")
        try:
            return to_exact(result)
        except InputError as err:
            raise InputError(f"{label}({i}, {j}) returned {err.what}", "bias") from None

    return Bias(f"+{label}(i-1,j-1)", value, named=lambda i, j: f"+{label}({i - 1},{j - 1})")
