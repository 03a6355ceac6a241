"""Exact numbers: reading what the user typed, and writing values back as text.

Everything here is `int` or `fractions.Fraction`; a float never enters the engine.
A Python float given through the API is read as the shortest decimal that
round-trips (`repr`), i.e. the decimal the user typed, not its binary value.
"""

import math
import re
from decimal import Decimal
from fractions import Fraction
from numbers import Integral, Rational, Real

__all__ = ["InputError", "MAX_DIGITS", "MAX_EXPONENT", "parse_number", "to_exact", "format_number"]

#: Longest numerator or denominator accepted, in digits: that limit decides what fits
#: (`1e39` and `5e-40` do, `1e40` does not). The exponent guard only keeps arithmetic instant,
#: refusing `1e999999999` before anything is computed; it is loose enough (with at most 40 typed
#: digits, a larger exponent can never fit) that it never refuses a number the digit limit allows.
MAX_DIGITS = 40
MAX_EXPONENT = 2 * MAX_DIGITS
_LIMIT = 10**MAX_DIGITS

_DECIMAL = re.compile(r"(?a)[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE](?P<exp>[+-]?\d+))?")
_FRACTION = re.compile(r"(?a)[+-]?\d+/[+-]?\d+")


class InputError(ValueError):
    """Bad user input: `where` names the input (a flag, a file, a key path), `what` says what is wrong.

    Shown to the user as one line, `where: what`.
    """

    def __init__(self, what, where=None):
        self.what, self.where = what, where
        super().__init__(f"{where}: {what}" if where else what)

    def relocated(self, rename):
        """The same error with `where` renamed, e.g. the API's `q` as the command's `--q`."""
        return InputError(self.what, rename(self.where))


def parse_number(text):
    """Read one typed number exactly: `3`, `-3/4`, `0.5`, `1.25e-2`.

    >>> parse_number("0.5"), parse_number("-3/4"), parse_number(" 7 ")
    (Fraction(1, 2), Fraction(-3, 4), Fraction(7, 1))
    """
    raw = text.strip()
    typed = raw.lower().partition("e")[0]  # the exponent's digits are the guard's business, below
    digits = max(sum(ch in "0123456789" for ch in part) for part in typed.split("/"))
    if digits > MAX_DIGITS:
        raise InputError(f"{_show(raw)} has {digits} digits; the limit is {MAX_DIGITS}")
    if _FRACTION.fullmatch(raw):
        num, den = raw.split("/")
        if int(den) == 0:
            raise InputError(f"{_show(raw)} divides by zero")
        return _within_limits(Fraction(int(num), int(den)), raw)
    match = _DECIMAL.fullmatch(raw)
    if not match:
        raise InputError(f"{_show(raw)} is not a number (use an integer like 3, a fraction like -3/4 "
                         f"or a decimal like 0.5)")
    if match["exp"] is not None and abs(int(match["exp"])) > MAX_EXPONENT:
        raise InputError(f"{_show(raw)} is out of range: exponents are limited to ±{MAX_EXPONENT}")
    return _within_limits(Fraction(raw), raw)


def to_exact(value):
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
    numpy_float = type(value).__module__ == "numpy" and isinstance(value, Real)  # float16 .. longdouble
    if isinstance(value, float) or numpy_float:
        number = float(value)
        if not math.isfinite(number):
            raise InputError(f"{number!r} is not a finite number")
        # A numpy float32 prints as the shortest decimal in its own precision (0.1); as a Python
        # float it would be 0.10000000149011612. Read what the user sees printed.
        return parse_number(str(value) if numpy_float else repr(number))
    if hasattr(value, "__index__"):
        return Fraction(value.__index__())
    raise InputError(f"{_show(repr(value))} is not a number")


def _within_limits(value, raw=None):
    """`value`, if its numerator and denominator have at most MAX_DIGITS digits each."""
    # bit_length, not str(): Python refuses to print integers of more than 4300 digits.
    if abs(value.numerator) >= _LIMIT or value.denominator >= _LIMIT:
        bits = max(value.numerator.bit_length(), value.denominator.bit_length())
        what = "a number" if raw is None else f"{_show(raw)} is a number"
        raise InputError(f"{what} of about {max(int(bits * 0.30103), MAX_DIGITS + 1)} digits exactly; "
                         f"the limit is {MAX_DIGITS}")
    return value


def format_number(value):
    """An exact value as the figure writes it: an integer or a reduced fraction `p/q`.

    >>> format_number(Fraction(7, 2)), format_number(Fraction(-4, 2)), format_number(0)
    ('7/2', '-2', '0')
    """
    value = Fraction(value)
    if value.denominator == 1:
        return str(value.numerator)
    return f"{value.numerator}/{value.denominator}"


def _show(text, limit=40):
    """Quote user text for an error message, shortened and with control characters visible."""
    text = text if len(text) <= limit else text[:limit] + "…"
    return repr(text)
