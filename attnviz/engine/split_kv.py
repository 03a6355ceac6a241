"""Flash-Decoding (split-KV attention), exactly: the keys cut into chunks of C, each chunk's softmax state computed
on its own (side by side, in parallel), then one combine step.

Row i's chunk c keeps its own maximum m_c = max s_ij over its kept keys, its normaliser ℓ_c = Σ e^(s_ij − m_c) and
its partial output O_c = Σ e^(s_ij − m_c)·V_j / ℓ_c. The combine step takes m = max_c m_c, rescales each chunk by
e^(m_c − m): ℓ = Σ_c e^(m_c − m)·ℓ_c and O = Σ_c e^(m_c − m)·ℓ_c·O_c / ℓ. Exponents add, so ℓ's terms are
e^((m_c − m) + (s_ij − m_c)) = e^(s_ij − m): the one-shot softmax's, term by term, and the sequential FlashAttention
walk's final state (engine.tiled_softmax). Nothing is rounded; exponents are exact (Fractions, or surds when scaled).
A chunk where a row keeps no key contributes nothing to it (m_c = −∞, ℓ_c = 0), as the kernels' log-sum-exp of an
empty split is −∞.
"""

from __future__ import annotations

from .attention import CAUSAL
from ..numbers.exact import InputError
from ..numbers.surds import sign
from ..records import dataclass

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import cast

    from .attention import Attention
    from ..typing import Exact, MaskSpec, ScaleSpec, Vectors

__all__ = ["MAX_CHUNKS", "ChunkState", "Combined", "SplitKV", "check_chunk", "split_kv_states", "split_kv"]

#: The most chunks one walk draws (a strip each).
MAX_CHUNKS = 8


@dataclass(frozen=True)
class ChunkState:
    """One chunk's state, computed on its own. Dicts are keyed by 1-based query and hold the rows that keep a key
    of this chunk. `m[i]`: m_c; `l[i]`: ℓ_c's exponents s_ij − m_c, in key order (`seen[i]`); `o[i]`: the partial
    output's numerator Σ e^x·V_j as (x, j) pairs (with values), O_c = that / ℓ_c."""

    index: int  # 1-based
    keys: tuple[int, ...]  # 1-based
    m: dict[int, Exact]
    l: dict[int, tuple[Exact, ...]]  # noqa: E741 - ℓ, the paper's name
    seen: dict[int, tuple[int, ...]]
    o: dict[int, tuple[tuple[Exact, int], ...]]


@dataclass(frozen=True)
class Combined:
    """The combine step, per 1-based query that keeps any key: `m[i]` = max_c m_c; `factors[i]`: (chunk, m_c − m)
    for each chunk the row keeps a key of, the exponent of the rescale e^(m_c − m); `l[i]`: ℓ's exponents
    s_ij − m in key order (`seen[i]`)."""

    m: dict[int, Exact]
    factors: dict[int, tuple[tuple[int, Exact], ...]]
    l: dict[int, tuple[Exact, ...]]  # noqa: E741 - ℓ, the paper's name
    seen: dict[int, tuple[int, ...]]


@dataclass(frozen=True)
class SplitKV:
    """Every chunk's state and the combine step."""

    chunk: int
    chunks: tuple[ChunkState, ...]
    combined: Combined


def check_chunk(chunk: object, n_k: int, where: str = "split_kv") -> int:
    """C as a positive int that cuts the keys into at most MAX_CHUNKS chunks."""
    if isinstance(chunk, bool) or not isinstance(chunk, int) or chunk < 1:
        raise InputError(f"expected a chunk size C (a positive integer: keys a chunk), got {chunk!r:.40}", where)
    count = -(-n_k // chunk)
    if count > MAX_CHUNKS:
        raise InputError(f"{count} chunks of {chunk} keys; the walkthrough draws up to {MAX_CHUNKS} chunks side by "
                         f"side: use C >= {-(-n_k // MAX_CHUNKS)}", where)
    return chunk


def _max(values: Sequence[Exact]) -> Exact:
    best = values[0]
    for x in values[1:]:
        best = x if sign(x - best) > 0 else best
    return best


def split_kv_states(attention: Attention, chunk: int) -> SplitKV:
    """Flash-Decoding's chunk states and combine step over an `engine.Attention` drawn whole."""
    n_q, n_k = attention.shape
    chunk = check_chunk(chunk, n_k)
    if attention.form is not None:
        raise InputError("Flash-Decoding's chunks are drawn for the plain softmax of exact logits; drop --sink, "
                         "--sigmoid and --softcap, or draw the scores walkthrough", "split_kv")
    if attention.named_bias:
        raise InputError("Flash-Decoding's chunk maxima compare exact logits, but a T5 bias without values is named "
                         "(b[k]): give its values (t5=N,D,values=...), or draw the scores walkthrough", "split_kv")
    logits = attention.scores if attention.logits is None else attention.logits
    if TYPE_CHECKING:  # exact: no form (a soft cap's logits are not), refused above
        logits = cast("tuple[tuple[Exact, ...] | None, ...]", logits)
    if any(row is None for row in logits) or any(row is None for row in attention.kept):
        raise InputError("split-KV attention needs every row: draw the figure without elision", "elide")
    chunks = []
    for c, start in enumerate(range(0, n_k, chunk), 1):
        keys = tuple(range(start + 1, min(start + chunk, n_k) + 1))
        m, ell, seen, o = {}, {}, {}, {}
        for i in range(1, n_q + 1):
            kept = tuple(j for j in keys if attention.kept[i - 1][j - 1])  # type: ignore[index]
            if not kept:
                continue
            row = [logits[i - 1][j - 1] for j in kept]  # type: ignore[index]
            m[i], seen[i] = _max(row), kept
            ell[i] = tuple(s - m[i] for s in row)
            if attention.values is not None:
                o[i] = tuple(zip(ell[i], kept))
        chunks.append(ChunkState(c, keys, m, ell, seen, o))
    return SplitKV(chunk, tuple(chunks), _combine(chunks, n_q))


def _combine(chunks: Sequence[ChunkState], n_q: int) -> Combined:
    """m = max m_c; each chunk's terms rescaled by e^(m_c − m): its exponents s − m_c become s − m."""
    m, factors, ell, seen = {}, {}, {}, {}
    for i in range(1, n_q + 1):
        states = [state for state in chunks if i in state.m]
        if not states:
            continue
        m[i] = _max([state.m[i] for state in states])
        factors[i] = tuple((state.index, state.m[i] - m[i]) for state in states)
        ell[i] = tuple(x + state.m[i] - m[i] for state in states for x in state.l[i])
        seen[i] = tuple(j for state in states for j in state.seen[i])
    return Combined(m, factors, ell, seen)


def split_kv(q: Vectors, k: Vectors, v: Vectors | None = None, chunk: int = 2, mask: MaskSpec = CAUSAL, *,
             scale: ScaleSpec | None = None) -> SplitKV:
    """Flash-Decoding for query vectors `q` and key vectors `k`, exactly: the keys in chunks of `chunk`, each
    chunk's m_c, ℓ_c (and partial output, with `v`), then the combine step. Indices are 1-based.

    >>> run = split_kv([[1, 0]], [[1, 0], [0, 1], [2, 0]], chunk=2, mask="none")
    >>> [state.m[1] for state in run.chunks], run.combined.m[1]
    ([Fraction(1, 1), Fraction(2, 1)], Fraction(2, 1))
    >>> run.combined.factors[1], run.combined.l[1]
    (((1, Fraction(-1, 1)), (2, Fraction(0, 1))), (Fraction(-1, 1), Fraction(-2, 1), Fraction(0, 1)))
    """
    from .tiled_softmax import exact_attention  # the same reading of the vectors, mask and scale as `flash`

    return split_kv_states(exact_attention(q, k, v, mask, scale), chunk)
