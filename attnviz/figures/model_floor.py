"""A model figure's maps kept big enough to read in every fitted frame (a slide, 4:3, a paper column, a docs page of
a given width): each map's cells at least a tenth of an inch up to 16 tokens (a map 1.6 inches wide beyond), the
paper column's floor (layout.panel_fit.COLUMN_CELL_IN) held in every frame alike. One panel a layer (`--layers all`)
that leaves its maps under it has the layers with identical masks drawn as one panel, titled with their layers
("sliding window 4, layers 0–4, 6–10"); a figure whose maps are under it even so is refused in one line naming what
fits (each way tried). The web page's own frame (`doc`) draws maps at their full size and needs none of this.
"""

from __future__ import annotations

import copy

from ..layout.frames import get_frame
from ..layout.items import Group, Rect
from ..numbers.exact import InputError
from ..layout.panel_fit import CELL_SLACK, COLUMN_CELL_IN, COLUMN_CELL_UPTO, CellsUnderFloor

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from ..layout.frames import Frame
    from ..layout.items import Item, Layout
    from .model import ModelFigure

__all__ = ["GROUPED", "WAYS_OUT", "map_sizes", "smallest_cell_in", "floor_in", "under_floor", "at_floor"]

#: What `--verbose` says when one panel a layer was drawn as one panel per mask.
GROUPED = ("layers with identical masks drawn as one panel titled with their layers (one panel a layer would leave "
           "its maps' cells under the frame's floor)")


def map_sizes(items: Iterable[Item]) -> list[tuple[float, int, int]]:
    """Every map the items draw: (its drawn width, in layout units; its queries; its keys)."""
    found: list[tuple[float, int, int]] = []
    for item in items:
        if not isinstance(item, Group):
            continue
        shape = dict(item.attrs).get("data-shape")
        if item.classes[:1] == ("attnviz-map",) and shape:
            n_q, n_k = map(int, shape.split("x"))
            grid = next((child for child in item.children if isinstance(child, Rect)), None)
            if grid is not None:
                found.append((grid.w, n_q, n_k))
            continue
        found += map_sizes(item.children)
    return found


def floor_in(tokens: int) -> float:
    """The smallest cell, in inches, for a map of `tokens` tokens: 0.1 up to 16, then a map 1.6 inches wide."""
    return COLUMN_CELL_IN * min(1.0, COLUMN_CELL_UPTO / max(1, tokens))


def smallest_cell_in(layout: Layout, frame: Frame) -> tuple[float, float] | None:
    """(the smallest drawn cell, the floor for its map), both in inches, of the layout's maps in `frame`; None
    without a map."""
    per_inch = layout.width / frame.width_in
    cells = [(width / n_k / per_inch, floor_in(max(n_q, n_k))) for width, n_q, n_k in map_sizes(layout.items)]
    return min(cells, key=lambda cell: cell[0] / cell[1]) if cells else None


def under_floor(layout: Layout, frame: Frame) -> tuple[float, float] | None:
    """(cell, floor) in inches when the layout's smallest map cell is under its floor (2 % spared), else None."""
    found = smallest_cell_in(layout, frame)
    if found is None or found[0] >= found[1] * (1 - CELL_SLACK):
        return None
    return found


def at_floor(fig: ModelFigure, grouped: Callable[[], ModelFigure] | None) -> ModelFigure:
    """`fig` where its maps reach the floor in its frame; else `grouped()` (its layers with identical masks as one
    panel each: said by `--verbose`) where that is another figure and reaches it; else a one-line refusal naming
    the frames that hold it (each tried)."""
    frame = get_frame(fig.frame)
    if frame.kind == "doc" and frame.name == "doc":  # (the web page's own: maps at their full size)
        return fig
    under, refused = _measured(fig, frame)
    if under is None and refused is None:
        return fig
    if grouped is not None:
        made = grouped()
        made.said = (GROUPED,)
        return at_floor(made, None)
    if refused is not None:  # (its text, not its maps, past the frame: that refusal names its ways out)
        raise refused
    assert under is not None  # (one of the two)
    ways = " or ".join(f"--frame {name}" for name in WAYS_OUT
                       if name != frame.name and _measured(_in(fig, name), None) == (None, None))
    raise InputError(f"the model's {len(fig.panels)} panels draw their maps' cells {under[0]:.2g} inch wide, under "
                     f"the {frame.name} frame's floor of {under[1]:.2g} inch; try {ways or 'fewer tokens (--n)'}",
                     "frame")


#: The frames a refused model figure names where its maps reach the floor, in this order.
WAYS_OUT = ("slide", "column-wide", "doc")


def _measured(fig: ModelFigure, frame: Frame | None) -> tuple[tuple[float, float] | None, InputError | None]:
    """(cell and floor where under it, the frame's refusal) of `fig` laid out in its frame (`frame`: that frame)."""
    frame = frame or get_frame(fig.frame)
    try:
        layout = fig.layout()
    except CellsUnderFloor as err:  # (the panels' own refusal of maps under the floor, said here the model's way)
        return (err.cell_in, err.floor_in), None
    except InputError as err:
        if err.where != "frame":
            raise
        return None, err
    return (None if frame.name == "doc" else under_floor(layout, frame)), None


def _in(fig: ModelFigure, frame: str) -> ModelFigure:
    """`fig` and its panels in `frame` (copies)."""
    moved = copy.copy(fig)
    moved.frame = frame
    panels = [copy.copy(panel) for panel in fig.panels]
    for panel in panels:
        panel.frame = frame
    moved.panels = tuple(panels)
    return moved
