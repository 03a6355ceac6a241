"""Layout items: what a layout is made of, placed in plain dataclasses (no colours, no output format).

Every text knows its bounding box (from `metrics`), so tests can check that nothing overlaps or
spills without rendering anything. Roles name what a shape is; `render.painter` paints roles.
"""

from __future__ import annotations

from ..records import dataclass, field, replace
from functools import lru_cache

from .math_text import math_runs, plain_runs, runs_width, strip_runs
from .metrics import ASCENT, DESCENT, text_width
from .type_scale import role_sizes

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import TypeAlias

    from .math_text import Run

    Item: TypeAlias = "Text | Rect | Mark | Group"  # what a layout holds

__all__ = ["TextStyle", "STYLES", "LEADING", "Text", "Rect", "Mark", "Group", "Layout", "measure", "text_height",
           "right_edge", "translate", "spans_within", "scale_item", "scaled"]


@dataclass(frozen=True, slots=True)
class TextStyle:
    """How a role's text is set: size (layout units), family ("sans" or "mono"), weight and slant."""

    size: float
    family: str = "sans"
    bold: bool = False
    italic: bool = False


#: Each role's family, weight and slant (its size is its step's in the doc frame: `type_scale`).
_FACES: dict[str, tuple[str, bool, bool]] = {  # (family, bold, italic)
    "title": ("sans", True, False),
    "panel-title": ("sans", True, False),  # a panel's title, under a composed figure's
    "subtitle": ("sans", False, False),
    "badge": ("sans", True, False),
    "note": ("sans", False, False),
    "vectors": ("mono", False, False),
    "caption": ("sans", True, False),
    "header": ("mono", True, False),
    "score": ("mono", False, False),
    "score-computed": ("mono", True, False),
    "masked": ("sans", False, True),
    "softmax-heading": ("sans", True, False),
    "softmax-scores": ("mono", True, False),
    "softmax-weights": ("mono", False, False),
    "footer": ("sans", False, True),
    "outputs-heading": ("sans", True, False),
    "output": ("mono", False, False),
    # the mask view
    "axis-title": ("sans", False, True),
    "tick": ("mono", False, False),
    "legend": ("sans", False, False),
    "elision": ("sans", False, False),  # an elided figure's ⋮, ⋯ and ⋱
    # mechanics drawn beside a grid (issue 22): FlashAttention's state, the KV cache, the heads schematic
    "state": ("sans", False, False),
    "side-heading": ("sans", True, False),
    "slot": ("mono", False, False),
    "slot-note": ("sans", False, False),
    "head": ("sans", True, False),
}
#: Every role's style in the doc frame: its face, at its step's size (`type_scale.TYPE_SCALES["doc"]`).
STYLES = {role: TextStyle(size, *_FACES[role]) for role, size in role_sizes("doc")}
LEADING = 1.35  # line height in em

@dataclass(frozen=True, slots=True)
class Text:
    """A text of one or more lines, placed: its role names its style and colour."""

    role: str
    x: float
    y: float  # baseline of the first line
    lines: tuple[str, ...]  # "".join(lines) is the text; each line is drawn below the previous
    anchor: str = "start"
    indent: float = 0  # extra x for continuation lines
    rotate: int = 0  # 0, or -90: drawn upwards about (x, y), for long column headers
    # Spans (start, stop) of "".join(lines) that are a user's text (`words.user_text`): every backend
    # escapes them as text and typesets as notation only the rest.
    user: tuple[tuple[int, int], ...] = ()
    size: float = 0  # the font size a frame's layout chose (layout.framed); 0: the role's size in STYLES
    # Set in the slide and column frames: attnviz's notation outside the user spans is typeset as math
    # (exponents raised, subscripts lowered, minus signs): `line_runs` gives each line's runs.
    math: bool = False
    script: float = 0  # a typeset text's script size: 0 for SCRIPT_SCALE of its size (a frame: a step, `type_scale`)

    @property
    def style(self) -> TextStyle:
        """The role's style (at the size the layout chose, if it chose one)."""
        return _sized(self.role, self.size) if self.size else STYLES[self.role]

    def line_runs(self) -> list[tuple[Run, ...]]:
        """Each drawn line as runs (text, kind): kind "" plain, "user" a user's text, "sup" or "sub" a raised or lowered
        script (`math_text`). A text that is not math is one plain run a line (user spans kept)."""
        return list(_line_runs(self.lines, self.user, self.math))

    @property
    def text(self) -> str:
        """The whole text, its lines joined."""
        return "".join(self.lines)

    def line_boxes(self) -> list[tuple[float, float, float, float]]:
        """(x0, y0, x1, y1) of each drawn line."""
        return list(_line_boxes(self))


# A text's runs and boxes follow from its fields alone (it is frozen): the layout asks for them as it measures
# (`right_edge`), the frame check and every backend again; keyed by the fields, each is worked out once.
@lru_cache(maxsize=4096)
def _line_runs(lines: tuple[str, ...], user: tuple[tuple[int, int], ...], math: bool) -> tuple[tuple[Run, ...], ...]:
    runs: list[tuple[Run, ...]] = []
    offset = 0
    for line in lines:
        spans = spans_within(user, offset, offset + len(line))
        runs.append(math_runs(line, spans) if math else plain_runs(line, spans))
        offset += len(line)
    return tuple(runs)


@lru_cache(maxsize=4096)
def _line_boxes(text: Text) -> tuple[tuple[float, float, float, float], ...]:  # (every field of the text's counts)
    s, x, y, anchor = text.style, text.x, text.y, text.anchor
    boxes: list[tuple[float, float, float, float]] = []
    runs = _line_runs(text.lines, text.user, text.math) if text.math else None
    for n, line in enumerate(text.lines):
        width = runs_width(strip_runs(runs[n]), s, text.script) if runs is not None else measure(line.rstrip(), s)
        x_n = x + (text.indent if n else 0)
        x0 = x_n if anchor == "start" else x_n - width / 2 if anchor == "middle" else x_n - width  # "end"
        base = y + n * s.size * LEADING
        boxes.append((x0, base - ASCENT * s.size, x0 + width, base + DESCENT * s.size))
    if text.rotate == -90:  # (x + u, y + v) is drawn at (x + v, y - u)
        return tuple((x + (b[1] - y), y - (b[2] - x), x + (b[3] - y), y - (b[0] - x)) for b in boxes)
    return tuple(boxes)


@dataclass(frozen=True, slots=True)
class Rect:
    """A rectangle, placed (rounded by `rx`); its role names its paint."""

    role: str
    x: float
    y: float
    w: float
    h: float
    rx: float = 0
    attrs: tuple[tuple[str, str], ...] = ()  # (name, value) pairs a backend may write, e.g. (("data-k", "1-3"),)


@dataclass(frozen=True, slots=True)
class Mark:
    """A small corner triangle: the highlight's shape cue, readable without colour."""

    role: str
    x: float  # top-right corner
    y: float
    size: float


@dataclass(frozen=True, slots=True)
class Group:
    """Items drawn together (a cell, a softmax row), with the classes and attributes a backend may write."""

    classes: tuple[str, ...]
    attrs: tuple[tuple[str, str], ...]  # (name, value) pairs, e.g. (("data-q", "1"), ("data-k", "2"))
    children: tuple[Text | Rect | Mark | Group, ...]
    box: tuple[float, float, float, float] | None = None  # (x0, y0, x1, y1) the texts must stay inside, if any


@dataclass
class Layout:
    """A whole figure placed: its size, its <title> and <desc>, and its items in document order."""

    width: float
    height: float
    title: str  # for <title>
    desc: str  # for <desc>
    items: list[Text | Rect | Mark | Group] = field(default_factory=list)
    grid: tuple[float, float, float] | None = None  # (x, y, cell size) of the grid's top-left corner, for panels
    # The choices the layout made to fit its frame (layout.frames), in the documented order, as short
    # phrases ("landscape: the captions beside the grid"); in the doc frame, only a mask map's axis titles shortened.
    # The SVG's <desc> and --verbose say them.
    choices: tuple[str, ...] = ()

    def texts_in_boxes(self) -> list[tuple[Text, tuple[float, float, float, float] | None]]:
        """(Text, the box it must stay inside or None), in document order: what overlap checks test.
        A text's box is its nearest enclosing group's (panels nest cells inside panels)."""
        out: list[tuple[Text, tuple[float, float, float, float] | None]] = []

        def visit(items: Iterable[Item], box: tuple[float, float, float, float] | None) -> None:
            for item in items:
                if isinstance(item, Group):
                    visit(item.children, item.box)
                elif isinstance(item, Text):
                    out.append((item, box))

        visit(self.items, None)
        return out

    def walk(self) -> Iterator[Item]:
        """Every item, groups' children included, in document order."""
        stack = list(reversed(self.items))
        while stack:
            item = stack.pop()
            yield item
            if isinstance(item, Group):
                stack.extend(reversed(item.children))


@lru_cache(maxsize=256)
def _sized(role: str, size: float) -> TextStyle:
    return replace(STYLES[role], size=size)


def spans_within(spans: Iterable[tuple[int, int]], start: int, stop: int) -> tuple[tuple[int, int], ...]:
    """`spans` clipped to [start, stop), counted from `start`."""
    return tuple((max(a, start) - start, min(b, stop) - start) for a, b in spans if a < stop and b > start)


def measure(text: str, style: TextStyle) -> float:
    """Advance width of `text` drawn in `style`."""
    return text_width(text, style.size, style.family, style.bold, style.italic)


def text_height(role: str, n_lines: int = 1) -> float:
    """Height of `n_lines` lines of `role` text, from the first line's top to the last one's bottom."""
    s = STYLES[role].size
    return s * (ASCENT + DESCENT) + (n_lines - 1) * s * LEADING


def right_edge(item: Item) -> float:
    """The rightmost x that `item` draws at (a group: its box's, or its children's)."""
    if isinstance(item, Text):
        return max(b[2] for b in item.line_boxes())
    if isinstance(item, Rect):
        return item.x + item.w
    if isinstance(item, Mark):
        return item.x
    if item.box is not None:  # a group's texts stay inside its box (the layout sizes boxes to them; tests check)
        return item.box[2]
    return max((right_edge(child) for child in item.children), default=0)


def translate(item: Item, dx: float, dy: float) -> Item:
    """`item` moved by (dx, dy), groups with everything in them: how panels are placed."""
    # Made directly, not by `replace` (a figure fitted to its slide moves every item it has).
    if isinstance(item, Text):
        return Text(item.role, item.x + dx, item.y + dy, item.lines, item.anchor, item.indent, item.rotate, item.user,
                    item.size, item.math, item.script)
    if isinstance(item, Group):
        box = item.box and (item.box[0] + dx, item.box[1] + dy, item.box[2] + dx, item.box[3] + dy)
        return Group(item.classes, item.attrs, tuple([translate(child, dx, dy) for child in item.children]), box)
    if isinstance(item, Rect):
        return Rect(item.role, item.x + dx, item.y + dy, item.w, item.h, item.rx, item.attrs)
    return Mark(item.role, item.x + dx, item.y + dy, item.size)


def scale_item(item: Item, k: float) -> Item:
    """`item` with every length multiplied by `k` (positions, sizes, text sizes, boxes), about (0, 0)."""
    if isinstance(item, Group):
        box = item.box and (item.box[0] * k, item.box[1] * k, item.box[2] * k, item.box[3] * k)
        return Group(item.classes, item.attrs, tuple([scale_item(child, k) for child in item.children]), box)
    if isinstance(item, Text):
        return Text(item.role, item.x * k, item.y * k, item.lines, item.anchor, item.indent * k, item.rotate,
                    item.user, (item.size or STYLES[item.role].size) * k, item.math, item.script * k)
    if isinstance(item, Rect):
        return Rect(item.role, item.x * k, item.y * k, item.w * k, item.h * k, item.rx * k, item.attrs)
    return Mark(item.role, item.x * k, item.y * k, item.size * k)


def scaled(layout: Layout, k: float) -> Layout:
    """`layout` with every length multiplied by `k`: how an overlay made at the doc's sizes is drawn in a
    frame whose grid was laid out `k` times the doc's cell size (`figures.overlaid`)."""
    grid = layout.grid and (layout.grid[0] * k, layout.grid[1] * k, layout.grid[2] * k)
    return replace(layout, width=layout.width * k, height=layout.height * k, grid=grid,
                   items=[scale_item(item, k) for item in layout.items])
