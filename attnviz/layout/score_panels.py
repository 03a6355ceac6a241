"""Score-grid panels made compact for a frame: query heads, a grid beside its bias matrix.

A doc figure's panel carries its own chrome (title, subtitle, badge, vectors, captions, softmax rows);
eight of them side by side put the values at 2 px on a slide. Here each panel is its grid alone, cells
sized to their values (a masked cell is hatched, without the word), under one title and one line for
all panels; the panels take the arrangement of columns whose canvas lets the text come out largest. When
even that puts a value under the frame's floor, the figure is refused in one line naming the way out.
"""

from __future__ import annotations

from ..numbers.exact import InputError
from ..words.a11y import cell_label, cell_values
from ..words.user_text import user_spans
from .figure import SIGN_ROLES, split_keep, wrap
from .frames import MAIN_ROLES, fit_to_frame, text_floor_misses, wider_frame
from .items import STYLES, Group, Layout, Mark, Rect, Text, measure, right_edge, text_height, translate
from .metrics import ASCENT, DESCENT
from .map_fit import canvas
from .panel_fit import panel_title, panel_title_text, rearranged
from ..records import replace

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..words.figure_text import Cell, FigureText
    from .frames import Frame
    from .items import Item

__all__ = ["fit_score_panels", "grid_title"]

CELL_PAD, CELL_GAP, CELL_H, CELL_MIN = 8, 3, 32, 34
COL_GAP, ROW_GAP = 18, 14
MARGIN = 16  # the canvas's margin: the slide or the page has its own
# What a kept cell's text is, for screen readers.
_NOUN = {"scores": "score", "logits": "logit", "bias": "bias", "differences": "difference"}


def grid_title(words: FigureText, n: int) -> str:
    """A panel's title: its own, else what its grid shows ("Scores", "Logits", "Bias B_ij") or "Panel n"."""
    shows = {"scores": "Scores S_ij", "logits": "Logits", "bias": "Bias B_ij"}
    return words.title or shows.get(words.show, f"Panel {n}")


def _cell_w(words: FigureText) -> float:
    texts = [cell.text for row in words.cells for cell in row if not cell.masked and not cell.gap]
    widest = max([measure(text, STYLES["score-computed"]) for text in texts], default=0)
    return max(CELL_MIN, widest + 2 * CELL_PAD)


def _panel(words: FigureText, title: str, width: float, cell_w: float) -> tuple[list[Item], float, float]:
    """One panel at (0, 0): its title, the key labels, the query labels and the cells `cell_w` wide; (items, w, h)."""
    header = STYLES["header"]
    lines, _ = panel_title(title, width)
    items: list[Item] = [panel_title_text(words.title, lines)]
    y = text_height("panel-title", len(lines)) + 8
    row_head = max(measure(label, header) for label in words.q_labels) + CELL_PAD
    widest_key = max(measure(label, header) for label in words.k_labels)
    upright = widest_key + 4 > cell_w
    head_h = (widest_key + 8) if upright else text_height("header") + 6
    for j, label in enumerate(words.k_labels):
        cx = row_head + j * (cell_w + CELL_GAP) + cell_w / 2
        if upright:
            items.append(Text("header", cx + (ASCENT - DESCENT) / 2 * header.size, y + head_h - 6, (label,),
                              rotate=-90, user=user_spans(label)))
        else:
            items.append(Text("header", cx, y + head_h - 6 - DESCENT * header.size, (label,), anchor="middle",
                              user=user_spans(label)))
    y += head_h
    for i, label in enumerate(words.q_labels):
        base = y + i * (CELL_H + CELL_GAP) + CELL_H / 2 + (ASCENT - DESCENT) / 2 * header.size
        items.append(Text("header", row_head - CELL_PAD, base, (label,), anchor="end", user=user_spans(label)))
    for i, row in enumerate(words.cells):
        for j, cell in enumerate(row):
            x, top = row_head + j * (cell_w + CELL_GAP), y + i * (CELL_H + CELL_GAP)
            items.append(_cell(cell, x, top, cell_w, words, i, j))
    grid_w = row_head + len(words.k_labels) * (cell_w + CELL_GAP) - CELL_GAP
    height = y + len(words.cells) * (CELL_H + CELL_GAP) - CELL_GAP
    return items, max(grid_w, max(right_edge(item) for item in items)), height


def _cell(cell: Cell, x: float, y: float, w: float, words: FigureText, i: int, j: int) -> Item:
    """A compact cell: its value centred (a masked cell hatched and empty), its data and its spoken label."""
    box = (x, y, x + w, y + CELL_H)
    if cell.gap:
        size = STYLES["elision"].size
        return Group(("attnviz-elided",), (), (Text("elision", x + w / 2, y + CELL_H / 2 + (ASCENT - DESCENT) / 2
                                                      * size, (cell.text,), anchor="middle"),), box=box)
    label = cell_label(cell, words.q_labels[i], words.k_labels[j], _NOUN.get(words.show, "score"), words.base)
    attrs = (("data-q", str(cell.q)), ("data-k", str(cell.k)), *cell_values(cell), ("aria-label", label))
    if cell.pending:
        return Group(("attnviz-cell", "attnviz-pending"), attrs, (Rect("cell-pending", x, y, w, CELL_H, rx=5),),
                     box=box)
    children: list[Item] = [Rect("cell-masked" if cell.masked else SIGN_ROLES.get(cell.sign or 0, "cell-score"),
                                 x, y, w, CELL_H, rx=5)]
    if cell.computed:
        children += [Rect("cell-computed-outline" if cell.masked else "cell-computed", x, y, w, CELL_H, rx=5),
                     Mark("computed-mark", x + w - 3, y + 3, 9)]
    if not cell.masked:
        role = "score-computed" if cell.computed else "score"
        base = y + CELL_H / 2 + (ASCENT - DESCENT) / 2 * STYLES[role].size
        children.append(Text(role, x + w / 2, base, (cell.text,), anchor="middle"))
    classes = ("attnviz-cell", "attnviz-masked" if cell.masked else "attnviz-score")
    return Group(classes + (("attnviz-computed",) if cell.computed else ()), attrs, tuple(children), box=box)


def fit_score_panels(panels: Sequence[FigureText], columns: int, title: str | None, note: str, frame: Frame,
                     desc: str) -> Layout:
    """Score-grid panels for `frame`: `note` is the one line said for all (what the grids show), `desc` what
    the doc frame's panels would say besides (the SVG's <desc>)."""
    n = len(panels)
    columns = min(columns, n)  # (a grid of 3 columns with 2 panels is their row)
    order = list(dict.fromkeys([columns] + list(range(n, 0, -1))))
    cell_w = max(_cell_w(words) for words in panels)  # one cell size for all, so the grids compare
    drawn = [_panel(words, grid_title(words, n), 10_000, cell_w) for n, words in enumerate(panels, 1)]
    roles = {item.role for items, _, _ in drawn for item in _texts(items)}
    roles |= {role for role, text in (("title", title), ("subtitle", note)) if text}
    if frame.aspect is None:  # print: a panel's title wraps to the column's width (a slide's panels take it whole)
        drawn = [_panel(words, grid_title(words, n), canvas(frame, roles)[0] - 2 * MARGIN, cell_w)
                 for n, words in enumerate(panels, 1)]

    def arranged(c: int, wrap_at: float = 360, build: bool = False) -> Layout:
        return _arranged(drawn, panels, c, title, note, desc, wrap_at, build)

    if frame.aspect is None:  # print: the most columns the column's width holds at the floor, so the fewest rows
        widest = canvas(frame, roles)[0]
        fitting = [c for c in order if arranged(c, widest - 2 * MARGIN).width <= widest]
        c = columns if columns in fitting else max(fitting, default=1)
        fitted = _widened(arranged(c, widest - 2 * MARGIN, build=True), widest)
    else:  # a slide: the arrangement whose text comes out largest, the one asked for unless much smaller
        # each arrangement with its title wrapped at the panels' width or wider (a slide's width to fill)
        wraps = {c: [360.0] + [arranged(c).width * f for f in (1.3, 1.7)] for c in order}
        best = {c: max(wraps[c], key=lambda at: _worth(arranged(c, at), roles, frame)) for c in order}
        worth = {c: _worth(arranged(c, best[c]), roles, frame) for c in order}
        c = max(order, key=lambda c: (worth[c], c == columns))
        if worth[columns] >= max(1 - 1e-9, 0.85 * worth[c]):
            c = columns
        fitted = fit_to_frame(arranged(c, best[c], build=True), frame)
    if text_floor_misses(fitted, frame):
        raise InputError(f"{n} score grids do not fit the {frame.name} frame with their values at the floor; try "
                         f"{wider_frame(frame)}fewer panels, heads or tokens, --view mask, --elide or --frame doc",
                         "frame")
    fitted.choices = ("each panel its grid alone under one title (vectors and captions: the doc frame's)",
                      "masked cells hatched, without the word", *rearranged(c, columns, n))
    return fitted


def _widened(layout: Layout, width: float) -> Layout:
    """A print layout on a canvas `width` wide (text at the column's floors, not blown up), content centred."""
    if layout.width >= width:
        return layout
    dx = round((width - layout.width) / 2, 2)
    return replace(layout, width=width, items=[translate(item, dx, 0) for item in layout.items])


def _texts(items: Sequence[Item]) -> list[Text]:
    """The texts among `items`, groups' children included."""
    out: list[Text] = []
    for item in items:
        if isinstance(item, Text):
            out.append(item)
        elif isinstance(item, Group):
            out += _texts(item.children)
    return out


def _worth(layout: Layout, roles: set[str], frame: Frame) -> float:
    """How far above its floor the smallest text (of `roles`) comes out when `layout` is fitted to the slide
    (1: at the floor)."""
    assert frame.aspect is not None  # a slide
    width = max(layout.width, layout.height * frame.aspect)
    return min(STYLES[role].size / frame.min_size(width, main=role in MAIN_ROLES) for role in roles)


def _arranged(drawn: Sequence[tuple[list[Item], float, float]], panels: Sequence[FigureText], columns: int,
              title: str | None, note: str, desc: str, wrap_at: float = 360, build: bool = True) -> Layout:
    """The panels (`drawn`: each one's items, width and height) in rows of `columns` under `title` and
    `note` (wrapped at the panels' width, or `wrap_at` if wider), at their own size (no frame yet);
    without `build`, only its size (and its top texts) is worked out."""
    rows = [list(range(s, min(s + columns, len(panels)))) for s in range(0, len(panels), columns)]
    widths = [max(drawn[row[c]][1] for row in rows if c < len(row)) for c in range(columns)]
    total_w = sum(widths) + COL_GAP * (columns - 1)
    items: list[Item] = []
    y: float = MARGIN
    for role, text in (("title", title or ""), ("subtitle", note)):
        if text:
            lines = wrap(split_keep(text, " "), role, max(total_w, wrap_at))
            # the line said for all is attnviz's notation (S_ij = Qi·Kj), typeset; its scripts at its size, so
            # they are never under the floor its line meets
            typeset = role == "subtitle"
            items.append(Text(role, MARGIN, y + ASCENT * STYLES[role].size, lines, math=typeset,
                              script=STYLES[role].size if typeset else 0, user=user_spans(text) if typeset else ()))
            y += text_height(role, len(lines)) + (8 if role == "title" else 14)
    for row in rows:
        x: float = MARGIN
        for c, n in enumerate(row):
            if build:
                panel = [translate(item, x, y) for item in drawn[n][0]]
                items.append(Group(("attnviz-panel",), (("data-panel", str(n + 1)),), tuple(panel)))
            x += widths[c] + COL_GAP
        y += max(drawn[n][2] for n in row) + ROW_GAP
    width = max([MARGIN + total_w] + [right_edge(item) for item in items]) + MARGIN
    names = [grid_title(words, n) for n, words in enumerate(panels, 1)]
    return Layout(width=width, height=y - ROW_GAP + MARGIN, title=title or " | ".join(names), desc=desc, items=items)
