"""The figure objects: `Drawable` (SVG, PNG, PDF, save, notebook display) and `Figure`, one attention figure.

`figure()` (figures.api) builds a Figure; composed figures (figures.composite) are Drawables too.
"""

from __future__ import annotations

import functools
import gc
import itertools
import re

from ..words.budget import check_figure
from ..numbers.exact import InputError
from ..words.highlight import NO_HIGHLIGHT
from ..records import replace
from .identity import content_id
from ..layout.figure import lay_out
from .files import write_atomic
from ..render.themes import get_theme
from ..layout.frames import FRAMES, get_frame
from ..render.xml import escape_attribute
from ..engine.mask_cells import MaskCells

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable
    from os import PathLike
    from pathlib import Path
    from typing import ParamSpec, TypeVar

    from ..words.figure_text import FigureText
    from ..engine.attention import Attention
    from ..words.highlight import Highlight
    from ..layout.figure import Layout, Wraps
    from ..layout.mask_map import MapText
    from ..layout.frames import Frame
    from ..render.formats import FormatName
    from ..render.themes import Theme
    from ..typing import ThemeName

    P = ParamSpec("P")
    R = TypeVar("R")

__all__ = ["Drawable", "Figure", "ScoresFigure", "MaskMapFigure", "check_id_prefix", "notebook_html",
           "without_gc_pauses"]

_ID_PREFIX = r"[A-Za-z][A-Za-z0-9_-]{0,63}"  # safe in ids, url(#...) and CSS selectors; compiled on first use
_shown = itertools.count(1)  # Jupyter displays: each gets its own ids


def without_gc_pauses(function: Callable[P, R]) -> Callable[P, R]:
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

    Subclasses give `layout()`, `description()`, `theme`, `embed_font`, `frame` and `_key()` (the content
    its default ids derive from).
    """

    _id_prefix: str | None = None
    rounded: int | str | None = None  # the decimals the inputs were rounded to, or the float dtype read (None: as is)
    rounding: str = ""  # with rounded inputs, the largest rounding error and where it is (what --verbose says)
    decimal_inputs: bool = False  # the inputs came as decimals: walkthroughs and decks write values that end so
    theme: str  # the theme's name
    embed_font: bool
    frame: str = "doc"  # the frame's name (layout.frames)

    if TYPE_CHECKING:  # what subclasses give
        def layout(self) -> Layout: ...
        def description(self) -> str: ...
        def _key(self) -> object: ...

    @property
    def id_prefix(self) -> str:
        """Prefix of every id in the SVG: given, or derived from the content (same figure, same ids)."""
        if self._id_prefix is None:
            # the doc frame adds nothing, so the figures drawn before frames keep their ids
            frame = () if self.frame == "doc" else (self.frame,)
            self._id_prefix = content_id(self._key(), self.theme, self.embed_font, *frame)
        return self._id_prefix

    @without_gc_pauses
    def svg(self, id_prefix: str | None = None) -> str:
        """The figure as one standalone SVG document; same figure, same bytes."""
        prefix = self.id_prefix if id_prefix is None else check_id_prefix(id_prefix)
        return self.painted(self.layout(), prefix)

    def painted(self, layout: Layout, prefix: str | None = None) -> str:
        """`layout` as SVG, its ids from `prefix` (default: the figure's): a format's writer lays the figure out
        once and checks its size before painting."""
        prefix = self.id_prefix if prefix is None else prefix
        from ..render.svg import render_svg  # start-up: building a figure needs no renderer until it is drawn

        font_css = ""
        if self.embed_font:
            # start-up: only embed_font reads the fonts (fontTools)
            from ..render.font_embed import font_css as embedded

            font_css = embedded(layout, prefix)
        svg: str = render_svg(layout, prefix, theme=self.theme, description=self.description(), font_css=font_css,
                              width_in=get_frame(self.frame).width_in)
        return svg

    def png(self, scale: float | None = None, dpi: float | None = None, width: int | None = None) -> bytes:
        """PNG bytes, `scale` pixels per SVG unit, at `dpi` or `width` pixels wide (at most one of them); by
        default the frame's size: a slide 1,280 px wide (960 for 4:3), a paper column at 300 dpi, a doc
        figure at scale 2 (there, 96 dpi is scale 1). Needs CairoSVG."""
        from ..render.raster import write_png  # start-up: only PNG output needs the rasteriser (CairoSVG is optional)

        return write_png(self, scale, dpi, width)

    def pdf(self) -> bytes:
        """PDF bytes (vector): the page is the frame's physical size (a slide 13.333 × 7.5 inches, 10 × 7.5
        for 4:3, a column 3.3 or 7 inches wide), a doc figure's its own (a unit is 3/4 point). Needs CairoSVG."""
        from ..render.raster import write_pdf  # start-up: only PDF output needs it (CairoSVG is optional)

        return write_pdf(self)

    def save(self, path: str | PathLike[str], format: FormatName | None = None,
             scale: float | None = None, dpi: float | None = None, width: int | None = None) -> Path:
        """Write the figure to `path` (folders created, atomically) as SVG, PNG or PDF; returns the path.

        `format` is "svg", "png" or "pdf"; by default the path's extension picks it (SVG when it has
        none; another extension, such as .jpg, is an error). `scale`, `dpi`, `width`: a PNG's (`png()`).
        """
        from ..render.raster import FORMATS, format_for  # start-up: only saving chooses a format from a path

        chosen = format_for(path, format, where="format", path_where="path",
                            chooser="format=" + "|".join(f"'{name}'" for name in FORMATS))
        written: Path = write_atomic(path, FORMATS[chosen].write(self, scale, dpi, width))
        return written

    def display_svg(self) -> str:
        """The SVG for one display: a notebook may show the same figure many times in one page, so each display
        gets fresh ids. (Not `_repr_svg_`: IPython would store it beside the HTML, the SVG twice.)"""
        return self.svg(id_prefix=f"{self.id_prefix}-{next(_shown)}")

    def _repr_html_(self) -> str:
        return notebook_html(self.display_svg())

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> dict[str, str]:
        # One copy of the SVG, as an <img> in text/html: what JupyterLab shows whether the notebook is trusted
        # or not (it sanitises an untrusted notebook's HTML, which would strip an inline <svg> to its words),
        # VS Code and nbconvert too; its alt text is the figure's title and description.
        svg = self.display_svg()
        return {"text/html": notebook_html(svg), "text/plain": f"<attnviz figure: {_element_text(svg, 'title')}>"}


def notebook_html(svg: str) -> str:
    """The SVG as an `<img>` in a `<div class="attnviz-figure">`: its source the SVG as a data URL, its alt text
    the SVG's <title> and <desc>, scaled down to its column (max-width 100%, height auto): what a notebook shows,
    trusted or not (see docs/notebooks.rst).

    >>> notebook_html('<svg class="attnviz" width="10"><title>T</title><desc>D &amp; E</desc></svg>')[:106]
    '<div class="attnviz-figure"><img style="max-width:100%;height:auto" alt="T. D &amp; E" src="data:image/svg'
    """
    import base64  # start-up: only a notebook's display encodes

    alt = ". ".join(part for part in (_element_text(svg, "title"), _element_text(svg, "desc")) if part)
    data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    return (f'<div class="attnviz-figure"><img style="max-width:100%;height:auto" alt="{escape_attribute(alt)}" '
            f'src="data:image/svg+xml;base64,{data}"></div>')


def _element_text(svg: str, tag: str) -> str:
    """The text of the SVG's first `<tag>` element (as written: escaped), unescaped."""
    start = svg.find(f"<{tag}")
    if start < 0:
        return ""
    start = svg.index(">", start) + 1
    from html import unescape  # start-up: only a notebook's display reads its SVG back

    return unescape(svg[start:svg.index(f"</{tag}>", start)])


class Figure(Drawable):
    """One attention figure (a full figure, a score table or a mask map). `svg()` gives the SVG text;
    `save(path)` writes SVG, PNG or PDF atomically."""

    def __init__(self, attention: Attention | MaskCells | None, highlight: Highlight | None,
                 words: FigureText | MapText, id_prefix: str | None = None, theme: ThemeName | Theme = "light",
                 embed_font: bool = False,
                 frame: str | Frame = "doc", elided: Callable[[int, int], FigureText] | None = None) -> None:
        self.attention = attention  # a mask map's: its MaskCells (kept, runs(i)); None only for hand-made figures
        # The same words elided (to its first and last rows and keys), for a slide or column frame the grid does
        # not fit (None: no such choice)
        self.elided = elided
        self.highlight = highlight
        self.words = words  # a MapText for the mask view
        self.theme: str = get_theme(theme).key
        self.embed_font = bool(embed_font)
        self.frame = get_frame(frame).name
        self._id_prefix = None if id_prefix is None else check_id_prefix(id_prefix)
        # A walkthrough's step: the lines its steps' framed layouts wrap, shared (None: not a step; `as_step`)
        self._step_wraps: Wraps | None = None

    def as_step(self, wraps: Wraps) -> Figure:
        """This figure as a step of a walkthrough, in a slide or column frame: it keeps every softmax caption
        (which it kept would follow its highlight, and the steps must stay put), and its layouts reuse and add
        to `wraps`, the lines its walkthrough's steps have wrapped (much the same words)."""
        self._step_wraps = wraps
        return self

    @property
    def view(self) -> str:
        """"full", "scores" or "mask"."""
        view: str = self.words.view
        return view

    def _key(self) -> object:
        return self.words

    def layout(self, cell: float | None = None, grid_top: float | None = None, panel: bool = False,
               titled: bool = True, cells: tuple[float, float] | None = None, side: float = 0) -> Layout:
        """The positioned figure. `cell`, `grid_top`: a composed figure's shared cell size and grid top;
        `panel`: laid out as a panel of a composed figure (a smaller title; no legend, the figure draws one);
        `titled`: False for a slide or column frame whose slide has a title of its own (a deck's): the
        figure's title is then only its <title>; `cells`, `side`: in such a frame, the grid's (cell height,
        gap) and the room kept beside it for a walkthrough step's mechanics (`figures.overlaid`)."""
        title_role = "panel-title" if panel else "title"
        check_figure(self.words, self.embed_font)  # the budget, estimated from the words: before any layout
        words = self.words
        if self.view == "mask":
            from ..layout.mask_map import lay_out_map  # start-up: only the mask view lays out a map

            if TYPE_CHECKING:
                assert isinstance(words, MapText)
            if self.frame != "doc" and not panel:  # fitted to its frame, not shrunk into it
                from ..layout.map_fit import fit_map

                return fit_map(words, get_frame(self.frame))
            layout: Layout = lay_out_map(replace(words, legend=False) if panel else words, cell, grid_top, title_role,
                                         frame=get_frame(self.frame))
            return layout
        if TYPE_CHECKING:
            assert isinstance(words, FigureText)
        frame = get_frame(self.frame)
        if frame.name != "doc" and cell is None and grid_top is None and not panel:
            # a deck's figure region (DECK_FRAMES) is under the slide's own title: the figure's is left to it
            titled = titled and frame.kind in FRAMES
            from ..layout.framed import Framing, lay_out_framed  # start-up: only a slide or column figure needs it

            attention = None if isinstance(self.attention, MaskCells) else self.attention
            layout = lay_out_framed(words, frame, Framing(attention, title_role, self.elided, titled, cells, side,
                                                          wraps=self._step_wraps, step=self._step_wraps is not None))
            return layout
        layout = lay_out(words, cell, grid_top, title_role, frame=frame)
        return layout

    def bias_panel(self) -> Figure:
        """The bias matrix as a figure of its own: the exact B_ij of every kept cell on this figure's labels,
        to compose beside it as the ALiBi paper draws it: `attnviz.compose(fig, fig.bias_panel())`
        (what `--show bias` draws)."""
        from ..words.bias_panel import describe_bias  # start-up: only a bias panel needs it

        attention, words = self.attention, self.words
        if attention is None or isinstance(attention, MaskCells) or not attention.biases:
            raise InputError("the figure has no bias to draw: give one (bias=...)", "bias")
        if TYPE_CHECKING:
            assert isinstance(words, FigureText)
        return Figure(attention, NO_HIGHLIGHT, describe_bias(attention, words), theme=get_theme(self.theme),
                      embed_font=self.embed_font, frame=self.frame)

    def description(self) -> str:
        """The sentence assistive technology reads (the root's `aria-description`)."""
        from ..words.a11y import figure_sentence, map_sentence  # start-up: the sentence is written when the SVG is

        words = self.words
        if self.view == "mask":
            if TYPE_CHECKING:
                assert isinstance(words, MapText)
            map_words: str = map_sentence(words)
            return map_words
        if TYPE_CHECKING:  # a figure with words is drawn from vectors
            assert isinstance(words, FigureText) and isinstance(self.attention, Attention)
            assert self.highlight is not None
        sentence: str = figure_sentence(self.attention, self.highlight, words.show, words.base, self.rounded)
        return f"{sentence}; {words.elided}" if words.elided else sentence

    def __repr__(self) -> str:
        words, attention = self.words, self.attention
        if self.view == "mask":
            if TYPE_CHECKING:
                assert isinstance(words, MapText)
            n_q, n_k = words.shape
            return f"<attnviz.Figure {n_q}x{n_k} mask map: {words.caption}>"
        if TYPE_CHECKING:
            assert isinstance(attention, Attention)
        n_q, n_k = attention.shape
        return f"<attnviz.Figure {n_q}x{n_k} {attention.mask.name}>"


class ScoresFigure(Figure):
    """A figure drawn from vectors (the full or scores view): `attention` (the exact engine's result),
    `highlight` and `words` (every text, a `FigureText`) are always there, so a type checker needs no
    narrowing: `fig.attention.scores`, `fig.words.softmax_rows`."""

    attention: Attention
    highlight: Highlight
    words: FigureText


class MaskMapFigure(Figure):
    """The mask view's figure: the map's `words` (a `MapText`: runs, caption, ticks) and its kept cells
    (`attention`, a `MaskCells`: kept, runs(i)); it has no scores."""

    attention: MaskCells
    highlight: None
    words: MapText


def check_id_prefix(prefix: object) -> str:
    """`prefix` if it is safe as an id, a url(#...) target and a CSS selector; else an InputError."""
    if not isinstance(prefix, str) or not re.fullmatch(_ID_PREFIX, prefix):
        raise InputError(f"{prefix!r} is not a usable id prefix: start with a letter, then letters, digits, "
                         "'-' or '_', at most 64 characters", "id_prefix")
    return prefix

