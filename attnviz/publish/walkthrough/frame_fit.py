"""A walkthrough in a fitted frame (slide, 4:3, column): its steps all have the first step's size, so the first
step (and a sparse selection's own step) is laid out once before any is written; one that does not fit is refused
in one line naming only the frames where it does (each tried), since a figure's own advice (`--view mask`, `--view
scores`) is not a walkthrough's to take.
"""

from __future__ import annotations

import copy

from ...figures.model_floor import WAYS_OUT
from ...numbers.exact import InputError

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from ...figures.figure import Drawable, Figure
    from .sparse import Lead

__all__ = ["check_steps_fit"]


def check_steps_fit(fig: Figure, step: Drawable, lead: Lead | None = None) -> None:
    """Refuses a walkthrough of `fig` whose steps (each the size of `step`) or selection's step (`lead`) do not
    fit `fig`'s frame at its floors, naming the frames of `WAYS_OUT` where both fit (or fewer tokens)."""
    if fig.frame == "doc":  # (a doc figure is as large as it needs)
        return
    refused = _refusal(fig, step, lead, fig.frame)
    if refused is None:
        return
    ways = [f"--frame {name}" for name in WAYS_OUT if name != fig.frame and _refusal(fig, step, lead, name) is None]
    why = refused.what.split(";")[0]  # (its own advice is for one figure, not for a walkthrough)
    name = f"{lead.name} walkthrough's" if lead is not None else "walkthrough's"
    raise InputError(f"the {name} steps do not fit the {fig.frame} frame at its floors ({why}); try "
                     f"{' or '.join(ways + ['fewer tokens'])}", "--frame")


def _refusal(fig: Figure, step: Drawable, lead: Lead | None, frame: str) -> InputError | None:
    """Why `step` or the selection's step does not fit `frame` (None: both fit)."""
    framed, framed_step = copy.copy(fig), copy.copy(step)
    framed.frame = framed_step.frame = frame
    try:
        if lead is not None:
            lead.draw(framed, "attnviz-fit").layout()
        framed_step.layout()
    except InputError as err:
        if err.where != "frame":
            raise
        return err
    return None
