"""Decks: the steps of a document, a walkthrough or a figure's highlights, as slides that share one frame.

A deck is data: a title, an optional title slide, and slides, each a title, the sentences that fit on it
at 20 pt, a TeX formula (when the sentences do not say it already), the notes (everything, exactly) and
the figure of that step. Every slide has the deck's `geometry`: a title band, the figure's region and a
text column, in points on a 13.333-inch slide (16:9 or 4:3). Each figure is laid out for its region
(the frame `layout.frames.DECK_FRAMES` names), all at one size, so nothing moves from step to step.
Text that does not fit moves to a continuation slide or to the notes; it is never set smaller.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field, replace
from functools import cached_property
from itertools import accumulate

from ...figures.api import Figure
from ...layout.frames import DECK_FRAMES, fit_to_frame, get_frame
from ...words.budget import check_deck, drawable_chars
from ...numbers.exact import InputError
from ...words.user_text import Line, graphemes, user_spans
from ..document import build_figures
from ..walkthrough.scores import walkthrough
from ..walkthrough.state_text import state_paragraphs
from .fitting import Fit, arrangements, first_per_region, in_frame, refusal, region_frame
from .formats import STEP_SECONDS
from .weights_fit import fitting_weights
from .panel_text import captions_left_out, panels_follow
from .slide_text import (LINE, TEXT_PT, formula_note, formula_shown_in, line_count, lines_of, title_lines, unicode_math,
                         unicode_prose)

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ...figures.api import Drawable
    from ...layout.figure import Layout
    from ...layout.frames import Frame
    from ..document import Document

__all__ = ["IN_NOTES", "formula_note", "Slide", "Deck", "TitlePage", "Box", "Geometry", "ASPECTS", "STEP_SECONDS",
           "geometry", "parse_steps", "from_sections", "from_document", "from_walkthrough",
           "PPTX_MAX_TITLE"]

#: A PowerPoint file's title property holds at most 255 characters (python-pptx refuses more); attnviz's
#: titles may have 300, so a PowerPoint deck's title is checked against this where it is known.
PPTX_MAX_TITLE = 255
ASPECTS = ("16:9", "4:3")
_CONTINUED = " (continued)"
PAPER_FRAMES = ("column", "column-wide")  # a figure made for a paper's column: its TikZ keeps that frame
_IN_NOTES = "The rest of this step is in the speaker notes."  # (its values, a rule, a caption: whatever did not fit)
FORMULA_IN_NOTES = "The formula is in the speaker notes."  # (the sentences on the slide: only the formula is not)
IN_NOTES = (_IN_NOTES, FORMULA_IN_NOTES)  # the lines a slide ends with when some of its step is only in the notes
#: The gap between two sentences of a paragraph, in lines (each format sets it at most 0.4 of the text's size, and
#: each sentence is its own paragraph on the slide: counted, so the last line stays on the slide).
SENTENCE_LINES = 0.35


@dataclass(frozen=True)
class Box:
    """A region of a slide, in points from its top-left corner."""

    x: float
    y: float
    w: float
    h: float


@dataclass(frozen=True)
class Geometry:
    """Where a slide's parts go, in points: the slide (13.333 × 7.5 in, or 10 × 7.5 in), its title band,
    the figure's region (laid out for the frame `frame`) and the text column beside it."""

    aspect: str
    width: float
    height: float
    title: Box
    figure: Box
    text: Box
    frame: str  # the figure region's frame (layout.frames.DECK_FRAMES)

    @property
    def width_in(self) -> float:
        """The slide's width in inches (13.333 or 10)."""
        return self.width / 72


def geometry(aspect: str = "16:9", wide: bool = False, compact: bool = False) -> Geometry:
    """The slide geometry of `aspect` ("16:9" or "4:3"), or an InputError naming the choices. `wide`: the
    figure across the slide and the text under it (for figures too wide for the region beside the text);
    `compact`: the region beside the text, its figure's values at 14 pt too (a grid too big for both); both: across
    the slide at 14 pt, taller (`layout.frames.DECK_FRAMES`), a line of text under it."""
    if not isinstance(aspect, str) or aspect not in ASPECTS:
        raise InputError(f"unknown aspect {aspect!r:.40}; choose 16:9 or 4:3", "aspect")
    frame = DECK_FRAMES[region_frame(aspect, wide, compact)]
    margin, gap, top = 28.8, 21.6, 100.8
    width, height = (960.0, 540.0) if aspect == "16:9" else (720.0, 540.0)
    figure_w, figure_h = frame.width_in * 72, (frame.height_in or 0) * 72
    title = Box(margin, 14.4, width - 2 * margin, top - 14.4 - 7.2)
    if wide:
        text_y = top + figure_h + gap / 2
        return Geometry(aspect, width, height, title=title, figure=Box(margin, top, figure_w, figure_h),
                        text=Box(margin, text_y, figure_w, height - margin / 2 - text_y), frame=frame.name)
    text_x = margin + figure_w + gap
    return Geometry(aspect, width, height, title=title, figure=Box(margin, top, figure_w, figure_h),
                    text=Box(text_x, top, width - margin - text_x, figure_h), frame=frame.name)


@dataclass(frozen=True)
class TitlePage:
    """A deck's title slide (off unless asked for): its title, subtitle, author and date."""

    title: str
    subtitle: str = ""
    author: str = ""
    date: str = ""


@dataclass(frozen=True)
class Slide:
    """One slide: its title, the sentences and formula shown on it, its notes and its figure.

    `paragraphs`: what the slide shows (attnviz's notation, typeset by each format; a user's spans kept);
    `formula`: TeX shown under them, or None (None also when the sentences already say it: shown once);
    `notes`: the speaker notes, every sentence and value of the step whether or not it fits;
    `kind`: "step", "continued" (the rest of a step's sentences, same figure) or "intro"."""

    heading: str
    paragraphs: tuple[str, ...]
    formula: str | None  # TeX, or None
    figure: Drawable  # an attnviz.Figure, laid out for the deck's figure region
    name: str  # "01-score-of-q1-and-k1": unique within the deck, used for ids and file names
    notes: tuple[str, ...] = ()
    kind: str = "step"
    step: int = 0  # the step's number in its document (1-based; 0: the intro)
    noted: str | None = None  # the formula (TeX) the notes say as `formula_note(noted)`: Beamer typesets it


@dataclass(frozen=True)
class Deck:
    """Slides on one geometry, every figure drawn at the deck's one frame size (`layouts`)."""

    title: str  # the series or document title
    heading: str  # what the deck is about
    slides: tuple[Slide, ...]
    lang: str = "en"  # the language of its words, for the reveal.js page
    aspect: str = "16:9"
    title_page: TitlePage | None = None  # None: no title slide
    wide: bool = False  # the figure across the slide, the text under it (`geometry`)
    compact: bool = False  # the figure's values at 14 pt too, the cells sized to them (`geometry`)
    step_seconds: float = STEP_SECONDS
    choices: tuple[str, ...] = ()  # what the deck left out of its figures to fit them (`REDUCTIONS`)
    paper: str = ""  # the paper's column frame the figures were made for (`--frame column`), for TikZ; or ""
    laid_out: dict[int, Layout] = field(default_factory=dict, compare=False, repr=False)  # by id(figure)

    @property
    def geometry(self) -> Geometry:
        """Where each slide's title, figure and text go."""
        return geometry(self.aspect, self.wide, self.compact)

    @property
    def frame(self) -> Frame:
        """The figure region's frame: what every slide's figure is laid out for."""
        return get_frame(self.geometry.frame)

    def paper_layouts(self) -> list[Layout]:
        """TikZ for a paper: each slide's figure laid out for the paper's column (`paper`: 7 pt at the column's
        width, `--frame column`), or the slides' own layouts when the figures were made for no column."""
        if not self.paper:
            return self.layouts()
        made: dict[int, Layout] = {}
        for slide in self.slides:
            if id(slide.figure) not in made:
                made[id(slide.figure)] = in_frame(slide.figure, self.paper).layout()
        return [made[id(slide.figure)] for slide in self.slides]

    def layouts(self) -> list[Layout]:
        """Each slide's layout: all one size, with exactly the figure region's aspect (content centred)."""
        return list(self._layouts)

    @cached_property
    def _layouts(self) -> tuple[Layout, ...]:
        by_figure: dict[int, Layout] = {}
        # panels side by side, a mask map or a grid: each kind one size (a map is not drawn on a grid's canvas)
        kinds: dict[int, tuple[bool, bool]] = {}
        for slide in self.slides:
            if id(slide.figure) not in by_figure:
                made = self.laid_out.get(id(slide.figure)) or slide.figure.layout()
                by_figure[id(slide.figure)] = replace(made, choices=self.choices + made.choices)
                kinds[id(slide.figure)] = (hasattr(slide.figure, "panels"), getattr(slide.figure, "view", "") == "mask")
        sizes = {kind: (max(by_figure[key].width for key in by_figure if kinds[key] == kind),
                        max(by_figure[key].height for key in by_figure if kinds[key] == kind))
                 for kind in set(kinds.values())}
        fitted = {key: fit_to_frame(replace(layout, width=sizes[kinds[key]][0], height=sizes[kinds[key]][1]),
                                    self.frame) for key, layout in by_figure.items()}
        return tuple(fitted[id(slide.figure)] for slide in self.slides)

    @property
    def theme(self) -> str:
        """The theme's name: the first slide's figure's (a deck's figures share one)."""
        return self.slides[0].figure.theme


def parse_steps(text: str, count: int, where: str = "steps") -> tuple[int, ...]:
    """`1-3,7,10` as step numbers (1-based, sorted, each once), checked against `count` steps.

    >>> parse_steps("1-3,7, 10", 12)
    (1, 2, 3, 7, 10)
    """
    numbers: set[int] = set()
    for part in text.split(","):
        match = re.fullmatch(r"(?a)\s*(\d{1,6})\s*(?:-\s*(\d{1,6})\s*)?", part)
        if not match:
            raise InputError(f"expected step numbers such as 1-3,7,10, got {part.strip()[:40]!r}", where)
        first, last = int(match[1]), int(match[2] or match[1])
        if not 1 <= first <= last <= count:
            span = f"{first}-{last}" if match[2] else str(first)
            reason = "runs backwards" if first > last else f"is outside the deck's steps 1-{count}"
            raise InputError(f"step {span} {reason}", where)
        numbers.update(range(first, last + 1))
    return tuple(sorted(numbers))


def _slice(text: str, start: int, stop: int) -> str:
    """`text[start:stop]`, keeping the user's spans inside it."""
    spans = tuple((max(a, start) - start, min(b, stop) - start) for a, b in user_spans(text) if a < stop and b > start)
    return Line(text[start:stop], spans) if spans else text[start:stop]


def _sentences(paragraph: str) -> list[str]:
    """A paragraph split after each sentence's full stop (user spans kept)."""
    cuts = [0] + [match.end() for match in re.finditer(r"(?<=[.!?])\s+(?=[A-Z])", paragraph)] + [len(paragraph)]
    out = []
    for a, b in zip(cuts, cuts[1:]):
        while a < b and paragraph[a].isspace():
            a += 1
        while b > a and paragraph[b - 1].isspace():
            b -= 1
        if a < b:
            out.append(_slice(paragraph, a, b))
    return out


def _title(heading: str, width: float) -> tuple[str, bool]:
    """The heading as the slide's title (shortened with … when it needs more than two lines at 22 pt)
    and whether it was shortened."""
    if title_lines(heading, width) is not None:
        return heading, False
    ends = list(accumulate(map(len, graphemes(heading))))  # cut between letters, never inside one
    cut = len(ends)
    while cut > 1 and title_lines(_slice(heading, 0, ends[cut - 1]).rstrip() + "…", width) is None:
        cut = max(1, cut - max(1, cut // 8))
    return _slice(heading, 0, ends[cut - 1]).rstrip() + "…", True


def _pages(heading: str, paragraphs: Sequence[str], formula: str | None, box: Box
           ) -> tuple[list[tuple[list[str], str | None]], bool]:
    """The step's text in pages of the text column: ([sentences], formula) each, and whether some text is
    only in the notes (a word or formula wider than the column)."""
    budget = box.h / (TEXT_PT * LINE)  # in lines of text
    pages: list[tuple[list[str], str | None]] = [([], None)]
    used, hidden, formula_hidden = 0.0, False, False

    def place(lines: float) -> None:
        nonlocal used
        if used and used + lines > budget + 1e-9:
            pages.append(([], None))
            used = 0
        used += lines

    for paragraph in paragraphs:
        for n, sentence in enumerate(_sentences(paragraph)):
            lines = lines_of(unicode_prose(sentence), box.w)
            if lines is None or line_count(lines) > budget:
                hidden = True
                continue
            place(line_count(lines) + (0 if not used else 1 if n == 0 else SENTENCE_LINES))
            pages[-1][0].append(sentence)
    shown = formula if formula and not formula_shown_in(formula, paragraphs) else None
    if shown is not None:
        wide = lines_of(unicode_math(shown), box.w)  # broken where TeX may break it: between its parts
        if wide is None or line_count(wide) + 1 > budget:
            formula_hidden = True
        else:
            place(line_count(wide) + 1)
            pages[-1] = (pages[-1][0], shown)
    if hidden or formula_hidden:
        place(2)
        pages[-1][0].append(_IN_NOTES if hidden else FORMULA_IN_NOTES)
    hidden = hidden or formula_hidden
    return [page for page in pages if page[0] or page[1]] or [([], None)], hidden


def _fits(paragraphs: Sequence[str], box: Box) -> bool:
    """Whether every word of `paragraphs` fits the text column `box` (no sentence left to the notes)."""
    return all(lines_of(unicode_prose(sentence), box.w) is not None
               for paragraph in paragraphs for sentence in _sentences(paragraph))


def _step_slides(heading: str, paragraphs: Sequence[str], formula: str | None, figure: Drawable, name: str,
                 shape: Geometry, step: int, kind: str = "step") -> list[Slide]:
    """A step's slide, and its continuation slides when its sentences need more than one column (`shape`: the
    slides' text and title boxes)."""
    box, title_box = shape.text, shape.title
    said = formula if formula and not formula_shown_in(formula, paragraphs) else None  # (not a copy of a sentence)
    notes = tuple(paragraphs) + ((formula_note(said),) if said else ()) + (figure.description(),)
    pages, _ = _pages(heading, paragraphs, formula, box)
    title, shortened = _title(heading, title_box.w)
    if shortened:
        notes = (heading, *notes)
    slides = []
    for n, (sentences, shown) in enumerate(pages):
        head = title if n == 0 else _title(heading + _CONTINUED, title_box.w)[0]
        slides.append(Slide(head, tuple(sentences), shown, figure, name if n == 0 else f"{name}-{n + 1}", notes,
                            kind if n == 0 else "continued", step, said))
    return slides


def from_sections(document: Document, figures: Sequence[Drawable], *, aspect: str = "16:9",
                  steps: str | Sequence[int] | None = None, title: str | None = None, author: str | None = None,
                  date: str | None = None, step_seconds: float = STEP_SECONDS) -> Deck:
    """A slide per section of `document` (and continuation slides), with its figure (any series: a page's,
    a walkthrough's) laid out for the slide's figure region. `steps`: which sections, `1-3,7` or numbers
    (default all); the intro and legend, when the document has them, open the deck. `title`, `author`,
    `date`: a title slide (none unless one is given). `step_seconds`: the animated SVG's time per step.
    Figures made for a paper's column (`--frame column`) keep that frame for TikZ (`Deck.paper_layouts`)."""
    if len(figures) != len(document.sections):
        raise ValueError("one figure per section")
    geometry(aspect)  # (the aspect checked first)
    if not isinstance(step_seconds, (int, float)) or isinstance(step_seconds, bool) or not 0 < step_seconds <= 600:
        raise InputError(f"expected seconds above 0, up to 600, got {step_seconds!r:.40}", "step_seconds")
    count = len(document.sections)
    chosen = (tuple(range(1, count + 1)) if steps is None
              else parse_steps(steps if isinstance(steps, str) else ",".join(map(str, steps)), count))
    check_deck([drawable_chars(fig) for fig in figures])  # the budget first, from the words: before any layout
    fit, slides = _fewest_slides(document, chosen, figures, aspect)
    deck_title = document.title or document.heading
    page = None
    if any(value is not None for value in (title, author, date)):
        page = TitlePage(title or deck_title, document.heading, author or "", date or "")
    return Deck(title=deck_title, heading=document.heading, slides=tuple(slides), lang=document.lang, aspect=aspect,
                title_page=page, step_seconds=step_seconds, wide=fit.wide, compact=fit.compact, choices=fit.choices,
                laid_out=fit.laid_out, paper=next((fig.frame for fig in figures if fig.frame in PAPER_FRAMES), ""))


def _fewest_slides(document: Document, chosen: Sequence[int], figures: Sequence[Drawable], aspect: str
                   ) -> tuple[Fit, list[Slide]]:
    """The arrangement that keeps the deck on the fewest slides, of those that leave the least of its steps' text to
    the notes (the first in `fitting.TRIES` on a tie; a later region tried only while some step needs a continuation
    slide or leaves text to the notes), and its slides; an InputError in one line when none fits."""
    best: tuple[tuple[int, int], Fit, list[Slide]] | None = None
    floor = (0, len(chosen) + bool(document.intro or document.legend))  # all shown, a slide a step: none does better
    for fit in first_per_region(arrangements(figures, aspect)):
        slides = _slides(document, chosen, figures, fit, aspect)
        worth = (sum(p in IN_NOTES for slide in slides for p in slide.paragraphs), len(slides))
        if best is None or worth < best[0]:
            best = (worth, fit, slides)
        if best[0] <= floor:
            break
    if best is None:
        raise refusal(figures, aspect)
    return best[1], best[2]


def _slides(document: Document, chosen: Sequence[int], figures: Sequence[Drawable], fit: Fit, aspect: str
            ) -> list[Slide]:
    """The deck's slides with its figures arranged as `fit` arranges them: the intro and legend (when the document
    has them), then each chosen section's step and its continuation slides."""
    framed, laid_out = fit.figures, fit.laid_out
    shape = geometry(aspect, fit.wide, fit.compact)
    slides: list[Slide] = []
    intro = tuple(document.intro) + ((document.legend,) if document.legend else ())
    if intro:
        opening = copy.copy(framed[chosen[0] - 1])  # the first step's figure, with ids of its own
        opening._id_prefix = "attnviz-00-intro"
        laid_out[id(opening)] = laid_out[id(framed[chosen[0] - 1])]
        slides += _step_slides(document.heading, intro, None, opening, "00-intro", shape, 0, "intro")
    for number in chosen:
        section = document.sections[number - 1]
        figure = framed[number - 1]
        said = tuple(p for p in state_paragraphs(figure) if p not in section.paragraphs)  # (the "state" reduction)
        paragraphs = fitting_weights(section.paragraphs, section.highlight, getattr(figure, "attention", None),
                                     lambda written: _fits(written, shape.text))
        paragraphs += captions_left_out(figure, laid_out[id(figure)], panels_follow(figures, number))
        slides += _step_slides(section.heading, paragraphs + said, section.formula, figure, section.name, shape,
                               number)
    return slides


def from_document(document: Document, name: str = "<document>", **options: object) -> Deck:
    """A slide per section of a `document.Document`, each with its section's highlight (`options`: as
    `from_sections`'s)."""
    return from_sections(document, build_figures(document, name), **options)  # type: ignore[arg-type]


def from_walkthrough(fig: Figure, **options: object) -> Deck:
    """A slide per step of `fig`'s walkthrough: each score, the mask, each softmax row, each output."""
    document, figures = walkthrough(fig)
    return from_sections(document, figures, **options)  # type: ignore[arg-type]
