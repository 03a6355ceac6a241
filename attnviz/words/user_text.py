"""User text (titles, token labels): checked once here, escaped once by the SVG backend.

Any character is shown verbatim except those XML 1.0 cannot carry at all (most C0 control characters, lone surrogates,
U+FFFE/U+FFFF); those are refused with a clear error rather than silently dropped, so what the figure shows is what was
given.

The checks themselves (`check_text`, the limits, `BIDI_CONTROLS`) are `engine.text_check`'s, re-exported here: the
engine checks a pasted mask function's name, rule and docstring with them.

Right-to-left text: a label is isolated (`isolate`: FSI ... PDI) wherever it sits inside a longer line, so that it
cannot pull the numbers and punctuation after it into its own direction (`Q(שלום)=(5,6)`, and a sentence naming two
Hebrew labels, keep their order). The explicit bidi controls (embeddings, overrides, isolates: U+202A-U+202E,
U+2066-U+2069) are refused in every user text instead of isolated: an override inside a label is harmless only while
every isolate around it is closed, and a label's own PDI (U+2069) would close attnviz's isolate early, letting an
override that follows reverse the rest of the line. Labels need none of them: the isolation that keeps them in place is
attnviz's, and right-to-left text shows right without them.
"""

from __future__ import annotations

from ..engine.runs import union_runs
from ..engine.text_check import BIDI_CONTROLS, MAX_LABEL, MAX_TITLE, check_text
from ..numbers.exact import InputError

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["MAX_LABEL", "MAX_TITLE", "BIDI_CONTROLS", "check_text", "check_labels", "isolate", "Line", "user_text",
           "concat", "joined", "user_spans", "graphemes"]

FSI, PDI = "\u2068", "\u2069"
_RIGHT_TO_LEFT = ("R", "AL", "AN")  # Hebrew, Arabic (and Syriac, Thaana, ...) letters; Arabic-Indic digits


def isolate(text: str) -> str:
    """`text` as a bidi isolate (FSI ... PDI) if it holds right-to-left characters, to be placed inside a longer
    line; other text unchanged, so figures of left-to-right labels keep their bytes.

    >>> isolate("שלום"), isolate("cat")
    ('\u2068שלום\u2069', 'cat')
    """
    import unicodedata  # its tables load on first use: only labels need them

    return FSI + text + PDI if any(unicodedata.bidirectional(ch) in _RIGHT_TO_LEFT for ch in text) else text


def graphemes(text: str) -> list[str]:
    """`text` as the letters a reader sees, each kept whole by a cut (grapheme clusters, UAX #29, the `regex`
    module's `\\X`): a skin-toned or joined emoji, a flag, a letter and its marks, a Hangul syllable's jamo.

    >>> graphemes("e\u0301👍🏽🇫🇷का")
    ['e\u0301', '👍🏽', '🇫🇷', 'का']
    """
    import regex  # type: ignore[import-untyped]  # (no type hints) loaded on first use: only a cut needs it

    return regex.findall(r"\X", text)  # type: ignore[no-any-return]


def check_labels(labels: object, count: int, where: str, noun: str = "token") -> tuple[str, ...]:
    """One label per token (`noun`: "query", "key"): a list of `count` strings."""
    if isinstance(labels, str) or not isinstance(labels, (list, tuple)):
        raise InputError(f"expected a list of {count} strings", where)
    if len(labels) != count:
        nouns = noun if count == 1 else {"query": "queries"}.get(noun, noun + "s")
        raise InputError(f"{len(labels)} label{'s' * (len(labels) != 1)} for {count} {nouns}; give one per {noun}",
                         where)
    return tuple(check_text(label, f"{where}: label {n}", MAX_LABEL) for n, label in enumerate(labels, 1))


# --- Typed text --------------------------------------------------------------------------------
# A figure's line is generated notation (numbers, exponents, S_ij), generated prose, and sometimes a
# user's text (a token label inside "Q(<label>)=(1,0)"). The user's part keeps its type, as spans,
# from here to the backends: each backend escapes those spans unconditionally and typesets as
# notation only what attnviz wrote (graphviz's rule: quote by type, never guess from content).

Span = tuple[int, int]


class Line(str):
    """A line of generated text with a user's text inside it: `user` holds the (start, stop) spans,
    in characters, of what the user gave. Equal to, and written like, the plain string."""

    user: tuple[Span, ...]

    def __new__(cls, text: str, user: tuple[Span, ...] = ()) -> Line:
        line = super().__new__(cls, text)
        line.user = user
        return line


def user_text(text: str) -> str:
    """`text` marked as the user's, whole (a label, a title, a paragraph); "" stays ""."""
    return Line(text, ((0, len(text)),)) if text else text


def user_spans(text: str) -> tuple[Span, ...]:
    """The spans of `text` that are a user's (none for generated text)."""
    return getattr(text, "user", ())


def concat(*parts: str) -> str:
    """The parts joined, keeping the user's spans: concat("Q(", user_text("cat"), ")") has "cat" typed."""
    spans: list[Span] = []
    at = 0
    for part in parts:
        spans.extend((at + a, at + b) for a, b in user_spans(part))
        at += len(part)
    text = "".join(parts)
    return Line(text, union_runs(tuple(spans), ())) if spans else text  # the spans sorted, overlaps merged


def joined(separator: str, parts: Iterable[str]) -> str:
    """`separator.join(parts)`, keeping the user's spans."""
    items = list(parts)
    if not any(user_spans(part) for part in items):
        return separator.join(items)
    out: list[str] = []
    for n, part in enumerate(items):
        out += [separator, part] if n else [part]
    return concat(*out)

