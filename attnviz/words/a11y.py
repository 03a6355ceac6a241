"""What the figure says to assistive technology, generated from the numbers.

These sentences go in attributes (`aria-description` on the root, `aria-label` on
each cell), never in text nodes: the visible text, <title> and <desc> stay the seed's.
"""

from __future__ import annotations

from .claims import exact_for

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from ..engine.attention import Attention
    from ..layout.mask_map import MapText
    from .figure_text import Cell
    from .highlight import Highlight

__all__ = ["figure_sentence", "map_sentence", "cell_label", "axis_name"]

_LIST_AT_MOST = 8  # beyond this many highlighted cells, say how many rather than which


def figure_sentence(attention: Attention, highlight: Highlight, shown: str = "scores", base: int = 1,
                    rounded: int | str | None = None) -> str:
    """E.g. "3 by 3 causal attention scores; 3 cells masked; cell (3,3) computed this step".
    `shown`: what the grid's cells show, "scores" or "logits" (the figure's `show`); `rounded`: the decimals the
    inputs were rounded to, said after the size ("exact for inputs rounded to 2 decimals").

    >>> from attnviz.engine.attention import attend
    >>> from attnviz.words.highlight import Highlight
    >>> figure_sentence(attend([[1], [2]], [[1], [1]]), Highlight(softmax_rows=frozenset({2})))
    '2 by 2 causal attention scores; 1 cell masked; softmax of row 2 computed this step'
    """
    n_q, n_k = attention.shape
    if any(row is None for row in attention.kept):  # an elided figure computed only its shown rows
        masked = n_q * n_k - sum(b - a for i in range(n_q) for a, b in attention.mask.runs(i))
    else:
        masked = sum(not keep for row in attention.kept for keep in row or ())
    parts = [f"{n_q} by {n_k} {attention.mask.name} attention {shown}",
             *([exact_for(rounded)] if rounded is not None else []),
             f"{_count(masked, 'cell')} masked" if masked else "no cells masked"]
    if attention.form is not None and shown != "differences":
        from .forms import form_words  # start-up: only a figure with a softmax form names it

        parts.append(f"weights: {form_words(attention.form).badge}")
    if any(b.term is not None for b in attention.biases):
        from .forms import named_bias_words  # start-up: only a figure with a bias given by name says it

        parts.append(named_bias_words(attention))
    cells = sorted(highlight.cells)
    if len(cells) > _LIST_AT_MOST:
        parts.append(f"{len(cells)} cells computed this step")
    elif cells:
        where = ", ".join(f"({i - 1 + base},{j - 1 + base})" for i, j in cells)
        parts.append(f"{'cell' if len(cells) == 1 else 'cells'} {where} computed this step")
    rows = sorted(highlight.softmax_rows)
    if rows:
        parts.append(f"softmax of {'row' if len(rows) == 1 else 'rows'} {', '.join(str(r - 1 + base) for r in rows)} "
                     "computed this step")
    outputs = sorted(highlight.outputs)
    if outputs:
        parts.append(f"output of {'row' if len(outputs) == 1 else 'rows'} "
                     f"{', '.join(str(r - 1 + base) for r in outputs)} computed this step")
    return "; ".join(parts)


def map_sentence(words: MapText) -> str:
    """E.g. "512 by 512 mask map of causal mask keeps j<=i; 131,328 of 262,144 cells kept; 2 rows with no kept key"."""
    n_q, n_k = words.shape
    kept = sum(b - a + 1 for row in words.runs for a, b in row)
    parts = [f"{n_q} by {n_k} mask map: {words.caption}", f"{kept:,} of {n_q * n_k:,} cells kept"]
    empty = sum(not row for row in words.runs)
    if empty:
        parts.append(f"{_count(empty, 'row')} with no kept key")
    computed = sum(b - a + 1 for row in words.computed for a, b in row)
    if computed:
        parts.append(f"{_count(computed, 'cell')} computed this step")
    if words.blocks is not None:  # `--blocks`: what was computed of FlexAttention's block mask
        parts.append(f"FlexAttention {words.blocks.summary()}, outlined over the map")
    return "; ".join(parts)


def cell_values(cell: Cell) -> tuple[tuple[str, str], ...]:
    """A cell's checkable values as attributes: `data-value` (what it shows) and `data-weight` (its weight), as
    expressions (`words.values`); none for a pending cell, whose value is not computed yet."""
    if getattr(cell, "pending", False):
        return ()
    return tuple((name, value) for name, value in (("data-value", cell.value), ("data-weight", cell.weight)) if value)


def cell_label(cell: Cell, q_label: str, k_label: str, shown: str = "score", base: int = 1) -> str:
    """E.g. "Q3 K3 score 2, computed this step" or "Q1 K2 masked"; token labels read "Q(the) K(cat) ...".
    `shown`: what a kept cell's value is, "score" or "logit" (the grid's `show`)."""
    if getattr(cell, "pending", False):  # a walkthrough step before this cell is computed
        q_name, k_name = axis_name("Q", cell.q - 1 + base, q_label), axis_name("K", cell.k - 1 + base, k_label)
        return f"{q_name} {k_name} not computed yet"
    what = "masked" if cell.masked else f"{shown} {cell.text}"
    label = f"{axis_name('Q', cell.q - 1 + base, q_label)} {axis_name('K', cell.k - 1 + base, k_label)} {what}"
    return label + (", computed this step" if cell.computed else "")


def axis_name(axis: str, index: int, label: str) -> str:
    """`Q3` for the default label, `Q(the)` for a token label, as the figure's vector lines write them."""
    return label if label == f"{axis}{index}" else f"{axis}({label})"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")
