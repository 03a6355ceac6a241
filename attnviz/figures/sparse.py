"""The panels a sparse figure draws beside its mask, as the papers draw them: MoBA's gate scores with the chosen
blocks marked, NSA's three branches as mask maps (`sparse_panels`); a spec or the command composes them with the
figure (`with_sparse_panels`). The mask itself is figures.sparse_mask's.
"""

from __future__ import annotations

import contextlib

from ..engine.bound_mask import BoundMask
from ..engine.runs import scan_runs
from ..numbers.exact import InputError
from .sparse_mask import bound_cells, nsa_phrase, select

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Sequence
    from fractions import Fraction
    from typing import TypedDict

    from .composite import Composite
    from .figure import Figure
    from ..engine.attention import Attention
    from ..layout.mask_map import MapText
    from ..words.figure_text import FigureText
    from ..engine.moba import MobaSelection
    from ..engine.nsa import NsaSelection
    from ..typing import FrameName, ThemeName, Vectors

    class Look(TypedDict):
        """How the panels look: the figure's own."""

        theme: ThemeName
        frame: FrameName
        embed_font: bool
else:
    Look = dict

__all__ = ["sparse_panels", "with_sparse_panels", "selection_figure"]


def sparse_panels(fig: Figure, spec: object, vectors: tuple[Vectors | None, Vectors | None] | None = None,
                  gate_map: bool = False) -> list[Figure]:
    """The panels drawn beside `fig` (a figure drawn with `sparse=spec`): MoBA's gate scores, one row per query
    and one column per key block, the chosen blocks marked (with `gate_map`, the chosen blocks as a map, no
    scores: where a frame holds no score grid beside a map, or past 64 queries); NSA's three branches as mask
    maps. A mask map keeps no vectors: give them (`vectors`, as `fig` was drawn from them)."""
    from .api import figure  # start-up: only a sparse figure's panels are drawn here
    from ..engine.attention import MAX_TOKENS, Attention, exact_vectors

    attention = fig.attention
    if isinstance(attention, Attention):
        q, k = attention.q, attention.k
    elif vectors is not None and vectors[0] is not None and vectors[1] is not None:
        q, k = exact_vectors(vectors[0], "q"), exact_vectors(vectors[1], "k")
    else:
        raise InputError("a mask map keeps no vectors: give the q and k it was drawn from", "sparse")
    scale = getattr(getattr(attention, "scale", None), "factor", None)
    selection = select(spec, q, k, scale)
    common = Look(theme=fig.theme, frame=fig.frame, embed_font=fig.embed_font)  # type: ignore[typeddict-item]
    if hasattr(selection, "block"):
        if TYPE_CHECKING:
            assert isinstance(selection, MobaSelection)
        # past a score grid's 64 rows (an elided figure), the gate as a map too
        return [_gate_map(selection, common) if gate_map or len(q) > MAX_TOKENS else
                _gate_panel(selection, q, common)]
    if TYPE_CHECKING:
        assert isinstance(selection, NsaSelection)
    from ..engine.nsa import BRANCHES  # start-up: only NSA's panels name its branches

    n = len(q)
    panels: list[Figure] = []
    for key, gate, words in BRANCHES:
        kept = selection.maps[key]
        rule = {"cmp": f"j in a complete compressed block ({selection.parameters.cmp} keys, stride "
                       f"{selection.parameters.stride}; φ = mean)",
                "slc": f"j<=i in the top {selection.parameters.top} selection blocks of {selection.parameters.slc} "
                       "keys by the compressed softmax's importance",
                "win": f"i-{selection.parameters.window}<j<=i"}[key]
        mask = bound_cells(kept, f"{words} ({gate})", rule, nsa_phrase(selection))
        panels.append(figure(view="mask", shape=f"{n}x{n}", mask=mask, title=f"{words}, gate {gate}", **common))
    return panels


def _gate_map(selection: MobaSelection, common: Look) -> Figure:
    """MoBA's choice as a map: a row per query, a column per block, the blocks it reads kept."""
    from .api import figure  # start-up: only a sparse figure's panels are drawn here
    from ..records import replace

    n_q, n_blocks = len(selection.own), len(selection.blocks)
    chosen = [[selection.status(i, b) in ("own", "chosen") for b in range(n_blocks)] for i in range(n_q)]
    mask = bound_cells(chosen, "chosen block", "block b read by query i: its own, or a top gate q_i·mean(K_b)",
                       "MoBA's chosen blocks")
    labels = [f"b{b + 1}" for b in range(n_blocks)]
    gate = figure(view="mask", shape=f"{n_q}x{n_blocks}", mask=mask, k_tokens=labels, x_title="key block b",
                  q_tokens=[str(i + 1) for i in range(n_q)], **common)
    return _with_words(gate, replace(gate.words, title=f"MoBA's blocks, top {selection.top} by gate q_i·mean(K_b)"))


def _with_words(fig: Figure, words: FigureText | MapText) -> Figure:
    """`fig` with `words`, some of them attnviz's own (its title typeset as its captions are, not a user's text)."""
    from ..render.themes import get_theme  # start-up: only a sparse figure's panels are drawn here

    return type(fig)(fig.attention, fig.highlight, words, theme=get_theme(fig.theme), embed_font=fig.embed_font,
                     frame=fig.frame)


def _gate_panel(selection: MobaSelection, q: Sequence[Sequence[Fraction]], common: Look) -> Figure:
    """MoBA's gate: S_ib = q_i·mean(K_b) as a score grid, future blocks masked, chosen (and own) blocks marked."""
    n_blocks = len(selection.blocks)
    seen = [[selection.status(i, b) != "future" for b in range(n_blocks)] for i in range(len(q))]
    mask = BoundMask("no future block", "b<=block(i)", lambda i, b: seen[i][b],
                     row_runs=lambda i: scan_runs(seen[i].__getitem__, n_blocks), shape=(len(q), n_blocks),
                     computed="gate scores q_i·mean(K_b), exact; chosen blocks marked")
    marked = [(i + 1, b + 1) for i in range(len(q)) for b in range(n_blocks)
              if selection.status(i, b) in ("own", "chosen")]
    labels = [f"b{b + 1}:{lo + 1}-{hi + 1}" if hi > lo else f"b{b + 1}:{lo + 1}" for b, (lo, hi) in
              enumerate(selection.blocks)]
    from .api import figure  # start-up: only a sparse figure's panels are drawn here
    from ..records import replace

    tie = "; ties broken by torch.topk's order" if any(selection.tied) else ""
    gate = figure(q, [list(mean) for mean in selection.means], view="scores", mask=mask, highlight=marked,
                  k_tokens=labels, subtitle=f"Own block always, future blocks never (−∞), the rest by gate score{tie}.",
                  **common)
    # its grid is of gate scores against the blocks' mean keys, not of S_ij against keys
    return _with_words(gate, replace(gate.words, title=f"MoBA gate q_i·mean(K_b), top {selection.top} marked",
                                     grid_caption="gate s_ib=q_i·mean(K_b), K(b…) the mean key of block b; "
                                                  "future blocks masked"))


def with_sparse_panels(fig: Figure, spec: object, id_prefix: str | None = None,
                       vectors: tuple[Vectors | None, Vectors | None] | None = None,
                       source: Figure | None = None, captions: str = "auto") -> Composite:
    """`fig` and its sparse panels in one figure, under its title: MoBA's gate then the mask; NSA's three branches
    then their union (in a grid of two columns), each arranged as its frame holds it. `source`: the full figure
    whose vectors (and scale) the panels are computed from, when `fig` is its mask as a map (a walkthrough's
    first step); it keeps `fig`'s frame; where its maps come out under the map floor
    (figures.model_floor: a tenth of an inch a cell) or its panels' words shortened, the panels' rule captions
    are left to the description (`captions` "hide": the walkthrough's sentences say them)."""
    refused = None
    for gate_map in (False, True) if fig.view == "mask" and fig.frame != "doc" else (False,):
        try:
            composed = _composed(fig, sparse_panels(source or fig, spec, vectors, gate_map), id_prefix, captions)
        except InputError as err:  # the gate's scores beside a map, past the frame: the gate as a map
            refused = err
            continue
        composed.for_frame = lambda frame: _for_frame(fig, frame, spec, id_prefix, (vectors, source))  # type: ignore[attr-defined]
        if source is not None and captions == "auto" and _cramped(composed, fig.frame):
            with contextlib.suppress(InputError):  # (else the figure as it fits)
                return with_sparse_panels(fig, spec, id_prefix, vectors, source, "hide")
        return composed
    assert refused is not None  # (a way was tried)
    raise refused


def _cramped(composed: Composite, frame: str) -> bool:
    """Whether a framed composite's maps come out under the map floor (a tenth of an inch a cell) or its panels'
    titles or rule captions are shortened with "…" or left out for want of room (the walkthrough's sentences say
    them then, `captions` "hide")."""
    from .model_floor import under_floor  # start-up: only a walkthrough's selection measures its maps
    from ..layout.frames import get_frame

    if frame == "doc":
        return False
    layout = composed.layout()
    return under_floor(layout, get_frame(frame)) is not None or any(
        "shortened" in said or said.startswith("rule captions left out") for said in layout.choices)


def _composed(fig: Figure, panels: Sequence[Figure], id_prefix: str | None, captions: str = "auto") -> Composite:
    """`panels` then `fig` in the first arrangement that fits its frame at its floor (`captions`: the maps' rule
    captions, as `compose` takes them)."""
    from .composite import compose  # start-up: only a sparse figure composes its panels
    from ..records import replace
    from ..render.themes import get_theme

    name = "the mask: the chosen blocks' keys, causal" if len(panels) == 1 else "union of the branches, NSA's keys"
    main = type(fig)(fig.attention, fig.highlight, replace(fig.words, title=name), theme=get_theme(fig.theme),
                     embed_font=fig.embed_font, frame=fig.frame)
    refused = None
    for arrange in ARRANGEMENTS[len(panels) > 1]:  # the first that fits the frame at its floor
        composed = compose(*panels, main, arrange=arrange, title=fig.words.title, id_prefix=id_prefix,
                           panel_captions=captions)  # (one of PANEL_PARTS)
        composed.asked_arrange = None  # (attnviz's order of arrangements, not a user's: a frame may rearrange them)
        if fig.frame == "doc":
            return composed
        try:
            composed.layout()
        except InputError as err:
            if err.where != "frame":
                raise
            refused = err
            continue
        return composed
    assert refused is not None  # (every arrangement was tried)
    raise refused


def _for_frame(fig: Figure, frame: str, spec: object, id_prefix: str | None,
               given: tuple[tuple[Vectors | None, Vectors | None] | None, Figure | None]) -> Composite | None:
    """`fig` and its sparse panels arranged anew for `frame` (a deck's slide region: the gate may become a map there);
    None when no arrangement fits it (the deck then tries its next region). `given`: the vectors and the source
    `with_sparse_panels` was given."""
    import copy  # start-up: only a deck re-frames a sparse figure

    vectors, source = given
    framed = copy.copy(fig)
    framed.frame = frame
    if source is not None:  # the panels' look follows the frame too
        source = copy.copy(source)
        source.frame = frame
    try:
        return with_sparse_panels(framed, spec, id_prefix, vectors, source)
    except InputError as err:
        if err.where != "frame":
            raise
        return None


def selection_figure(fig: Figure, spec: str, id_prefix: str | None = None) -> Composite:
    """The selection behind `fig` (a full figure drawn with `sparse=spec`) as a figure of its own, a walkthrough's
    first step: MoBA's gate scores with the chosen blocks marked (NSA's three branches) beside the mask they select,
    as a map, each computed from `fig`'s own exact vectors and scale, in `fig`'s frame and look."""
    from .api import figure  # start-up: only a sparse walkthrough draws its selection apart

    words, attention = fig.words, fig.attention
    if TYPE_CHECKING:  # a full figure's: its vectors and its mask
        assert isinstance(attention, Attention)
    n_q, n_k = len(words.q_labels), len(words.k_labels)
    labelled = (list(words.q_labels) != [f"Q{i}" for i in range(1, n_q + 1)]
                or list(words.k_labels) != [f"K{j}" for j in range(1, n_k + 1)])  # tokens, not Q1.., K1..
    look = Look(theme=fig.theme, frame=fig.frame, embed_font=fig.embed_font)  # type: ignore[typeddict-item]
    mask_map = figure(view="mask", shape=f"{n_q}x{n_k}", mask=attention.mask, title=words.title,
                      q_tokens=list(words.q_labels) if labelled else None,
                      k_tokens=list(words.k_labels) if labelled else None, **look)
    return with_sparse_panels(mask_map, spec, id_prefix, source=fig)


#: The arrangements a sparse figure's panels try, in order (MoBA's two panels; NSA's four).
ARRANGEMENTS = (("row", "column"), ("grid:2", "row", "column"))
