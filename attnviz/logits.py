"""What the softmax exponentiates: the score scaled (S/√d, or R·S) plus biases (ALiBi, a matrix).

Read from text ("sqrt", "1/8", "alibi=1/2", "matrix=0,-1;0,0") or from the API (a number, a
callable bias(q_idx, kv_idx)), and bound to the grid's shape. Everything stays exact: a scale of
1/√d with d not a perfect square is a `surds.Surd`, never a float.
"""

import re
from fractions import Fraction

from .engine import Bias, Scale, check_matrix_shape
from .exact import InputError, format_number, parse_number, to_exact
from .masks import ALIGNMENTS
from .surds import inverse_sqrt

__all__ = ["resolve_scale", "resolve_biases", "parse_slope"]

_POWER = re.compile(r"\s*(\d{1,3})\s*\^\s*\(?\s*([+-]?\d{1,3})\s*\)?\s*")


def resolve_scale(scale, d):
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
    if factor == 1:
        return None
    return Scale(f"{format_number(factor)}·S_ij", factor)


def parse_slope(text):
    """An ALiBi slope: an exact number (`1/2`, `0.25`) or a power like `2^-3`.

    >>> parse_slope("2^-3"), parse_slope("1/16")
    (Fraction(1, 8), Fraction(1, 16))
    """
    if match := _POWER.fullmatch(text):
        base, exponent = int(match[1]), int(match[2])
        if base == 0 and exponent < 0:
            raise InputError(f"{text.strip()!r} divides by zero")
        return Fraction(base) ** exponent
    return parse_number(text)


def resolve_biases(bias, n_q, n_k, align="top-left"):
    """Biases (a string, a callable, or a list of them) as a tuple of `Bias` for an n_q×n_k grid."""
    if bias is None:
        return ()
    if align not in ALIGNMENTS:
        raise InputError(f"expected {' or '.join(ALIGNMENTS)}, got {align!r}", "align")
    offset = n_k - n_q if align == "bottom-right" else 0
    items = list(bias) if isinstance(bias, (list, tuple)) else [bias]
    return tuple(_one(item, n_q, n_k, offset) for item in items)


def _one(item, n_q, n_k, offset):
    if callable(item):
        return _custom(item)
    if not isinstance(item, str):
        raise InputError(f"expected a bias like \"alibi=1/2\" or \"matrix=0,-1;0,0\", or a function "
                         f"bias(q_idx, kv_idx), got {type(item).__name__}", "bias")
    where = f"bias {item!r}"
    kind, has_value, value = (part.strip() for part in item.partition("="))
    kind = kind.lower()
    if kind not in ("alibi", "matrix"):
        raise InputError(f"unknown bias {kind!r}; biases are alibi=M (a slope like 1/2 or 2^-3) and "
                         "matrix=ROW;ROW;... (rows of exact numbers)", where)
    if not has_value or not value:
        raise InputError(f"'{kind}' needs a value: " + ("alibi=M" if kind == "alibi" else "matrix=ROW;ROW;..."),
                         where)
    try:
        if kind == "alibi":
            return _alibi(parse_slope(value), offset)
        return _matrix(value, n_q, n_k)
    except InputError as err:
        raise InputError(err.what, f"{where}" + (f": {err.where}" if err.where else "")) from None


def _alibi(slope, offset):
    """ALiBi: slope·(j - i), the distance from query i (at key position i+offset) to key j."""
    shift = "" if offset == 0 else f"{'-' if offset > 0 else '+'}{abs(offset)}"
    # A slope of 0 is still written ("+0·(j-i)"): the figure says what was asked, and 0 needs its sign.
    coefficient = {1: "+", -1: "-"}.get(slope, f"{'+' if slope >= 0 else ''}{format_number(slope)}·")
    return Bias(f"{coefficient}(j-i{shift})", lambda i, j: slope * (j - i - offset),
                filled=lambda i, j: f"{coefficient}({j}-{i}{shift})")


def _matrix(text, n_q, n_k):
    rows = [row.strip() for row in text.split(";")]
    if len(rows) > 1 and rows[-1] == "":
        rows.pop()
    values = []
    for n, row in enumerate(rows, 1):
        try:
            values.append(tuple(parse_number(entry) for entry in row.split(",")))
        except InputError as err:
            raise InputError(f"row {n}: {err.what}") from None
    check_matrix_shape(values, n_q, n_k)
    values = tuple(values)
    return Bias("+B_ij", lambda i, j: values[i][j], rows=values, named=lambda i, j: f"+B_{{{i},{j}}}")


def _custom(function):
    label = getattr(function, "__name__", "bias")
    label = label if label.isidentifier() else "bias"

    def value(i, j):
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
