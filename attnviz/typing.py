"""Names for what attnviz's API accepts, to annotate your own code with.

attnviz's modules use these names only for type checking (this module imports `typing`,
which the command's start-up does without). A value of each kind:

>>> from fractions import Fraction
>>> from attnviz.typing import Vectors, MaskSpec, BiasSpec, HighlightSpec
>>> q: Vectors = [[1, 0], ["1/2", Fraction(3, 4)], [0.5, 2]]
>>> mask: MaskSpec = ["window=2", lambda q_idx, kv_idx: kv_idx != 0]
>>> bias: BiasSpec = "alibi=1/2"
>>> highlight: HighlightSpec = [(3, 3), "softmax=2"]
>>> import attnviz
>>> attnviz.figure(q, q, mask=mask, bias=bias, highlight=highlight).attention.kept[2]
(False, True, True)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
from os import PathLike
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, TypedDict, Union

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    import torch

    from .engine.attention import Bias, BoundMask as Mask
    from .engine.masks import Mask as MaskExpression
    from .numbers.surds import Surd

__all__ = ["Exact", "Number", "Vector", "Vectors", "MaskFunction", "MaskItem", "MaskSpec", "BiasFunction", "BiasSpec",
           "SinkSpec", "ScaleSpec",
           "HighlightTarget", "HighlightSpec", "Labels", "Shape", "View", "Align", "SoftmaxForm", "Show",
           "ThemeName", "FrameName", "ColorBy", "BlockSize", "IndexBase", "Arrange", "FlashOrder",
           "FigureOptions", "PanelParts", "ModelOptions"]

# Aliases with a string forward reference (a name imported only for type checking) stay `Union[...]`:
# `X | "Y"` raises TypeError at run time, and these aliases are run-time values users may inspect.

#: An exact value attnviz computes: a Fraction, or a Surd (a + b·√r) where a scale of 1/√d makes one.
Exact: TypeAlias = Union[Fraction, "Surd"]
#: One exact input number: an int, a Fraction, a Decimal, a string ("3", "-1/2", "0.25", "1e-3"),
#: a float (read as the decimal it prints as: 0.1 is 1/10), or a numpy integer or float scalar.
Number: TypeAlias = Union[int, Fraction, Decimal, str, float, "np.integer", "np.floating"]
#: One vector: a sequence of numbers.
Vector: TypeAlias = Sequence[Number]
#: Vectors, one per token, all of one length: a sequence of vectors, a 2-D numpy array or a 2-D torch tensor.
Vectors: TypeAlias = Union[Sequence[Vector], "npt.NDArray[np.integer | np.floating]", "torch.Tensor"]
#: A mask rule you already run: keep(q_idx, kv_idx) on 0-based positions, or FlexAttention's
#: mask_mod(b, h, q_idx, kv_idx). It answers with a truth value (bool, 0/1, a one-element array
#: or tensor); anything else is refused when the figure is built.
MaskFunction: TypeAlias = Callable[[int, int], object] | Callable[[int, int, int, int], object]
#: One mask: a family or a combination in the command line's grammar ("causal", "window=3"), a
#: mask function, an `attnviz.Mask` (built with its operators), an `engine.BoundMask`, or a table with
#: one key, "all", "any" or "not". A sequence of these is kept only where all keep.
MaskItem: TypeAlias = Union[str, MaskFunction, "Mask", "MaskExpression", Mapping[str, object]]
MaskSpec: TypeAlias = MaskItem | Sequence[MaskItem]
#: A bias function: bias(q_idx, kv_idx) on 0-based positions, returning an exact number; or
#: FlexAttention's score_mod(score, b, h, q_idx, kv_idx), returning the new logit.
BiasFunction: TypeAlias = Callable[[int, int], Number] | Callable[[Any, int, int, int, int], object]
#: A bias: "alibi=M", "matrix=0,-1;0,0", a bias function, an `engine.Bias`, or a sequence of these.
BiasSpec: TypeAlias = Union[str, BiasFunction, "Bias", Sequence[Union[str, BiasFunction, "Bias"]]]
#: A sink logit, a sigmoid's bias or differential attention's λ: an exact number, or text ("s", "-ln(n)", "λ").
SinkSpec: TypeAlias = Number
#: The logits' scale: "sqrt" (S/√d) or an exact positive number R (R·S).
ScaleSpec: TypeAlias = Literal["sqrt"] | Number
#: One highlight target: a cell (i, j), or "I,J", "row=I", "mask", "softmax=I", "softmax",
#: "output=I", "output", counted from the figure's index base.
HighlightTarget: TypeAlias = tuple[int, int] | str
#: Highlight targets: one target or a sequence of them.
HighlightSpec: TypeAlias = HighlightTarget | Sequence[HighlightTarget]
#: Token labels, one per query or key: shown verbatim in place of Q1.., K1...
Labels: TypeAlias = Sequence[str]
#: A mask map's size, queries × keys: "4x12" or (4, 12).
Shape: TypeAlias = str | tuple[int, int]
#: What a figure draws: the full figure, the scores alone, or the mask map.
View: TypeAlias = Literal["full", "scores", "mask", "heads"]
#: Where the causal diagonal sits when keys outnumber queries (top-left, as PyTorch's is_causal, or bottom-right).
Align: TypeAlias = Literal["top-left", "bottom-right"]
#: How the named softmax is written out.
SoftmaxForm: TypeAlias = Literal["expanded", "normalizer", "grouped"]
#: Which numbers the score panel shows: the scores or the scaled logits.
Show: TypeAlias = Literal["scores", "logits"]  # specs and --show also take "bias" (a second panel)
#: A figure's colour theme.
ThemeName: TypeAlias = Literal["light", "dark", "print", "contrast", "auto"]
#: Where a figure lands: a docs page, a 16:9 or 4:3 slide, a paper column (layout.frames); a column of any
#: width is "column:3.5in" (a str).
FrameName: TypeAlias = Literal["doc", "slide", "slide-4:3", "column", "column-wide"] | str
ColorBy: TypeAlias = Literal["none", "part"]
#: FlexAttention's block size: B, or (BQ, BK) query rows by key columns; text "4" or "4,2" too.
BlockSize: TypeAlias = int | str | tuple[int, int]
#: Whether positions are counted from 0 or from 1.
IndexBase: TypeAlias = Literal[0, 1]
#: How composed panels are arranged: "row", "column" or "grid:C" (C columns).
Arrange: TypeAlias = str
#: FlashAttention's loop order: "fa2" (outer loop over query blocks) or "fa1" (over key blocks).
FlashOrder: TypeAlias = Literal["fa2", "fa1"]


class FigureOptions(TypedDict, total=False):
    """`figure()`'s keyword options besides the vectors, the view and the heads (its `**options`), each with
    its type; its defaults are the option table's (`figures.options`, which tests hold this to)."""

    n: int | None
    shape: Shape | None
    tokens: Labels | None
    q_tokens: Labels | None
    k_tokens: Labels | None
    highlight: HighlightSpec | None
    mask: MaskSpec
    sparse: str | None
    mask_name: str | None
    mask_rule: str | None
    align: Align
    scale: ScaleSpec | None
    bias: BiasSpec | None
    sink: SinkSpec | None
    sigmoid: SinkSpec | None
    softcap: ScaleSpec | None
    differential: SinkSpec | None
    decimals: int | None
    softmax: SoftmaxForm
    weights: str
    show: Show
    index_base: IndexBase
    elide: bool
    x_title: str | None
    y_title: str | None
    title: str | None
    subtitle: str | None
    theme: ThemeName
    frame: FrameName
    color_by: ColorBy
    blocks: BlockSize | None
    dark_selector: str | None
    embed_font: bool
    id_prefix: str | None


class PanelParts(TypedDict, total=False):
    """What becomes of composed panels' rule captions and subtitles ("auto", "show", "shared" or "hide") and
    their one legend ("shared" or "hide"): `compose()`'s keywords."""

    panel_captions: str
    panel_subtitles: str
    panel_legend: str


class ModelOptions(TypedDict, total=False):
    """`model_figure()`'s keywords, each with its type (their defaults: `figures.model.MODEL_DEFAULTS`)."""

    n: int | None
    tokens: str | Sequence[str] | None
    layers: str | Sequence[int]
    pad_left: int
    pad_right: int
    decode: int
    image_tokens: tuple[int, int] | tuple[tuple[int, int], ...] | str | None
    packed: str | Sequence[int] | None
    prefix: int
    decoder_n: int | None
    buckets: bool
    tokenizer: str | PathLike[str] | None
    title: str | None
    theme: ThemeName
    embed_font: bool
    frame: FrameName
    id_prefix: str | None
