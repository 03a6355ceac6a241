"""The full figure (and the score table) made for a slide or a paper column: choices in a fixed order,
each recorded in `Layout.choices`, until the figure fits its frame with every text at the frame's floor.

The order is data: each choice a `Choice` (its number in docs/frame-output.rst's numbered list, which
describes them, what it changes, how it is said, the frames and figures it applies to), walked in the order
of `FRAME_ORDERS` for the frame's kind; a figure no choice fits is refused in one line naming the ways out.
A grid too big for the frame on its own is elided first (`TOO_BIG_ORDER`): no other choice makes room for it.
A walkthrough step's mechanics (`figures.overlaid`) are given room beside the grid (`side`), else under it
(`below`: a column), and the order above is made with that room kept.

Sizes are chosen for the frame, never shrunk after: a slide holds at most 1,280 × 720 units (960 × 720 at
4:3), one unit a pixel of the slide as projected, so 16 units is the 12 pt floor and 24 the 18 pt one; a
figure that needs less is given the slide's aspect (`fit_to_frame`) and drawn larger. A column's
units are chosen so the smallest text prints at 7 pt at most as wide as the column.
"""

from __future__ import annotations

from ..numbers.exact import InputError
from ..records import dataclass, replace
from ..words.figure_text import shown_positions, with_normalizers
from ..words.caption_rows import FEWER_SAID, with_fewer_captions
from ..words.short_labels import with_short_labels
from .figure import Metrics, height_within, lay_out, lay_out_within
from .frames import FRAMES, MAIN_ROLES, SLIDE_PX, fit_to_frame, text_floor_misses
from .type_scale import role_sizes

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ..engine.attention import Attention
    from ..words.figure_text import FigureText
    from .figure import Wraps
    from .frames import Frame
    from .items import Layout

    #: What a choice makes of a figure: its words and metrics, and how it is said (where its own words do not).
    Made = tuple[FigureText, Metrics, str]

__all__ = ["SLIDE_SIZES", "COLUMN_SIZES", "Choice", "Framing", "GIVEN", "ORDER", "TOO_BIG_ORDER",
           "FRAME_ORDERS", "lay_out_framed", "frame_metrics"]

#: Font sizes on a slide, in its pixels at 1,280 × 720: each role at its step's (`type_scale`: 32, 24, 18 and 16),
#: every text at 16 or more, the grid's values and its caption at 24 or more (the 12 pt and 18 pt floors); an
#: exponent or subscript is at a step too (`type_scale.script_size`: 16; 24 in the caption, its S_ij 24 in 24).
SLIDE_SIZES = role_sizes("slide")
#: Font sizes in a column, in units of which the column is at most (its width in pt) × 14 / 7 wide, so
#: the smallest step (14) prints at 7 pt or more: 19, 17, 16 and 14; a line's scripts are at 14.
COLUMN_SIZES = role_sizes("column")
SLIDE_FLOORS = (16, 24)  # the floors SLIDE_SIZES are made for: a 1,280 × 720 slide's, in its pixels
_COLUMN_MIN = min(size for _, size in COLUMN_SIZES)
_COLUMN_WRAP = 640  # a wide column wraps where the doc figure does, so its text prints larger than the floor


_TIGHT_CELL = 1.6  # a tight cell's height, in its values' size (a deck's compact figure's)


def frame_metrics(frame: Frame) -> Metrics:
    """The sizes and arrangement a figure starts from in `frame` (choices 1 to 3 of the order)."""
    if frame.is_slide:
        width = SLIDE_PX[0] if frame.name == "slide" else frame.judged_px
        # A slide's sizes are for 16 and 24 px floors; a frame with higher ones (a deck's figure region,
        # 14 pt at its size) takes them all that much larger.
        k = max(1.0, frame.min_size(width) / SLIDE_FLOORS[0], frame.min_size(width, main=True) / SLIDE_FLOORS[1])
        if frame.compact:
            return _compact(frame, width)
        return Metrics(sizes=tuple((role, size * k) for role, size in SLIDE_SIZES), pad=32, cell_min_w=52 * k,
                       cell_h=50 * k, cell_gap=5, cell_pad=9 * k, chrome=False, script_floor=frame.min_size(width),
                       main_script_floor=frame.min_size(width, main=True), main_roles=MAIN_ROLES, math=True,
                       beside=True, canvas_w=width, gutter=48, seed_cells=False, section_gap=16, row_pad=5,
                       stacked=True)
    widest = frame.width_in * 72 * _COLUMN_MIN / frame.floor_pt  # the widest layout whose 14 prints at 7 pt
    pad = 12
    return Metrics(sizes=COLUMN_SIZES, pad=pad, cell_min_w=34, cell_h=34, cell_gap=3, cell_pad=6, chrome=False,
                   script_floor=frame.min_size(widest), math=True, wrap=min(widest - 2 * pad, _COLUMN_WRAP),
                   canvas_w=widest, gutter=24, seed_cells=False, stacked=True)


def _compact(frame: Frame, width: float) -> Metrics:
    """A deck's compact region: every text at the floor or the slide's size scaled so the values are at it,
    the cells just around their values (a grid of 12 keys and queries beside the slide's text at 14 pt)."""
    floor = frame.min_size(width)
    scale = floor / dict(SLIDE_SIZES)["score"]
    return Metrics(sizes=tuple((role, max(size * scale, floor)) for role, size in SLIDE_SIZES), pad=16,
                   cell_min_w=1.9 * floor, cell_h=1.6 * floor, cell_gap=4, cell_pad=0.35 * floor, chrome=False,
                   script_floor=floor, main_script_floor=floor, main_roles=MAIN_ROLES, math=True, beside=True,
                   canvas_w=width, gutter=24, seed_cells=False, section_gap=8, row_pad=4, stacked=True)


#: The tallest a column's figure may print, in inches: a page's text block (US letter's 9 in; A4's is 9.7).
PAGE_IN = 9.0


@dataclass(frozen=True, slots=True)
class Framing:
    """What a figure is laid out with in its frame, besides its words. `attention`: its exact results, to
    rewrite its softmax captions (choice 5); `elided`: the same figure's words elided to its first and last
    rows and keys, for choice 10 (None: the figure is elided already or cannot be); `titled`: False where the
    slide has a title of its own (a deck's): the figure's is then only its <title>; `cells`: (cell height, gap)
    to lay the grid out at, `side`, `below`: room to keep right of and under the grid (all for the mechanics a
    walkthrough step draws over, beside or under its grid: `figures.overlaid`); `wraps`: the lines other
    layouts of much the same words wrapped (a walkthrough's steps), to reuse; `step`: a walkthrough's step,
    which keeps every softmax caption (the steps stay put)."""

    attention: Attention | None = None
    title_role: str = "title"
    elided: Callable[[int, int], FigureText] | None = None
    titled: bool = True
    cells: tuple[float, float] | None = None
    side: float = 0
    below: float = 0
    wraps: Wraps | None = None
    step: bool = False


class _Fit:
    """A figure being fitted to its frame: its words and metrics as the choices made so far leave them, the
    choices made (by name) and said, and what a choice asks of the figure (is it shorter so, does it fit)."""

    def __init__(self, words: FigureText, frame: Frame, framing: Framing) -> None:
        self.words, self.frame, self.framing = words, frame, framing
        self.metrics = replace(frame_metrics(frame), titled=framing.titled, side=framing.side, below=framing.below)
        if framing.cells is not None:
            self.metrics = replace(self.metrics, cell_h=framing.cells[0], cell_gap=framing.cells[1])
        # The largest layout the frame holds (height None: a column's figure may be as tall as a page, `PAGE_IN`)
        self.width = self.metrics.canvas_w
        self.height = self.width / frame.aspect if frame.is_slide and frame.aspect else None
        self.wraps: Wraps = framing.wraps if framing.wraps is not None else {}  # each line wrapped once
        self.stopped: list[str] = []  # "grid" when the last attempt's grid column was too tall for the slide
        self.full: float | None = None  # the figure's whole height as it stands, once asked for (since the last choice)
        self.done: set[str] = set()
        self.said: list[str] = []

    def attempt(self) -> Layout | None:
        """The figure laid out as it stands, or None as soon as it is certain to be taller than the slide: the
        choice is made and said all the same, and the next one tried, without laying out what cannot fit."""
        self.stopped.clear()  # (a column's, of no height, is laid out whole)
        return lay_out_within(self.words, self.height, self.framing.title_role, self.metrics, self.wraps, self.stopped)

    def shorter(self, candidate: Metrics) -> bool:
        """Whether the figure laid out at `candidate` metrics is shorter than it is (laid out no further)."""
        role = self.framing.title_role
        if self.full is None:
            self.full = height_within(self.words, None, role, self.metrics, self.wraps)
            assert self.full is not None  # (no limit)
        return height_within(self.words, self.full - 1e-3, role, candidate, self.wraps) is not None  # (1e-6 slack)

    def fits(self, layout: Layout | None) -> bool:
        """Whether `layout` is within the slide, or as wide as the column at most and no taller than a page."""
        if layout is None:
            return False
        tallest = self.height if self.height is not None else layout.width * PAGE_IN / self.frame.width_in
        return layout.width <= self.width + 1e-6 and layout.height <= tallest + 1e-6

    def make(self, choice: Choice) -> bool:
        """Make `choice` if it applies and changes the figure, saying it; whether it did."""
        applies = self.words.view in choice.views and self.framing.step in choice.steps
        made = choice.change(self) if applies else None
        if made is None:
            return False
        self.words, self.metrics, said = made
        if choice.unsays:  # (an elision's words are the figure's own: every shown row's caption with them)
            self.said = [done for done in self.said if not done.startswith(choice.unsays)]
        self.said.append(said or choice.said)
        return True


@dataclass(frozen=True, slots=True)
class Choice:
    """One choice of the order docs/frame-output.rst documents: its `number` there and the bold words (`docs`) its item
    there names it by; `name` (a choice made is not made again); `said`: how `<desc>` and --verbose say it (where
    `change` does not say it itself); `change`: what it makes of the figure, None where it makes nothing (it does not
    apply, or the figure is no shorter so); the frame kinds (`frames`) and figure kinds (`views`, `steps`: a
    walkthrough's step or not) it applies to; `unsays`: the start of an earlier choice's words it takes back."""

    number: int
    name: str
    docs: str
    change: Callable[[_Fit], Made | None]
    said: str = ""
    frames: tuple[str, ...] = ("slide", "column")
    views: tuple[str, ...] = ("full", "scores")
    steps: tuple[bool, ...] = (False, True)
    unsays: str = ""


def _with(fit: _Fit, **changes: Any) -> Made:
    """The figure's words, its metrics with `changes`, said by the choice's own words."""
    return fit.words, replace(fit.metrics, **changes), ""


def _normalizer(fit: _Fit) -> Made | None:
    attention = fit.framing.attention
    changed = with_normalizers(fit.words, attention) if attention is not None else None
    return None if changed is None else (changed, fit.metrics, "")


def _widen(fit: _Fit) -> Made | None:
    widest = fit.metrics.canvas_w - 2 * fit.metrics.pad
    return _with(fit, wrap=widest) if fit.metrics.wrap < widest - 1e-6 else None


def _words(make: Callable[..., tuple[FigureText, str] | None], *args: int) -> Callable[[_Fit], Made | None]:
    """A choice that rewrites the figure's words and says how (`make(words, *args)`: None where it does not apply)."""
    def change(fit: _Fit) -> Made | None:
        made = make(fit.words, *args)
        return None if made is None else (made[0], fit.metrics, made[1])
    return change


def _across(fit: _Fit) -> Made | None:
    across = replace(fit.metrics, caption_across=True)
    # (only a grid column too tall can be made shorter so: beside a taller column it makes both taller)
    made = fit.metrics.beside and fit.words.grid_caption and fit.stopped and fit.shorter(across)
    return (fit.words, across, "") if made else None


def _cells(fit: _Fit) -> Made | None:  # (a step's mechanics are drawn to its cells: they keep the size given)
    tight = replace(fit.metrics, cell_h=dict(fit.metrics.sizes)["score"] * _TIGHT_CELL, cell_gap=4)
    # (where the grid's column is too tall: tighter cells make it shorter, and never the figure taller)
    made = fit.framing.cells is None and tight.cell_h < fit.metrics.cell_h - 1e-6 and fit.stopped
    return (fit.words, tight, "") if made else None


def _portrait(fit: _Fit) -> Made | None:  # a slide's grid wider than tall: vectors and captions above and under it
    portrait = replace(fit.metrics, beside=False, wrap=fit.metrics.canvas_w - 2 * fit.metrics.pad)
    if not fit.metrics.beside or fit.framing.cells is not None or fit.height is None:
        return None
    laid = lay_out_within(fit.words, fit.height, fit.framing.title_role, portrait, fit.wraps)
    return (fit.words, portrait, "") if fit.fits(laid) else None


def _elide(first: int, last: int) -> Callable[[_Fit], Made | None]:
    """The `first` and `last` rows and keys, as --elide draws them."""
    def change(fit: _Fit) -> Made | None:
        words, attention, elided = fit.words, fit.framing.attention, fit.framing.elided
        changed = elided(first, last) if elided is not None and not _whole(words, first, last) else None
        if changed is None or not changed.elided or changed.elided == words.elided:
            return None  # short enough to draw whole, or no shorter than it is
        if words.softmax == "normalizer" and attention is not None:
            changed = with_normalizers(changed, attention) or changed
        if "labels" in fit.done:  # (the elided words are the figure's, labels whole)
            changed = (with_short_labels(changed) or (changed, ""))[0]
        return changed, fit.metrics, f"elided: {changed.elided}"
    return change


def _table(fit: _Fit) -> Made | None:  # a step's captions to its walkthrough's text: its grid, the step's row banded
    # (not in a deck's figure region: the deck has its own order, and its slides' text, for this)
    if fit.frame.kind not in FRAMES:
        return None
    words = fit.words
    said = "; ".join([f"{row.scores}, {row.weights}" for row in words.softmax_rows if not row.pending]
                     + [row.text for row in words.output_rows if not row.pending])
    return replace(words, view="scores"), fit.metrics, ("a walkthrough step's softmax captions left to its text and "
                                                        "this description (the score table, the rows it computes "
                                                        "banded): " + said)


_FULL, _FIGURE, _SLIDE = ("full",), (False,), ("slide",)  # (the full view; not a walkthrough's step; a slide)
#: Said always, before any attempt (their metrics are `frame_metrics`'s).
GIVEN = (Choice(1, "chrome", "Chrome left to the slide or paper", lambda fit: (fit.words, fit.metrics, (
             f"chrome left to the {'slide' if fit.frame.is_slide else 'paper'}: "
             f"{'' if fit.framing.titled else 'title, '}badge, provenance note and footer (their words are in this "
             "description)"))),
         Choice(2, "notation", "Notation typeset", _with,
                "notation typeset: exponents raised, subscripts lowered, minus signs"),
         Choice(3, "arrangement", "Arrangement", lambda fit: (fit.words, fit.metrics, (
             "landscape: the vectors and captions beside the grid" if fit.frame.is_slide
             else "portrait: as wide as the column, as tall as it needs"))),
         Choice(3, "stacked", "stacked fraction", lambda fit: _with(fit) if fit.metrics.stacked else None,
                "stacked fractions for the named weights, in rows where they fit", views=_FULL))
# (a column has room below: a row too wide for its stacked fractions is on one line already)
INLINE = Choice(4, "inline", "Fractions on one line", lambda fit: _with(fit, stacked=False) if fit.metrics.stacked
                else None, "fractions on one line", frames=_SLIDE, views=_FULL)
NORMALIZER = Choice(5, "normalizer", "Normalizer captions", _normalizer,
                    "normalizer captions: e^a/Z_i, each row's Z_i written once", views=_FULL)
HATCHING = Choice(6, "hatching", "Masked cells drawn by their hatching alone",
                  lambda fit: _with(fit, masked_word=False), "masked cells drawn by their hatching alone")
WIDEN = Choice(6, "widen", "captions as wide as the column", _widen, "captions as wide as the column at its 7 pt floor",
               frames=("column",))
# (the grid's headers: a label's first characters and …, whole in <desc>)
LABELS = Choice(6, "labels", "long token labels shortened", _words(with_short_labels))
ACROSS = Choice(7, "across", "the grid's caption across the figure", _across, "the grid's caption across the figure",
                frames=_SLIDE)
CELLS = Choice(7, "cells", "cells tight around their values", _cells, "cells tight around their values", frames=_SLIDE)
PORTRAIT = Choice(8, "portrait", "portrait", _portrait,
                  "portrait: the vectors above the grid and the captions under it, across the slide", frames=_SLIDE)
# (each keeping the captions, then the rows and keys, of the first and last few rows: `kept`)
FEWER = tuple(Choice(9, name, "fewer softmax captions", _words(with_fewer_captions, *kept), frames=_SLIDE,
                     steps=_FIGURE) for name, kept in (("captions", (4, 2)), ("captions-2", (2, 1))))
ELIDE = tuple(Choice(10, name, "Elision", _elide(*kept), unsays=FEWER_SAID)
              for name, kept in (("elision", (4, 2)), ("elision-2", (2, 1)), ("elision-3", (1, 1))))
TABLE = Choice(11, "table", "walkthrough step's softmax captions left to the walkthrough's text", _table,
               views=_FULL, steps=(True,))
_AGAIN = (ACROSS, CELLS)  # (tried again after each choice that may have made them shorter)
#: The order: each choice, once made, is not made again; one not made is tried again once another has been.
ORDER = (INLINE, NORMALIZER, HATCHING, WIDEN, LABELS, *_AGAIN, PORTRAIT, FEWER[0], *_AGAIN, FEWER[1], *_AGAIN,
         ELIDE[0], NORMALIZER, HATCHING, *_AGAIN, ELIDE[1], *_AGAIN, ELIDE[2], *_AGAIN, TABLE, PORTRAIT, *_AGAIN)
#: A grid bigger than the frame on its own is elided first: no caption choice could make room for it.
TOO_BIG_ORDER = (ELIDE[0], INLINE, NORMALIZER, HATCHING, WIDEN, LABELS, *_AGAIN, ELIDE[1], *_AGAIN, ELIDE[2],
                 *_AGAIN, TABLE, *_AGAIN)
#: The order each kind of frame walks: (its order, its order for a grid too big for it on its own).
FRAME_ORDERS = {kind: tuple(tuple(choice for choice in order if kind in choice.frames)
                            for order in (ORDER, TOO_BIG_ORDER)) for kind in ("slide", "column")}


def lay_out_framed(words: FigureText, frame: Frame, framing: Framing) -> Layout:
    """`words` laid out for `frame` (a slide or a column), by the order above (`FRAME_ORDERS`); an InputError
    when no choice fits."""
    fit = _Fit(words, frame, framing)
    for choice in GIVEN:
        fit.make(choice)
    too_big = _grid_too_big(words, fit.metrics, fit.width, fit.height)
    order = FRAME_ORDERS["slide" if frame.is_slide else "column"][too_big]
    layout = None if too_big else fit.attempt()
    checked: dict[str, int] = {}  # a choice found no shorter, by how many choices had been made then
    for choice in order:
        if fit.fits(layout):
            break
        if choice.name in fit.done or checked.get(choice.name) == len(fit.done):  # (nothing changed since)
            continue
        checked[choice.name] = len(fit.done)
        if fit.make(choice):
            fit.done.add(choice.name)
            fit.full = None
            layout = fit.attempt()
    return _placed(fit, layout)


def _placed(fit: _Fit, layout: Layout | None) -> Layout:
    """The fitted layout placed in its frame, its choices said; refused when it does not fit."""
    frame, words = fit.frame, fit.words
    if layout is None:
        layout = lay_out(words, title_role=fit.framing.title_role, frame=frame, metrics=fit.metrics, wraps=fit.wraps)
    if not fit.fits(layout):
        raise InputError(_refusal(layout, frame, fit.width, fit.height, words.view), "frame")
    placed = fit_to_frame(layout, frame)  # a slide's exact aspect; a figure smaller than the canvas draws larger
    placed.desc = " ".join(part for part in (layout.desc, _chrome(words)) if part)
    placed.choices = tuple(fit.said)
    misses = text_floor_misses(placed, frame)
    assert not misses, misses  # the sizes above are the floors or more: a text under one is a bug here
    return placed


def _grid_too_big(words: FigureText, metrics: Metrics, width: float, height: float | None) -> bool:
    """Whether the grid's cells alone, at their smallest, are taller or wider than the frame."""
    rows, columns = len(words.cells), len(words.k_labels)
    tallest = height if height is not None else width * PAGE_IN / 3.3  # (no column is narrower than 3.3 in)
    return (columns * (metrics.cell_min_w + metrics.cell_gap) > width
            or rows * (metrics.cell_h + metrics.cell_gap) > tallest)


def _whole(words: FigureText, first: int, last: int) -> bool:
    """Whether eliding the figure to its `first` and `last` rows and keys would draw it whole (it is that short:
    `shown_positions`), so the elision need not be written to be found no shorter."""
    return not words.elided and all(len(shown_positions(n, (), first, last)) == n
                                    for n in (len(words.q_labels), len(words.k_labels)))


def _chrome(words: FigureText) -> str:
    """The words of the chrome a frame leaves out, for `<desc>`."""
    parts = [words.badge, words.note] + ([words.footer] if words.view != "scores" else [])
    return "; ".join(part for part in parts if part) + "." if any(parts) else ""


def _refusal(layout: Layout, frame: Frame, width: float, height: float | None, view: str) -> str:
    """One line: how big the figure is at the frame's text floor, how big the frame is, and the ways out."""
    size = f"{layout.width:.0f} × {layout.height:.0f}"
    room = (f"{width:.0f} × {height:.0f}" if height is not None else
            f"{width:.0f} wide and {PAGE_IN:g} inches ({layout.width * PAGE_IN / frame.width_in:.0f}) tall")
    floor = f"{frame.min_size(frame.judged_px):.0f} px text" if frame.is_slide else f"{frame.floor_pt:g} pt text"
    # (Elision is a choice of its own, tried before this: --elide would add nothing.)
    ways = ["--view scores" if view != "scores" else "", "--view mask", "fewer tokens"]
    if frame.kind == "column":
        ways.insert(0, "--frame column-wide")
    if frame.name == "slide-4:3":
        ways.insert(0, "--frame slide")
    return (f"the figure is {size} at {floor}, past the {frame.name} frame's {room}; "
            f"try {', '.join(way for way in ways if way)}")

