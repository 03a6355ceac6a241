"""The figure's notation: exact values written as the seed writes them.

Tiny pure functions, each returning one piece of text. Indices are 1-based here,
as in the figure.
"""

from .exact import format_number

__all__ = ["exponential", "vector_line", "scores_line", "weights_line", "weight_terms"]


def exponential(x):
    """`e^x`, with the exponent in parentheses unless it is a non-negative integer.

    >>> from fractions import Fraction
    >>> exponential(2), exponential(-1), exponential(Fraction(1, 2))
    ('e^2', 'e^(-1)', 'e^(1/2)')
    """
    text = format_number(x)
    return f"e^{text}" if text.isdigit() else f"e^({text})"


def vector_line(name, vectors, labels=None):
    """`Q1=(1,0); Q2=(0,1)`: every vector with its label."""
    labels = labels or [f"{name}{i}" for i in range(1, len(vectors) + 1)]
    return "; ".join(f"{label}=({','.join(map(format_number, vec))})" for label, vec in zip(labels, vectors))


def scores_line(row, scores):
    """`row 2: scores [0,1]`; `row` is the row's number or its token label."""
    return f"row {row}: scores [{','.join(map(format_number, scores))}]"


def weight_terms(weights):
    """Each weight of one row as text: pinned values, or e^a/(e^a+e^b+...)."""
    if weights.kind == "pinned":
        return [format_number(v) for v in weights.values]
    if weights.kind == "named":
        denominator = "+".join(exponential(x) for x in weights.exponents)
        return [f"{exponential(x)}/({denominator})" for x in weights.exponents]
    return []


def weights_line(weights):
    """`weights e^0/(e^0+e^1), e^1/(e^0+e^1)`; in words when the row has no kept key."""
    if weights.kind == "undefined":
        return "weights undefined (every key masked)"
    return "weights " + ", ".join(weight_terms(weights))
