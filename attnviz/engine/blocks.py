"""FlexAttention's block mask, computed as torch's `create_block_mask` computes it (`--blocks B` or `--blocks BQ,BK`).

The grid is cut into blocks of BQ queries by BK keys, from the top-left corner; sizes that do not divide the grid
leave a last row or column of blocks that torch pads with masked cells (`_convert_mask_to_block_mask`). A block is
**full** when every one of its BQ·BK cells is kept (no mask call: the kernel skips `mask_mod`), **partial** when
some are (masked cell by cell), and **empty** when none is (skipped). So a padded block at a ragged edge is never
full. Per query block, `kv_num_blocks` counts its partial blocks and `kv_indices` lists their key-block indices
first, ascending, then the other key blocks ascending (torch's stable argsort); `full_kv_num_blocks` and
`full_kv_indices` do the same for full blocks. `sparsity` is `BlockMask.sparsity()`, exact: 100·(1 − (partial +
full)·BQ·BK/(n_q·n_k)), which counts a padded block whole (below 0 when padding outweighs the empty blocks).

The counts come from each row's runs of kept keys, so a 1,024-token map is a few ranges a row, not a million cells.
"""

from __future__ import annotations

from fractions import Fraction

from ..numbers.exact import InputError
from ..records import dataclass

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable

    from .runs import Runs

__all__ = ["CLASSES", "COSTS", "MAX_BLOCKS", "Blocks", "parse_blocks", "block_classes", "percent_text"]

#: A block's classes, in the order legends and counts list them.
CLASSES = ("full", "partial", "empty")
#: What each class costs the kernel, as the legend says it.
COSTS = {"full": "no mask call", "partial": "masked per element", "empty": "skipped"}
MAX_BLOCKS = 64  # blocks a side drawn in one figure: a 640-unit map's block is then 10 units, its outline legible
_LIMIT = 10**6  # a block size beyond any grid is one block


def parse_blocks(value: object, where: str = "blocks") -> tuple[int, int]:
    """(BQ, BK) from `4`, `"4"`, `"4,2"`, `(4, 2)` or `[4, 2]`: query rows by key columns a block.

    >>> parse_blocks(4), parse_blocks("4,2"), parse_blocks([3, 5])
    ((4, 4), (4, 2), (3, 5))
    """
    parts = [p.strip() for p in value.split(",")] if isinstance(value, str) else \
        list(value) if isinstance(value, (list, tuple)) else [value]
    sizes = [int(p) if isinstance(p, str) and p.isascii() and p.isdecimal() and len(p) <= 7 else p for p in parts]
    sizes = sizes * 2 if len(sizes) == 1 else sizes
    if len(sizes) != 2 or not all(type(p) is int for p in sizes):
        raise InputError(f"expected a block size B (e.g. 4) or BQ,BK (query rows, key columns, e.g. 4,2), got "
                         f"{value!r:.40}", where)
    bq, bk = (p for p in sizes if isinstance(p, int))
    if not (1 <= bq <= _LIMIT and 1 <= bk <= _LIMIT):
        raise InputError(f"block sizes run from 1 to {_LIMIT}, got {bq},{bk}", where)
    return bq, bk


@dataclass(frozen=True)
class Blocks:
    """The block mask of one grid: `kinds[qb][kb]` is "full", "partial" or "empty" (0-based block indices)."""

    size: tuple[int, int]  # (BQ, BK)
    shape: tuple[int, int]  # (n_q, n_k): the grid, before padding
    kinds: tuple[tuple[str, ...], ...]

    @property
    def grid(self) -> tuple[int, int]:
        """(query blocks, key blocks)."""
        return len(self.kinds), len(self.kinds[0]) if self.kinds else 0

    def count(self, kind: str) -> int:
        """How many blocks are of this class."""
        return sum(row.count(kind) for row in self.kinds)

    def _num(self, kind: str) -> tuple[int, ...]:
        return tuple(row.count(kind) for row in self.kinds)

    def _indices(self, kind: str) -> tuple[tuple[int, ...], ...]:
        """Per query block, the key blocks of this class ascending, then the others ascending (torch's stable
        descending argsort of the 0/1 row)."""
        return tuple(tuple([kb for kb, k in enumerate(row) if k == kind] + [kb for kb, k in enumerate(row)
                                                                            if k != kind]) for row in self.kinds)

    @property
    def kv_num_blocks(self) -> tuple[int, ...]:
        """Per query block, its partial blocks (`BlockMask.kv_num_blocks[0, 0]`)."""
        return self._num("partial")

    @property
    def kv_indices(self) -> tuple[tuple[int, ...], ...]:
        """`BlockMask.kv_indices[0, 0]`: partial key blocks first, ascending."""
        return self._indices("partial")

    @property
    def full_kv_num_blocks(self) -> tuple[int, ...]:
        """Per query block, its full blocks (`BlockMask.full_kv_num_blocks[0, 0]`)."""
        return self._num("full")

    @property
    def full_kv_indices(self) -> tuple[tuple[int, ...], ...]:
        """`BlockMask.full_kv_indices[0, 0]`: full key blocks first, ascending."""
        return self._indices("full")

    @property
    def sparsity(self) -> Fraction:
        """`BlockMask.sparsity()`, exact: the percentage of the grid's cells in blocks not computed."""
        computed = self.count("full") + self.count("partial")
        n_q, n_k = self.shape
        return 100 * (1 - Fraction(computed * self.size[0] * self.size[1], n_q * n_k))

    def ranges(self, qb: int, kb: int) -> tuple[tuple[int, int], tuple[int, int]]:
        """Block (qb, kb)'s query and key positions on the grid, 0-based and inclusive (the padding left out)."""
        (bq, bk), (n_q, n_k) = self.size, self.shape
        return (qb * bq, min(n_q, qb * bq + bq) - 1), (kb * bk, min(n_k, kb * bk + bk) - 1)

    def sparsity_words(self) -> str:
        """"sparsity 37.5%", as the legend says it."""
        return f"sparsity {percent_text(self.sparsity)}"

    def size_words(self) -> str:
        """"blocks of 4", or "blocks of 4×2" (query rows × keys)."""
        bq, bk = self.size
        return f"blocks of {bq}" if bq == bk else f"blocks of {bq}×{bk}"

    def summary(self) -> str:
        """What was computed, in words: "blocks of 4: 6 full, 4 partial, 6 empty, sparsity 37.5%"."""
        counts = ", ".join(f"{self.count(kind)} {kind}" for kind in CLASSES)
        return f"{self.size_words()}: {counts}, {self.sparsity_words()}"


def percent_text(value: Fraction) -> str:
    """A percentage as text: exact when it has at most 6 decimals, else rounded to 2 and marked ≈.

    >>> percent_text(Fraction(75, 2)), percent_text(Fraction(100, 3)), percent_text(Fraction(-92))
    ('37.5%', '≈33.33%', '−92%')
    """
    sign = "−" if value < 0 else ""
    value = abs(value)
    for places in range(7):
        scaled = value * 10**places
        if scaled.denominator == 1:
            whole, part = divmod(int(scaled), 10**places)
            return f"{sign}{whole}" + (f".{part:0{places}d}" if places else "") + "%"
    hundredths = round(value * 100)
    return f"≈{sign}{hundredths // 100}.{hundredths % 100:02d}%"


def block_classes(runs: Callable[[int], Runs], shape: tuple[int, int], size: tuple[int, int],
                  where: str = "blocks") -> Blocks:
    """The block mask of a grid whose row i keeps the keys `runs(i)` (half-open, 0-based), cut into `size` blocks.

    >>> causal = block_classes(lambda i: ((0, i + 1),), (16, 16), (4, 4))
    >>> causal.summary()
    'blocks of 4: 6 full, 4 partial, 6 empty, sparsity 37.5%'
    >>> causal.kv_num_blocks, causal.full_kv_num_blocks
    ((1, 1, 1, 1), (0, 1, 2, 3))
    """
    (n_q, n_k), (bq, bk) = shape, size
    rows, cols = -(-n_q // bq), -(-n_k // bk)
    if max(rows, cols) > MAX_BLOCKS:
        raise InputError(f"{rows} × {cols} blocks of {bq}×{bk}; a figure draws at most {MAX_BLOCKS} a side: give "
                         "bigger blocks", where)
    kept = [[0] * cols for _ in range(rows)]
    for i in range(n_q):
        counts = kept[i // bq]
        for start, stop in runs(i):
            for kb in range(start // bk, (stop - 1) // bk + 1):
                counts[kb] += min(stop, kb * bk + bk) - max(start, kb * bk)
    whole = bq * bk  # padded cells count as masked, as torch pads the mask with False
    kinds = tuple(tuple("full" if c == whole else "partial" if c else "empty" for c in row) for row in kept)
    return Blocks((bq, bk), (n_q, n_k), kinds)
