"""The rules for a user's text (titles, labels, a mask's name and rule), in the engine's stage so that a
pasted mask function's `name=`, `rule=` and docstring are checked where `Mask()` receives them;
`words.user_text` re-exports them for every other text.

Any character is allowed except those XML 1.0 cannot carry (most C0 control characters, lone
surrogates, U+FFFE/U+FFFF) and the explicit bidi controls, which could reorder the text around
the user's (see `words.user_text` for why they are refused rather than isolated).
"""

from __future__ import annotations

import re

from ..numbers.exact import InputError

__all__ = ["MAX_LABEL", "MAX_TITLE", "BIDI_CONTROLS", "check_text"]

MAX_LABEL = 100  # characters in one token label
MAX_TITLE = 300  # characters in a title or subtitle

#: The explicit bidi formatting characters, refused in user text, with their names for the error.
BIDI_CONTROLS = {"\u202a": "LEFT-TO-RIGHT EMBEDDING", "\u202b": "RIGHT-TO-LEFT EMBEDDING",
                 "\u202c": "POP DIRECTIONAL FORMATTING", "\u202d": "LEFT-TO-RIGHT OVERRIDE",
                 "\u202e": "RIGHT-TO-LEFT OVERRIDE", "\u2066": "LEFT-TO-RIGHT ISOLATE",
                 "\u2067": "RIGHT-TO-LEFT ISOLATE", "\u2068": "FIRST STRONG ISOLATE",
                 "\u2069": "POP DIRECTIONAL ISOLATE"}

# A pattern, compiled (by `re`, once) only when a figure has a title or labels to check.
_NOT_XML = ("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def check_text(value: object, where: str, limit: int = MAX_TITLE) -> str:
    """A title or label: a string XML can carry, within the limit; returned unchanged."""
    if not isinstance(value, str):
        raise InputError(f"expected text, got {type(value).__name__}", where)
    if len(value) > limit:
        raise InputError(f"{len(value)} characters; the limit is {limit}", where)
    if match := re.search(_NOT_XML, value):
        raise InputError(f"control character U+{ord(match[0]):04X} at position {match.start() + 1} cannot be "
                         "shown in SVG; remove it", where)
    if found := [ch for ch in BIDI_CONTROLS if ch in value]:
        at = min(value.index(ch) for ch in found)
        raise InputError(f"bidi control U+{ord(value[at]):04X} ({BIDI_CONTROLS[value[at]]}) at position {at + 1} "
                         "could reorder the text around it; remove it (right-to-left text needs none: attnviz "
                         "isolates each label itself)", where)
    return value
