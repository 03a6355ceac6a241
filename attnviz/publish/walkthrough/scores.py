"""The series behind a figure, generated from its vectors: one step per thing computed.

Order: the scores the mask keeps, row by row (S_11, S_21, S_22, ...), then the mask applied
(when it masks anything), then each row's named softmax, top to bottom, then (with value
vectors) each row's output O_i = Σ_j w_ij·V_j. Masked cells are
never given a score: they stay empty until the mask step shows them "masked", so every
number a step shows is one the finished figure shows. What is not yet computed is drawn
empty (`content.at_step`), and every step states exactly what it computed, with its formula.
"""

from __future__ import annotations

import re
from dataclasses import replace
from fractions import Fraction

from ...words import notation
from ...words.budget import check_page, figure_chars
from ...words.user_text import concat, isolate, user_text
from ...words.figure_text import at_step
from ..document import Section, make_document
from ..mathml import MAX_TEX
from ...engine.attention import dot
from ...numbers.exact import InputError, decimal_text, format_number, written_as_decimal
from ...figures.api import Figure
from ...figures.blocked import BlockedScoresFigure, step_of
from ...words.highlight import parse_targets
from ...numbers.surds import Surd, sign
from ...engine.softmax_forms import Capped, Named
from .frame_fit import check_steps_fit
from .number_forms import exact_word, in_form, written_as_given

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import Any, TypeAlias, cast

    from ...figures.figure import Drawable
    from ...layout.figure import Wraps
    from ...engine.attention import Attention, Weights
    from ...engine.softmax_forms import Logit
    from ...typing import Exact, ThemeName
    from ...words.figure_text import FigureText, OutputRow
    from ..document import Document
    from .sparse import Lead

    #: ("score", i, j), ("mask",), ("softmax", i) or ("output", i): 1-based.
    Step: TypeAlias = tuple[Any, ...]

__all__ = ["MAX_STEPS", "MAX_WALK_CELLS", "check_walk_size", "fit_tex", "SERIES", "LEGEND", "plan", "walkthrough"]

#: The most steps one walkthrough may have.
MAX_STEPS = 100
#: Cells drawn over all of a walkthrough's steps: each step is a whole figure, so 64 steps of a 64×64 grid
#: would be 150 MB of SVG. This is four times the largest walkthrough of scores (12 tokens, 91 steps).
MAX_WALK_CELLS = 60_000
#: The series title of a walkthrough of scores.
SERIES = "Scores, Masks, Softmax"
#: Every walkthrough's legend line.
LEGEND = "highlighted = computed this step"
MAX_LISTED = 12  # masked cells named one by one; more are counted
MAX_SPELLED = 3  # softmax formulas spell out each weight up to this many scores; longer rows share one fraction


def plan(attention: Attention) -> list[Step]:
    """The steps, in order: ("score", i, j), ("mask",), ("softmax", i), ("output", i); 1-based."""
    n_q, n_k = attention.shape
    rows = kept_rows(attention)
    kept: list[Step] = [("score", i + 1, j + 1) for i in range(n_q) for j in range(n_k) if rows[i][j]]
    masked = len(kept) < n_q * n_k
    outputs = [("output", i) for i in range(1, n_q + 1)] if attention.values is not None else []
    return kept + ([("mask",)] if masked else []) + [("softmax", i) for i in range(1, n_q + 1)] + outputs


def kept_rows(attention: Attention) -> list[tuple[bool, ...]]:
    """`attention.kept`, row by row: a walkthrough's figure computes every row (none is elided)."""
    rows = []
    for row in attention.kept:
        assert row is not None  # an elided figure leaves rows out; a walkthrough draws every row
        rows.append(row)
    return rows


@written_as_given("logits")
def walkthrough(fig: Figure) -> tuple[Document, list[Drawable]]:
    """(Document, figures) for every step of `fig` (an `attnviz.Figure`), for `page.write_page`."""
    attention, words = fig.attention, fig.words
    if TYPE_CHECKING:  # a walkthrough is of a full figure: its vectors and its words
        assert isinstance(attention, Attention) and isinstance(words, FigureText)
        theme = cast("ThemeName", fig.theme)  # a figure keeps its theme's name as a str
    else:
        theme = fig.theme
    steps = plan(attention)
    lead = _lead(fig)  # a sparse selection's own first step, or None
    first = 0 if lead is None else 1
    if len(steps) + first > MAX_STEPS:
        selection = " and the selection" if lead is not None else ""
        raise InputError(f"{len(steps) + first} steps ({_count_steps(steps)}{selection}); the limit is {MAX_STEPS}: "
                         "use fewer tokens", "walkthrough")
    sections = [_section(step, attention, words, lead) for step in steps]
    rounded = any("≈" in row.weights for row in words.softmax_rows)
    document = make_document(title=SERIES, heading=f"{words.title}, step by step",
                             intro=(_intro(attention, steps, rounded, "" if lead is None else lead.intro),),
                             legend=LEGEND, sections=([lead.section] if lead is not None else []) + sections)
    size = figure_chars(words, fig.embed_font)  # every step is this size
    check_page(document, [size] * len(document.sections), "walkthrough")
    figures: list[Drawable] = []
    wraps: Wraps = {}  # the steps wrap much the same text: each line wrapped once
    for n, section in enumerate(document.sections[first:]):
        marks = parse_targets(list(section.highlight), attention)
        cells, rows, outputs = _pending(steps, n, attention)
        figures.append(step_of(fig, attention, marks, at_step(words, marks, cells, rows, outputs),  # (blocks kept)
                               id_prefix=section.id_prefix, theme=theme, embed_font=fig.embed_font,
                               frame=fig.frame).as_step(wraps))
    if figures:  # every step is the first's size: refused here, naming the frames where the steps fit
        check_steps_fit(fig, figures[0], lead)
    if lead is not None:  # the selection's step first: its gate (or branches) beside the mask it selects
        figures.insert(0, lead.draw(fig, document.sections[0].id_prefix))
    if isinstance(fig, BlockedScoresFigure):  # its blocks' legend in the steps' text where it does not fit beside
        from .state_text import state_in_text  # start-up: only FlexAttention's blocks need it

        return state_in_text(document, figures)
    return document, figures


def _lead(fig: Figure) -> Lead | None:
    """The selection step of a figure whose mask MoBA or NSA computed (`sparse=`), else None."""
    if getattr(getattr(fig.attention, "mask", None), "sparse", None) is None:
        return None
    from .sparse import lead_of  # start-up: only a sparse figure's walkthrough shows its selection

    return lead_of(fig)


def check_walk_size(steps: int, cells: int, what: str, where: str) -> None:
    """Refuses a walkthrough of more than MAX_STEPS steps or MAX_WALK_CELLS cells drawn in all (`cells` a step)."""
    if steps > MAX_STEPS:
        raise InputError(f"{steps:,} steps ({what}); the limit is {MAX_STEPS}", where)
    if steps * cells > MAX_WALK_CELLS:
        raise InputError(f"{steps} steps of {cells:,} cells each ({what}) would draw {steps * cells:,} cells; the "
                         f"limit is {MAX_WALK_CELLS:,}: use fewer tokens", where)


def fit_tex(parts: Iterable[str], sep: str = "") -> str | None:
    r"""The parts of a step's formula joined by `sep`, each one kept only while the formula fits MAX_TEX characters
    (long scores, values or a long scale would make it too long to typeset); None when none fits. The step's
    sentences say everything in words.

    >>> fit_tex(["x", " = " + "1" * 5000, " = y"])
    'x = y'
    """
    joined = None
    for part in parts:
        longer = part if joined is None else joined + sep + part
        if len(longer) <= MAX_TEX:
            joined = longer
    return joined


def _count_steps(steps: Sequence[Step]) -> str:
    """`105 scores, the mask and 14 softmax rows`: what the steps are, for the too-many-steps error."""
    count = {kind: sum(step[0] == kind for step in steps) for kind in ("score", "mask", "softmax", "output")}
    parts = [f"{count['score']} scores", "the mask" if count["mask"] else "", f"{count['softmax']} softmax rows",
             f"{count['output']} outputs" if count["output"] else ""]
    return notation.and_list(part for part in parts if part)


def _pending(steps: Sequence[Step], n: int,
             attention: Attention) -> tuple[frozenset[tuple[int, int]], frozenset[int], frozenset[int]]:
    """Cells, softmax rows and output rows not yet computed before the end of step `n` (0-based)."""
    n_q, n_k = attention.shape
    done = steps[:n + 1]
    cells = {(i, j) for i in range(1, n_q + 1) for j in range(1, n_k + 1)}
    if ("mask",) in done or ("mask",) not in steps:
        kept = kept_rows(attention)
        cells -= {(i + 1, j + 1) for i in range(n_q) for j in range(n_k) if not kept[i][j]}
    cells -= {(step[1], step[2]) for step in done if step[0] == "score"}
    rows = set(range(1, n_q + 1)) - {step[1] for step in done if step[0] == "softmax"}
    outputs = set(range(1, n_q + 1)) - {step[1] for step in done if step[0] == "output"}
    return frozenset(cells), frozenset(rows), frozenset(outputs)


def _intro(attention: Attention, steps: Sequence[Step], rounded: bool = False, first: str = "") -> str:
    mask = attention.mask
    n_scores = sum(step[0] == "score" for step in steps)
    if n_scores == 0:  # every cell masked: nothing to compute before the mask
        kept = f"the {mask.name} mask ({mask.rule}), which keeps no score"
    elif ("mask",) in steps:
        scores = "the score" if n_scores == 1 else f"the {n_scores} scores"
        kept = f"{scores} S_ij = Qi·Kj that the {mask.name} mask keeps ({mask.rule}), row by row; then the mask"
    else:
        kept = f"all {n_scores} scores S_ij = Qi·Kj, row by row" if n_scores > 1 else "the score S_11 = Q1·K1"
    softmax = "softmax, named and shown rounded (≈)" if rounded else "named softmax"
    outputs = "; then each row's output O_i = Σ_j w_ij·V_j" if ("output", 1) in steps else ""
    return (f"From the vectors alone, one step at a time: {first}{kept}; then each row's {softmax}{outputs}. "
            "What is not yet computed is empty.")


def _section(step: Step, attention: Attention, words: FigureText, lead: Lead | None = None) -> Section:
    if step[0] == "score":
        section = _score_section(step[1], step[2], attention, words)
        if lead is None:
            return section
        return replace(section, paragraphs=(concat(section.paragraphs[0], lead.kept_by(step[1], step[2])),))
    if step[0] == "mask":
        return _mask_section(attention)
    if step[0] == "softmax":
        return softmax_section(step[1], attention, words.softmax_rows[step[1] - 1].weights, words.softmax)
    return _output_section(step[1], attention, words.output_rows[step[1] - 1])


def _score_section(i: int, j: int, attention: Attention, words: FigureText) -> Section:
    q, k = attention.q[i - 1], attention.k[j - 1]
    value = dot(q, k)
    with in_form("vectors"):  # the factors as the vectors are written, the score as the scores are
        terms = " + ".join(f"{_factor(a)}·{_factor(b)}" for a, b in zip(q, k))
        tex_terms = " + ".join(rf"{tex_grouped(a)} \cdot {tex_grouped(b)}" for a, b in zip(q, k))
    with in_form("scores"):
        score, tex_score = format_number(value), tex_number(value)
    who = _labels(words.q_labels[i - 1], words.k_labels[j - 1], i, j)
    sentence = f"S_{{{i},{j}}} = Q{i}·K{j} = {terms} = {score}"
    formula = [rf"S_{{{i},{j}}} = Q_{{{i}}} \cdot K_{{{j}}}", f" = {tex_terms}", f" = {tex_score}"]
    paragraph = concat(f"The score of query {i} and key {j}", who, f" is their dot product: {sentence}.")
    if words.show == "logits":  # the cell shows the logit, not the score: say how one gives the other
        with in_form("logits"):
            logit, tex_logit = _logit(i, j, attention)
        paragraph = concat(f"The score of query {i} and key {j}", who,
                           f" is their dot product, and the cell shows its logit: {sentence}; {logit}.")
        formula.append(rf",\quad {tex_logit}")
    return Section(heading=f"Score of Q{i} and K{j}", paragraphs=(paragraph,), formula=fit_tex(formula),
                   highlight=((i, j),))


def _logit(i: int, j: int, attention: Attention) -> tuple[str, str]:
    """(text, TeX) of `L_{2,1} = 2·S_{2,1}+1/2·(j-i) = 2·1+1/2·(1-2) = 3/2`: the caption's logit
    formula for this cell, then with its numbers put in, then the logit the cell shows."""
    scores, logits = attention.scores[i - 1], attention.logits
    assert scores is not None and logits is not None  # the cell shows a logit: the figure computed its row's
    logit_row = logits[i - 1]
    assert logit_row is not None
    score = scores[j - 1]
    scale = attention.scale.text if attention.scale is not None else "S_ij"
    named, filled = [scale.replace("S_ij", f"S_{{{i},{j}}}")], [scale.replace("S_ij", _factor(score))]
    for bias in attention.biases:
        term, value = bias.at(i, j)
        if bias.wraps:  # a score_mod: a call around the logit so far
            named, filled = [f"{bias.wraps}({''.join(named)},{i - 1},{j - 1})"], [f"{bias.wraps}({''.join(filled)},"
                                                                                   f"{i - 1},{j - 1})"]
            continue
        named.append(term)
        filled.append(value)
    logit = logit_row[j - 1]
    named_text, filled_text = "".join(named), "".join(filled)
    text = f"L_{{{i},{j}}} = {named_text} = {filled_text} = {notation.logit_text(logit)}"
    tex = rf"L_{{{i},{j}}} = {_tex_text(named_text)} = {_tex_text(filled_text)} = {tex_number(logit)}"
    return text, tex


def _mask_section(attention: Attention) -> Section:
    mask = attention.mask
    n_q, n_k = attention.shape
    kept = kept_rows(attention)
    masked = [(i + 1, j + 1) for i in range(n_q) for j in range(n_k) if not kept[i][j]]
    if len(masked) <= MAX_LISTED:
        names = [f"S_{{{i},{j}}}" for i, j in masked]
        listed = notation.and_list(names)
        verb = "is" if len(names) == 1 else "are"
        formula = r",\ ".join(names) + r"\ \text{masked}"
    else:
        listed, verb = f"{len(masked)} cells", "are"
        formula = rf"{len(masked)}\ \text{{cells masked}}"
    it = "it takes" if verb == "is" else "they take"
    computed = f" (the {mask.computed})" if mask.computed else ""  # (a sparse selection's: which one)
    return Section(heading=f"The {mask.name} mask",
                   paragraphs=(f"The {mask.name} mask{computed} keeps {mask.rule}: {listed} {verb} masked, so {it} "
                               "no part in the softmax.",),
                   formula=formula, highlight=("mask",))


def softmax_section(i: int, attention: Attention, shown_weights: str, form: str = "expanded") -> Section:
    """Row i's softmax, its weights written in the figure's `form` (expanded, normalizer or grouped); its logits
    written as the walkthrough writes logits (a decode step's scores may be written otherwise)."""
    # The softmax's inputs: the scores, or the logits when the figure scales or biases them.
    scores = attention.kept_logits(i - 1)
    word = "logits" if attention.transformed else "scores"
    weights = attention.weights(i - 1)
    with in_form("logits"):
        shown = f"[{','.join(map(notation.logit_text, scores))}]"
        if weights.sink is not None or weights.form == "sigmoid":
            return _form_section(i, weights, shown, word, shown_weights)
        return _softmax_section(i, weights, scores, shown, word, shown_weights, form)


def _softmax_section(i: int, weights: Weights, scores: Sequence[Logit], shown: str, word: str,  # noqa: PLR0913  one row's facts
                     shown_weights: str, form: str) -> Section:
    args = ", ".join(tex_number(s) for s in scores)
    if weights.kind == "undefined":
        paragraph = f"Row {i} has no unmasked score: the mask removes every key, so its softmax is undefined."
        formula = None
    elif weights.kind == "pinned" and len(scores) == 1:
        paragraph = f"Row {i} has one unmasked {word[:-1]}, {shown}, so its weight is exactly 1."
        formula = rf"\operatorname{{softmax}}({args}) = (1)"
    elif weights.kind == "pinned":
        with in_form("weights"):  # a weight is a quantity of its own: in fractions, as the figure's captions write it
            value = format_number(weights.values[0])
            pinned_tex = ", ".join(tex_number(v) for v in weights.values)
        paragraph = f"Row {i}'s unmasked {word} are all equal, {shown}, so each weight is exactly {value}."
        if "≈" in shown_weights:  # the figure was asked for decimals: say that it rounds even these
            paragraph += f" The figure shows them rounded, each marked ≈: {shown_weights.removeprefix('weights ')}."
        formula = rf"\operatorname{{softmax}}({args}) = \left({pinned_tex}\right)"
    else:
        terms = ", ".join(notation.weight_terms(weights, form, i))  # as the figure's caption writes them
        if form == "normalizer":
            terms += f", where {notation.normalizer_line(weights, i)}"
        if "≈" in shown_weights:  # the figure was asked for rounded weights: say so, and name them too
            paragraph = (f"Row {i}'s unmasked {word} are {shown}. Its weights are {terms}; the figure shows them "
                         f"rounded, each marked ≈: {shown_weights.removeprefix('weights ')}.")
        else:
            paragraph = f"Row {i}'s unmasked {word} are {shown}. Softmax is named, not decimalized: weights {terms}."
        denominator = _tex_sum(weights.exponents, form)
        if len(scores) <= MAX_SPELLED:
            formula = rf"\operatorname{{softmax}}({args}) = \left(" + ", ".join(
                rf"\frac{{e^{{{tex_exponent(x)}}}}}{{{denominator}}}" for x in weights.exponents) + r"\right)"
        else:  # the shared denominator once, not once per weight: a formula that fits a page
            formula = rf"\operatorname{{softmax}}(s)_t = \frac{{e^{{s_t}}}}{{{denominator}}},\quad s = ({args})"
        if form == "normalizer":  # the figure's Z_i, named in the fractions and defined once
            formula = formula.replace(denominator, f"Z_{{{i}}}") + rf",\quad Z_{{{i}}} = {denominator}"
    if formula is not None and len(formula) > MAX_TEX:  # too many or too long scores: the rule, not the numbers
        formula = r"\operatorname{softmax}(s)_t = \frac{e^{s_t}}{\sum_u e^{s_u}}"
    return Section(heading=f"Softmax of row {i}", paragraphs=(paragraph,), formula=formula,
                   highlight=(f"softmax={i}",))


def _form_section(i: int, weights: Weights, shown: str, word: str, shown_weights: str) -> Section:
    """Row i's weights with a sink in the denominator or as sigmoids: the figure's own caption, said and typeset."""
    caption = shown_weights.removeprefix("weights ")
    if weights.form == "sigmoid":
        paragraph = (f"Row {i}'s unmasked {word} are {shown}. Sigmoid attention weighs each on its own, with no row "
                     f"sum: weights {caption}; masked keys weigh 0, and the row need not sum to 1.")
        terms = [_tex_sigmoid(x, weights.sigmoid_count) for x in weights.exponents]
        formula = r"w = \left(" + ", ".join(terms) + r"\right)" if terms else None
    else:
        sink = notation.sink_term(weights.sink if weights.sink is not None else "s")
        paragraph = (f"Row {i}'s unmasked {word} are {shown}. A sink logit adds {sink} to the denominator and reads "
                     f"no value: weights {caption}.")
        denominator = ("1" if sink == "1" else _tex_power(weights.sink)) + "".join(
            f"+e^{{{tex_exponent(x)}}}" for x in weights.exponents)
        formula = r"w = \left(" + ", ".join(rf"\frac{{e^{{{tex_exponent(x)}}}}}{{{denominator}}}"
                                            for x in weights.exponents) + r"\right)" if weights.exponents else None
    if formula is not None and len(formula) > MAX_TEX:
        formula = None  # too long to typeset: the sentence names every weight
    return Section(heading=f"Softmax of row {i}" if weights.form != "sigmoid" else f"Sigmoid weights of row {i}",
                   paragraphs=(paragraph,), formula=formula, highlight=(f"softmax={i}",))


def _tex_power(sink: Exact | str | None) -> str:
    """The sink's term in TeX: `e^{s}`, `e^{s_h}`, `e^{-\\frac{1}{2}}`."""
    if isinstance(sink, str) or sink is None:
        return rf"e^{{{sink or 's'}}}"
    return rf"e^{{{tex_exponent(sink)}}}"


def _tex_sigmoid(x: Logit, count: int) -> str:
    """One sigmoid weight in TeX: `\\sigma(1)`, `\\frac{1}{2}`, `\\frac{1}{1+6e^{-1}}`."""
    if x == 0:
        return tex_number(Fraction(1, 1 + (count or 1)))
    if not count:
        return rf"\sigma({tex_number(x)})"
    return rf"\frac{{1}}{{1+{count if count > 1 else ''}e^{{{tex_exponent(-x)}}}}}"  # type: ignore[operator]


def _output_section(i: int, attention: Attention, shown: OutputRow) -> Section:
    """Row i's output O_i = Σ_j w_ij·V_j; `shown` is the figure's own `OutputRow`, whose value the step repeats."""
    heading, highlight = f"Output of row {i}", (f"output={i}",)
    weights = attention.weights(i - 1)
    if weights.kind == "undefined":
        return Section(heading=heading, paragraphs=(f"Row {i} has no unmasked key, so its output is undefined: "
                                                    "there are no weights to sum the value vectors with.",),
                       formula=None, highlight=highlight)
    columns = [j + 1 for j, keep in enumerate(kept_rows(attention)[i - 1]) if keep]
    wide = notation.wide_indices(attention.shape)  # as the figure writes the weights: w3,12 rather than w312
    names = [f"w_{{{i},{j}}}" if wide else f"w_{{{i}{j}}}" for j in columns]
    sentence = f"O_{i} = " + " + ".join(f"{w}·V_{j}" for w, j in zip(names, columns))
    formula = [rf"O_{{{i}}} = " + " + ".join(rf"{w} \cdot V_{{{j}}}" for w, j in zip(names, columns))]
    value, approximate = shown.value, shown.approximate
    if weights.kind == "pinned":  # exact weights: the sum, term by term
        assert attention.values is not None  # an output is a step only with value vectors
        values = [attention.values[j - 1] for j in columns]
        with in_form("weights"):
            named = [(format_number(w), tex_number(w)) for w in weights.values]
        with in_form("vectors"):
            sentence += " = " + " + ".join(f"{w}·{notation.vector_text(v)}" for (w, _), v in zip(named, values))
            formula.append(" = " + " + ".join(rf"{tex} \cdot {_tex_vector(v)}" for (_, tex), v in zip(named, values)))
        each = "exactly 1" if len(columns) == 1 else f"each exactly {named[0][0]}"
        if approximate:
            paragraph = (f"Row {i}'s weights are pinned, {each}, so its output is a sum of exact terms, which the "
                         f"figure shows rounded, marked ≈: {sentence} ≈ {value}.")
            formula.append(rf" \approx {value}")
        else:
            paragraph = f"Row {i}'s weights are pinned, {each}, so its output is {exact_word()}: {sentence} = {value}."
            exact = attention.output(i - 1)  # TeX'd when the figure shows it as is; else the figure's decimals
            assert exact is not None and value is not None  # pinned weights: the output is exact, and shown
            with in_form("outputs"):
                formula.append(" = " + (_tex_vector(exact) if value == notation.vector_text(exact) else value))
    elif approximate:
        paragraph = (f"Row {i}'s output is its weights times the value vectors: {sentence} ≈ {value}. The weights "
                     "are named, so the figure shows the output rounded, marked ≈.")
        formula.append(rf" \approx {value}")
    else:
        paragraph = (f"Row {i}'s output is its weights times the value vectors: {sentence}. The weights are named, "
                     "so the output stays named: no decimal is pinned.")
    return Section(heading=heading, paragraphs=(paragraph,), formula=fit_tex(formula), highlight=highlight)


def _labels(q_label: str, k_label: str, i: int, j: int) -> str:
    """` (“cat” and “the”)` when the figure shows token labels rather than Q3, K2."""
    if (q_label, k_label) == (f"Q{i}", f"K{j}"):
        return ""
    # two Hebrew labels keep their order (isolated); both keep their type, the user's text
    return concat(" (“", user_text(isolate(q_label)), "” and “", user_text(isolate(k_label)), "”)")


def _factor(x: Fraction) -> str:
    """A factor of a product as text: `(-1)`, `(1/2)`, `3`, `1.71`."""
    text = format_number(x)
    return f"({text})" if x < 0 or "/" in text else text


def _tex_sum(exponents: Iterable[Logit], form: str = "expanded") -> str:
    """`e^{0}+e^{1}`, or as the figure's grouped form writes it: `2e^{1}+e^{2}`."""
    return "+".join(f"{n if n > 1 else ''}e^{{{tex_exponent(x)}}}" for n, x in notation.sum_terms(exponents, form))


def tex_exponent(x: Logit) -> str:
    """An exponent as the formulas write it: `1/2` as typed for a rational, TeX for a + b·√r or a capped logit."""
    return tex_number(x) if isinstance(x, (Surd, Capped, Named)) else format_number(x)


def tex_number(x: Logit | int) -> str:
    """`3`, `\\frac{1}{2}`, `{-\\frac{1}{2}}`: a negative number is a group, so its minus sign is
    typeset as a sign, not as a subtraction with spaces around it. A capped logit is `{50\\tanh(\\frac{1}{50})}`."""
    if isinstance(x, Capped):
        return rf"{{{format_number(x.cap)}\tanh({tex_number(x.x * (1 / x.cap))})}}"
    if isinstance(x, Named):  # `{1+b[3]}`, `{b_{2}[3]}`: a T5 bias without values, by name
        return "{" + re.sub(r"_(\d+)\[", r"_{\1}[", x.text(tex_number(x.x))) + "}"
    if isinstance(x, Surd):  # a + b√r: `{\frac{\sqrt{3}}{3}}`, `{-\frac{1}{2}+2\sqrt{2}}`
        p, q = abs(x.b.numerator), x.b.denominator
        radical = ("" if p == 1 else str(p)) + rf"\sqrt{{{x.r}}}"
        radical = radical if q == 1 else rf"\frac{{{radical}}}{{{q}}}"
        sign = "-" if x.b < 0 else "+" if x.a else ""
        return "{" + (tex_number(x.a) if x.a else "") + sign + radical + "}"
    x = Fraction(x)
    if x.denominator == 1 or written_as_decimal(x):  # 3, or 1.71 where the figure writes this kind as decimals
        text = str(abs(x.numerator)) if x.denominator == 1 else decimal_text(abs(x))
    else:
        text = rf"\frac{{{abs(x.numerator)}}}{{{x.denominator}}}"
    return f"{{-{text}}}" if x < 0 else text


def tex_grouped(x: Exact) -> str:
    """An exact value as TeX for a factor or a term after a minus sign: in parentheses if negative or a sum."""
    tex = tex_number(x)
    return rf"\left({tex}\right)" if sign(x) < 0 or (isinstance(x, Surd) and x.a != 0) else tex


def _tex_vector(values: Iterable[Exact]) -> str:
    return r"\left(" + ", ".join(map(tex_number, values)) + r"\right)"


def _tex_text(text: str) -> str:
    r"""A logit formula's text as TeX: `·` a \cdot, `√2` a \sqrt{2}, `_` in a name (`my_bias`) a literal
    underscore; the rest (digits, `/`, `S_{1,2}`) as typed."""
    text = re.sub(r"_(?!\{)", r"\\_", text.replace("·", r" \cdot "))
    return re.sub(r"√(\d+)", r"\\sqrt{\1}", text)
