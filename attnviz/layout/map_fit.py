"""Mask maps fitted to a frame (layout.frames): placed for the frame's shape, not shrunk into it.

Text keeps its role's size in layout units; the canvas is made as wide as the frame's floors allow
(`canvas`: at 1,280 px a slide's 12-unit ticks must come out at 16 px and its 16-unit caption at 24 px, so its
viewBox is at most 853 units wide), and the map's cell size is what is left to choose. A slide's
map takes the whole height with its words beside it (landscape) when that gives bigger cells than words
above it; a column's map fills the column's width. Ticks thin out as cells shrink (`map_axes`).
"""

from __future__ import annotations

import math

from ..numbers.exact import InputError
from .frames import MAIN_ROLES, wider_frame
from .items import STYLES, Layout, Text, measure, right_edge, text_height, translate
from .mask_map import LEGEND, axis_items, lay_out_legend, map_axes, map_body, shortened_axes
from .figure import PAD, split_keep, wrap
from .wrapping import ANYWHERE
from .metrics import ASCENT
from ..words.user_text import user_spans

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from .frames import Frame
    from .items import Item
    from .mask_map import Axes, MapText

__all__ = ["canvas", "fit_map", "quantize", "min_cell", "texts_block", "settle", "FRAME_CELL_MAX", "GAP"]

FRAME_CELL_MAX = 48  # a frame's biggest cell: an 8-token map on a slide stays a figure, not a wall
QUANTUM = 0.01  # a frame's cell sizes are multiples of this: coordinates keep two decimals at most
GAP = 24  # between a map and the words beside it
PRINT_MAP_IN = 4  # a column's map (with its ticks) is at most this many inches tall
Y_TITLE_W = text_height("axis-title")


def canvas(frame: Frame, roles: Iterable[str]) -> tuple[float, float | None]:
    """(width, height) of the largest canvas on which every role in `roles` meets `frame`'s floors: a
    slide's height from its aspect, a column's None (its height follows the content)."""
    width = min(STYLES[role].size / frame.min_size(1.0, main=role in MAIN_ROLES) for role in roles)
    width = math.floor(width * 100) / 100
    aspect = frame.aspect
    return width, None if aspect is None else width / aspect


def quantize(cell: float) -> float:
    """`cell` rounded down to a multiple of QUANTUM, at most FRAME_CELL_MAX."""
    return min(FRAME_CELL_MAX, math.floor(cell / QUANTUM + 1e-9) * QUANTUM)


def min_cell(frame: Frame, width: float) -> float:
    """The smallest cell a frame's map may have: 0.4 px on a slide at its judged size (a 1,024-token map on a
    4:3 slide), a tenth of a point in a column."""
    return max(QUANTUM, frame.min_size(width) / (40 if frame.judged_px else 70))


#: The roles a frame's map typesets (`Text.math`): the mask's rule, attnviz's notation.
TYPESET = frozenset({"caption"})


def texts_block(parts: Sequence[tuple[str, str]], x: float, y: float, width: float,
                gaps: dict[str, float] | None = None) -> tuple[list[Item], float]:
    """(role, text) pairs wrapped to `width` and stacked from `y`; returns (texts, y below them)."""
    gap_after = {"title": 8, "panel-title": 6, "subtitle": 10, "caption": 14, **(gaps or {})}
    items: list[Item] = []
    for role, text in parts:
        if not text:
            continue
        lines = wrap(split_keep(text, " "), role, width, finer=(ANYWHERE,))  # a word longer than a line is cut
        # A rule's caption is typeset as the full view's is (i−16<j≤i), a user's words in it kept as given;
        # any script at the line's own size, so no text falls under the frame's floor.
        typeset = role in TYPESET
        items.append(Text(role, x, y + ASCENT * STYLES[role].size, lines, user=user_spans(text) if typeset else (),
                          math=typeset, script=STYLES[role].size if typeset else 0))
        y += text_height(role, len(lines)) + gap_after.get(role, 8)
    return items, y


def _widest_word(parts: Iterable[tuple[str, str]]) -> float:
    return max((measure(word, STYLES[role]) for role, text in parts for word in text.split(" ")), default=0)


def _legend_width(keys: Sequence[str]) -> float:
    return max(14 + 6 + measure(words, STYLES["legend"]) for key, _, words in LEGEND if key in keys)


def settle(cell_for: Callable[[Sequence[tuple[float, float]]], float], maps: Sequence[MapText]
           ) -> tuple[float, list[Axes]]:
    """The biggest cell `cell_for` allows, given the room each map's ticks take ((left, top) a map), with
    the ticks each map draws at that cell. The room reserved grows until the ticks at the cell found fit in
    it (ticks thin as cells shrink), at worst to what every label drawn would take."""
    reserved = [(0.0, 0.0)] * len(maps)
    for _ in range(6):
        cell = cell_for(reserved)
        found = [map_axes(words, max(cell, QUANTUM)) for words in maps]
        if all(f.left <= r[0] + 1e-9 and f.top <= r[1] + 1e-9 for f, r in zip(found, reserved)):
            return cell, found
        reserved = [(max(r[0], f.left), max(r[1], f.top)) for r, f in zip(reserved, found)]
    cell = cell_for([_widest_ticks(words) for words in maps])
    return cell, [map_axes(words, max(cell, QUANTUM)) for words in maps]


def _cell_for(words: MapText, room_w: float, room_h: float | None) -> tuple[float, Axes]:
    """The biggest cell whose map, with its ticks, fits `room_w` × `room_h` (None: a column's width, the
    map at most twice as tall as wide), and the ticks drawn at it."""
    n_q, n_k = words.shape

    def cell_for(room: Sequence[tuple[float, float]]) -> float:
        (left, top), = room
        fits = [(room_w - Y_TITLE_W - 10 - left - 8 - 14) / n_k]
        if room_h is not None:
            fits.append((room_h - text_height("axis-title") - 6 - top - 6) / n_q)
        else:
            fits.append(2 * (room_w - Y_TITLE_W - 32 - left) / n_q)
        return quantize(min(fits))

    cell, (axes,) = settle(cell_for, [words])
    return cell, axes


def _widest_ticks(words: MapText) -> tuple[float, float]:
    """(row tick width, key tick height) if every label were drawn, upright when they are long."""
    style, line_h = STYLES["tick"], text_height("tick")
    k_width = max(measure(label, style) for label in words.k_labels)
    return max(measure(label, style) for label in words.q_labels), max(k_width, line_h)


#: What a frame's map leaves out, in order, when its cells would be too small: (what, choice said).
DROPS = ((), ("subtitle",), ("subtitle", "caption"))
_DROPPED = {"subtitle": "subtitle left out (the description says it)",
            "caption": "rule caption left out (the description says it)"}


def _chrome(words: MapText, dropped: Sequence[str]) -> list[tuple[str, str]]:
    return [(role, "" if role in dropped else text)
            for role, text in (("title", words.title), ("subtitle", words.subtitle), ("caption", words.caption))]


def fit_map(words: MapText, frame: Frame) -> Layout:
    """A mask map laid out for `frame`: words beside the map (a slide, when that gives bigger cells) or above
    it, at the largest canvas the floors allow; refused (InputError) when even the smallest cell does not fit."""
    best: tuple[float, Callable[[], Layout]] | None = None
    for dropped in DROPS:
        parts = _chrome(words, dropped)
        roles = [role for role, text in parts if text] + ["axis-title", "tick"] + ["legend"] * words.legend
        width, height = canvas(frame, roles)
        arrangements = (_beside, _above) if height is not None else (_above,)
        for arrange in arrangements:
            placed = arrange(words, parts, width, height, frame)
            if placed and (best is None or placed[0] > best[0]):
                best = placed
        if best and best[0] >= min_cell(frame, width):
            cell, make = best
            layout = make()
            choices = list(layout.choices) + [_DROPPED[part] for part in dropped if getattr(words, part)]
            step = map_axes(words, cell).step
            if step > 1:
                choices.append(f"a tick every {_ordinal(step)} token")
            layout.choices = tuple(choices)
            return layout
        best = None
    n = max(words.shape)
    raise InputError(f"a {n}-token mask map does not fit the {frame.name} frame with its text at the floor; try "
                   f"{wider_frame(frame)}fewer tokens (--n) or --frame doc", "frame")


def _ordinal(n: int) -> str:
    """2nd, 4th, 32nd, 64th."""
    suffix = "th" if n % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _above(words: MapText, parts: Sequence[tuple[str, str]], width: float, height: float | None,
           frame: Frame) -> tuple[float, Callable[[], Layout]] | None:
    """The words above the map, as the doc figure places them: (cell, the layout's maker)."""
    wrap_w = width - 2 * PAD
    texts, y = texts_block(parts, PAD, PAD, wrap_w)
    legend, legend_h = lay_out_legend(words.legend_keys(), PAD, 0, wrap_w, words.parts) if words.legend else ([], 0)
    # a column's map stands at most PRINT_MAP_IN tall (width / width_in: layout units per inch)
    room_h = width / frame.width_in * PRINT_MAP_IN if height is None else height - y - PAD - 18 - legend_h
    cell, axes = _cell_for(words, wrap_w, room_h)
    if cell <= 0 or room_h <= 0:
        return None
    map_x = math.ceil(PAD + Y_TITLE_W + 10 + axes.left + 8)
    top = math.ceil(y + text_height("axis-title") + 6 + axes.top + 6)
    content_h = top + cell * words.shape[0] + 18 + legend_h - 12 + PAD
    # centred: the map's block across the width, the whole across a slide's height
    right = max([map_x + cell * words.shape[1] + 14] + [right_edge(item) for item in texts + legend])
    dx = round(max(0.0, (width - PAD - right) / 2))
    dy = 0 if height is None else round(max(0.0, (height - content_h) / 2))

    def make() -> Layout:
        items = [translate(item, dx, dy) for item in texts]
        items += _map_items(words, axes, map_x + dx, top + dy, cell)
        if words.legend:
            items += lay_out_legend(words.legend_keys(), PAD + dx, top + dy + cell * words.shape[0] + 18, wrap_w,
                                    words.parts)[0]
        return _placed(words, items, width, content_h if height is None else height, (map_x + dx, top + dy, cell),
                       (TREE_LEFT_OUT,) if words.tree is not None else ())

    return cell, make


def _beside(words: MapText, parts: Sequence[tuple[str, str]], width: float, height: float | None,
            frame: Frame) -> tuple[float, Callable[[], Layout]] | None:
    """The map at the slide's full height, its title, captions and legend in a column at its right."""
    assert height is not None  # only a slide's map stands beside its words
    keys = words.legend_keys() if words.legend else []
    text_min = max(_widest_word(parts), _legend_width(keys) if keys else 0, 120)
    n_q, n_k = words.shape
    room_h = height - 2 * PAD
    cell, axes = _cell_for(words, width - 2 * PAD - GAP - text_min, room_h)
    if cell <= 0:
        return None
    map_x = math.ceil(PAD + Y_TITLE_W + 10 + axes.left + 8)
    text_x = map_x + cell * n_k + 14 + GAP
    text_w = width - PAD - text_x
    texts, y = texts_block(parts, text_x, PAD, text_w)
    if keys:
        legend, y = lay_out_legend(keys, text_x, y, text_w, words.parts)
        texts += legend
    tree, y, tree_said = _tree_in_column(words, text_x, y, text_w, PAD + room_h)
    texts += tree
    text_h = y - PAD
    map_h = text_height("axis-title") + 6 + axes.top + 6 + cell * n_q
    if text_h > room_h:
        return None
    block_h = max(text_h, map_h)
    top = math.ceil(PAD + (block_h - map_h) / 2 + text_height("axis-title") + 6 + axes.top + 6)
    dy = round((height - 2 * PAD - block_h) / 2)
    dx = round(max(0.0, (width - PAD - (text_x + max(max(map(right_edge, texts), default=0) - text_x, 0))) / 2))

    def make() -> Layout:
        items = [translate(item, dx, dy + (block_h - text_h) / 2) for item in texts]
        items += _map_items(words, axes, map_x + dx, top + dy, cell)
        return _placed(words, items, width, height, (map_x + dx, top + dy, cell),
                       ("landscape: the title, captions and legend beside the map", *tree_said))

    return cell, make


TREE_LEFT_OUT = "token tree left out (the rule names each token's parent)"


def _tree_in_column(words: MapText, x: float, y: float, width: float, bottom: float
                    ) -> tuple[list[Item], float, tuple[str, ...]]:
    """A token tree under the words beside a slide's map, where it fits: (its items, y below it, the choice said)."""
    if words.tree is None:
        return [], y, ()
    from .tree_drawing import tree_items  # start-up: only a tree's map draws its tree

    tree_w, tree_h = words.tree.size()
    if tree_w > width or y + 6 + tree_h > bottom:
        return [], y, (TREE_LEFT_OUT,)
    return [tree_items(words.tree, x, y + 6)], y + 6 + tree_h + 8, ("the token tree under the legend",)


def _map_items(words: MapText, axes: Axes, map_x: float, top: float, cell: float) -> list[Item]:
    return axis_items(words, axes, map_x, top, cell) + map_body(words, map_x, top, cell, framed=True)


def _placed(words: MapText, items: list[Item], width: float, height: float, grid: tuple[float, float, float],
            choices: tuple[str, ...]) -> Layout:
    desc = "; ".join(part for part in (words.subtitle, words.caption) if part) + "."
    return Layout(width=width, height=height, title=words.title or words.caption, desc=desc, items=items, grid=grid,
                  choices=choices + shortened_axes([words], items))
