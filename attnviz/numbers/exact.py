"""Exact numbers: reading what the user typed, and writing values back as text.

Everything here is `int` or `fractions.Fraction`; a float never enters the engine. A Python float given through the API
is read as the shortest decimal that round-trips (`repr`), i.e. the decimal the user typed, not its binary value.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from fractions import Fraction
from numbers import Integral, Rational, Real

from ..errors import InputError

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from ..typing import Number

__all__ = ["InputError", "MAX_DIGITS", "parse_number", "to_exact", "format_number", "digits", "DecimalForm",
           "terminates", "decimal_text", "written_as_decimal"]

#: Longest numerator or denominator accepted, in digits of the exact value, however it is spelled
#: (`1e39`, `5e-40` and `000…0001` fit, `1e40` does not). Digits are counted from the text before
#: any arithmetic, so `1e999999999` or a 5,000-digit number is refused at once, never computed.
MAX_DIGITS = 40
# A decimal M/10^k (M not a multiple of 10) keeps a denominator of at least 2^k: past k = 132 it has more
# than 40 digits. Then at most 5^132 (93 digits) of M cancels, so an M of more than 40 + 93 digits cannot fit.
_MAX_SHIFT, _MAX_CANCELLED_DIGITS = 132, 93
_LIMIT = 10**MAX_DIGITS

# Patterns, not compiled ones: `re` compiles each on first use, so a figure of int vectors compiles none.
_DECIMAL = r"(?a)(?P<sign>[+-]?)(?P<int>\d*)(?:\.(?P<frac>\d*))?(?:[eE](?P<exp>[+-]?\d+))?"
_FRACTION = r"(?a)[+-]?\d+/[+-]?\d+"


def parse_number(text: str) -> Fraction:
    """Read one typed number exactly: `3`, `-3/4`, `0.5`, `1.25e-2`.

    >>> parse_number("0.5"), parse_number("-3/4"), parse_number(" 7 "), parse_number("000.50e1")
    (Fraction(1, 2), Fraction(-3, 4), Fraction(7, 1), Fraction(5, 1))
    """
    raw = text.strip()
    if re.fullmatch(_FRACTION, raw):
        num, den = (_integer(part, raw) for part in raw.split("/"))
        if den == 0:
            raise InputError(f"{_show(raw)} divides by zero")
        return _within_limits(Fraction(num, den), raw)
    match = re.fullmatch(_DECIMAL, raw)
    if not match or not (match["int"] or match["frac"]):
        raise InputError(f"{_show(raw)} is not a number (use an integer like 3, a fraction like -3/4 "
                         f"or a decimal like 0.5)")
    return _within_limits(_decimal(match, raw), raw)


def _integer(text: str, raw: str) -> int:
    """A typed integer, its leading zeros aside counted before int() reads it."""
    significant = text.lstrip("+-").lstrip("0")
    if len(significant) > MAX_DIGITS:
        raise InputError(f"{_show(raw)} has {len(significant):,} digits; the limit is {MAX_DIGITS}")
    return int(significant or "0") * (-1 if text.startswith("-") else 1)


def _decimal(match: re.Match[str], raw: str) -> Fraction:
    """The decimal's exact value, M·10^e; whether it can fit is decided from its digits, before any arithmetic."""
    fraction = (match["frac"] or "").rstrip("0")
    mantissa = (match["int"] + fraction).lstrip("0")
    if not mantissa:
        return Fraction(0)
    exponent_text = match["exp"] or "0"
    exponent_digits = exponent_text.lstrip("+-").lstrip("0")
    if len(exponent_digits) > 9:  # 1e(5,000 digits): even its number of digits is too long to compute with
        raise InputError(f"{_show(raw)} is out of range: a number of more than 10^{len(exponent_digits) - 1} "
                         f"digits exactly; the limit is {MAX_DIGITS}")
    exponent = int(exponent_text[0] + exponent_digits if exponent_text[0] == "-" else exponent_digits or "0")
    exponent -= len(fraction)
    significant = mantissa.rstrip("0")  # M without trailing zeros, so M·10^e is reduced by 2s or 5s only
    exponent += len(mantissa) - len(significant)
    if exponent >= 0:
        size = len(significant) + exponent  # a whole number: exactly this many digits
    else:
        size = max(len(significant), -exponent)  # past the bounds above it cannot fit; within them, compute
        size = size if -exponent > _MAX_SHIFT or len(significant) > MAX_DIGITS + _MAX_CANCELLED_DIGITS else 0
    if size > MAX_DIGITS:
        raise InputError(f"{_show(raw)} is a number of about {size:,} digits exactly; the limit is {MAX_DIGITS}")
    value = int(significant) * 10**max(exponent, 0)
    return Fraction(-value if match["sign"] == "-" else value, 10**max(-exponent, 0))


def to_exact(value: Number | object) -> Fraction:  # any other value is an InputError
    """Turn one API value (int, Fraction, str, float, numpy scalar) into a Fraction."""
    if isinstance(value, bool):
        raise InputError(f"{value!r} is a bool, not a number")
    if isinstance(value, Integral):
        return _within_limits(Fraction(int(value)))
    if isinstance(value, Rational):
        return _within_limits(Fraction(int(value.numerator), int(value.denominator)))
    if isinstance(value, str):
        return parse_number(value)
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise InputError(f"{value} is not a finite number")
        return parse_number(str(value))
    numpy_float = type(value).__module__ == "numpy"  # with Real: float16 .. longdouble
    if isinstance(value, Real) and (isinstance(value, float) or numpy_float):
        number = float(value)
        if not math.isfinite(number):
            raise InputError(f"{number!r} is not a finite number")
        # A numpy float32 prints as the shortest decimal in its own precision (0.1); as a Python
        # float it would be 0.10000000149011612. Read what the user sees printed.
        return parse_number(str(value) if numpy_float else repr(number))
    if hasattr(value, "__index__"):
        return Fraction(value.__index__())
    raise InputError(f"{_show(repr(value))} is not a number")


def _within_limits(value: Fraction, raw: str | None = None) -> Fraction:
    """`value`, if its numerator and denominator have at most MAX_DIGITS digits each."""
    # bit_length, not str(): Python refuses to print integers of more than 4300 digits.
    if abs(value.numerator) >= _LIMIT or value.denominator >= _LIMIT:
        size = max(digits(value.numerator), digits(value.denominator))
        what = "a number" if raw is None else f"{_show(raw)} is a number"
        raise InputError(f"{what} of about {size:,} digits exactly; the limit is {MAX_DIGITS}")
    return value


def digits(n: int) -> int:
    """How many decimal digits the integer |n| has, without str() (which refuses past 4,300 digits).

    >>> digits(0), digits(-999), digits(10**5000)
    (1, 3, 5001)
    """
    n = abs(n)
    count = max(1, int(n.bit_length() * 0.30102999566398120))  # log10(2): never more than the true count
    while n >= 10**count:
        count += 1
    return count


def format_number(value: int | Fraction) -> str:
    """An exact value as the figure writes it: an integer or a reduced fraction `p/q`.

    >>> format_number(Fraction(7, 2)), format_number(Fraction(-4, 2)), format_number(0)
    ('7/2', '-2', '0')
    """
    if type(value) is not Fraction:  # already one: every score of a figure (a 64x64 one writes 8,000)
        value = Fraction(value)
    if value.denominator == 1:
        return str(value.numerator)
    if written_as_decimal(value):  # inside `DecimalForm(True)`: 1.71, not 171/100
        return decimal_text(value)
    return f"{value.numerator}/{value.denominator}"


#: Whether `format_number` writes a terminating value as a decimal: the innermost `DecimalForm` decides.
_DECIMAL_FORM = [False]


class DecimalForm:
    """`with DecimalForm(True):` values that end (1.71, -10.8027) are written as decimals, the form inputs came in;
    others (1/3) stay fractions. A figure chooses it for each kind of quantity, so one kind is written one way."""

    __slots__ = ("on",)

    def __init__(self, on: bool) -> None:
        self.on = on

    def __enter__(self) -> None:
        _DECIMAL_FORM.append(self.on)

    def __exit__(self, *_: object) -> None:
        _DECIMAL_FORM.pop()


def written_as_decimal(value: Fraction) -> bool:
    """True when the innermost `DecimalForm` writes decimals and `value` ends (is a terminating decimal): what every
    writer of numbers (text, TeX) asks before it writes a fraction.

    >>> with DecimalForm(True):
    ...     written_as_decimal(Fraction(171, 100)), written_as_decimal(Fraction(1, 3))
    (True, False)
    """
    return _DECIMAL_FORM[-1] and terminates(value)


def terminates(value: object) -> bool:
    """True for an int, or a Fraction whose decimal ends (its denominator has no prime but 2 and 5).

    >>> terminates(Fraction(171, 100)), terminates(Fraction(1, 3)), terminates(7)
    (True, False, True)
    """
    if isinstance(value, int):
        return True
    if type(value) is not Fraction:
        return False
    d = value.denominator
    twos = (d & -d).bit_length() - 1
    d >>= twos
    while d % 5 == 0:
        d //= 5
    return d == 1


def decimal_text(value: Fraction) -> str:
    """A terminating value's decimal, digit for digit (no exponent): Fraction(-108027, 10000) is -10.8027.

    >>> decimal_text(Fraction(-108027, 10000)), decimal_text(Fraction(1, 8)), decimal_text(Fraction(-3, 2))
    ('-10.8027', '0.125', '-1.5')
    """
    d = value.denominator
    places = max((d & -d).bit_length() - 1, _fives(d))
    scaled = abs(value.numerator) * (10**places // d)
    whole, fraction = divmod(scaled, 10**places)
    text = f"{whole}.{fraction:0{places}d}".rstrip("0").rstrip(".") if places else str(whole)
    return ("-" if value < 0 else "") + text


def _fives(d: int) -> int:
    count = 0
    while d % 5 == 0:
        d //= 5
        count += 1
    return count


def _show(text: str, limit: int = 40) -> str:
    """Quote user text for an error message, shortened and with control characters visible."""
    return repr(text if len(text) <= limit else text[:limit] + "…")
