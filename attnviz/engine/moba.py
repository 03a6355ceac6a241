"""MoBA (Mixture of Block Attention, Lu et al. 2025) from Q and K, exactly: which key blocks each query reads.

The keys are cut into blocks of B (the last may be shorter). Each query i scores each block b by its gate
s_ib = q_i·mean(K_b), exact (Fractions). As MoBA's reference code (`moba_naive`) does it, the gate of the query's own
block is +∞ (always read, causal inside it), of a block wholly after it −∞ (never read), and `torch.topk` then takes
K blocks a row: the own block and the K−1 past blocks of highest gate. Ties are broken as that code breaks them: by
the order `torch.topk` leaves tied entries in on the CPU (engine.topk_order replays it), which attnviz says where a
tie decided a row. A query with fewer than K−1 past blocks reads them all. The token mask is the chosen blocks'
keys, causal (j <= i): the reference's `tril`.
"""

from __future__ import annotations

from fractions import Fraction

from .topk_order import topk_indices
from ..numbers.exact import InputError
from ..numbers.surds import sign
from ..records import dataclass

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["MobaSelection", "moba_selection", "parse_moba", "block_ranges", "is_small_whole"]

#: Gate entries as the reference writes them before its top-k: +∞ (own block), −∞ (a future block), else the score.
PLUS, MINUS = (1, Fraction(0)), (-1, Fraction(0))


@dataclass(frozen=True)
class MobaSelection:
    """MoBA's choice for every query (0-based inside, as the reference; the figure counts from its own base).

    `blocks`: each block's key range, (first, last) 0-based inclusive. `means`: mean(K_b), exact. `gates[i][b]`:
    q_i·mean(K_b), exact, for every pair (the figure marks which the reference overrode). `own[i]`: the block of
    query i. `chosen[i]`: the blocks query i reads (own and past only). `tied[i]`: True when a tie at the cut
    decided row i (then torch.topk's order chose). `kept[i][j]`: the token mask."""

    block: int
    top: int
    blocks: tuple[tuple[int, int], ...]
    means: tuple[tuple[Fraction, ...], ...]
    gates: tuple[tuple[Fraction, ...], ...]
    own: tuple[int, ...]
    chosen: tuple[frozenset[int], ...]
    tied: tuple[bool, ...]
    kept: tuple[tuple[bool, ...], ...]

    def status(self, i: int, b: int) -> str:
        """Query i's block b: "own", "future", "chosen" (a past block read) or "passed" (a past block not read)."""
        if b == self.own[i]:
            return "own"
        if b > self.own[i]:
            return "future"
        return "chosen" if b in self.chosen[i] else "passed"


def parse_moba(text: str) -> tuple[int, int]:
    """`4,2` -> (block 4, top 2): the text after `moba=`."""
    parts = [part.strip() for part in text.split(",")]
    if len(parts) != 2 or not all(map(is_small_whole, parts)):
        raise InputError("expected moba=B,K (B keys a block, K blocks a query counting its own), "
                         f"got moba={text!r:.40}", "sparse")
    block, top = int(parts[0]), int(parts[1])
    if block < 1 or top < 1:
        raise InputError(f"MoBA's block size and top K must be at least 1, got moba={block},{top}", "sparse")
    return block, top


def is_small_whole(text: str) -> bool:
    """Whether `text` is a whole number of at most 7 ASCII digits (a block size, a count): no larger one is read."""
    return text.isascii() and text.isdigit() and len(text) <= 7


def block_ranges(n: int, block: int) -> tuple[tuple[int, int], ...]:
    """Blocks of `block` keys over n keys, 0-based inclusive ranges; the last may be shorter."""
    return tuple((start, min(start + block, n) - 1) for start in range(0, n, block))


def _dot(a: Sequence[Fraction], b: Sequence[Fraction]) -> Fraction:
    return sum((x * y for x, y in zip(a, b)), Fraction(0))


def _greater(x: tuple[int, Fraction], y: tuple[int, Fraction]) -> bool:
    """x > y for gate entries (rank, value): +∞ and −∞ as ranks, finite values exactly."""
    return x[0] > y[0] or (x[0] == y[0] == 0 and sign(x[1] - y[1]) > 0)


def moba_selection(q: Sequence[Sequence[Fraction]], k: Sequence[Sequence[Fraction]], block: int,
                   top: int) -> MobaSelection:
    """MoBA's block choice for exact query and key vectors (self-attention: as many queries as keys)."""
    n = len(k)
    if len(q) != n:
        raise InputError(f"MoBA selects blocks of a sequence's own keys: give as many queries as keys "
                         f"(got {len(q)} and {n})", "sparse")
    blocks = block_ranges(n, block)
    means = tuple(tuple(sum((k[j][d] for j in range(lo, hi + 1)), Fraction(0)) / (hi - lo + 1)
                        for d in range(len(k[0]))) for lo, hi in blocks)
    gates = tuple(tuple(_dot(qi, mean) for mean in means) for qi in q)
    own = tuple(i // block for i in range(n))
    chosen, tied = [], []
    count = min(top, len(blocks))
    for i in range(n):
        row = [PLUS if b == own[i] else MINUS if b > own[i] else (0, gates[i][b]) for b in range(len(blocks))]
        picked = topk_indices(row, count, _greater)
        cut = min((row[b] for b in picked), key=lambda entry: (entry[0], entry[1]))
        # the reference's need_attend: at or above the cut, and among topk's indices (its gate_idx_mask)
        chosen.append(frozenset(b for b in picked if b <= own[i]))
        ties = [b for b in range(own[i]) if not _greater(row[b], cut) and not _greater(cut, row[b])]
        tied.append(cut[0] == 0 and len(ties) > sum(b in picked for b in ties))
    kept = tuple(tuple(j <= i and own_block(j, block) in chosen[i] for j in range(n)) for i in range(n))
    return MobaSelection(block, top, blocks, means, gates, own, tuple(chosen), tuple(tied), kept)


def own_block(j: int, block: int) -> int:
    """The block of key (or query) j, 0-based."""
    return j // block
