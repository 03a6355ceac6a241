"""The figure's words, in document order, all derived from the exact engine's results.

This is the anatomy as data: no positions, no colours. `layout` places it.
"""

from __future__ import annotations

import functools

from . import notation
from .forms import (DEFAULT_SUBTITLE, ROUNDED_SUBTITLE, capped_formula, form_subtitle, form_words, named_bias_words,
                    softmax_heading, with_named_bias)
from .values import python_logit, row_weights
from .highlight import NO_HIGHLIGHT
from .user_text import concat, isolate, joined, user_text
from .claims import decimal_kinds, footer_text, mask_claim, part_kind, rounded_subtitle, scores_claim
from ..numbers.exact import DecimalForm
from ..records import dataclass, field, replace

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable, Sequence
    from fractions import Fraction
    from typing import Any

    from ..engine.attention import Attention, Weights
    from ..engine.softmax_forms import Logit
    from .highlight import Highlight

__all__ = ["DEFAULT_TITLE", "DEFAULT_SUBTITLE", "ROUNDED_SUBTITLE", "SHOW", "VIEWS", "FigureText", "Cell", "SoftmaxRow",
           "OutputRow", "Wording", "describe", "at_step", "with_normalizers", "hidden_ranges"]

DEFAULT_TITLE = "Attention honesty boundary"
SCORES_SUBTITLE = "Exact scores and mask structure."
#: What the grid's kept cells show: the raw scores S_ij, or the softmax's logits L_ij (scaled, biased).
SHOW = ("scores", "logits", "bias")  # "bias": the scores, with the bias matrix as a panel of its own
#: What a figure draws: everything, the score table alone, or the mask map (`maskmap`).
VIEWS = ("full", "scores", "mask", "heads")  # "heads": the heads schematic (figures.heads_schematic)


@dataclass(frozen=True)
class Cell:
    """One cell of the grid: its exact value (or "masked"), and whether it is highlighted or not yet computed."""

    q: int  # 1-based row
    k: int  # 1-based column
    text: str  # the exact score, or "masked"
    masked: bool
    computed: bool
    pending: bool = field(default=False, repr=False)  # not yet computed (a step-by-step series): drawn empty
    gap: bool = field(default=False, repr=False)  # an elided figure's ⋮, ⋯ or ⋱ for rows and keys not shown
    value: str = field(default="", repr=False)  # what the cell shows, as an expression (`words.values`): data-value
    weight: str = field(default="", repr=False)  # its weight as an expression: data-weight ("" when not written)
    sign: int | None = field(default=None, repr=False)  # a differential entry's certified sign (1, -1, 0)


@dataclass(frozen=True)
class SoftmaxRow:
    """One row's softmax caption: its scores (or logits) and its weights."""

    q: int
    scores: str  # "row 2: scores [0,1]"
    weights: str  # "weights e^0/(e^0+e^1), e^1/(e^0+e^1)"
    computed: bool
    pending: bool = field(default=False, repr=False)  # not yet computed (a step-by-step series): drawn empty


@dataclass(frozen=True)
class OutputRow:
    """One row's output, O_i as the weighted sum of the value vectors."""

    q: int
    text: str  # "O3 = w31·V1 + w32·V2 + w33·V3 = (2/3,1)"
    computed: bool = False
    pending: bool = field(default=False, repr=False)  # not yet computed (a step-by-step series): drawn empty
    value: str | None = None  # the value the text ends with, "(2/3,1)"; None while the output stays named
    approximate: bool = False  # the value is rounded (written after "≈")


@dataclass(frozen=True)
class FigureText:
    """Every text of a full figure, in document order (what `describe` gives and `layout` places)."""

    title: str
    subtitle: str
    badge: str
    note: str
    q_line: str
    k_line: str
    grid_caption: str
    k_labels: tuple[str, ...]
    q_labels: tuple[str, ...]
    cells: tuple[tuple[Cell, ...], ...]  # rows of Cell
    softmax_heading: str
    softmax_rows: tuple[SoftmaxRow, ...]
    footer: str
    # Optional parts, out of repr() (the captions say them; a figure's id digests every field: figures.identity)
    more_vectors: tuple[str, ...] = field(default=(), repr=False)  # after the K line: "V1=(1,0); ...", "B1=(0,-1); ..."
    outputs_heading: str = field(default="", repr=False)
    output_rows: tuple[OutputRow, ...] = field(default=(), repr=False)  # of OutputRow, when value vectors are given
    show: str = field(default="scores", repr=False)  # what the grid's kept cells show (`SHOW`)
    softmax: str = field(default="expanded", repr=False)  # how named weights are written (`notation.SOFTMAX_FORMS`)
    view: str = field(default="full", repr=False)  # "full", or "scores": vectors and grid, no captions
    elided: str = field(default="", repr=False)  # what an elided figure leaves out: "rows 5–60 and keys 5–60 not shown"
    base: int = field(default=1, repr=False)  # the index base of labels and captions (0 or 1)


@dataclass(frozen=True, slots=True)
class Wording:
    """How a figure's words are written. `q_labels`, `k_labels`: the tokens (None: Q1.., K1..); `softmax`: how named
    weights are written (`notation.SOFTMAX_FORMS`); `places`: decimal places for rounded weights (None: named, exact);
    `show`: what the grid's cells show (`SHOW`); `view`: `VIEWS`; `shown`: (rows, columns), sorted 0-based positions,
    for an elided figure: only these are drawn, with ⋮, ⋯ and ⋱ for the rest, and long caption lists keep their first
    and last terms; `base`: the index base of every label, caption and rule (0 or 1; cells' data stay 1-based);
    `rounded`: the decimals the inputs were rounded to, or the float dtype ("float32") whose values were read as their
    shortest decimals (None: taken as given), said wherever exactness is."""

    title: str | None = None
    subtitle: str | None = None
    q_labels: Sequence[str] | None = None
    k_labels: Sequence[str] | None = None
    softmax: str = "expanded"
    places: int | None = None
    show: str = "scores"
    view: str = "full"
    shown: tuple[Sequence[int], Sequence[int]] | None = None
    base: int = 1
    rounded: int | str | None = None  # the inputs were rounded to so many decimals, or read at a float dtype's
    # precision ("float32": its values' shortest decimals): exact means exact for them
    decimal_inputs: bool = False  # the inputs came as decimals (or were rounded to them): write values that end so


class _Facts:
    """What the figure's sentences are made from, worked out once: its results, highlight and `Wording`, the
    rows and keys it shows (`rows`, `columns`; with gaps: `display_rows`, `display_columns`), the matrix its
    cells show, the names of its rows and vectors and the labels of its axes."""

    def __init__(self, attention: Attention, highlight: Highlight, wording: Wording) -> None:
        self.attention, self.highlight, self.w, self.base = attention, highlight, wording, wording.base
        n_q, n_k = self.shape = attention.shape
        self.show = "logits" if wording.show == "logits" and attention.logits is not None else "scores"
        self.matrix = attention.logits if self.show == "logits" and attention.logits is not None else attention.scores
        self.rows, self.columns = wording.shown if wording.shown is not None else (range(n_q), range(n_k))
        # An axis short enough to draw whole leaves nothing out: then the captions are whole too.
        self.elided = len(self.rows) < n_q or len(self.columns) < n_k
        self.display_rows, self.display_columns = with_gaps(self.rows), with_gaps(self.columns)
        self.formula = capped_formula(notation.logit_formula(attention.scale, attention.biases), attention.form)
        self.form = form_words(attention.form)
        hidden = (hidden_ranges(self.rows, n_q, "rows", self.base) + hidden_ranges(self.columns, n_k, "keys", self.base)
                  if self.elided else [])
        self.left_out = f"{notation.and_list(hidden)} not shown" if hidden else ""
        self.row_names, self.q_names, self.k_names, self.v_names, self.o_names = _names(wording, n_q, n_k)
        self.decimal = decimal_kinds(attention, self.rows) if wording.decimal_inputs else {}
        with DecimalForm(self.decimal.get("outputs", False)):
            self.output_rows = tuple(_output_row(attention, i, wording.places, computed=(i + 1) in highlight.outputs,
                                                 elided=self.elided, base=self.base,
                                                 rounded=wording.rounded if isinstance(wording.rounded, int) else None,
                                                 names=(self.o_names[i], self.v_names))
                                     for i in self.rows) if attention.values is not None else ()


def _names(wording: Wording, n_q: int, n_k: int) -> tuple[tuple[str, ...], ...]:
    """The rows' names in captions ("3", "sat", "10 (sat)") and the names of the queries, keys, values and outputs
    in vector lines: Q(sat), K(the), V(the), O(sat) with token labels (the value of a key and the output of a query
    are named as they are), else Q3, K1, V1, O3."""
    base, q_labels, k_labels = wording.base, wording.q_labels, wording.k_labels
    # Inside longer lines, right-to-left labels are isolated, so they cannot reorder what follows them.
    # The user's labels keep their type (`user_text`) inside every line they are written into.
    q_inline, k_inline = (tuple(user_text(isolate(label)) for label in labels) if labels else ()
                          for labels in (q_labels, k_labels))
    row_names = q_inline or tuple(str(i + base) for i in range(n_q))
    # Labels that repeat ("." twice) would name two rows alike: add the position, "row 10 (sat)", "Q10(sat)".
    if q_labels and len(set(q_labels)) < len(q_labels):
        row_names = tuple(concat(f"{i + base} (", label, ")") for i, label in enumerate(q_inline))
    axes = (("Q", q_labels, q_inline, n_q), ("K", k_labels, k_inline, n_k), ("V", k_labels, k_inline, n_k),
            ("O", q_labels, q_inline, n_q))
    return (row_names, *(_vector_names(letter, labels, inline, n, base) for letter, labels, inline, n in axes))


def _vector_names(letter: str, labels: Sequence[str] | None, inline: tuple[str, ...], n: int,
                  base: int) -> tuple[str, ...]:
    """Q(<s>) (the axis letter kept with a token, so Q and K lines stay apart), Q10(sat) when labels repeat, Q1."""
    if not labels:
        return tuple(f"{letter}{i + base}" for i in range(n))
    if len(set(labels)) < len(labels):
        return tuple(concat(f"{letter}{i + base}(", label, ")") for i, label in enumerate(inline))
    return tuple(concat(f"{letter}(", label, ")") for label in inline)


def _axis_labels(labels: Sequence[str] | None, letter: str, n: int, base: int,
                 display: Sequence[int | None], gap: str) -> tuple[str, ...]:
    """An axis's labels in the grid's headers: the tokens or Q1.., K1.., with `gap` where some are left out."""
    named = tuple(map(user_text, labels)) if labels else tuple(f"{letter}{i + base}" for i in range(n))
    return tuple(gap if i is None else named[i] for i in display)


def _grid_caption(f: _Facts) -> str:
    mask = f.attention.mask.name
    if not f.attention.transformed:
        caption = f"score S_ij=Qi·Kj with {mask} mask"
    elif f.show == "logits":
        caption = f"logit L_ij={f.formula}, S_ij=Qi·Kj, with {mask} mask"
    else:
        caption = f"score S_ij=Qi·Kj with {mask} mask; logits L_ij={f.formula}"
    return caption + f"; {f.left_out}" if f.left_out else caption


def _softmax_rows(f: _Facts) -> tuple[SoftmaxRow, ...]:
    a, w = f.attention, f.w
    return tuple(SoftmaxRow(i + 1, _scores_line(a, i, weights, f.row_names[i], w.softmax, f.elided, f.base),
                            _weights_line(weights, i, w.softmax, w.places, f.elided, f.base,
                                          (a, w.rounded) if isinstance(w.rounded, int) else None),
                            computed=(i + 1) in f.highlight.softmax_rows)
                 for i, weights in ((i, a.weights(i)) for i in f.rows))  # each row's softmax, worked out once


def _more_vectors(f: _Facts) -> tuple[str, ...]:
    a = f.attention
    return tuple(_vector_line(name, vectors, f.v_names if name == "V" else
                              tuple(f"{name}{j + f.base}" for j in range(len(vectors))),
                              f.rows if name == "V" else None, f.elided)
                 for name, vectors in [("V", a.values)] + [("B", b.rows) for b in a.biases] if vectors)


#: Each text of the figure and what writes it, in document order (`describe` walks them).
_PARTS: tuple[tuple[str, Callable[[_Facts], Any]], ...] = (
    ("title", lambda f: DEFAULT_TITLE if f.w.title is None else user_text(f.w.title)),
    ("subtitle", lambda f: user_text(f.w.subtitle) if f.w.subtitle is not None else rounded_subtitle(with_named_bias(
        SCORES_SUBTITLE if f.w.view == "scores" else form_subtitle(f.attention.form, f.w.places), f.attention),
        f.w.rounded)),
    ("badge", lambda f: f"{scores_claim(f.w.rounded)}, {f.attention.mask.computed or mask_claim(f.attention.mask)}"
     + ("" if f.w.view == "scores" else f", {'named' if f.w.places is None else 'rounded'} {f.form.badge}")
     + (", T5 bias named per bucket" if named_bias_words(f.attention) else "")),
    ("note", lambda f: f"displayed Q,K {'integer' if f.attention.all_integer else 'rational'} vectors are the score "
     f"source; {f.attention.mask.name} mask keeps {f.attention.mask.rule_text(f.base)}"),
    ("q_line", lambda f: _vector_line("Q", f.attention.q, f.q_names, f.rows, f.elided)),
    ("k_line", lambda f: _vector_line("K", f.attention.k, f.k_names, f.columns, f.elided)),
    ("grid_caption", _grid_caption),
    ("k_labels", lambda f: _axis_labels(f.w.k_labels, "K", f.shape[1], f.base, f.display_columns, "⋯")),
    ("q_labels", lambda f: _axis_labels(f.w.q_labels, "Q", f.shape[0], f.base, f.display_rows, "⋮")),
    ("cells", lambda f: tuple(tuple(_gap_cell(i, j) if i is None or j is None else
                                    _cell(f.attention, f.matrix, i, j, f.highlight, weights) for j in f.display_columns)
                              for i, weights in ((i, row_weights(f.attention, i)) for i in f.display_rows))),
    ("softmax_heading", lambda f: softmax_heading(f.attention.form, f.attention.transformed, f.formula)),
    ("softmax_rows", _softmax_rows),
    ("footer", lambda f: footer_text(f.w.places, f.w.rounded) if f.attention.form is None else f.form.footer
     if f.w.places is None else
     f"{f.form.noun} weights marked ≈ are rounded to {f.w.places} decimal{'s' * (f.w.places > 1)}, not exact"),
    ("more_vectors", _more_vectors),
    ("outputs_heading", lambda f: "outputs: O_i is the sum of w_ij·V_j over the unmasked keys j of row i"
     if f.output_rows else ""),
    ("output_rows", lambda f: f.output_rows),
    ("elided", lambda f: f.left_out),
)


_AS_IS = Wording()  # the seed's words: its title, Q1.. and K1.., named weights, counted from 1


def describe(attention: Attention, highlight: Highlight = NO_HIGHLIGHT, wording: Wording = _AS_IS) -> FigureText:
    """Every text of the figure for one attention pattern, written as `wording` says (each by its part)."""
    facts = _Facts(attention, highlight, wording)
    texts = {}
    for name, write in _PARTS:
        with DecimalForm(facts.decimal.get(part_kind(name, facts.show), False)):
            texts[name] = write(facts)
    return FigureText(**texts, show=facts.show, softmax=wording.softmax, view=wording.view, base=wording.base)


def at_step(words: FigureText, highlight: Highlight = NO_HIGHLIGHT,
            pending_cells: Collection[tuple[int, int]] = frozenset(), pending_rows: Collection[int] = frozenset(),
            pending_outputs: Collection[int] = frozenset()) -> FigureText:
    """The same figure at one step of a series: `highlight` is what this step computed; cells
    (1-based (i, j)), softmax rows and output rows in `pending_*` are not computed yet and are drawn empty.

    Pending parts keep their text, so every step of a series has the same geometry.
    """
    cells = tuple(tuple(replace(cell, computed=(cell.q, cell.k) in highlight.cells,
                                pending=(cell.q, cell.k) in pending_cells) for cell in row) for row in words.cells)
    rows = tuple(replace(row, computed=row.q in highlight.softmax_rows, pending=row.q in pending_rows)
                 for row in words.softmax_rows)
    outputs = tuple(replace(row, computed=row.q in highlight.outputs, pending=row.q in pending_outputs)
                    for row in words.output_rows)
    return replace(words, cells=cells, softmax_rows=rows, output_rows=outputs)


#: An elided figure keeps this many rows and columns at each end (and every one a highlight names).
SHOW_FIRST, SHOW_LAST = 4, 2


def shown_positions(n: int, named: Iterable[int] = (), first: int = SHOW_FIRST,
                    last: int = SHOW_LAST) -> tuple[int, ...]:
    """Sorted 0-based positions an elided axis of n draws: the `first` and `last` few, and `named` (1-based).
    An axis short enough to draw whole is drawn whole."""
    if n <= first + last + 2:
        return tuple(range(n))
    return tuple(sorted(set(range(first)) | set(range(n - last, n)) | {p - 1 for p in named if 1 <= p <= n}))


def with_gaps(positions: Iterable[int]) -> list[int | None]:
    """Positions with None wherever some are skipped: (0, 1, 7) -> [0, 1, None, 7]."""
    out: list[int | None] = []
    previous: int | None = None  # the last position, out[-1]
    for p in positions:
        if previous is not None and p != previous + 1:
            out.append(None)
        out.append(p)
        previous = p
    return out


def hidden_ranges(positions: Iterable[int], n: int, noun: str, base: int = 1) -> list[str]:
    """["rows 5–60"]: the ranges (in the figure's index base) an elided axis leaves out, named; [] when none."""
    ranges: list[str] = []
    previous = -1
    for p in list(positions) + [n]:
        if p > previous + 1:
            a, b = previous + 1 + base, p - 1 + base
            ranges.append(str(a) if a == b else f"{a}–{b}")
        previous = p
    return [f"{noun} {', '.join(ranges)}"] if ranges else []


def _cell(attention: Attention, matrix: Sequence[Sequence[Logit] | None], i: int, j: int,  # noqa: PLR0913  a cell's facts
          highlight: Highlight, weights: dict[int, str]) -> Cell:
    """The cell of query i and key j (0-based), of a row the figure computed; `weights` its row's by key."""
    values, kept = matrix[i], attention.kept[i]
    assert values is not None and kept is not None  # an elided figure draws only the rows it computed
    return Cell(i + 1, j + 1, notation.logit_text(values[j]) if kept[j] else "masked",
                masked=not kept[j], computed=(i + 1, j + 1) in highlight.cells,
                value=python_logit(values[j]) if kept[j] else "", weight=weights.get(j, "0" if weights else ""))


def _gap_cell(i: int | None, j: int | None) -> Cell:
    return Cell(0, 0, "⋱" if i is None and j is None else "⋮" if i is None else "⋯", masked=False,
                computed=False, gap=True)


def _vector_line(name: str, vectors: Sequence[Sequence[Fraction]], labels: Sequence[str],
                 positions: Sequence[int] | None, elided: bool) -> str:
    """`Q1=(1,0); Q2=(0,1)`, or for an elided figure the shown vectors with `…` where some are left out."""
    if not elided or positions is None:
        return notation.vector_line(name, vectors, labels)
    parts: list[str] = []
    for p in with_gaps(positions):
        if p is None:
            parts.append("…")
        else:
            label = labels[p]
            parts.append(concat(label, f"={notation.vector_text(vectors[p])}"))
    return joined("; ", parts)


def _scores_line(attention: Attention, i: int, weights: Weights, row_name: str, softmax: str, elided: bool = False,
                 base: int = 1) -> str:
    line = notation.scores_line(row_name, attention.kept_logits(i) if weights.form == "sigmoid" or not weights.exponents
                                else weights.exponents, "logits" if attention.transformed else "scores", elided)
    if softmax == "normalizer" and (z := notation.normalizer_line(weights, i + base, elided)):
        line = concat(line, f"; {z}")
    return line


def _weights_line(weights: Weights, i: int, softmax: str, places: int | None, elided: bool = False,
                  base: int = 1, certain: tuple[Attention, int] | None = None) -> str:
    """Row i's weights: named, rounded to `places` (marked ≈), or, for inputs rounded to some decimals (`certain`:
    the attention and those decimals), with only the digits every input within that rounding gives."""
    if places is None:
        return notation.weights_line(weights, softmax, row=i + base, elided=elided)
    if certain is not None and weights.kind != "undefined":
        from ..numbers.certain import certain_weights  # rounded inputs' weights only: mpmath stays unimported

        texts = certain_weights(certain[0], i, certain[1], places)
        return notation.weights_line(weights, decimals=[("≈" if approximate else "") + text
                                                        for text, approximate in texts], elided=elided)
    from ..numbers import rounding  # rounded weights only (--weights decimal=N): mpmath stays unimported

    rounded_weights: Callable[[Weights, int], list[tuple[str, bool]]] = rounding.rounded_weights  # (untyped)
    terms = [("≈" if approximate else "") + text for text, approximate in rounded_weights(weights, places)]
    share = rounding.rounded_sink_share(weights, places) if weights.sink is not None and weights.exponents else None
    return notation.weights_line(weights, decimals=terms, elided=elided, share=share)


def _output_row(attention: Attention, i: int, places: int | None, computed: bool, elided: bool = False,
                base: int = 1, rounded: int | None = None,
                names: tuple[str, Sequence[str]] | None = None) -> OutputRow:
    """Row i's output line; `names`: the output's name and each value's (O(sat), V(the), ...), else O1, V1, ..."""
    kept = attention.kept[i]
    assert kept is not None and attention.values is not None  # a shown row of a figure with value vectors
    columns = [j + base for j, keep in enumerate(kept) if keep]
    wide = notation.wide_indices(attention.shape)
    if places is not None and rounded is not None and any(kept):
        from ..numbers.certain import certain_output  # rounded inputs' outputs only: mpmath stays unimported

        certain = certain_output(attention, i, rounded, places)
        value: str | None = f"({','.join(text for text, _ in certain)})"
        approximate = any(approx for _, approx in certain)
    elif places is not None:
        from ..numbers import rounding  # rounded outputs only: mpmath stays unimported

        rounded_output: Callable[[Weights, Sequence[Sequence[Fraction]], int], tuple[list[str], bool]] = (
            rounding.rounded_output)  # (untyped)
        kept_values = [v for v, keep in zip(attention.values, kept) if keep]
        texts, approximate = rounded_output(attention.weights(i), kept_values, places)
        value = f"({','.join(texts)})" if texts else None
    else:
        exact, approximate = attention.output(i), False
        value = None if exact is None else notation.vector_text(exact)
    named = None if names is None else (names[0], [names[1][j - base] for j in columns])
    return OutputRow(i + 1, notation.output_line(i + base, columns, value, approximate, wide, elided, named),
                     computed=computed, value=value, approximate=approximate)


def _in_form(decimal: bool, write: Callable[[], str]) -> str:
    with DecimalForm(decimal):
        return write()


def with_normalizers(words: FigureText, attention: Attention) -> FigureText | None:
    """`words` with each named softmax row written with its normalizer (`e^1/Z_3`, and `Z_3=e^1+e^1+e^2` after
    the row's scores) instead of expanded, keeping what each row computed or has pending; None when the
    rows are not named and expanded (rounded weights, or another form already)."""
    elided = bool(words.elided)
    rows, named = [], False
    for row in words.softmax_rows:
        i = row.q - 1
        weights = attention.weights(i)
        if weights.kind != "named":  # pinned or undefined: written the same in every form
            rows.append(row)
            continue
        expanded = functools.partial(_weights_line, weights, i, "expanded", None, elided, words.base)
        forms = [form for form in (False, True)  # the logits' form: fractions, or decimals as they came
                 if row.weights == _in_form(form, expanded)]
        if not forms:
            return None
        named = True
        with DecimalForm(forms[0]):
            z = notation.normalizer_line(weights, i + words.base, elided)
            rows.append(replace(row, scores=concat(row.scores, f"; {z}"),
                                weights=_weights_line(weights, i, "normalizer", None, elided, words.base)))
    return replace(words, softmax_rows=tuple(rows), softmax="normalizer") if named else None
