"""Fewer softmax captions beside a framed grid: a frame's choice (`layout.framed`) before the grid itself is
elided. The grid keeps every row and value; the captions keep their first and last rows and those the
figure highlights, and the heading names the rows left out ("rows 5–6 not shown", as an elided grid's
caption does), whose captions the choice's words (said in the figure's <desc>) give whole.

>>> kept_captions(8, (), 4, 2)
(0, 1, 2, 3, 6, 7)
"""

from __future__ import annotations

from ..records import replace
from .figure_text import hidden_ranges

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Iterable

    from .figure_text import FigureText

__all__ = ["FEWER_SAID", "kept_captions", "with_fewer_captions"]

FEWER_SAID = "the softmax caption"  # how the choice begins, in `Layout.choices`


def kept_captions(n: int, named: Iterable[int], first: int, last: int) -> tuple[int, ...]:
    """Sorted 0-based positions of the captions kept of `n`: the `first` and `last` few and `named` (0-based);
    all of them when that leaves none out."""
    return tuple(sorted(set(range(min(first, n))) | set(range(max(0, n - last), n)) | set(named)))


def with_fewer_captions(words: FigureText, first: int, last: int) -> tuple[FigureText, str] | None:
    """`words` with the softmax captions (and output rows) of its `first` and `last` rows and its highlighted
    ones, the heading naming every row left out, and the choice's words (the captions it leaves out, whole);
    None when that would leave out none, or the grid is elided already."""
    rows = words.softmax_rows
    if words.elided or not rows:  # (an elided grid's captions are its shown rows': fewer would misname them)
        return None
    n = len(words.q_labels)
    # the rows the highlight names: a cell or row of the grid, a softmax row, an output
    named = [row.q - 1 for row in rows if row.computed] + [row.q - 1 for row in words.output_rows if row.computed]
    named += [cells[0].q - 1 for cells in words.cells if any(cell.computed for cell in cells)]
    kept_q = {p + 1 for p in kept_captions(n, named, first, last)} & {row.q for row in rows}
    if len(kept_q) == len(rows):
        return None
    left_out = [row for row in rows if row.q not in kept_q]
    heading = words.softmax_heading
    if heading.endswith(" not shown"):  # fewer again: the heading names every row left out, once
        heading = heading.rpartition("; ")[0]
    fewer = replace(words, softmax_heading=f"{heading}; {_rows(kept_q, n, words.base)} not shown",
                    softmax_rows=tuple(row for row in rows if row.q in kept_q),
                    output_rows=tuple(row for row in words.output_rows if row.q in kept_q))
    said = (f"{FEWER_SAID}{'s' if len(left_out) > 1 else ''} of "
            f"{_rows(set(range(1, n + 1)) - {row.q for row in left_out}, n, words.base)} left to this description: "
            + "; ".join(f"{row.scores}, {row.weights}" for row in left_out)
            + "".join(f"; {row.text}" for row in words.output_rows if row.q not in kept_q))
    return fewer, said


def _rows(kept_q: set[int], n: int, base: int) -> str:
    """"rows 5–6" (or "row 6"): the rows of `n` not in `kept_q` (1-based), in the figure's index base."""
    left_out = n - len(kept_q)
    return ", ".join(hidden_ranges(sorted(q - 1 for q in kept_q), n, "row" if left_out == 1 else "rows", base))
