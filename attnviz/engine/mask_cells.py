"""A mask map's cells: which cells a bound mask keeps on its grid, without any scores (`fig.attention` of a
mask-view figure)."""

from __future__ import annotations

from functools import cached_property

from ..records import dataclass

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from .bound_mask import BoundMask
    from .runs import Runs

__all__ = ["MaskCells"]


@dataclass(frozen=True)
class MaskCells:
    """The kept cells of `mask` on an n_q×n_k grid, as a mask map draws them. Positions are 0-based.

    >>> from attnviz.engine.masks import resolve
    >>> cells = MaskCells(resolve("window=2", 3, 3), 3, 3)
    >>> cells.kept[2], cells.runs(2)
    ((False, True, True), ((1, 3),))
    """

    mask: BoundMask
    n_q: int
    n_k: int

    @property
    def shape(self) -> tuple[int, int]:
        """(queries, keys)."""
        return self.n_q, self.n_k

    def runs(self, i: int) -> Runs:
        """Row i's kept keys as half-open (start, stop) ranges, in order."""
        return self.mask.runs(i, self.n_k)

    @cached_property
    def kept(self) -> tuple[tuple[bool, ...], ...]:
        """kept[i][j]: True when the mask keeps the cell (built from the rows' runs once, on first use)."""
        rows = []
        for i in range(self.n_q):
            row = [False] * self.n_k
            for start, stop in self.runs(i):
                row[start:stop] = [True] * (stop - start)
            rows.append(tuple(row))
        return tuple(rows)

    def __repr__(self) -> str:
        return f"<MaskCells {self.n_q}x{self.n_k} {self.mask.name}>"
