"""`sparse = "moba=B,K"` and `sparse = "nsa=L,D,S,N,W"`: the mask computed from Q and K by MoBA's gate or NSA's
branches (engine.moba, engine.nsa), bound as the figure's mask, with the badge and title saying what computed it.
(The panels drawn beside it are figures.sparse's.)
"""

from __future__ import annotations

from ..engine.bound_mask import BoundMask
from ..engine.runs import scan_runs
from ..numbers.exact import InputError

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Sequence
    from fractions import Fraction

    from ..engine.moba import MobaSelection
    from ..engine.nsa import NsaSelection
    from ..typing import Exact, MaskSpec

__all__ = ["KINDS", "sparse_mask", "parse_sparse", "check_mask_free", "select", "bound_cells", "moba_phrase",
           "nsa_phrase"]

#: The selections `sparse` takes: its name before "=", and its parameters' form.
KINDS = {"moba": "moba=B,K (blocks of B keys, K blocks a query counting its own)",
         "nsa": "nsa=L,D,S,N,W[,initial=I][,local=R] (compression block l, stride d, selection block l', top n, "
                "window w)"}


def parse_sparse(spec: object) -> tuple[str, str]:
    """("moba", "2,2") from "moba=2,2"."""
    kind, _, rest = spec.partition("=") if isinstance(spec, str) else ("", "", "")
    if kind.strip() not in KINDS or not rest:
        raise InputError(f"expected {' or '.join(KINDS.values())}, got {spec!r:.60}", "sparse")
    return kind.strip(), rest


def check_mask_free(mask: MaskSpec) -> None:
    """A sparse selection is the figure's mask (causal within it): another mask is refused, not combined."""
    if not (isinstance(mask, str) and mask == "causal"):
        raise InputError("computes the mask from Q and K (causal within it); drop --mask", "sparse")


def bound_cells(kept: Sequence[Sequence[bool]], name: str, rule: str, computed: str,
                sparse: str | None = None) -> BoundMask:
    """The cells `kept[i][j]` (0-based) as a bound mask named `name`, its rule `rule` and its badge `computed`;
    `sparse`: the selection that computed them ("moba=2,2"), when they are a figure's whole mask."""
    n_q, n_k = len(kept), len(kept[0]) if kept else 0
    return BoundMask(name, rule, lambda i, j: kept[i][j], row_runs=lambda i: scan_runs(kept[i].__getitem__, n_k),
                     shape=(n_q, n_k), computed=computed, sparse=sparse)


def moba_phrase(selection: MobaSelection) -> str:
    """"MoBA selection computed from Q and K, block 4, top 2": what the badge and title say."""
    return f"MoBA selection computed from Q and K, block {selection.block}, top {selection.top}"


def nsa_phrase(selection: NsaSelection) -> str:
    """"NSA branches computed from Q and K, l=4, d=2, l'=4, n=3, w=2"."""
    return f"NSA branches computed from Q and K, {selection.parameters.text()}"


def select(spec: object, q: Sequence[Sequence[Fraction]], k: Sequence[Sequence[Fraction]],
           scale: Exact | None = None) -> MobaSelection | NsaSelection:
    """The selection `spec` names, computed from exact q and k."""
    kind, rest = parse_sparse(spec)
    if kind == "moba":
        from ..engine.moba import moba_selection, parse_moba  # start-up: only MoBA needs it

        return moba_selection(q, k, *parse_moba(rest))
    from ..engine.nsa import nsa_selection, parse_nsa  # start-up: only NSA needs it

    return nsa_selection(q, k, parse_nsa(rest), scale)


def sparse_mask(spec: object, q: Sequence[Sequence[Fraction]], k: Sequence[Sequence[Fraction]],
                scale: Exact | None = None) -> BoundMask:
    """The figure's mask: MoBA's chosen blocks (causal), or NSA's union of its three branches."""
    selection = select(spec, q, k, scale)
    named = "=".join(part.strip() for part in parse_sparse(spec))  # ("moba=2,2": as a walkthrough re-reads it)
    if hasattr(selection, "block"):
        if TYPE_CHECKING:
            assert isinstance(selection, MobaSelection)
        tie = " (a tie broken by torch.topk's order)" if any(selection.tied) else ""
        return bound_cells(selection.kept, "MoBA", f"j<=i in the {selection.top} blocks of {selection.block} keys its "
                      f"gate q_i·mean(K_b) chose{tie}", moba_phrase(selection), named)
    if TYPE_CHECKING:
        assert isinstance(selection, NsaSelection)
    tie = " (a tie broken by torch.topk's order, as fla's naive_nsa_topk)" if any(selection.tied) else ""
    return bound_cells(selection.maps["union"], "NSA", "j in a read compressed block, a selected block (j<=i) or the "
                       f"window{tie}: g_cmp·o_cmp + g_slc·o_slc + g_win·o_win", nsa_phrase(selection), named)
