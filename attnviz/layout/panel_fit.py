"""Mask-map panels fitted to a frame: one cell size for all, arranged in the row, column or grid of columns
that gives the biggest cells, with one legend, axis titles drawn once when the panels share them, and each
panel's rule caption and subtitle shown, shared (said once, above the panels) or hidden (in `<desc>`).

Like a single map (layout.map_fit), text keeps its role's size and the canvas is as wide as the frame's
floors allow; what is left to choose is the arrangement and the cell.
"""

from __future__ import annotations

import math

from ..records import dataclass
from ..numbers.exact import InputError
from .figure import PAD
from .items import STYLES, Group, Layout, Text, text_height, translate
from .frames import wider_frame
from ..words.user_text import user_spans
from .map_fit import TYPESET, Y_TITLE_W, canvas, min_cell, quantize, settle, texts_block
from .mask_map import (X_TITLE_SPILL, axis_items, axis_title, lay_out_legend, map_body, panel_title,
                       shared_legend, shortened_axes)
from .metrics import ASCENT, DESCENT

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Sequence

    from .frames import Frame
    from .items import Item
    from .mask_map import MapText

__all__ = ["PANEL_PARTS", "CellsUnderFloor", "fit_map_panels", "panel_title", "panel_title_text", "shared_text",
           "rearranged"]

PANEL_PARTS = ("auto", "show", "shared", "hide")  # what a panel's rule caption and subtitle may be
COL_GAP, ROW_GAP = 20, 18
PRINT_FIGURE_IN = 8.0  # a column frame's panels stand at most this many inches tall (cells of 0.1 in stacked)
DOC_FIGURE_IN = 12.0  # a docs page's (`doc:WIDTH`): 1,152 CSS px, a phone's panels stacked under each other
MAX_LINES = 5  # a panel's caption or subtitle wraps to this many lines, then shortens with "…"
TITLE_MAX_LINES = 5  # its title, which names it (a layer's number last), one line more
#: A map in a paper column keeps cells of a tenth of an inch up to 16 tokens (1.6 inches wide beyond), so that each
#: cell is seen in print; panels that cannot are refused, naming the wider frame.
COLUMN_CELL_IN, COLUMN_CELL_UPTO = 0.1, 16
CELL_SLACK = 0.02  # (to 2 %: 0.099 inch is a tenth of an inch, as printed)
#: The slides that hold that floor too: a figure's own (`--frame slide`); a deck's regions of a slide
#: (`slide-figure`, ...) hold it their own way (a walkthrough's captions left out, a deck's panel a slide).
SLIDE_FRAMES = ("slide", "slide-4:3")


def shared_text(texts: Sequence[str]) -> str | None:
    """The one text every panel has, or None when they differ (or some have none)."""
    return texts[0] if texts and texts[0] and all(text == texts[0] for text in texts) else None


def rearranged(columns: int, asked: int, n: int) -> tuple[str, ...]:
    """The choice said when `n` panels stand in `columns` columns, not the `asked` ones (none when they are)."""
    def name(c: int) -> str:  # "a row", "a column" or "a grid of 2 columns"
        return "a row" if c >= n else "a column" if c == 1 else f"a grid of {c} columns"
    return (f"panels in {name(columns)} instead of {name(asked)}",) if columns != asked else ()


@dataclass(frozen=True, slots=True)
class _Sheet:
    """What every arrangement of the panels shares: the canvas (`height` None: a column's, up to a page), its
    frame, the panels' top and the legend's height under them, and what each panel draws (axes shared or not,
    its caption, its subtitle)."""

    width: float
    height: float | None
    frame: Frame
    top: float
    legend_h: float
    shared_axes: bool
    captions: bool
    subtitles: bool


class _Plan:
    """One arrangement's geometry: what each panel says, the cell, and the heights of the rows' headers."""

    def __init__(self, maps: Sequence[MapText], columns: int, sheet: _Sheet) -> None:
        width, height, frame, top, shared_axes = sheet.width, sheet.height, sheet.frame, sheet.top, sheet.shared_axes
        self.maps, self.columns, self.width, self.height = maps, columns, width, height
        self.shared_axes, self.top = shared_axes, top
        n = len(maps)
        self.rows = [list(range(s, min(s + columns, n))) for s in range(0, n, columns)]
        left = PAD + (Y_TITLE_W + 10 if shared_axes else 0)
        self.left = left
        self.pw = (width - PAD - left - (columns - 1) * COL_GAP) / columns
        self.heads: list[tuple[list[Item], float, bool]] = []  # per panel: header texts (at 0, 0), height, shortened
        self.cut_words = False  # a title, rule caption or subtitle shortened
        for n_, words in enumerate(maps, 1):
            # (a panel's title names it, a layer's number with it: wrapped as its captions are before it is cut)
            lines, short = panel_title(words.title or f"Panel {n_}", self.pw, most=TITLE_MAX_LINES)
            texts: list[Item] = [panel_title_text(words.title, lines)]
            y = text_height("panel-title", len(lines)) + 6
            for role, text, gap in (("subtitle", words.subtitle if sheet.subtitles else "", 6),
                                    ("caption", words.caption if sheet.captions else "", 8)):
                if text:
                    lines, cut = panel_title(text, self.pw, role, MAX_LINES)
                    typeset = role in TYPESET  # a rule's caption typeset as a single map's (i−4<j≤i)
                    texts.append(Text(role, 0, y + ASCENT * STYLES[role].size, lines, math=typeset,
                                      user=user_spans(text) if typeset else (),
                                      script=STYLES[role].size if typeset else 0))
                    y += text_height(role, len(lines)) + gap
                    short |= cut
            self.heads.append((texts, y, short))
            self.cut_words |= short
        own_axis = 0 if shared_axes else Y_TITLE_W + 10
        self.own_axis = own_axis
        x_title = 0 if shared_axes else text_height("axis-title") + 6
        self.x_title = x_title
        fixed_h = [self.heads[i][1] + x_title + 6 for i in range(n)]
        tall = sum(max(maps[i].shape[0] for i in row) for row in self.rows)
        bottom = (ROW_GAP * (len(self.rows) - 1) + (text_height("axis-title") + 10 if shared_axes else 0)
                  + sheet.legend_h + PAD)
        # a column's figure stands at most PRINT_FIGURE_IN tall (width / width_in: layout units per inch)
        tallest = DOC_FIGURE_IN if frame.kind == "doc" else PRINT_FIGURE_IN
        room = height if height is not None else width / frame.width_in * tallest

        def cell_for(ticks: Sequence[tuple[float, float]]) -> float:
            fits = [(self.pw - own_axis - ticks[i][0] - 8 - 14) / m.shape[1] for i, m in enumerate(maps)]
            # as _place stacks a row: its tallest header, then its tallest ticks (+1: the grid's top is whole)
            fixed = sum(max(fixed_h[i] for i in row) + max(ticks[i][1] for i in row) + 1 for row in self.rows)
            fits.append((room - top - fixed - bottom) / tall)
            return quantize(min(fits))

        cell, self.axes = settle(cell_for, maps)
        self.cell = cell
        self.usable = cell >= max(min_cell(frame, width), legible_cell(frame, width, maps))


def legible_cell(frame: Frame, width: float, maps: Sequence[MapText]) -> float:
    """The smallest cell panels may have in a paper column or on a slide (16:9 or 4:3, `SLIDE_FRAMES`), in layout
    units: `COLUMN_CELL_IN` for maps of up to `COLUMN_CELL_UPTO` tokens, a map `COLUMN_CELL_IN` × `COLUMN_CELL_UPTO`
    wide for larger ones (the model figure's map floor, figures.model_floor); 0 elsewhere."""
    if frame.kind not in ("column", "column-wide", *SLIDE_FRAMES):
        return 0.0
    tokens = max(max(m.shape) for m in maps)
    return width / frame.width_in * COLUMN_CELL_IN * min(1.0, COLUMN_CELL_UPTO / tokens) * (1 - CELL_SLACK)


class CellsUnderFloor(InputError):
    """A refusal of panels whose maps' cells come out under the frame's floor: `cell_in` and `floor_in`, in inches,
    for a figure that holds the floor itself and says so in its own words (figures.model_floor)."""

    def __init__(self, what: str, where: str, cells: tuple[float, float]) -> None:
        super().__init__(what, where)
        self.cell_in, self.floor_in = cells


def _cells_under(frame: Frame, best: _Plan, maps: Sequence[MapText]) -> tuple[float, float] | None:
    """(the cell, the floor), in inches, where the panels' cells, not their text, are what does not fit (a column's
    or a slide's tenth of an inch); else None."""
    legible = legible_cell(frame, best.width, maps)
    if not legible or best.cell >= legible:
        return None
    floor = COLUMN_CELL_IN * min(1.0, COLUMN_CELL_UPTO / max(max(m.shape) for m in maps))
    return best.cell * frame.width_in / best.width, floor


def _cells_too(cells: tuple[float, float] | None) -> str:
    """What a refusal adds for `cells` under the floor: " and cells of 0.1 inch or more (they would be 0.03)"."""
    return "" if cells is None else f" and cells of {cells[1]:.2g} inch or more (they would be {cells[0]:.2g})"


def _refusal(n: int, frame: Frame, plan: _Plan, maps: Sequence[MapText], arranged: str | None) -> InputError:
    """The one line that refuses the panels: why (their text, their cells, or the arrangement asked cuts a title
    or rule) and the ways out."""
    cells = _cells_under(frame, plan, maps)
    if arranged:
        why = ("cuts their titles or rules short" if plan.usable else
               f"leaves them no room with their text at the floor{_cells_too(cells)}")
        return InputError(f"--arrange {arranged} of {n} panels in the {frame.name} frame {why}; try another --arrange "
                          f"(or none: the frame arranges them), {wider_frame(frame)}fewer tokens (--n) or "
                          "--frame doc", "arrange")
    what = (f"{n} mask-map panels do not fit the {frame.name} frame with their text at the floor{_cells_too(cells)}; "
            f"try {wider_frame(frame)}fewer panels, fewer tokens (--n), --panel-captions hide or --frame doc")
    return InputError(what, "frame") if cells is None else CellsUnderFloor(what, "frame", cells)


def _chosen(plans: dict[int, _Plan], columns: int, frame: Frame, arranged: str | None) -> tuple[_Plan, _Plan]:
    """(the arrangement drawn, the one with the biggest cells): the one asked for by name in a slide or column, else
    the `columns` asked where `_kept`, else the best; one that cuts a word yields to one that does not."""
    best = max(plans.values(), key=lambda plan: (plan.usable, plan.cell, plan.columns == columns))
    if arranged and frame.kind != "doc":  # (a docs page's width is the theme's, not the user's: it arranges)
        return plans[columns], best
    plan = plans[columns] if _kept(plans[columns], best, frame) else best
    if plan.cut_words:  # rather cells smaller than a layer's number or a rule cut short
        whole = [p for p in plans.values() if p.usable and not p.cut_words]
        plan = max(whole, key=lambda p: (p.cell, p.columns == columns), default=plan)
    return plan, best


def _kept(asked: _Plan, best: _Plan, frame: Frame) -> bool:
    """Whether the arrangement asked for is drawn: on a docs page of a given width wherever its text is whole at the
    floor (the page is read at that width: a row stays a row), elsewhere where its cells are 4/5 the best's."""
    if frame.kind == "doc":
        return asked.usable and not asked.cut_words
    return asked.usable and asked.cell >= 0.8 * best.cell


def panel_title_text(title: str | None, lines: tuple[str, ...]) -> Text:
    """A panel's title drawn at (0, 0): attnviz's notation in it (a sparse panel's `q_i·mean(K_b)`) typeset as the
    panels' captions are, its scripts at its size; a user's title (its spans, `words.user_text`) as given."""
    size = STYLES["panel-title"].size
    return Text("panel-title", 0, ASCENT * size, lines, math=True, user=user_spans(title or ""), script=size)


def fit_map_panels(maps: Sequence[MapText], columns: int, title: str | None, frame: Frame, *,
                   captions: str = "auto", subtitles: str = "auto", legend: str = "shared",
                   arranged: str | None = None) -> Layout:
    """Mask-map panels (their words) laid out for `frame`, in `columns` columns if that gives cells at least
    4/5 as big as the best arrangement's, else in the best; refused in one line when none fits. `arranged`: the
    arrangement a user asked for by name ("column"), drawn as asked in a slide or column, or refused saying why."""
    n = len(maps)
    cap_shared = shared_text([m.caption for m in maps]) if captions in ("auto", "shared") else None
    sub_shared = shared_text([m.subtitle for m in maps]) if subtitles == "shared" else None
    show_caps = captions == "show" or (captions in ("auto", "shared") and cap_shared is None)
    show_subs = subtitles == "show" or (subtitles == "shared" and sub_shared is None)
    shared_axes = len({(m.x_title, m.y_title) for m in maps}) == 1
    keys, part_names = shared_legend(maps, legend == "hide")
    choices: list[str] = []
    for attempt in ("as asked", "captions hidden"):
        roles = ["panel-title", "tick", "axis-title"] + ["title"] * bool(title) + ["legend"] * bool(keys)
        roles += ["caption"] * bool(show_caps or cap_shared) + ["subtitle"] * bool(show_subs or sub_shared)
        width, height = canvas(frame, roles)
        top_parts = [("title", title or ""), ("subtitle", sub_shared or ""), ("caption", cap_shared or "")]
        top_items, top = texts_block(top_parts, PAD, PAD, width - 2 * PAD)
        legend_h = lay_out_legend(keys, PAD, 0, width - 2 * PAD, part_names)[1] if keys else 0
        sheet = _Sheet(width, height, frame, top, legend_h, shared_axes, show_caps, show_subs)
        plans = {c: _Plan(maps, c, sheet) for c in dict.fromkeys([columns] + list(range(1, n + 1)))}
        plan, best = _chosen(plans, columns, frame, arranged)
        # (a rule cut short gives way to rules left out, which the description says whole)
        captioned = attempt == "as asked" and bool(show_caps or cap_shared)
        if plan.usable and not (plan.cut_words and (arranged or captioned)):
            break
        if attempt == "as asked" and (show_caps or cap_shared):
            show_caps, cap_shared = False, None
            choices.append("rule captions left out (the description says them)")
            continue
        raise _refusal(n, frame, plan if arranged else best, maps, arranged)
    choices += rearranged(plan.columns, columns, n)
    if shared_axes and n > 1:
        choices.append("axis titles drawn once for all panels")
    if cap_shared:
        choices.append("the panels' one rule caption said once")
    if subtitles == "auto":
        choices.append("panel subtitles left out (the description says them)")
    if any(short for _, _, short in plan.heads):
        choices.append("long panel titles or captions shortened (the description says them whole)")
    return _place(plan, top_items, keys, part_names, title, choices)


def _place(plan: _Plan, top_items: list[Item], keys: list[str], part_names: tuple[str, ...], title: str | None,
           choices: list[str]) -> Layout:
    maps, cell = plan.maps, plan.cell
    items: list[Item] = list(top_items)
    y = plan.top
    grid_left, grid_right, grid_top = math.inf, 0.0, y
    for row in plan.rows:
        head_h = max(plan.heads[i][1] for i in row)
        tick_h = max(plan.axes[i].top for i in row)
        map_top = math.ceil(y + head_h + plan.x_title + tick_h + 6)
        for c, i in enumerate(row):
            words, axes = maps[i], plan.axes[i]
            x0 = plan.left + c * (plan.pw + COL_GAP)
            map_x = math.ceil(x0 + plan.own_axis + axes.left + 8)
            panel: list[Item] = [translate(item, x0, y) for item in plan.heads[i][0]]
            panel += axis_items(words, axes, map_x, map_top, cell, titles=not plan.shared_axes, title_left=x0)
            panel += map_body(words, map_x, map_top, cell, framed=True)
            items.append(Group(("attnviz-panel",), (("data-panel", str(i + 1)),), tuple(panel)))
            grid_left, grid_right = min(grid_left, map_x), max(grid_right, map_x + cell * words.shape[1])
        y = map_top + cell * max(maps[i].shape[0] for i in row) + ROW_GAP
    y -= ROW_GAP
    if plan.shared_axes:  # the key axis's title under the panels, the query axis's at their left
        words = maps[0]
        size = STYLES["axis-title"].size
        x_title = axis_title(words.x_title, grid_right - grid_left + 2 * X_TITLE_SPILL)
        items.append(Text("axis-title", (grid_left + grid_right) / 2, y + 8 + ASCENT * size, x_title, anchor="middle"))
        title_x = PAD + (ASCENT - DESCENT) / 2 * size + Y_TITLE_W / 2
        y_title = axis_title(words.y_title, y - grid_top)
        items.append(Text("axis-title", title_x, (grid_top + y) / 2, y_title, anchor="middle", rotate=-90))
        y += text_height("axis-title") + 10
    y += 12
    if keys:
        legend, y = lay_out_legend(keys, PAD, y, plan.width - 2 * PAD, part_names)
        items += legend
    content_h = y - 12 + PAD
    height = content_h if plan.height is None else plan.height
    dy = 0 if plan.height is None else round(max(0.0, (plan.height - content_h) / 2))
    items = [translate(item, 0, dy) for item in items] if dy else items
    names = [m.title or f"Panel {n}" for n, m in enumerate(maps, 1)]
    desc = "; ".join(f"panel {n}: {name}: {m.subtitle}; {m.caption}" for n, (name, m) in enumerate(zip(names, maps), 1))
    desc += "."
    return Layout(width=plan.width, height=height, title=title or " | ".join(names), desc=desc, items=items,
                  choices=tuple(choices) + shortened_axes(maps, items))
