"""The public figure object: exact engine -> words -> layout -> SVG."""

from __future__ import annotations

import functools
import gc
import itertools
import re
import zlib

from ..words.budget import check_figure, check_inputs, check_values
from ..words.figure_text import SHOW, VIEWS, describe
from ..engine.attention import CAUSAL, MAX_ELIDED_TOKENS, MAX_TOKENS, attend, dot, exact_vectors
from ..numbers.exact import InputError
from ..words.highlight import NO_HIGHLIGHT, parse_targets
from ..records import replace
from ..words.user_text import check_labels, check_text
from ..layout.figure import lay_out
from ..io.atomic import write_atomic
from ..render.themes import get_theme

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from os import PathLike
    from pathlib import Path
    from collections.abc import Sequence
    from typing import Literal, ParamSpec, TypeVar, overload

    from ..words.figure_text import FigureText
    from ..engine.attention import Attention
    from .heads import HeadsFigure
    from ..words.highlight import Highlight
    from ..layout.figure import Layout
    from ..layout.mask_map import MapText
    from ..typing import (Align, BiasSpec, HighlightSpec, IndexBase, Labels, MaskSpec, ScaleSpec, Shape, Show,
                         SoftmaxForm, ThemeName, Vectors, View)

    P = ParamSpec("P")
    R = TypeVar("R")

__all__ = ["Drawable", "Figure", "figure", "SEED_Q", "SEED_K", "SEED_HIGHLIGHT"]

# The seed document's figure: "What Attention Is and Is Not".
SEED_Q = ((1, 0), (0, 1), (1, 1))
SEED_K = ((1, 0), (0, 1), (1, 1))
SEED_HIGHLIGHT = ((3, 3),)
_ID_PREFIX = r"[A-Za-z][A-Za-z0-9_-]{0,63}"  # safe in ids, url(#...) and CSS selectors; compiled on first use
_shown = itertools.count(1)  # Jupyter displays: each gets its own ids


def _without_gc_pauses(function: Callable[P, R]) -> Callable[P, R]:
    """Run `function` with the cyclic garbage collector paused.

    A large figure is tens of thousands of short-lived objects with no reference cycles;
    reference counting frees them all, but the collector would scan them again and again
    (a third of a 64x64 render's time).
    """
    @functools.wraps(function)
    def paused(*args: P.args, **kwargs: P.kwargs) -> R:
        if not gc.isenabled():
            return function(*args, **kwargs)
        gc.disable()
        try:
            return function(*args, **kwargs)
        finally:
            gc.enable()
    return paused


class Drawable:
    """What every figure can do once it has a layout: SVG, PNG, PDF, save, and show in a notebook.

    Subclasses give `layout()`, `description()`, `theme`, `embed_font` and `_key()` (the content
    its default ids derive from).
    """

    _id_prefix: str | None = None
    theme: str  # the theme's name
    embed_font: bool

    if TYPE_CHECKING:  # what subclasses give
        def layout(self) -> Layout: ...
        def description(self) -> str: ...
        def _key(self) -> object: ...

    @property
    def id_prefix(self) -> str:
        """Prefix of every id in the SVG: given, or derived from the content (same figure, same ids)."""
        if self._id_prefix is None:
            key = repr((self._key(), self.theme, self.embed_font)).encode("utf-8")
            self._id_prefix = f"attnviz-{zlib.crc32(key):08x}"
        return self._id_prefix

    @_without_gc_pauses
    def svg(self, id_prefix: str | None = None) -> str:
        """The figure as one standalone SVG document; same figure, same bytes."""
        prefix = self.id_prefix if id_prefix is None else check_id_prefix(id_prefix)
        return self._painted(self.layout(), prefix)

    def _painted(self, layout: Layout, prefix: str) -> str:
        """`layout` as SVG (PNG and PDF lay the figure out once and check its size before painting)."""
        from ..render.svg import render_svg

        font_css = ""
        if self.embed_font:
            from ..render.font_embed import font_css as embedded

            font_css = embedded(layout, prefix)
        svg: str = render_svg(layout, prefix, theme=self.theme, description=self.description(), font_css=font_css)
        return svg

    def png(self, scale: float | None = None, dpi: float | None = None) -> bytes:
        """PNG bytes, `scale` pixels per SVG unit (default 2) or at `dpi` (96 dpi is scale 1). Needs CairoSVG."""
        from ..render.raster import png_scale, to_png

        png_scale(scale, dpi)  # a bad scale is refused before any layout
        layout = self.layout()
        png: bytes = to_png(lambda: self._painted(layout, self.id_prefix), layout.width, layout.height, scale=scale,
                            dpi=dpi)
        return png

    def pdf(self) -> bytes:
        """PDF bytes (vector; the page is the figure's size). Needs CairoSVG."""
        from ..words.budget import check_pdf
        from ..render.raster import to_pdf

        layout = self.layout()
        check_pdf(layout.width, layout.height)  # before the SVG is written or drawn
        pdf: bytes = to_pdf(self._painted(layout, self.id_prefix), title=layout.title)
        return pdf

    def save(self, path: str | PathLike[str], format: Literal["svg", "png", "pdf"] | None = None,
             scale: float | None = None, dpi: float | None = None) -> Path:
        """Write the figure to `path` (folders created, atomically) as SVG, PNG or PDF; returns the path.

        `format` is "svg", "png" or "pdf"; by default the path's extension picks it (SVG when it has
        none; another extension, such as .jpg, is an error).
        """
        from ..render.raster import format_for

        format = format_for(path, format, where="format", path_where="path", chooser="format='svg'|'png'|'pdf'")
        data = self.svg() + "\n" if format == "svg" else self.png(scale=scale, dpi=dpi) if format == "png" else self.pdf()
        written: Path = write_atomic(path, data)
        return written

    def _repr_svg_(self) -> str:
        # A notebook may show the same figure many times in one page: each display gets fresh ids.
        return self.svg(id_prefix=f"{self.id_prefix}-{next(_shown)}")


class Figure(Drawable):
    """One attention figure (a full figure, a score table or a mask map). `svg()` gives the SVG text;
    `save(path)` writes SVG, PNG or PDF atomically."""

    def __init__(self, attention: Attention | None, highlight: Highlight | None, words: FigureText | MapText,
                 id_prefix: str | None = None, theme: ThemeName = "light", embed_font: bool = False) -> None:
        self.attention = attention  # None for a mask map drawn without vectors
        self.highlight = highlight
        self.words = words  # a MapText for the mask view
        self.theme: str = get_theme(theme).name
        self.embed_font = bool(embed_font)
        self._id_prefix = None if id_prefix is None else check_id_prefix(id_prefix)

    @property
    def view(self) -> str:
        """"full", "scores" or "mask"."""
        view: str = self.words.view
        return view

    def _key(self) -> object:
        return self.words

    def layout(self, cell: float | None = None, grid_top: float | None = None, panel: bool = False) -> Layout:
        """The positioned figure. `cell`, `grid_top`: a composed figure's shared cell size and grid top;
        `panel`: laid out as a panel of a composed figure (a smaller title; no legend, the figure draws one)."""
        title_role = "panel-title" if panel else "title"
        check_figure(self.words, self.embed_font)  # the budget, estimated from the words: before any layout
        words = self.words
        if self.view == "mask":
            from ..layout.mask_map import lay_out_map

            if TYPE_CHECKING:
                assert isinstance(words, MapText)
            layout: Layout = lay_out_map(replace(words, legend=False) if panel else words, cell, grid_top, title_role)
            return layout
        layout = lay_out(words, cell, grid_top, title_role)
        return layout

    def bias_panel(self) -> Figure:
        """The bias matrix as a figure of its own: the exact B_ij of every kept cell on this figure's labels,
        to compose beside it as the ALiBi paper draws it: `attnviz.compose(fig, fig.bias_panel())`
        (what `--show bias` draws)."""
        from ..words.figure_text import describe_bias

        attention, words = self.attention, self.words
        if attention is None or not attention.biases or self.view == "mask":
            raise InputError("the figure has no bias to draw: give one (bias=...)", "bias")
        if TYPE_CHECKING:
            assert isinstance(words, FigureText)
        return Figure(attention, NO_HIGHLIGHT, describe_bias(attention, words), theme=get_theme(self.theme),
                      embed_font=self.embed_font)

    def description(self) -> str:
        """The sentence assistive technology reads (the root's `aria-description`)."""
        from ..words.a11y import figure_sentence, map_sentence

        words = self.words
        if self.view == "mask":
            map_words: str = map_sentence(words)
            return map_words
        if TYPE_CHECKING:
            assert isinstance(words, FigureText)
        sentence: str = figure_sentence(self.attention, self.highlight, words.show, words.base)
        return f"{sentence}; {words.elided}" if words.elided else sentence

    def __repr__(self) -> str:
        words, attention = self.words, self.attention
        if self.view == "mask":
            if TYPE_CHECKING:
                assert isinstance(words, MapText)
            n_q, n_k = words.shape
            return f"<attnviz.Figure {n_q}x{n_k} mask map: {words.caption}>"
        if TYPE_CHECKING:
            assert attention is not None
        n_q, n_k = attention.shape
        return f"<attnviz.Figure {n_q}x{n_k} {attention.mask.name}>"


def check_id_prefix(prefix: object) -> str:
    """`prefix` if it is safe as an id, a url(#...) target and a CSS selector; else an InputError."""
    if not isinstance(prefix, str) or not re.fullmatch(_ID_PREFIX, prefix):
        raise InputError(f"{prefix!r} is not a usable id prefix: start with a letter, then letters, digits, "
                         "'-' or '_', at most 64 characters", "id_prefix")
    return prefix


if TYPE_CHECKING:  # one head gives a Figure; several heads (q_heads, k_heads) a HeadsFigure of panels
    @overload
    def figure(q: Vectors | None = None, k: Vectors | None = None, *, v: Vectors | None = None,
               view: View = "full", n: int | None = None, shape: Shape | None = None,
               highlight: HighlightSpec | None = None, mask: MaskSpec = "causal", align: Align = "top-left",
               scale: ScaleSpec | None = None, bias: BiasSpec | None = None, softmax: SoftmaxForm = "expanded",
               weights: str = "named", show: Show = "scores", title: str | None = None, subtitle: str | None = None,
               tokens: Labels | None = None, q_tokens: Labels | None = None, k_tokens: Labels | None = None,
               x_title: str | None = None, y_title: str | None = None, elide: bool = False, index_base: IndexBase = 1,
               id_prefix: str | None = None, theme: ThemeName = "light", embed_font: bool = False,
               q_heads: None = None, k_heads: None = None, v_heads: None = None) -> Figure: ...

    @overload
    def figure(q: None = None, k: None = None, *, v: None = None,
               view: View = "full", n: int | None = None, shape: Shape | None = None,
               highlight: HighlightSpec | None = None, mask: MaskSpec = "causal", align: Align = "top-left",
               scale: ScaleSpec | None = None, bias: BiasSpec | None = None, softmax: SoftmaxForm = "expanded",
               weights: str = "named", show: Show = "scores", title: str | None = None, subtitle: str | None = None,
               tokens: Labels | None = None, q_tokens: Labels | None = None, k_tokens: Labels | None = None,
               x_title: str | None = None, y_title: str | None = None, elide: bool = False, index_base: IndexBase = 1,
               id_prefix: str | None = None, theme: ThemeName = "light", embed_font: bool = False,
               q_heads: Sequence[Vectors], k_heads: Sequence[Vectors],
               v_heads: Sequence[Vectors] | None = None) -> HeadsFigure: ...


@_without_gc_pauses
def figure(q: Vectors | None = None, k: Vectors | None = None, *, v: Vectors | None = None,
           view: View = "full", n: int | None = None, shape: Shape | None = None,
           highlight: HighlightSpec | None = None, mask: MaskSpec = "causal", align: Align = "top-left",
           scale: ScaleSpec | None = None, bias: BiasSpec | None = None, softmax: SoftmaxForm = "expanded",
           weights: str = "named", show: Show = "scores", title: str | None = None, subtitle: str | None = None,
           tokens: Labels | None = None, q_tokens: Labels | None = None, k_tokens: Labels | None = None,
           x_title: str | None = None, y_title: str | None = None, elide: bool = False, index_base: IndexBase = 1,
           id_prefix: str | None = None, theme: ThemeName = "light", embed_font: bool = False,
           q_heads: Sequence[Vectors] | None = None, k_heads: Sequence[Vectors] | None = None,
           v_heads: Sequence[Vectors] | None = None) -> Figure | HeadsFigure:
    """Build the figure for query vectors `q` and key vectors `k` (default: the seed's).

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
    ("1/2", "0.5") or floats (read as the decimal they print as); numpy arrays work.
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
    same where DejaVu is not installed.
    `q_heads`, `k_heads`, `v_heads` (instead of `q`, `k`, `v`): one list of vectors per query head
    and per KV head, for multi-head, grouped-query and multi-query attention (`heads.heads_figure`):
    one panel per query head; the other arguments apply to every panel.

    >>> fig = figure(highlight=[(3, 3)])
    >>> fig.attention.scores[2][2]
    Fraction(2, 1)
    """
    from ..words.notation import SOFTMAX_FORMS

    if q_heads is not None or k_heads is not None or v_heads is not None:
        from .heads import heads_figure

        given = [name for name, value in (("q", q), ("k", k), ("v", v)) if value is not None]
        if given or q_heads is None:
            raise InputError(f"give q_heads, k_heads (and v_heads) for several heads, or q, k (and v) for one, "
                             "not both", given[0] if given else "q_heads")
        if view == "mask":
            raise InputError("heads draw each head's scores; the mask view has none (every head shares the mask)",
                             "view")
        return heads_figure(q_heads, k_heads, v_heads, view=view, highlight=highlight, mask=mask, align=align,
                            scale=scale, bias=bias, softmax=softmax, weights=weights, show=show, title=title,
                            subtitle=subtitle, tokens=tokens, q_tokens=q_tokens, k_tokens=k_tokens, elide=elide,
                            index_base=index_base, id_prefix=id_prefix, theme=theme, embed_font=embed_font)

    if softmax not in SOFTMAX_FORMS:
        raise InputError(f"expected {', '.join(SOFTMAX_FORMS[:-1])} or {SOFTMAX_FORMS[-1]}; got {softmax!r}",
                         "softmax")
    if show == "bias":  # type: ignore[comparison-overlap]  # specs and --show make two panels (panels.build)
        raise InputError("the bias matrix is a panel of its own: attnviz.compose(fig, fig.bias_panel())", "show")
    if show not in SHOW:
        raise InputError(f"expected {', '.join(SHOW[:-1])} or {SHOW[-1]}; got {show!r}", "show")
    if view not in VIEWS:
        raise InputError(f"expected {', '.join(VIEWS[:-1])} or {VIEWS[-1]}; got {view!r}", "view")
    if isinstance(index_base, bool) or index_base not in (0, 1):
        raise InputError(f"expected 0 or 1, got {index_base!r:.40}", "index_base")
    if view == "mask":
        return _mask_figure(q, k, n=n, shape=shape, highlight=highlight, mask=mask, align=align, title=title,
                            subtitle=subtitle, tokens=tokens, q_tokens=q_tokens, k_tokens=k_tokens, x_title=x_title,
                            y_title=y_title, base=index_base, id_prefix=id_prefix, theme=theme,
                            embed_font=embed_font,
                            unused={"scale": scale, "bias": bias, "v": v}, unused_forms={
                                "softmax": softmax != "expanded", "weights": weights != "named",
                                "show": show != "scores"})
    for name, value in (("n", n), ("shape", shape), ("x_title", x_title), ("y_title", y_title)):
        if value is not None:
            raise InputError(f"only the mask view takes {name} (view='mask'); the {view} view draws the vectors' "
                             "scores", name)
    if q is None and k is None:
        q, k = SEED_Q, SEED_K
    elif q is None or k is None:
        raise InputError(f"missing: {'q' if q is None else 'k'} (give both q and k vectors)",
                         "q" if q is None else "k")
    places = None
    if weights != "named":
        from ..numbers.rounding import parse_weights

        places = parse_weights(weights)
    if not isinstance(elide, bool):
        raise InputError(f"expected True or False, got {elide!r:.40}", "elide")
    limit = MAX_ELIDED_TOKENS if elide else MAX_TOKENS
    q, k = exact_vectors(q, "q", limit), exact_vectors(k, "k", limit)
    v = None if v is None else exact_vectors(v, "v", limit)
    n_q, n_k = len(q), len(k)
    shown = None
    if elide:
        from ..words.figure_text import shown_positions
        from ..words.highlight import named_positions

        named_rows, named_columns = named_positions(highlight, index_base)
        shown = shown_positions(n_q, named_rows), shown_positions(n_k, named_columns)
    # The default figure needs no parsing, so `attnviz render` skips importing the option modules.
    if (mask is CAUSAL or mask == "causal") and n_q == n_k and align == "top-left":
        bound = CAUSAL
    else:
        from ..engine.masks import resolve

        bound = resolve(mask, n_q, n_k, align, index_base)
    scale_, biases = None, ()
    if scale is not None or bias is not None:
        from ..engine.logits import resolve_biases, resolve_scale

        scale_ = resolve_scale(scale, len(q[0]))
        biases = resolve_biases(bias, n_q, n_k, align, scale=scale_, scores=lambda i, j: dot(q[i], k[j]))
    check_inputs(q, k, v)  # from the digits alone, before a score is summed
    attention = attend(q, k, bound, scale=scale_, biases=biases, v=v, rows=None if shown is None else set(shown[0]))
    check_values(attention)
    marks = parse_targets(highlight, attention, index_base)
    q_labels, k_labels = _axis_labels(tokens, q_tokens, k_tokens, n_q, n_k)
    words = describe(attention, marks,
                     title=None if title is None else check_text(title, "title"),
                     subtitle=None if subtitle is None else check_text(subtitle, "subtitle"),
                     q_labels=q_labels, k_labels=k_labels, softmax=softmax, places=places, show=show, view=view,
                     shown=shown, base=index_base)
    return Figure(attention, marks, words, id_prefix=id_prefix, theme=theme, embed_font=embed_font)


setattr(figure, "Figure", Figure)  # `attnviz.figure.Figure`, the path documented before 0.2

def _axis_labels(tokens: Labels | None, q_tokens: Labels | None, k_tokens: Labels | None, n_q: int,
                 n_k: int) -> tuple[tuple[str, ...] | None, tuple[str, ...] | None]:
    """Checked labels for the query and key axes (None: numbered)."""
    (q_where, q_noun), (k_where, k_noun) = ("q_tokens", "query"), ("k_tokens", "key")
    if tokens is not None:
        if n_q != n_k:
            queries, keys = f"{n_q} quer{'y' if n_q == 1 else 'ies'}", f"{n_k} key{'s' * (n_k != 1)}"
            raise InputError(f"one list labels both axes, but there are {queries} and {keys}; label each axis "
                             "with q_tokens and k_tokens (on the command line, --q-tokens and --k-tokens)", "tokens")
        q_tokens = k_tokens = tokens
        q_where = k_where = "tokens"
        q_noun = k_noun = "token"
    return (None if q_tokens is None else check_labels(q_tokens, n_q, q_where, q_noun),
            None if k_tokens is None else check_labels(k_tokens, n_k, k_where, k_noun))


def _mask_figure(q: Vectors | None, k: Vectors | None, *, n: int | None, shape: Shape | None,
                 highlight: HighlightSpec | None, mask: MaskSpec, align: Align, title: str | None,
                 subtitle: str | None, tokens: Labels | None, q_tokens: Labels | None, k_tokens: Labels | None,
                 x_title: str | None, y_title: str | None, base: IndexBase, id_prefix: str | None,
                 theme: ThemeName, embed_font: bool, unused: dict[str, object],
                 unused_forms: dict[str, bool]) -> Figure:
    """The mask view: a map of the kept cells, from a grid shape alone or from vectors' counts."""
    from ..layout.mask_map import describe_map

    for name, value in unused.items():
        if value is not None:
            raise InputError("the mask view draws which cells are kept, not scores or logits; "
                             "use the full or scores view for them", name)
    for name, changed in unused_forms.items():
        if changed:
            raise InputError("the mask view draws no softmax; use the full view for it", name)
    labels = {"q": q_tokens if tokens is None else tokens, "k": k_tokens if tokens is None else tokens}
    n_q, n_k = _map_shape(q, k, n, shape, labels)
    if (mask is CAUSAL or mask == "causal") and n_q == n_k and align == "top-left":
        mask = CAUSAL
    else:
        from ..engine.masks import resolve

        mask = resolve(mask, n_q, n_k, align, base)
    q_labels, k_labels = _axis_labels(tokens, q_tokens, k_tokens, n_q, n_k)
    texts = {name: None if value is None else check_text(value, name)
             for name, value in (("title", title), ("subtitle", subtitle), ("x_title", x_title),
                                 ("y_title", y_title))}
    words = describe_map(mask, n_q, n_k, highlight=highlight, q_labels=q_labels, k_labels=k_labels, base=base,
                         **texts)
    return Figure(None, None, words, id_prefix=id_prefix, theme=theme, embed_font=embed_font)


def _map_shape(q: Vectors | None, k: Vectors | None, n: int | None, shape: Shape | None,
               labels: dict[str, Sequence[str] | None]) -> tuple[int, int]:
    """(queries, keys) of a mask map: from `n`, from `shape`, from the vectors, or from the token labels
    (default: the seed's vectors)."""
    from ..layout.mask_map import MAX_MAP_TOKENS

    given = [name for name, value in (("n", n), ("shape", shape)) if value is not None]
    if len(given) == 2:
        raise InputError("give n (a square map) or shape (queries × keys), not both", "shape")
    if given and (q is not None or k is not None):
        raise InputError(f"give {given[0]} or vectors (q, k), not both: the map's size comes from one of them",
                         given[0])
    if n is not None:
        sides = (_side(n, "n"),) * 2
    elif shape is not None:
        sides = _parse_shape(shape)
    elif q is None and k is None and labels["q"] is not None and labels["k"] is not None:
        sides = len(labels["q"]), len(labels["k"])  # checked against the limit below, the labels after
    else:
        if q is None and k is None:
            q, k = SEED_Q, SEED_K
        elif q is None or k is None:
            raise InputError(f"missing: {'q' if q is None else 'k'} (give both q and k vectors, or n or shape)",
                             "q" if q is None else "k")
        return len(exact_vectors(q, "q")), len(exact_vectors(k, "k"))
    for side in sides:
        if side > MAX_MAP_TOKENS:
            raise InputError(f"{side} tokens; a mask map shows at most {MAX_MAP_TOKENS:,} a side",
                             given[0] if given else "tokens")
    return sides


def _side(value: object, where: str) -> int:
    import numbers

    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
            value = int(value.strip()) if len(value.strip()) <= 7 else 10**7
        else:
            raise InputError(f"expected a whole number of tokens, got {value!r:.40}", where)
    if value < 1:
        raise InputError(f"expected at least 1 token, got {value}", where)
    return int(value)


def _parse_shape(shape: object) -> tuple[int, int]:
    """`"4x12"`, `(4, 12)`: queries × keys."""
    if isinstance(shape, str):
        parts = shape.lower().replace("×", "x").split("x")
        if len(parts) != 2:
            raise InputError(f"expected QUERIESxKEYS like 4x12, got {shape!r:.40}", "shape")
        return _side(parts[0], "shape"), _side(parts[1], "shape")
    if isinstance(shape, (list, tuple)) and len(shape) == 2:
        return _side(shape[0], "shape"), _side(shape[1], "shape")
    raise InputError(f"expected QUERIESxKEYS like \"4x12\" or a pair (4, 12), got {shape!r:.40}", "shape")
