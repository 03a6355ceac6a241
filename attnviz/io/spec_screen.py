"""Spec text screened before a parser reads it, so no spec under the size limit costs more than a moment.

Python's TOML parser takes time and memory that grow with the square of a dotted key's parts (`a.a.a.…= 1`: 80 KB took
26 s and 6 GB), and gives up on integers past 4,300 digits only after reading them. attnviz's specs need neither: keys
have one or two parts, numbers a few digits, lists two or three levels. The screen finds strings and comments first
(they may hold anything), then measures what is left with linear scans. JSON is linear in its own parser; it gets hooks
instead: duplicate keys are refused (TOML refuses them too) and numbers are bounded the same way.
"""

from __future__ import annotations

import re
from decimal import Decimal
from itertools import accumulate

from ..numbers.exact import MAX_DIGITS, InputError

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from typing import Any

__all__ = ["MAX_KEY_PARTS", "MAX_NESTING", "MAX_NUMBER_TEXT", "MAX_KEY_LENGTH", "screen_toml", "json_hooks",
           "exact_decimal"]

MAX_KEY_PARTS = 8  # `a.b.c`: three parts; attnviz's own keys have one (`q`) or two (`figure.q`)
MAX_NESTING = 16  # brackets and braces open at once; a spec needs three ([[sections]] highlight = [[3, 3]])
MAX_NUMBER_TEXT = 1000  # characters of one bare number; Python refuses to read integers past 4,300 digits
MAX_KEY_LENGTH = 100  # characters of one key part; attnviz's longest key is 10

# Every string (all four TOML kinds) and comment, each matched to its end or to the end of the text, so a
# string left open never makes the scan start over (which would be quadratic).
_OPAQUE = re.compile(r'"""(?:[^"\\]|\\.|"(?!""))*+(?:"""|\Z)'
                     r"|'''(?:[^']|'(?!''))*+(?:'''|\Z)"
                     r'|"(?:[^"\\\n]|\\.)*+(?:"|$)'
                     r"|'[^'\n]*+(?:'|$)"
                     r"|#[^\n]*+", re.S | re.M)
_SEPARATORS = "\n=,{}[]"
# A segment (between separators) with more than MAX_KEY_PARTS - 1 dots; anchored at segment starts, so linear.
_DOTTED = re.compile(rf"(?:^|(?<=[\n=,{{}}\[\]]))(?:[^\n=,{{}}\[\].]*+\.){{{MAX_KEY_PARTS}}}", re.M)
_LONG_NUMBER = re.compile(rf"(?<![\w.+-])[+-]?[0-9][0-9_]{{{MAX_NUMBER_TEXT},}}+")
_LONG_KEY = re.compile(rf"(?<![\w-])[A-Za-z0-9_-]{{{MAX_KEY_LENGTH + 1},}}+(?=[ \t]*[=.])")


def _placeholder(match: re.Match[str]) -> str:
    """A string becomes one short bare word, a comment nothing; the newlines of either stay, for line numbers."""
    return ("" if match[0][0] == "#" else "s") + "\n" * match[0].count("\n")


def screen_toml(text: str, name: str) -> None:
    """Refuse TOML text that would make the parser slow or large; errors are located `name:line:col`."""
    code = _OPAQUE.sub(_placeholder, text)  # offsets in `code` differ from the text's; lines do not
    if match := _DOTTED.search(code):
        raise InputError(f"a dotted key of more than {MAX_KEY_PARTS} parts ({_preview(match[0])}); the limit is "
                         f"{MAX_KEY_PARTS}", _at(name, code, match.start()))
    if match := _LONG_NUMBER.search(code):
        raise InputError(f"a number of {len(match[0].lstrip('+-')):,} characters or more; numbers are limited to "
                         f"{MAX_DIGITS} digits", _at(name, code, match.start()))
    if match := _LONG_KEY.search(code):
        raise InputError(f"a key of {len(match[0]):,} characters; the limit is {MAX_KEY_LENGTH}",
                         _at(name, code, match.start()))
    brackets = re.sub(r"[^\[\]{}]+", "", code)
    if brackets and max(accumulate(1 if c in "[{" else -1 for c in brackets)) > MAX_NESTING:
        raise InputError(f"lists or tables nested more than {MAX_NESTING} deep; the limit is {MAX_NESTING}", name)


def exact_decimal(text: str) -> Decimal:
    """A TOML or JSON float as the Decimal typed, refusing exponents no Decimal can hold (`1e<5,000 digits>`)."""
    exponent = text.lower().partition("e")[2].lstrip("+-").lstrip("0")
    if len(exponent) > 9:
        raise InputError(f"{_preview(text)} is out of range: a number of more than 10^{len(exponent) - 1} digits "
                         f"exactly; the limit is {MAX_DIGITS}")
    return Decimal(text)


def _json_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_NUMBER_TEXT:
        raise InputError(f"a number of {len(text.lstrip('-')):,} digits; numbers are limited to {MAX_DIGITS} digits")
    return int(text)


def _json_object(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """A JSON object as a dict; a key given twice is refused (JSON parsers would keep either one silently)."""
    out: dict[str, object] = {}
    for key, value in pairs:
        if key in out:
            raise InputError(f"key {_preview(key)} is given twice in one object; give it once")
        out[key] = value
    return out


def json_hooks() -> dict[str, Any]:
    """Keyword arguments for json.loads: exact decimals, bounded numbers, no duplicate keys."""
    return {"parse_float": exact_decimal, "parse_int": _json_int, "object_pairs_hook": _json_object}


def _preview(text: str, limit: int = 40) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "…")


def _at(name: str, code: str, offset: int) -> str:
    return f"{name}:{code.count(chr(10), 0, offset) + 1}"
