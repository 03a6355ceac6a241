"""A decode step's KV cache drawn as a strip of slots beside the grid, and its evicted and future keys marked in the
grid, as Mistral's rolling-buffer figure draws them.

`g.attnviz-cache[data-t]` holds one `rect.attnviz-slot[data-slot][data-k]` a slot (its label the key it holds); in the
grid, `rect.attnviz-evicted[data-k]` darkens the current row's cells of keys the cache no longer holds, and
`rect.attnviz-future[data-k]` blanks the columns of keys not generated yet. A legend below the strip names both. The
overlay reads only `Layout.grid`. Where the side has no room (a paper column) the strip goes `below` the grid, its slots
wrapped to the region's width; in a slide or column frame (`script` set) its rule's notation is typeset.
"""

from __future__ import annotations

from ..records import dataclass, replace
from ..words.user_text import user_spans
from .figure import CELL_GAP, CELL_H, PAD
from .flash_state import BELOW_GAP, STATE_GAP, Below, cell_box, grid_bottom
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
    """One slot of the cache: its 0-based number, the 1-based key it holds (None: empty), whether this step wrote it."""

    slot: int
    k: int | None
    new: bool = False
    label: str = ""  # the key's label in the figure ("K3", or its token); "empty" when k is None
    shown: str = ""  # the label as drawn, where a frame shortens a long token (`words.short_labels`)


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
    # the most slots and the widest slot of any step of the walk: under the grid, every step wraps as the fullest does
    most: tuple[int, float] = (0, 0)
    script: float = 0  # in a slide or column frame, the size of the typeset notation's scripts (0: not typeset)
    below: Below | None = None  # the region under the grid to draw the strip in (None: beside the grid)
    in_text: bool = False  # only the grid's marks drawn, the cache said in the step's text (a deck's last fallback)

    def sentence(self) -> str:
        """The cache in words: `KV cache after token 5, 3 slots: slot 0 K4, slot 1 K5, slot 2 K3; evicted K1, K2`."""
        slots = ", ".join(f"slot {slot.slot} {slot.label or f'K{slot.k}' if slot.k else 'empty'}"
                          for slot in self.slots)
        evicted = f"; evicted: {', '.join(f'K{k}' for k in self.evicted)}" if self.evicted else ""
        return f"{self.heading}, {self.rule}: {slots}{evicted}"

    def state_text(self) -> str:
        """The cache as the step's text says it when the figure leaves the strip out: its slots, what the grid's
        marks are (`KV cache after token 5, 3 slots: …. In the grid: evicted K1, K2 darkened; …`)."""
        marks = [f"{words} ({', '.join(f'K{k}' for k in keys)})" for (_, words), keys
                 in zip(LEGEND_WORDS, (self.evicted, self.future)) if keys]
        return self.sentence() + "." + (f" Marked in the grid: {'; '.join(marks)}." if marks else "")

    def slot_width(self) -> float:
        """A slot's width: room for the longest label (a token, or K12); under the grid, the walk's widest."""
        widest = self.most[1] if self.below is not None else 0
        return max([SLOT_W, widest] + [measure(slot.shown or slot.label or "empty", STYLES["slot"]) + 12
                                       for slot in self.slots])

    def placed(self, script: float, below: Below | None) -> CacheStrip:
        """This strip typeset with scripts at `script` and drawn `below` the grid (None: beside it)."""
        return replace(self, script=script, below=below)

    def room(self) -> float:
        """The room it takes: right of the grid (beside), or under it (`below`)."""
        if self.in_text:
            return 0.0
        if self.below is None:
            return max(self.extent()[0], self.reserve[0]) + STATE_GAP
        return (ASCENT + DESCENT) * STYLES["side-heading"].size + 8 + self.extent()[1] + BELOW_GAP / 2

    def room_width(self) -> float:
        """The strip's width with its slots in one row (`PER_ROW` at most)."""
        if self.in_text:
            return 0.0
        return max(replace(self, below=None).extent()[0], self.reserve[0])

    def placement(self) -> str:
        """Where the strip is drawn: beside the grid, or under it so many slots a row."""
        if self.in_text:
            return "the evicted and future keys marked in the grid, the cache's slots in the step's text"
        if self.below is None:
            return "beside the grid"
        per_row = self._per_row()
        return "under the grid" + (f", {per_row} slots a row" if per_row < max(len(self.slots), self.most[0]) else "")

    def _per_row(self) -> int:
        """Slots a row: `PER_ROW` beside the grid; under it, as many as the region holds."""
        if self.below is None:
            return PER_ROW
        return max(1, min(PER_ROW, int((self.below.width + SLOT_GAP) // (self.slot_width() + SLOT_GAP))))

    def extent(self) -> tuple[float, float]:
        """(width, height) of the strip, its rule and its legend, from the grid's top-right corner."""
        per_row = self._per_row()
        n = max(len(self.slots), self.most[0]) if self.below is not None else len(self.slots)
        columns, slot_w = min(per_row, n), self.slot_width()
        words = [measure(self.heading, STYLES["side-heading"]), measure(self.rule, STYLES["slot-note"])]
        words += [16 + 6 + measure(text, STYLES["legend"]) for _, text in LEGEND_WORDS]
        width = max([columns * (slot_w + SLOT_GAP) - SLOT_GAP] + words)
        height = -(-n // per_row) * (SLOT_H + 22) + STYLES["slot-note"].size + 14 + len(LEGEND_WORDS) * 24
        return width, height

    def apply(self, layout: Layout) -> Layout:
        """`layout` with the evicted and future keys marked in its grid and the strip beside it (or under it)."""
        if layout.grid is None:
            return layout
        x_cells, y_cells, cell_w = grid = layout.grid
        n_k = max([self.t, *self.future, *self.evicted])
        items: list[Item] = list(layout.items)
        marks: list[Item] = []
        cells = self.below.cells if self.below is not None else (CELL_H, CELL_GAP)
        for role, rows, keys in (("evicted", (self.t, self.t), self.evicted), ("future", (1, self.t), self.future)):
            for k in keys:
                x, y, w, h = cell_box(grid, rows, (k, k), cells)
                marks.append(Rect(role, x + 2, y + 2, w - 4, h - 4, rx=6, attrs=(("data-k", str(k)),)))
        if marks:
            items.append(Group(("attnviz-cache-marks",), (), tuple(marks)))
        drawn = len(items)  # (the marks lie within the grid: only the strip widens the figure)
        if self.in_text:
            return replace(layout, items=items)
        if self.below is None:
            x0, heading_y, slots_top = x_cells + n_k * (cell_w + CELL_GAP) - CELL_GAP + STATE_GAP, y_cells - 10, y_cells
        else:  # (a decode step's grid is square: n_k rows)
            x0, top = self.below.x, grid_bottom(grid, n_k, cells) + BELOW_GAP
            heading_y = top + ASCENT * STYLES["side-heading"].size
            slots_top = top + (ASCENT + DESCENT) * STYLES["side-heading"].size + 8
        math = bool(self.script)
        items.append(Text("side-heading", x0, heading_y, (self.heading,), math=math, script=self.script))
        slot_style = STYLES["slot"]
        children: list[Item] = []
        pitch = SLOT_H + 22  # a slot and its number under it
        slot_w, per_row = self.slot_width(), self._per_row()
        for n, slot in enumerate(self.slots):
            x, top = x0 + (n % per_row) * (slot_w + SLOT_GAP), slots_top + (n // per_row) * pitch
            role = "slot-empty" if slot.k is None else "slot-new" if slot.new else "slot"
            children.append(Rect(role, x, top, slot_w, SLOT_H, rx=4, attrs=(
                ("class", f"attnviz-slot attnviz-{role}"), ("data-slot", str(slot.slot)),
                ("data-k", "" if slot.k is None else str(slot.k)))))
            label = "empty" if slot.k is None else slot.shown or slot.label or f"K{slot.k}"
            baseline = top + SLOT_H / 2 + (ASCENT - DESCENT) / 2 * slot_style.size
            children.append(Text("slot", x + slot_w / 2, baseline, (label,), anchor="middle",
                                 # a token is the user's text (a shortened one's "…" is attnviz's)
                                 user=user_spans(slot.shown) if slot.shown else ((0, len(label)),) if slot.label
                                 else ()))
            children.append(Text("slot-note", x + slot_w / 2, top + SLOT_H + 16, (str(slot.slot),), anchor="middle"))
        n_rows = -(-max(len(self.slots), self.most[0] if self.below is not None else 0) // per_row)
        y = slots_top + n_rows * pitch + STYLES["slot-note"].size + 4
        children.append(Text("slot-note", x0, y, (self.rule,), math=math, script=self.script))
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
        reserve = self.reserve if self.below is None else (0, 0)  # (under the grid, `most` keeps steps alike)
        width, height = (max(a, b) for a, b in zip(self.extent(), reserve))
        right = max([x0 + width] + [right_edge(item) for item in items[drawn:]])
        height = max(layout.height, slots_top + height + PAD, y + PAD)
        return replace(layout, items=items, width=max(layout.width, right + PAD), height=height)
