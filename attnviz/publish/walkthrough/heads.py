"""`attnviz walkthrough` of several heads: one step per query head, in order.

Each step computes one head's figure (its scores against the KV head it reads, the mask, its
named softmax): that panel is highlighted, earlier heads stay drawn, later heads are empty.
"""

from __future__ import annotations

from ...words import notation
from ...words.figure_text import at_step
from ..document import Section, make_document
from ...figures.api import Figure
from ...figures.heads import HeadsFigure, kind
from ...words.highlight import parse_targets
from .scores import LEGEND, check_walk_size, kept_rows
from .decode import matrix_tex
from .number_forms import written_as_given

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from typing import cast

    from ...engine.attention import Attention
    from ...typing import HighlightTarget, ThemeName
    from ...words.figure_text import FigureText
    from ..document import Document

__all__ = ["heads_walkthrough"]

SERIES = "Attention heads, one at a time"


@written_as_given("scores")
def heads_walkthrough(fig: HeadsFigure) -> tuple[Document, list[HeadsFigure]]:
    """(Document, figures) for a `heads.HeadsFigure`: one step per query head."""
    if TYPE_CHECKING:  # a heads figure's panels are full figures, one per query head
        panels = cast("tuple[Figure, ...]", fig.panels)
        kv_heads = fig.kv_heads
    else:
        panels, kv_heads = fig.panels, fig.kv_heads
    n_heads, n_kv = len(panels), len(set(kv_heads))
    cells = sum(_attention(panel).shape[0] * _attention(panel).shape[1] for panel in panels)
    check_walk_size(n_heads, cells, f"one per query head, {len(panels)} panels a step", "q_heads")
    group = n_heads // n_kv
    sections = [_head_section(h, panel, g, group) for h, (panel, g) in enumerate(zip(panels, kv_heads))]
    what: str = kind(n_heads, n_kv)
    intro = (f"{_sentence(what)}: "
             f"{n_heads} query heads over {n_kv} KV head{'s' * (n_kv > 1)}, each query head h reading KV head "
             f"⌊(h−1)/{group}⌋+1. One step per query head: its exact scores against the keys it reads, the mask, "
             "and its named softmax. Heads not yet computed are empty.")
    document = make_document(title=SERIES, heading=f"{fig.title or 'Attention heads'}, head by head",
                             intro=(intro,), legend=LEGEND, sections=sections)
    figures: list[HeadsFigure] = []
    for step, section in enumerate(document.sections):
        at_this_step = [_panel_at(panel, "done" if h < step else "now" if h == step else "later")
                        for h, panel in enumerate(panels)]
        figures.append(HeadsFigure(
            at_this_step, fig.kv_heads, base=fig.base, arrange=fig.arrange, title=fig.title,
            id_prefix=section.id_prefix, theme=fig.theme, embed_font=fig.embed_font, frame=fig.frame))
    return document, figures


def _attention(panel: Figure) -> Attention:
    """A panel's attention: every panel of a heads figure has its vectors."""
    attention = panel.attention
    if TYPE_CHECKING:
        assert isinstance(attention, Attention)
    return attention


def _sentence(text: str) -> str:
    return text[0].upper() + text[1:]


def _panel_at(panel: Figure, when: str) -> Figure:
    """A head's panel before ("later": empty), at ("now": highlighted) or after ("done") its step."""
    attention, words = _attention(panel), panel.words
    if TYPE_CHECKING:  # a panel is a full figure: its words are a FigureText
        assert isinstance(words, FigureText)
        theme = cast("ThemeName", panel.theme)  # a figure keeps its theme's name as a str
    else:
        theme = panel.theme
    n_q, n_k = attention.shape
    rows = frozenset(range(1, n_q + 1))
    if when == "later":
        cells = frozenset((i, j) for i in rows for j in range(1, n_k + 1))
        marks = parse_targets(None, attention)
        return Figure(attention, marks, at_step(words, marks, cells, rows, rows), theme=theme,
                      embed_font=panel.embed_font, frame=panel.frame)
    kept = kept_rows(attention)
    targets: list[HighlightTarget] = [(i, j) for i in rows for j in range(1, n_k + 1) if kept[i - 1][j - 1]]
    targets.append("softmax")
    marks = parse_targets(targets if when == "now" else None, attention)
    return Figure(attention, marks, at_step(words, marks), theme=theme, embed_font=panel.embed_font, frame=panel.frame)


def _head_section(h: int, panel: Figure, g: int, group: int) -> Section:
    attention, words = _attention(panel), panel.words
    if TYPE_CHECKING:  # a panel is a full figure: its words are a FigureText
        assert isinstance(words, FigureText)
    first, last = g * group + 1, (g + 1) * group
    shared = "" if group == 1 else f", which query heads {first}–{last} share"
    mask = attention.mask
    rows = "; ".join(f"row {row.q}: {row.weights}" for row in words.softmax_rows)
    scores = "; ".join(f"[{','.join(notation.format_exact(s) for s in attention.kept_scores(i))}]"
                       for i in range(attention.shape[0]))
    paragraph = (f"Query head {h + 1} reads KV head {g + 1}{shared}: its scores S_ij = Qi·Kj take Q from query head "
                 f"{h + 1} and K from KV head {g + 1}. The {mask.name} mask keeps {mask.rule}; the kept scores, row "
                 f"by row, are {scores}. Its softmax, named: {rows}.")
    n_q, n_k = attention.shape
    return Section(heading=f"Query head {h + 1}", paragraphs=(paragraph,),
                   formula=matrix_tex(attention, n_q, n_k, superscript=f"^{{({h + 1})}}"), highlight=())
