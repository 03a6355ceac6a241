"""Decks: the steps of a document, a walkthrough or a figure's highlights, as slides that share one frame.

A deck is data: a title and slides, each slide a heading, its sentences, a TeX formula and the
figure of that step. Every backend (`slides`) paints the slides' layouts, all at the deck's
`frame` size, so the grid, captions and labels of one deck never move from step to step.
"""

from dataclasses import dataclass, replace

from ..document import Section, make_document

__all__ = ["Slide", "Deck", "from_sections", "from_document", "from_walkthrough", "from_highlights"]


@dataclass(frozen=True)
class Slide:
    heading: str
    paragraphs: tuple  # the step's sentences, also the speaker notes
    formula: str  # TeX, or None
    figure: object  # an attnviz.Figure
    name: str  # "01-score-of-q1-and-k1": unique within the deck, used for ids and file names


@dataclass(frozen=True)
class Deck:
    title: str  # the series or document title: the title slide's first line
    heading: str  # what the deck is about: the title slide's second line
    slides: tuple
    lang: str = "en"  # the language of its words, for the reveal.js page

    def layouts(self):
        """Each slide's layout, every one the deck's frame size (the largest step's), top-left aligned."""
        layouts = [slide.figure.layout() for slide in self.slides]
        width = max(layout.width for layout in layouts)
        height = max(layout.height for layout in layouts)
        return [replace(layout, width=width, height=height) for layout in layouts]

    @property
    def theme(self):
        return self.slides[0].figure.theme


def from_sections(document, figures):
    """A slide per section of `document`, with its figure (any series: a page's, a walkthrough's)."""
    slides = tuple(Slide(section.heading, section.paragraphs, section.formula, fig, section.name)
                   for section, fig in zip(document.sections, figures, strict=True))
    return Deck(title=document.title or document.heading, heading=document.heading, slides=slides, lang=document.lang)


def from_document(document, name="<document>"):
    """A slide per section of a `document.Document`, each with its section's highlight."""
    from ..document import build_figures

    return from_sections(document, build_figures(document, name))


def from_walkthrough(fig):
    """A slide per step of `fig`'s walkthrough: each score, the mask, each softmax row, each output."""
    from ..walkthrough.scores import walkthrough

    document, figures = walkthrough(fig)
    return from_sections(document, figures)


def from_highlights(fig):
    """A slide per highlighted part of `fig` (cells row by row, then softmax rows, then outputs), each
    slide highlighting that part alone; a figure without highlights is one slide."""
    from ...words.a11y import figure_sentence
    from ...words.figure_text import at_step
    from ...figures.api import Figure
    from ...words.highlight import Highlight

    if not isinstance(fig, Figure) or fig.view != "full":  # a mask map, a score table, panels: one slide
        name = make_document(heading=fig.layout().title, sections=[Section("figure")]).sections[0].name
        return Deck(title=fig.layout().title, heading=fig.layout().desc,
                    slides=(Slide(fig.layout().title, (fig.description(),), None, fig, name),))
    marks = fig.highlight
    q_labels, k_labels = fig.words.q_labels, fig.words.k_labels
    steps = [(f"Score of {q_labels[i - 1]} and {k_labels[j - 1]}", Highlight(cells=frozenset({(i, j)})))
             for i, j in sorted(marks.cells)]
    steps += [(f"Softmax of row {i}", Highlight(softmax_rows=frozenset({i}))) for i in sorted(marks.softmax_rows)]
    steps += [(f"Output of row {i}", Highlight(outputs=frozenset({i}))) for i in sorted(marks.outputs)]
    if not steps:
        steps = [(fig.words.title, marks)]
    document = make_document(heading=fig.words.title, sections=[Section(heading) for heading, _ in steps])
    figures = []
    for section, (_, step) in zip(document.sections, steps):
        figures.append(Figure(fig.attention, step, at_step(fig.words, step), id_prefix=section.id_prefix,
                              theme=fig.theme, embed_font=fig.embed_font))
    slides = tuple(Slide(section.heading, (figure_sentence(f.attention, f.highlight, f.words.show),), None, f,
                         section.name) for section, f in zip(document.sections, figures))
    return Deck(title=fig.words.title, heading=fig.words.subtitle, slides=slides)

