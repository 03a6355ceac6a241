"""Where a rule caption may break: between its terms, never inside a parenthesised or braced group."""

from __future__ import annotations

from .figure import Pieces

__all__ = ["split_terms"]

_OPEN, _CLOSE = "([{", ")]}"


def split_terms(text: str) -> Pieces:
    """`text` split after each space outside brackets: "a or (b or c)" -> ["a ", "or ", "(b or c)"].
    "".join(result) == text; a group too wide for a line is broken at its spaces by `wrap`'s `finer`.

    >>> list(split_terms("j<=i or (i in {1, 2} or j in {1})"))
    ['j<=i ', 'or ', '(i in {1, 2} or j in {1})']
    """
    pieces: list[str] = []
    depth, start = 0, 0
    for n, ch in enumerate(text):
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth = max(depth - 1, 0)
        elif ch == " " and depth == 0:
            pieces.append(text[start:n + 1])
            start = n + 1
    pieces.append(text[start:])
    return Pieces(pieces, text)
