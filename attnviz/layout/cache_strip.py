"""A decode step's KV cache drawn as a strip of slots beside the grid, and its evicted and future keys
marked in the grid, as Mistral's rolling-buffer figure draws them.

`g.attnviz-cache[data-t]` holds one `rect.attnviz-slot[data-slot][data-k]` a slot (its label the key
it holds); in the grid, `rect.attnviz-evicted[data-k]` darkens the current row's cells of keys the
cache no longer holds, and `rect.attnviz-future[data-k]` blanks the columns of keys not generated
yet. A legend below the strip names both. The overlay reads only `Layout.grid`.
"""

from __future__ import annotations

from ..records import dataclass, replace
from .figure import CELL_GAP, PAD
from .flash_state import STATE_GAP, cell_box
from .items import STYLES, Group, Rect, Text, measure, right_edge
from .metrics import ASCENT, DESCENT

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from .items import Item, Layout

__all__ = ["Slot", "CacheStrip", "LEGEND_WORDS"]

SLOT_W, SLOT_H, SLOT_GAP = 52, 34, 6
PER_ROW = 8  # slots a row: a long growing cache wraps
#: The legend's entries: overlay role -> words.
LEGEND_WORDS = (("evicted", "evicted from the KV cache"), ("future", "not generated yet"))


@dataclass(frozen=True)
class Slot:
    """One slot of the cache: its 0-based number, the 1-based key it holds (None: empty), whether this
    step wrote it."""

    slot: int
    k: int | None
    new: bool = False
    label: str = ""  # the key's label in the figure ("K3", or its token); "empty" when k is None


@dataclass(frozen=True)
class CacheStrip:
    """The cache after token `t` is written, and the grid's evicted and future keys at that time."""

    t: int
    heading: str  # "KV cache after token 5"
    rule: str  # under the slots: "slot = (k−1) mod 3"
    slots: tuple[Slot, ...]
    evicted: tuple[int, ...]  # keys no longer cached, marked in row t
    future: tuple[int, ...]  # keys after t: not generated yet
    # (width, height) the strip takes at least: every step of a walk the same size (`extent`)
    reserve: tuple[float, float] = (0, 0)

    def sentence(self) -> str:
        """The cache in words: `KV cache after token 5, 3 slots: slot 0 K4, slot 1 K5, slot 2 K3; evicted K1, K2`."""
        slots = ", ".join(f"slot {slot.slot} {slot.label or f'K{slot.k}' if slot.k else 'empty'}"
                          for slot in self.slots)
        evicted = f"; evicted: {', '.join(f'K{k}' for k in self.evicted)}" if self.evicted else ""
        return f"{self.heading}, {self.rule}: {slots}{evicted}"

    def slot_width(self) -> float:
        """A slot's width: room for the longest label (a token, or K12)."""
        return max([SLOT_W] + [measure(slot.label or "empty", STYLES["slot"]) + 12 for slot in self.slots])

    def extent(self) -> tuple[float, float]:
        """(width, height) of the strip, its rule and its legend, from the grid's top-right corner."""
        columns = min(PER_ROW, len(self.slots))
        slot_w = self.slot_width()
        words = [measure(self.heading, STYLES["side-heading"]), measure(self.rule, STYLES["slot-note"])]
        words += [16 + 6 + measure(text, STYLES["legend"]) for _, text in LEGEND_WORDS]
        width = max([columns * (slot_w + SLOT_GAP) - SLOT_GAP] + words)
        height = -(-len(self.slots) // PER_ROW) * (SLOT_H + 22) + STYLES["slot-note"].size + 14 + len(LEGEND_WORDS) * 24
        return width, height

    def apply(self, layout: Layout) -> Layout:
        """`layout` with the evicted and future keys marked in its grid and the strip beside it."""
        if layout.grid is None:
            return layout
        grid = layout.grid
        x_cells, y_cells, cell_w = grid
        n_k = max([self.t, *self.future, *self.evicted])
        items: list[Item] = list(layout.items)
        marks: list[Item] = []
        for k in self.evicted:
            x, y, w, h = cell_box(grid, (self.t, self.t), (k, k))
            marks.append(Rect("evicted", x + 2, y + 2, w - 4, h - 4, rx=6, attrs=(("data-k", str(k)),)))
        for k in self.future:
            x, y, w, h = cell_box(grid, (1, self.t), (k, k))
            marks.append(Rect("future", x + 2, y + 2, w - 4, h - 4, rx=6, attrs=(("data-k", str(k)),)))
        if marks:
            items.append(Group(("attnviz-cache-marks",), (), tuple(marks)))
        x0 = x_cells + n_k * (cell_w + CELL_GAP) - CELL_GAP + STATE_GAP
        items.append(Text("side-heading", x0, y_cells - 10, (self.heading,)))
        slot_style = STYLES["slot"]
        children: list[Item] = []
        pitch = SLOT_H + 22  # a slot and its number under it
        slot_w = self.slot_width()
        for n, slot in enumerate(self.slots):
            x = x0 + (n % PER_ROW) * (slot_w + SLOT_GAP)
            top = y_cells + (n // PER_ROW) * pitch
            role = "slot-empty" if slot.k is None else "slot-new" if slot.new else "slot"
            children.append(Rect(role, x, top, slot_w, SLOT_H, rx=4, attrs=(
                ("class", f"attnviz-slot attnviz-{role}"), ("data-slot", str(slot.slot)),
                ("data-k", "" if slot.k is None else str(slot.k)))))
            label = "empty" if slot.k is None else slot.label or f"K{slot.k}"
            baseline = top + SLOT_H / 2 + (ASCENT - DESCENT) / 2 * slot_style.size
            children.append(Text("slot", x + slot_w / 2, baseline, (label,), anchor="middle",
                                 user=((0, len(label)),) if slot.label else ()))  # a token is the user's text
            children.append(Text("slot-note", x + slot_w / 2, top + SLOT_H + 16, (str(slot.slot),), anchor="middle"))
        y = y_cells + -(-len(self.slots) // PER_ROW) * pitch + STYLES["slot-note"].size + 4
        children.append(Text("slot-note", x0, y, (self.rule,)))
        items.append(Group(("attnviz-cache",), (("data-t", str(self.t)),), tuple(children)))
        y += 10
        entries: list[Item] = []
        for role, words in LEGEND_WORDS:
            swatch = 16
            entries.append(Group(("attnviz-legend-entry",), (("data-legend", role),), (
                Rect(role, x0, y, swatch, swatch, rx=3, attrs=(("class", f"attnviz-swatch attnviz-{role}"),)),
                Text("legend", x0 + swatch + 6, y + swatch / 2 + (ASCENT - DESCENT) / 2 * STYLES["legend"].size,
                     (words,)))))
            y += swatch + 8
        items.append(Group(("attnviz-legend",), (), tuple(entries)))
        width, height = (max(a, b) for a, b in zip(self.extent(), self.reserve))
        right = max([x0 + width] + [right_edge(item) for item in items[len(layout.items):]])
        height = max(layout.height, y_cells + height + PAD, y + PAD)
        return replace(layout, items=items, width=max(layout.width, right + PAD), height=height)

