"""FlashAttention's tiled online softmax, exactly: the steps as data.

The grid is cut into Br×Bc tiles. FlashAttention-2 ("fa2") loops over query blocks outside and
key blocks inside; FlashAttention-1 ("fa1") over key blocks outside. Each row i keeps a running
maximum m_i and a running normaliser ℓ_i = Σ e^(s_ij − m_i) over the keys seen so far. When a
tile raises m_i, the old ℓ_i (and the output accumulator) is multiplied by e^(m_old − m_new),
which turns each old term e^(s − m_old) into e^(s − m_new): exponents add, nothing is rounded.
So ℓ_i is always a tuple of exact exponents, and at the end e^(s_ij − m_i)/ℓ_i is the one-shot
softmax e^(s_ij)/Σ_t e^(s_it), term by term.

A tile whose every cell is masked is skipped (no step), as FlashAttention's block masks do.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar, cast

from .attention import CAUSAL, attend, exact_vectors
from .limits import check_inputs, check_values
from ..numbers.exact import InputError
from ..numbers.surds import format_exact, sign

if TYPE_CHECKING:
    from .attention import Attention
    from ..typing import Exact, FlashOrder, MaskSpec, ScaleSpec, Vectors

__all__ = ["ORDERS", "MAX_TILES", "FlashStep", "Tile", "tiles", "flash_steps", "flash", "check_block",
           "exact_attention"]

Row = TypeVar("Row")
ORDERS = ("fa2", "fa1")
#: The most tiles one walk visits (skipped ones included); a 64-token grid in 1×1 tiles is 4,096.
MAX_TILES = 4_096


@dataclass(frozen=True)
class Tile:
    """One Br×Bc tile: its 1-based query rows and key columns, and whether every cell is masked."""

    rows: tuple[int, ...]
    keys: tuple[int, ...]
    skipped: bool


@dataclass(frozen=True)
class FlashStep:
    """The state after one (not skipped) tile. Every dict is keyed by 1-based query index and holds
    the rows of this tile that have seen at least one kept key so far (others are still at the
    start state m = −∞, ℓ = 0).

    `m[i]`: the running maximum, exact (a Fraction, or a Surd for scaled logits).
    `l[i]`: the exponents x of ℓ_i = Σ e^x, one per kept key seen so far (`seen[i]`), in key order.
    `rescale[i]`: m_old − m_new, the exponent of the factor applied to the old ℓ_i and output
    accumulator at this tile (0 when the maximum did not move); None at row i's first tile.
    `scores`: {(i, j): exact score (logit)} for the tile's kept cells; `masked`: its masked cells.
    `o[i]`: with value vectors, the accumulator Õ_i = Σ e^x·V_j as (x, j) pairs, like `l[i]`.
    """

    index: int  # 1-based, among the steps
    rows: tuple[int, ...]
    keys: tuple[int, ...]
    m: dict[int, Exact]
    l: dict[int, tuple[Exact, ...]]  # noqa: E741 - ℓ, the paper's name for the running normaliser
    rescale: dict[int, Exact | None]
    seen: dict[int, tuple[int, ...]]
    scores: dict[tuple[int, int], Exact]
    masked: tuple[tuple[int, int], ...]
    o: dict[int, tuple[tuple[Exact, int], ...]]
    # With a sink logit s (GPT-OSS's kernels): every row starts at m = s, ℓ = e^(s−s) = 1, and `sink[i]` is the
    # exponent s − m_i of the sink's term of ℓ_i after this tile; `start` is s (None: no sink, m = −∞, ℓ = 0).
    sink: dict[int, Exact] = field(default_factory=dict)
    start: Exact | None = None

    def __repr__(self) -> str:
        """`<FlashStep 3: queries 3..3 × keys 3..3; m3 = 2, ℓ3 = e^(-1)+e^(-1)+e^0, rescale e^(-1)>`: each row's
        state after the tile as the figure names it (no `Fraction(...)`)."""
        rows = []
        for i in self.rows:
            if i not in self.m:
                rows.append(f"m{i} = −∞, ℓ{i} = 0")
                continue
            ell = "+".join(_exp(x) for x in ((self.sink[i],) if i in self.sink else ()) + self.l[i])
            rescale = self.rescale[i]
            rows.append(f"m{i} = {format_exact(self.m[i])}, ℓ{i} = {ell}"
                        + ("" if rescale is None else f", rescale {_exp(rescale)}"))
        return (f"<FlashStep {self.index}: queries {self.rows[0]}..{self.rows[-1]} × keys {self.keys[0]}.."
                f"{self.keys[-1]}; {'; '.join(rows)}>")


def _exp(x: Exact) -> str:
    """`e^0`, `e^(-1)`: an exponential as the figure writes it."""
    text = format_exact(x)
    return f"e^{text}" if text.isdigit() else f"e^({text})"


def check_block(block: object, shape: tuple[int, int], where: str = "block") -> tuple[int, int]:
    """(Br, Bc) as two positive integers; refuses other shapes and more than MAX_TILES tiles."""
    if (not isinstance(block, (tuple, list)) or len(block) != 2
            or not all(isinstance(b, int) and not isinstance(b, bool) for b in block)):
        raise InputError(f"expected two block sizes (Br, Bc), e.g. (2, 2), got {block!r}", where)
    br, bc = block
    if br < 1 or bc < 1:
        raise InputError(f"block sizes must be at least 1, got Br={br}, Bc={bc}", where)
    n_q, n_k = shape
    count = -(-n_q // br) * -(-n_k // bc)
    if count > MAX_TILES:
        raise InputError(f"{count:,} tiles; the limit is {MAX_TILES:,}", where)
    return br, bc


def tiles(attention: Attention, block: tuple[int, int], order: FlashOrder = "fa2") -> list[Tile]:
    """Every tile in the loop order, skipped ones included."""
    if order not in ORDERS:
        raise InputError(f"expected fa2 (outer loop over query blocks) or fa1 (outer over key blocks), got {order!r}",
                         "order")
    br, bc = check_block(block, attention.shape)
    n_q, n_k = attention.shape
    row_blocks = [tuple(range(r + 1, min(r + br, n_q) + 1)) for r in range(0, n_q, br)]
    key_blocks = [tuple(range(c + 1, min(c + bc, n_k) + 1)) for c in range(0, n_k, bc)]
    pairs = ([(r, c) for r in row_blocks for c in key_blocks] if order == "fa2"
             else [(r, c) for c in key_blocks for r in row_blocks])
    kept = _whole(attention.kept)
    return [Tile(r, c, not any(kept[i - 1][j - 1] for i in r for j in c)) for r, c in pairs]


def _whole(rows: tuple[Row | None, ...]) -> tuple[Row, ...]:
    """Every row of the grid: the tiled softmax walks figures drawn whole (an elided one leaves rows out)."""
    whole = tuple(row for row in rows if row is not None)
    if len(whole) != len(rows):
        raise InputError("the tiled softmax needs every row: draw the figure without elision", "elide")
    return whole


def flash_steps(attention: Attention, block: tuple[int, int], order: FlashOrder = "fa2") -> tuple[FlashStep, ...]:
    """The steps of the tiled online softmax over an `engine.Attention`'s logits (exact: the plain softmax's, or
    with a sink logit that is a number, every row's state then starting at m = s, ℓ = 1)."""
    start = _sink_start(attention)
    logits = cast("tuple[tuple[Exact, ...], ...]",
                  _whole(attention.scores if attention.logits is None else attention.logits))
    kept = _whole(attention.kept)
    # i -> (m, seen keys): ℓ's exponents are s_ij − m for the seen keys (and s − m for a sink's term)
    state: dict[int, tuple[Exact | None, tuple[int, ...]]] = {}
    if start is not None:
        state = {i: (start, ()) for i in range(1, attention.shape[0] + 1)}
    steps: list[FlashStep] = []
    for tile in tiles(attention, block, order):
        if tile.skipped:
            continue
        m, l, rescale, seen, o, sink = {}, {}, {}, {}, {}, {}  # noqa: E741 - ℓ, as FlashStep.l
        scores = {(i, j): logits[i - 1][j - 1] for i in tile.rows for j in tile.keys if kept[i - 1][j - 1]}
        for i in tile.rows:
            new = [j for j in tile.keys if (i, j) in scores]
            if i not in state and not new:
                continue  # nothing kept yet: still m = −∞, ℓ = 0
            old_m, old_seen = state.get(i, (None, ()))
            new_m = old_m
            for j in new:
                if new_m is None or sign(scores[i, j] - new_m) > 0:
                    new_m = scores[i, j]
            assert new_m is not None  # row i has kept a key, in this tile or before
            keys = old_seen + tuple(new)
            state[i] = (new_m, keys)
            m[i], seen[i] = new_m, keys
            l[i] = tuple(logits[i - 1][j - 1] - new_m for j in keys)
            rescale[i] = None if old_m is None else old_m - new_m
            if start is not None:
                sink[i] = start - new_m
            if attention.values is not None:
                o[i] = tuple(zip(l[i], keys))
        masked = tuple((i, j) for i in tile.rows for j in tile.keys if (i, j) not in scores)
        steps.append(FlashStep(len(steps) + 1, tile.rows, tile.keys, m, l, rescale, seen, scores, masked, o, sink,
                               start))
    return tuple(steps)


def _sink_start(attention: Attention) -> Exact | None:
    """The sink logit s a row's state starts from (None: the plain softmax, from −∞); other forms refused."""
    if attention.named_bias:
        raise InputError("the tiled online softmax compares exact logits; a T5 bias without values is named (b[k]): "
                         "give its values", "flash")
    form = attention.form
    if form is None:
        return None
    if form.sigmoid is not None or form.softcap is not None or form.sink is None or form.sink.named:
        raise InputError("the tiled online softmax is drawn for the plain softmax of exact logits, or with a sink "
                         "logit that is a number", "flash")
    return cast("Exact", form.sink.value)


def flash(q: Vectors, k: Vectors, v: Vectors | None = None, block: tuple[int, int] = (2, 2),
          order: FlashOrder = "fa2", mask: MaskSpec = "causal", *, scale: ScaleSpec | None = None
          ) -> tuple[FlashStep, ...]:
    """FlashAttention's tiled online softmax for query vectors `q` and key vectors `k`, exactly.

    Returns the steps in loop order, one `FlashStep` per tile that keeps at least one cell (fully masked tiles are
    skipped). `block` = (Br, Bc), the tile's query rows and key columns (they need not divide the number of tokens);
    `order` "fa2" (outer loop over query blocks) or "fa1" (outer loop over key blocks); `mask` as `attnviz.figure` takes
    it ("causal", "none", "window=3", ...); `scale` "sqrt" or an exact factor for the logits; `v`, value vectors, adds
    the output accumulator `o`. Every index is 1-based, as in the figure.

    >>> steps = flash([[1, 0], [0, 1], [1, 1]], [[1, 0], [0, 1], [1, 1]], block=(2, 2))
    >>> [(s.rows, s.keys) for s in steps]
    [((1, 2), (1, 2)), ((3,), (1, 2)), ((3,), (3,))]
    >>> steps[2].m[3], steps[2].l[3], steps[2].rescale[3]
    (Fraction(2, 1), (Fraction(-1, 1), Fraction(-1, 1), Fraction(0, 1)), Fraction(-1, 1))
    """
    return flash_steps(_attention(q, k, v, mask, scale), block, order)


def _attention(q: Vectors, k: Vectors, v: Vectors | None, mask: MaskSpec, scale: ScaleSpec | None) -> Attention:
    """The exact attention `flash` walks: the vectors, mask and scale read as `attnviz.figure` reads
    them for a figure drawn whole (same limits, same messages), from the engine alone."""
    if q is None or k is None:
        missing = "q" if q is None else "k"
        raise InputError(f"missing: {missing} (give both q and k vectors)", missing)
    q, k = exact_vectors(q, "q"), exact_vectors(k, "k")
    v = None if v is None else exact_vectors(v, "v")
    check_inputs(q, k, v)  # from the digits alone, before a score is summed
    n_q, n_k = len(q), len(k)
    bound = CAUSAL
    if not ((mask is CAUSAL or (isinstance(mask, str) and mask == "causal")) and n_q == n_k):
        # Imported for other masks only, as `figure()` does: the causal default needs no parsing.
        from .masks import resolve

        bound = resolve(mask, n_q, n_k)
    scale_ = None
    if scale is not None:
        from .logits import resolve_scale  # only a scaled walk reads a scale

        scale_ = resolve_scale(scale, len(q[0]))
    attention = attend(q, k, bound, scale=scale_, v=v)
    check_values(attention)
    return attention


#: The exact attention a walk of vectors reads (engine.split_kv reads them the same way).
exact_attention = _attention

setattr(flash, "FlashStep", FlashStep)  # noqa: B010 - `attnviz.flash.FlashStep`, the path documented before 0.2
