"""The type scale: four text sizes a frame, named, and which text role is set at which (docs/styling.rst).

A role's text is set at one of four steps, `title`, `heading`, `body` and `small`, and a frame gives each
step its size, so no figure has more than four: the doc frame's sizes are CSS pixels of the web figure; a
slide's are pixels of the 1,280 × 720 slide (its `small` is the 16 px floor, its `heading` the 24 px floor of
the grid's values and main caption); a column's are units of which the column is (its width in pt) × 2 wide,
so its `small` prints at the 7 pt floor (`doc:WIDTH` is laid out as a column is, its `small` at 12 CSS px).

A typeset script (an exponent or a subscript, in the slide and column frames) is set at a step too:
`script_size` gives the smallest step at least 0.7 of its line and at least its line's floor: the `small`
step, or, in a line held to a slide's main floor (the caption's S_ij), the line's own step, only raised or
lowered. Figures laid out at the doc's steps and then drawn larger for a frame (mask maps, composed
panels, a walkthrough's mechanics) keep four sizes, in proportion.
"""

from __future__ import annotations

from .math_text import SCRIPT_SCALE

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["STEPS", "ROLE_STEPS", "TYPE_SCALES", "step_sizes", "role_sizes", "script_size"]

#: The steps, largest first.
STEPS = ("title", "heading", "body", "small")

#: Each text role's step. `heading`: the grid's values with the main caption (held to a slide's main floor with
#: them), a panel's title and an elision's dots; `body`: what is read in lines (subtitle, section headings, vectors,
#: softmax and output captions, labels, a walkthrough's mechanics: one step, so that drawn larger for a frame they
#: land on its `small`); `small`: what stands aside (badge, notes, the masked cells' word, ticks).
ROLE_STEPS = {
    "title": "title",
    "panel-title": "heading", "caption": "heading", "score": "heading", "score-computed": "heading",
    "elision": "heading",
    "subtitle": "body", "softmax-heading": "body", "outputs-heading": "body", "vectors": "body", "header": "body",
    "softmax-scores": "body", "softmax-weights": "body", "output": "body", "axis-title": "body", "legend": "body",
    "state": "body", "side-heading": "body", "slot": "body", "slot-note": "body", "head": "body",
    "badge": "small", "note": "small", "masked": "small", "footer": "small", "tick": "small",
}

#: Each frame's size of each step (`STEPS`' order): the doc figure's (CSS px), a slide's (px of 1,280 × 720:
#: `small` 16 and `heading` 24 are its floors), a column's (units of which 14 prints at 7 pt; `doc:WIDTH`'s too).
TYPE_SCALES = {
    "doc": (24.0, 16.0, 13.5, 12.0),
    "slide": (32.0, 24.0, 18.0, 16.0),
    "column": (19.0, 17.0, 16.0, 14.0),
}


def step_sizes(scale: str) -> dict[str, float]:
    """Each step's size in the frame `scale` ("doc", "slide" or "column").

    >>> step_sizes("slide")
    {'title': 32.0, 'heading': 24.0, 'body': 18.0, 'small': 16.0}
    """
    return dict(zip(STEPS, TYPE_SCALES[scale]))


def role_sizes(scale: str) -> tuple[tuple[str, float], ...]:
    """(role, size) of every role in the frame `scale`: its step's size.

    >>> dict(role_sizes("column"))["caption"], dict(role_sizes("doc"))["tick"]
    (17.0, 12.0)
    """
    sizes = step_sizes(scale)
    return tuple((role, sizes[step]) for role, step in ROLE_STEPS.items())


def script_size(size: float, floor: float, steps: Iterable[float]) -> float:
    """A script's size in a line of `size`: the smallest of `steps` at least `SCRIPT_SCALE` of the line and at
    least `floor` (that least itself where no step is).

    >>> script_size(18, 16, (32, 24, 18, 16)), script_size(24, 24, (32, 24, 18, 16))
    (16, 24)
    """
    least = max(size * SCRIPT_SCALE, floor)
    return min((step for step in steps if step >= least - 1e-9), default=least)
