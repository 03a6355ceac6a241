"""FlexAttention's blocks drawn as the FlexAttention blog draws them: each block of the grid outlined and classed
full (solid), partial (dashed) or empty (dotted), over a mask map (`map_outlines`) or a score grid
(`layout.block_overlay.BlocksOverlay`, with its legend beside the grid or under it).

Each outline is an SVG rect classed `attnviz-block-full`, `attnviz-block-partial` or `attnviz-block-empty`, with
`data-q` and `data-k` the block's query and key positions on the grid (1-based, inclusive, the padding left out). An
outline is inset a little from the block's edges, so two neighbours' outlines never lie on one another.
"""

from __future__ import annotations

from .items import Group, Rect

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable

    from ..engine.blocks import Blocks
    from .items import Item

__all__ = ["ROLES", "BLOCK_LEGEND", "map_outlines", "outlines", "legend_rows"]

#: Each class's shape role (its paint: render.painter; its class: attnviz-block-<class>).
ROLES = {kind: f"block-{kind}" for kind in ("full", "partial", "empty")}
#: The legend's entries (key, swatch role, words): what each class costs the kernel (engine.blocks.COSTS).
BLOCK_LEGEND = (("block-full", "block-full", "full block: no mask call"),
                ("block-partial", "block-partial", "partial block: masked per element"),
                ("block-empty", "block-empty", "empty block: skipped"))
_INSET = 1.5  # a map's outline inside its block's edges (at most a sixth of the block)


def outlines(blocks: Blocks, box: Callable[[tuple[int, int], tuple[int, int]], tuple[float, float, float, float]]
             ) -> Group:
    """Every block's outline, at `box(rows, keys)` (rows and keys 1-based, inclusive: where it is drawn)."""
    rects: list[Item] = []
    for qb, row in enumerate(blocks.kinds):
        for kb, kind in enumerate(row):
            (q0, q1), (k0, k1) = blocks.ranges(qb, kb)
            x, y, w, h = box((q0 + 1, q1 + 1), (k0 + 1, k1 + 1))
            rects.append(Rect(ROLES[kind], x, y, w, h, attrs=(("data-q", f"{q0 + 1}-{q1 + 1}"),
                                                                ("data-k", f"{k0 + 1}-{k1 + 1}"))))
    bq, bk = blocks.size
    return Group(("attnviz-blocks",), (("data-block", f"{bq}x{bk}"), ("data-sparsity", f"{float(blocks.sparsity):g}")),
                 tuple(rects))


def map_outlines(blocks: Blocks, map_x: float, top: float, cell: float) -> Group:
    """The outlines over a mask map whose top-left corner is (map_x, top), cells `cell` wide."""
    bq, bk = blocks.size
    inset = min(_INSET, cell * min(bq, bk) / 6)

    def box(rows: tuple[int, int], keys: tuple[int, int]) -> tuple[float, float, float, float]:
        x, y = map_x + (keys[0] - 1) * cell + inset, top + (rows[0] - 1) * cell + inset
        return x, y, (keys[1] - keys[0] + 1) * cell - 2 * inset, (rows[1] - rows[0] + 1) * cell - 2 * inset

    return outlines(blocks, box)


def legend_rows(blocks: Blocks) -> list[tuple[str, str, str]]:
    """The legend's entries (key, role, words): each class the grid has, with what it costs, then the sparsity."""
    words = {key: text for key, _, text in BLOCK_LEGEND}
    return [(role, role, f"{words[role]} ({blocks.count(kind)})") for kind, role in ROLES.items()
            if blocks.count(kind)] + [("sparsity", "", blocks.sparsity_words())]
