"""The full figure's layout: its words placed as items (`layout.items`), in document order."""

from __future__ import annotations

from ..words.a11y import cell_label, cell_values
from ..words.user_text import user_spans
from .items import (LEADING, STYLES, Group, Layout, Mark, Rect, Text, TextStyle, measure, right_edge, text_height,
                    translate)
from functools import lru_cache

from .fractions import stacked_weights
from .metrics import ASCENT, DESCENT
from .type_scale import script_size
from .wrapping import ANYWHERE, Pieces, break_points, math_width, split_keep, widths, wrap
from ..records import dataclass, replace

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any, TypeAlias

    from ..words.figure_text import Cell, FigureText, OutputRow, SoftmaxRow
    from .frames import Frame
    from .items import Item

    #: Lines wrapped by a figure's layouts, by their sizes, then by text, role, width, indent and separators:
    #: what `lay_out` may reuse when it lays the same figure out again (`layout.framed`'s attempts).
    Wraps: TypeAlias = dict[object, dict[tuple[object, ...], tuple[str, ...]]]
    #: A softmax row as placed: the row, its top and bottom, its scores' text and its weights' items.
    _Row: TypeAlias = tuple[SoftmaxRow, float, float, Text, list[Item]]


# The items' names stay importable from here (panels, the mask map and tests read them here).
__all__ = ["TextStyle", "STYLES", "LEADING", "Text", "Rect", "Mark", "Group", "Layout", "lay_out", "wrap", "measure",
           "right_edge", "split_keep", "text_height", "translate", "ASCENT", "DESCENT", "Metrics", "DOC_METRICS",
           "math_width", "Pieces"]


PAD = 28  # canvas margin
MIN_WRAP = 640  # captions wrap at the wider of this and the grid
CELL_MIN_W, CELL_H, CELL_GAP, CELL_PAD = 68, 46, 4, 12
HEADER_SLACK = 24  # column labels up to this much wider than the cells' content widen the cells


@dataclass(frozen=True, slots=True)
class Metrics:
    """The sizes a full figure is laid out at: the doc frame's are these defaults (`layout.framed` picks others for
    slides and columns). `sizes`: (role, font size) pairs that differ from `STYLES`; `chrome`: draw the badge, the
    provenance note and the footer; `math`: typeset the notation (`math_text`); `beside`: the landscape arrangement, the
    vectors and captions in a column right of the grid, the figure `canvas_w` wide; `masked_word`: write "masked" in
    masked cells (their hatching says it too); `seed_cells`: size cells for the word "masked" as if it were a value, as
    the seed does; `section_gap`, `row_pad`: vertical room after the vectors and around each softmax row."""

    sizes: tuple[tuple[str, float], ...] = ()
    pad: float = PAD
    cell_min_w: float = CELL_MIN_W
    cell_h: float = CELL_H
    cell_gap: float = CELL_GAP
    cell_pad: float = CELL_PAD
    wrap: float = MIN_WRAP
    chrome: bool = True
    math: bool = False
    beside: bool = False
    canvas_w: float = 0
    gutter: float = 40
    masked_word: bool = True
    seed_cells: bool = True
    stacked: bool = False  # each named weight a stacked fraction, in rows where they fit (layout.fractions)
    titled: bool = True  # draw the title
    script_floor: float = 0  # the smallest script a typeset text may have (a frame's floor)
    main_script_floor: float = 0  # the same for `main_roles` (a slide's 18 pt floor for values and captions)
    main_roles: frozenset[str] = frozenset()
    side: float = 0  # room kept right of the grid, before the captions beside it (a walkthrough's mechanics)
    below: float = 0  # room kept under the grid, before what follows it (a walkthrough's mechanics)
    section_gap: float = 24  # between the vectors and the grid's caption
    row_pad: float = 7  # above and below each softmax row's lines
    caption_across: bool = False  # beside: the grid's caption across the figure, over the grid and the captions


DOC_METRICS = Metrics()


_UNMADE = Text("caption", 0, 0, ())


def _unmade(*args: Any, **options: Any) -> Text:
    """The text a layout that may stop makes for a fraction's parts: made for real once it is known to fit."""
    return _UNMADE


@lru_cache(maxsize=64)
def _styles(sizes: tuple[tuple[str, float], ...]) -> dict[str, TextStyle]:
    """Every role's style at `Metrics.sizes` (shared: read, never changed)."""
    return {**STYLES, **{role: replace(STYLES[role], size=size) for role, size in sizes}}


#: Roles that never hold notation: the user's title and subtitle, token labels, the badge. A panel's title is typeset
#: where the frame typesets (attnviz's own, a sparse panel's `q_i·mean(K_b)`), a user's (`words.user_text`) as given.
_PLAIN_ROLES = frozenset({"title", "subtitle", "header", "badge"})


def lay_out(words: FigureText, min_cell_w: float | None = None, grid_top: float | None = None,
            title_role: str = "title", frame: Frame | None = None, metrics: Metrics = DOC_METRICS,
            wraps: Wraps | None = None) -> Layout:
    """Place a `content.FigureText`; returns a `Layout`.

    `min_cell_w`, `grid_top`: at least this cell width and first row's top, so composed panels line up.
    `frame`: where the figure lands (layout.frames; None or doc: the web figure); `metrics`: the sizes
    and arrangement (`layout.framed` chooses them for a frame); `wraps`: the lines already wrapped by
    other layouts of the same figure (a frame's attempts), reused where the same text wraps the same way.
    """
    layout = _Placer(words, metrics, wraps, None).place(title_role, min_cell_w, grid_top)
    assert layout is not None, "no height to stop at"
    return layout


def lay_out_within(words: FigureText, height: float | None, title_role: str = "title", metrics: Metrics = DOC_METRICS,
                   wraps: Wraps | None = None, stopped: list[str] | None = None) -> Layout | None:
    """`lay_out(words, title_role=title_role, metrics=metrics)`, or None as soon as it is certain to be taller
    than `height` (if any; its cells, made last, then never made): how a frame tries a choice (`layout.framed`).
    `stopped`, if given, is told "grid" when the grid's column beside the captions is what is too tall."""
    return _Placer(words, metrics, wraps, height).place(title_role, stopped=stopped)


def height_within(words: FigureText, height: float | None, title_role: str = "title", metrics: Metrics = DOC_METRICS,
                  wraps: Wraps | None = None) -> float | None:
    """The height `lay_out_within` would give the layout (None: taller than `height`; no `height`: no limit),
    found without making its cells or fractions: how a frame compares two ways to lay a figure out."""
    layout = _Placer(words, metrics, wraps, height, measure=True).place(title_role)
    return None if layout is None else layout.height


class _Placer:
    """`lay_out`'s work: the figure's items placed in document order, `y` the top of the next; `limit` (if
    given): the height past which `place` stops (None: certain to be taller), since a layout's height only
    grows as it is placed (the rows beside the grid going down, the grid's bottom fixed once it is placed);
    `measure`: only the height is asked for (no cells or fractions made)."""

    def __init__(self, words: FigureText, m: Metrics, wraps: Wraps | None, limit: float | None,
                 measure: bool = False) -> None:
        self.words, self.m, self.limit, self.measure = words, m, limit, measure
        self.sizes = dict(m.sizes)
        self.style = _styles(m.sizes).__getitem__
        self.measurers: dict[str, Callable[[str], float]] = {}  # each role's `math_width`, made once a layout
        self.scripts: dict[str, float] = {}
        self.wrapped = _wrapper(wraps, m, self.style, self.math, self.script)
        self.items: list[Item] = []
        self.y: float = m.pad

    def past(self, bottom: float) -> bool:  # a layout at least `bottom` + pad tall is past `limit` (framed's _fits)
        return self.limit is not None and bottom + self.m.pad > self.limit + 1e-6

    def math(self, role: str) -> bool:
        return self.m.math and role not in _PLAIN_ROLES

    def width(self, text: str, role: str) -> float:
        measured = self.measurers.get(role)
        if measured is None:
            s = self.style(role)
            measured = self.measurers[role] = widths(s.size, s.family, s.bold, s.italic, self.math(role),
                                                     self.script(role))
        return measured(text)

    def height(self, role: str, n_lines: int = 1) -> float:
        s = self.style(role).size
        return s * (ASCENT + DESCENT) + (n_lines - 1) * s * LEADING

    def text(self, role: str, x: float, y: float, lines: tuple[str, ...], **options: Any) -> Text:
        return Text(role, x, y, lines, size=self.sizes.get(role, 0), math=self.math(role), script=self.script(role),
                    **options)

    def script(self, role: str) -> float:
        """A typeset role's script size: one of the frame's steps, smaller than its text where one is, never under
        the frame's floor (`type_scale.script_size`)."""
        found = self.scripts.get(role)
        if found is None:
            m = self.m
            floor = m.main_script_floor if role in m.main_roles else m.script_floor
            # (at one of the frame's steps: its sizes are its steps, `type_scale`)
            steps = {size for _, size in m.sizes}
            found = self.scripts[role] = script_size(self.style(role).size, floor, steps) if self.math(role) and floor \
                else 0
        return found

    def centre(self, centre_y: float, role: str) -> float:
        """Baseline that centres a line of `role` text vertically on `centre_y`."""
        return centre_y + (ASCENT - DESCENT) / 2 * self.style(role).size

    def add_text(self, role: str, source: str, sep: str | None, x: float | None = None, indent: float = 0,
                 gap_after: float = 0, finer: Sequence[str] = (), wrap_at: float | None = None) -> None:
        """`source`, a line as the words wrote it, broken after each `sep` (None: wherever it may, `break_points`)."""
        if not source:  # a line this figure does not have (a bias panel's vectors)
            return
        lines = self.wrapped(source, sep, role, self.wrap_w if wrap_at is None else wrap_at, indent, finer)
        self.items.append(self.text(role, self.m.pad if x is None else x, self.y + ASCENT * self.style(role).size,
                                    lines, indent=indent, user=user_spans(source)))
        self.y += self.height(role, len(lines)) + gap_after

    def place(self, title_role: str, min_cell_w: float | None = None, grid_top: float | None = None,
              stopped: list[str] | None = None) -> Layout | None:
        m = self.m
        self._geometry(min_cell_w)  # the grid's first: its width sets where captions wrap
        self._top(title_role)
        y_top = self.y
        self._vectors()
        y_right = self.y
        if m.beside:
            self.y = y_top
        if not (m.beside and m.caption_across):
            self.add_text("caption", self.words.grid_caption, " ", gap_after=10)
        self._grid(grid_top)
        y_left = self.y
        if m.beside:
            self.wrap_w, self.y = self.right_w, y_right
            if self.past(y_left - 28):  # (its height: the lower of the grid's bottom and what is beside it)
                if stopped is not None:
                    stopped.append("grid")
                return None
        if self.words.view == "scores":  # a score table: no captions
            return self._score_table(max(y_left, y_right + 28) if m.beside else self.y)
        return self._captioned(y_left)

    def _geometry(self, min_cell_w: float | None) -> None:
        words, m, width, cell_pad = self.words, self.m, self.width, self.m.cell_pad
        self.row_head_w = max(width(label, "header") for label in words.q_labels) + 2 * cell_pad
        content_w = max([m.cell_min_w] + ([width("masked", "masked") + 2 * cell_pad] if m.masked_word else [])
                        + [width(c.text, "score-computed") + 2 * cell_pad for row in words.cells for c in row
                           if m.seed_cells or not c.masked])
        self.label_w = max(width(label, "header") for label in words.k_labels)
        # Column labels much wider than the cells' content stand upright instead of widening every cell.
        self.upright = self.label_w + 2 * cell_pad > content_w + HEADER_SLACK
        cell_w: float = content_w if self.upright else max(content_w, self.label_w + 2 * cell_pad)
        self.cell_w = cell_w if min_cell_w is None else max(cell_w, min_cell_w)
        grid_w = self.row_head_w + len(words.k_labels) * (self.cell_w + m.cell_gap)
        self.wrap_w = max(m.wrap, grid_w)
        self.x0 = m.pad  # where the vectors and captions start: right of the grid in the landscape arrangement
        if m.beside:
            self.wrap_w = grid_w + m.side  # the caption above the grid and what is drawn beside it
            self.x0 = m.pad + grid_w + m.side + m.gutter
            self.right_w: float = m.canvas_w - m.pad - self.x0

    def _top(self, title_role: str) -> None:
        """The title and subtitle, the badge and note (with the chrome), the grid's caption across the figure."""
        words, m, pad = self.words, self.m, self.m.pad
        title_w = m.canvas_w - 2 * pad if m.beside else None
        cut = (ANYWHERE,) if m.math else ()  # in a frame, a user's word longer than its line is cut between letters
        if m.titled:  # (a slide with a title of its own: the figure's stays its <title>)
            self.add_text(title_role, words.title, " ", gap_after=8, wrap_at=title_w, finer=cut)
        self.add_text("subtitle", words.subtitle, " ", gap_after=14, wrap_at=title_w, finer=cut)
        if m.chrome:
            badge_h, badge_pad, y = 26, 12, self.y
            badge_w = self.width(words.badge, "badge") + 2 * badge_pad
            self.items.append(Group(("attnviz-badge",), (), (
                Rect("badge", pad, y, badge_w, badge_h, rx=badge_h / 2),
                self.text("badge", pad + badge_pad, self.centre(y + badge_h / 2, "badge"), (words.badge,)),
            ), box=(pad, y, pad + badge_w, y + badge_h)))
            self.y += badge_h + 12
            self.add_text("note", words.note, None, gap_after=8)
        if m.beside and m.caption_across:
            self.add_text("caption", words.grid_caption, " ", gap_after=10, wrap_at=title_w)

    def _vectors(self) -> None:
        words, m = self.words, self.m
        wrap_at = self.right_w if m.beside else None
        lines = (words.q_line, words.k_line, *words.more_vectors)
        for n, line in enumerate(lines, 1):
            self.add_text("vectors", line, "; ", self.x0, gap_after=m.section_gap if n == len(lines) else 4,
                          wrap_at=wrap_at)  # (between vectors, never inside one: a wider one widens the figure)

    def _grid(self, grid_top: float | None) -> None:
        """The grid: column headers, row headers, then (once the layout is known to fit) the cells row by row."""
        words, m, k = self.words, self.m, self.style("header").size / STYLES["header"].size  # headers grow with labels
        header_h = self.label_w + 18 * k if self.upright else 30 * k
        if grid_top is not None:
            self.y = max(self.y, grid_top - header_h)
        self.x_cells = m.pad + self.row_head_w
        for j, label in enumerate(words.k_labels):
            self._column_header(self.x_cells + j * (self.cell_w + m.cell_gap) + self.cell_w / 2,
                                self.y + header_h - 10 * k, label)
        self.y += header_h
        self.grid = (self.x_cells, self.y, self.cell_w)
        self.first_row = len(self.items)  # (a score table's highlighted rows are banded behind their cells)
        for i, label in enumerate(words.q_labels):
            cy = self.y + i * (m.cell_h + m.cell_gap) + m.cell_h / 2
            # rows left out of an elided figure (attnviz's ⋮, never a user's label that reads the same)
            role = "elision" if label == "⋮" and not user_spans(label) else "header"
            self.items.append(self.text(role, self.x_cells - m.cell_pad, self.centre(cy, role), (label,),
                                        anchor="end", user=user_spans(label)))
        self.cells_at = len(self.items)  # the cells go here, made once the layout is known to fit its limit
        self.y += len(words.cells) * (m.cell_h + m.cell_gap) - m.cell_gap + 28 + m.below

    def _column_header(self, cx: float, y: float, label: str) -> None:
        if label == "⋯" and not user_spans(label):  # keys left out of an elided figure (not a user's ⋯)
            self.items.append(self.text("elision", cx, y, (label,), anchor="middle"))
        elif self.upright:  # the baseline sits right of the column's centre so the glyphs centre on it
            self.items.append(self.text("header", self.centre(cx, "header"), y, (label,), rotate=-90,
                                        user=user_spans(label)))
        else:
            self.items.append(self.text("header", cx, y, (label,), anchor="middle", user=user_spans(label)))

    def _add_cells(self) -> None:
        if self.measure:  # (only the height is asked for)
            return
        words, m, (x_cells, cells_top, cell_w) = self.words, self.m, self.grid
        made: list[Item] = []
        for i, cells in enumerate(words.cells):
            for j, cell in enumerate(cells):
                aria = None if cell.gap else cell_label(cell, words.q_labels[i], words.k_labels[j],
                                                        _CELL_NOUN[words.show], words.base)
                x, y = x_cells + j * (cell_w + m.cell_gap), cells_top + i * (m.cell_h + m.cell_gap)
                made.append(self._cell(cell, x, y, aria))
        self.items[self.cells_at:self.cells_at] = made

    def _score_table(self, bottom: float) -> Layout | None:
        m, items = self.m, self.items
        if self.past(bottom - 28):
            return None
        self._add_cells()
        right_x = self.x_cells + len(self.words.k_labels) * (self.cell_w + m.cell_gap) - m.cell_gap
        items[self.first_row:self.first_row] = _row_bands(self.words, m.pad, self.grid[1], right_x, m.cell_h,
                                                          m.cell_gap)
        right = max(right_edge(item) for item in items)
        return Layout(width=max(right + m.pad, self.wrap_w + 2 * m.pad), height=bottom - 28 + m.pad,
                      title=self.words.title, desc=self.words.subtitle, items=items, grid=self.grid)

    def _captioned(self, y_left: float) -> Layout | None:
        """The softmax and outputs panels and the footer beside or under the grid, then the grid's cells."""
        m, words = self.m, self.words
        # Softmax panel: one group per row, highlighted rows get a tinted band and a bar.
        self.add_text("softmax-heading", words.softmax_heading, " ", self.x0, gap_after=8)
        rows = self._softmax_rows()
        if rows is None:
            return None
        panel_w = self._softmax_groups(rows)
        if words.output_rows:  # the outputs panel: O_i as the weighted sum of the value vectors
            panel_w = self._outputs(panel_w)
        if m.chrome:
            self.y += 14
            self.items.append(Rect("rule", self.x0, self.y, panel_w, 1))
            self.y += 12
            self.add_text("footer", words.footer, " ", self.x0)
        y = max(self.y, y_left - 28) if m.beside else self.y
        if self.past(y):
            return None
        self._add_cells()
        right = max(right_edge(item) for item in self.items)
        width_ = max(right + m.pad, self.wrap_w + 2 * m.pad) if not m.beside else right + m.pad
        return Layout(width=width_, height=y + m.pad, title=words.title, desc=words.subtitle, items=self.items,
                      grid=self.grid)

    def _softmax_rows(self) -> list[_Row] | None:
        """Each softmax row placed (its fractions made for real once the layout fits), or None once past the limit."""
        rows: list[_Row] = []
        fractions: list[tuple[int, float, float]] = []  # rows drawn as fractions: made for real once the layout fits
        # Each row is at least a line of scores and a line of weights tall: a layout that the rows still to come
        # would take past its limit stops before it wraps them (1e-3 below the bound: more than the sum's rounding).
        softmax_rows = self.words.softmax_rows
        least = 2 * self.m.row_pad + self.height("softmax-scores") + 5 + self.height("softmax-weights") + 2
        for n, row in enumerate(softmax_rows):
            if self.past(self.y + (len(softmax_rows) - n) * least - 1e-3):
                return None
            placed, fraction_at = self._softmax_row(row)
            if fraction_at is not None:
                fractions.append((len(rows), *fraction_at))
            rows.append(placed)
            self.y = placed[2] + 2
        for n, x, y_w in fractions if self.limit is not None and not self.measure else ():
            row, top, bottom, scores, _ = rows[n]
            made = stacked_weights(row.weights, x, y_w, self.wrap_w - 2 * _ROW_PAD_X, "softmax-weights",
                                   self.style("softmax-weights"), self.text, self.width)
            assert made is not None  # (as it was when measured)
            rows[n] = (row, top, bottom, scores, made[0])
        return rows

    def _softmax_row(self, row: SoftmaxRow) -> tuple[_Row, tuple[float, float] | None]:
        """One softmax row placed at `y`, and where its stacked fractions are (None: its weights on lines)."""
        top, x, wrap_w, row_pad_y = self.y, self.x0 + _ROW_PAD_X, self.wrap_w, self.m.row_pad
        # A long scores line (or normalizer Z_i) continues under its values, as weights lines do.
        hang = min(self.width(row.scores.partition(": ")[0] + ": ", "softmax-scores"), wrap_w / 3)
        scores = self.text("softmax-scores", x, top + row_pad_y + ASCENT * self.style("softmax-scores").size,
                           self.wrapped(row.scores, None, "softmax-scores", wrap_w - 2 * _ROW_PAD_X, hang, (",", "+")),
                           indent=hang, user=user_spans(row.scores))
        y_w = top + row_pad_y + self.height("softmax-scores", len(scores.lines)) + 5
        make = self.text if self.limit is None and not self.measure else _unmade
        stacked = stacked_weights(row.weights, x, y_w, wrap_w - 2 * _ROW_PAD_X, "softmax-weights",
                                  self.style("softmax-weights"), make, self.width) if self.m.stacked else None
        if stacked is not None:  # each weight a stacked fraction (a slide's choice, where it fits)
            return (row, top, stacked[1] + row_pad_y, scores, stacked[0]), (x, y_w)
        head_w = self.width("weights ", "softmax-weights")
        one = self.text("softmax-weights", x, y_w + ASCENT * self.style("softmax-weights").size,
                        self.wrapped(row.weights, ", ", "softmax-weights", wrap_w - 2 * _ROW_PAD_X, head_w, ("+",)),
                        indent=head_w)
        return (row, top, y_w + self.height("softmax-weights", len(one.lines)) + row_pad_y, scores, [one]), None

    def _softmax_groups(self, rows: list[_Row]) -> float:
        """The softmax rows' groups; the panel's width."""
        x0 = self.x0
        # Every band, and the rule below, as wide as the widest line (a term too long to break widens them all).
        # (Beside the grid: as wide as the widest line, so a figure that needs less than its slide draws larger.)
        panel_w = max([0 if self.m.beside else self.wrap_w]
                      + [right_edge(t) + _ROW_PAD_X - x0 for r in rows for t in (r[3], *r[4])])
        for row, top, bottom, scores, weights in rows:
            self.items.append(_row_group("softmax", row, top, bottom, (scores, *weights), panel_w, x0))
        return panel_w

    def _outputs(self, panel_w: float) -> float:
        """The outputs panel; its width (at least `panel_w`)."""
        self.y += 14
        self.add_text("outputs-heading", self.words.outputs_heading, " ", self.x0, gap_after=8)
        outputs: list[tuple[OutputRow, float, float, Text]] = []
        for output in self.words.output_rows:
            top = self.y
            placed = self.text("output", self.x0 + _ROW_PAD_X, top + 3 + ASCENT * self.style("output").size,
                               self.wrapped(output.text, " ", "output", self.wrap_w - 2 * _ROW_PAD_X, 24), indent=24)
            self.y = top + 3 + self.height("output", len(placed.lines)) + 3
            outputs.append((output, top, self.y, placed))
        panel_w = max([panel_w] + [right_edge(o[3]) + _ROW_PAD_X - self.x0 for o in outputs])
        for output, top, bottom, placed in outputs:  # (edge to edge: a band keeps 1 unit clear of the next one's)
            self.items.append(_row_group("output", output, top, bottom, (placed,), panel_w, self.x0, inset=1))
        return panel_w

    def _cell(self, cell: Cell, x: float, y: float, label: str | None) -> Group:
        w, h, text, centre = self.cell_w, self.m.cell_h, self.text, self.centre
        if cell.gap:  # rows or keys left out of an elided figure: the ellipsis alone, no cell
            gap = text("elision", x + w / 2, centre(y + h / 2, "elision"), (cell.text,), anchor="middle")
            return Group(("attnviz-elided",), (), (gap,), box=(x, y, x + w, y + h))
        assert label is not None  # every cell but a gap has its label
        attrs = (("data-q", str(cell.q)), ("data-k", str(cell.k)), *cell_values(cell), ("aria-label", label))
        if cell.pending:  # not computed yet: an empty cell with a light outline, no text
            return Group(("attnviz-cell", "attnviz-pending"), attrs, (Rect("cell-pending", x, y, w, h, rx=6),),
                         box=(x, y, x + w, y + h))
        role = "masked" if cell.masked else ("score-computed" if cell.computed else "score")
        rect_role = "cell-masked" if cell.masked else SIGN_ROLES.get(cell.sign or 0, "cell-score")
        children: list[Item] = [Rect(rect_role, x, y, w, h, rx=6)]
        if cell.computed:  # a masked cell keeps its hatching under the highlight's outline
            children += [Rect("cell-computed-outline" if cell.masked else "cell-computed", x, y, w, h, rx=6),
                         Mark("computed-mark", x + w - 4, y + 4, 12)]
        if self.m.masked_word or not cell.masked:
            children.append(text(role, x + w / 2, centre(y + h / 2, role), (cell.text,), anchor="middle"))
        classes: tuple[str, ...] = ("attnviz-cell", "attnviz-masked" if cell.masked else "attnviz-score")
        classes += ("attnviz-computed",) if cell.computed else ()
        return Group(classes, attrs, tuple(children), box=(x, y, x + w, y + h))


_ROW_PAD_X = 12  # a softmax or output row's text, in from its band's left edge
#: A differential entry's cell by its certified sign (figures.differential); a cell of unknown sign is a score's.
SIGN_ROLES = {1: "cell-positive", -1: "cell-negative"}


def _wrapper(wraps: Wraps | None, m: Metrics, style: Callable[[str], TextStyle], math: Callable[[str], bool],
             script: Callable[[str], float]) -> Callable[..., tuple[str, ...]]:
    """`wrap` at a layout's sizes: `wrapped(source, sep, role, width, indent, finer)` wraps `source` broken after
    each `sep` (None: wherever it may, `break_points`), each the first time it is asked for (in `wraps` if given)."""
    known = {} if wraps is None else wraps.setdefault((m.sizes, m.math, m.script_floor, m.main_script_floor,
                                                       m.main_roles), {})

    def wrapped(source: str, sep: str | None, role: str, width: float, indent: float = 0,
                finer: Sequence[str] = ()) -> tuple[str, ...]:
        key = (source, sep, role, width, indent, tuple(finer))
        lines = known.get(key)
        if lines is None:
            pieces = break_points(source) if sep is None else split_keep(source, sep)
            lines = known[key] = wrap(pieces, role, width, indent, finer, style(role), math(role), script(role))
        return lines
    return wrapped


# What a kept cell's text is, for screen readers.
_CELL_NOUN = {"scores": "score", "logits": "logit", "bias": "bias", "differences": "difference"}


def _row_bands(words: FigureText, x0: float, top: float, x1: float, cell_h: float, gap: float) -> list[Item]:
    """A score table's softmax and output rows computed this step (its captions are not drawn): a band
    behind the row, its label and its cells, with the bar a softmax caption's band has."""
    rows = {row.q for row in words.softmax_rows if row.computed} | {row.q for row in words.output_rows if row.computed}
    bands: list[Item] = []
    for n, cells in enumerate(words.cells):
        if not cells or cells[0].gap or cells[0].q not in rows:
            continue
        y0 = top + n * (cell_h + gap) - gap / 2
        y1 = y0 + cell_h + gap
        bands.append(Group(("attnviz-row-band", "attnviz-computed"), (("data-q", str(cells[0].q)),),
                           # (no wider than the grid: a banded step is the size of the others, so it stays put)
                           (Rect("softmax-band", x0 - 8, y0, x1 - x0 + 8, y1 - y0, rx=6),
                            Rect("softmax-bar", x0 - 8, y0, 4, y1 - y0)), box=(x0 - 8, y0, x1, y1)))
    return bands


def _row_group(kind: str, row: SoftmaxRow | OutputRow, top: float, bottom: float, texts: tuple[Item, ...],
               panel_w: float, x: float, inset: float = 0) -> Group:
    """A softmax or output row's group (`kind`): a computed row on its band with a bar, a pending one its
    place, empty, so every step has the same geometry; its band `inset` clear of the rows above and below."""
    y0, h = top + inset, bottom - top - 2 * inset
    children: tuple[Item, ...] = (Rect(f"{kind}-band", x, y0, panel_w, h, rx=6), Rect(f"{kind}-bar", x, y0, 4, h)
                                  ) if row.computed else ()
    classes = (f"attnviz-{kind}-row",) + ("attnviz-computed",) * row.computed + ("attnviz-pending",) * row.pending
    if row.pending:
        children, texts = (Rect(f"{kind}-pending", x, y0, panel_w, h, rx=6),), ()
    return Group(classes, (("data-q", str(row.q)),), children + texts, box=(x, top, x + panel_w, bottom))
