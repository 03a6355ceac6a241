"""`attnviz walkthrough --decode P`: KV-cache decoding, a prefill step then one step per generated token.

The first P tokens are the prompt: one prefill step computes their P×P grid and fills the cache.
Each later token t appends K_t and V_t to the cache (evicting what its mask no longer reaches: a
sliding window drops its oldest key, a chunk boundary drops the previous chunk), then computes one
query row, Q_t against every cached key, and its named softmax. That row is the same row of the
full figure, which the step says and the tests check. The cache after step t is the set of keys
query t attends to; the masks real decoders use (causal, window=W, chunk=C) all work this way.
"""

from __future__ import annotations

from dataclasses import replace

from ...words import notation
from ...words.figure_text import DEFAULT_SUBTITLE, ROUNDED_SUBTITLE, at_step
from ..document import Section, make_document
from ...engine.decode import DecodeStep, cache_slots, decode_steps, keys_text as _keys
from ...figures.overlaid import OverlaidFigure
from ...layout.cache_strip import CacheStrip, Slot
from ...layout.frames import get_frame
from ...words.short_labels import short_label
from ...figures.api import Figure
from ...words.highlight import parse_targets
from ...numbers.exact import InputError
from .state_text import state_in_text
from .scores import LEGEND, softmax_section, tex_number, check_walk_size, kept_rows
from .number_forms import written_as_given

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import cast

    from ...engine.attention import Attention
    from ...typing import HighlightTarget, ThemeName
    from ...words.figure_text import FigureText
    from ...words.highlight import Highlight
    from ..document import Document
    from ...layout.figure import Wraps

__all__ = ["DecodeStep", "decode_steps", "decode_walkthrough", "matrix_tex"]

SERIES = "Decoding with a KV cache"
MAX_MATRIX = 8  # the prefill's scores written as a matrix up to this many tokens; larger prompts in words


def _count(n: int, noun: str = "key") -> str:
    return f"{n} {noun}{'s' * (n != 1)}"


@written_as_given("scores")
def decode_walkthrough(fig: Figure, prompt: int) -> tuple[Document, list[Figure]]:
    """(Document, figures) for decoding `fig` (an `attnviz.Figure`) after a prompt of `prompt` tokens."""
    attention, words = fig.attention, fig.words
    if TYPE_CHECKING:  # a walkthrough is of a full figure: its vectors and its words
        assert isinstance(attention, Attention) and isinstance(words, FigureText)
        theme = cast("ThemeName", fig.theme)  # a figure keeps its theme's name as a str
    else:
        theme = fig.theme
    prefill_cache, steps = decode_steps(attention, prompt)
    n = attention.shape[0]
    check_walk_size(len(steps) + 1, n * n, f"the prefill and {len(steps):,} decoded tokens", "decode")
    words = replace(words, grid_caption=f"{words.grid_caption}; decoded with a KV cache after a prompt of {prompt}")
    sections = [_prefill_section(attention, prompt, prefill_cache)]
    sections += [_step_section(step, n, prompt, attention, words) for step in steps]
    mask = attention.mask
    intro = (f"The first {_count(prompt, 'token')} are the prompt and the other {n - prompt} are generated one at a "
             f"time. The prefill step computes the prompt's {prompt}×{prompt} grid with the {mask.name} mask "
             f"({mask.rule}) and fills the cache with its keys and values. Each decode step appends one token's key "
             "and value to the cache, evicting the keys the mask no longer reaches, and computes that token's one "
             "query row against every cached key. Every row equals the same row of the full "
             f"{n}×{n} figure. What is not yet computed is empty.")
    document = make_document(title=SERIES, heading=f"{words.title}: decoding with a KV cache",
                             intro=(intro,), legend=LEGEND, sections=sections)
    caches = [_cache_line("the prompt", prefill_cache, ())]
    caches += [_cache_line(f"token {step.t}", step.after, step.evicted) for step in steps]
    steps_words: list[tuple[Highlight, FigureText]] = []
    outputs = attention.values is not None
    for number, section in enumerate(document.sections):
        last = prompt + number  # rows up to this one are computed
        later = range(last + 1, n + 1)
        cells = frozenset((i, j) for i in later for j in range(1, n + 1))
        marks = parse_targets(list(section.highlight), attention)
        steps_words.append((marks, at_step(words, marks, cells, frozenset(later),
                                           frozenset(later) if outputs else frozenset())))
    wraps: Wraps = {}  # the steps wrap much the same text: each line wrapped once
    if words.subtitle in (DEFAULT_SUBTITLE, ROUNDED_SUBTITLE):  # no subtitle of the user's: it states the cache
        with_cache = [(marks, replace(w, subtitle=cache)) for (marks, w), cache in zip(steps_words, caches)]
        if _same_size(Figure(attention, marks, w, frame=fig.frame).as_step(wraps) for marks, w in with_cache):
            steps_words = with_cache  # (unless one would wrap differently: slides must not jump)
    # (in a slide or column a cache slot draws a long label's first characters; its sentence names it whole)
    strips = cache_strips(attention, prompt, words.k_labels, short=get_frame(fig.frame).name != "doc")
    figures: list[Figure] = [
        OverlaidFigure(attention, marks, w, id_prefix=section.id_prefix, theme=theme, embed_font=fig.embed_font,
                       frame=fig.frame, overlays=(strip,)).as_step(wraps)
        for (marks, w), section, strip in zip(steps_words, document.sections, strips)]
    return state_in_text(document, figures)


def _same_size(figures: Iterable[Figure]) -> bool:
    """Whether every figure has the same size (False when a frame refuses one: the steps keep their words)."""
    try:
        return len({(layout.width, layout.height) for layout in (figure.layout() for figure in figures)}) == 1
    except InputError:
        return False


def cache_strips(attention: Attention, prompt: int, labels: Sequence[str] = (),
                 short: bool = False) -> list[CacheStrip]:
    """The cache's strip after the prefill and after each decoded token (`layout.cache_strip`); each slot
    names its key by its label in the figure (`labels`: K1.. or the tokens), drawn shortened if `short`
    (a slide's or column's: `words.short_labels`) and said whole."""
    size, states = cache_slots(attention, prompt)
    n = attention.shape[0]
    if size is not None:
        rule = f"{size} slots: key k in slot (k−1) mod {size}"
    elif any(held != {k - 1: k for k in range(1, t + 1)} for t, held in states):
        rule = "the cached keys in order"
    else:
        rule = "a growing cache: key k in slot k−1"
    strips = []
    for t, held in states:
        count = size if size is not None else len(held)
        named = [labels[held[s] - 1] if s in held and labels else "" for s in range(count)]
        shown = [short_label(name) if short else name for name in named]
        slots = tuple(Slot(s, held.get(s), held.get(s) == t or (t == prompt and s in held), name,
                           drawn if drawn != name else "") for s, (name, drawn) in enumerate(zip(named, shown)))
        cached = set(held.values())
        heading = f"KV cache after the prompt (token {t})" if t == prompt else f"KV cache after token {t}"
        strips.append(CacheStrip(t, heading, rule, slots, tuple(k for k in range(1, t + 1) if k not in cached),
                                 tuple(range(t + 1, n + 1))))
    extents = [strip.extent() for strip in strips]  # every step the same size: slides do not jump
    reserve = (max(w for w, _ in extents), max(h for _, h in extents))
    most = (max(len(strip.slots) for strip in strips), max(strip.slot_width() for strip in strips))
    return [replace(strip, reserve=reserve, most=most) for strip in strips]


def _cache_line(after: str, cache: Sequence[int], evicted: Sequence[int]) -> str:
    """`KV cache after token 5: K3–K5 (3 keys); K2 evicted.`"""
    line = f"KV cache after {after}: {_keys(cache)} ({_count(len(cache))})"
    return line + (f"; {_keys(evicted)} evicted." if evicted else ".")


def _highlight(rows: Iterable[int], attention: Attention) -> tuple[HighlightTarget, ...]:
    kept = kept_rows(attention)
    cells = tuple((i, j) for i in rows for j in range(1, attention.shape[1] + 1) if kept[i - 1][j - 1])
    outputs: tuple[str, ...] = tuple(f"output={i}" for i in rows) if attention.values is not None else ()
    return cells + tuple(f"softmax={i}" for i in rows) + outputs


def _prefill_section(attention: Attention, prompt: int, cache: Sequence[int]) -> Section:
    mask = attention.mask
    rows = kept_rows(attention)
    kept = sum(rows[i][j] for i in range(prompt) for j in range(prompt))
    evicted = [j for j in range(1, prompt + 1) if j not in cache]
    keeps = f"The cache holds {_keys(cache)} and {_keys(cache, 'V')} ({_count(len(cache))})"
    if evicted:
        keeps += f"; {_keys(evicted)} are already outside what the {mask.name} mask reaches and are not kept"
    paragraph = (f"The prompt, tokens 1–{prompt}, is computed at once: the {prompt}×{prompt} grid of the {mask.name} "
                 f"mask ({mask.rule}) keeps {_count(kept, 'score')}, and each of its {_count(prompt, 'row')} gets its "
                 f"named softmax, as in the full figure. {keeps}.")
    formula = matrix_tex(attention, prompt, prompt)
    return Section(heading=f"Prefill: the prompt's {_count(prompt, 'token')}", paragraphs=(paragraph,),
                   formula=formula, highlight=_highlight(range(1, prompt + 1), attention))


def matrix_tex(attention: Attention, n_q: int, n_k: int, superscript: str = "") -> str | None:
    """The first n_q×n_k scores (logits, when scaled or biased) as a TeX matrix, masked cells a dot;
    None when it is larger than MAX_MATRIX a side (the sentences say it in words)."""
    if max(n_q, n_k) > MAX_MATRIX:
        return None
    shown = attention.scores if attention.logits is None else attention.logits
    kept = kept_rows(attention)
    rows = []
    for i in range(n_q):
        row = shown[i]
        assert row is not None  # a matrix is written of a figure drawn whole
        rows.append(" & ".join(tex_number(row[j]) if kept[i][j] else r"\cdot" for j in range(n_k)))
    letter = "L" if attention.transformed else "S"
    return (rf"{letter}{superscript}_{{1..{n_q},\,1..{n_k}}} = \begin{{pmatrix}} " + r" \\ ".join(rows)
            + r" \end{pmatrix}")


def _step_section(step: DecodeStep, n: int, prompt: int, attention: Attention, words: FigureText) -> Section:
    t, mask = step.t, attention.mask
    cached = len(step.attended) - 1
    before = f"before, it held {_keys(step.before)} ({_count(len(step.before))})"
    after = f"after, {_keys(step.after)} ({_count(len(step.after))})"
    evicts = ""
    if step.evicted:
        evicts = (f"; appending evicts {_keys(step.evicted)}, which the {mask.name} mask ({mask.rule}) no longer "
                  "reaches")
    span = _keys(step.attended, "")
    keys_word = "key" if len(step.attended) == 1 else "keys"
    scores = ", ".join(f"S_{{{t},{j}}} = Q{t}·K{j} = {notation.format_exact(s)}"
                       for j, s in zip(step.attended, step.scores))
    softmax = softmax_section(t, attention, words.softmax_rows[t - 1].weights, words.softmax)
    paragraph = (f"Token {t}'s key K{t} and value V{t} are appended to the cache: {before}; {after}{evicts}. "
                 f"Query {t} attends to {keys_word} {span}: {cached} cached + 1 new. Its scores: {scores}. "
                 f"{softmax.paragraphs[0]} This row equals row {t} of the full {n}×{n} {mask.name} figure.")
    return Section(heading=f"Decode step {t - prompt}: token {t}", paragraphs=(paragraph,),
                   formula=softmax.formula, highlight=_highlight((t,), attention))
