"""Each family's binder: a `MaskOption` bound to one grid, as its keep(i, j), its rows' runs and its rule's
text (`mask_grammar.MASK_FAMILIES` says which binder binds which family).

Each family's rule is written exactly as it is applied, in either index base; a query i sits at
key position i + offset (the alignment when keys outnumber queries).
"""

from __future__ import annotations

from .attention import check_matrix_shape
from .rule_text import number_ranges
from .runs import clip, complement_runs, intersect_runs, positions_runs, scan_runs, union_runs
from ..numbers.exact import InputError
from ..records import dataclass

TYPE_CHECKING = False  # a type checker takes it as True
if TYPE_CHECKING:
    from collections.abc import Callable, Hashable, Sequence

    from .mask_grammar import MaskOption
    from .runs import Runs

__all__ = ["Bound", "Grid", "MAX_LISTED_IDS", "query_position", "random_keys", "set_text", "ids_text"]

MAX_LISTED_IDS = 16  # longer lists of ids and positions are written with runs: 0×256, {1..64}


@dataclass(frozen=True)
class Bound:
    """A mask on one grid, before it becomes an `engine.BoundMask`: its parts stay callables so that
    combinations can join them."""

    name: str
    rule: Callable[[int], str]  # base -> text
    keep: Callable[[int, int], object]  # (i, j) -> a truth value, 0-based
    runs: Callable[[int], Runs]  # i -> runs
    positional: bool = False  # uses the query's position, so the alignment matters
    # A union's parts, in order, as (name, runs): what `--color-by part` colours (empty for other masks).
    parts: tuple[tuple[str, Callable[[int], Runs]], ...] = ()
    given: bool = False  # the rule is the user's words, not read or checked (drawn marked as given)


@dataclass(frozen=True)
class Grid:
    """The grid a mask is bound to."""

    n_q: int
    n_k: int
    offset: int  # query i sits at key position i + offset
    base: int  # the index base positions are given and written in
    # Rules follow the labels: queries labelled with their own positions (--q-tokens "9 10 11 12") are written
    # as i = the label, so the rule's i is the label's first value minus the base further on (0: rows).
    shift: int = 0


def query_position(offset: int, shift: int = 0) -> str:
    """The query's key position as text: "i", "i+3", "i-2"."""
    c = offset + shift
    return "i" if c == 0 else f"i+{c}" if c > 0 else f"i-{-c}"


def set_text(positions: Sequence[int], base: int) -> str:
    """Sorted 0-based positions as a set in `base`; a long set writes its runs as ranges, {1..64,257..320}.

    >>> set_text((0, 3), 1), set_text(tuple(range(20)) + (30,), 0)
    ('{1,4}', '{0..19,30}')
    """
    shown = [p + base for p in positions]
    if len(shown) <= MAX_LISTED_IDS:
        return "{" + ",".join(map(str, shown)) + "}"
    return "{" + ",".join(number_ranges(shown, "..", ",")) + "}"


def ids_text(ids: Sequence[int]) -> str:
    """Segment ids as a rule writes them: each one, or for a long list, a run of one id as `id×count`
    (1,024 packed tokens in four documents read `(0×256, 1×256, 2×256, 3×256)`).

    >>> ids_text((1, 1, 2)), ids_text((0,) * 20 + (1, 2))
    ('1, 1, 2', '0×20, 1, 2')
    """
    if len(ids) <= MAX_LISTED_IDS:
        return ", ".join(map(str, ids))
    parts: list[str] = []
    start = 0
    for n in range(1, len(ids) + 1):
        if n == len(ids) or ids[n] != ids[start]:
            count = n - start
            parts.extend([f"{ids[start]}×{count}"] if count >= 3 else [str(ids[start])] * count)
            start = n
    return ", ".join(parts)


def _where(option: MaskOption) -> str:
    return f"mask {option.text!r}"


def causal(option: MaskOption, grid: Grid) -> Bound:
    n_k, offset, p = grid.n_k, grid.offset, query_position(grid.offset - grid.shift)
    return Bound("causal", lambda base: f"j<={p}", lambda i, j: j <= i + offset,
                 lambda i: clip(0, i + offset + 1, n_k), True)


def full(option: MaskOption, grid: Grid) -> Bound:
    n_k = grid.n_k
    return Bound("bidirectional", lambda base: "every cell", lambda i, j: True, lambda i: clip(0, n_k, n_k))


def global_tokens(option: MaskOption, grid: Grid) -> Bound:
    """Global tokens: they see every key and every query sees them (Longformer, BigBird)."""
    n_k, offset, p = grid.n_k, grid.offset, query_position(grid.offset - grid.shift)
    positions = _zero_based(option.value, grid, _where(option), max(n_k, grid.n_q + offset))
    chosen = frozenset(positions)

    def rule(base: int) -> str:
        shown = set_text(positions, base)
        return f"{p} in {shown} or j in {shown}"

    own = positions_runs(positions, n_k)
    return Bound("global", rule, lambda i, j: i + offset in chosen or j in chosen,
                 lambda i: clip(0, n_k, n_k) if i + offset in chosen else own, True)


def prefix(option: MaskOption, grid: Grid) -> Bound:
    """Prefix-LM: the first `length` positions see each other (within each document, with `documents=`)."""
    opts, length = dict(option.options), option.value
    if "documents" in opts:
        return _document_prefix(opts.get("lengths", (length,)), opts["documents"], grid, _where(option))
    n_k, offset, p = grid.n_k, grid.offset, query_position(grid.offset - grid.shift)
    return Bound("prefix-LM", lambda base: f"j<={p}, or {p}<={length - 1 + base} and j<={length - 1 + base}",
                 lambda i, j: j <= i + offset or (i + offset < length and j < length),
                 lambda i: clip(0, max(i + offset + 1, length if i + offset < length else 0), n_k), True)


def chunk(option: MaskOption, grid: Grid) -> Bound:
    """Causal within blocks of `size` positions, the first starting at `offset`."""
    size = option.value
    start = dict(option.options).get("offset", 0) % size
    n_k, offset, p = grid.n_k, grid.offset, query_position(grid.offset - grid.shift)
    plural = "s" * (size > 1)

    def rule(base: int) -> str:
        starts = f", blocks starting at position {start + base}" if start else ""
        return f"j<={p}, {p} and j in the same block of {size} position{plural}{starts}"

    def runs(i: int) -> Runs:
        q = i + offset
        return clip((q - start) // size * size + start, q + 1, n_k)

    def keep(i: int, j: int) -> bool:
        return j <= i + offset and (i + offset - start) // size == (j - start) // size

    return Bound("chunked", rule, keep, runs, True)


def segments(option: MaskOption, grid: Grid) -> Bound:
    """Packed documents: causal within each (`segments`), or bidirectional within each (`documents`)."""
    value = option.value
    n_k, offset, p = grid.n_k, grid.offset, query_position(grid.offset - grid.shift)
    query_ids, same = _documents(value, grid, _where(option))
    shown = ids_text(value)
    if option.kind == "documents":
        return Bound("bidirectional document", lambda base: f"{p} and j in the same segment of ({shown})",
                     lambda i, j: query_ids[i] == value[j], lambda i: same[query_ids[i]], True)
    return Bound("document", lambda base: f"j<={p}, {p} and j in the same segment of ({shown})",
                 lambda i, j: j <= i + offset and query_ids[i] == value[j],
                 lambda i: intersect_runs(same[query_ids[i]], clip(0, i + offset + 1, n_k)), True)


def padding(option: MaskOption, grid: Grid) -> Bound:
    positions = _zero_based(option.value, grid, _where(option), grid.n_k, "key position", "keys")
    padded = frozenset(positions)
    kept = complement_runs(positions_runs(positions, grid.n_k), grid.n_k)
    return Bound("padding", lambda base: f"j not in {set_text(positions, base)}", lambda i, j: j not in padded,
                 lambda i: kept)


def keys(option: MaskOption, grid: Grid) -> Bound:
    positions = _zero_based(option.value, grid, _where(option), grid.n_k, "key position", "keys")
    chosen, columns = frozenset(positions), positions_runs(positions, grid.n_k)
    return Bound("key columns", lambda base: f"j in {set_text(positions, base)}", lambda i, j: j in chosen,
                 lambda i: columns)


def random_columns(option: MaskOption, grid: Grid) -> Bound:
    """`count` keys a row drawn at random (BigBird's random attention), the same cells on every platform."""
    count, seed = option.value, dict(option.options)["seed"]
    n_k, offset, p = grid.n_k, grid.offset, query_position(grid.offset - grid.shift)
    rows = [random_keys(count, n_k, seed, i + offset) for i in range(grid.n_q)]
    row_runs = [positions_runs(row, n_k) for row in rows]
    sets = [frozenset(row) for row in rows]
    plural = "s" * (count > 1)
    return Bound("random", lambda base: f"j in {count} random key{plural} of row {p} (seed {seed})",
                 lambda i, j: j in sets[i], row_runs.__getitem__, True)


def sink(option: MaskOption, grid: Grid) -> Bound:
    """Attention sinks: every query keeps the first `count` keys, whatever its position (StreamingLLM's
    sink tokens; a learned sink logit drawn as a column of its own, as GPT-OSS adds one to each row's
    softmax). Alone it is not causal: StreamingLLM's mask is `causal & (window=W | sink=S)`."""
    count, n_k = option.value, grid.n_k
    return Bound("sink", lambda base: f"j<={count - 1 + base}", lambda i, j: j < count, lambda i: clip(0, count, n_k))


def matrix(option: MaskOption, grid: Grid) -> Bound:
    """The cells marked 1."""
    marked: tuple[tuple[bool, ...], ...] = option.value
    check_matrix_shape(marked, grid.n_q, grid.n_k, _where(option))
    rows = "; ".join("".join("1" if x else "0" for x in row) for row in marked)
    row_runs = [scan_runs(row.__getitem__, grid.n_k) for row in marked]
    return Bound("explicit", lambda base: f"(i,j) marked 1 in [{rows}]", lambda i, j: marked[i][j],
                 row_runs.__getitem__)


_MASK64 = 2**64 - 1


def _splitmix64(state: int) -> tuple[int, int]:
    """SplitMix64 (Steele, Lea and Flood 2014): the next state and a 64-bit output, in Python integers,
    so every platform draws the same keys."""
    state = (state + 0x9E3779B97F4A7C15) & _MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return state, z ^ (z >> 31)


def random_keys(count: int, n_k: int, seed: int, position: int) -> tuple[int, ...]:
    """The `count` keys (0-based, sorted) a query at key position `position` keeps under `random=count,seed=seed`:
    Floyd's sampling of distinct keys from 0..n_k-1, driven by SplitMix64 started at seed·2³² + position,
    each draw below a bound by rejection (no modulo bias). All keys when count >= n_k.

    >>> random_keys(2, 8, 0, 0), random_keys(2, 8, 0, 1), random_keys(9, 3, 5, 0)
    ((2, 4), (2, 7), (0, 1, 2))
    """
    if count >= n_k:
        return tuple(range(n_k))
    state = (seed * 2**32 + position) & _MASK64
    chosen: set[int] = set()
    for top in range(n_k - count, n_k):
        bound = top + 1
        limit = 2**64 - 2**64 % bound
        while True:
            state, draw = _splitmix64(state)
            if draw < limit:
                break
        pick = draw % bound
        chosen.add(top if pick in chosen else pick)
    return tuple(sorted(chosen))


def _zero_based(positions: tuple[int, ...], grid: Grid, where: str, limit: int, what: str = "position",
                span: str = "positions") -> tuple[int, ...]:
    """Positions as typed (in the figure's index base) made 0-based, each checked to be on the grid."""
    out = tuple(x - grid.base for x in positions)
    if out and out[0] < 0:
        raise InputError(f"{what}s start at {grid.base}, got {positions[0]}", where)
    if out and out[-1] >= limit:
        raise InputError(f"{what} {positions[-1]} is outside the grid ({span} {grid.base}..{limit - 1 + grid.base})",
                         where)
    return out


def window(option: MaskOption, grid: Grid) -> Bound:
    """A sliding window of `width` keys, itself included (`symmetric`: `width`-1 each side), `dilation` apart."""
    opts, width = dict(option.options), option.value
    dilation, symmetric = opts.get("dilation", 1), "symmetric" in opts
    n_k, offset, p = grid.n_k, grid.offset, query_position(grid.offset - grid.shift)
    span = width * dilation
    low = -span if symmetric else -1  # the distance i+offset-j a kept key is at: low < d < span
    name, text = ("symmetric sliding-window", f"|{p}-j|<{span}") if symmetric else \
        ("sliding-window", f"{query_position(offset - grid.shift, -span)}<j<={p}")
    if dilation == 1:
        return Bound(name, lambda base: text, lambda i, j: low < i + offset - j < span,
                     lambda i: clip(i + offset - span + 1, i + offset + (span if symmetric else 1), n_k), True)

    def dilated_runs(i: int) -> Runs:
        q = i + offset
        least = max(-(width - 1) if symmetric else 0, -((n_k - 1 - q) // dilation))  # k: the key q - k·dilation
        most = min(width - 1, q // dilation)
        return tuple((q - k * dilation, q - k * dilation + 1) for k in range(most, least - 1, -1))

    return Bound(f"dilated {name}", lambda base: f"{text}, ({p}-j) mod {dilation} = 0",
                 lambda i, j: low < i + offset - j < span and (i + offset - j) % dilation == 0, dilated_runs, True)


def _documents(ids: tuple[int, ...], grid: Grid, where: str) -> tuple[tuple[int | None, ...], dict[Hashable, Runs]]:
    """Each query's segment id (None for a query before the first key: it is in no document) and,
    for each id, the runs of the keys that carry it."""
    if len(ids) != grid.n_k:
        raise InputError(f"{len(ids)} segment ids for {grid.n_k} key positions; give one per key", where)
    if grid.offset + grid.n_q > grid.n_k:
        raise InputError(f"query {grid.n_q} sits at key position {grid.n_q + grid.offset}, past the {grid.n_k} "
                         "segment ids; give at least as many keys as queries", where)
    same: dict[Hashable, Runs] = {d: positions_runs([j for j, x in enumerate(ids) if x == d], grid.n_k)
                                  for d in set(ids)}
    same[None] = ()
    query_ids = tuple(ids[i + grid.offset] if i + grid.offset >= 0 else None for i in range(grid.n_q))
    return query_ids, same


def _document_prefix(lengths: tuple[int, ...], ids: tuple[int, ...], grid: Grid, where: str) -> Bound:
    """Prefix-LM within each document: a document's first positions (its length of `lengths`, one for all or
    one a document in the order they first appear) see each other."""
    query_ids, same = _documents(ids, grid, where)
    order = list(dict.fromkeys(ids))
    if len(lengths) > 1 and len(lengths) != len(order):
        raise InputError(f"{len(lengths)} prefix lengths for {len(order)} documents; give one, or one per document",
                         where)
    length_of = dict(zip(order, lengths if len(lengths) > 1 else lengths * len(order)))
    seen: dict[int, int] = {}
    prefix: list[int] = []
    for j, d in enumerate(ids):
        seen[d] = seen.get(d, 0) + 1
        if seen[d] <= length_of[d]:
            prefix.append(j)
    in_prefix, prefix_runs = frozenset(prefix), positions_runs(prefix, grid.n_k)
    p, offset, shown = query_position(grid.offset - grid.shift), grid.offset, ids_text(ids)

    def keep(i: int, j: int) -> bool:
        q = i + offset
        return query_ids[i] == ids[j] and (j <= q or (q in in_prefix and j in in_prefix))

    def runs(i: int) -> Runs:
        q = i + offset
        visible = clip(0, q + 1, grid.n_k)
        visible = union_runs(visible, prefix_runs) if q in in_prefix else visible
        return intersect_runs(same[query_ids[i]], visible)

    return Bound("prefix-LM per document",
                 lambda base: f"{p} and j in the same segment of ({shown}) and "
                              f"(j<={p}, or {p} and j in {set_text(prefix, base)})", keep, runs, True)
