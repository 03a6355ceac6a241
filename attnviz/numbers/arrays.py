"""Real-valued inputs, read honestly: numpy arrays and torch tensors as rows of numbers, floats as the
decimals they print as, and `decimals=N` rounding.

A float is read as the decimal Python prints for it (`repr`: 0.1 is 1/10); a numpy or torch float as
the shortest decimal of its own precision (a float32 0.1 is 0.1, not 0.10000000149011612). A float whose
decimal has more than `MAX_SIGNIFICANT` significant digits is refused, naming `decimals=N`
(`--decimals N`): the figure would otherwise show digits nobody chose. `decimals=N` rounds every input
to N decimals, exactly, half to even, from that decimal (so 0.125 is 0.12 at 2 decimals and 0.375 is 0.38),
and the figure says so. numpy and torch are never imported here: a value is recognised by its type's module.
"""

from __future__ import annotations

import math
from fractions import Fraction

from ..errors import InputError
from .exact import parse_number, to_exact

TYPE_CHECKING = False  # a type checker takes it as True
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

__all__ = ["FloatText", "is_tensor", "is_array", "MAX_SIGNIFICANT", "MAX_DECIMALS", "array_rows", "read_entry",
           "plain_scalar", "significant_digits", "check_decimals", "rounded_note", "largest_rounding_error",
           "came_as_decimals", "narrow_float", "NARROW_FLOATS"]

MAX_SIGNIFICANT = 6  # a float with more significant digits than this needs decimals=N
MAX_DECIMALS = 12
_FLOAT_FORMATS = {"float32": "f", "float16": "e"}  # struct formats to find a tensor float's shortest decimal


class FloatText(str):
    """A tensor float's shortest decimal, kept apart from a typed string (which is exact as typed)."""


def _module(value: object) -> str:
    return type(value).__module__.split(".")[0]


def is_tensor(value: object) -> bool:
    """A torch tensor (recognised without importing torch)."""
    return _module(value) == "torch" and hasattr(value, "detach")


def is_array(value: object) -> bool:
    """A numpy array."""
    return _module(value) == "numpy" and hasattr(value, "ndim") and hasattr(value, "dtype")


def array_rows(value: object, name: str) -> tuple[object, str | None]:
    """`value` as rows of numbers when it is a 2-D numpy array or torch tensor (else as it is), and a note
    when a tensor was moved to the CPU. A 1-D or 3-D array, a complex or boolean one, is one line."""
    moved = None
    if is_tensor(value):
        device = str(getattr(value, "device", "cpu"))
        if device == "meta":
            raise InputError("a tensor on the meta device has no values: give one on the CPU or a GPU", name)
        tensor = value.detach()  # type: ignore[attr-defined]
        if device != "cpu":
            tensor, moved = tensor.cpu(), f"{name} was on {device}; read on the CPU"
        dtype = str(tensor.dtype).removeprefix("torch.")
        _check_shape(tuple(tensor.shape), dtype, name)
        rows = tensor.tolist()
        if dtype in _FLOAT_FORMATS or dtype == "bfloat16":
            rows = [[_shortest(x, dtype) for x in row] for row in rows]
        return rows, moved
    if is_array(value):
        dtype = str(value.dtype)  # type: ignore[attr-defined]
        _check_shape(tuple(value.shape), dtype, name)  # type: ignore[attr-defined]
        kind = value.dtype.kind  # type: ignore[attr-defined]
        return ([list(row) for row in value] if kind == "f" else value.tolist()), None  # type: ignore[attr-defined]
    return value, None


def _check_shape(shape: tuple[int, ...], dtype: str, name: str) -> None:
    if "complex" in dtype:
        raise InputError(f"a {dtype} array: complex numbers are not scores; give real numbers", name)
    if dtype == "bool":
        raise InputError("a boolean array is a mask, not vectors; give it as mask=", name)
    if len(shape) != 2:
        what = "one vector" if len(shape) == 1 else f"{len(shape)}-D (a batch or several heads?)"
        raise InputError(f"an array of shape {shape} is {what}; give one vector a row, shape (tokens, dim): for "
                         "one head of a (batch, heads, tokens, dim) tensor, take x[0, h]", name)


def _shortest(x: float, dtype: str) -> str:
    """The shortest decimal that reads back as the same float of `dtype` (a float32's 0.1 is "0.1")."""
    import struct  # start-up: only a tensor's floats need it

    if not math.isfinite(x):
        return FloatText(repr(x))
    fmt = _FLOAT_FORMATS.get(dtype)
    same = _bfloat16 if fmt is None else (lambda y: struct.unpack(fmt, struct.pack(fmt, y))[0])
    for places in range(1, 18):
        text = f"{x:.{places}g}"
        if same(float(text)) == x:
            return FloatText(text)
    return FloatText(repr(x))


def _bfloat16(x: float) -> float:
    """x rounded to bfloat16 (float32's top 16 bits, to nearest even), as a float."""
    import struct  # start-up: only a tensor's floats need it

    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    value: float = struct.unpack("<f", struct.pack("<I", bits))[0]
    return value


def plain_scalar(value: object) -> object:
    """A 0-d tensor or array as a Python number or its decimal text (a score_mod's result, an entry)."""
    if is_tensor(value) or is_array(value):
        shape = tuple(getattr(value, "shape", ()))
        if shape:
            raise InputError(f"an array of shape {shape} where one number goes")
        dtype = str(getattr(value, "dtype", "")).removeprefix("torch.")
        if "complex" in dtype:
            raise InputError(f"{value!r:.40} is complex; a score is a real number")
        item = value.item()  # type: ignore[attr-defined]
        if isinstance(item, float) and (dtype in _FLOAT_FORMATS or dtype == "bfloat16"):
            return _shortest(item, dtype)
        return item
    return value


def significant_digits(text: str) -> int:
    """How many significant digits a decimal's text has: 0.00125 has 3, 1.5e-07 has 2.

    >>> significant_digits("0.1"), significant_digits("0.12345678"), significant_digits("1200.0")
    (1, 8, 2)
    """
    mantissa = text.lower().lstrip("+-").split("e")[0].replace(".", "")
    return max(1, len(mantissa.strip("0")))


def read_entry(value: object, decimals: int | None) -> Fraction:
    """One input entry exactly: a float as the decimal it prints as (refused past MAX_SIGNIFICANT digits
    unless `decimals` rounds it), anything else as `to_exact` reads it; rounded to `decimals` if given.

    >>> read_entry(0.1, None), read_entry(0.125, 2), read_entry(0.375, 2)
    (Fraction(1, 10), Fraction(3, 25), Fraction(19, 50))
    """
    value = plain_scalar(value)
    text = _float_text(value)
    if text is not None:
        if not math.isfinite(float(text)):
            raise InputError(f"{text} is not a finite number: a score needs finite inputs")
        exact = parse_number(text)
        if decimals is None and significant_digits(text) > MAX_SIGNIFICANT:
            raise InputError(f"the float {text} has {significant_digits(text)} significant digits (more than "
                             f"{MAX_SIGNIFICANT}): round every input with decimals=N (--decimals N), e.g. decimals=2")
    else:
        exact = to_exact(value)
    return exact if decimals is None else Fraction(round(exact * 10**decimals), 10**decimals)  # half to even, exactly


def _float_text(value: object) -> str | None:
    """The decimal text of a float (Python, numpy, or a tensor float already made text), else None."""
    if isinstance(value, FloatText):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    return str(value) if _module(value) == "numpy" and str(getattr(value, "dtype", "")).startswith("float") else None


def check_decimals(value: object) -> int | None:
    """`decimals` as given: None, or a whole number from 0 to MAX_DECIMALS."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_DECIMALS:
        raise InputError(f"expected a whole number of decimals from 0 to {MAX_DECIMALS}, got {value!r:.40}", "decimals")
    return value


def rounded_note(decimals: int) -> str:
    """What the figure says of rounded inputs."""
    return f"inputs rounded to {decimals} decimal{'s' * (decimals != 1)}; scores exact from the rounded values"


def largest_rounding_error(inputs: dict[str, object], decimals: int) -> tuple[Fraction, str]:
    """The largest |x - x rounded to `decimals`| over every entry of the named inputs (each as read: a float as the
    decimal it prints as), and where it is ("q row 2, entry 3"); (0, "") when nothing moved.

    >>> largest_rounding_error({"q": [[0.125, 1.71], [0.004, 1]]}, 2)
    (Fraction(1, 200), 'q row 1, entry 1')
    """
    largest, where = Fraction(0), ""
    for name, value in inputs.items():
        rows: Sequence[Sequence[object]] = array_rows(value, name)[0]  # type: ignore[assignment]  # read already
        for n, row in enumerate(rows, 1):
            for m, x in enumerate(row, 1):
                x = plain_scalar(x)
                text = _float_text(x)
                exact = parse_number(text) if text is not None else to_exact(x)
                error = abs(exact - read_entry(x, decimals))
                if error > largest:
                    largest, where = error, f"{name} row {n}, entry {m}"
    return largest, where


def came_as_decimals(inputs: Iterable[object]) -> bool:
    """True when the inputs came as decimals: an entry given as a float (Python, numpy, a tensor's) or as text such
    as "1.71" or "2e-3", and none as a fraction ("3/4", a Fraction). Such a figure writes its values that end as
    decimals; inputs that mix the two forms keep fractions.

    >>> came_as_decimals([[[1, "0.5"]], [[0.25]]]), came_as_decimals([[["0.5", "1/3"]]]), came_as_decimals([[[2]]])
    (True, False, False)
    """
    forms = set()
    for value in inputs:
        if is_tensor(value) or is_array(value):
            forms.add("decimal" if "float" in str(getattr(value, "dtype", "")) else "")
        elif isinstance(value, (list, tuple)):
            forms.update(_form(x) for row in value if isinstance(row, (list, tuple)) for x in row)
    return "decimal" in forms and "fraction" not in forms


def _form(x: object) -> str:
    """How one entry was written: "decimal", "fraction" or "" (a whole number, or anything else)."""
    if isinstance(x, str):
        return "fraction" if "/" in x else "decimal" if any(mark in x.lower() for mark in (".", "e")) else ""
    if isinstance(x, Fraction):
        return "fraction" if x.denominator != 1 else ""
    return "decimal" if _float_text(x) is not None else ""


#: Float dtypes narrower than a Python float: their values are read as their shortest decimals, not their binary values.
NARROW_FLOATS = ("float16", "bfloat16", "float32")


def narrow_float(inputs: Iterable[object]) -> str | None:
    """The first narrow float dtype ("float32", "float16", "bfloat16") among tensors and arrays given, else None: such
    inputs are read as the shortest decimals of their values, which a figure must say.

    >>> import numpy as np
    >>> narrow_float([np.ones((2, 2), dtype=np.float32), None]), narrow_float([[[0.5]], np.ones((1, 1))])
    ('float32', None)
    """
    for value in inputs:
        if is_tensor(value) or is_array(value):
            dtype = str(getattr(value, "dtype", "")).removeprefix("torch.")
            if dtype in NARROW_FLOATS:
                return dtype
    return None
