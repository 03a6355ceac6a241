"""Walkthroughs as an API: `attnviz.walkthrough(fig, flash=(Br, Bc) | decode=P | None)` returns the steps, each
a drawable figure (`.svg()`, `.png()`, `.save()`, notebook display); `attnviz.flash(...)` returns the tiled
softmax's steps, each shown in a notebook as its step's figure.
"""

from __future__ import annotations

from ...engine.tiled_softmax import FlashStep, flash as _engine_flash
from ...numbers.exact import InputError

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from ...figures.figure import Drawable, Figure
    from ...typing import FlashOrder, MaskSpec, ScaleSpec, Vectors
    from ..document import Document

__all__ = ["Walkthrough", "walkthrough", "check_walkable", "flash", "ShownFlashStep"]


class Walkthrough(tuple["Drawable", ...]):
    """The steps of a walkthrough, in order: each a figure (`.svg()`, `.save(path)`, shown in a notebook).
    `document` holds each step's heading, sentences and formula; in a notebook the whole walkthrough shows
    as its steps under their headings."""

    document: Document

    def __new__(cls, steps: Sequence[Drawable], document: Document) -> Walkthrough:
        """The steps, with their document."""
        made = super().__new__(cls, steps)
        made.document = document
        return made

    @property
    def headings(self) -> tuple[str, ...]:
        """Each step's heading, in order."""
        return tuple(section.heading for section in self.document.sections)

    def _repr_html_(self) -> str:
        from ...figures.figure import notebook_html  # start-up: written only when a notebook shows it
        from ...render.xml import escape_text

        parts = [f"<h4>{escape_text(heading)}</h4>{notebook_html(step.display_svg())}"
                 for heading, step in zip(self.headings, self)]
        return f"<div class=\"attnviz-walkthrough\">{''.join(parts)}</div>"

    def __repr__(self) -> str:
        return f"<attnviz.Walkthrough {len(self)} steps: {self.document.title}>"


def walkthrough(fig: Drawable, *, flash: tuple[int, int] | None = None, decode: int | None = None,
                flash_order: FlashOrder = "fa2", split_kv: int | None = None) -> Walkthrough:
    """The steps behind `fig` (from `attnviz.figure`), each a figure with `.svg()` and notebook display.

    `flash` = (Br, Bc): FlashAttention's tiles, one step per tile that keeps a cell, each drawn with every
    tile outlined and each row's running m_i, ℓ_i and rescale factor beside the grid, in `flash_order`
    "fa2" or "fa1"; `decode` = P: KV-cache decoding after a prompt of P tokens, each step drawn with its
    cache's slots; `split_kv` = C: Flash-Decoding, the keys in chunks of C computed side by side (each
    chunk's m_c and ℓ_c in its own strip beside the grid), then the combine step; none: every score, the mask
    and each row's softmax. A figure of several heads
    steps head by head. `fig` is a full figure (or, with `flash` or `decode`, a scores view), drawn
    whole, counted from 1.

    >>> import attnviz
    >>> steps = attnviz.walkthrough(attnviz.figure(), flash=(2, 2))
    >>> len(steps), steps.headings[0]
    (4, 'Tile 1: queries 1-2, keys 1-2')
    >>> steps[0].svg().count('<rect class="attnviz-tile')
    4
    """
    from ...figures.heads import HeadsFigure  # start-up: loaded only when a walkthrough is asked for

    chosen = [name for name, value in (("flash", flash), ("decode", decode), ("split_kv", split_kv))
              if value is not None]
    if len(chosen) > 1:
        raise InputError("choose one walkthrough: FlashAttention tiles, KV-cache decoding or Flash-Decoding's chunks",
                         " and ".join(chosen))
    if isinstance(fig, HeadsFigure):
        if chosen:
            raise InputError("steps through one head; for several heads the walkthrough goes head by head (give q "
                             "and k for one head)", chosen[0])
        from .heads import heads_walkthrough  # start-up: each walkthrough loads only its own steps

        for panel in fig.panels:
            check_walkable(panel)
        document, panels = heads_walkthrough(fig)
        return Walkthrough(panels, document)
    check_walkable(fig, scores_view=bool(chosen))
    figures: Sequence[Drawable]
    if TYPE_CHECKING:  # past the heads and the checks: one full figure (or its scores view)
        assert isinstance(fig, Figure)
    if flash is not None:
        from .flash import flash_walkthrough  # start-up: each walkthrough loads only its own steps

        document, figures = flash_walkthrough(fig, flash, flash_order)
    elif split_kv is not None:
        from .flash_decoding import split_kv_walkthrough  # start-up: each walkthrough loads only its own steps

        document, figures = split_kv_walkthrough(fig, split_kv)
    elif decode is not None:
        from .decode import decode_walkthrough  # start-up: each walkthrough loads only its own steps

        if isinstance(decode, bool) or not isinstance(decode, int):
            raise InputError(f"expected a prompt length (an int), got {decode!r:.40}", "decode")
        document, figures = decode_walkthrough(fig, decode)
    else:
        from .scores import walkthrough as scores_walkthrough  # start-up: each loads only its own steps

        document, figures = scores_walkthrough(fig)
    return Walkthrough(figures, document)


def check_walkable(fig: object, scores_view: bool = False) -> None:
    """A walkthrough steps through every score of one full figure (or its scores view, when `scores_view`:
    FlashAttention's and decoding's compact steps), drawn whole and counted from 1."""
    # start-up: the command's walkthrough checks its figure before it loads any step's module
    from ...figures.figure import Figure
    from ...words.figure_text import FigureText

    views = ("full", "scores") if scores_view else ("full",)
    if not isinstance(fig, Figure) or fig.view not in views:
        drop = "drop --view (or --view scores, with --flash or --decode)" if not scores_view else "drop --view mask"
        raise InputError(f"steps through one full figure: its scores, mask and softmax; {drop} and --panel",
                         "walkthrough")
    if isinstance(fig.words, FigureText) and fig.words.elided:  # a full view's words are a FigureText
        raise InputError("a walkthrough computes every score, so it draws every one: drop --elide (up to 64 tokens)",
                         "--elide")
    if fig.words.base != 1:
        raise InputError("walkthrough sentences count from 1; drop --index-base 0", "--index-base")
    from ...figures.blocked import BlockedScoresFigure  # start-up: as the two above

    if isinstance(fig, BlockedScoresFigure) and scores_view:  # (the plain walkthrough outlines them on every step)
        raise InputError("a mechanics walkthrough outlines its own tiles, chunks or cache over the grid: drop "
                         "--blocks (the plain walkthrough outlines FlexAttention's blocks on every step)", "--blocks")


class ShownFlashStep(FlashStep):
    """A `FlashStep` that a notebook shows as its step's figure (tiles, state column) and that draws itself
    with `.svg()`; its fields are the engine's."""

    _drawn: Any  # the shared lazy walkthrough: [figures or None, the arguments that make them]
    _number: int
    _decimal: bool  # the inputs came as decimals and every step's numbers end: the repr writes them as decimals

    def __repr__(self) -> str:
        from ...numbers.exact import DecimalForm  # start-up: as the module's other imports

        with DecimalForm(self._decimal):
            return super().__repr__()

    def figure(self) -> Drawable:
        """This step's figure, as `attnviz.walkthrough(fig, flash=...)` draws it."""
        box = self._drawn
        if box[0] is None:
            from ...figures.api import figure  # start-up: drawn only when a notebook shows a step

            q, k, v, block, order, mask, scale = box[1]
            box[0] = walkthrough(figure(q, k, v=v, mask=mask, scale=scale), flash=block, flash_order=order)
        step: Drawable = box[0][self._number - 1]
        return step

    def svg(self) -> str:
        """This step's figure as SVG."""
        return self.figure().svg()

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> dict[str, str] | None:
        try:
            return self.figure()._repr_mimebundle_()
        except InputError:  # a walk the figure cannot draw (over its limits): the readable repr instead
            return None


def flash(q: Vectors, k: Vectors, v: Vectors | None = None, block: tuple[int, int] = (2, 2),
          order: FlashOrder = "fa2", mask: MaskSpec = "causal", *, scale: ScaleSpec | None = None
          ) -> tuple[FlashStep, ...]:
    """FlashAttention's tiled online softmax for query vectors `q` and key vectors `k`, exactly: one
    `FlashStep` per Br×Bc tile (`block`) that keeps a cell, in FlashAttention-2's order ("fa2", query blocks
    outside) or FlashAttention-1's ("fa1"), under `mask` and `scale` as `attnviz.figure` reads them; `v` adds
    the output accumulator. Indices are 1-based. (`engine.tiled_softmax.flash` computes them; this adds the
    display.) Each step's repr names its rows' m_i, ℓ_i (as e^(…) terms) and rescale; a notebook shows it
    as its step's figure, which `step.figure()` and `step.svg()` draw: every tile outlined, the state
    beside the grid.

    >>> steps = flash([[1, 0], [0, 1], [1, 1]], [[1, 0], [0, 1], [1, 1]], block=(2, 2))
    >>> steps[2]
    <FlashStep 3: queries 3..3 × keys 3..3; m3 = 2, ℓ3 = e^(-1)+e^(-1)+e^0, rescale e^(-1)>
    >>> steps[2].svg().count('attnviz-tile-current')
    1
    """
    steps = _engine_flash(q, k, v, block, order, mask, scale=scale)
    box: list[Any] = [None, (q, k, v, block, order, mask, scale)]
    decimal = _written_as_decimals(steps, (q, k, v))
    shown = []
    for step in steps:
        made = ShownFlashStep(**{name: getattr(step, name) for name in step.__dataclass_fields__})
        object.__setattr__(made, "_drawn", box)
        object.__setattr__(made, "_number", step.index)
        object.__setattr__(made, "_decimal", decimal)
        shown.append(made)
    return tuple(shown)


def _written_as_decimals(steps: Sequence[FlashStep], inputs: tuple[object, ...]) -> bool:
    """True when the inputs came as decimals and every running maximum, exponent and rescale of every step ends:
    the steps' reprs then write them as decimals (9/8 as 1.125), one form for all of them."""
    # start-up: only `attnviz.flash()`'s steps read them
    from ...numbers.arrays import came_as_decimals
    from ...numbers.exact import terminates

    numbers = [x for step in steps for x in (*step.m.values(), *(e for row in step.l.values() for e in row),
                                             *(r for r in step.rescale.values() if r is not None),
                                             *step.sink.values())]
    return came_as_decimals(inputs) and all(map(terminates, numbers))


setattr(flash, "FlashStep", FlashStep)  # noqa: B010 - `attnviz.flash.FlashStep`, the path documented before 0.2
