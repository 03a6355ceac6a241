"""The full figure's layout: its words placed as items (`layout.items`), in document order."""

from __future__ import annotations

from ..words.a11y import cell_label
from ..words.user_text import user_spans
from .items import (LEADING, STYLES, Group, Layout, Mark, Rect, Text, TextStyle, measure, right_edge, text_height,
                    translate)
from functools import lru_cache

from .fractions import stacked_weights
from .math_text import SCRIPT_SCALE
from .metrics import ASCENT, DESCENT
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
    """The sizes a full figure is laid out at: the doc frame's are these defaults (`layout.framed` picks
    others for slides and columns). `sizes`: (role, font size) pairs that differ from `STYLES`; `chrome`:
    draw the badge, the provenance note and the footer; `math`: typeset the notation (`math_text`);
    `beside`: the landscape arrangement, the vectors and captions in a column right of the grid, the
    figure `canvas_w` wide; `masked_word`: write "masked" in masked cells (their hatching says it too);
    `seed_cells`: size cells for the word "masked" as if it were a value, as the seed does; `section_gap`,
    `row_pad`: vertical room after the vectors and around each softmax row."""

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


#: Roles that never hold notation: the user's title and subtitle, token labels, the badge.
_PLAIN_ROLES = frozenset({"title", "panel-title", "subtitle", "header", "badge"})


def lay_out(words: FigureText, min_cell_w: float | None = None, grid_top: float | None = None,
            title_role: str = "title", frame: Frame | None = None, metrics: Metrics = DOC_METRICS,
            wraps: Wraps | None = None) -> Layout:
    """Place a `content.FigureText`; returns a `Layout`.

    `min_cell_w`, `grid_top`: at least this cell width and first row's top, so composed panels line up.
    `frame`: where the figure lands (layout.frames; None or doc: the web figure); `metrics`: the sizes
    and arrangement (`layout.framed` chooses them for a frame); `wraps`: the lines already wrapped by
    other layouts of the same figure (a frame's attempts), reused where the same text wraps the same way.
    """
    layout = _place(words, min_cell_w, grid_top, title_role, metrics, None, wraps)
    assert layout is not None, "no height to stop at"
    return layout


def lay_out_within(words: FigureText, height: float, title_role: str = "title", metrics: Metrics = DOC_METRICS,
                   wraps: Wraps | None = None, stopped: list[str] | None = None) -> Layout | None:
    """`lay_out(words, title_role=title_role, metrics=metrics)`, or None as soon as it is certain to be taller
    than `height` (its cells, made last, then never made): how a frame tries a choice (`layout.framed`).
    `stopped`, if given, is told "grid" when the grid's column beside the captions is what is too tall."""
    return _place(words, None, None, title_role, metrics, height, wraps, stopped=stopped)


def height_within(words: FigureText, height: float | None, title_role: str = "title", metrics: Metrics = DOC_METRICS,
                  wraps: Wraps | None = None) -> float | None:
    """The height `lay_out_within` would give the layout (None: taller than `height`; no `height`: no limit),
    found without making its cells or fractions: how a frame compares two ways to lay a figure out."""
    layout = _place(words, None, None, title_role, metrics, height, wraps, measure=True)
    return None if layout is None else layout.height


def _place(words: FigureText, min_cell_w: float | None, grid_top: float | None, title_role: str, m: Metrics,
           limit: float | None, wraps: Wraps | None, measure: bool = False,
           stopped: list[str] | None = None) -> Layout | None:
    """`lay_out`'s work; None once the layout is certain to be taller than `limit` (if given): its height only
    grows as it is placed (the rows beside the grid going down, the grid's bottom fixed once it is placed)."""

    def past(bottom: float) -> bool:  # a layout at least `bottom` + pad tall is past `limit` (layout.framed's _fits)
        return limit is not None and bottom + pad > limit + 1e-6

    sizes = dict(m.sizes)
    items: list[Item] = []
    n_k = len(words.k_labels)
    pad, cell_pad, cell_gap, cell_h = m.pad, m.cell_pad, m.cell_gap, m.cell_h

    style = _styles(m.sizes).__getitem__

    def math(role: str) -> bool:
        return m.math and role not in _PLAIN_ROLES

    measurers: dict[str, Callable[[str], float]] = {}  # each role's `math_width`, made once a layout

    def width(text: str, role: str) -> float:
        measured = measurers.get(role)
        if measured is None:
            s = style(role)
            measured = measurers[role] = widths(s.size, s.family, s.bold, s.italic, math(role), script(role))
        return measured(text)

    def height(role: str, n_lines: int = 1) -> float:
        s = style(role).size
        return s * (ASCENT + DESCENT) + (n_lines - 1) * s * LEADING

    def text(role: str, x: float, y: float, lines: tuple[str, ...], **options: Any) -> Text:
        return Text(role, x, y, lines, size=sizes.get(role, 0), math=math(role), script=script(role), **options)

    scripts: dict[str, float] = {}

    def script(role: str) -> float:
        """A typeset role's script size: smaller than its text, never under the frame's floor."""
        found = scripts.get(role)
        if found is None:
            floor = m.main_script_floor if role in m.main_roles else m.script_floor
            found = scripts[role] = max(style(role).size * SCRIPT_SCALE, floor) if math(role) and floor else 0
        return found

    wrapped = _wrapper(wraps, m, style, math, script)

    def centre(centre_y: float, role: str) -> float:
        """Baseline that centres a line of `role` text vertically on `centre_y`."""
        return centre_y + (ASCENT - DESCENT) / 2 * style(role).size

    # Grid geometry first: its width sets where captions wrap.
    row_head_w = max(width(label, "header") for label in words.q_labels) + 2 * cell_pad
    content_w = max([m.cell_min_w] + ([width("masked", "masked") + 2 * cell_pad] if m.masked_word else [])
                    + [width(c.text, "score-computed") + 2 * cell_pad for row in words.cells for c in row
                       if m.seed_cells or not c.masked])
    label_w = max(width(label, "header") for label in words.k_labels)
    # Column labels much wider than the cells' content stand upright instead of widening every cell.
    upright = label_w + 2 * cell_pad > content_w + HEADER_SLACK
    cell_w: float = content_w if upright else max(content_w, label_w + 2 * cell_pad)
    if min_cell_w is not None:
        cell_w = max(cell_w, min_cell_w)
    grid_w = row_head_w + n_k * (cell_w + cell_gap)
    wrap_w = max(m.wrap, grid_w)
    x0 = pad  # where the vectors and captions start: right of the grid in the landscape arrangement
    if m.beside:
        wrap_w = grid_w + m.side  # the caption above the grid and what is drawn beside it
        x0 = pad + grid_w + m.side + m.gutter
        right_w = m.canvas_w - pad - x0

    y: float = pad

    def add_text(role: str, source: str, sep: str | None, x: float = pad, indent: float = 0, gap_after: float = 0,
                 finer: Sequence[str] = (), wrap_at: float | None = None) -> Text | None:
        """`source`, a line as the words wrote it, broken after each `sep` (None: wherever it may, `break_points`)."""
        nonlocal y
        if not source:  # a line this figure does not have (a bias panel's vectors)
            return None
        lines = wrapped(source, sep, role, wrap_w if wrap_at is None else wrap_at, indent, finer)
        added = text(role, x, y + ASCENT * style(role).size, lines, indent=indent, user=user_spans(source))
        items.append(added)
        y += height(role, len(lines)) + gap_after
        return added

    title_w = m.canvas_w - 2 * pad if m.beside else None
    cut = (ANYWHERE,) if m.math else ()  # in a frame, a user's word longer than its line is cut between letters
    if m.titled:  # (a slide with a title of its own: the figure's stays its <title>)
        add_text(title_role, words.title, " ", gap_after=8, wrap_at=title_w, finer=cut)
    add_text("subtitle", words.subtitle, " ", gap_after=14, wrap_at=title_w, finer=cut)

    if m.chrome:
        badge_h, badge_pad = 26, 12
        badge_w = width(words.badge, "badge") + 2 * badge_pad
        items.append(Group(("attnviz-badge",), (), (
            Rect("badge", pad, y, badge_w, badge_h, rx=badge_h / 2),
            text("badge", pad + badge_pad, y + badge_h / 2 + (ASCENT - DESCENT) / 2 * style("badge").size,
                 (words.badge,)),
        ), box=(pad, y, pad + badge_w, y + badge_h)))
        y += badge_h + 12
        add_text("note", words.note, None, gap_after=8)

    if m.beside and m.caption_across:
        add_text("caption", words.grid_caption, " ", gap_after=10, wrap_at=title_w)
    y_top = y
    vectors_wrap = right_w if m.beside else None
    add_text("vectors", words.q_line, "; ", x0, gap_after=4, finer=(",",), wrap_at=vectors_wrap)
    add_text("vectors", words.k_line, "; ", x0, gap_after=4 if words.more_vectors else m.section_gap,
             finer=(",",), wrap_at=vectors_wrap)
    for n, line in enumerate(words.more_vectors, 1):
        add_text("vectors", line, "; ", x0, gap_after=m.section_gap if n == len(words.more_vectors) else 4,
                 finer=(",",), wrap_at=vectors_wrap)
    y_right = y
    if m.beside:
        y = y_top
    if not (m.beside and m.caption_across):
        add_text("caption", words.grid_caption, " ", gap_after=10)

    # The grid: column headers, row headers, then the cells row by row (the seed's text order).
    k = style("header").size / STYLES["header"].size  # the header row grows with its labels
    header_h = label_w + 18 * k if upright else 30 * k
    if grid_top is not None:
        y = max(y, grid_top - header_h)
    x_cells = pad + row_head_w
    for j, label in enumerate(words.k_labels):
        cx = x_cells + j * (cell_w + cell_gap) + cell_w / 2
        if label == "⋯":  # keys left out of an elided figure
            items.append(text("elision", cx, y + header_h - 10 * k, (label,), anchor="middle"))
        elif upright:  # the baseline sits right of the column's centre so the glyphs centre on it
            x = cx + (ASCENT - DESCENT) / 2 * style("header").size
            items.append(text("header", x, y + header_h - 10 * k, (label,), rotate=-90, user=user_spans(label)))
        else:
            items.append(text("header", cx, y + header_h - 10 * k, (label,), anchor="middle", user=user_spans(label)))
    y += header_h
    grid = (x_cells, y, cell_w)
    first_row = len(items)  # (a score table's highlighted rows are banded behind their cells)
    for i, label in enumerate(words.q_labels):
        cy = y + i * (cell_h + cell_gap) + cell_h / 2
        role = "elision" if label == "⋮" else "header"  # rows left out of an elided figure
        items.append(text(role, x_cells - cell_pad, centre(cy, role), (label,), anchor="end", user=user_spans(label)))
    cells_at, cells_top = len(items), y  # the cells go here, made once the layout is known to fit its limit

    def add_cells() -> None:
        if measure:  # (only the height is asked for)
            return
        made: list[Item] = []
        for i, cells in enumerate(words.cells):
            for j, cell in enumerate(cells):
                aria = None if cell.gap else cell_label(cell, words.q_labels[i], words.k_labels[j],
                                                        _CELL_NOUN[words.show], words.base)
                made.append(_cell(cell, x_cells + j * (cell_w + cell_gap), cells_top + i * (cell_h + cell_gap),
                                  cell_w, aria, cell_h, text, centre, m.masked_word))
        items[cells_at:cells_at] = made

    y += len(words.cells) * (cell_h + cell_gap) - cell_gap + 28 + m.below
    y_left = y
    if m.beside:
        wrap_w, y = right_w, y_right
        if past(y_left - 28):  # (its height: the lower of the grid's bottom and what is beside it)
            if stopped is not None:
                stopped.append("grid")
            return None
    if words.view == "scores":  # a score table: no captions
        bottom = max(y_left, y_right + 28) if m.beside else y
        if past(bottom - 28):
            return None
        add_cells()
        items[first_row:first_row] = _row_bands(words, pad, grid[1], x_cells + n_k * (cell_w + cell_gap) - cell_gap,
                                                cell_h, cell_gap)
        right = max(right_edge(item) for item in items)
        return Layout(width=max(right + pad, wrap_w + 2 * pad), height=bottom - 28 + pad, title=words.title,
                      desc=words.subtitle, items=items, grid=grid)

    # Softmax panel: one group per row, highlighted rows get a tinted band and a bar.
    add_text("softmax-heading", words.softmax_heading, " ", x0, gap_after=8)
    row_pad_x, row_pad_y = 12, m.row_pad
    head_w = width("weights ", "softmax-weights")
    rows: list[tuple[SoftmaxRow, float, float, Text, list[Item]]] = []
    fractions: list[tuple[int, float, float]] = []  # rows drawn as fractions: made for real once the layout fits
    # Each row is at least a line of scores and a line of weights tall: a layout that the rows still to come
    # would take past its limit stops before it wraps them (1e-3 below the bound: more than the sum's rounding).
    least = 2 * row_pad_y + height("softmax-scores") + 5 + height("softmax-weights") + 2
    for n, row in enumerate(words.softmax_rows):
        if past(y + (len(words.softmax_rows) - n) * least - 1e-3):
            return None
        top = y
        x = x0 + row_pad_x
        # A long scores line (or normalizer Z_i) continues under its values, as weights lines do.
        hang = min(width(row.scores.partition(": ")[0] + ": ", "softmax-scores"), wrap_w / 3)
        scores = text("softmax-scores", x, top + row_pad_y + ASCENT * style("softmax-scores").size,
                      wrapped(row.scores, None, "softmax-scores", wrap_w - 2 * row_pad_x, hang),
                      indent=hang, user=user_spans(row.scores))
        y_w = top + row_pad_y + height("softmax-scores", len(scores.lines)) + 5
        stacked = stacked_weights(row.weights, x, y_w, wrap_w - 2 * row_pad_x, "softmax-weights",
                                  style("softmax-weights"), text if limit is None and not measure else _unmade,
                                  width) if m.stacked else None
        if stacked is not None:  # each weight a stacked fraction (a slide's choice, where it fits)
            weights, bottom = stacked
            fractions.append((len(rows), x, y_w))
        else:
            one = text("softmax-weights", x, y_w + ASCENT * style("softmax-weights").size,
                       wrapped(row.weights, ", ", "softmax-weights", wrap_w - 2 * row_pad_x, head_w,
                               ("+",)),
                       indent=head_w)
            weights, bottom = [one], y_w + height("softmax-weights", len(one.lines))
        bottom += row_pad_y
        rows.append((row, top, bottom, scores, weights))
        y = bottom + 2
    for n, x, y_w in fractions if limit is not None and not measure else ():
        row, top, bottom, scores, _ = rows[n]
        made = stacked_weights(row.weights, x, y_w, wrap_w - 2 * row_pad_x, "softmax-weights",
                               style("softmax-weights"), text, width)
        assert made is not None  # (as it was when measured)
        rows[n] = (row, top, bottom, scores, made[0])
    # Every band, and the rule below, as wide as the widest line (a term too long to break widens them all).
    # (Beside the grid: as wide as the widest line, so a figure that needs less than its slide draws larger.)
    panel_w = max([0 if m.beside else wrap_w] + [right_edge(t) + row_pad_x - x0 for r in rows for t in (r[3], *r[4])])
    for row, top, bottom, scores, weights in rows:
        children: tuple[Item, ...] = (Rect("softmax-band", x0, top, panel_w, bottom - top, rx=6),
                                      Rect("softmax-bar", x0, top, 4, bottom - top)) if row.computed else ()
        classes: tuple[str, ...] = ("attnviz-softmax-row",) + (("attnviz-computed",) if row.computed else ())
        texts: tuple[Item, ...] = (scores, *weights)
        if row.pending:  # not computed yet: its place, empty, so every step has the same geometry
            children, texts = (Rect("softmax-pending", x0, top, panel_w, bottom - top, rx=6),), ()
            classes += ("attnviz-pending",)
        items.append(Group(classes, (("data-q", str(row.q)),), children + texts,
                           box=(x0, top, x0 + panel_w, bottom)))

    if words.output_rows:  # the outputs panel: O_i as the weighted sum of the value vectors
        y += 14
        add_text("outputs-heading", words.outputs_heading, " ", x0, gap_after=8)
        outputs: list[tuple[OutputRow, float, float, Text]] = []
        for output in words.output_rows:
            top = y
            placed = text("output", x0 + row_pad_x, top + 3 + ASCENT * style("output").size,
                          wrapped(output.text, " ", "output", wrap_w - 2 * row_pad_x, 24), indent=24)
            y = top + 3 + height("output", len(placed.lines)) + 3
            outputs.append((output, top, y, placed))
        panel_w = max([panel_w] + [right_edge(o[3]) + row_pad_x - x0 for o in outputs])
        for output, top, bottom, placed in outputs:
            items.append(_output_row(output, top, bottom, placed, panel_w, x0))

    if m.chrome:
        y += 14
        items.append(Rect("rule", x0, y, panel_w, 1))
        y += 12
        add_text("footer", words.footer, " ", x0)
    y = max(y, y_left - 28) if m.beside else y
    if past(y):
        return None
    add_cells()
    right = max(right_edge(item) for item in items)
    width_ = max(right + pad, wrap_w + 2 * pad) if not m.beside else right + pad
    return Layout(width=width_, height=y + pad, title=words.title, desc=words.subtitle, items=items, grid=grid)


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


_CELL_NOUN = {"scores": "score", "logits": "logit", "bias": "bias"}  # what a kept cell's text is, for screen readers


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


def _cell(cell: Cell, x: float, y: float, w: float, label: str | None, h: float,
          text: Callable[..., Text], centre: Callable[[float, str], float], masked_word: bool = True) -> Group:
    if cell.gap:  # rows or keys left out of an elided figure: the ellipsis alone, no cell
        gap = text("elision", x + w / 2, centre(y + h / 2, "elision"), (cell.text,), anchor="middle")
        return Group(("attnviz-elided",), (), (gap,), box=(x, y, x + w, y + h))
    assert label is not None  # every cell but a gap has its label
    attrs = (("data-q", str(cell.q)), ("data-k", str(cell.k)), ("aria-label", label))
    if cell.pending:  # not computed yet: an empty cell with a light outline, no text
        return Group(("attnviz-cell", "attnviz-pending"), attrs, (Rect("cell-pending", x, y, w, h, rx=6),),
                     box=(x, y, x + w, y + h))
    role = "masked" if cell.masked else ("score-computed" if cell.computed else "score")
    rect_role = "cell-masked" if cell.masked else "cell-score"
    children: list[Item] = [Rect(rect_role, x, y, w, h, rx=6)]
    if cell.computed:  # a masked cell keeps its hatching under the highlight's outline
        children += [Rect("cell-computed-outline" if cell.masked else "cell-computed", x, y, w, h, rx=6),
                     Mark("computed-mark", x + w - 4, y + 4, 12)]
    if masked_word or not cell.masked:
        children.append(text(role, x + w / 2, centre(y + h / 2, role), (cell.text,), anchor="middle"))
    classes: tuple[str, ...] = ("attnviz-cell", "attnviz-masked" if cell.masked else "attnviz-score")
    classes += ("attnviz-computed",) if cell.computed else ()
    return Group(classes, attrs, tuple(children), box=(x, y, x + w, y + h))


def _output_row(row: OutputRow, top: float, bottom: float, text: Text, panel_w: float, x: float = PAD) -> Group:
    """One output row's group; highlighted and pending rows are drawn like softmax rows."""
    classes: tuple[str, ...] = ("attnviz-output-row",)
    children: tuple[Item, ...] = (text,)
    # Output rows sit edge to edge: their band and pending outline keep 1 unit clear of the
    # neighbours', so two of them never touch.
    y0, h = top + 1, bottom - top - 2
    if row.computed:
        classes += ("attnviz-computed",)
        children = (Rect("output-band", x, y0, panel_w, h, rx=6), Rect("output-bar", x, y0, 4, h), text)
    if row.pending:  # not computed yet: its place, empty, so every step has the same geometry
        classes += ("attnviz-pending",)
        children = (Rect("output-pending", x, y0, panel_w, h, rx=6),)
    return Group(classes, (("data-q", str(row.q)),), children, box=(x, top, x + panel_w, bottom))


