"""Values a reader can check: each drawn score, logit and weight as a machine-readable expression.

The expressions are Python syntax over integer and fraction literals (`3`, `-1/2`), names left as names (a sink
`s`; a T5 bias without values, a name indexed by its bucket, `b[3]`), and the functions `exp`, `log`, `tanh`,
`sigmoid` and `sqrt`: `exp(1)/(exp(s)+exp(0)+exp(1))`. They are written into `data-value` (what a cell shows)
and `data-weight` (its weight) beside `data-q`/`data-k`; docs/anatomy.rst gives the grammar. Evaluated with those
names bound (math.exp, …), they give float64 values; with a computer algebra system, the exact ones.
"""

from __future__ import annotations

from fractions import Fraction

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from ..engine.attention import Attention, Weights
    from ..engine.softmax_forms import Logit
    from ..typing import Exact

__all__ = ["python_number", "python_logit", "weight_expressions", "row_weights", "MAX_WEIGHT_EXPRESSION"]

#: A row's weights are written into `data-weight` when each expression is at most this long (a row of 24 integer
#: scores is about 240 characters each); past it the cells keep `data-value` alone, so a 64-token figure stays small.
MAX_WEIGHT_EXPRESSION = 300


def python_number(x: Exact | int) -> str:
    """`3`, `-1/2`, `(1/2+3/2*sqrt(2))`: an exact value as a Python expression.

    >>> from attnviz.numbers.surds import surd
    >>> python_number(Fraction(-1, 2)), python_number(surd(0, Fraction(1, 2), 2)), python_number(surd(1, -1, 3))
    ('-1/2', '1/2*sqrt(2)', '(1-1*sqrt(3))')
    """
    if isinstance(x, (int, Fraction)):
        x = Fraction(x)
        return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"
    radical = f"{python_number(x.b)}*sqrt({x.r})"
    return radical if x.a == 0 else f"({python_number(x.a)}{'' if x.b < 0 else '+'}{radical})"


def python_logit(x: Logit) -> str:
    """An exponent: exact, a capped logit `50*tanh(1/50)`, or one with a named term `1/2*sqrt(2)+b[3]` (a name
    indexed by a bucket: T5's bias without values)."""
    if hasattr(x, "term"):
        return x.text(python_number(x.x))  # type: ignore[union-attr,call-arg]  # a Named
    if hasattr(x, "cap"):
        return f"{python_number(x.cap)}*tanh({python_number(x.x * (1 / x.cap))})"  # type: ignore[union-attr]
    return python_number(x)  # exact


def _sink(sink: Exact | str) -> str:
    return f"exp({sink})" if isinstance(sink, str) else f"exp({python_number(sink)})"


def weight_expressions(weights: Weights) -> list[str]:
    """Each kept key's weight in a row, in key order: `1/3`; `exp(0)/(exp(s)+exp(0)+exp(1))`; `sigmoid(-1)`;
    `1/(1+6*exp(-1))`. [] for a row with no weights."""
    if weights.kind == "pinned":
        return [python_number(v) for v in weights.values]
    if weights.kind == "undefined":
        return []
    if weights.form == "sigmoid":
        return [_sigmoid(x, weights.sigmoid_count) for x in weights.exponents]
    terms = [f"exp({python_logit(x)})" for x in weights.exponents]
    denominator = "+".join(([_sink(weights.sink)] if weights.sink is not None else []) + terms)
    return [f"{term}/({denominator})" for term in terms]


def _sigmoid(x: Logit, count: int) -> str:
    if x == 0:
        return python_number(Fraction(1, 1 + (count or 1)))
    if not count:
        return f"sigmoid({python_logit(x)})"
    return f"1/(1+{count}*exp({python_number(-x)}))"  # type: ignore[operator]  # exact: no cap with sigmoid


def row_weights(attention: Attention, i: int | None) -> dict[int, str]:
    """Row i's weights as expressions by 0-based key (each cell's `data-weight`); {} for a gap, a row without
    weights, or one whose expressions are past `MAX_WEIGHT_EXPRESSION` (its cells keep their data-value alone)."""
    if i is None or attention.kept[i] is None:
        return {}
    expressions = weight_expressions(attention.weights(i))
    if not expressions or len(expressions[-1]) > MAX_WEIGHT_EXPRESSION:
        return {}
    kept = [j for j, keep in enumerate(attention.kept[i] or ()) if keep]
    return dict(zip(kept, expressions))
