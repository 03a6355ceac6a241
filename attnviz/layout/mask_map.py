"""The mask view: which cells a mask keeps, as a map that stays legible from 3 to 1,024 tokens.

Words (`MapText`, from `describe_map`) and their layout (`lay_out_map`). Kept cells are drawn as runs of consecutive
keys, one rectangle a run, so a causal map of n tokens is n rectangles, not n²/2; masked cells are the hatched ground
the runs lie on (a difference of texture, not of colour alone). No word sits inside a cell.
"""

from __future__ import annotations

import math
from ..records import dataclass

from ..engine.runs import scan_runs
from ..numbers.exact import InputError
from ..words.user_text import graphemes, user_spans, user_text
from .block_outlines import BLOCK_LEGEND, map_outlines
from .breaks import split_terms
from .figure import (ASCENT, DESCENT, PAD, STYLES, Group, Layout, Rect, Text, measure, right_edge, split_keep,
                     text_height, wrap)

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import TypedDict, Unpack

    from ..engine.attention import BoundMask
    from ..engine.blocks import Blocks
    from .tree_drawing import TreeText
    from ..typing import HighlightSpec
    from .frames import Frame
    from .items import Item

    Runs = tuple[tuple[int, int], ...]  # one row's runs

    class MapTexts(TypedDict, total=False):
        """A map's words a user may give (None or left out: the map's own)."""

        title: str | None
        subtitle: str | None
        x_title: str | None
        y_title: str | None

__all__ = ["MAX_MAP_TOKENS", "MapText", "row_runs", "describe_map", "lay_out_map", "LEGEND", "shared_legend", "Axes",
           "map_axes", "axis_items", "panel_title", "axis_title", "shortened_axes", "map_body", "map_geometry",
           "lay_out_legend", "legend_entries"]

#: Largest side of a mask map. Beyond it a cell is under half a pixel on a slide.
MAX_MAP_TOKENS = 1024
MAP_SIDE = 640  # the map's longer side, in SVG units, once cells shrink below CELL_MAX
CELL_MAX = 28
GRID_LINES_FROM = 8  # cells at least this big are separated by thin lines
TICK_GAP = 6  # clear space between two tick labels
#: Legend entries: (key, shape role, words).
LEGEND = (("kept", "kept", "kept"), ("masked", "map-masked", "masked"), ("computed", "computed", "computed this step"),
          ("empty", "map-empty-row", "row with no kept key"),
          *BLOCK_LEGEND)  # `--blocks`: FlexAttention's block classes and what each costs the kernel
#: A legend key that is words alone, no swatch: "note:sparsity 37.5%".
NOTE = "note:"


@dataclass(frozen=True)
class MapText:
    """Everything a mask map says. Runs are (first, last) key positions, 1-based and inclusive."""

    title: str
    subtitle: str
    caption: str  # the mask's rule: "causal mask keeps j<=i"
    x_title: str
    y_title: str
    q_labels: tuple[str, ...]  # one per query row: what its tick says
    k_labels: tuple[str, ...]
    runs: tuple[tuple[tuple[int, int], ...], ...]  # runs[i]: row i+1's kept runs, (first, last) key, 1-based
    computed: tuple[tuple[tuple[int, int], ...], ...]  # computed[i]: row i+1's highlighted runs (kept or masked)
    numeric_ticks: bool = True  # index ticks (thinned as n grows), not token labels
    legend: bool = True  # False in a composed figure, which draws one legend for all panels
    base: int = 1  # index base of the numeric ticks
    # `--color-by part`: the union's part names (legend order) and, per row, each run's part (0-based)
    parts: tuple[str, ...] = ()
    run_parts: tuple[tuple[int, ...], ...] = ()
    blocks: Blocks | None = None  # `--blocks`: FlexAttention's block mask of this grid, outlined over the map
    view = "mask"  # not a field: what every map is
    tree: TreeText | None = None  # `--mask tree=...`: the token tree, drawn beside the map where it fits
    ID_WHEN_SET = ("blocks", "tree")  # not a field: the figure's id counts `blocks` only when given (figures.identity)

    @property
    def shape(self) -> tuple[int, int]:
        """(queries, keys)."""
        return len(self.runs), len(self.k_labels)

    def legend_keys(self) -> list[str]:
        """The legend entries this map needs: kept and masked always; the others when drawn."""
        keys = [f"part-{n}" for n in range(1, len(self.parts) + 1)] if self.parts else ["kept"]
        keys.append("masked")
        if any(self.computed):
            keys.append("computed")
        if any(not runs for runs in self.runs):
            keys.append("empty")
        if self.blocks is not None:
            keys += [f"block-{kind}" for kind in ("full", "partial", "empty") if self.blocks.count(kind)]
            keys.append(f"{NOTE}{self.blocks.sparsity_words()}")
        return keys


def row_runs(mask: BoundMask, i: int, n_k: int) -> Runs:
    """Row i's kept keys as (start, stop) half-open 0-based ranges, from the mask's own `runs` when it
    has them (computed from its rule), else by asking `keep` about every key."""
    runs = getattr(mask, "runs", None)
    return tuple(runs(i)) if runs is not None else scan_runs(lambda j: mask.keep(i, j), n_k)


MAX_PARTS = 6  # colours a union's parts can take (themes: part-1 .. part-6)


def _part_names(mask: BoundMask, color_by: str) -> tuple[str, ...]:
    """The legend's part names for `--color-by part` (none otherwise), checked against the palette."""
    if color_by not in ("none", "part"):
        raise InputError(f"expected none or part, got {color_by!r}", "color_by")
    if color_by == "none":
        return ()
    names = tuple(name for name, _ in getattr(mask, "parts", ()))
    if not names:
        raise InputError("colouring by part needs a union of masks (a | b); this mask has one part", "color_by")
    if len(names) > MAX_PARTS:
        raise InputError(f"colouring by part takes up to {MAX_PARTS} parts; this union has {len(names)}", "color_by")
    return tuple(name if names.count(name) == 1 else f"{name} {n}" for n, name in enumerate(names, 1))


def describe_map(mask: BoundMask, n_q: int, n_k: int, *, highlight: HighlightSpec | None = None,
                 q_labels: Sequence[str] | None = None, k_labels: Sequence[str] | None = None, base: int = 1,
                 color_by: str = "none", **texts: Unpack[MapTexts]) -> MapText:
    """The words of a mask map for `mask` (an `engine.BoundMask` bound to n_q×n_k).

    `highlight`: targets as for `figure()` ("I,J", "row=I", "mask", (i, j)), in the figure's index base.
    `color_by`: "none", or "part": each run coloured by the first part of the union that keeps it.
    """
    title, subtitle = texts.get("title"), texts.get("subtitle")
    x_title, y_title = texts.get("x_title"), texts.get("y_title")
    runs = tuple(row_runs(mask, i, n_k) for i in range(n_q))
    parts, run_parts = _part_names(mask, color_by), tuple[tuple[int, ...], ...]()
    if parts:
        pieces = [mask.part_runs(i) for i in range(n_q)]
        runs = tuple(tuple((a, b) for a, b, _ in row) for row in pieces)
        run_parts = tuple(tuple(n for _, _, n in row) for row in pieces)
    computed = _computed_runs(highlight, runs, n_q, n_k, base)
    numeric = q_labels is None and k_labels is None
    rule = mask.rule_text(base)
    return MapText(
        title=f"{mask.name[:1].upper()}{mask.name[1:]} mask" if title is None else user_text(title),
        subtitle=(f"{n_q} quer{'y' if n_q == 1 else 'ies'} × {n_k} key{'s' * (n_k != 1)}; " if n_q != n_k
                  else f"{n_q} token{'s' * (n_q != 1)}; ")
        + f"{sum(b - a for row in runs for a, b in row):,} of {n_q * n_k:,} cells kept"
        if subtitle is None else user_text(subtitle), caption=f"{mask.name} mask keeps {rule}",
        x_title="key j" if x_title is None else user_text(x_title),
        y_title="query i" if y_title is None else user_text(y_title),
        q_labels=tuple(map(user_text, q_labels)) if q_labels else tuple(str(i + base) for i in range(n_q)),
        k_labels=tuple(map(user_text, k_labels)) if k_labels else tuple(str(j + base) for j in range(n_k)),
        runs=tuple(tuple((a + 1, b) for a, b in row) for row in runs), computed=computed, numeric_ticks=numeric,
        base=base,
        parts=parts,
        run_parts=run_parts,
    )


def _computed_runs(targets: HighlightSpec | None, runs: Sequence[Runs], n_q: int, n_k: int,
                   base: int) -> tuple[Runs, ...]:
    """Highlight targets as runs per row (1-based, inclusive). A map has no captions to highlight."""
    from ..words.highlight import is_pair  # its targets, read as figure() reads them

    if targets is None:
        return ((),) * n_q
    listed: Iterable[object] = [targets] if isinstance(targets, str) or is_pair(targets) else targets
    cells: list[set[int]] = [set() for _ in range(n_q)]
    whole_rows: set[int] = set()
    masked = False
    for target in listed:
        kind, i, j = _map_target(target, n_q, n_k, base)
        if kind == "cell":
            assert i is not None and j is not None  # a cell names both
            cells[i - base].add(j - base)
        elif kind == "row":
            assert i is not None  # row=I names its row
            whole_rows.add(i - base)
        else:
            masked = True
    out: list[Runs] = []
    for i in range(n_q):
        row: Runs
        if i in whole_rows:
            row = ((0, n_k),)
        else:
            positions = set(cells[i])
            if masked:
                kept = {j for a, b in runs[i] for j in range(a, b)}
                positions |= set(range(n_k)) - kept
            row = scan_runs(positions.__contains__, n_k)
        out.append(tuple((a + 1, b) for a, b in row))
    return tuple(out)


def _map_target(target: object, n_q: int, n_k: int, base: int) -> tuple[str, int | None, int | None]:
    """A highlight target of a map, read as figure() reads it: a cell, a row or the masked cells in the grid."""
    from ..words.highlight import numbered, parse_one, show_target  # its targets, read as figure() reads them

    kind, i, j = parse_one(target)
    where = f"highlight {show_target(target)}"
    if kind not in ("cell", "row", "mask"):
        raise InputError("a mask map draws no softmax captions or outputs; highlight cells (I,J), "
                         "rows (row=I) or the masked cells (mask)", where)
    last_q, last_k = n_q - 1 + base, n_k - 1 + base
    if i is not None and not base <= i <= last_q:
        raise InputError(f"{numbered('row', i)} is outside the grid (rows {base}..{last_q})", where)
    if j is not None and not base <= j <= last_k:
        raise InputError(f"{numbered('column', j)} is outside the grid (columns {base}..{last_k})", where)
    return kind, i, j


def _step(pitch: float, need: float) -> int:
    """The smallest power of two s with s·pitch >= need: every tick, then every 2, 4, 8, ..."""
    step = 1
    while step * pitch < need:
        step *= 2
    return step


def _ticks(labels: Sequence[str], step: int, numeric: bool, base: int) -> list[int]:
    """Indices (0-based) of the ticks drawn: every `step`-th (by the figure's numbering) and the last; the first
    too, unless the first multiple is closer to it than a step, when the first gives way to that multiple (so
    the ticks stay regular: 2, 4, 6, 8, not 1, 4, 6, 8); a tick too close to the last gives way to it."""
    n = len(labels)
    if step == 1:
        return list(range(n))
    wanted = [p for p in range(n) if (p + base) % step == 0] if numeric else list(range(0, n, step))
    shown = [wanted[0] if wanted and 0 < wanted[0] < step and wanted[0] < n - 1 else 0]
    for p in wanted + [n - 1]:
        if p - shown[-1] >= step:
            shown.append(p)
    if shown[-1] != n - 1:  # the last tick always shows; the one before it gives way
        shown[-1] = n - 1
    return shown


def map_geometry(words: MapText, cell: float | None = None) -> float:
    """The cell size of this map: given (to align panels), else from its larger side."""
    n_q, n_k = words.shape
    if cell is not None:
        return cell
    # a multiple of 1/4 unit: coordinates stay short (2 decimals at most), so a 1,024-token map stays small
    return min(CELL_MAX, math.floor(MAP_SIDE / max(n_q, n_k) * 4) / 4 or 0.25)


@dataclass(frozen=True)
class Axes:
    """A map's ticks at one cell size: which rows and columns are labelled, whether the key ticks stand
    upright, and the room they take (`left`: the row ticks' width; `top`: the key ticks' height)."""

    rows: tuple[int, ...]
    cols: tuple[int, ...]
    upright: bool
    left: float
    top: float
    step: int  # the key ticks' step: 1 (every key), 2, 4, ...


def map_axes(words: MapText, cell: float) -> Axes:
    """The ticks a map of this cell size draws: every one while they fit, then every 2nd, 4th, ..."""
    tick_style, line_h = STYLES["tick"], text_height("tick")
    q_widths = [measure(label, tick_style) for label in words.q_labels]
    k_widths = [measure(label, tick_style) for label in words.k_labels]
    row_step = _step(cell, line_h + 2)
    flat_step = _step(cell, max(k_widths) + TICK_GAP)
    upright_step = _step(cell, line_h + 2)
    upright = flat_step > upright_step and max(k_widths) > line_h
    col_step = upright_step if upright else flat_step
    rows_shown = _ticks(words.q_labels, row_step, words.numeric_ticks, words.base)
    cols_shown = _ticks(words.k_labels, col_step, words.numeric_ticks, words.base)
    col_ticks_h = max(k_widths[j] for j in cols_shown) if upright else line_h
    return Axes(tuple(rows_shown), tuple(cols_shown), upright, max(q_widths[i] for i in rows_shown), col_ticks_h,
                col_step)


#: How far an axis title, centred on its side of the grid, may reach past the grid's ends: the margin right of the
#: grid (14), and the gap above the legend or the next row of panels (18).
X_TITLE_SPILL, Y_TITLE_SPILL = 14, 18
TITLE_LINES = 2  # a panel's title wraps to at most this many lines, then shortens with "…"


def panel_title(title: str, width: float, role: str = "panel-title", most: int = TITLE_LINES
                ) -> tuple[tuple[str, ...], bool]:
    """`title` wrapped to `width` in at most `most` lines; a line wider than `width` (one long word) or
    a title longer than that ends shortened with "…". Returns (lines, shortened).

    >>> panel_title("three packed documents", 150)
    (('three packed ', 'documents'), False)
    >>> panel_title("sliding-window", 100)
    (('sliding-w…',), True)
    """
    style = STYLES[role]
    lines: list[str] = []
    wrapped = wrap(split_keep(title, " "), role, width)
    for n, line in enumerate(wrapped):
        last = n == most - 1 and n < len(wrapped) - 1
        if measure(line.rstrip(), style) <= width and not last:
            lines.append(line)
            continue
        letters = graphemes(line.rstrip())  # cut between letters, never inside one
        while letters and measure("".join(letters) + "…", style) > width:
            letters.pop()
        lines.append("".join(letters).rstrip() + "…")
        return tuple(lines), True
    return tuple(lines), False


def axis_title(text: str, width: float) -> tuple[str]:
    """An axis title on one line at most `width` wide (the grid's extent), shortened with "…" when longer, cut
    between letters (never inside one: a letter and its marks stay together).

    >>> axis_title("key j", 100), axis_title("X" * 72, 100), axis_title("e\u0301" * 30, 50) == ("e\u0301" * 4 + "…",)
    (('key j',), ('XXXXXXXXX…',), True)
    """
    return (panel_title(text, width, "axis-title", 1)[0][0],)


def axis_items(words: MapText, axes: Axes, map_x: float, top: float, cell: float, titles: bool = True,
               title_left: float = PAD) -> list[Item]:
    """The key axis's title and ticks above the map, the query axis's ticks and title left of it
    (`titles` False: the ticks alone, a composed figure drawing its axis titles once)."""
    tick_style = STYLES["tick"]
    n_q, n_k = words.shape
    items: list[Item] = []
    if titles:
        y_titles = top - axes.top - 6 - 6  # the key axis title's baseline sits above its ticks
        items.append(Text("axis-title", map_x + cell * n_k / 2, y_titles - STYLES["axis-title"].size * DESCENT,
                          axis_title(words.x_title, cell * n_k + 2 * X_TITLE_SPILL), anchor="middle"))
    for j in axes.cols:
        cx = map_x + (j + 0.5) * cell
        if axes.upright:
            x = cx + (ASCENT - DESCENT) / 2 * tick_style.size
            items.append(Text("tick", x, top - 6, (words.k_labels[j],), rotate=-90, user=user_spans(words.k_labels[j])))
        else:
            items.append(Text("tick", cx, top - 6 - DESCENT * tick_style.size, (words.k_labels[j],), anchor="middle",
                              user=user_spans(words.k_labels[j])))
    for i in axes.rows:
        cy = top + (i + 0.5) * cell
        items.append(Text("tick", map_x - 8, cy + (ASCENT - DESCENT) / 2 * tick_style.size, (words.q_labels[i],),
                          user=user_spans(words.q_labels[i]), anchor="end"))
    if titles:
        title_x = title_left + (ASCENT - DESCENT) / 2 * STYLES["axis-title"].size + text_height("axis-title") / 2
        y_title = axis_title(words.y_title, cell * n_q + 2 * Y_TITLE_SPILL)
        items.append(Text("axis-title", title_x, top + cell * n_q / 2, y_title, anchor="middle", rotate=-90))
    return items


def map_body(words: MapText, map_x: float, top: float, cell: float, framed: bool = False) -> list[Item]:
    """The map itself (masked ground, kept runs, grid lines, highlights, frame) and the margin bars of rows
    with no kept key. The grid lines are in a group of their own, drawn without edge snapping so each stays
    visible when the figure is drawn smaller than its viewBox; `framed` (a frame's map, at any cell size):
    each row's runs a hair (0.01) taller, so that snapped rows of fractional pixels leave no seam."""
    n_q, n_k = words.shape
    map_w, map_h = cell * n_k, cell * n_q
    children: list[Item] = [Rect("map-masked", map_x, top, map_w, map_h)]
    empty: list[int] = []
    row_h = cell + 0.01 if framed and cell < GRID_LINES_FROM else cell
    for i, runs in enumerate(words.runs):
        y0 = top + i * cell
        if words.parts:  # each run in its part's colour, named by the part
            parts = words.run_parts[i]
            rects = tuple(Rect(f"kept-part-{parts[n] + 1}", map_x + (a - 1) * cell, y0, (b - a + 1) * cell, row_h,
                               attrs=(("data-k", f"{a}-{b}"), ("data-part", words.parts[parts[n]])))
                          for n, (a, b) in enumerate(runs))
        else:
            rects = tuple(Rect("kept", map_x + (a - 1) * cell, y0, (b - a + 1) * cell, row_h,
                               attrs=(("data-k", f"{a}-{b}"),)) for a, b in runs)
        children.append(Group(("attnviz-row",), (("data-q", str(i + 1)),), rects))
        if not runs:
            empty.append(i)
    if cell >= GRID_LINES_FROM:  # thin gaps between cells, so cells can be counted
        lines: list[Item] = [Rect("map-gridline", map_x + j * cell - 0.5, top, 1, map_h) for j in range(1, n_k)]
        lines += [Rect("map-gridline", map_x, top + i * cell - 0.5, map_w, 1) for i in range(1, n_q)]
        children += [Group(("attnviz-gridlines",), (), tuple(lines))] if lines else []
    computed = tuple(Rect("computed", map_x + (a - 1) * cell, top + i * cell, (b - a + 1) * cell, cell,
                          attrs=(("data-q", str(i + 1)), ("data-k", f"{a}-{b}")))
                     for i, runs in enumerate(words.computed) for a, b in runs)
    if computed:  # above the grid lines, so a highlighted cell's outline is whole
        children.append(Group(("attnviz-computed",), (), computed))
    children.append(Rect("map-frame", map_x, top, map_w, map_h))
    items: list[Item] = [Group(("attnviz-map",), (("data-shape", f"{n_q}x{n_k}"),), tuple(children))]
    if words.blocks is not None:  # over the map, each block's outline inset so neighbours' stay apart
        items.append(map_outlines(words.blocks, map_x, top, cell))
    for i in empty:  # a row with no kept key: a bar in the margin, named in the legend
        items.append(Rect("map-empty-row", map_x + map_w + 4, top + i * cell, 6, max(cell, 2),
                          attrs=(("data-q", str(i + 1)),)))
    return items


def lay_out_map(words: MapText, cell: float | None = None, grid_top: float | None = None,
                title_role: str = "title", frame: Frame | None = None) -> Layout:
    """Place a `MapText`; returns a `Layout` whose `grid` is (x, y, cell) of the map's top-left corner.

    `cell`, `grid_top`: a composed figure's shared cell size and grid top, so panels line up. `frame`: where the figure
    lands (layout.frames; None or doc: the web figure; another frame's map is `layout.map_fit.fit_map`'s).
    """
    n_q, n_k = words.shape
    cell = map_geometry(words, cell)
    items: list[Item] = []
    axes = map_axes(words, cell)
    y_title_w = text_height("axis-title")
    map_x = math.ceil(PAD + y_title_w + 10 + axes.left + 8)
    map_w, map_h = cell * n_k, cell * n_q
    wrap_w = max(360, map_x - PAD + map_w + 24)

    y: float = PAD

    def add_text(role: str, text: str, gap_after: float) -> None:
        nonlocal y
        # a rule breaks between its terms (a group too wide for a line breaks at its spaces)
        lines = wrap(split_terms(text), role, wrap_w, finer=(" ",)) if role == "caption" else \
            wrap(split_keep(text, " "), role, wrap_w)
        items.append(Text(role, PAD, y + ASCENT * STYLES[role].size, lines))
        y += text_height(role, len(lines)) + gap_after

    if words.title:
        add_text(title_role, words.title, 8)
    if words.subtitle:
        add_text("subtitle", words.subtitle, 10)
    if words.caption:
        add_text("caption", words.caption, 14)

    x_title_h = text_height("axis-title")
    top: float = math.ceil(y + x_title_h + 6 + axes.top + 6)
    top = max(top, grid_top) if grid_top is not None else top
    items += axis_items(words, axes, map_x, top, cell)
    items += map_body(words, map_x, top, cell)
    y = top + map_h + 18
    if words.tree is not None:  # the token tree right of the map (past a row's empty-row bar)
        from .tree_drawing import tree_items

        items.append(tree_items(words.tree, map_x + map_w + 32, top))
        y = max(y, top + words.tree.size()[1] + 18)
    if words.legend:
        legend, y = lay_out_legend(words.legend_keys(), PAD, y, wrap_w, words.parts)
        items += legend
    right = max([map_x + map_w + 14, PAD + wrap_w] + [right_edge(item) for item in items])
    return Layout(width=right + PAD, height=y + PAD - 12, title=words.title or words.caption,
                  desc=words.subtitle or words.caption, items=items, grid=(map_x, top, cell),
                  choices=shortened_axes([words], items))


def shortened_axes(maps: Sequence[MapText], items: Iterable[Item]) -> tuple[str, ...]:
    """The choice said when an axis title is drawn shortened (`axis_title`): the titles whole, for the description."""
    drawn = {item.text for item in Layout(0, 0, "", "", list(items)).walk()
             if isinstance(item, Text) and item.role == "axis-title"}
    whole = dict.fromkeys(title for words in maps for title in (words.x_title, words.y_title) if title not in drawn)
    return (f"long axis titles shortened: {'; '.join(whole)}",) if whole else ()


def shared_legend(maps: Sequence[MapText], hide: bool = False) -> tuple[list[str], tuple[str, ...]]:
    """(keys, part names) of one legend for several maps: every entry any map needs, and a union's parts
    when every map coloured by part names the same parts (else the parts' colours go unnamed: none)."""
    if hide:
        return [], ()
    named = {m.parts for m in maps if m.parts}
    parts = named.pop() if len(named) == 1 else ()
    needed = {key for m in maps for key in m.legend_keys()}
    part_keys = [f"part-{n}" for n in range(1, len(parts) + 1)]
    return part_keys + [key for key, _, _ in LEGEND if key in needed], parts


def lay_out_legend(keys: Sequence[str], x0: float, y: float, max_width: float,
                   parts: Sequence[str] = ()) -> tuple[list[Group], float]:
    """The legend's swatches and words, wrapped to `max_width`; returns (items, y below it). `parts`: the names
    of a union's parts, one entry each (`--color-by part`) in place of "kept"."""
    part_entries = tuple((f"part-{n}", f"kept-part-{n}", name) for n, name in enumerate(parts, 1))
    notes = tuple((key, "", key.removeprefix(NOTE)) for key in keys if key.startswith(NOTE))
    return legend_entries([entry for entry in part_entries + LEGEND + notes if entry[0] in keys], x0, y, max_width)


def legend_entries(entries: Iterable[tuple[str, str, str]], x0: float, y: float, max_width: float,
                   framed: bool = True) -> tuple[list[Group], float]:
    """Legend entries (key, swatch role, words) wrapped to `max_width`, each swatch outlined as a map's cell
    (`framed`; a block's swatch is its outline alone; an entry without a role is its words alone); returns (items,
    y below them)."""
    swatch, gap, row_h, style = 14, 22, 22, STYLES["legend"]
    items: list[Group] = []
    x = x0
    for key, role, words in entries:
        width = (swatch + 6 if role else 0) + measure(words, style)
        if x > x0 and x + width > x0 + max_width:
            x, y = x0, y + row_h
        baseline = y + swatch / 2 + (ASCENT - DESCENT) / 2 * style.size
        frame = (Rect("map-frame", x, y, swatch, swatch),) if framed and not role.startswith("block-") else ()
        shapes = (Rect(role, x, y, swatch, swatch), *frame) if role else ()
        items.append(Group(("attnviz-legend-entry",), (("data-legend", key.removeprefix(NOTE)),), (
            *shapes, Text("legend", x + swatch + 6 if role else x, baseline, (words,)))))
        x += width + gap
    return [Group(("attnviz-legend",), (), tuple(items))], y + row_h
