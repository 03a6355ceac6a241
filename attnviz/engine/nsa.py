"""NSA (Native Sparse Attention, Yuan et al. 2025) from Q and K, exactly: its three branches' keys for every query.

Parameters, as the paper names them (`--sparse nsa=L,D,S,N,W`, then optionally `,initial=I,local=R`):

* compression block l (L) and stride d (D): compressed block c summarises keys c·d … c·d+l−1 by φ, here their
  **mean** (the paper's φ is a learned MLP, which cannot be exact); query t reads block c once it is complete
  (c·d+l−1 <= t). The compressed branch attends over those summaries.
* selection block l' (S) and top n (N): selection block j is keys j·l' … j·l'+l'−1. Its importance for query t is
  the compressed branch's softmax summed over the compressed blocks that overlap it (the paper's Eq. 9:
  p_slc[j] = Σ_m Σ_n p_cmp[(l'/d)·j + m − n], m over the block's l'/d stride pieces, n over the l/d compressed
  blocks holding each piece); d must divide l and l'. The top n blocks count the always-selected ones: the
  first I blocks (initial, 1 by default) and the R blocks ending at the query's own (local, 2 by default), as the
  paper's configuration fixes them; the rest go to the highest importance among the other past blocks.
* sliding window w (W): keys t−w+1 … t.

The output is g_cmp·o_cmp + g_slc·o_slc + g_win·o_win, the gates g named (the paper computes them with an MLP and
a sigmoid). Importances are sums of e^(s)/Σ e^(s): attnviz compares them exactly where the signs decide
(every term on one side) and otherwise with interval arithmetic (numbers.rounding) until the interval excludes 0;
two blocks of exactly equal importance (equal e^s terms: by Lindemann–Weierstrass nothing else is equal) tied at the
cut are broken as the reference code breaks them where there is one (fla's `naive_nsa_topk`: l = d = l', the initial
and 2 local blocks forced, `torch.topk` over the scores, whose CPU order engine.topk_order replays) and refused
otherwise, since the paper leaves their order unspecified.
"""

from __future__ import annotations

import importlib.util
from fractions import Fraction
from functools import cmp_to_key

from .moba import is_small_whole
from .topk_order import topk_indices
from ..numbers.exact import InputError
from ..records import dataclass

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from ..typing import Exact

__all__ = ["NsaParameters", "NsaSelection", "parse_nsa", "nsa_selection", "BRANCHES"]

#: The branches in the paper's order: (key, the gate's name, words).
BRANCHES = (("cmp", "g_cmp", "compressed blocks"), ("slc", "g_slc", "selected blocks"),
            ("win", "g_win", "sliding window"))


@dataclass(frozen=True)
class NsaParameters:
    """l, d, l', n, w and the always-selected initial and local blocks."""

    cmp: int
    stride: int
    slc: int
    top: int
    window: int
    initial: int = 1
    local: int = 2

    def text(self) -> str:
        """`l=4, d=2, l'=4, n=3, w=2` (the always-selected blocks when not the paper's)."""
        extra = "" if (self.initial, self.local) == (1, 2) else f", initial {self.initial}, local {self.local}"
        return f"l={self.cmp}, d={self.stride}, l'={self.slc}, n={self.top}, w={self.window}{extra}"


@dataclass(frozen=True)
class NsaSelection:
    """Every query's keys in each branch (0-based), and the selection's importances.

    `compressed[t]`: the compressed blocks t reads (c: keys c·d … c·d+l−1). `importance[t][j]`: p_slc[j]'s
    numerator as {exponent s: count} (the common denominator Σ e^s left out). `selected[t]`: the selection
    blocks t reads; `forced[t]` of them always. `maps`: branch key -> kept[t][j]; "union" too."""

    parameters: NsaParameters
    compressed: tuple[tuple[int, ...], ...]
    scores: tuple[tuple[Exact, ...], ...]  # q_t·mean(K̃_c) for every compressed block c
    importance: tuple[tuple[dict[Exact, int], ...], ...]
    selected: tuple[frozenset[int], ...]
    forced: tuple[frozenset[int], ...]
    maps: dict[str, tuple[tuple[bool, ...], ...]]
    tied: tuple[bool, ...] = ()  # per query: a tie at the cut, broken by the reference's torch.topk order


def parse_nsa(text: str) -> NsaParameters:
    """`4,2,4,3,2` or `4,2,4,3,2,initial=1,local=1` -> NsaParameters: the text after `nsa=`."""
    parts = [part.strip() for part in text.split(",")]
    named = dict(part.split("=", 1) for part in parts[5:] if part.count("=") == 1)
    given = parts[:5]
    if (len(given) != 5 or not all(map(is_small_whole, given + list(named.values())))
            or set(named) - {"initial", "local"} or len(named) != len(parts) - 5):
        raise InputError(f"expected nsa=L,D,S,N,W[,initial=I][,local=R] (compression block, stride, selection "
                         f"block, top n, window), got nsa={text!r:.60}", "sparse")
    cmp, stride, slc, top, window = map(int, given)
    found = NsaParameters(cmp, stride, slc, top, window, int(named.get("initial", 1)), int(named.get("local", 2)))
    _check(found)
    return found


def _check(p: NsaParameters) -> None:
    if min(p.cmp, p.stride, p.slc, p.top, p.window, p.local) < 1:
        raise InputError(f"NSA's l, d, l', n, w and local must be at least 1, got {p.text()}", "sparse")
    if p.cmp % p.stride or p.slc % p.stride:
        raise InputError(f"NSA's stride d must divide the compression block l and the selection block l' "
                         f"(as the paper's Eq. 9 needs), got {p.text()}", "sparse")
    if p.initial + p.local > p.top:
        raise InputError(f"NSA's top n counts the {p.initial} initial and {p.local} local blocks: n must be at least "
                         f"{p.initial + p.local}, got {p.text()}", "sparse")


def _dot(a: Sequence[Fraction], b: Sequence[Fraction]) -> Fraction:
    return sum((x * y for x, y in zip(a, b)), Fraction(0))


def nsa_selection(q: Sequence[Sequence[Fraction]], k: Sequence[Sequence[Fraction]], parameters: NsaParameters,
                  scale: Exact | None = None) -> NsaSelection:
    """NSA's branches for exact query and key vectors (as many queries as keys); `scale` multiplies the
    compressed scores (the logits' factor, 1/√d under `scale = "sqrt"`)."""
    p, n = parameters, len(k)
    if len(q) != n:
        raise InputError(f"NSA reads a sequence's own keys: give as many queries as keys (got {len(q)} and {n})",
                         "sparse")
    _check(p)
    starts = range(0, n - p.cmp + 1, p.stride)  # complete compressed blocks only
    summaries = [tuple(sum((k[j][x] for j in range(c, c + p.cmp)), Fraction(0)) / p.cmp for x in range(len(k[0])))
                 for c in starts]
    scores = tuple(tuple(_dot(qt, s) * (1 if scale is None else scale) for s in summaries) for qt in q)
    compressed = tuple(tuple(c for c, start in enumerate(starts) if start + p.cmp - 1 <= t) for t in range(n))
    n_slc = -(-n // p.slc)
    importance = tuple(tuple(_importance(scores[t], compressed[t], j, p) for j in range(n_slc)) for t in range(n))
    selected, forced = [], []
    reference = p.cmp == p.stride == p.slc and (p.initial, p.local) == (1, 2)  # fla's naive_nsa_topk's setting
    tied = []
    for t in range(n):
        own = t // p.slc
        always = frozenset(j for j in range(own + 1) if j < p.initial or own - p.local < j)
        rest = sorted((j for j in range(own + 1) if j not in always), key=_most_important(importance[t]))
        room = max(0, p.top - len(always))
        tie = 0 < room < len(rest) and _compare(importance[t][rest[room - 1]], importance[t][rest[room]]) == 0
        if tie and not reference:
            raise InputError(f"NSA: query {t + 1}'s selection blocks {rest[room - 1] + 1} and {rest[room] + 1} have "
                             f"exactly equal importance at the top-{p.top} cut; the paper leaves their order "
                             "unspecified, and a reference breaks it only with l = d = l' and the initial and 2 "
                             "local blocks (change n or the vectors)", "sparse")
        chosen = _reference_choice(importance[t], compressed[t], always, p) if tie else (
            always | frozenset(rest[:room]))
        tied.append(tie)
        selected.append(chosen)
        forced.append(always)
    maps = _maps(n, p, compressed, selected)
    return NsaSelection(p, compressed, scores, importance, tuple(selected), tuple(forced), maps, tuple(tied))


def _reference_choice(row: Sequence[dict[Exact, int]], visible: Sequence[int], forced: frozenset[int],
                      p: NsaParameters) -> frozenset[int]:
    """The blocks the reference (fla's `naive_nsa_topk`, l = d = l') selects where importances tie: `torch.topk`
    over every block's score (a forced block 1, a visible one its p_cmp, any other 0), keeping the allowed ones
    (forced or complete). Scores are compared exactly, as fractions of the visible blocks' Σ e^s."""
    total: dict[Exact, int] = {}
    for c in visible:  # l = d = l': block c's importance is its one term
        for s, count in row[c].items():
            total[s] = total.get(s, 0) + count
    values = [total if j in forced else row[j] if j in visible else {} for j in range(len(row))]
    picked = topk_indices(values, min(p.top, len(row)), lambda a, b: _compare(a, b) > 0)
    return frozenset(j for j in picked if j in forced or j in visible)


def _most_important(row: Sequence[dict[Exact, int]]) -> Callable[[int], Any]:
    """A sort key that puts the most important selection blocks of a row first."""
    def compare(a: int, b: int) -> int:
        return _compare(row[b], row[a])

    return cmp_to_key(compare)


def _importance(scores: Sequence[Exact], visible: Sequence[int], j: int, p: NsaParameters) -> dict[Exact, int]:
    """p_slc[j]'s numerator: Σ_m Σ_n e^(s[(l'/d)·j + m − n]) over the visible compressed blocks, as {s: count}."""
    terms: dict[Exact, int] = {}
    for m in range(p.slc // p.stride):
        for back in range(p.cmp // p.stride):
            c = (p.slc // p.stride) * j + m - back
            if c in visible:
                terms[scores[c]] = terms.get(scores[c], 0) + 1
    return terms


def _compare(a: dict[Exact, int], b: dict[Exact, int]) -> int:
    """The sign of Σ_a e^s − Σ_b e^s: exact where every term of the difference has one sign, else certified by
    interval arithmetic; 0 only when the two sums have the same terms."""
    difference = {s: a.get(s, 0) - b.get(s, 0) for s in a.keys() | b.keys()}
    kept = {s: c for s, c in difference.items() if c}
    if not kept:
        return 0
    signs = {c > 0 for c in kept.values()}
    if len(signs) == 1:
        return 1 if signs.pop() else -1
    if importlib.util.find_spec("mpmath") is None:
        raise InputError("NSA's selection compares sums of exponentials with interval arithmetic, which needs "
                         "mpmath: pip install 'attnviz[decimal]'", "sparse")
    from ..numbers.rounding import sign_of_exp_sum  # only a comparison the signs leave open loads mpmath

    exponents = list(kept)
    return sign_of_exp_sum(exponents, [Fraction(kept[s]) for s in exponents])


def _maps(n: int, p: NsaParameters, compressed: Sequence[Sequence[int]],
          selected: Sequence[frozenset[int]]) -> dict[str, tuple[tuple[bool, ...], ...]]:
    """Each branch's kept keys (a key under a read compressed block, in a selected block, or in the window)."""
    def cmp(t: int, j: int) -> bool:
        return any(c * p.stride <= j < c * p.stride + p.cmp for c in compressed[t])

    maps = {"cmp": tuple(tuple(cmp(t, j) for j in range(n)) for t in range(n)),
            "slc": tuple(tuple(j <= t and j // p.slc in selected[t] for j in range(n)) for t in range(n)),
            "win": tuple(tuple(t - p.window < j <= t for j in range(n)) for t in range(n))}
    maps["union"] = tuple(tuple(any(maps[b][t][j] for b in ("cmp", "slc", "win")) for j in range(n)) for t in range(n))
    return maps
