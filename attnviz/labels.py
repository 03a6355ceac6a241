"""User text (titles, token labels): checked once here, escaped once by the SVG backend.

Any character is shown verbatim except those XML 1.0 cannot carry at all (most C0
control characters, lone surrogates, U+FFFE/U+FFFF); those are refused with a clear
error rather than silently dropped, so what the figure shows is what was given.
"""

import re

from .exact import InputError

__all__ = ["MAX_LABEL", "MAX_TITLE", "check_text", "check_labels"]

MAX_LABEL = 100  # characters in one token label
MAX_TITLE = 300  # characters in a title or subtitle

# A pattern, compiled (by `re`, once) only when a figure has a title or labels to check.
_NOT_XML = ("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def check_text(value, where, limit=MAX_TITLE):
    """A title or label: a string XML can carry, within the limit; returned unchanged."""
    if not isinstance(value, str):
        raise InputError(f"expected text, got {type(value).__name__}", where)
    if len(value) > limit:
        raise InputError(f"{len(value)} characters; the limit is {limit}", where)
    if match := re.search(_NOT_XML, value):
        raise InputError(f"control character U+{ord(match[0]):04X} at position {match.start() + 1} cannot be "
                         "shown in SVG; remove it", where)
    return value


def check_labels(labels, count, where, noun="token"):
    """One label per token (`noun`: "query", "key"): a list of `count` strings."""
    if isinstance(labels, str) or not isinstance(labels, (list, tuple)):
        raise InputError(f"expected a list of {count} strings", where)
    if len(labels) != count:
        nouns = noun if count == 1 else {"query": "queries"}.get(noun, noun + "s")
        raise InputError(f"{len(labels)} label{'s' * (len(labels) != 1)} for {count} {nouns}; give one per {noun}",
                         where)
    return tuple(check_text(label, f"{where}: label {n}", MAX_LABEL) for n, label in enumerate(labels, 1))
