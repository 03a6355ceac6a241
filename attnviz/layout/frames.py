"""Frames: where a figure lands (a docs page, a projected slide, a paper column), as a target shape, a
physical size and the smallest text allowed there.

A frame is an input to the layout, not a scale applied after it: the layout places its items for the
frame's shape so that, at the frame's size, no text falls under the frame's floor. `doc` is the figure
as it has always been drawn (a web page scales it to its column; no floor is promised).
"""

from __future__ import annotations

from ..numbers.exact import InputError
from ..records import dataclass, replace
from .items import Group, Layout, Text, translate
from .math_text import SCRIPT_SCALE

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Iterable

    from .items import Item

__all__ = ["Frame", "FRAMES", "FRAME_NAMES", "DECK_FRAMES",
           "get_frame", "frame_width", "SIZED_KINDS", "SLIDE_PX", "PT_PER_IN", "MAIN_ROLES", "text_floor_misses",
           "fit_to_frame", "wider_frame", "doc_frame", "DOC_FLOOR_PX"]

PT_PER_IN = 72
SLIDE_PX = (1280, 720)  # the size slides are judged at: a 16:9 projector's common resolution


@dataclass(frozen=True, slots=True)
class Frame:
    """A target: `width_in` × `height_in` inches (`height_in` None: the height follows the content, as in a
    paper column). `floor_pt`: the smallest text at that size, in points; `main_pt`: the grid's cell values
    and the step's main caption (0: no separate floor). `judged_px`: the pixel width the floors are judged
    at on a screen (a slide at 1,280×720: 16 px and 24 px), 0 for print."""

    name: str
    width_in: float
    height_in: float | None
    floor_pt: float
    main_pt: float
    judged_px: int
    compact: bool = False  # a deck's last resort: the grid's values at the floor too, cells just around them

    @property
    def kind(self) -> str:
        """The frame's kind, its name without a width ("column" of "column:3.5in"; "slide-4:3" is a name)."""
        kind = self.name.partition(":")[0]
        return kind if kind in SIZED_KINDS else self.name

    @property
    def aspect(self) -> float | None:
        """Width over height, for frames with a fixed shape."""
        return None if self.height_in is None else self.width_in / self.height_in

    @property
    def is_slide(self) -> bool:
        """A fixed-shape frame seen on a screen (its viewBox has exactly this aspect)."""
        return self.height_in is not None and self.judged_px > 0

    def min_size(self, layout_width: float, main: bool = False) -> float:
        """The smallest font size, in layout units, a figure `layout_width` units wide may use in this frame
        (0 for `doc`: no floor). A slide's floors are pixels at its judged width (12 pt on a 13.33-inch
        slide is 16 px at 1,280); a column's are points at its printed width."""
        floor = self.main_pt if main and self.main_pt else self.floor_pt
        if not floor:
            return 0.0
        if self.judged_px:
            px = floor * self.judged_px / (self.width_in * PT_PER_IN)  # 12 pt on 13.333 in → 16 px at 1,280
            return px * layout_width / self.judged_px
        return floor * layout_width / (self.width_in * PT_PER_IN)


FRAMES = {
    "doc": Frame("doc", 0.0, None, 0.0, 0.0, 0),
    "slide": Frame("slide", 40 / 3, 7.5, 12.0, 18.0, SLIDE_PX[0]),
    "slide-4:3": Frame("slide-4:3", 10.0, 7.5, 12.0, 18.0, 960),
    "column": Frame("column", 3.3, None, 7.0, 0.0, 0),
    "column-wide": Frame("column-wide", 7.0, None, 7.0, 0.0, 0),
}
FRAME_NAMES = tuple(FRAMES)
#: Paper frames of any width (`column:3.5in`: IEEE's column; `column:3.18in`: LaTeX article's; `column-wide:7in`),
#: each the named frame's floors at the width given, from `WIDTH_RANGE[0]` to `WIDTH_RANGE[1]` inches.
SIZED_KINDS = ("column", "column-wide", "doc")
WIDTH_RANGE = (1.5, 12.0)
#: A docs page's content of a given width in CSS pixels (`doc:740`: furo's column at a 1,280 px page; `doc:358`: a
#: 390 px phone's): the figure laid out for it as a column is, every text at 12 px or more at that width (9 pt at
#: 96 CSS px an inch), panels stacked where the width holds one. From `DOC_PX_RANGE[0]` to `DOC_PX_RANGE[1]` px.
CSS_PX_PER_IN = 96
DOC_FLOOR_PX = 12
DOC_PX_RANGE = (240, 1600)
#: A length's unit: how many of it make an inch.
LENGTH_UNITS = {"in": 1.0, "cm": 2.54, "mm": 25.4, "pt": 72.0}
#: The figure's region of a deck's slide (`publish.deck.model.geometry` puts the title above it and the step's
#: text beside it): 552 × 410.4 pt of a 16:9 slide, 400 × 410.4 pt of a 4:3 one. A deck lays its figures out
#: for these, so their text keeps its floor (14 pt, 18 pt for the main values) at the slide's size.
DECK_FRAMES = {
    "slide-figure": Frame("slide-figure", 552 / PT_PER_IN, 410.4 / PT_PER_IN, 14.0, 18.0, 736),
    "slide-4:3-figure": Frame("slide-4:3-figure", 400 / PT_PER_IN, 410.4 / PT_PER_IN, 14.0, 18.0, 533),
    # a figure too wide for the region beside the text (four heads' grids): the slide's width, the text under it
    "slide-figure-wide": Frame("slide-figure-wide", 902.4 / PT_PER_IN, 310 / PT_PER_IN, 14.0, 18.0, 1203),
    "slide-4:3-figure-wide": Frame("slide-4:3-figure-wide", 662.4 / PT_PER_IN, 310 / PT_PER_IN, 14.0, 18.0, 883),
    # a grid too big for either at 18 pt values (a 12-token walkthrough): the region beside the text, every
    # text at 14 pt (the deck's floor anywhere) and the cells sized to it
    "slide-figure-compact": Frame("slide-figure-compact", 552 / PT_PER_IN, 410.4 / PT_PER_IN, 14.0, 14.0, 736, True),
    "slide-4:3-figure-compact": Frame("slide-4:3-figure-compact", 400 / PT_PER_IN, 410.4 / PT_PER_IN, 14.0, 14.0,
                                      533, True),
    # a grid too big for all three at the floor (NSA's 12-token score grid on 4:3): across the slide, its values at
    # 14 pt, taller than the wide region (what the slide's text under it cannot hold goes to the notes, said so)
    "slide-figure-wide-compact": Frame("slide-figure-wide-compact", 902.4 / PT_PER_IN, 384 / PT_PER_IN, 14.0, 14.0,
                                       1203, True),
    "slide-4:3-figure-wide-compact": Frame("slide-4:3-figure-wide-compact", 662.4 / PT_PER_IN, 384 / PT_PER_IN, 14.0,
                                           14.0, 883, True),
}


def get_frame(name: str | Frame, where: str = "frame") -> Frame:
    """The frame called `name`, or an InputError naming the choices.

    >>> abs(get_frame("slide").aspect - 16 / 9) < 1e-12
    True
    >>> round(get_frame("slide").min_size(1280), 1), round(get_frame("slide").min_size(1280, main=True), 1)
    (16.0, 24.0)
    """
    if isinstance(name, Frame):
        return name
    if name in DECK_FRAMES:
        return DECK_FRAMES[name]
    kind, sized, width = name.partition(":")
    if kind == "doc" and sized:
        return doc_frame(width, where)
    if kind in SIZED_KINDS and sized:
        return replace(FRAMES[kind], name=f"{kind}:{width}", width_in=frame_width(width, where))
    if name not in FRAMES:
        choices = ", ".join(FRAME_NAMES[:-1]) + " or " + FRAME_NAMES[-1]
        raise InputError(f"unknown frame {name!r}; choose {choices}, or a column of any width: "
                         "column:3.5in, column:8.9cm, or a docs page's width in CSS px: doc:740", where)
    return FRAMES[name]


def doc_frame(pixels: str, where: str = "frame") -> Frame:
    """A docs page's content `pixels` CSS px wide (`doc:740`): a column of that width whose floor is 12 px.

    >>> frame = doc_frame("740")
    >>> frame.name, round(frame.width_in, 4), frame.floor_pt, frame.kind
    ('doc:740', 7.7083, 9.0, 'doc')
    """
    low, high = DOC_PX_RANGE
    if not (pixels.isascii() and pixels.isdigit() and low <= int(pixels) <= high):
        raise InputError(f"expected a docs page's content width in CSS pixels, {low} to {high}, as doc:740, "
                         f"got doc:{pixels}", where)
    return Frame(f"doc:{int(pixels)}", int(pixels) / CSS_PX_PER_IN, None, DOC_FLOOR_PX * PT_PER_IN / CSS_PX_PER_IN,
                 0.0, 0)


def frame_width(text: str, where: str = "frame") -> float:
    """A paper frame's width in inches, from `3.5in`, `8.9cm`, `89mm` or `252pt`.

    >>> frame_width("3.5in"), round(frame_width("8.9cm"), 3), frame_width("252pt")
    (3.5, 3.504, 3.5)
    """
    number, unit = text[:-2], text[-2:]
    try:
        if not (number.isascii() and number.replace(".", "", 1).isdigit()):  # (float() takes " 3", "1_0", "nan")
            raise ValueError(number)
        inches = float(number) / LENGTH_UNITS[unit]
    except (KeyError, ValueError):
        raise InputError(f"expected a width with its unit, as 3.5in, 8.9cm, 89mm or 252pt, got {text!r}",
                         where) from None
    low, high = WIDTH_RANGE
    if not low <= inches <= high:  # (NaN too)
        raise InputError(f"{text} is out of range; a column is {low:g} to {high:g} inches wide", where)
    return inches


#: Roles held to a frame's main floor (18 pt on a slide): the grid's values and a step's main caption.
MAIN_ROLES = frozenset({"score", "score-computed", "caption"})


def text_floor_misses(layout: Layout, frame: Frame) -> list[tuple[str, str, float, float]]:
    """(role, text, size, floor) of every text in `layout` under `frame`'s floor, in layout units at the
    layout's width (a slide frame's viewBox fills the slide; a column's fills the column's width). Empty
    for the doc frame. What the layouts check before they settle, and what the tests measure."""
    misses: list[tuple[str, str, float, float]] = []
    floors = {False: frame.min_size(layout.width), True: frame.min_size(layout.width, main=True)}  # (once a figure)

    def visit(items: Iterable[Item]) -> None:
        for item in items:
            if isinstance(item, Group):
                visit(item.children)
            elif isinstance(item, Text):
                floor, size = floors[item.role in MAIN_ROLES], item.style.size
                if size < floor - 1e-9:
                    misses.append((item.role, item.text, size, floor))
                if item.math:
                    script = item.script or size * SCRIPT_SCALE  # its scripts, its smallest text, are held to it too
                    if script < floor - 1e-9 and _has_scripts(item):
                        misses.append((item.role, item.text, script, floor))

    visit(layout.items)
    return misses


def _has_scripts(text: Text) -> bool:
    return any(kind in ("sup", "sub") for runs in text.line_runs() for _, kind in runs)


def fit_to_frame(layout: Layout, frame: Frame) -> Layout:
    """`layout` on a canvas of exactly `frame`'s aspect (a slide), its content centred: the wider side
    kept, the other grown. A frame without a fixed shape (doc, a column) returns `layout` as it is."""
    aspect = frame.aspect
    if aspect is None or not layout.width or not layout.height:
        return layout
    width, height = max(layout.width, layout.height * aspect), max(layout.height, layout.width / aspect)
    dx, dy = (width - layout.width) / 2, (height - layout.height) / 2
    items = [translate(item, dx, dy) for item in layout.items] if dx or dy else list(layout.items)
    grid = layout.grid and (layout.grid[0] + dx, layout.grid[1] + dy, layout.grid[2])
    return replace(layout, width=width, height=height, items=items, grid=grid)


def wider_frame(frame: Frame) -> str:
    """The way out a refusal names first where a wider frame of the same kind exists ("--frame slide, ")."""
    return {"slide-4:3": "--frame slide, ", "column": "--frame column-wide, "}.get(frame.kind, "")
