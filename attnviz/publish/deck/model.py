"""Decks: the steps of a document, a walkthrough or a figure's highlights, as slides that share one frame.

A deck is data: a title and slides, each slide a heading, its sentences, a TeX formula and the
figure of that step. Every backend (`slides`) paints the slides' layouts, all at the deck's
`frame` size, so the grid, captions and labels of one deck never move from step to step.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ...figures.api import Figure
from ...words.a11y import figure_sentence
from ...words.figure_text import at_step
from ...words.highlight import Highlight
from ..document import Section, build_figures, make_document
from ..walkthrough.scores import walkthrough

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import cast

    from ...engine.attention import Attention
    from ...figures.api import Drawable
    from ...layout.figure import Layout
    from ...typing import ThemeName
    from ...words.figure_text import FigureText
    from ..document import Document

__all__ = ["Slide", "Deck", "from_sections", "from_document", "from_walkthrough", "from_highlights",
           "PPTX_MAX_TITLE"]

#: A PowerPoint file's title property holds at most 255 characters (python-pptx refuses more); attnviz's
#: titles may have 300, so a PowerPoint deck's title is checked against this where it is known.
PPTX_MAX_TITLE = 255


@dataclass(frozen=True)
class Slide:
    """One step of a deck: its heading, sentences, formula and figure."""

    heading: str
    paragraphs: tuple[str, ...]  # the step's sentences, also the speaker notes
    formula: str | None  # TeX, or None
    figure: Drawable  # an attnviz.Figure
    name: str  # "01-score-of-q1-and-k1": unique within the deck, used for ids and file names


@dataclass(frozen=True)
class Deck:
    """A title and slides, every slide drawn at the deck's one frame size (`layouts`)."""

    title: str  # the series or document title: the title slide's first line
    heading: str  # what the deck is about: the title slide's second line
    slides: tuple[Slide, ...]
    lang: str = "en"  # the language of its words, for the reveal.js page

    def layouts(self) -> list[Layout]:
        """Each slide's layout, every one the deck's frame size (the largest step's), top-left aligned."""
        layouts = [slide.figure.layout() for slide in self.slides]
        width = max(layout.width for layout in layouts)
        height = max(layout.height for layout in layouts)
        return [replace(layout, width=width, height=height) for layout in layouts]

    @property
    def theme(self) -> str:
        """The theme's name: the first slide's figure's (a deck's figures share one)."""
        return self.slides[0].figure.theme


def from_sections(document: Document, figures: Sequence[Drawable]) -> Deck:
    """A slide per section of `document`, with its figure (any series: a page's, a walkthrough's)."""
    slides = tuple(Slide(section.heading, section.paragraphs, section.formula, fig, section.name)
                   for section, fig in zip(document.sections, figures, strict=True))
    return Deck(title=document.title or document.heading, heading=document.heading, slides=slides, lang=document.lang)


def from_document(document: Document, name: str = "<document>") -> Deck:
    """A slide per section of a `document.Document`, each with its section's highlight."""
    return from_sections(document, build_figures(document, name))


def from_walkthrough(fig: Figure) -> Deck:
    """A slide per step of `fig`'s walkthrough: each score, the mask, each softmax row, each output."""
    document, figures = walkthrough(fig)
    return from_sections(document, figures)


def from_highlights(fig: Drawable) -> Deck:
    """A slide per highlighted part of `fig` (cells row by row, then softmax rows, then outputs), each
    slide highlighting that part alone; a figure without highlights is one slide."""
    if not isinstance(fig, Figure) or fig.view != "full":  # a mask map, a score table, panels: one slide
        name = make_document(heading=fig.layout().title, sections=[Section("figure")]).sections[0].name
        return Deck(title=fig.layout().title, heading=fig.layout().desc,
                    slides=(Slide(fig.layout().title, (fig.description(),), None, fig, name),))
    marks, words, attention = fig.highlight, fig.words, fig.attention
    if TYPE_CHECKING:  # a full figure has its highlight, its words and its vectors
        assert marks is not None and isinstance(words, FigureText) and isinstance(attention, Attention)
    q_labels, k_labels = words.q_labels, words.k_labels
    steps = [(f"Score of {q_labels[i - 1]} and {k_labels[j - 1]}", Highlight(cells=frozenset({(i, j)})))
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
    slides = []
    for section, (_, step) in zip(document.sections, steps):
        step_words = at_step(words, step)
        f = Figure(attention, step, step_words, id_prefix=section.id_prefix, theme=theme, embed_font=fig.embed_font,
                   frame=fig.frame)
        slides.append(Slide(section.heading, (figure_sentence(attention, step, step_words.show),), None, f,
                            section.name))
    return Deck(title=words.title, heading=words.subtitle, slides=tuple(slides))

