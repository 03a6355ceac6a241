"""KV-cache decoding as data: the prefill's cache, then one step per generated token.

The first P tokens are the prompt: the prefill computes their grid and fills the cache. Each later token t appends K_t
and V_t to the cache (evicting what its mask no longer reaches: a sliding window drops its oldest key, a chunk boundary
drops the previous chunk), then computes one query row, Q_t against every cached key. The cache after step t is the set
of keys query t attends to; the masks real decoders use (causal, window=W, chunk=C) all work this way.
`publish.walkthrough` writes these steps as a walkthrough.
"""

from __future__ import annotations

from .attention import dot
from ..numbers.exact import InputError
from ..records import dataclass

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Sequence
    from fractions import Fraction

    from .attention import Attention

__all__ = ["DecodeStep", "decode_steps", "cache_slots", "keys_text"]


@dataclass(frozen=True)
class DecodeStep:
    """Generated token `t` (1-based): the cache's keys before and after appending K_t, V_t, the keys
    query t attends to (`cached` of them from the cache, plus t itself) and its exact scores Q_t·K_j."""

    t: int
    before: tuple[int, ...]
    after: tuple[int, ...]
    evicted: tuple[int, ...]
    attended: tuple[int, ...]
    scores: tuple[Fraction, ...]


def decode_steps(attention: Attention, prompt: int) -> tuple[tuple[int, ...], tuple[DecodeStep, ...]]:
    """The prefill's cache and one `DecodeStep` per generated token: (prefill cache, steps)."""
    n_q, n_k = attention.shape
    if n_q != n_k:
        raise InputError(f"decoding reads one token per query and key, but there are {n_q} queries and {n_k} keys; "
                         "give as many q as k vectors", "decode")
    if not 1 <= prompt < n_q:
        raise InputError(f"a prompt of {prompt} leaves no token to generate: give fewer than the {n_q} tokens "
                         f"(1..{n_q - 1})", "decode")
    kept = [tuple(j + 1 for j in range(n_k) if _row(attention, i)[j]) for i in range(n_q)]
    for i in range(1, n_q + 1):  # a token cannot attend to one not yet generated
        if kept[i - 1] and kept[i - 1][-1] > max(i, prompt):
            raise InputError(f"under the {attention.mask.name} mask ({attention.mask.rule}) query {i} attends to key "
                             f"{kept[i - 1][-1]}, which is not generated yet when token {max(i, prompt)} is "
                             "decoded: decode with causal, window=W or chunk=C", "decode")
    cache = kept[prompt - 1]
    prefill_cache, steps = cache, []
    for t in range(prompt + 1, n_q + 1):
        attended = kept[t - 1]
        if t not in attended or not set(attended) <= set(cache) | {t}:
            raise InputError(f"under the {attention.mask.name} mask ({attention.mask.rule}) query {t} attends to "
                             f"keys {keys_text(attended) or 'none'}, not to itself and its cache ({keys_text(cache)}): "
                             "decode with causal, window=W or chunk=C", "decode")
        evicted = tuple(j for j in cache if j not in attended)
        scores = tuple(dot(attention.q[t - 1], attention.k[j - 1]) for j in attended)
        steps.append(DecodeStep(t, cache, attended, evicted, attended, scores))
        cache = attended
    return prefill_cache, tuple(steps)


def cache_slots(attention: Attention, prompt: int) -> tuple[int | None, tuple[tuple[int, dict[int, int]], ...]]:
    """Where each cached key sits after the prefill (t = prompt) and after each decoded token t:
    (W, ((t, {slot: key}), ...)), slots 0-based; the cache after t holds the keys query t attends to.

    When the mask evicts (some query does not attend to every earlier key) and no query attends to more
    than W keys, the cache is a rolling buffer of W slots, as Mistral's: key k (1-based) is written to
    slot (k−1) mod W, overwriting the key W positions before it (a window of W; a chunk of W, whose keys
    fill the slots from 0). Without eviction the cache grows: key k in slot k−1, and W is None. (A mask
    whose cached keys would share a slot is drawn as a strip of its cached keys in order, W None.)

    >>> from attnviz import figure
    >>> cache_slots(figure([[1]] * 4, [[1]] * 4, mask="window=2").attention, 3)
    (2, ((3, {1: 2, 0: 3}), (4, {0: 3, 1: 4})))
    """
    n = attention.shape[0]
    kept = [tuple(j + 1 for j, keep in enumerate(_row(attention, i)) if keep) for i in range(n)]
    caches = [(t, kept[t - 1]) for t in range(prompt, n + 1)]
    evicts = any(keys != tuple(range(1, i + 2)) for i, keys in enumerate(kept))
    size = max(len(keys) for keys in kept)
    if evicts and all(len({(k - 1) % size for k in cache}) == len(cache) for _, cache in caches):
        return size, tuple((t, {(k - 1) % size: k for k in cache}) for t, cache in caches)
    if evicts:  # not a ring: the cached keys in order
        return None, tuple((t, dict(enumerate(cache))) for t, cache in caches)
    return None, tuple((t, {k - 1: k for k in cache}) for t, cache in caches)


def _row(attention: Attention, i: int) -> tuple[bool, ...]:
    """Row i's kept cells: decoding walks a figure drawn whole."""
    row = attention.kept[i]
    assert row is not None  # an elided figure leaves rows out; the decode walkthrough draws every row
    return row


def keys_text(keys: Sequence[int], letter: str = "K") -> str:
    """`K1–K3, K5`: keys as runs of consecutive positions.

    >>> keys_text((1, 2, 3, 5)), keys_text((2, 3), "V")
    ('K1–K3, K5', 'V2–V3')
    """
    runs = []
    start = None
    for n, j in enumerate(keys):
        if start is None:
            start = j
        if n + 1 == len(keys) or keys[n + 1] != j + 1:
            runs.append(f"{letter}{start}" if start == j else f"{letter}{start}–{letter}{j}")
            start = None
    return ", ".join(runs)
