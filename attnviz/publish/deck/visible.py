"""Maps a slide can show at any size. A map's highlighted cell at 512 tokens is a fraction of a pixel
on the slide, so a deck draws a ring round it at least `MIN_HIGHLIGHT_PT` wide, its bars `RING_PT`
thick on the slide, whatever the map's scale (the cell itself stays as the map draws it). And a
map's rows are separate rectangles that meet exactly: viewers that smooth each edge on its own
(LibreOffice, PowerPoint) show a hairline of the ground between them, so `without_seams` lets a
row's run reach a little into the next row wherever that row keeps the same keys.
"""

from __future__ import annotations

from ...layout.items import Group, Rect
from ...records import replace

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from ...layout.items import Item, Layout

__all__ = ["visible_highlights", "without_seams", "MIN_HIGHLIGHT_PT", "RING_PT", "SEAM_PT"]

MIN_HIGHLIGHT_PT = 12.0  # 16 px on a 1,280-px slide: the smallest highlight a room can see
RING_PT = 2.25  # 3 px
SEAM_PT = 0.75  # a pixel of a 1,280-px slide: how far a row's run reaches into the next


def visible_highlights(layout: Layout, pt_per_unit: float) -> Layout:
    """`layout` with a ring round each highlighted map run narrower or shorter than `MIN_HIGHLIGHT_PT`
    when a layout unit is drawn `pt_per_unit` points wide; a layout without such runs comes back as it is."""
    least, bar = MIN_HIGHLIGHT_PT / pt_per_unit, RING_PT / pt_per_unit

    def ring(rect: Rect) -> tuple[Rect, ...]:
        w, h = max(rect.w + 2 * bar, least), max(rect.h + 2 * bar, least)
        x = min(max(0.0, rect.x + rect.w / 2 - w / 2), layout.width - w)
        y = min(max(0.0, rect.y + rect.h / 2 - h / 2), layout.height - h)
        return (Rect("highlight-ring", x, y, w, bar), Rect("highlight-ring", x, y + h - bar, w, bar),
                Rect("highlight-ring", x, y, bar, h), Rect("highlight-ring", x + w - bar, y, bar, h))

    changed = False

    def visit(item: Item) -> Item:
        nonlocal changed
        if not isinstance(item, Group):
            return item
        children: list[Item] = []
        for child in item.children:
            children.append(visit(child))
            if isinstance(child, Group) and child.classes[:1] == ("attnviz-computed",):
                small = [r for r in child.children if isinstance(r, Rect) and min(r.w, r.h) < least]
                if small:
                    changed = True
                    children.append(Group(("attnviz-highlight-ring",), (), tuple(b for r in small for b in ring(r))))
        return replace(item, children=tuple(children))

    items = [visit(item) for item in layout.items]
    return replace(layout, items=items) if changed else layout


def without_seams(layout: Layout, pt_per_unit: float) -> Layout:
    """`layout` with each map row's kept runs reaching `SEAM_PT` (at most a row) into the next row over
    the keys that row keeps too (a run split where the next row's keys begin or end: at most three
    rectangles for one), so no hairline of the masked ground shows between rows."""
    reach = SEAM_PT / pt_per_unit

    def split(rect: Rect, spans: list[tuple[float, float]]) -> tuple[Rect, ...]:
        x0, x1 = rect.x, rect.x + rect.w
        overlaps = [(max(a, x0), min(b, x1)) for a, b in spans if min(b, x1) - max(a, x0) > 1e-9]
        if not overlaps:
            return (rect,)
        c0, c1 = max(overlaps, key=lambda span: span[1] - span[0])
        grown = replace(rect, x=c0, w=c1 - c0, h=rect.h + min(reach, rect.h))
        left = (replace(rect, w=c0 - x0),) if c0 - x0 > 1e-9 else ()
        right = (replace(rect, x=c1, w=x1 - c1),) if x1 - c1 > 1e-9 else ()
        return (*left, grown, *right)

    def rows(group: Group) -> Group:
        children = list(group.children)
        at = [n for n, child in enumerate(children)
              if isinstance(child, Group) and child.classes[:1] == ("attnviz-row",)]
        for n, below in zip(at, at[1:]):
            row, under = children[n], children[below]
            assert isinstance(row, Group) and isinstance(under, Group)  # `at` holds the rows' places
            spans = [(r.x, r.x + r.w) for r in under.children if isinstance(r, Rect)]
            children[n] = replace(row, children=tuple(part for r in row.children for part in (
                split(r, spans) if isinstance(r, Rect) else (r,))))
        return replace(group, children=tuple(children))

    items = [rows(item) if isinstance(item, Group) and item.classes[:1] == ("attnviz-map",) else item
             for item in layout.items]
    return replace(layout, items=items)
