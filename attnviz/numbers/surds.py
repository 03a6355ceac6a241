"""Exact numbers a + b·√r: what scaled dot products become when d is not a perfect square.

S/√d = (S/d)·√d, and a bias added to it keeps the form a + b·√r with a, b Fractions and r the squarefree part of d.
Within one figure every value shares the same r, so sums, differences and rational multiples stay in this form: no
float, no approximation. A value whose √r part is zero is returned as a plain Fraction (`surd` normalises).
"""

from __future__ import annotations

from fractions import Fraction

from .exact import format_number

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from typing import TypeAlias

    Rational: TypeAlias = int | Fraction  # what a Surd computes with besides another Surd

__all__ = ["Surd", "surd", "squarefree_split", "inverse_sqrt", "sign", "format_exact"]


def squarefree_split(d: int) -> tuple[int, int]:
    """`d = f²·r` with r squarefree: returns (f, r).

    >>> squarefree_split(8), squarefree_split(9), squarefree_split(6)
    ((2, 2), (3, 1), (1, 6))
    """
    if d < 1:
        raise ValueError(f"squarefree_split needs a positive integer, got {d}")
    f, r, p = 1, d, 2
    while p * p <= r:
        while r % (p * p) == 0:
            r //= p * p
            f *= p
        p += 1
    return f, r


def surd(a: Rational, b: Rational = 0, r: int = 1) -> Fraction | Surd:
    """The exact value a + b·√r, as a Fraction when it is rational."""
    a, b = Fraction(a), Fraction(b)
    if b == 0 or r == 1:
        return a + b
    f, r = squarefree_split(r)
    return a + b * f if r == 1 else Surd(a, b * f, r)


def inverse_sqrt(d: int) -> Fraction | Surd:
    """1/√d exactly: `Fraction(1, 2)` for d = 4, `√2/2` (a Surd) for d = 2.

    >>> inverse_sqrt(4), inverse_sqrt(2), inverse_sqrt(12)
    (Fraction(1, 2), Surd(0, 1/2, 2), Surd(0, 1/6, 3))
    """
    f, r = squarefree_split(d)
    return surd(0, Fraction(1, f * r), r)  # 1/(f·√r) = √r/(f·r)


class Surd:
    """a + b·√r with b != 0 and r > 1 squarefree. Immutable and hashable; never equal to a Fraction
    (it is irrational). Build it with `surd()`, which returns a Fraction when the value is rational."""

    __slots__ = ("a", "b", "r")
    a: Fraction
    b: Fraction
    r: int

    def __init__(self, a: Rational, b: Rational, r: int) -> None:
        object.__setattr__(self, "a", Fraction(a))
        object.__setattr__(self, "b", Fraction(b))
        object.__setattr__(self, "r", int(r))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Surd is immutable")

    def _parts(self, other: object) -> tuple[Fraction, Fraction] | None:
        """(a, b) of `other` in this value's field; refuses a different √r."""
        if isinstance(other, Surd):
            if other.r != self.r:
                raise ValueError(f"cannot mix √{self.r} and √{other.r}")
            return other.a, other.b
        return (Fraction(other), Fraction(0)) if isinstance(other, (int, Fraction)) else None

    def __add__(self, other: Surd | Rational) -> Fraction | Surd:
        parts = self._parts(other)
        return NotImplemented if parts is None else surd(self.a + parts[0], self.b + parts[1], self.r)

    __radd__ = __add__

    def __neg__(self) -> Surd:
        return Surd(-self.a, -self.b, self.r)

    def __sub__(self, other: Surd | Rational) -> Fraction | Surd:
        parts = self._parts(other)
        return NotImplemented if parts is None else surd(self.a - parts[0], self.b - parts[1], self.r)

    def __rsub__(self, other: Rational) -> Fraction | Surd:
        return -self + other

    def __mul__(self, other: Surd | Rational) -> Fraction | Surd:
        parts = self._parts(other)  # (x + y√r)(a + b√r) = xa + yb·r + (xb + ya)√r
        if parts is None:
            return NotImplemented
        a, b = parts
        return surd(self.a * a + self.b * b * self.r, self.a * b + self.b * a, self.r)

    __rmul__ = __mul__

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Surd):
            return (self.a, self.b, self.r) == (other.a, other.b, other.r)
        if isinstance(other, (int, Fraction)):
            return False  # irrational
        return NotImplemented

    def __hash__(self) -> int:
        return hash(("Surd", self.a, self.b, self.r))

    def __repr__(self) -> str:
        return f"Surd({self.a}, {self.b}, {self.r})"


def sign(x: Fraction | Surd | int) -> int:
    """-1, 0 or 1, decided exactly (compares squares, no square root is taken).

    >>> sign(surd(-1, 1, 2)), sign(surd(3, -2, 2)), sign(Fraction(-1, 2))
    (1, 1, -1)
    """
    if not isinstance(x, Surd):
        return (x > 0) - (x < 0)
    a_sign, b_sign = (x.a > 0) - (x.a < 0), (x.b > 0) - (x.b < 0)
    if a_sign == b_sign or a_sign == 0:
        return b_sign
    # Opposite signs: a + b√r has the sign of the larger magnitude, a² versus b²·r.
    return a_sign if x.a * x.a > x.b * x.b * x.r else b_sign


def format_exact(x: Fraction | Surd | int) -> str:
    """An exact value as text: a Fraction as `p/q`; a + b·√r with the radical's denominator
    rationalised (`√3/3`, not `1/√3`).

    >>> format_exact(surd(0, 1, 2)), format_exact(surd(0, Fraction(1, 3), 3)), format_exact(surd(1, -2, 5))
    ('√2', '√3/3', '1-2√5')
    >>> format_exact(surd(Fraction(-1, 2), Fraction(3, 2), 2))
    '-1/2+3√2/2'
    """
    if not isinstance(x, Surd):
        return format_number(x)
    p, q = x.b.numerator, x.b.denominator
    radical = {1: "", -1: "-"}.get(p, str(p)) + f"√{x.r}" + (f"/{q}" if q != 1 else "")
    return radical if x.a == 0 else format_number(x.a) + ("" if radical.startswith("-") else "+") + radical
