"""Differential attention (DIFF Transformer, Ye et al. 2024): two heads' softmax maps A₁, A₂ and A₁ − λ·A₂.

Drawn as three panels: each head's full figure (its named softmax), then the difference grid. A difference entry
a_ij − λ·b_ij is exact when both weights are pinned and λ is a number; otherwise it is named from the two heads'
weights (`a31−1/2·b31`). Its sign, when λ is a number, is decided exactly or certified by interval arithmetic
(`numbers.rounding`), and both coloured (blue positive, vermillion negative: Okabe and Ito's colour-blind-safe pair)
and written in the cell (`(+)`, `(−)`).
"""

from __future__ import annotations

import math
from fractions import Fraction

from ..numbers.exact import InputError, format_number
from ..records import dataclass, replace
from ..words.figure_text import Cell, Wording, describe
from ..words.values import python_number, weight_expressions
from .composite import Composite
from .figure import ScoresFigure
from .single import one_head_figure

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from ..engine.attention import Attention, Weights
    from ..typing import FigureOptions, Vectors, View
    from .figure import Drawable

__all__ = ["differential_figure", "parse_lambda", "difference_entry", "DifferentialFigure", "PanelStep"]

_SIGN_TEXT = {1: " (+)", -1: " (−)", 0: ""}
_COMPARED = {1: ">0", -1: "<0", 0: "=0"}


def parse_lambda(value: object) -> Fraction | str:
    """λ: an exact number or a name (`λ`, `lambda_1`)."""
    from ..engine.softmax_forms import parse_sink  # the same grammar as a sink: a number or a name

    try:
        return parse_sink(value).value  # type: ignore[return-value]  # a Fraction or a name
    except InputError as err:
        raise InputError(err.what.replace("(0 is the quiet softmax) ", ""), "differential") from None


def differential_figure(q_heads: Sequence[Vectors], k_heads: Sequence[Vectors], v_heads: Sequence[Vectors] | None,
                        options: FigureOptions) -> DifferentialFigure:
    """Head 1's and head 2's full figures and their difference A₁ − λ·A₂, composed in a row."""
    lam = parse_lambda(options["differential"])
    for name in ("sink", "sigmoid", "softcap"):
        if options[name] is not None:
            raise InputError(f"differential attention subtracts two plain softmax maps; --{name} changes them: "
                             "give one or the other", name)
    if len(q_heads) != 2 or len(k_heads) not in (1, 2) or (v_heads is not None and len(v_heads) != len(k_heads)):
        raise InputError(f"differential attention takes two query heads (Q₁, Q₂) and one or two KV heads; got "
                         f"{len(q_heads)} and {len(k_heads)}", "differential")
    compact = options["frame"] != "doc"  # a slide's or column's cell names its entry d_ij
    heads = _heads(q_heads, k_heads, v_heads, options, "scores" if compact else "full")
    difference = _difference_figure(heads[0], heads[1], lam, options, compact)
    title = options["title"] or f"Differential attention: A₁ − {_lambda_text(lam)}·A₂"

    def steps() -> tuple[PanelStep, ...]:  # (worked out when a deck asks: a figure alone never says them)
        # a deck's heads are their score grids (the slide's sentences write their weights), its difference's cells
        # are named d_ij, as on a slide
        grids = heads if compact else _heads(q_heads, k_heads, v_heads, options, "scores")
        return _steps(grids, difference if compact else _difference_figure(grids[0], grids[1], lam, options, True),
                      lam)

    figure = DifferentialFigure([heads[0], heads[1], difference], steps, arrange="row", title=title,
                              id_prefix=options["id_prefix"], theme=options["theme"], embed_font=options["embed_font"],
                              frame=options["frame"])
    # (a deck's title: its letters in every font a deck is set in, Beamer's too)
    figure.deck_title = options["title"] or f"Differential attention with λ = {_lambda_text(lam)}"
    return figure


def _heads(q_heads: Sequence[Vectors], k_heads: Sequence[Vectors], v_heads: Sequence[Vectors] | None,
           options: FigureOptions, view: View) -> list[ScoresFigure]:
    """Head 1's and head 2's figures: in a doc each its full figure, its named softmax written out; in a slide or a
    column (and a deck) its score grid (a_ij, b_ij are their row softmaxes) beside the difference."""
    heads = []
    for h in range(2):
        k, v = k_heads[h % len(k_heads)], None if v_heads is None else v_heads[h % len(v_heads)]
        title = (f"{'ab'[h]}_ij: head {h + 1}'s softmax A{'₁₂'[h]}" if view == "full" else
                 f"head {h + 1}'s scores (softmax {'ab'[h]}_ij)")  # (two grids side by side fit a 4:3 slide)
        fig = one_head_figure(q_heads[h], k, v, view, replace_options(options, title=title, differential=None))
        if TYPE_CHECKING:  # the full view: a ScoresFigure
            assert isinstance(fig, ScoresFigure)
        if fig.attention.named_bias:
            raise InputError("differential attention certifies each entry's sign from the weights' values, but a T5 "
                             "bias without values is named (b[k]): give its values (t5=N,D,values=...)", "bias")
        heads.append(fig)
    return heads


@dataclass(frozen=True, slots=True)
class PanelStep:
    """One step of a figure's deck, a panel a slide: its heading, its sentences and the panel it draws."""

    heading: str
    paragraphs: tuple[str, ...]
    panel: Drawable


class DifferentialFigure(Composite):
    """Head 1's and head 2's figures and their difference, in one figure; its deck (`attnviz slides`) is a slide
    per panel, each saying what it shows (`panel_steps`)."""

    def __init__(self, panels: Sequence[Drawable], steps: Callable[[], tuple[PanelStep, ...]], **kwargs: Any) -> None:
        super().__init__(panels, **kwargs)
        self._steps = steps
        self.deck_title = self.title or ""

    def panel_steps(self) -> tuple[PanelStep, ...]:
        """Head 1's weights, head 2's, then the difference grid (its entries named d_ij, their signs certified)."""
        return self._steps()


def _steps(heads: list[ScoresFigure], difference: ScoresFigure, lam: Fraction | str) -> tuple[PanelStep, ...]:
    """A deck's steps of the figure: each head's weights, then the difference (its cells named d_ij, as a slide's)."""
    from ..words.differential_text import difference_paragraphs, head_paragraphs  # (a deck's words)

    out = [PanelStep(f"Head {h}'s weights {'ab'[h - 1]}_ij",
                     head_paragraphs(h, head.attention), head)
           for h, head in enumerate(heads, 1)]
    a, b = heads[0].attention, heads[1].attention
    entries = {}
    for i in range(a.shape[0]):
        first, second = _weights_by_key(a, i), _weights_by_key(b, i)
        entries.update({(i + 1, j + 1): difference_entry(i + 1, j + 1, first[j], second[j], lam) for j in first})
    return (*out, PanelStep(f"The difference d_ij = a_ij − {_lambda_text(lam)}·b_ij",
                            difference_paragraphs(lam, entries), difference))


def replace_options(options: FigureOptions, **changes: object) -> FigureOptions:
    from .options import figure_options  # (the options record's maker, as heads use it)

    return figure_options(options, **changes)  # type: ignore[arg-type]


def _lambda_text(lam: Fraction | str) -> str:
    return lam if isinstance(lam, str) else format_number(lam)


def _difference_figure(first: ScoresFigure, second: ScoresFigure, lam: Fraction | str,
                       options: FigureOptions, compact: bool) -> ScoresFigure:
    """The grid of a_ij − λ·b_ij over the two heads' figures (their masks must keep the same cells)."""
    a, b = first.attention, second.attention
    if a.kept != b.kept or a.shape != b.shape:
        raise InputError("the two heads' masks keep different cells; differential attention subtracts maps of "
                         "one shape and mask", "differential")
    places = None
    if options["weights"] != "named":
        from ..numbers.rounding import parse_weights  # start-up: only rounded weights need it

        places = parse_weights(options["weights"])
        if isinstance(lam, str):
            raise InputError(f"decimal differences need λ's value, but it is the name {lam!r}; give a number or keep "
                             "the weights named", "weights")
    compact = compact and places is None  # (rounded differences are drawn as numbers)
    title = f"d_ij = a_ij − {_lambda_text(lam)}·b_ij" if compact else f"A₁ − {_lambda_text(lam)}·A₂"
    words = describe(a, wording=Wording(view="scores", title=title))
    rows = [(_weights_by_key(a, i), _weights_by_key(b, i)) for i in range(a.shape[0])]
    cells = tuple(tuple(_cell(cell, rows[cell.q - 1], lam, compact, places) for cell in row) for row in words.cells)
    words = replace(words, subtitle=f"Differential attention: head 1's weights minus {_lambda_text(lam)} times "
                                    "head 2's.", badge="exact mask, named differences",
                    note=f"a_ij, b_ij: heads 1 and 2's weights; λ = {_lambda_text(lam)}"
                    + ("; (+) or >0 positive, (−) or <0 negative, as certified" if not isinstance(lam, str) else
                       "; the sign depends on λ"), q_line="", k_line="", more_vectors=(),
                    grid_caption=f"a_ij − {_lambda_text(lam)}·b_ij with {a.mask.name} mask",
                    cells=cells, show="differences")
    return ScoresFigure(a, first.highlight, words, theme=options["theme"], embed_font=options["embed_font"],
                        frame=options["frame"])


def _weights_by_key(attention: Attention, i: int) -> dict[int, tuple[Weights, int, str]]:
    """Row i's weights by 0-based key: (the row's Weights, the weight's place in it, its expression)."""
    weights = attention.weights(i)
    kept = [j for j, keep in enumerate(attention.kept[i] or ()) if keep]
    return {j: (weights, t, expression) for t, (j, expression) in enumerate(zip(kept, weight_expressions(weights)))}


def _cell(cell: Cell, row: tuple[dict[int, tuple[Weights, int, str]], ...], lam: Fraction | str,  # noqa: PLR0913  a cell's facts
          compact: bool, places: int | None) -> Cell:
    if cell.masked or cell.gap:
        return replace(cell, value="", weight="")
    (wa, ta, ea), (wb, tb, eb) = row[0][cell.k - 1], row[1][cell.k - 1]
    text, value, sign = difference_entry(cell.q, cell.k, (wa, ta, ea), (wb, tb, eb), lam)
    if places is not None and not isinstance(lam, str):  # --weights decimal=N: the difference rounded, marked ≈
        from ..numbers.rounding import rounded_difference  # (mpmath: the decimal extra)

        return replace(cell, text=rounded_difference(wa, ta, wb, tb, lam, places), value=_value(ea, eb, lam),
                       weight="", sign=sign)
    if compact and value is None:  # its sign as a comparison: `d21<0`
        return replace(cell, text=f"d{cell.q}{cell.k}{_COMPARED.get(sign, '') if sign is not None else ''}",
                       value=_value(ea, eb, lam), weight="", sign=sign)
    return replace(cell, text=text + _SIGN_TEXT.get(sign if sign is not None else 0, "") if value is None else text,
                   value=_value(ea, eb, lam), weight="", sign=sign)


def _value(a: str, b: str, lam: Fraction | str) -> str:
    """a − λ·b as an expression (`words.values`)."""
    return f"({a})-({lam})*({b})" if isinstance(lam, str) else f"({a})-{python_number(lam)}*({b})"


def _float_weight(weights: Weights, t: int) -> float:
    """Weight t of a plain softmax row in float64, its exponents shifted by the largest."""
    if weights.kind == "pinned":
        return float(weights.values[t])
    exponents = [float(x) if isinstance(x, Fraction) else float(x.a) + float(x.b) * math.sqrt(x.r)  # type: ignore[union-attr]
                 for x in weights.exponents]
    top = max(exponents)
    terms = [math.exp(x - top) for x in exponents]
    return terms[t] / math.fsum(terms)


def difference_entry(i: int, j: int, a: tuple[Weights, int, str], b: tuple[Weights, int, str],
                     lam: Fraction | str) -> tuple[str, Fraction | None, int | None]:
    """(text, exact value or None, sign or None) of a_ij − λ·b_ij."""
    (wa, ta, _), (wb, tb, _) = a, b
    exact_a = wa.values[ta] if wa.kind == "pinned" else None
    exact_b = wb.values[tb] if wb.kind == "pinned" else None
    if exact_a is not None and exact_b is not None and not isinstance(lam, str):
        value = exact_a - lam * exact_b
        return format_number(value), value, (value > 0) - (value < 0)
    name_a = format_number(exact_a) if exact_a is not None else f"a{i}{j}"
    name_b = format_number(exact_b) if exact_b is not None else f"b{i}{j}"
    text = f"{name_a}−{_lambda_text(lam)}·{name_b}"
    if isinstance(lam, str):
        return text, None, None
    return text, None, _certified_sign(wa, ta, wb, tb, lam)


#: A difference this far from 0 has its float64 sign: float64's error in a softmax weight of at most 1,024 terms
#: (exponents shifted by the row's largest) is under 10^-12, so past 10^-9 the sign cannot be wrong.
FLOAT_MARGIN = 1e-9


def _certified_sign(wa: Weights, ta: int, wb: Weights, tb: int, lam: Fraction) -> int | None:
    """The sign of a − λ·b: from float64 when it is far from 0 (`FLOAT_MARGIN`), else certified by interval
    arithmetic (None when the decimal extra, mpmath, is missing)."""
    estimate = _float_weight(wa, ta) - float(lam) * _float_weight(wb, tb)
    if abs(estimate) > FLOAT_MARGIN * max(1.0, abs(float(lam))):
        return 1 if estimate > 0 else -1
    try:
        from ..numbers.rounding import certified_sign  # (mpmath: the decimal extra)

        return certified_sign(wa, ta, wb, tb, lam)
    except InputError:
        return None
