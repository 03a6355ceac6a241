"""What turns a row's logits into weights, besides the plain row softmax: a sink logit in the denominator
(GPT-OSS's `sinks`, the quiet softmax when it is 0), elementwise sigmoid attention (Apple's SigmoidAttn), and
logit soft-capping (Gemma 2, Grok-1) before the mask and the softmax.

Everything here stays exact where the arithmetic pins a value and named where it does not: a capped logit
c·tanh(L/c) is a `Capped` (exact only when L is 0), a sink written by name stays a name, σ(0) is 1/2 and
σ(−ln n) is 1/(1+n). `Form` is read from the options (`resolve_form`); `engine.attention.form_weights` gives
one row's `Weights`.
"""

from __future__ import annotations

import re
from fractions import Fraction

from ..numbers.exact import InputError, format_number, parse_number, to_exact
from ..numbers.surds import Surd, format_exact
from ..records import dataclass

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from typing import TypeAlias

    from ..typing import Exact

    Logit: TypeAlias = Fraction | Surd | "Capped" | "Named"  # a softmax's exponent: exact, capped, or with a name

__all__ = ["Capped", "capped", "Named", "Sink", "Sigmoid", "Form", "PLAIN", "resolve_form", "parse_sink",
           "parse_sigmoid", "parse_softcap", "sigmoid_value", "SINK_NAME"]

#: A name for a sink logit, a per-head sink or λ: a letter, then letters, digits or `_` (`s`, `s_h`, `s2`, `λ`).
SINK_NAME = r"[^\W\d_][\w]{0,11}"
_NEG_LOG = r"\s*[-−]\s*(?:ln|log)\s*\(?\s*(n|\d{1,9})\s*\)?\s*"  # (patterns compiled when first used)


class Capped:
    """c·tanh(x/c), a soft-capped logit with x exact and not 0 (`capped` gives 0 for x = 0): the one
    value of the engine that is not a number it can write exactly. Equal when x is (tanh is one-to-one)."""

    __slots__ = ("cap", "x")
    cap: Fraction
    x: Exact

    def __init__(self, cap: Fraction, x: Exact) -> None:
        object.__setattr__(self, "cap", cap)
        object.__setattr__(self, "x", x)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Capped is immutable")

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Capped):
            return (self.cap, self.x) == (other.cap, other.x)
        return False if isinstance(other, (int, Fraction, Surd)) else NotImplemented

    def __hash__(self) -> int:
        return hash(("Capped", self.cap, self.x))

    def text(self) -> str:
        """`50·tanh(1/50)`: c times the tanh of x/c, x/c written exactly."""
        return f"{format_number(self.cap)}·tanh({format_exact(self.x * (1 / self.cap))})"

    def __repr__(self) -> str:
        return f"Capped({self.cap}, {self.x!r})"


class Named:
    """x + a named term: an exact part plus a learned number the figure is not given, as T5's `b[3]` (the bias of
    bucket 3) when `--bias t5=N,D` has no values. Written `1+b[3]`; equal when both parts are, so a row whose kept
    logits are all one such logit is still pinned (1/k each), and no other row is."""

    __slots__ = ("term", "x")
    x: Exact
    term: str  # `b[3]`, `b_2[3]`: a name indexed by a bucket

    def __init__(self, x: Exact, term: str) -> None:
        object.__setattr__(self, "x", x)
        object.__setattr__(self, "term", term)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Named is immutable")

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Named):
            return (self.x, self.term) == (other.x, other.term)
        return False if isinstance(other, (int, Fraction, Surd, Capped)) else NotImplemented

    def __hash__(self) -> int:
        return hash(("Named", self.x, self.term))

    def text(self, number: str | None = None) -> str:
        """`1+b[3]`, `-1/2+b[3]`, `b[3]` (x = 0); `number` writes x another way (Python's, TeX's)."""
        if self.x == 0:
            return self.term
        return f"{format_exact(self.x) if number is None else number}+{self.term}"

    def __repr__(self) -> str:
        return f"Named({self.x!r}, {self.term!r})"


def capped(cap: Fraction | None, x: Exact) -> Exact | Capped:
    """x soft-capped at `cap` (None: not capped): c·tanh(x/c), exactly 0 when x is."""
    if cap is None or x == 0:
        return x
    return Capped(cap, x)


@dataclass(frozen=True)
class Sink:
    """A sink logit: a term e^s of every row's denominator that reads no value. `value` is an exact number or a
    name (`s`, `s_h`); 0 is the quiet softmax, softmax plus one."""

    value: Exact | str

    @property
    def quiet(self) -> bool:
        return isinstance(self.value, Fraction) and self.value == 0

    @property
    def named(self) -> bool:
        return isinstance(self.value, str)


@dataclass(frozen=True)
class Sigmoid:
    """Sigmoid attention's bias b: w_ij = σ(L_ij + b), no row sum. Either an exact `bias`, or b = −ln n with
    `count` n given, or (`count` None, `bias` None) n each row's own count of kept keys."""

    bias: Fraction | None = None
    count: int | None = None

    @property
    def per_row(self) -> bool:
        return self.bias is None and self.count is None

    def text(self) -> str:
        """The bias as the formula writes it after L: `+1/2`, `-ln 6`, `-ln n_i`, or `` for 0."""
        if self.bias is not None:
            return "" if self.bias == 0 else ("-" if self.bias < 0 else "+") + format_number(abs(self.bias))
        return f"-ln {self.count}" if self.count is not None else "-ln n_i"


@dataclass(frozen=True)
class Form:
    """How a figure's logits become weights: the plain softmax when every field is None."""

    sink: Sink | None = None
    sigmoid: Sigmoid | None = None
    softcap: Fraction | None = None  # c: the logits are c·tanh(L/c) before the mask and the softmax

    @property
    def plain(self) -> bool:
        return self.sink is None and self.sigmoid is None and self.softcap is None


PLAIN = Form()


def parse_sink(value: object) -> Sink:
    """A sink logit: an exact number (`0`, `-1/2`, 1.5) or a name (`s`, `s_h`).

    >>> parse_sink("s").value, parse_sink(0).quiet, parse_sink("-1/2").value
    ('s', True, Fraction(-1, 2))
    """
    if isinstance(value, str) and re.fullmatch(SINK_NAME, value.strip()):
        return Sink(value.strip())
    try:
        return Sink(to_exact(value))
    except InputError as err:
        raise InputError(f"expected an exact number (0 is the quiet softmax) or a name like s or s_h; {err.what}",
                         "sink") from None


def parse_sigmoid(value: object) -> Sigmoid:
    """Sigmoid attention's bias: an exact number, `-ln(6)` (b = −ln 6) or `-ln(n)` (n each row's kept keys).

    >>> parse_sigmoid("-ln(6)").count, parse_sigmoid("-ln(n)").per_row, parse_sigmoid(0).bias
    (6, True, Fraction(0, 1))
    """
    if isinstance(value, str) and (match := re.fullmatch(_NEG_LOG, value)):
        if match[1] == "n":
            return Sigmoid()
        if int(match[1]) < 1:
            raise InputError(f"-ln(n) needs n of at least 1, got {match[1]}", "sigmoid")
        return Sigmoid(count=int(match[1]))
    try:
        return Sigmoid(bias=to_exact(value))
    except InputError as err:
        raise InputError(f"expected an exact bias (0, -1/2), -ln(N) with a whole number N, or -ln(n) (n each "
                         f"row's count of kept keys); {err.what}", "sigmoid") from None


def parse_softcap(value: object) -> Fraction:
    """The soft cap c of c·tanh(L/c): an exact positive number (Gemma 2 uses 50, Grok-1 30)."""
    try:
        cap = parse_number(value) if isinstance(value, str) else to_exact(value)
    except InputError as err:
        raise InputError(f"expected an exact positive cap like 50; {err.what}", "softcap") from None
    if cap <= 0:
        raise InputError(f"a soft cap must be positive, got {format_number(cap)}", "softcap")
    return cap


def resolve_form(sink: object = None, sigmoid: object = None, softcap: object = None) -> Form:
    """The options' form (`sink`, `sigmoid`, `softcap`, each None when not given), checked: a sink is a term of a
    softmax's denominator, so sigmoid attention (which has none) cannot take one."""
    if sink is not None and sigmoid is not None:
        raise InputError("sigmoid attention has no row sum, so no denominator for a sink logit: give --sink or "
                         "--sigmoid, not both", "sink")
    if softcap is not None and sigmoid is not None:
        raise InputError("soft-capping caps a softmax's logits (Gemma 2, Grok-1); no model caps sigmoid attention's: "
                         "give --softcap or --sigmoid, not both", "softcap")
    return Form(sink=None if sink is None else parse_sink(sink),
                sigmoid=None if sigmoid is None else parse_sigmoid(sigmoid),
                softcap=None if softcap is None else parse_softcap(softcap))


def sigmoid_value(x: Logit, count: int | None) -> Fraction | None:
    """σ(x) exactly when it is rational, else None; with `count` n, σ(x − ln n) = 1/(1 + n·e^(−x)).

    >>> sigmoid_value(Fraction(0), None), sigmoid_value(Fraction(0), 6), sigmoid_value(Fraction(1), None)
    (Fraction(1, 2), Fraction(1, 7), None)
    """
    if x != 0:
        return None
    return Fraction(1, 2) if count is None else Fraction(1, 1 + count)
