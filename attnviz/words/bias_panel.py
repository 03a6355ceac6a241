"""The bias panel beside a figure (`show="bias"`, `Figure.bias_panel()`): the exact B_ij of every kept cell on the
figure's labels; ALiBi's as its distances j-i times the slope, T5's as each cell's relative-position bucket k (the
bias then b[k], a number or a name); a bias given by name is written with it (`1/2+b[3]`)."""

from __future__ import annotations

from fractions import Fraction

from . import notation
from .values import python_logit
from ..records import replace

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable

    from ..engine.attention import Attention
    from ..engine.softmax_forms import Logit
    from ..typing import Exact
    from .figure_text import Cell, FigureText

__all__ = ["describe_bias"]


def describe_bias(attention: Attention, words: FigureText) -> FigureText:
    """The words of the bias panel beside a figure (`show="bias"`): the exact B_ij of every kept cell,
    summed over the figure's biases, on the same labels; masked cells stay masked."""
    formula = "".join(b.text for b in attention.biases).removeprefix("+")
    slope = attention.biases[0].slope if len(attention.biases) == 1 else None
    if slope is not None:  # ALiBi as the paper draws it: the distances j-i, times the slope m stated once
        return _alibi_panel(attention, words, slope)
    buckets = attention.biases[0].buckets if len(attention.biases) == 1 else None
    if buckets is not None:  # T5: each cell's bucket, an exact integer; the bias is the head's b[bucket]
        return _bucket_panel(attention, words, buckets)
    cells = tuple(tuple(cell if cell.gap else _shown_cell(cell, _bias_at(attention, cell.q - 1, cell.k - 1))
                        for cell in row) for row in words.cells)
    given = formula == "B_ij"  # an explicit matrix: its entries are the definition
    return replace(words, title="Bias B_ij",
                   subtitle="the given bias matrix, added to every logit" if given else
                   f"B_ij={formula}, added to every logit",
                   badge="exact bias", note="", q_line="", k_line="", more_vectors=(),
                   grid_caption=f"bias {'B_ij' if given else f'B_ij={formula}'} with {attention.mask.name} mask",
                   cells=cells, softmax_rows=(), output_rows=(), view="scores", show="bias")


def _bias_at(attention: Attention, i: int, j: int) -> Logit:
    """B_ij summed over the biases (0-based), with the names of those given by name: `1/2+b[3]`."""
    total = sum((b.value(i, j) for b in attention.biases), Fraction(0))
    names = [b.term(i, j) for b in attention.biases if b.term is not None]
    if not names:
        return total
    from ..engine.softmax_forms import Named  # start-up: only a bias given by name needs it

    return Named(total, "+".join(names))


def _shown_cell(cell: Cell, value: Logit) -> Cell:
    """A bias panel's cell showing `value` (a bias, a bucket, a distance): its text and its `data-value` say it, it
    has no weight, and it is not this step's."""
    if cell.masked:
        return replace(cell, text="masked", value="", weight="", computed=False)
    return replace(cell, text=notation.logit_text(value), value=python_logit(value), weight="", computed=False)


def _bucket_panel(attention: Attention, words: FigureText, buckets: Callable[[int, int], int]) -> FigureText:
    """T5's bias panel: each kept cell shows its relative-position bucket k, so B_ij = b[k] reads off the grid
    (`engine.t5_buckets`)."""
    cells = tuple(tuple(cell if cell.gap else _shown_cell(cell, Fraction(buckets(cell.q - 1, cell.k - 1)))
                        for cell in row) for row in words.cells)
    return replace(words, title="T5 relative-position buckets",
                   subtitle=f"B_ij = b[k], k the bucket of j-i: {attention.biases[0].bucket_words}",
                   badge="exact buckets", note="", q_line="", k_line="", more_vectors=(),
                   grid_caption=f"bucket k of j-i, with {attention.mask.name} mask", cells=cells,
                   softmax_rows=(), output_rows=(), view="scores", show="bias")


def _alibi_panel(attention: Attention, words: FigureText, slope: Exact) -> FigureText:
    """ALiBi's bias panel: each kept cell shows the distance j-i; the subtitle and caption say the slope m,
    so B_ij = m·(j-i) reads off the grid exactly (Press et al., figure 3)."""
    m = notation.format_exact(slope)
    cells = tuple(tuple(cell if cell.gap else _shown_cell(cell, Fraction(cell.k - cell.q)) for cell in row)
                  for row in words.cells)
    return replace(words, title="ALiBi bias m·(j-i)", subtitle=f"m = {m}: B_ij = m·(j-i), added to every logit",
                   badge="exact bias", note="", q_line="", k_line="", more_vectors=(),
                   grid_caption=f"distance j-i, times m = {m}, with {attention.mask.name} mask", cells=cells,
                   softmax_rows=(), output_rows=(), view="scores", show="bias")
