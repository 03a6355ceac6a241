"""Where a slide's parts go and how much of its text fits: one answer for PowerPoint and reveal.js.

Every slide of a deck has the same boxes, in points on the slide (a 16:9 slide is 960 × 540 pt,
13.333 × 7.5 inches; a 4:3 one 720 × 540 pt): the title across the top, the figure on the left,
the step's sentences and formula on the right. Text is set at `SENTENCE_PT` (18 pt), never less;
what does not fit in its box is not shrunk but moved to the speaker notes (`fit_lines`), and the
slide says so in a last line at `NOTE_PT` (14 pt). Widths come from the bundled DejaVu metrics, the
font both formats draw with.
"""

from __future__ import annotations

from ...layout.metrics import text_width
from ...records import dataclass

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["Box", "SlideBoxes", "slide_boxes", "wrap", "fit_title", "fit_lines", "TITLE_SIZES", "SENTENCE_PT",
           "NOTE_PT", "LINE", "MORE_IN_NOTES", "slide_size", "PX_PER_PT"]

TITLE_SIZES = (28.0, 24.0, 20.0)  # a step's title: the first size at which it fits its box (two lines at 24)
SENTENCE_PT = 18.0  # the step's sentences and formula
NOTE_PT = 14.0  # the smallest text on a slide: "more in the notes"
LINE = 1.2  # line height, in em
PX_PER_PT = 4 / 3  # a 13.333-inch slide shown 1,280 px wide (and a 10-inch one 960 px wide)
#: The last line of a slide whose text goes on in the speaker notes.
MORE_IN_NOTES = "More in the speaker notes."
_MARGIN = 28.8  # 0.4 inch
_GAP = 21.6  # between the figure and the text: 0.3 inch


@dataclass(frozen=True, slots=True)
class Box:
    """A rectangle on the slide, in points from its top-left corner."""

    x: float
    y: float
    w: float
    h: float


@dataclass(frozen=True, slots=True)
class SlideBoxes:
    """A deck's slide size and the boxes every one of its step slides uses."""

    width: float
    height: float
    title: Box
    figure: Box
    text: Box | None  # None: the deck has no sentences, and the figure takes the whole width


def slide_size(aspect: str) -> tuple[float, float]:
    """(width, height) in points of a "16:9" or "4:3" slide.

    >>> slide_size("16:9"), slide_size("4:3")
    ((960.0, 540.0), (720.0, 540.0))
    """
    return (720.0 if aspect == "4:3" else 960.0), 540.0


def slide_boxes(aspect: str, with_text: bool) -> SlideBoxes:
    """The boxes of a `aspect` ("16:9" or "4:3") step slide; `with_text`: whether any step has sentences.

    >>> boxes = slide_boxes("16:9", True)
    >>> boxes.figure.x + boxes.figure.w < boxes.text.x and boxes.text.x + boxes.text.w <= boxes.width
    True
    """
    width, height = slide_size(aspect)
    inner = width - 2 * _MARGIN
    title = Box(_MARGIN, 14.4, inner, 64.8)
    top, bottom = 86.4, height - 21.6
    if not with_text:
        return SlideBoxes(width, height, title, Box(_MARGIN, top, inner, bottom - top), None)
    figure_w = round(inner * (0.62 if aspect != "4:3" else 0.6), 1)
    text_x = _MARGIN + figure_w + _GAP
    return SlideBoxes(width, height, title, Box(_MARGIN, top, figure_w, bottom - top),
                      Box(text_x, top, width - _MARGIN - text_x, bottom - top))


def wrap(text: str, size: float, width: float, bold: bool = False) -> list[str]:
    """`text` broken into lines at spaces so that each is at most `width` points wide at `size` points
    (a word wider than the box is broken between characters).

    >>> wrap("one two three", 10, 60)
    ['one two', 'three']
    """
    lines: list[str] = []
    line = ""
    for word in text.split():
        candidate = f"{line} {word}" if line else word
        if text_width(candidate, size, bold=bold) <= width:
            line = candidate
            continue
        if line:
            lines.append(line)
        while len(word) > 1 and text_width(word, size, bold=bold) > width:  # a word wider than the box
            cut = 1
            while cut < len(word) and text_width(word[:cut + 1], size, bold=bold) <= width:
                cut += 1
            lines.append(word[:cut])
            word = word[cut:]
        line = word
    if line:
        lines.append(line)
    return lines


def fit_title(title: str, width: float, height: float) -> tuple[float, list[str], bool]:
    """(size, lines, cut) of a step's title in a `width` × `height` points box: the largest of `TITLE_SIZES`
    at which all its lines fit; at the smallest, a longer title is cut after the lines that fit (`cut`:
    True), an ellipsis ending the last, and the notes carry it whole.

    >>> fit_title("Softmax of row 3", 900, 64.8)[:2]
    (28.0, ['Softmax of row 3'])
    """
    for size in TITLE_SIZES:
        lines = wrap(title, size, width, bold=True)
        if len(lines) * size * LINE <= height:
            return size, lines, False
    size = TITLE_SIZES[-1]
    keep = max(1, int(height // (size * LINE)))
    lines = wrap(title, size, width, bold=True)[:keep]
    while lines[-1] and text_width(lines[-1] + " …", size, bold=True) > width:
        lines[-1] = lines[-1][:-1]
    lines[-1] = lines[-1].rstrip() + " …"
    return size, lines, True


def fit_lines(paragraphs: Sequence[str], width: float, height: float,
              reserved: Sequence[float] = ()) -> tuple[list[list[str]], list[str], bool]:
    """(shown, moved, fits_reserved): the paragraphs' lines at `SENTENCE_PT` that fit in `width` × `height`
    points with the blocks of `reserved` heights (a formula) after them, each paragraph a list of lines;
    `moved`: the text left for the notes (whole paragraphs, or the rest of one cut between lines);
    `fits_reserved`: whether the reserved blocks fit (they go first: the sentences fill what is left).
    When anything moves, room is kept for the `MORE_IN_NOTES` line."""
    line_h, gap = SENTENCE_PT * LINE, SENTENCE_PT / 2
    wrapped = [wrap(paragraph, SENTENCE_PT, width) for paragraph in paragraphs]
    needed = sum(len(lines) * line_h for lines in wrapped) + gap * max(0, len(wrapped) - 1)
    extra = sum(reserved) + gap * len(reserved)
    if needed + extra <= height:
        return wrapped, [], True
    room = height - NOTE_PT * LINE - gap  # the "more in the notes" line
    fits_reserved = extra + line_h <= room  # the formula first, then as many lines of sentences as fit
    if not fits_reserved:
        extra = 0
    shown: list[list[str]] = []
    moved: list[str] = []
    used = 0.0
    for n, lines in enumerate(wrapped):
        take = 0
        while take < len(lines) and used + (take + 1) * line_h + extra <= room:
            take += 1
        if take:
            shown.append(lines[:take])
        if take < len(lines):
            moved.append(" ".join(lines[take:]))
            moved.extend(paragraphs[n + 1:])
            break
        used += take * line_h + gap
    return shown, moved, fits_reserved
