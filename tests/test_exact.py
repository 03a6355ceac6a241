from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from attnviz.numbers.exact import MAX_DIGITS, InputError, format_number, parse_number, to_exact


@pytest.mark.parametrize("text, value", [
    ("3", Fraction(3)), ("-3", Fraction(-3)), ("+3", Fraction(3)), (" 7 ", Fraction(7)),
    ("1/2", Fraction(1, 2)), ("-3/4", Fraction(-3, 4)), ("6/4", Fraction(3, 2)), ("3/-4", Fraction(-3, 4)),
    ("0.5", Fraction(1, 2)), ("-1.25", Fraction(-5, 4)), (".5", Fraction(1, 2)), ("2.", Fraction(2)),
    ("0.1", Fraction(1, 10)), ("1e-3", Fraction(1, 1000)), ("2.5E2", Fraction(250)),
])
def test_parse_number_is_exact(text, value):
    assert parse_number(text) == value


@pytest.mark.parametrize("text, message", [
    ("x", "'x' is not a number"), ("", "'' is not a number"), ("1/0", "'1/0' divides by zero"),
    ("nan", "'nan' is not a number"), ("inf", "'inf' is not a number"), ("1,5", "is not a number"),
    ("1e999999999", "'1e999999999' is a number of about 1,000,000,000 digits exactly; the limit is 40"),
    ("1e40", "'1e40' is a number of about 41 digits exactly"), ("9" * (MAX_DIGITS + 1), f"the limit is {MAX_DIGITS}"),
    ("0x10", "is not a number"), ("1/2/3", "is not a number"), ("½", "is not a number"),
    ("١", "is not a number"), ("1\u200b", "is not a number"), ("１", "is not a number"),
])
def test_parse_number_refuses_with_a_reason(text, message):
    with pytest.raises(InputError) as err:
        parse_number(text)
    assert message in str(err.value)


def test_floats_are_read_as_the_decimal_typed():
    assert to_exact(0.1) == Fraction(1, 10)  # not 3602879701896397/36028797018963968
    assert to_exact(-2.5) == Fraction(-5, 2)
    assert to_exact(np.float64(0.3)) == Fraction(3, 10)
    assert to_exact(np.int64(-4)) == Fraction(-4)
    assert to_exact("0.25") == Fraction(1, 4)
    assert to_exact(Decimal("-0.125")) == Fraction(-1, 8)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.longdouble])
def test_numpy_floats_of_every_width_are_read_as_they_print(dtype):
    """Embeddings are often float32: 0.1 there is 0.100000001490116..., but it prints, and reads, as 0.1."""
    assert to_exact(dtype("0.1")) == Fraction(1, 10)
    assert to_exact(dtype(-2.5)) == Fraction(-5, 2)
    assert [to_exact(x) for x in np.array([0.25, 3], dtype=dtype)] == [Fraction(1, 4), Fraction(3)]
    with pytest.raises(InputError, match="is not a finite number"):
        to_exact(dtype("nan"))


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), Decimal("NaN"), True, None, object()])
def test_to_exact_refuses_non_numbers(bad):
    with pytest.raises(InputError):
        to_exact(bad)


@pytest.mark.parametrize("value, text", [
    (Fraction(7, 2), "7/2"), (Fraction(-1, 2), "-1/2"), (Fraction(4, 2), "2"), (Fraction(0), "0"), (-3, "-3"),
])
def test_format_number(value, text):
    assert format_number(value) == text


@given(st.fractions(max_denominator=10**6).filter(lambda f: abs(f.numerator) < 10**12))
def test_format_then_parse_round_trips(value):
    assert parse_number(format_number(value)) == value


@given(st.decimals(allow_nan=False, allow_infinity=False, places=6, min_value=-10**9, max_value=10**9))
def test_decimal_text_is_read_exactly(value):
    assert parse_number(str(value)) == Fraction(value)


@pytest.mark.parametrize("text, value", [
    ("1e39", Fraction(10**39)), ("0.1e40", Fraction(10**39)), ("5e-40", Fraction(1, 2 * 10**39)),
    ("-1e-39", Fraction(-1, 10**39)), ("0.5e-39", Fraction(1, 2 * 10**39)),
    # 5^57 has 40 digits and cancels most of 10^79: the value's denominator is 2^57·5^22, 33 digits.
    (f"{5**57}e-79", Fraction(5**57, 10**79)),
])
def test_the_digit_limit_decides_and_the_exponent_guard_never_refuses_what_fits(text, value):
    """The exact value's digits decide, whatever the spelling; the exponent guard is only for speed."""
    assert parse_number(text) == value


def test_a_float_near_the_limit_is_read_as_it_prints():
    assert to_exact(5e-40) == Fraction(1, 2 * 10**39) and to_exact(0.1e40) == Fraction(10**39)


@pytest.mark.parametrize("text", ["1e40", "1e-40", "10e39", "0.9e-39"])
def test_numbers_past_the_digit_limit_are_refused_by_it(text):
    with pytest.raises(InputError, match=f"digits exactly; the limit is {MAX_DIGITS}"):
        parse_number(text)


@pytest.mark.parametrize("text, value", [
    ("0" * 5000 + "1", Fraction(1)), ("1." + "0" * 5000, Fraction(1)), ("0.5" + "0" * 5000 + "e1", Fraction(5)),
    ("0" * 5000 + "/" + "0" * 5000 + "2", Fraction(0)), ("0e" + "9" * 9, Fraction(0)),
])
def test_digits_are_counted_in_the_exact_value_not_as_typed(text, value):
    assert parse_number(text) == value


@pytest.mark.parametrize("text, message", [
    ("1" + "0" * 5000, "is a number of about 5,001 digits exactly"),
    ("0." + "0" * 5000 + "1", "is a number of about 5,001 digits exactly"),
    ("1e" + "9" * 5000, "is out of range: a number of more than 10^4999 digits exactly"),
    ("1e-" + "9" * 9, "is a number of about 999,999,999 digits exactly"),
    ("7" * 5000 + "/3", "has 5,000 digits"),
    ("1/" + "7" * 5000, "has 5,000 digits"),
])
def test_absurd_numbers_are_refused_from_their_digits_before_any_arithmetic(text, message):
    """No int() of thousands of digits (Python refuses past 4,300), no 10**999999999."""
    with pytest.raises(InputError) as err:
        parse_number(text)
    assert message in str(err.value) and f"the limit is {MAX_DIGITS}" in str(err.value)
