"""A walkthrough over MoBA's or NSA's mask (`sparse="moba=B,K"`, `"nsa=…"`): the selection first, computed exactly
from Q and K and drawn as the papers draw it (MoBA's gate scores with the chosen blocks marked, NSA's three branches)
beside the mask it selects; then every score that mask keeps, the mask, each row's softmax, as any walkthrough of
scores (`scores.walkthrough`), each score's sentence saying which selection kept its key.
"""

from __future__ import annotations

from ...engine.nsa import BRANCHES
from ...figures.sparse import selection_figure
from ...figures.sparse_mask import moba_phrase, nsa_phrase, select
from ...numbers.exact import format_number
from ...records import dataclass
from ...words import notation
from ..document import Section

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable

    from ...engine.attention import Attention
    from ...engine.moba import MobaSelection
    from ...engine.nsa import NsaSelection
    from ...figures.figure import Drawable, Figure

__all__ = ["Lead", "lead_of"]

#: MoBA's gate and NSA's output, typeset on the selection's step.
MOBA_TEX = r"s_{ib} = q_i \cdot \operatorname{mean}_{j \in b} K_j"
NSA_TEX = r"o_t = g_{cmp}\, o^{cmp}_t + g_{slc}\, o^{slc}_t + g_{win}\, o^{win}_t"


@dataclass(frozen=True)
class Lead:
    """What a sparse selection adds to a walkthrough of scores: its own first step (`section`, its figure drawn by
    `draw(fig, id_prefix)`), the intro's first clause (`intro`), and why a score is computed (`kept_by(i, j)`,
    1-based: a sentence naming the selection that keeps key j for query i). `name`: "MoBA" or "NSA"."""

    section: Section
    spec: str
    intro: str
    kept_by: Callable[[int, int], str]
    name: str

    def draw(self, fig: Figure, id_prefix: str) -> Drawable:
        """The selection's step: its gate (or branches) beside the mask it selects, in `fig`'s frame."""
        return selection_figure(fig, self.spec, id_prefix)


def lead_of(fig: Figure) -> Lead | None:
    """The selection step of `fig`'s walkthrough, when its mask was computed by `sparse=` (else None)."""
    attention: Attention = fig.attention  # type: ignore[assignment]  # (a walkthrough's figure is a full one)
    spec = attention.mask.sparse
    if spec is None:
        return None
    scale = attention.scale.factor if attention.scale is not None else None
    selection = select(spec, attention.q, attention.k, scale)
    if hasattr(selection, "block"):
        if TYPE_CHECKING:
            assert isinstance(selection, MobaSelection)
        return Lead(_moba_section(selection), spec, f"the {moba_phrase(selection)} (each query's key blocks, by its "
                                                    "gate scores q_i·mean(K_b)); then ",
                    lambda i, j: _moba_reason(selection, i, j), "MoBA")
    if TYPE_CHECKING:
        assert isinstance(selection, NsaSelection)
    return Lead(_nsa_section(selection), spec, f"the {nsa_phrase(selection)} (each query's compressed blocks, "
                                               "selected blocks and window); then ",
                lambda i, j: _nsa_reason(selection, i, j), "NSA")


def _block_name(selection: MobaSelection, b: int) -> str:
    """`b2 (keys 3-4)`, `b3 (key 5)`: block b (0-based) as the gate panel labels it."""
    lo, hi = selection.blocks[b]
    return f"b{b + 1} (keys {lo + 1}-{hi + 1})" if hi > lo else f"b{b + 1} (key {lo + 1})"


def _moba_row(selection: MobaSelection, i: int) -> str:
    """`query 5 reads b3 (its own) and b1 (gate 3/2), passing b2 (gate 1/2)`: row i (0-based)."""
    own = selection.own[i]
    read = [f"b{own + 1} (its own)"] + [f"b{b + 1} (gate {format_number(selection.gates[i][b])})"
                                        for b in sorted(selection.chosen[i] - {own}, reverse=True)]
    passed = [f"b{b + 1} (gate {format_number(selection.gates[i][b])})" for b in range(own)
              if b not in selection.chosen[i]]
    tie = ", a tie at the cut broken by torch.topk's order" if selection.tied[i] else ""
    return (f"query {i + 1} reads {notation.and_list(read)}"
            + (f", passing {notation.and_list(passed)}" if passed else "") + tie)


def _moba_section(selection: MobaSelection) -> Section:
    blocks = notation.and_list(_block_name(selection, b) for b in range(len(selection.blocks)))
    rows = "; ".join(_moba_row(selection, i) for i in range(len(selection.own)))
    first = (f"{moba_phrase(selection)}, exactly. The keys are cut into blocks of {selection.block}: {blocks}. Each "
             "query i scores each block b by its gate s_ib = q_i·mean(K_b); it always reads its own block (causal "
             f"inside it), never a later one, and the rest of its {selection.top} blocks are its past blocks of "
             "highest gate, as MoBA's reference code (moba_naive) takes them with torch.topk.")
    return Section(heading="MoBA selection from Q and K",
                   paragraphs=(first, f"Chosen: {rows}. The steps that follow walk the scores of the chosen blocks' "
                                      "keys (j<=i): the mask this selection makes."),
                   formula=MOBA_TEX)


def _moba_reason(selection: MobaSelection, i: int, j: int) -> str:
    b = (j - 1) // selection.block
    why = f"query {i}'s own block" if b == selection.own[i - 1] else (
        f"a block query {i}'s gate chose (s_{{{i},{b + 1}}} = {format_number(selection.gates[i - 1][b])})")
    return f" Key {j} is in {_block_name(selection, b)}, {why}: the {moba_phrase(selection)} keeps it."


def _nsa_row(selection: NsaSelection, t: int) -> str:
    """`query 7 selects blocks 1, 2 and 4 (1 and 4 always)`: row t (0-based)."""
    chosen = sorted(selection.selected[t])
    forced = sorted(selection.forced[t])
    always = f" ({notation.and_list(str(b + 1) for b in forced)} always)" if forced else ""
    word = "block" if len(chosen) == 1 else "blocks"
    tie = ", a tie at the cut broken by torch.topk's order" if selection.tied and selection.tied[t] else ""
    return f"query {t + 1} selects {word} {notation.and_list(str(b + 1) for b in chosen)}{always}{tie}"


def _nsa_section(selection: NsaSelection) -> Section:
    p = selection.parameters
    first = (f"{nsa_phrase(selection)}, exactly. Three branches read each query t's keys: the compressed blocks (each "
             f"complete block of {p.cmp} keys, stride {p.stride}, summarised by φ = mean, as the paper's learned MLP "
             f"cannot be exact), the top {p.top} selection blocks of {p.slc} keys by the compressed softmax's "
             f"importance (the first {p.initial} and the {p.local} local ones always), and the window of the last "
             f"{p.window} keys; the gates g_cmp, g_slc and g_win weigh their outputs.")
    rows = "; ".join(_nsa_row(selection, t) for t in range(len(selection.selected)))
    return Section(heading="NSA branches from Q and K",
                   paragraphs=(first, f"Selected: {rows}. The steps that follow walk the scores of every key a branch "
                                      "reads (their union, the figure's mask); NSA itself attends each branch apart "
                                      "and sums the three outputs by their gates."),
                   formula=NSA_TEX)


def _nsa_reason(selection: NsaSelection, i: int, j: int) -> str:
    branches = [words for key, _, words in BRANCHES if selection.maps[key][i - 1][j - 1]]
    return (f" Key {j} is in query {i}'s {notation.and_list(branches)}: the {nsa_phrase(selection)} keeps it.")
