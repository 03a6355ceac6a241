"""Lines broken to a width: the pieces a line may break between, and the greedy wrap that keeps every
character, measured in a style (typeset, in a frame that typesets notation: `math_text`)."""

from __future__ import annotations

from functools import lru_cache

from ..words.user_text import graphemes
from .items import STYLES, TextStyle, measure
from .math_text import math_runs, runs_width

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Sequence

__all__ = ["ANYWHERE", "wrap", "widths", "Pieces", "split_keep", "break_points", "math_width"]


def wrap(pieces: Iterable[str], role: str, max_width: float, indent: float = 0, finer: Sequence[str] = (),
         style: TextStyle | None = None, math: bool = False, script: float = 0) -> tuple[str, ...]:
    """Greedy line breaking that keeps every character: "".join(result) == "".join(pieces).

    A piece too wide for a line of its own is cut after each of its `finer` separators
    (a long softmax term after "+"; `ANYWHERE`, "": between any two letters, as a frame cuts a user's
    word longer than its line); a piece with none stays whole and the canvas grows.
    """
    s = STYLES[role] if style is None else style
    width = widths(s.size, s.family, s.bold, s.italic, math, script)
    lines: list[str] = []
    current, current_width = "", 0.0
    for piece in _finer(pieces, width, max_width - indent, finer):
        room = max_width - (indent if lines else 0)
        # Advance widths add up (no kerning), so the line's width is kept as a running sum.
        piece_width = width(piece)
        if current and current_width + width(piece.rstrip()) > room and _between(current, piece):
            lines.append(current)
            current, current_width = piece, piece_width
        else:
            current, current_width = current + piece, current_width + piece_width
    lines.append(current)
    return tuple(lines)


def _finer(pieces: Iterable[str], width: Callable[[str], float], room: float,
           separators: Sequence[str]) -> Iterator[str]:
    for piece in pieces:
        if not separators or width(piece.rstrip()) <= room:
            yield piece
            continue
        sep, rest = separators[0], separators[1:]
        yield from _letters(piece, width, room) if sep == ANYWHERE else _finer(
            _sum_terms(piece) if sep == "+" else split_keep(piece, sep), width, room, rest)


ANYWHERE = ""  # a `finer` separator: between any two letters (never inside one: `graphemes`)


def _letters(piece: str, width: Callable[[str], float], room: float) -> Iterator[str]:
    """`piece` cut into runs of letters (`graphemes`) each as wide as `room` at most (at least one letter each)."""
    current = ""
    for letter in graphemes(piece):
        if current and width(current + letter) > room:
            yield current
            current = ""
        current += letter
    if current:
        yield current


def _between(line: str, piece: str) -> bool:
    """Whether a line may end between `line` and `piece`: between two letters, not inside one (`graphemes`: a
    space and a combining mark after it are one letter)."""
    pair = line[-1] + piece[:1]
    return not piece or (pair.isascii() and pair != "\r\n") or graphemes(line + piece[0])[-1] == piece[0]


@lru_cache(maxsize=64)
def widths(size: float, family: str, bold: bool, italic: bool, math: bool, script: float) -> Callable[[str], float]:
    """`math_width` in one style, each text measured once: a line is wrapped piece by piece, each piece measured as it
    is and without its trailing space, and a figure wraps the same pieces again as it tries its frame's choices."""
    style = TextStyle(size, family, bold, italic)
    known: dict[str, float] = {}

    def width(text: str) -> float:
        found = known.get(text)
        if found is None:
            if len(known) >= 4096:  # a bounded memory, as the width caches below it
                known.clear()
            found = known[text] = math_width(text, style, math, script)
        return found
    return width


class Pieces(list[str]):
    """A line split where it may break, with the line itself (`source`: its user spans go with it)."""

    def __init__(self, pieces: Iterable[str], source: str) -> None:
        super().__init__(pieces)
        self.source = source


def split_keep(text: str, sep: str) -> Pieces:
    """Split after each separator, keeping it: "a; b; c" -> ["a; ", "b; ", "c"]."""
    parts = text.split(sep)
    return Pieces([p + sep for p in parts[:-1]] + [parts[-1]], text)


def _sum_terms(text: str) -> Pieces:
    """Split after each "+" that is not inside an exponent's parentheses: a sum's terms stay whole, `e^(1+b[3])`
    (a logit with a named term) with them.

    >>> list(_sum_terms("e^1/(e^(-2+b[1])+e^1)"))
    ['e^1/(e^(-2+b[1])+', 'e^1)']
    """
    pieces: list[str] = []
    depth, start = 0, 0
    for n, ch in enumerate(text):
        if ch == "(" and (depth or text[n - 1:n] == "^"):
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
        elif ch == "+" and depth == 0:
            pieces.append(text[start:n + 1])
            start = n + 1
    pieces.append(text[start:])
    return Pieces(pieces, text)


def break_points(text: str) -> Pieces:
    """Split after each space outside brackets: between the items of a line, never inside a vector, a list or a
    bracketed sum (`wrap`'s `finer` cuts an item too wide for a line of its own: a list after its commas).

    >>> list(break_points("scores [1, 1, 2]; Z_3=e^1+e^1+e^2"))
    ['scores ', '[1, 1, 2]; ', 'Z_3=e^1+e^1+e^2']
    """
    pieces: list[str] = []
    depth, start = 0, 0
    for n, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(depth - 1, 0)
        elif ch == " " and depth == 0:
            pieces.append(text[start:n + 1])
            start = n + 1
    return Pieces([*pieces, text[start:]] if text[start:] or not pieces else pieces, text)


def math_width(text: str, style: TextStyle, math: bool = False, script: float = 0) -> float:
    """Advance width of a generated `text` in `style`, typeset (`math_text`) when `math`, its scripts at
    `script` (0: `SCRIPT_SCALE` of the size)."""
    if not math:
        return measure(text, style)
    return _typeset_width(text, style.size, style.family, style.bold, style.italic, script)


@lru_cache(maxsize=8192)  # keyed by plain values: a style record hashes slowly
def _typeset_width(text: str, size: float, family: str, bold: bool, italic: bool, script: float) -> float:
    return runs_width(math_runs(text, ()), TextStyle(size, family, bold, italic), script)
