"""A deck of a figure's highlights (`attnviz slides` of a figure, not a walkthrough): a slide per highlighted
part, each highlighting that part alone; a mask map's highlights one by one; without highlights, one slide.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace

from ...figures.api import Figure
from ...figures.blocked import step_of
from ...words.a11y import figure_sentence
from ...words.figure_text import FigureText, at_step
from ...words.highlight import Highlight
from ...words.user_text import concat
from ...layout.items import Text
from ...numbers.exact import InputError
from ..document import Section, make_document
from .model import Deck, from_sections

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import cast

    from ...engine.attention import Attention
    from ...figures.api import Drawable
    from ...layout.figure import Layout
    from ...layout.mask_map import MapText
    from ...typing import ThemeName

__all__ = ["from_highlights"]


def _map_targets(computed: Sequence[Sequence[tuple[int, int]]]) -> list[list[tuple[int, tuple[int, int]]]]:
    """A mask map's highlighted runs grouped into targets: runs in rows next to each other whose columns
    overlap are one target (a cell, a row, the masked triangle); each target is its (row, run) pairs."""
    nodes = [(i, run) for i, row in enumerate(computed) for run in row]
    parent = list(range(len(nodes)))

    def root(n: int) -> int:
        while parent[n] != n:
            parent[n] = parent[parent[n]]
            n = parent[n]
        return n

    by_row: dict[int, list[int]] = {}
    for n, (i, _) in enumerate(nodes):
        by_row.setdefault(i, []).append(n)
    for n, (i, (first, last)) in enumerate(nodes):
        for m in by_row.get(i - 1, []):
            a, b = nodes[m][1]
            if a <= last and first <= b:
                parent[root(n)] = root(m)
    groups: dict[int, list[tuple[int, tuple[int, int]]]] = {}
    for n, node in enumerate(nodes):
        groups.setdefault(root(n), []).append(node)
    return list(groups.values())


def _mask_steps(fig: Figure, words: MapText) -> list[tuple[str, Drawable]]:
    """A mask map's highlight targets, one map each (its heading, its figure)."""
    steps: list[tuple[str, Drawable]] = []
    for target in _map_targets(words.computed):
        rows: list[list[tuple[int, int]]] = [[] for _ in words.computed]
        for i, run in target:
            rows[i].append(run)
        cells = sum(last - first + 1 for i, (first, last) in target)
        i, (j, _) = target[0]
        heading = (f"Cell {i + words.base},{j - 1 + words.base}" if cells == 1
                   else f"{cells:,} cells from row {i + words.base}")
        one = copy.copy(fig)
        one.words = replace(words, computed=tuple(tuple(row) for row in rows))
        one._id_prefix = None
        steps.append((heading, one))
    return steps


def from_highlights(fig: Drawable, **options: object) -> Deck:
    """A slide per highlighted part of `fig` (cells row by row, then softmax rows, then outputs; a mask
    map's highlights one by one), each slide highlighting that part alone; without highlights, one slide."""
    map_words = fig.words if isinstance(fig, Figure) and not isinstance(fig.words, FigureText) else None
    if isinstance(fig, Figure) and map_words is not None and any(map_words.computed):
        maps = _mask_steps(fig, map_words)
        title = fig.layout().title
        document = make_document(heading=title, sections=[Section(heading) for heading, _ in maps])
        said = tuple(replace(s, paragraphs=(f"{s.heading} highlighted.",)) for s in document.sections)
        deck = from_sections(replace(document, sections=said), [one for _, one in maps],
                             **options)  # type: ignore[arg-type]
        return replace(deck, heading=fig.layout().desc)
    if hasattr(fig, "panel_steps"):  # panels that are steps of their own (differential attention's: heads, difference)
        return _panel_by_panel(fig, getattr(fig, "deck_title", None) or fig.layout().title, options)
    if not isinstance(fig, Figure) or fig.view != "full":  # a mask map, a score table, panels: one slide
        document = make_document(heading=fig.layout().title, sections=[Section("figure")])
        section = replace(document.sections[0], heading=fig.layout().title, paragraphs=(fig.description(),))
        try:
            return (_with_panel_captions(fig, section, options)
                    or from_sections(replace(document, sections=(section,)), [fig], **options))  # type: ignore[arg-type]
        except InputError as refused:
            if refused.where != "slides" or not hasattr(fig, "for_frame"):  # (a sparse figure's panels: MoBA's, NSA's)
                raise
            return _panel_by_panel(fig, section.heading, options)
    marks, words, attention = fig.highlight, fig.words, fig.attention
    if TYPE_CHECKING:  # a full figure has its highlight, its words and its vectors
        assert marks is not None and isinstance(words, FigureText) and isinstance(attention, Attention)
    q_labels, k_labels = words.q_labels, words.k_labels
    steps = [(concat("Score of ", q_labels[i - 1], " and ", k_labels[j - 1]), Highlight(cells=frozenset({(i, j)})))
             for i, j in sorted(marks.cells)]
    steps += [(f"Softmax of row {i}", Highlight(softmax_rows=frozenset({i}))) for i in sorted(marks.softmax_rows)]
    steps += [(f"Output of row {i}", Highlight(outputs=frozenset({i}))) for i in sorted(marks.outputs)]
    if not steps:
        steps = [(words.title, marks)]
    document = make_document(heading=words.title, sections=[Section(heading) for heading, _ in steps])
    if TYPE_CHECKING:  # a figure keeps its theme's name as a str, always one of ThemeName's
        theme = cast("ThemeName", fig.theme)
    else:
        theme = fig.theme
    sections, figures = [], []
    for section, (_, step) in zip(document.sections, steps):
        step_words = at_step(words, step)
        figures.append(step_of(fig, attention, step, step_words, id_prefix=section.id_prefix, theme=theme,
                               embed_font=fig.embed_font, frame=fig.frame))
        sections.append(replace(section, paragraphs=(figure_sentence(attention, step, step_words.show),)))
    deck = from_sections(replace(document, sections=tuple(sections)), figures, **options)  # type: ignore[arg-type]
    return replace(deck, heading=words.subtitle)


def _with_panel_captions(fig: Drawable, section: Section, options: dict[str, object]) -> Deck | None:
    """Score grids side by side asked to show their softmax captions (`panel_captions="show"`) whose slide
    leaves them out: the figure's slide, then a slide per panel drawn alone with its captions (the same
    arrangement for all); None when they are drawn already, not asked for, or a panel alone drops them too."""
    given = getattr(fig, "panels", ())
    panels = [panel for panel in given if isinstance(panel, Figure)
              and isinstance(panel.words, FigureText) and panel.words.softmax_rows]
    if getattr(fig, "panel_captions", "") != "show" or not panels or len(panels) != len(given):
        return None
    titles = [panel.words.title if isinstance(panel.words, FigureText) else "" for panel in panels]
    headings = [concat(f"Panel {n}", *((": ", title) if title else ())) for n, title in enumerate(titles, 1)]
    document = make_document(heading=section.heading, sections=[Section(section.heading)]
                             + [Section(heading) for heading in headings])
    sections = [replace(document.sections[0], paragraphs=section.paragraphs)]
    sections += [replace(one, paragraphs=(concat(f"Panel {n}", *((" (", title, ")") if title else ()),
                                                 " drawn alone with its softmax captions: ", panel.description()),))
                 for n, (one, title, panel) in enumerate(zip(document.sections[1:], titles, panels), 1)]
    alone = [copy.copy(panel) for panel in panels]
    for one, section_of in zip(alone, sections[1:]):
        one._id_prefix = section_of.id_prefix  # (ids of its own: the figure's slide draws the same panel)
    try:
        deck = from_sections(replace(document, sections=tuple(sections)), [fig, *alone],
                             **options)  # type: ignore[arg-type]
    except InputError as refused:
        if refused.where != "slides":
            raise
        return None
    drawn = [slide.figure for slide in deck.slides if slide.kind == "step"][1:]
    if any(not _draws_captions(deck.laid_out[id(one)]) for one in drawn):
        return None
    return deck


#: What a deck of a figure's panels drawn one a slide says it chose (`Deck.choices`, `--verbose`).
ONE_PANEL_A_SLIDE = ("each panel on a slide of its own, in order (side by side they fit no slide with every text at "
                     "14 pt and their titles and rules whole)")
#: ... and of a figure whose panels are steps of their own (`panel_steps`: differential attention's heads, then their
#: difference).
PANEL_STEPS = "each panel on a slide of its own, in order, its sentences saying what it shows (the figure's steps)"


def _panel_by_panel(fig: Drawable, heading: str, options: dict[str, object]) -> Deck:
    """A slide per panel of `fig` (MoBA's gate, then its masked scores; NSA's branches, then their union), each
    panel drawn alone in the same region, under the figure's title and the panel's own: where the panels side by
    side fit no slide at the floor with their titles whole, or where they are steps of their own (`panel_steps`)."""
    steps = _steps(fig)
    document = make_document(heading=heading, sections=[Section(step.heading, step.paragraphs) for step in steps])
    sections = document.sections
    alone = [_alone(step.panel, section.id_prefix) for step, section in zip(steps, sections)]
    deck = from_sections(replace(document, sections=sections), alone, **options)  # type: ignore[arg-type]
    said = PANEL_STEPS if hasattr(fig, "panel_steps") else ONE_PANEL_A_SLIDE
    return replace(deck, heading=heading, choices=(said, *deck.choices))


@dataclass(frozen=True)
class _Step:
    """A panel's slide: its heading, its sentences, the panel."""

    heading: str
    paragraphs: tuple[str, ...]
    panel: Drawable


def _steps(fig: Drawable) -> Sequence[_Step]:
    """The slides of `fig`'s panels: the figure's own (`panel_steps`: each saying what its panel shows), else each
    panel under its title ("Panel 1 of 2 — …") with its description."""
    given = getattr(fig, "panel_steps", None)
    if given is not None:
        return given()  # type: ignore[no-any-return]  # (PanelStep records: the same three fields)
    panels = list(getattr(fig, "panels", ()))
    titles = [getattr(panel.words, "title", "") or "" for panel in panels]
    return [_Step(concat(f"Panel {n} of {len(panels)}", *((" — ", title) if title else ())), (panel.description(),),
                  panel) for n, (title, panel) in enumerate(zip(titles, panels), 1)]


def _alone(panel: Drawable, id_prefix: str) -> Drawable:
    """`panel` drawn alone on its slide (a copy with ids of its own): a mask map without its title, subtitle and rule,
    which the slide's title and sentences say (its cells as big as the slide's region lets them be)."""
    one = copy.copy(panel)
    one._id_prefix = id_prefix
    if isinstance(one, Figure) and one.view == "mask" and not isinstance(one.words, FigureText):
        one.words = replace(one.words, title="", subtitle="", caption="")
    return one


def _draws_captions(layout: Layout) -> bool:
    """Whether `layout` draws softmax captions."""
    return any(isinstance(item, Text) and item.role == "softmax-weights" for item in layout.walk())
