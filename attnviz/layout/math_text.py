"""Math that reads as math in the slide and column frames: attnviz's own notation as runs of plain text,
raised exponents and lowered subscripts, with minus signs as U+2212.

The figure's words write notation in a plain form (`e^(-1)`, `S_ij`, `Z_2`, `j<=i`), which the doc frame
draws as it is. A frame that typesets it splits each drawn line into runs once, here, for every backend
(SVG tspans, TikZ scripts, PowerPoint baseline runs) and for the layout's widths. A user's text (its spans,
`words.user_text`) is one run of kind "user": never read as notation, whatever it holds.

>>> math_runs("weights e^1/(e^0+e^1)", ())
(('weights e', ''), ('1', 'sup'), ('/(e', ''), ('0', 'sup'), ('+e', ''), ('1', 'sup'), (')', ''))
>>> math_runs("S_ij = e^(-1/2), x_1", ((17, 20),))
(('S', ''), ('ij', 'sub'), (' = e', ''), ('−1/2', 'sup'), (', ', ''), ('x_1', 'user'))
"""

from __future__ import annotations

from functools import cache, lru_cache

from .metrics import text_width

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    import re
    from collections.abc import Iterable, Sequence
    from typing import TypeAlias

    from .items import TextStyle

    Run: TypeAlias = tuple[str, str]  # (text, kind): kind "" plain, "user", "sup" or "sub"

__all__ = ["SCRIPT_SCALE", "SUP_RISE", "SUB_DROP", "math_runs", "plain_runs", "runs_width", "strip_runs",
           "digit_subscript"]

SCRIPT_SCALE = 0.7  # a script's size, of its line's (a frame may hold scripts at its floor: `Text.script`)
SUP_RISE, SUB_DROP = 0.36, 0.18  # how far a superscript's baseline rises and a subscript's drops, in em of the line

_RELATIONS = {"<=": "≤", ">=": "≥", "!=": "≠"}


@cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(a quick test, the constructs), compiled on first use: a figure that typesets nothing (the doc
    frame) compiles no regular expression at start-up.

    One alternative a construct; the minus sign is a minus only where a number (or a bracket) follows an
    operator, a bracket, a separator or the start, or between two one-character indices (j-i): the mask
    "sliding-window" keeps its hyphen."""
    import re  # start-up: only a typeset text needs regular expressions

    maybe = re.compile(r"[\^_<>!-]|[QKV][ij]")  # a segment without any of these is plain text: the common case
    notation = re.compile(
        r"\^\((?P<sup_group>[^()]*)\)"  # e^(-1), e^(1/2): the brackets only group the exponent
        r"|\^(?P<sup>[0-9]+)"  # e^12
        # a name's subscript: not inside a word (`top_k` of `my_top_k`), and a subscript of digits may have the next
        # factor written after it (`ℓ_1O_1`, `e^0V_3`: ℓ₁O₁, e⁰V₃)
        r"|(?<![A-Za-z_])(?<![A-Za-z][0-9])(?P<base>[A-Za-zℓ])_(?:\{(?P<sub_group>[^{}]*)\}"
        r"|(?P<sub>[0-9]{1,3}(?![a-z0-9_])|[a-z]{1,3}(?![A-Za-z0-9_])))"
        r"|(?<![A-Za-z0-9_])(?P<vector>[QKV])(?P<index>[ij])(?![A-Za-z0-9_])"  # Qi·Kj
        r"|(?P<relation><=|>=|!=)"
        r"|(?<![^\s(\[=,+;/:*·])-(?=[0-9√(])"
        r"|(?<=(?<![A-Za-z0-9])[a-z0-9])-(?=[a-z0-9](?![A-Za-z0-9]))"  # j-i, i-1: a difference of indices
    )
    return maybe, notation


def _minus(text: str) -> str:
    """Hyphens that are minus signs (in a script they all are: `-1/2`) as U+2212."""
    return text.replace("-", "−")


def _typeset(segment: str) -> list[Run]:
    """Runs of one generated segment (no user text in it)."""
    maybe, notation = _patterns()
    if not maybe.search(segment):
        return [(segment, "")] if segment else []
    runs: list[Run] = []
    plain: list[str] = []
    at = 0

    def flush() -> None:
        if plain:
            runs.append(("".join(plain), ""))
            plain.clear()

    for match in notation.finditer(segment):
        plain.append(segment[at:match.start()])
        at = match.end()
        if match["sup_group"] is not None or match["sup"] is not None:
            flush()
            runs.append((_minus(match["sup_group"] if match["sup_group"] is not None else match["sup"]), "sup"))
        elif match["base"] is not None:
            plain.append(match["base"])
            flush()
            runs.append((match["sub_group"] if match["sub_group"] is not None else match["sub"], "sub"))
        elif match["vector"] is not None:
            plain.append(match["vector"])
            flush()
            runs.append((match["index"], "sub"))
        elif match["relation"] is not None:
            plain.append(_RELATIONS[match["relation"]])
        else:
            plain.append("−")
    plain.append(segment[at:])
    flush()
    return [run for run in runs if run[0]]


@lru_cache(maxsize=8192)  # a figure measures the same pieces again as it wraps, and once more as it draws
def math_runs(line: str, user: tuple[tuple[int, int], ...], typeset: bool = True) -> tuple[Run, ...]:
    """`line` as runs: each `user` span ((start, stop) in `line`) one "user" run, as given; the generated
    parts between them typeset (`_typeset`), or each one plain run (not `typeset`)."""
    runs: list[Run] = []
    at = 0
    for start, stop in user:
        if start > at:
            runs += _typeset(line[at:start]) if typeset else [(line[at:start], "")]
        if stop > start:
            runs.append((line[start:stop], "user"))
        at = stop
    if at < len(line):
        runs += _typeset(line[at:]) if typeset else [(line[at:], "")]
    return tuple(runs)


def plain_runs(line: str, user: Sequence[tuple[int, int]]) -> tuple[Run, ...]:
    """`line` as runs without typesetting: its user spans "user", the rest plain."""
    return math_runs(line, tuple(user), False)


def strip_runs(runs: Sequence[Run]) -> tuple[Run, ...]:
    """`runs` without the line's trailing spaces (what a line's box measures)."""
    out = list(runs)
    while out and out[-1][1] != "user" and not out[-1][0].rstrip():
        out.pop()
    if out and out[-1][1] != "user":
        out[-1] = (out[-1][0].rstrip(), out[-1][1])
    return tuple(out)


def runs_width(runs: Iterable[Run], style: TextStyle, script: float = 0) -> float:
    """Advance width of `runs` in `style`: scripts at `script` (0: `SCRIPT_SCALE` of the size); a subscript of
    digits as its Unicode subscript digits at the line's size (`digit_subscript`), as the SVG draws it."""
    family, bold, italic = style.family, style.bold, style.italic
    script = script or style.size * SCRIPT_SCALE
    total = 0.0
    for text, kind in runs:
        digits = digit_subscript(text) if kind == "sub" else None
        total += text_width(digits, style.size, family, bold, italic) if digits else \
            text_width(text, script if kind in ("sup", "sub") else style.size, family, bold, italic)
    return total


_SUBSCRIPT_DIGITS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def digit_subscript(run: str) -> str | None:
    """A subscript of ASCII digits only as Unicode subscript digits (None otherwise): drawn as plain text, it
    keeps the line's spacing in every SVG consumer (LibreOffice opens a gap before a lowered `<tspan>`).

    >>> digit_subscript("12"), digit_subscript("ij")
    ('₁₂', None)
    """
    return run.translate(_SUBSCRIPT_DIGITS) if run.isascii() and run.isdigit() else None

