"""The figure's words, in document order, all derived from the exact engine's results.

This is the anatomy as data: no positions, no colours. `layout` places it.
"""

from dataclasses import dataclass, field, replace

from . import notation
from .exact import format_number
from .highlight import NO_HIGHLIGHT

__all__ = ["DEFAULT_TITLE", "DEFAULT_SUBTITLE", "FigureText", "Cell", "SoftmaxRow", "describe", "at_step"]

DEFAULT_TITLE = "Attention honesty boundary"
DEFAULT_SUBTITLE = "Exact score and mask structure with named softmax."


@dataclass(frozen=True)
class Cell:
    q: int  # 1-based row
    k: int  # 1-based column
    text: str  # the exact score, or "masked"
    masked: bool
    computed: bool
    # Not yet computed, in a step-by-step series: drawn empty. Out of repr, which derives the ids:
    # figures without pending parts keep theirs.
    pending: bool = field(default=False, repr=False)


@dataclass(frozen=True)
class SoftmaxRow:
    q: int
    scores: str  # "row 2: scores [0,1]"
    weights: str  # "weights e^0/(e^0+e^1), e^1/(e^0+e^1)"
    computed: bool
    # Not yet computed, in a step-by-step series: drawn empty. Out of repr, which derives the ids:
    # figures without pending parts keep theirs.
    pending: bool = field(default=False, repr=False)


@dataclass(frozen=True)
class FigureText:
    title: str
    subtitle: str
    badge: str
    note: str
    q_line: str
    k_line: str
    grid_caption: str
    k_labels: tuple
    q_labels: tuple
    cells: tuple  # rows of Cell
    softmax_heading: str
    softmax_rows: tuple
    footer: str


def describe(attention, highlight=NO_HIGHLIGHT, title=None, subtitle=None, q_labels=None, k_labels=None):
    """Every text of the figure for one attention pattern."""
    n_q, n_k = attention.shape
    row_names = tuple(q_labels or (str(i) for i in range(1, n_q + 1)))
    # Vector lines keep the axis letter with a token, so Q and K lines stay apart: "Q(<s>)=(1,0)".
    q_names = q_labels and tuple(f"Q({label})" for label in q_labels)
    k_names = k_labels and tuple(f"K({label})" for label in k_labels)
    q_labels = tuple(q_labels or (f"Q{i}" for i in range(1, n_q + 1)))
    k_labels = tuple(k_labels or (f"K{j}" for j in range(1, n_k + 1)))
    mask = attention.mask
    kind = "integer" if attention.all_integer else "rational"
    cells = tuple(
        tuple(
            Cell(i + 1, j + 1,
                 format_number(attention.scores[i][j]) if attention.kept[i][j] else "masked",
                 masked=not attention.kept[i][j], computed=(i + 1, j + 1) in highlight.cells)
            for j in range(n_k))
        for i in range(n_q))
    softmax_rows = tuple(
        SoftmaxRow(i + 1, notation.scores_line(row_names[i], attention.kept_scores(i)),
                   notation.weights_line(attention.weights(i)), computed=(i + 1) in highlight.softmax_rows)
        for i in range(n_q))
    return FigureText(
        title=DEFAULT_TITLE if title is None else title,
        subtitle=DEFAULT_SUBTITLE if subtitle is None else subtitle,
        badge=f"exact scores, exact {mask.name} mask, named softmax",
        note=f"displayed Q,K {kind} vectors are the score source; {mask.name} mask keeps {mask.rule}",
        q_line=notation.vector_line("Q", attention.q, q_names),
        k_line=notation.vector_line("K", attention.k, k_names),
        grid_caption=f"score S_ij=Qi·Kj with {mask.name} mask",
        k_labels=k_labels,
        q_labels=q_labels,
        cells=cells,
        softmax_heading="row softmax over unmasked scores",
        softmax_rows=softmax_rows,
        footer="softmax is named: no decimal attention weights are pinned",
    )


def at_step(words, highlight=NO_HIGHLIGHT, pending_cells=frozenset(), pending_rows=frozenset()):
    """The same figure at one step of a series: `highlight` is what this step computed; cells
    (1-based (i, j)) and softmax rows in `pending_*` are not computed yet and are drawn empty.

    Pending parts keep their text, so every step of a series has the same geometry.
    """
    cells = tuple(tuple(replace(cell, computed=(cell.q, cell.k) in highlight.cells,
                                pending=(cell.q, cell.k) in pending_cells) for cell in row)
                  for row in words.cells)
    rows = tuple(replace(row, computed=row.q in highlight.softmax_rows, pending=row.q in pending_rows)
                 for row in words.softmax_rows)
    return replace(words, cells=cells, softmax_rows=rows)
