"""A token tree drawn beside its mask map (`--mask tree=...`), as the speculative-decoding papers draw it: the prompt
a box at the left, each tree token a box labelled as the grid labels its key, one column a depth, an elbow from
each token to its parent. Leaves take one row each, in the tree's order; a parent sits level with its children's
middle. Measured first (`TreeText.size`), then placed (`tree_items`), so a frame can ask whether it fits.

In the SVG: `g.attnviz-tree`, each token `g.attnviz-tree-node[data-k]` (its key position, 1-based) and each edge
`g.attnviz-tree-edge[data-k][data-parent]`.
"""

from __future__ import annotations

from ..records import dataclass
from ..words.user_text import user_spans
from .items import STYLES, Group, Rect, Text, measure, text_height
from .metrics import ASCENT, DESCENT

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from .items import Item

__all__ = ["TreeText", "tree_items"]

_PAD_X, _ROW_GAP, _COL_GAP, _LINK = 6, 8, 18, 1.5


@dataclass(frozen=True)
class TreeText:
    """A token tree's words: the prompt's label, each tree token's parent (-1: the prompt) and label."""

    prompt: str  # "prompt (3)", or "" when the tree hangs from nothing before it
    prompt_size: int  # the prompt's tokens: a tree token t is key position prompt_size + t
    parents: tuple[int, ...]
    labels: tuple[str, ...]

    def depths(self) -> tuple[int, ...]:
        """Each token's column: 1 for a token attached to the prompt."""
        out: list[int] = []
        for parent in self.parents:
            out.append(1 if parent < 0 else out[parent] + 1)
        return tuple(out)

    def _column_w(self) -> float:
        return max(measure(label, STYLES["tick"]) for label in (self.prompt, *self.labels)) + 2 * _PAD_X

    def _node_h(self) -> float:
        return text_height("tick") + 8

    def size(self) -> tuple[float, float]:
        """(width, height) the drawing takes."""
        leaves = sum(1 for t in range(len(self.parents)) if t not in self.parents)
        columns = max(self.depths()) + 1
        return columns * (self._column_w() + _COL_GAP) - _COL_GAP, leaves * (self._node_h() + _ROW_GAP) - _ROW_GAP

    def rows(self) -> tuple[float, ...]:
        """Each token's row (0-based, fractional for a parent): leaves in order, parents at their children's middle."""
        children: list[list[int]] = [[] for _ in self.parents]
        for t, parent in enumerate(self.parents):
            if parent >= 0:
                children[parent].append(t)
        rows: dict[int, float] = {}
        next_leaf = 0.0

        def place(t: int) -> float:
            nonlocal next_leaf
            if not children[t]:
                rows[t], next_leaf = next_leaf, next_leaf + 1
            else:
                kids = [place(c) for c in children[t]]
                rows[t] = (kids[0] + kids[-1]) / 2
            return rows[t]

        for t, parent in enumerate(self.parents):
            if parent < 0:
                place(t)
        return tuple(rows[t] for t in range(len(self.parents)))


def tree_items(tree: TreeText, x: float, y: float) -> Group:
    """The tree placed with its top-left corner at (x, y)."""
    col_w, node_h, style = tree._column_w(), tree._node_h(), STYLES["tick"]
    rows, depths = tree.rows(), tree.depths()
    _, height = tree.size()

    def centre(depth: int, row: float) -> tuple[float, float]:
        return x + depth * (col_w + _COL_GAP), y + row * (node_h + _ROW_GAP) + node_h / 2

    def node(depth: int, row: float, label: str, attrs: tuple[tuple[str, str], ...]) -> Group:
        left, mid = centre(depth, row)
        baseline = mid + (ASCENT - DESCENT) / 2 * style.size
        return Group(("attnviz-tree-node",), attrs, (Rect("slot", left, mid - node_h / 2, col_w, node_h, rx=4),
                                                     Text("tick", left + col_w / 2, baseline, (label,),
                                                          anchor="middle", user=user_spans(label))))

    prompt_row = (height - node_h) / 2 / (node_h + _ROW_GAP)  # level with the tree's middle
    items: list[Item] = []
    for t, parent in enumerate(tree.parents):  # edges first, so the boxes lie over their ends
        x0, y0 = centre(0 if parent < 0 else depths[parent], prompt_row if parent < 0 else rows[parent])
        x1, y1 = centre(depths[t], rows[t])
        start, elbow = x0 + col_w, x1 - _COL_GAP / 2
        bars = (Rect("head-link", start, y0 - _LINK / 2, elbow - start + _LINK / 2, _LINK),
                Rect("head-link", elbow - _LINK / 2, min(y0, y1) - _LINK / 2, _LINK, abs(y1 - y0) + _LINK),
                Rect("head-link", elbow - _LINK / 2, y1 - _LINK / 2, x1 - elbow + _LINK / 2, _LINK))
        position = str(tree.prompt_size + t + 1)
        items.append(Group(("attnviz-tree-edge",), (("data-k", position), ("data-parent", str(parent))), bars))
    items.append(node(0, prompt_row, tree.prompt, (("data-k", f"1-{tree.prompt_size}"),)))
    items += [node(depths[t], rows[t], label, (("data-k", str(tree.prompt_size + t + 1)),))
              for t, label in enumerate(tree.labels)]
    return Group(("attnviz-tree",), (("data-tokens", str(len(tree.parents))),), tuple(items))
