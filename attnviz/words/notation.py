"""The figure's notation: exact values written as the seed writes them.

Tiny pure functions, each returning one piece of text. Indices are 1-based here, as in the figure.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

from ..numbers.exact import DecimalForm, InputError, format_number
from ..numbers.surds import format_exact  # moved to numbers (the engine writes it too); still importable from here
from .user_text import concat, joined

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import TypeVar

    from ..engine.attention import Bias, Scale, Weights
    from ..engine.softmax_forms import Logit
    from ..typing import Exact

    T = TypeVar("T")

__all__ = ["SOFTMAX_FORMS", "elide", "and_list", "format_exact", "exponential", "vector_text", "vector_line",
           "scores_line", "weights_line", "weight_terms", "sum_terms", "logit_text", "sink_term", "sink_share",
           "sigmoid_term", "normalizer_line", "wide_indices", "weight_name",
           "output_line", "logit_formula"]

#: How a row's named softmax is written: `e^a/(e^a+e^b)`, `e^a/Z_i`, or with like terms collected.
SOFTMAX_FORMS = ("expanded", "normalizer", "grouped")

#: Longest softmax row written out, in characters. The expanded form repeats a row's sum in
#: every weight, so long exact exponents in long rows (all within the input limits) would
#: otherwise grow one figure to gigabytes. The default 64-token figure's longest row is ~21,000.
MAX_ROW_TEXT = 200_000


def logit_text(x: Logit | int) -> str:
    """An exponent as the figure writes it: exact (`1/2`, `√2/2`), a capped logit `50·tanh(1/50)`, or one with a
    named term `1+b[3]` (a T5 bias without values)."""
    return x.text() if hasattr(x, "text") else format_exact(x)  # type: ignore[arg-type]  # Capped, Named or exact


def exponential(x: Logit | int) -> str:
    """`e^x`, with the exponent in parentheses unless it is a non-negative integer.

    >>> from fractions import Fraction
    >>> exponential(2), exponential(-1), exponential(Fraction(1, 2))
    ('e^2', 'e^(-1)', 'e^(1/2)')
    """
    text = logit_text(x)
    return f"e^{text}" if text.isdigit() else f"e^({text})"


def sink_term(sink: Exact | str) -> str:
    """A sink logit's term of the denominator: `1` for the quiet softmax's 0, `e^s` for a name, `e^(-1/2)`.

    >>> from fractions import Fraction
    >>> sink_term(Fraction(0)), sink_term("s"), sink_term("s_h"), sink_term(Fraction(-1, 2))
    ('1', 'e^s', 'e^(s_h)', 'e^(-1/2)')
    """
    if isinstance(sink, str):
        return f"e^{sink}" if len(sink) == 1 else f"e^({sink})"
    return "1" if sink == 0 else exponential(sink)


def and_list(items: Iterable[str]) -> str:
    """`a`, `a and b`, `a, b and c`: items joined for a sentence."""
    words = list(items)
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


#: An elided figure's long lists (a row's scores, a sum's terms, its weights) keep this many items at
#: each end, with the count of the rest between: `1,0,2, … 995 more …, 3,1`.
ELIDE_FIRST, ELIDE_LAST = 3, 2


def elide(items: Iterable[T], on: bool = True) -> list[T | str]:
    """`items`, or its first and last few with `… N more …` between, when `on` and there are many.

    >>> elide([str(x) for x in range(10)])
    ['0', '1', '2', '… 5 more …', '8', '9']
    """
    kept: list[T | str] = list(items)
    if not on or len(kept) <= ELIDE_FIRST + ELIDE_LAST + 1:
        return kept
    hidden = len(kept) - ELIDE_FIRST - ELIDE_LAST
    return kept[:ELIDE_FIRST] + [f"… {hidden:,} more …"] + kept[-ELIDE_LAST:]


def vector_text(values: Iterable[int | Fraction]) -> str:
    """`(1/2,3)`: one vector's exact entries."""
    return f"({','.join(map(format_number, values))})"


def vector_line(name: str, vectors: Sequence[Sequence[Fraction]], labels: Sequence[str] | None = None) -> str:
    """`Q1=(1,0); Q2=(0,1)`: every vector with its label."""
    labels = labels or [f"{name}{i}" for i in range(1, len(vectors) + 1)]
    return joined("; ", (concat(label, f"={vector_text(vec)}") for label, vec in zip(labels, vectors)))


def scores_line(row: int | str, scores: Iterable[Logit], word: str = "scores", elided: bool = False) -> str:
    """`row 2: scores [0,1]`; `row` is the row's number or its token label; `word` names the values."""
    return concat("row ", row if isinstance(row, str) else str(row),
                  f": {word} [{','.join(elide(map(logit_text, scores), elided))}]")


def sum_terms(exponents: Iterable[Logit], form: str = "expanded") -> list[tuple[int, Logit]]:
    """A row's sum as (count, exponent) terms: each exponent once, or (grouped) like terms collected,
    in order of first appearance: [1, 1, 2] -> [(2, 1), (1, 2)], written 2e^1+e^2."""
    return [(1, x) for x in exponents] if form != "grouped" else [(n, x) for x, n in Counter(exponents).items()]


def _sum(exponents: Iterable[Logit], form: str, row: int | None = None, elided: bool = False,
         sink: Exact | str | None = None) -> str:
    """e^a+e^a+e^b, or with like terms collected, 2e^a+e^b; a sink's term first (`e^s+e^a+e^b`, `1+e^a+e^b`)."""
    terms = elide((f"{n if n > 1 else ''}{exponential(x)}" for n, x in sum_terms(exponents, form)), elided)
    total = "+".join(([sink_term(sink)] if sink is not None else []) + terms)
    if len(total) > MAX_ROW_TEXT:
        raise InputError(f"{_row(row)} softmax sum alone is {len(total):,} characters, past the limit of "
                         f"{MAX_ROW_TEXT:,} per row; use fewer tokens or shorter numbers", "q/k")
    return total


def _row(row: int | None) -> str:
    return "a row's" if row is None else f"row {row}'s"


def normalizer_line(weights: Weights, row: int, elided: bool = False) -> str:
    """`Z_2=e^0+e^1`, the named row's normalizer (the `normalizer` form defines it once per row)."""
    return (f"Z_{row}={_sum(weights.exponents, 'expanded', row, elided, weights.sink)}"
            if weights.kind == "named" and weights.form == "softmax" else "")


def weight_terms(weights: Weights, form: str = "expanded", row: int | None = None, elided: bool = False) -> list[str]:
    """Each weight of one row as text: pinned values, or e^a/(e^a+e^b+...), e^a/Z_row, e^a/(2e^a+e^b).

    >>> from fractions import Fraction
    >>> from attnviz.engine.attention import softmax_weights
    >>> w = softmax_weights([Fraction(1), Fraction(1), Fraction(2)])
    >>> weight_terms(w, "grouped"), weight_terms(w, "normalizer", row=3)[2]
    (['e^1/(2e^1+e^2)', 'e^1/(2e^1+e^2)', 'e^2/(2e^1+e^2)'], 'e^2/Z_3')
    """
    if weights.kind == "pinned":  # a weight is a quantity of its own, computed: in fractions (1/2, 1/3) always
        with DecimalForm(False):
            return elide([format_number(v) for v in weights.values], elided)
    if weights.form == "sigmoid":
        return elide((sigmoid_term(x, weights.sigmoid_count) for x in weights.exponents), elided)
    if weights.kind == "named":
        if form == "normalizer":
            denominator = f"Z_{row}"
        else:
            denominator = f"({_sum(weights.exponents, form, row, elided, weights.sink)})"
            size = len(elide(weights.exponents, elided)) * len(denominator)
            if size > MAX_ROW_TEXT:
                raise InputError(f"{_row(row)} weights would be {size:,} characters written out, past the limit "
                                 f"of {MAX_ROW_TEXT:,} per row: this form repeats the row's sum in every weight; "
                                 "the normalizer form writes it once (--softmax normalizer)", "softmax")
        return elide((f"{exponential(x)}/{denominator}" for x in weights.exponents), elided)
    return []


def sigmoid_term(x: Logit, count: int) -> str:
    """One sigmoid weight: `σ(x)` (`1/2` at 0), or with a bias -ln n, `1/(1+n·e^(-x))` (`1/(1+n)` at 0).

    >>> from fractions import Fraction
    >>> sigmoid_term(Fraction(1), 0), sigmoid_term(Fraction(0), 0), sigmoid_term(Fraction(1), 6)
    ('σ(1)', '1/2', '1/(1+6·e^(-1))')
    >>> sigmoid_term(Fraction(0), 6), sigmoid_term(Fraction(-2), 1)
    ('1/7', '1/(1+e^2)')
    """
    if x == 0:
        return format_number(Fraction(1, 1 + (count or 1)))
    if not count:
        return f"σ({logit_text(x)})"
    return f"1/(1+{f'{count}·' if count > 1 else ''}{exponential(-x)})"  # type: ignore[operator]  # exact x


def sink_share(weights: Weights, form: str = "expanded", row: int | None = None, elided: bool = False) -> str:
    """The sink's share of the row, the mass that reads no value: `e^s/(e^s+e^0+e^1)`, `1/Z_2`; "" without a sink."""
    if weights.sink is None:
        return ""
    if weights.kind == "pinned":
        return format_number(1 - sum(weights.values, Fraction(0)))
    denominator = (f"Z_{row}" if form == "normalizer" else
                   f"({_sum(weights.exponents, form, row, elided, weights.sink)})")
    return f"{sink_term(weights.sink)}/{denominator}"


def weights_line(weights: Weights, form: str = "expanded", row: int | None = None,
                 decimals: Sequence[str] | None = None, elided: bool = False, share: str | None = None) -> str:
    """`weights e^0/(e^0+e^1), e^1/(e^0+e^1)`; in words when the row has no kept key; with a sink, its share after
    (`; sink e^s/(e^s+e^0)`).

    `decimals`, when given, are the weights already rounded (`≈0.269`), written instead (`share` the sink's)."""
    if weights.kind == "undefined":
        return "weights undefined (every key masked)"
    if not weights.exponents and weights.kind == "pinned":  # a sink's row, or a sigmoid's, with every key masked
        return ("weights none (every key masked): the sink takes the whole row" if weights.sink is not None else
                "weights none (every key masked)")
    terms = elide(decimals, elided) if decimals is not None else weight_terms(weights, form, row, elided)
    line = "weights " + ", ".join(terms)
    if weights.sink is not None:
        line += "; sink " + (share if share is not None else sink_share(weights, form, row, elided))
    return line


def wide_indices(shape: tuple[int, int]) -> bool:
    """Whether weight names need a comma (`w3,12`, not `w312`): once an index can have two digits."""
    return max(shape) > 9


def weight_name(i: int, j: int, wide: bool = False) -> str:
    """`w31`, the weight of query i on key j; `w3,12` when an index may have two digits."""
    return f"w{i},{j}" if wide else f"w{i}{j}"


def output_line(i: int, columns: Sequence[int], value: str | None = None, approximate: bool = False,
                wide: bool = False, elided: bool = False, names: tuple[str, Sequence[str]] | None = None) -> str:
    """`O3 = w31·V1 + w32·V2 = (1,2)`: row i's output as the weighted sum of the kept keys' values.

    `columns` are the kept keys (1-based); `value`, when known, is the output's text; `names`: the output's name and
    the kept values' (`O(sat)`, `V(the)`: the tokens that label the figure's rows and columns), else O3, V1, ...
    """
    output, values = names if names is not None else (f"O{i}", [f"V{j}" for j in columns])
    if not columns:
        return concat(output, " undefined (every key masked)")
    terms = joined(" + ", elide([concat(f"{weight_name(i, j, wide)}·", v) for j, v in zip(columns, values)], elided))
    return concat(output, " = ", terms, f" {'≈' if approximate else '='} {value}" if value is not None else "")


def logit_formula(scale: Scale | None, biases: Iterable[Bias]) -> str:
    """L_ij in terms of S_ij: `S_ij/√2+1/2·(j-i)`; a score_mod wraps what comes before it."""
    text = scale.text if scale is not None else "S_ij"
    for b in biases:
        text = f"{b.wraps}({text},i-1,j-1)" if b.wraps else text + b.text
    return text
