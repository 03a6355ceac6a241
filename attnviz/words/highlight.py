"""What a figure marks as "computed this step".

A target is text, one of:
  `I,J`        the cell of query I and key J (1-based)
  `row=I`      every cell of grid row I
  `mask`       every masked cell
  `softmax=I`  the softmax caption of row I
  `softmax`    every softmax caption
  `output=I`   the output of row I (a figure with value vectors)
  `output`     every output
or, from the API and spec files, an `(I, J)` pair.
"""

from __future__ import annotations

import re
from numbers import Integral

from ..numbers.exact import InputError, digits
from ..records import dataclass

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

    from ..engine.attention import Attention
    from ..typing import HighlightSpec

__all__ = ["Highlight", "NO_HIGHLIGHT", "parse_targets", "parse_one", "is_pair", "show_target", "numbered"]

# ASCII digits only (`(?a)`): fullwidth `３` is refused here as in vectors.
# Patterns, compiled (by `re`, once) only when a target is given as text.
_CELL = r"(?a)\s*(\d+)\s*,\s*(\d+)\s*"
_ROW = r"(?a)\s*(row|softmax|output)\s*=\s*(\d+)\s*"
TARGET_FORMS = "I,J, row=I, mask, softmax=I, softmax, output=I or output"


@dataclass(frozen=True)
class Highlight:
    """The resolved highlight: 1-based cells, softmax rows and output rows."""

    cells: frozenset[tuple[int, int]] = frozenset()
    softmax_rows: frozenset[int] = frozenset()
    outputs: frozenset[int] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.cells or self.softmax_rows or self.outputs)


NO_HIGHLIGHT = Highlight()


def parse_targets(targets: HighlightSpec | None, attention: Attention, base: int = 1) -> Highlight:
    """Resolve highlight targets against a computed attention pattern, checking bounds. Targets count
    from `base` (the figure's index base); the result is 1-based."""
    if targets is None:
        return NO_HIGHLIGHT
    listed: Iterable[object] = [targets] if isinstance(targets, str) or is_pair(targets) else targets
    marked: tuple[set[Any], set[Any], set[Any]] = (set(), set(), set())  # cells, softmax rows, outputs
    for target in listed:
        kind, i, j = _checked(target, attention, base)
        which, marks = _MARKS[kind](i, j, attention)
        marked[which].update(marks)
    return Highlight(*map(frozenset, marked))


def _checked(target: object, attention: Attention, base: int) -> tuple[str, int | None, int | None]:
    """(kind, I, J) of one target, I and J 1-based, once they are known to be in the grid."""
    (kind, i, j), (n_q, n_k), where = parse_one(target), attention.shape, f"highlight {show_target(target)}"
    if kind in ("output=", "output") and attention.values is None:
        raise InputError("the figure has no outputs: give value vectors (v)", where)
    if i is not None and not base <= i < n_q + base:
        raise InputError(f"{numbered('row', i)} is outside the grid (rows {base}..{n_q - 1 + base})", where)
    if j is not None and not base <= j < n_k + base:
        raise InputError(f"{numbered('column', j)} is outside the grid (columns {base}..{n_k - 1 + base})", where)
    return kind, (None if i is None else i + 1 - base), (None if j is None else j + 1 - base)


def _masked_cells(attention: Attention) -> Iterable[tuple[int, int]]:
    # (an elided figure computes only its shown rows: the others' cells are not drawn)
    return ((r + 1, c + 1) for r, kept in enumerate(attention.kept) if kept is not None
            for c in range(attention.shape[1]) if not kept[c])


#: What each kind of target marks, from its 1-based I and J: (0 cells, 1 softmax rows or 2 outputs, which).
_MARKS: dict[str, Callable[[Any, Any, Attention], tuple[int, Iterable[Any]]]] = {
    "cell": lambda i, j, attention: (0, [(i, j)]),
    "row": lambda i, j, attention: (0, ((i, c) for c in range(1, attention.shape[1] + 1))),
    "mask": lambda i, j, attention: (0, _masked_cells(attention)),
    "softmax=": lambda i, j, attention: (1, [i]),
    "softmax": lambda i, j, attention: (1, range(1, attention.shape[0] + 1)),
    "output=": lambda i, j, attention: (2, [i]),
    "output": lambda i, j, attention: (2, range(1, attention.shape[0] + 1)),
}


def named_positions(targets: HighlightSpec | None, base: int = 1) -> tuple[set[int], set[int]]:
    """(rows, columns), 1-based, that targets (counting from `base`) name explicitly: what an elided
    figure must show."""
    if targets is None:
        return set(), set()
    listed: Iterable[object] = [targets] if isinstance(targets, str) or is_pair(targets) else targets
    rows, columns = set[int](), set[int]()
    for target in listed:
        kind, i, j = parse_one(target)
        if i is not None:
            rows.add(i + 1 - base)
        if j is not None:
            columns.add(j + 1 - base)
    return rows, columns


def is_pair(target: object) -> bool:
    """(3, 3), also from numpy (`np.argmax(...) + 1` is an np.int64): any two integers, not bools."""
    return (isinstance(target, (tuple, list)) and len(target) == 2
            and all(isinstance(x, Integral) and not isinstance(x, bool) for x in target))


def parse_one(target: object) -> tuple[str, int | None, int | None]:
    """(kind, I, J) of one target, as typed (I and J counted from the figure's index base; None when not named)."""
    if isinstance(target, (tuple, list)):
        if is_pair(target):
            return "cell", int(target[0]), int(target[1])
        raise InputError("expected a pair of integers (row, column)", f"highlight {show_target(target)}")
    if not isinstance(target, str):
        raise InputError(f"expected {TARGET_FORMS}", f"highlight {show_target(target)}")
    if match := re.fullmatch(_CELL, target):
        return "cell", _read_index(match[1]), _read_index(match[2])
    if match := re.fullmatch(_ROW, target):
        return ("row" if match[1] == "row" else match[1] + "="), _read_index(match[2]), None
    if target.strip() in ("mask", "softmax", "output"):
        return target.strip(), None, None
    raise InputError(f"expected {TARGET_FORMS}", f"highlight {show_target(target)}")


def _read_index(text: str) -> int:
    """A typed index. One of more than 100 digits is outside every grid: it stands as 10^(digits-1), the same
    number of digits, so it is never read by int() (Python refuses thousands of digits)."""
    significant = text.lstrip("0")
    return int(significant or "0") if len(significant) <= 100 else 10 ** (len(significant) - 1)


def numbered(noun: str, n: int) -> str:
    """`row 70`, or `a row number of 5,000 digits` (no str() of a huge integer)."""
    size = digits(n)
    return f"{noun} {n}" if size <= 100 else f"a {noun} number of {size:,} digits"


def show_target(target: object) -> str:
    """The target as the user gave it, for an error message (at most 40 characters and an ellipsis)."""
    try:
        text = repr(target)
    except ValueError:  # a pair of integers too long to print
        return "(a pair of integers too long to show)"
    return text if len(text) <= 40 else text[:40] + "…"
