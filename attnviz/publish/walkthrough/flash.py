"""`attnviz walkthrough --flash Br,Bc`: FlashAttention's tiles, one step per tile, then the proof
that the tiled online softmax is the one-shot softmax.

Each tile step highlights the tile (its masked cells too: they are masked inside the tile), draws
later tiles empty, and states per query row the running maximum m_i, the running normaliser
ℓ_i = Σ e^(s−m_i) as named exponentials and the rescale factor e^(m_old − m_new). Fully masked
tiles are skipped, and the step after them says so. The numbers come from `flash.flash_steps`.
"""

from __future__ import annotations

from fractions import Fraction

from dataclasses import replace

from ...words import notation
from ...words.figure_text import at_step
from ..document import Section, make_document
from ...numbers.exact import InputError
from ...figures.api import Figure
from ...engine.tiled_softmax import ORDERS, flash_steps, tiles
from ...words.highlight import parse_targets
from .scores import LEGEND, tex_exponent, tex_grouped, tex_number, check_walk_size, fit_tex
from .flash_state import ell_text, exponent_term, flash_overlay
from ...figures.overlaid import OverlaidFigure
from ...words.forms import form_name
from .state_text import state_in_text
from .number_forms import written_as_given

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import TypeAlias, cast

    from ...layout.figure import Wraps
    from ...engine.attention import Attention
    from ...engine.attention import Weights
    from ...engine.tiled_softmax import FlashStep, Tile
    from ...typing import Exact, FlashOrder, HighlightTarget, ThemeName
    from ...words.figure_text import FigureText
    from ..document import Document

    #: Each row's running state so far: i -> (m_i, ℓ_i's exponents).
    State: TypeAlias = dict[int, tuple[Exact, tuple[Exact, ...], Exact | None]]  # m, ℓ's exponents, a sink's

__all__ = ["ORDER_NAMES", "FLASH_REFUSALS", "flash_walkthrough"]

#: Each loop order's name and its loops, in words.
ORDER_NAMES = {"fa2": ("FlashAttention-2", "outer loop over query blocks, inner over key blocks"),
               "fa1": ("FlashAttention-1", "outer loop over key blocks, inner over query blocks")}
SERIES = "FlashAttention, tile by tile"
#: Why a form is not stepped tile by tile, after "the FlashAttention walkthrough steps the plain softmax's …; ".
FLASH_REFUSALS = {
    "sigmoid": "sigmoid attention needs no running maximum (each weight is σ(L+b) on its own, no row sum): draw the "
               "scores walkthrough (drop --flash)",
    "sink": "a sink that is a name cannot be compared with the scores for m = max(s, …): give it a number "
            "(--sink -1/2)",
    "softcap": "capped logits c·tanh(L/c) have no exact running maximum differences to draw: drop --flash",
}


@written_as_given("logits")
def flash_walkthrough(fig: Figure, block: tuple[int, int],
                      order: FlashOrder = "fa2") -> tuple[Document, list[Figure]]:
    """(Document, figures) for the tiled online softmax of `fig` (an `attnviz.Figure`) in Br×Bc tiles."""
    if order not in ORDERS:
        raise InputError(f"expected fa2 (outer loop over query blocks) or fa1 (outer over key blocks), got {order!r}",
                         "flash_order")
    attention = fig.attention
    if TYPE_CHECKING:  # a walkthrough is of a full figure: its vectors and its words
        assert isinstance(attention, Attention) and isinstance(fig.words, FigureText)
    form = attention.form
    if form is not None and (form.sink is None or form.sink.named or form.softcap is not None):
        raise InputError("the FlashAttention walkthrough steps the plain softmax's running maximum (or one that "
                         "starts at a sink logit's number); "
                         + FLASH_REFUSALS[form_name(form) if form.softcap is None else "softcap"], "flash")
    if attention.named_bias:
        raise InputError("the FlashAttention walkthrough steps a running maximum of exact logits, but a T5 bias "
                         "without values is named (b[k]): give its values (t5=N,D,values=...), or draw the scores "
                         "walkthrough", "flash")
    try:
        all_tiles = tiles(attention, block, order)
    except InputError as err:
        raise err.relocated(lambda where: "flash") from None
    steps = flash_steps(attention, block, order)
    n_q, n_k = attention.shape
    check_walk_size(len(steps) + 1, n_q * n_k, f"{len(steps):,} tiles and the final step; use larger blocks",
                    "flash")
    br, bc = block
    name, loops = ORDER_NAMES[order]
    skipped = [tile for tile in all_tiles if tile.skipped]
    caption = f"{fig.words.grid_caption}, in {br}×{bc} tiles ({name} order)"
    if skipped:
        caption += f"; {len(skipped)} fully masked tile{'s' * (len(skipped) != 1)} skipped"
    words = replace(fig.words, grid_caption=caption)

    sections: list[Section] = []
    state: State = {}
    if steps and steps[0].start is not None:  # a sink logit s: every row starts at m = s, ℓ = e^(s−s) = 1
        state = {i: (steps[0].start, (), Fraction(0)) for i in range(1, n_q + 1)}
    pending_skips: list[Tile] = []
    for tile in all_tiles:  # the skipped tiles are named in the step that follows them
        if tile.skipped:
            pending_skips.append(tile)
            continue
        step = steps[len(sections)]
        sections.append(_tile_section(step, len(steps), attention, state, pending_skips, name))
        pending_skips = []
    sections.append(_final_section(attention, steps, pending_skips))
    document = make_document(title=SERIES, heading=f"{words.title}: FlashAttention in {br}×{bc} tiles",
                             intro=(_intro(attention, steps, all_tiles, block, name, loops),),
                             legend=LEGEND, sections=sections)
    return state_in_text(document, _figures(fig, words, steps, all_tiles, document))


def _intro(attention: Attention, steps: Sequence[FlashStep], all_tiles: Sequence[Tile], block: tuple[int, int],
           name: str, loops: str) -> str:
    n_q, n_k = attention.shape
    skipped = sum(tile.skipped for tile in all_tiles)
    word = "logits" if attention.transformed else "scores"
    skips = (f" {skipped} of the {len(all_tiles)} tiles are fully masked by the {attention.mask.name} mask and "
             "skipped." if skipped else f" No tile is fully masked, so all {len(all_tiles)} are computed.")
    return (f"The {n_q}×{n_k} grid in tiles of {block[0]} queries × {block[1]} keys, in {name}'s order ({loops}), "
            f"one step per tile.{skips} Each row i starts at {_start(steps)}. A tile's {word} s raise the running "
            "maximum m_i; the old ℓ_i is multiplied by the rescale factor e^(m_old−m_new), which turns each of its "
            "terms e^(s−m_old) into e^(s−m_new), and the tile's terms e^(s−m_i) are added: every exponent stays "
            "exact. The last step shows that e^(s−m_i)/ℓ_i is the one-shot named softmax.")


def _start(steps: Sequence[FlashStep]) -> str:
    """A row's state before its first tile: −∞ and 0, or with a sink logit s, s and e^(s−s) = 1."""
    start = steps[0].start if steps else None
    if start is None:
        return "m_i = −∞, ℓ_i = 0"
    return (f"m_i = s = {notation.format_exact(start)}, ℓ_i = e^(s−s) = 1, as the sink kernels start: the sink logit "
            "is a term of every denominator that reads no value, and ℓ_i's first term is its e^(s−m_i)")


def _span(indices: Sequence[int], one: str, many: str) -> str:
    """`query 3`, `queries 3–4`."""
    return f"{one} {indices[0]}" if len(indices) == 1 else f"{many} {indices[0]}–{indices[-1]}"


def _tile_name(tile: Tile | FlashStep) -> str:
    return f"{_span(tile.rows, 'query', 'queries')} × {_span(tile.keys, 'key', 'keys')}"


def _tex_sum(exponents: Sequence[Exact], sink: Exact | None = None) -> str:
    """ℓ in TeX: a sink's term first (`1` at e^0), then each kept key's; `0` when empty."""
    terms = ([] if sink is None else ["1" if sink == 0 else f"e^{{{tex_exponent(sink)}}}"]) + [
        f"e^{{{tex_exponent(x)}}}" for x in exponents]
    return "+".join(terms) or "0"


def _tile_section(step: FlashStep, count: int, attention: Attention, state: State, skipped: Sequence[Tile],
                  name: str) -> Section:
    """One tile: its scores, then each row's m, rescale and ℓ; updates `state` (i -> (m, ℓ exponents))."""
    tile_text = _tile_name(step)
    word = "logits" if attention.transformed else "scores"
    letter = "L" if attention.transformed else "S"
    parts: list[str] = []
    if skipped:
        parts.append("Skipped before this tile, fully masked: " + notation.and_list(map(_tile_name, skipped)) + ".")
    scores = [f"{letter}_{{{i},{j}}} = {notation.format_exact(s)}" for (i, j), s in step.scores.items()]
    parts.append(f"Tile {step.index} of {count} in {name}'s order: {tile_text}. Its {word}: "
                 f"{notation.and_list(scores)}.")
    if step.masked:
        masked = [f"{letter}_{{{i},{j}}}" for i, j in step.masked]
        parts.append(f"Masked inside the tile: {notation.and_list(masked)}.")
    formulas: list[str] = []
    for i in step.rows:
        text, tex = _row_update(step, i, attention, state)
        parts.append(text)
        if tex:
            formulas.append(tex)
    # The heading names the tile with ASCII hyphens: it is also the step's file name (slugified).
    heading = f"Tile {step.index}: {tile_text.replace('–', '-').replace(' × ', ', ')}"
    return Section(heading=heading, paragraphs=(" ".join(parts),),
                   formula=fit_tex(formulas, r";\quad "),
                   highlight=tuple((i, j) for i in step.rows for j in step.keys))


def _row_update(step: FlashStep, i: int, attention: Attention, state: State) -> tuple[str, str | None]:
    """(sentence, TeX) for row i's running state after this tile; `state` is updated."""
    new = [j for j in step.keys if (i, j) in step.scores]
    if i not in step.m:
        return f"Row {i}: every key of this tile is masked and none is kept yet, so m_{i} = −∞ and ℓ_{i} = 0.", None
    m, exps, sink = step.m[i], step.l[i], step.sink.get(i)
    old = state.get(i)
    state[i] = (m, exps, sink)
    new_scores = [step.scores[i, j] for j in new]
    named_new = [f"e^({notation.format_exact(s)}-{exponent_term(m)})" for s in new_scores]
    tex_new = [f"e^{{{tex_number(s)}-{tex_grouped(m)}}}" for s in new_scores]
    m_text, ell = notation.format_exact(m), ell_text(exps, sink=sink)
    if not new:
        return (f"Row {i}: every key of this tile is masked, so m_{i} = {m_text} and ℓ_{i} = {ell} stay as they "
                "were.", None)
    if old is None:
        inputs = ", ".join(map(notation.format_exact, new_scores))
        text = (f"Row {i}, its first kept keys: m_{i} = max(−∞, {inputs}) = {m_text}; "
                f"ℓ_{i} = 0 + {' + '.join(named_new)} = {ell}.")
        tex = (rf"m_{{{i}}} = \max(-\infty, {', '.join(map(tex_number, new_scores))}) = {tex_number(m)},\ "
               rf"\ell_{{{i}}} = {' + '.join(tex_new)} = {_tex_sum(exps)}")
        return text, tex
    old_m, old_l, old_sink = old
    inputs = ", ".join(map(notation.format_exact, [old_m, *new_scores]))
    factor = f"e^({notation.format_exact(old_m)}-{exponent_term(m)})"
    tex_factor = f"e^{{{tex_number(old_m)}-{tex_grouped(m)}}}"
    rescale = step.rescale[i]
    if TYPE_CHECKING:  # None only for a row's first kept keys, handled above
        assert rescale is not None
    if rescale == 0:
        moved = f"the maximum stays, so the rescale factor is {factor} = e^0 = 1"
    else:
        moved = f"the maximum rises, so the old ℓ_{i} is rescaled by {factor} = {notation.exponential(rescale)}"
    text = (f"Row {i}: m_{i} = max({inputs}) = {m_text}; {moved}: ℓ_{i} = {factor}·({ell_text(old_l, sink=old_sink)})"
            f" + {' + '.join(named_new)} = {ell}.")
    tex = (rf"m_{{{i}}} = \max({', '.join(map(tex_number, [old_m, *new_scores]))}) = {tex_number(m)},\ "
           rf"\ell_{{{i}}} = {tex_factor}\left({_tex_sum(old_l, old_sink)}\right) + {' + '.join(tex_new)} = "
           rf"{_tex_sum(exps, sink)}")
    if attention.values is not None:
        text += (f" The output accumulator is rescaled the same way: Õ_{i} = {factor}·Õ_{i} + "
                 + " + ".join(f"e^({notation.format_exact(s)}-{exponent_term(m)})·V_{j}"
                              for s, j in zip(new_scores, new))
                 + ".")
    return text, tex


def _final_section(attention: Attention, steps: Sequence[FlashStep], skipped: Sequence[Tile]) -> Section:
    """Row by row: e^(s−m_i)/ℓ_i, multiplied above and below by e^(m_i), is the one-shot named softmax."""
    final: dict[int, tuple[Exact, tuple[Exact, ...], tuple[int, ...], Exact | None]] = {}
    for step in steps:
        for i in step.m:
            final[i] = (step.m[i], step.l[i], step.seen[i], step.sink.get(i))
    parts: list[str] = []
    if skipped:
        parts.append("Skipped at the end, fully masked: " + notation.and_list(map(_tile_name, skipped)) + ".")
    parts.append("After the last tile each weight is e^(s_ij−m_i)/ℓ_i. Multiplying it above and below by e^(m_i) "
                 "adds m_i back to every exponent, term by term, so it is the one-shot named softmax of the full "
                 "figure:")
    n_q = attention.shape[0]
    for i in range(1, n_q + 1):
        weights = attention.weights(i - 1)
        if i not in final:
            parts.append(f"Row {i} keeps no key, so its softmax is undefined, tiled or not." if weights.sink is None
                         else f"Row {i} keeps no key: the sink takes the whole row, and every weight is 0.")
            continue
        m, exps, seen, sink = final[i]
        one_shot = _one_shot(weights, i)
        tiled = [f"{notation.exponential(x)}/({ell_text(exps, sink=sink)})" for x in exps]
        pairs = ", ".join(f"{t} = {o}" for t, o in zip(tiled, one_shot))
        if sink is not None:
            pairs += (f"; the sink's share {ell_text((), sink=sink)}/({ell_text(exps, sink=sink)}) = "
                      f"{notation.sink_share(weights, 'expanded', i)}")
        parts.append(f"Row {i} (m_{i} = {notation.format_exact(m)}, keys {', '.join(map(str, seen))}): {pairs}.")
    if attention.values is not None:
        parts.append("Likewise each output O_i = Õ_i/ℓ_i is the figure's Σ_j w_ij·V_j.")
    last = max(final) if final else None
    formula = (r"\frac{e^{s_{ij}-m_i}}{\sum_t e^{s_{it}-m_i}} = \frac{e^{-m_i}\,e^{s_{ij}}}{e^{-m_i}\sum_t "
               r"e^{s_{it}}} = \frac{e^{s_{ij}}}{\sum_t e^{s_{it}}}")
    if last is not None:
        m, exps, seen, sink = final[last]
        scores = [x + m for x in exps]
        formula += (rf",\quad \text{{row {last}: }}\frac{{e^{{{tex_exponent(exps[-1])}}}}}{{{_tex_sum(exps, sink)}}} "
                    rf"= \frac{{e^{{{tex_exponent(scores[-1])}}}}}"
                    rf"{{{_tex_sum(scores, None if sink is None else sink + m)}}}")
    outputs = ("output",) if attention.values is not None else ()
    return Section(heading="Tiled softmax equals the one-shot softmax", paragraphs=(" ".join(parts),),
                   formula=formula, highlight=("softmax", *outputs))


def _one_shot(weights: Weights, i: int) -> list[str]:
    """Row `i`'s one-shot weights, each with its sum written out: the last step's comparison needs the sums in full,
    whatever form the figure writes them in, so a row too long is refused without advice to change the form."""
    try:
        return notation.weight_terms(weights, "expanded", i)
    except InputError as err:
        raise InputError(err.what.split(": this form")[0] + "; the last step compares every row's tiled and "
                         "one-shot weights with their sums written out: use fewer tokens or shorter numbers",
                         "flash") from None


def _figures(fig: Figure, words: FigureText, steps: Sequence[FlashStep], all_tiles: Sequence[Tile],
             document: Document) -> list[Figure]:
    attention = fig.attention
    if TYPE_CHECKING:  # a walkthrough is of a full figure
        assert isinstance(attention, Attention)
        theme = cast("ThemeName", fig.theme)  # a figure keeps its theme's name as a str
    else:
        theme = fig.theme
    n_q = attention.shape[0]
    walked = [{(i, j) for i in tile.rows for j in tile.keys} for tile in all_tiles if not tile.skipped]
    last_step: dict[int, int] = {}  # row -> the step after which its state is final
    for n, step in enumerate(steps):
        for i in step.rows:
            last_step[i] = n
    figures: list[Figure] = []
    wraps: Wraps = {}  # the steps wrap much the same text: each line wrapped once
    overlays = [flash_overlay(steps, all_tiles, n + 1, n_q, words.softmax) for n in range(len(document.sections))]
    width = max(overlay.column_width() for overlay in overlays)  # every step the same size: slides do not jump
    for n, section in enumerate(document.sections):
        final = n == len(steps)
        pending_cells = frozenset().union(*walked[n + 1:]) if not final else frozenset()
        rows = frozenset() if final else frozenset(i for i in range(1, n_q + 1) if last_step.get(i, len(steps)) > n)
        targets: list[HighlightTarget] = list(section.highlight)
        if not final:  # a row's softmax and output appear, highlighted, once its last tile is done
            done = [i for i, last in last_step.items() if last == n]
            targets += [f"softmax={i}" for i in done]
            targets += [f"output={i}" for i in done] if attention.values is not None else []
        marks = parse_targets(targets, attention)
        overlay = replace(overlays[n], width=width)
        figures.append(OverlaidFigure(attention, marks, at_step(words, marks, pending_cells, rows, rows),
                                      id_prefix=section.id_prefix, theme=theme, embed_font=fig.embed_font,
                                      frame=fig.frame, overlays=(overlay,)).as_step(wraps))
    return figures
