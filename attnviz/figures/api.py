"""`figure()`, the public way to draw attention: its options checked, then one head's figure (the full or scores view,
or the mask map: figures.single) or one panel per query head (figures.heads).

The composite (figures.composite) depends on `Drawable` and `Figure` (figures.figure), never on this module, so heads
(a composite) and `figure()` do not import each other in a ring.
"""

from __future__ import annotations

from ..numbers.exact import InputError
from .figure import Drawable, Figure, without_gc_pauses
from .options import figure_options
from .single import SEED_HIGHLIGHT, SEED_K, SEED_Q, named_mask, one_head_figure
from ..render.themes import with_dark_selector

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Literal, overload, Unpack

    from .figure import MaskMapFigure, ScoresFigure

    from .heads import HeadsFigure
    from .heads_schematic import HeadsSchematic
    from ..typing import FigureOptions, MaskSpec, Vectors, View

__all__ = ["Drawable", "Figure", "figure", "SEED_Q", "SEED_K", "SEED_HIGHLIGHT"]


# One head gives a Figure: a ScoresFigure for the full and scores views (scores and words always there), a
# MaskMapFigure for the mask view; several heads (q_heads, k_heads) a HeadsFigure of panels. Each overload
# names only what tells them apart; every other keyword is one of `**options` (attnviz.typing.FigureOptions).
if TYPE_CHECKING:
    @overload
    def figure(q: Vectors | None = None, k: Vectors | None = None, *, v: Vectors | None = None,
               view: Literal["full", "scores"] = "full", q_heads: None = None, k_heads: None = None,
               v_heads: None = None, head_masks: None = None, **options: Unpack[FigureOptions]) -> ScoresFigure: ...

    @overload
    def figure(q: Vectors | None = None, k: Vectors | None = None, *, v: Vectors | None = None,
               view: Literal["mask"], q_heads: None = None, k_heads: None = None, v_heads: None = None,
               head_masks: None = None, **options: Unpack[FigureOptions]) -> MaskMapFigure: ...

    @overload
    def figure(q: Vectors | None = None, k: Vectors | None = None, *, v: Vectors | None = None,
               view: View = "full", q_heads: None = None, k_heads: None = None, v_heads: None = None,
               head_masks: None = None, **options: Unpack[FigureOptions]) -> Figure: ...

    @overload
    def figure(  # type: ignore[overload-overlap]  # view="heads" draws the schematic; any other view, panels
               q: None = None, k: None = None, *, v: None = None, view: Literal["heads"],
               q_heads: Sequence[Vectors], k_heads: Sequence[Vectors], v_heads: Sequence[Vectors] | None = None,
               head_masks: Sequence[MaskSpec] | None = None, **options: Unpack[FigureOptions]) -> HeadsSchematic: ...

    @overload
    def figure(q: None = None, k: None = None, *, v: None = None, view: View = "full",
               q_heads: Sequence[Vectors], k_heads: Sequence[Vectors], v_heads: Sequence[Vectors] | None = None,
               head_masks: Sequence[MaskSpec] | None = None, **options: Unpack[FigureOptions]) -> HeadsFigure: ...

    @overload
    def figure(q: None = None, k: None = None, *, v: None = None, view: View = "full", q_heads: None = None,
               k_heads: None = None, v_heads: None = None, head_masks: Sequence[MaskSpec],
               **options: Unpack[FigureOptions]) -> HeadsFigure: ...


@without_gc_pauses
def figure(q: Vectors | None = None, k: Vectors | None = None, *, v: Vectors | None = None, view: View = "full",
           q_heads: Sequence[Vectors] | None = None, k_heads: Sequence[Vectors] | None = None,
           v_heads: Sequence[Vectors] | None = None, head_masks: Sequence[MaskSpec] | None = None,
           **options: Unpack[FigureOptions]) -> Figure | HeadsFigure | HeadsSchematic:
    """Build the figure for query vectors `q` and key vectors `k` (default: the seed's). Every keyword but the
    vectors, `view` and the heads' is one of `**options`, typed once by `attnviz.typing.FigureOptions`.

    `view`: "full" (default: vectors, scores, mask and the named softmax), "scores" (vectors and
    the grid of exact scores, no captions) or "mask" (the mask map: which cells are kept, legible
    to 1,024 tokens; needs no vectors: give `n` tokens or a `shape` (queries, keys) instead).
    `x_title`, `y_title`: the mask map's axis titles (default "key j", "query i").
    `index_base`: 1 (default, the seed's) or 0 (PyTorch's and attention-gym's): labels `Q0...`, captions,
    rules and highlight targets count from it.
    `elide`: draw only the first 4 and last 2 rows and columns (and every one `highlight` names),
    with ⋮, ⋯ and ⋱ for the rest, and long caption lists as their first and last terms: figures of up
    to 1,024 tokens (without it, 64). Every value shown is the value the whole figure shows.

    `q`, `k`: sequences of equal-length vectors of ints, Fractions, exact strings
    ("1/2", "0.5") or floats (read as the decimal they print as: 0.1 is 1/10), or 2-D numpy arrays or
    torch tensors (any real dtype; a tensor on another device is read on the CPU, and the figure says so).
    A float of more than 6 significant digits is refused unless `decimals` is given.
    `decimals`: round every entry of q, k and v to that many decimals (exactly, half to even, from the
    decimal it prints as); the figure says "inputs rounded to N decimals; scores exact from the rounded values".
    `highlight`: targets marked "computed this step": (i, j) pairs or strings
    "I,J", "row=I", "mask", "softmax=I", "softmax", "output=I", "output" (counted from `index_base`; outputs need `v`).
    `mask`: "causal" (default), "none", "window=W", "prefix=P", "chunk=C", "segments=1,1,2",
    "padding=4,5", "matrix=100;110;111", a callable keep(q_idx, kv_idx) (0-based, like
    FlexAttention's mask_mod), an `engine.BoundMask`, or a list of these (kept only where all keep).
    `align`: "top-left" or "bottom-right", the causal diagonal when keys outnumber queries.
    `scale`: "sqrt" (logits S/√d) or an exact positive number R (R·S).
    `bias`: "alibi=M", "matrix=0,-1;0,0", a callable bias(q_idx, kv_idx), or a list of these.
    `v`: value vectors, one per key: the figure then writes each output O_i = Σ w_ij·V_j.
    `softmax`: "expanded", "normalizer" or "grouped", how named weights are written.
    `weights`: "named" (exact) or "decimal=N" (rounded, each marked ≈).
    `show`: "scores" (the grid shows S_ij) or "logits" (the grid shows the softmax's exponents).
    `tokens`: labels for both axes (when queries and keys are the same tokens);
    `q_tokens`, `k_tokens`: labels for each axis. Shown verbatim in place of Q1.., K1...
    `title`, `subtitle`: the figure's title and subtitle (default: the seed's); the subtitle is
    also the SVG's `<desc>`. `id_prefix`: the ids' prefix (default: from the figure's content, so
    the same figure gets the same ids); give one per figure when several share a page.
    `theme`: "light" (default), "dark", "print", "contrast" or "auto" (follows the viewer's
    light or dark preference). `embed_font`: inline the font, subset, so the figure looks the
    same where DejaVu is not installed. `frame`: where the figure lands: "doc" (default, the web figure),
    "slide" (16:9; no text under 16 px at 1,280×720), "slide-4:3", "column" (a 3.3-inch paper column; no
    text under 7 pt) or "column-wide" (7 inches): the layout is made for it (`layout.frames`).
    `color_by`: "none" (default) or "part": a mask map colours each part of a union (`a | b`) by the first
    part that keeps the cell, with one legend entry per part.
    `blocks`: FlexAttention's block size, B or (BQ, BK): every block of the mask map or score grid outlined and
    classed full (no mask call), partial (masked per element) or empty (skipped) as torch's `create_block_mask`
    classes it, with `BlockMask.sparsity()` (`engine.blocks`); one head's figure.
    `mask_name`, `mask_rule`: the mask's name and rule as the caption says them (any mask: a matrix's
    caption is then its name and rule, not its rows); user text, shown as given.
    `dark_selector` (with theme "auto"): a CSS selector of the page's own dark toggle, e.g. "html.dark":
    the figure is dark inside it and light elsewhere (without it, an auto figure follows the Furo, PyData,
    MkDocs Material and JupyterLab toggles, then the system's setting: `render.themes.PAGE_TOGGLES`).
    `q_heads`, `k_heads`, `v_heads` (instead of `q`, `k`, `v`): one list of vectors per query head
    and per KV head, for multi-head, grouped-query and multi-query attention (`heads.heads_figure`):
    one panel per query head; the other arguments apply to every panel. With `view="heads"` they draw
    the heads schematic instead: each query head a box, a line to the KV head it reads; with
    `view="mask"`, each head's mask map. `head_masks`: one mask per query head (instead of `mask`), or,
    without vectors, with `view="mask"` and `n` or `shape`, one mask map per head side by side (Sparse
    Transformer's two heads: `head_masks=["window=4", "window=16,dilation=4"]`).

    >>> fig = figure(highlight=[(3, 3)])
    >>> fig.attention.scores[2][2]
    Fraction(2, 1)
    """
    record = figure_options(options)
    if record["dark_selector"] is not None:  # a figure keeps its theme as one str, the selector in it (`Theme.key`)
        key = with_dark_selector(record["theme"], record["dark_selector"]).key  # what get_theme reads back
        record = figure_options(record, theme=key)  # type: ignore[arg-type]  # not one of ThemeName's
    if head_masks is not None and q_heads is None and k_heads is None and v_heads is None:
        from .heads import head_mask_maps  # start-up: one head, the usual figure, needs none of it

        if view != "mask" or q is not None or k is not None:
            raise InputError("gives each head its own mask: give q_heads and k_heads, or draw the heads' mask maps "
                             "(view='mask' with n or shape)", "head_masks")
        if record["blocks"] is not None:
            raise InputError("blocks are outlined on one head's mask map: give mask and n", "blocks")
        return head_mask_maps(head_masks, record)
    if q_heads is None and k_heads is None and v_heads is None:
        return one_head_figure(q, k, v, view, record)
    from .heads import heads_figure  # start-up: one head, the usual figure, needs none of it

    given = [name for name, value in (("q", q), ("k", k), ("v", v)) if value is not None]
    if given or q_heads is None:
        raise InputError("give q_heads, k_heads (and v_heads) for several heads, or q, k (and v) for one, "
                         "not both", given[0] if given else "q_heads")
    _check_several_heads(record)
    record = figure_options(record, mask=named_mask(record["mask"], record["mask_name"], record["mask_rule"]),
                            mask_name=None, mask_rule=None)
    if record["differential"] is not None and view != "mask":  # A1, A2 and A1 − λ·A2
        from .differential import differential_figure  # start-up: only differential attention needs it

        if k_heads is None:
            raise InputError("differential attention needs k_heads too (one or two KV heads)", "k_heads")
        return differential_figure(q_heads, k_heads, v_heads, record)  # type: ignore[return-value]
    if view == "heads":  # the schematic: which KV head each query head reads
        from .heads_schematic import heads_schematic

        return heads_schematic(q_heads, k_heads, v_heads, record)
    return heads_figure(q_heads, k_heads, v_heads, head_masks, view, record)


def _check_several_heads(record: FigureOptions) -> None:
    """Refuses the options only one head's figure takes."""
    if record["color_by"] != "none":
        raise InputError("colour by part in a mask map (view='mask') of one head", "color_by")
    if record["blocks"] is not None:
        raise InputError("blocks are outlined on one head's mask map or score grid: give q and k (or n)", "blocks")


# `attnviz.figure.Figure`, the path documented before 0.2 (setattr: a type checker refuses a new attribute on
# a function)
setattr(figure, "Figure", Figure)  # noqa: B010
