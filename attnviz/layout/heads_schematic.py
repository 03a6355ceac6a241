"""The heads schematic, as the GQA paper draws it: query heads in a row, the key/value heads they share in a row below,
a line from each query head down to its KV head.

`g.attnviz-qhead[data-head][data-kv-head]` a query head's box, `g.attnviz-kvhead[data-kv-head]` a KV head's,
`g.attnviz-head-link[data-head][data-kv-head]` the line between them (drawn as thin bars: a stub down from the query
head, along to above its KV head, and down into it), so every backend draws it with the rectangles it already has.
Multi-head attention is one straight line a head, multi-query attention one bus into the single KV head.
"""

from __future__ import annotations

from .figure import PAD, split_keep, wrap
from .wrapping import ANYWHERE
from .items import STYLES, Group, Layout, Rect, Text, measure, text_height
from .metrics import ASCENT, DESCENT

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Sequence

    from .items import Item

__all__ = ["lay_out_heads", "BOX_W", "BOX_H"]

BOX_W, BOX_H, BOX_GAP = 60, 40, 14
LINK = 2  # the line's width
DROP = 56  # between the query heads' row and the KV heads'
LABEL_W = 150  # the rows' names, left of the boxes


def lay_out_heads(kv_heads: Sequence[int], base: int, title: str, subtitle: str, compact: bool = False) -> Layout:
    """The schematic of query heads reading the KV heads `kv_heads[h]` (0-based, one per query head);
    heads are numbered from `base`. `compact` (a narrow frame): each row's name above its boxes, not left
    of them, and the words wrapped to the boxes' width."""
    n_heads, n_kv = len(kv_heads), len(set(kv_heads))
    items: list[Item] = []
    box_w, box_gap = (42, 8) if compact else (BOX_W, BOX_GAP)
    row_w = n_heads * box_w + (n_heads - 1) * box_gap
    label_w = 0 if compact else LABEL_W
    wrap_w = max(200, row_w) if compact else max(480, LABEL_W + row_w)
    y: float = PAD
    for role, text, gap in (("title", title, 8), ("subtitle", subtitle, 22)):
        lines = wrap(split_keep(text, " "), role, wrap_w, finer=(ANYWHERE,))  # a word longer than a line is cut
        # the title and subtitle may be the user's: escaped as text by every backend
        items.append(Text(role, PAD, y + ASCENT * STYLES[role].size, lines, user=((0, len(text)),)))
        y += text_height(role, len(lines)) + gap
    x0 = PAD + label_w
    heading_h = text_height("side-heading") + 4 if compact else 0  # compact: names above and below the rows
    q_top = y + heading_h
    kv_top = q_top + BOX_H + DROP
    q_centre = [x0 + h * (box_w + box_gap) + box_w / 2 for h in range(n_heads)]
    kv_centre = []
    for g in range(n_kv):  # each KV head centred under the query heads that read it
        readers = [q_centre[h] for h in range(n_heads) if kv_heads[h] == g]
        kv_centre.append((min(readers) + max(readers)) / 2)
    size = STYLES["side-heading"].size
    for text, top, compact_baseline in (("query heads", q_top, q_top - 4 - DESCENT * size),
                                        ("key/value heads", kv_top, kv_top + BOX_H + 4 + ASCENT * size)):
        baseline = compact_baseline if compact else _middle(top + BOX_H / 2, "side-heading")
        items.append(Text("side-heading", PAD, baseline, (text,)))
    bus = q_top + BOX_H + DROP / 2
    for h, g in enumerate(kv_heads):  # the lines first: the boxes are drawn over their ends
        qx, kx = q_centre[h], kv_centre[g]
        bars = (Rect("head-link", qx - LINK / 2, q_top + BOX_H, LINK, bus - q_top - BOX_H + LINK / 2),
                Rect("head-link", min(qx, kx) - LINK / 2, bus - LINK / 2, abs(kx - qx) + LINK, LINK),
                Rect("head-link", kx - LINK / 2, bus - LINK / 2, LINK, kv_top - bus + LINK / 2))
        items.append(Group(("attnviz-head-link",), (("data-head", str(h + base)), ("data-kv-head", str(g + base))),
                           bars))
    for h, g in enumerate(kv_heads):
        x = q_centre[h] - box_w / 2
        items.append(Group(("attnviz-qhead",), (("data-head", str(h + base)), ("data-kv-head", str(g + base))), (
            Rect("qhead", x, q_top, box_w, BOX_H, rx=6),
            Text("head", x + box_w / 2, _middle(q_top + BOX_H / 2, "head"), (f"Q{h + base}",), anchor="middle")),
            box=(x, q_top, x + box_w, q_top + BOX_H)))
    for g, centre in enumerate(kv_centre):
        label = f"K{g + base} V{g + base}"
        w = max(box_w, measure(label, STYLES["head"]) + 16)
        x = centre - w / 2
        items.append(Group(("attnviz-kvhead",), (("data-kv-head", str(g + base)),), (
            Rect("kvhead", x, kv_top, w, BOX_H, rx=6),
            Text("head", centre, _middle(kv_top + BOX_H / 2, "head"), (label,), anchor="middle")),
            box=(x, kv_top, x + w, kv_top + BOX_H)))
    right = max(x0 + row_w, max(kv_centre) + max(box_w, measure(f"K{n_kv} V{n_kv}", STYLES["head"]) + 16) / 2)
    return Layout(width=max(right, PAD + wrap_w) + PAD, height=kv_top + BOX_H + heading_h + PAD, title=title,
                  desc=subtitle, items=items)


def _middle(centre_y: float, role: str) -> float:
    """The baseline that centres a line of `role` text on `centre_y`."""
    return centre_y + (ASCENT - DESCENT) / 2 * STYLES[role].size
