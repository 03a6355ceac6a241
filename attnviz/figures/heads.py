"""Multi-head, grouped-query (GQA) and multi-query (MQA) attention: one panel per query head.

H query heads read G key/value heads (G divides H): query head h reads KV head ⌊h/(H/G)⌋, 0-based, the mapping of GQA's
paper and of every implementation that repeats K and V (`repeat_kv`, `enable_gqa`). G = H is multi-head attention, G = 1
multi-query attention. Each head's panel is that head's exact figure; heads that share a KV head sit together, and the
shared K (and V) is written once per group, in the group's first panel.
"""

from __future__ import annotations

from dataclasses import replace

from ..engine.attention import exact_vectors
from ..numbers.exact import InputError
from .composite import MAX_PANELS, Composite, within
from .options import figure_options
from .single import check_base, one_head_figure
from ..layout.figure import Group
from ..render.themes import get_theme
from ..words.user_text import check_text

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from fractions import Fraction
    from typing import Any, TypeAlias

    from ..layout.figure import Layout
    from ..typing import Arrange, BiasSpec, FigureOptions, MaskSpec, SinkSpec, Vectors, View
    from ..words.figure_text import FigureText
    from .figure import Drawable, Figure

    #: Each head's exact vectors.
    Heads: TypeAlias = "tuple[tuple[tuple[Fraction, ...], ...], ...]"

__all__ = ["MAX_HEADS", "MAX_HEAD_CELLS", "HeadsFigure", "kv_head", "check_heads", "heads_figure", "kind",
           "check_head_masks", "head_mask_maps", "heads_title", "reads"]

MAX_HEADS = MAX_PANELS
#: Cells over all panels: four 64×64 figures' worth (16 heads of 32×32); more would be tens of MB of SVG.
MAX_HEAD_CELLS = 4 * 64 * 64
MAX_COLUMNS = 4  # panels per row: four head figures side by side are already 3,000 units wide


def kv_head(h: int, n_heads: int, n_kv: int) -> int:
    """The KV head (0-based) query head `h` (0-based) reads: ⌊h/(H/G)⌋.

    >>> [kv_head(h, 8, 2) for h in range(8)]
    [0, 0, 0, 0, 1, 1, 1, 1]
    """
    return h // (n_heads // n_kv)


def kind(n_heads: int, n_kv: int) -> str:
    """What H query heads over G KV heads are called."""
    if n_heads == 1:
        return "single-head attention"
    if n_kv == n_heads:
        return "multi-head attention"
    return "multi-query attention (MQA)" if n_kv == 1 else "grouped-query attention (GQA)"


def _heads(value: Sequence[Vectors], name: str, noun: str, decimals: int | None = None) -> Heads:
    """A list of per-head vector lists, each checked as `q` or `k` is."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__"):
        raise InputError(f"expected a list with one list of vectors per {noun}", name)
    value = list(value)
    if not value:
        raise InputError(f"no {noun}s given", name)
    if len(value) > MAX_HEADS:
        raise InputError(f"{len(value)} {noun}s; the limit is {MAX_HEADS}", name)
    return tuple(exact_vectors(vectors, f"{name}: head {h}", decimals=decimals) for h, vectors in enumerate(value, 1))


def check_heads(q_heads: Sequence[Vectors], k_heads: Sequence[Vectors] | None, v_heads: Sequence[Vectors] | None = None,
                decimals: int | None = None) -> tuple[Heads, Heads, Heads | None]:
    """(q, k, v) per head, exact (rounded to `decimals` if given); refuses a G that does not divide H and
    mismatched shapes."""
    if k_heads is None:
        raise InputError("q_heads needs k_heads too: one list of key vectors per KV head", "k_heads")
    q = _heads(q_heads, "q_heads", "query head", decimals)
    k = _heads(k_heads, "k_heads", "KV head", decimals)
    if len(q) % len(k):
        raise InputError(f"{len(q)} query heads cannot share {len(k)} KV heads evenly: the number of KV heads must "
                         f"divide the number of query heads", "k_heads")
    v: Heads | None = None
    if v_heads is not None:
        v = _heads(v_heads, "v_heads", "KV head", decimals)
        if len(v) != len(k):
            raise InputError(f"{len(v)} value heads for {len(k)} key heads; give one list of value vectors per KV "
                             "head", "v_heads")
        for g, (keys, values) in enumerate(zip(k, v), 1):
            if len(keys) != len(values):
                raise InputError(f"{len(values)} value vectors for {len(keys)} keys; give one per key",
                                 f"v_heads: head {g}")
    return q, k, v


class HeadsFigure(Composite):
    """The panels of every query head; each panel's group is an `attnviz-head` with its head numbers."""

    def __init__(self, panels: Sequence[Drawable], kv_heads: Iterable[int], base: int = 1, **kwargs: Any) -> None:
        super().__init__(panels, **kwargs)
        self.kv_heads = tuple(kv_heads)  # 0-based, per panel
        self.base = base

    def _key(self) -> object:
        return ("heads", self.kv_heads, super()._key())

    def layout(self, cell: float | None = None, grid_top: float | None = None) -> Layout:
        """The composite's layout, each panel's group marked with its query head and KV head."""
        layout = super().layout(cell, grid_top)
        heads = iter(enumerate(self.kv_heads))
        items = []
        for item in layout.items:
            if isinstance(item, Group) and item.classes[:1] == ("attnviz-panel",):
                h, g = next(heads)
                item = replace(item, classes=("attnviz-head",) + item.classes,
                               attrs=(("data-head", str(h + self.base)), ("data-kv-head", str(g + self.base)))
                               + item.attrs)
            items.append(item)
        return replace(layout, items=items)

    def arranged(self, arrange: Arrange) -> HeadsFigure:
        """The same heads placed `arrange`d: "row", "column" or "grid:C" (`--arrange` with heads)."""
        return HeadsFigure(self.panels, self.kv_heads, base=self.base, arrange=arrange, title=self.title,
                           id_prefix=self._id_prefix, theme=self.theme, embed_font=self.embed_font, frame=self.frame)

    def __repr__(self) -> str:
        return f"<attnviz.HeadsFigure {len(self.panels)} query heads, {len(set(self.kv_heads))} KV heads>"


#: The options each head's panel takes from the figure's (the others are the whole figure's, or the mask view's).
PANEL_OPTIONS = ("highlight", "mask", "align", "scale", "bias", "sink", "sigmoid", "softcap",
                 "softmax", "weights", "show", "tokens", "q_tokens",
                 "k_tokens", "elide", "decimals", "index_base", "theme", "embed_font", "frame")
#: The options each head's mask map takes from the figure's.
MAP_OPTIONS = ("n", "shape", "align", "tokens", "q_tokens", "k_tokens", "x_title", "y_title", "index_base", "theme",
               "embed_font", "frame")


def heads_figure(q_heads: Sequence[Vectors], k_heads: Sequence[Vectors] | None, v_heads: Sequence[Vectors] | None,
                 head_masks: Sequence[MaskSpec] | None, view: View, options: FigureOptions) -> HeadsFigure:
    """One panel per query head, each the exact figure of that head with the figure's `options` (its mask
    named already); `head_masks` (one per query head) gives each head its own mask. Heads are numbered from
    `index_base`, as the panels' rows and columns are."""
    check_base(options["index_base"])
    b = options["index_base"]
    q, k, v = check_heads(q_heads, k_heads, v_heads, options["decimals"])
    n_heads, n_kv = len(q), len(k)
    masks = check_head_masks(head_masks, n_heads)
    sinks = head_sinks(options["sink"], n_heads)
    group = n_heads // n_kv
    cells = sum(len(q[h]) * len(k[kv_head(h, n_heads, n_kv)]) for h in range(n_heads))
    if cells > MAX_HEAD_CELLS:
        raise InputError(f"{n_heads} heads draw {cells:,} cells in all; the limit is {MAX_HEAD_CELLS:,} (e.g. 16 "
                         "heads of 32 tokens): use fewer heads or tokens", "q_heads")
    panels: list[Figure] = []
    kv = [kv_head(h, n_heads, n_kv) for h in range(n_heads)]
    for h, g in enumerate(kv):
        first, last = g * group + b, (g + 1) * group - 1 + b
        shared = f"KV head {g + b}" if group == 1 else f"KV head {g + b}, shared by query heads {first}–{last}"
        subtitle = options["subtitle"] if options["subtitle"] is not None else f"Reads {shared}."
        panel = figure_options(options, PANEL_OPTIONS, title=f"Query head {h + b}", subtitle=subtitle,
                               mask=options["mask"] if masks is None else masks[h], sink=sinks[h],
                               bias=_head_bias(options["bias"], h + b))
        try:
            fig = one_head_figure(q[h], k[g], None if v is None else v[g], view, panel)
        except InputError as err:
            raise err.relocated(within(f"head {h + 1}")) from None
        if h + b != first and fig.view != "mask":  # the group's K and V are written once, in its first panel
            words = fig.words
            if TYPE_CHECKING:  # one head is never a mask map
                assert isinstance(words, FigureText)
            words = replace(words, k_line=f"K: KV head {g + b}'s, written in query head {first}'s panel",
                            more_vectors=tuple(f"V: KV head {g + b}'s, written in query head {first}'s panel"
                                               if line.startswith("V") else line for line in words.more_vectors))
            given = fig.rounded, fig.rounding, fig.decimal_inputs  # what the figure says of its inputs' form
            fig = type(fig)(fig.attention, fig.highlight, words, theme=get_theme(fig.theme), embed_font=fig.embed_font,
                            frame=fig.frame)
            fig.rounded, fig.rounding, fig.decimal_inputs = given
        panels.append(fig)
    columns = group if group <= MAX_COLUMNS and n_kv > 1 else min(n_heads, MAX_COLUMNS)
    title = options["title"] if options["title"] is not None else heads_title(n_heads, n_kv, b)
    return HeadsFigure(panels, kv, base=b, arrange=f"grid:{columns}", title=check_text(title, "title"),
                       id_prefix=options["id_prefix"], theme=options["theme"], embed_font=options["embed_font"],
                       frame=options["frame"])


def heads_title(n_heads: int, n_kv: int, b: int | None = None) -> str:
    """What H query heads over G KV heads are, as a title; with `b`, the base heads are numbered from, which KV
    head each query head reads."""
    name = kind(n_heads, n_kv)
    return f"{name[0].upper()}{name[1:]}: {n_heads} query head{'s' * (n_heads > 1)}, {n_kv} KV head" \
           f"{'s' * (n_kv > 1)}" + ("" if b is None or n_heads == 1 else f"; {reads(n_heads, n_kv, b)}")


def reads(n_heads: int, n_kv: int, b: int) -> str:
    """Which KV head each query head reads (heads numbered from `b`), in words: ⌊h/(H/G)⌋ 0-based."""
    group = n_heads // n_kv
    rule = f"⌊h/{group}⌋" if b == 0 else f"⌊(h−1)/{group}⌋+1"
    return (f"every query head reads KV head {b}" if n_kv == 1 else "query head h reads KV head h" if group == 1
            else f"query head h reads KV head {rule}")


def _head_bias(bias: BiasSpec | None, head: int) -> BiasSpec | None:
    """Query head `head`'s bias: a T5 bias without values named for the head, b_H[k] (each head learns its own)."""
    if bias is None:
        return None
    from ..engine.t5_buckets import head_bias  # start-up: only a figure with a bias asks

    return head_bias(bias, head)


def head_sinks(sink: SinkSpec | None, n_heads: int) -> list[SinkSpec | None]:
    """Each query head's sink logit: one for all, or one per head written `"s1 | s2"` (GPT-OSS's per-head `sinks`)."""
    if not isinstance(sink, str) or "|" not in sink:
        return [sink] * n_heads
    sinks = [part.strip() for part in sink.split("|")]
    if len(sinks) != n_heads:
        raise InputError(f"{len(sinks)} sink logits for {n_heads} query head{'s' * (n_heads != 1)}; give one per "
                         "head, \"s1 | s2\", or one for all", "sink")
    return list(sinks)


def check_head_masks(head_masks: Sequence[MaskSpec] | None, n_heads: int) -> list[MaskSpec] | None:
    """One mask per query head, or None; refuses another count."""
    if head_masks is None:
        return None
    if isinstance(head_masks, (str, bytes)) or not hasattr(head_masks, "__len__"):
        raise InputError("expected a list with one mask per query head, e.g. [\"window=4\", \"window=16,dilation=4\"]",
                         "head_masks")
    masks = list(head_masks)
    if len(masks) != n_heads:
        raise InputError(f"{len(masks)} mask{'s' * (len(masks) != 1)} for {n_heads} query head"
                         f"{'s' * (n_heads != 1)}; give one per query head", "head_masks")
    return masks


def head_mask_maps(head_masks: Sequence[MaskSpec], options: FigureOptions) -> HeadsFigure:
    """Each head's mask map side by side, as Sparse Transformer draws its two heads: one panel per mask in
    `head_masks`, each head reading its own keys (no vectors: `options` give `n` or `shape`)."""
    check_base(options["index_base"])
    if isinstance(head_masks, (str, bytes)) or not hasattr(head_masks, "__len__") or not head_masks:
        raise InputError("expected a list with one mask per head, e.g. [\"window=4\", \"window=16,dilation=4\"]",
                         "head_masks")
    masks = list(head_masks)
    if len(masks) > MAX_HEADS:
        raise InputError(f"{len(masks)} heads; the limit is {MAX_HEADS}", "head_masks")
    panels = []
    for h, mask in enumerate(masks):
        try:
            panel = figure_options(options, MAP_OPTIONS, mask=mask, title=f"Head {h + options['index_base']}")
            panels.append(one_head_figure(None, None, None, "mask", panel))
        except InputError as err:
            raise err.relocated(within(f"head {h + 1}")) from None
    return HeadsFigure(panels, range(len(panels)), base=options["index_base"], arrange=None, title=options["title"],
                       id_prefix=options["id_prefix"], theme=options["theme"], embed_font=options["embed_font"],
                       frame=options["frame"])
