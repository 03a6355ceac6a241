"""Composed figures fitted to a slide or column frame (layout.frames).

Mask-map panels are laid out together for the frame (layout.panel_fit: one cell size, the arrangement with the biggest
cells, one legend). Other panels (score grids, bias matrices, heads) keep their own layouts, trimmed to what they draw,
and take the arrangement whose canvas lets their text come out largest; when even that puts a text under the frame's
floor, the figure is refused in one line that names the way out, never drawn small.
"""

from __future__ import annotations

import math

from ..layout.figure import PAD, Group, Layout, Text, right_edge, translate
from ..layout.frames import MAIN_ROLES, fit_to_frame, text_floor_misses, wider_frame
from ..layout.framed import PAGE_IN
from ..layout.panel_fit import DOC_FIGURE_IN, fit_map_panels, rearranged, shared_text
from ..layout.score_panels import fit_score_panels, grid_title
from ..numbers.exact import InputError
from .panel_rows import heading, placed_panels
from .figure import Figure

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..layout.frames import Frame
    from ..layout.items import Item
    from typing import Any

    from ..words.figure_text import FigureText
    from .figure import Drawable

__all__ = ["compose_in_frame", "drop_badges"]

GAP = 24  # between panels


def compose_in_frame(panels: Sequence[Drawable], columns: int, title: str | None, frame: Frame,
                     parts: dict[str, str]) -> Layout:
    """The panels laid out for `frame`; `parts` says what becomes of their captions, subtitles and legend."""
    maps = _words(panels, mask=True)
    grids = None if maps is not None else _words(panels, mask=False)
    if maps is not None:
        layout = fit_map_panels(maps, columns, title, frame, captions=parts["captions"],
                                subtitles=parts["subtitles"], legend=parts["legend"],
                                arranged=parts.get("arranged") or None)
    elif grids is not None:
        layout = _score_panels(grids, columns, title, frame)
    else:
        layout = _fit_layouts([_trimmed(panel) for panel in panels], columns, title, frame)
    if _printed_height(layout, frame) > _tallest(frame) + 1e-6:  # a column's figure is no taller than a page
        raise _too_tall(layout, frame, len(panels))
    return layout


def _too_tall(layout: Layout, frame: Frame, n: int) -> InputError:
    """The refusal of `n` panels that print taller than a page in a column (a wider column prints them no
    shorter: it is not named)."""
    return InputError(f"the {n} panels print {_printed_height(layout, frame):.1f} inches tall in the {frame.name} "
                      f"frame, past a page's {_tallest(frame):g}; try fewer panels or tokens, --view mask or "
                      "--frame doc", "frame")


def _tallest(frame: Frame) -> float:
    """How tall a figure may print in `frame`, in inches: a page's in a column, `DOC_FIGURE_IN` in a docs page."""
    return DOC_FIGURE_IN if frame.kind == "doc" else PAGE_IN


def _printed_height(layout: Layout, frame: Frame) -> float:
    """How tall `layout` prints in a column frame, in inches, at the column's width (0 in a slide frame)."""
    return 0.0 if frame.aspect is not None else layout.height * frame.width_in / layout.width


def _words(panels: Sequence[Drawable], mask: bool) -> list[Any] | None:
    """The panels' words (MapTexts, or FigureTexts) if every panel is a mask map (`mask`) or every one a grid
    drawn from vectors; else None."""
    if not all(isinstance(panel, Figure) and (panel.view == "mask") == mask for panel in panels):
        return None
    return [panel.words for panel in panels if isinstance(panel, Figure)]


def _score_panels(texts: Sequence[FigureText], columns: int, title: str | None, frame: Frame) -> Layout:
    """Score grids (heads, a grid and its bias matrix) compact under one title and one line for all."""
    captions = [words.grid_caption for words in texts]
    note = shared_text(captions) or ""
    note += ("; " if note else "") + "hatched cells are masked" * any(c.masked for w in texts for r in w.cells
                                                                         for c in r)
    desc = "; ".join(f"panel {n}: " + "; ".join(part for part in (grid_title(words, n), words.subtitle, words.badge,
                                                                   words.q_line, words.k_line, *words.more_vectors,
                                                                   words.grid_caption) if part)
                     for n, words in enumerate(texts, 1)) + "."
    return fit_score_panels(texts, columns, title, note, frame, desc)


def _trimmed(panel: Drawable) -> Layout:
    """A panel's layout as wide as what it draws (a doc figure's captions reserve a wide column)."""
    layout = panel.layout(panel=True) if isinstance(panel, Figure) else panel.layout()
    layout = drop_badges(layout)
    right = max((right_edge(item) for item in layout.items), default=0)
    layout.width = min(layout.width, right + PAD / 2)
    return layout


def drop_badges(layout: Layout) -> Layout:
    """`layout` without its badges ("exact scores"): chrome the composed figure's description carries; what
    stood below a badge moves up into its room."""
    badges = [item for item in layout.items if isinstance(item, Group) and item.classes[:1] == ("attnviz-badge",)]
    if not badges:
        return layout
    items = list(layout.items)
    for badge in badges:
        assert badge.box is not None  # a badge's box is its pill
        top, bottom = badge.box[1], badge.box[3]
        below = [_top(item) for item in items if item is not badge and _top(item) >= bottom]
        lift = (min(below) - top) if below else 0
        items = [translate(item, 0, -lift) if _top(item) >= bottom else item for item in items if item is not badge]
        layout.height -= lift
        layout.desc += f" ({' '.join(t.text for t in badge.children if isinstance(t, Text))})"
        if layout.grid:
            layout.grid = (layout.grid[0], layout.grid[1] - lift, layout.grid[2])
    layout.items = items
    return layout


def _top(item: Item) -> float:
    """The topmost y `item` draws at."""
    if isinstance(item, Text):
        return min(box[1] for box in item.line_boxes())
    return min((_top(child) for child in item.children), default=math.inf) if isinstance(item, Group) else item.y


def _fit_layouts(layouts: Sequence[Layout], columns: int, title: str | None, frame: Frame) -> Layout:
    n = len(layouts)
    best: tuple[float, int, Layout] | None = None
    too_tall: Layout | None = None  # an arrangement at the floor but taller than a page (a column's)
    for c in dict.fromkeys([columns] + list(range(n, 0, -1))):
        placed = _grid(layouts, c, title)
        fitted = fit_to_frame(placed, frame)
        if _printed_height(fitted, frame) > _tallest(frame) + 1e-6:  # (a column's figure is no taller than a page)
            too_tall = too_tall or (None if text_floor_misses(fitted, frame) else fitted)
            continue
        # how much larger than the floor the smallest text comes out: the arrangement's worth
        worth = min((t.style.size / frame.min_size(fitted.width, main=t.role in MAIN_ROLES)
                     for t in fitted.walk() if isinstance(t, Text)), default=1.0)
        if best is None or worth > best[0] * 1.0001:
            best = (worth, c, fitted)
    if best is None or text_floor_misses(best[2], frame):
        if too_tall is not None:
            raise _too_tall(too_tall, frame, n)
        raise InputError(f"{n} panels do not fit the {frame.name} frame with their text at the floor; try "
                         f"{wider_frame(frame)}fewer panels (or tokens), --view mask, --elide or --frame doc", "frame")
    worth, c, fitted = best
    fitted.choices = (*fitted.choices, "badges left out (the description says them)", *rearranged(c, columns, n))
    return fitted


def _grid(layouts: Sequence[Layout], columns: int, title: str | None) -> Layout:
    """The layouts in rows of `columns`, under `title`."""
    rows = [list(range(s, min(s + columns, len(layouts)))) for s in range(0, len(layouts), columns)]
    total_w = sum(max(layouts[row[c]].width for row in rows if c < len(row)) for c in range(columns)) \
        + GAP * (columns - 1)
    items, y = heading(title, [], max(total_w - 2 * PAD, 300))
    placed, _, y = placed_panels(layouts, [None] * len(layouts), rows, columns, None, y, GAP)
    width = max([total_w] + [right_edge(item) + PAD for item in [*items, *placed][:1]])
    names = [layout.title for layout in layouts]
    return Layout(width=width, height=y, title=title or " | ".join(names),
                  desc="; ".join(layout.desc for layout in layouts) + ".", items=items + placed)
