"""`attnviz walkthrough --split-kv C`: Flash-Decoding, the keys cut into chunks of C computed side by side, then the
combine step, then the proof that the result is the one-shot softmax and the sequential FlashAttention walk's.

Each chunk step outlines every chunk's key columns (this one's bold) and fills this chunk's strip beside the grid:
per row its own m_c and ℓ_c (and partial output, with V). The combine step fills the last strip: m = max m_c,
ℓ = Σ e^(m_c − m)·ℓ_c, O = Σ e^(m_c − m)·ℓ_c·O_c / ℓ. The numbers come from `engine.split_kv`; the check against the
sequential walk from `engine.tiled_softmax`.
"""

from __future__ import annotations

from ...engine.split_kv import split_kv_states
from ...engine.tiled_softmax import flash_steps
from ...figures.overlaid import OverlaidFigure
from ...layout.frames import get_frame
from ...numbers.exact import InputError
from ...layout.flash_state import StateRow, TileBox
from ...layout.split_state import SplitOverlay, Strip
from ...records import replace
from ...words import notation
from ...words.figure_text import at_step
from ...words.highlight import parse_targets
from ..document import Section, make_document
from .flash_state import ell_text, exponent_term
from .scores import LEGEND, check_walk_size, fit_tex, tex_number
from .number_forms import written_as_given
from .state_text import state_in_text

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ...engine.attention import Attention
    from ...engine.split_kv import ChunkState, Combined, SplitKV
    from ...figures.figure import Figure
    from ...layout.figure import Wraps
    from ...typing import Exact, HighlightTarget
    from ...words.figure_text import FigureText
    from ..document import Document

__all__ = ["split_kv_walkthrough"]

SERIES = "Flash-Decoding, chunk by chunk"


@written_as_given("logits")
def split_kv_walkthrough(fig: Figure, chunk: int) -> tuple[Document, list[Figure]]:
    """(Document, figures) for Flash-Decoding of `fig` (an `attnviz.Figure`) with chunks of `chunk` keys."""
    attention = fig.attention
    if TYPE_CHECKING:
        assert isinstance(attention, Attention) and isinstance(fig.words, FigureText)
    run = split_kv_states(attention, chunk)
    n_q, n_k = attention.shape
    check_walk_size(len(run.chunks) + 2, n_q * n_k, f"{len(run.chunks)} chunks, the combine and the final step",
                    "split_kv")
    _check_against_sequential(attention, run)
    count = len(run.chunks)
    sections = [_chunk_section(state, count, attention) for state in run.chunks]
    sections += [_combine_section(run, attention), _final_section(run, attention)]
    words = replace(fig.words, grid_caption=f"{fig.words.grid_caption}, keys in {count} chunk{'s' * (count != 1)} "
                                            f"of {run.chunk}")
    document = make_document(title=SERIES, heading=f"{words.title}: Flash-Decoding in chunks of {run.chunk} keys",
                             intro=(_intro(attention, run),), legend=LEGEND, sections=sections)
    with_outputs = _figures(fig, words, run, document, attention.values is not None)
    if attention.values is None or _fits(with_outputs):  # each chunk's O_c in its strip where the frame holds it
        return state_in_text(document, with_outputs)
    return state_in_text(document, _figures(fig, words, run, document, False))


def _fits(figures: Sequence[Figure]) -> bool:
    """Whether every step fits its frame at its floor (a doc figure always does)."""
    if get_frame(figures[0].frame).name == "doc":
        return True
    try:
        for step in figures:
            step.layout()
    except InputError as refused:
        if refused.where != "frame":
            raise
        return False
    return True


def _check_against_sequential(attention: Attention, run: SplitKV) -> None:
    """The combined m and ℓ are the sequential FlashAttention walk's final state (tiles of every query × C keys)."""
    final: dict[int, tuple[Exact, tuple[Exact, ...]]] = {}
    for step in flash_steps(attention, (attention.shape[0], run.chunk)):
        final.update({i: (step.m[i], step.l[i]) for i in step.m})
    combined = {i: (run.combined.m[i], run.combined.l[i]) for i in run.combined.m}
    if final != combined:  # an internal error: the two computations are each checked against brute force
        raise AssertionError(f"split-KV and sequential states differ: {combined} != {final}")


def _intro(attention: Attention, run: SplitKV) -> str:
    n_q, n_k = attention.shape
    word = "logits" if attention.transformed else "scores"
    return (f"The {n_k} keys are cut into {len(run.chunks)} chunks of {run.chunk}, which Flash-Decoding computes side "
            f"by side (in parallel, one split each) for the {n_q} quer{'y' if n_q == 1 else 'ies'}. Each chunk c keeps "
            f"its own maximum m_c over its kept {word}, its own normaliser ℓ_c = Σ e^(s−m_c) and its partial output "
            "O_c; no chunk waits for another. The combine step then takes m = max_c m_c and rescales each chunk by "
            "e^(m_c−m): ℓ = Σ_c e^(m_c−m)·ℓ_c and O = Σ_c e^(m_c−m)·ℓ_c·O_c/ℓ. Exponents add, so every term stays "
            "exact, and the last step shows the result is the one-shot softmax and the sequential FlashAttention "
            "walk's.")


def _span(keys: Sequence[int]) -> str:
    return f"key {keys[0]}" if len(keys) == 1 else f"keys {keys[0]}–{keys[-1]}"


def _exp_terms(exponents: Sequence[Exact], keys: Sequence[int]) -> str:
    return "+".join(f"{notation.exponential(x)}·V{j}" for x, j in zip(exponents, keys))


def _chunk_section(state: ChunkState, count: int, attention: Attention) -> Section:
    """Chunk c on its own: each row's m_c, ℓ_c (and O_c)."""
    letter = "L" if attention.transformed else "S"
    logits = attention.scores if attention.logits is None else attention.logits
    parts = [f"Chunk {state.index} of {count}, {_span(state.keys)}, on its own split (the other chunks run at the "
             "same time)."]
    formulas = []
    for i in range(1, attention.shape[0] + 1):
        if i not in state.m:
            parts.append(f"Row {i} keeps no key of this chunk: m = −∞, ℓ = 0, it adds nothing.")
            continue
        m, exps, seen = state.m[i], state.l[i], state.seen[i]
        inputs = ", ".join(notation.logit_text(logits[i - 1][j - 1]) for j in seen)  # type: ignore[index]
        text = (f"Row {i}: m = max({inputs}) = {notation.format_exact(m)} over {letter}_{{{i},j}} for j in "
                f"{', '.join(map(str, seen))}; ℓ = {ell_text(exps)}.")
        if attention.values is not None:
            text += f" Partial output O, times ℓ: ℓ·O = {_exp_terms(exps, seen)}."  # (a sum breaks between terms)
        parts.append(text)
        formulas.append(rf"m^{{({state.index})}}_{{{i}}} = {tex_number(m)},\ \ell^{{({state.index})}}_{{{i}}} = "
                        + "+".join(f"e^{{{tex_number(x)}}}" for x in exps))
    heading = f"Chunk {state.index}: {_span(state.keys).replace('–', '-')}"
    cells = tuple((i, j) for i, seen in state.seen.items() for j in seen)
    return Section(heading=heading, paragraphs=(" ".join(parts),), formula=fit_tex(formulas, r";\quad "),
                   highlight=cells)


def _combine_section(run: SplitKV, attention: Attention) -> Section:
    """m = max m_c; ℓ = Σ e^(m_c − m)·ℓ_c; O = Σ e^(m_c − m)·ℓ_c·O_c/ℓ."""
    combined = run.combined
    parts = ["The combine step: each row's chunk states are rescaled to the largest maximum and added."]
    formulas = []
    for i in range(1, attention.shape[0] + 1):
        if i not in combined.m:
            parts.append(f"Row {i} keeps no key, so its softmax is undefined, split or not.")
            continue
        parts.append(_combine_sentence(run, combined, i, attention.values is not None))
        factors = "+".join(rf"e^{{{tex_number(run.chunks[c - 1].m[i])}-{tex_number(combined.m[i])}}}"
                           rf"\ell^{{({c})}}_{{{i}}}" for c, _ in combined.factors[i])
        formulas.append(rf"\ell_{{{i}}} = {factors}")
    return Section(heading="Combine the chunks", paragraphs=(" ".join(parts),),
                   formula=fit_tex(formulas, r";\quad "), highlight=("softmax",))


def _combine_sentence(run: SplitKV, combined: Combined, i: int, values: bool) -> str:
    m = combined.m[i]
    maxima = ", ".join(notation.format_exact(run.chunks[c - 1].m[i]) for c, _ in combined.factors[i])
    rescaled = " + ".join(f"e^({notation.format_exact(run.chunks[c - 1].m[i])}-{exponent_term(m)})·"
                          f"({ell_text(run.chunks[c - 1].l[i])})" for c, _ in combined.factors[i])
    text = (f"Row {i}: m = max({maxima}) = {notation.format_exact(m)}; ℓ = {rescaled} = {ell_text(combined.l[i])}.")
    if values:
        text += (" ℓ·O = Σ_c e^(m_c−m)·ℓ_c·O_c = " + _exp_terms(combined.l[i], combined.seen[i]) + ": each "
                 "chunk's ℓ_c cancels its own O_c's denominator.")
    return text


def _final_section(run: SplitKV, attention: Attention) -> Section:
    """The combined state is the one-shot softmax and the sequential FlashAttention walk's final state."""
    parts = ["Each combined term is e^((m_c−m)+(s−m_c)) = e^(s−m), so e^(s_ij−m)/ℓ is the one-shot named softmax, "
             f"term by term; and the sequential FlashAttention walk over tiles of {attention.shape[0]} "
             f"quer{'y' if attention.shape[0] == 1 else 'ies'} × {run.chunk} keys ends with the same m and ℓ "
             "(attnviz computes both and checks it)."]
    for i in sorted(run.combined.m):
        weights = notation.weight_terms(attention.weights(i - 1), "expanded", i)
        parts.append(f"Row {i}: {', '.join(weights)}.")
    formula = (r"\ell = \sum_c e^{m_c-m}\sum_{j\in c} e^{s_j-m_c} = \sum_j e^{s_j-m},\quad "
               r"\frac{e^{s_j-m}}{\ell} = \frac{e^{s_j}}{\sum_t e^{s_t}}")
    outputs = ("output",) if attention.values is not None else ()
    return Section(heading="Split-KV equals the one-shot softmax", paragraphs=(" ".join(parts),), formula=formula,
                   highlight=("softmax", *outputs))


def _strips(run: SplitKV, done: int, n_q: int, form: str, outputs: bool = False) -> tuple[Strip, ...]:
    """Every chunk's strip after `done` chunk steps (filled up to it), then the combine strip (filled after);
    `outputs`: each row's partial output O_c (and the combined O) as its last line."""
    strips = []
    for state in run.chunks:
        rows = tuple(_row(i, state.m.get(i), state.l.get(i, ()), form, state.seen.get(i, ()) if outputs else None)
                     for i in range(1, n_q + 1)) if state.index <= done else ()
        strips.append(Strip(f"chunk {state.index}", rows, state.index == done,  # its keys: outlined on the grid
                            f"{state.keys[0]}-{state.keys[-1]}"))
    # (a chunk's ℓ is ℓ_c in the combined strip: the strip's heading names c)
    rows = tuple(_combined_row(run, i, outputs) for i in range(1, n_q + 1)) if done > len(run.chunks) else ()
    strips.append(Strip("combined", rows, done == len(run.chunks) + 1))
    return tuple(strips)


def _combined_row(run: SplitKV, i: int, outputs: bool = False) -> StateRow:
    """Row i after the combine step: m = max m_c and ℓ = Σ e^(m_c − m)·ℓ_c, each ℓ_c named by its chunk (the
    strips beside it hold their terms; the document writes the sum out); with `outputs`, O = Σ e^(m_c − m)·ℓ_c·O_c/ℓ."""
    combined = run.combined
    if i not in combined.m:
        return StateRow(i, "-inf", ("m = −∞", "ℓ = 0") + (("O: none",) if outputs else ()))
    m_text = notation.format_exact(combined.m[i])
    terms = [("" if x == 0 else notation.exponential(x), c) for c, x in combined.factors[i]]
    lines: tuple[str, ...] = (f"m = {m_text}", "ℓ = " + "+".join(f"{f}{'·' if f else ''}ℓ{c}" for f, c in terms))
    typeset: tuple[str, ...] = (f"m = {m_text}", "ℓ = " + "+".join(f"{f}ℓ_{c}" for f, c in terms))
    if outputs:
        lines += ("ℓ·O = " + "+".join(f"{f}{'·' if f else ''}ℓ{c}·O{c}" for f, c in terms),)
        typeset += ("ℓO = " + "+".join(f"{f}ℓ_{c}O_{c}" for f, c in terms),)
    return StateRow(i, m_text, lines, notation=typeset)


def _row(i: int, m: Exact | None, exps: Sequence[Exact], form: str, seen: Sequence[int] | None = None) -> StateRow:
    """Row i's state in one chunk (beside row i of the grid: no index); `seen`, the keys it kept, writes its partial
    output O_c as a last line, times ℓ_c: ℓ·O = Σ e^(s−m_c)·V_j (a sum that breaks between its terms)."""
    output = () if seen is None else (("O: none",) if m is None else (f"ℓ·O = {_exp_terms(exps, seen)}",))
    if m is None:
        return StateRow(i, "-inf", ("m = −∞", "ℓ = 0", *output))
    m_text, ell = notation.format_exact(m), ell_text(exps, form)
    typeset = tuple(line.replace("·V", "V_").replace("ℓ·O", "ℓO") for line in output)
    return StateRow(i, m_text, (f"m = {m_text}", f"ℓ = {ell}", *output),
                    notation=(f"m = {m_text}", f"ℓ = {ell}", *typeset) if output else ())


def _overlay(run: SplitKV, done: int, n_q: int, form: str, outputs: bool = False) -> SplitOverlay:
    tiles = tuple(TileBox((1, n_q), (state.keys[0], state.keys[-1]), False, state.index == done)
                  for state in run.chunks)
    count = len(run.chunks)
    heading = (f"after chunk {done} of {count} (side by side)" if done <= count else
               "after the combine step" if done == count + 1 else "final state")
    return SplitOverlay(tiles, heading, _strips(run, done, n_q, form, outputs))


def _figures(fig: Figure, words: FigureText, run: SplitKV, document: Document, outputs: bool = False) -> list[Figure]:
    """Each step's figure: every chunk outlined, the strips beside the grid (`outputs`: with each O_c)."""
    attention = fig.attention
    if TYPE_CHECKING:
        assert isinstance(attention, Attention)
    n_q = attention.shape[0]
    count = len(run.chunks)
    overlays = [_overlay(run, n + 1, n_q, words.softmax, outputs) for n in range(len(document.sections))]
    walk = tuple(overlay.strips for overlay in overlays)  # every strip as wide in every step: slides do not jump
    wraps: Wraps = {}
    figures: list[Figure] = []
    every_row = frozenset(range(1, n_q + 1))
    for n, section in enumerate(document.sections):
        later = {(i, j) for state in run.chunks[n + 1:] for i in range(1, n_q + 1) for j in state.keys}
        rows = every_row if n < count else frozenset()  # the softmax and output appear at the combine step
        targets: list[HighlightTarget] = list(section.highlight)
        marks = parse_targets(targets, attention)
        figures.append(OverlaidFigure(attention, marks, at_step(words, marks, frozenset(later), rows, rows),
                                      id_prefix=section.id_prefix, theme=fig.theme,
                                      embed_font=fig.embed_font, frame=fig.frame,
                                      overlays=(replace(overlays[n], walk=walk),)).as_step(wraps))
    return figures

