"""Where a deck's figures go on its slides: the region beside the text, across the slide with the text under it, or
beside the text with the grid's values at 14 pt too (or, for a sparse figure's maps and grids one a slide, across the
slide with them at 14 pt), and what a figure may leave to the slide's text to fit one
(`REDUCTIONS`, `STATE_REDUCTIONS`), tried in one documented order (`TRIES`). `arrangements` yields every try where
each figure of the series fits at the floor with its panels' titles and rules whole (never cut with "…"); the deck
(`model.from_sections`) takes the one that keeps its steps on the fewest slides, the first on a tie.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace

from ...figures.api import Figure
from ...numbers.exact import InputError
from ...words.figure_text import FigureText
from ..walkthrough.state_text import with_state_in_text

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from ...figures.api import Drawable
    from ...layout.figure import Layout

__all__ = ["REDUCTIONS", "STATE_REDUCTIONS", "REGIONS", "TRIES", "CUT_WORDS", "Fit", "region_frame", "in_frame",
           "reduced", "arrangements", "first_per_region", "refusal"]

#: What a deck's figure may leave to the slide's text and notes, in order, when the whole figure does not fit
#: the region beside the text or under it with its text at the floor: the softmax captions (the score view:
#: the step's sentence and formula say them), then also the vectors and the subtitle (the notes say them).
REDUCTIONS = ((), ("scores",), ("scores", "bare"))
#: Then, for a walkthrough's mechanics (FlashAttention's running state, the KV cache's slots): the same again with
#: the state said in the slide's text (on the step's slide or its continuation, the figure unchanged), only the
#: tiles or the cache's marks drawn over the grid.
STATE_REDUCTIONS = tuple(("state", *reduction) for reduction in REDUCTIONS)
_REDUCED = {"scores": "the figure's softmax captions left to the slide's text and notes (its score view)",
            "bare": "the vectors and the subtitle left to the notes",
            "state": "the step's running state (FlashAttention's m_i and ℓ_i, the KV cache's slots) in the slide's "
                     "text, only the tiles or the cache's marks drawn over the grid"}
#: The slide's regions, as (across, compact): beside the text, across the slide with the text under it, beside the
#: text with the grid's values at 14 pt too, and across the slide with its values at 14 pt (taller: a grid too big
#: for the other three, its text under it in a line or two, the rest in the notes).
REGIONS = ((False, False), (True, False), (False, True), (True, True))
#: Every (reduction, region) in the order tried: for each group of reductions, each reduction beside the text then
#: across the slide, then each reduction beside the text with its values at 14 pt, then across it at 14 pt.
TRIES = tuple((reduction, region) for reductions in (REDUCTIONS, STATE_REDUCTIONS)
              for reduction, region in [(r, g) for r in reductions for g in REGIONS[:2]]
              + [(r, REGIONS[2]) for r in reductions] + [(r, REGIONS[3]) for r in reductions])
#: What a layout says when it cut a panel's title, rule caption or subtitle, or an axis title, with "…", or left its
#: panels' rules out (layout.panel_fit, layout.mask_map): an arrangement that does not fit a slide (a deck's panels
#: keep their titles and rules whole, one slide a panel if need be).
CUT_WORDS = ("long panel titles or captions shortened", "long axis titles shortened", "rule captions left out")


def region_frame(aspect: str, wide: bool, compact: bool) -> str:
    """The frame (`layout.frames.DECK_FRAMES`) of the figure's region on an `aspect` slide."""
    return (("slide-figure" if aspect == "16:9" else "slide-4:3-figure")
            + ("-wide" if wide else "") + ("-compact" if compact else ""))


@dataclass(frozen=True)
class Fit:
    """One arrangement of a series' figures: the figures (reduced, laid out for the region), the region (across,
    compact), their layouts by id, and the deck's choices (what it says it did to fit them)."""

    figures: list[Drawable]
    wide: bool
    compact: bool
    laid_out: dict[int, Layout] = field(compare=False)
    choices: tuple[str, ...]


def in_frame(fig: Drawable, frame: str) -> Drawable:
    """`fig` (and its panels) laid out for `frame` from now on: a copy, the original unchanged."""
    if fig.frame == frame:
        return fig
    remade = getattr(fig, "for_frame", None)  # (MoBA's, NSA's panels: arranged anew for the frame, where they fit it)
    if remade is not None and (made := remade(frame)) is not None:
        return made  # type: ignore[no-any-return]
    framed = copy.copy(fig)
    framed.frame = frame
    if hasattr(framed, "panels"):
        framed.panels = tuple(in_frame(panel, frame) for panel in framed.panels)
    return framed


def reduced(fig: Drawable, reduction: tuple[str, ...], series: Sequence[Drawable] = ()) -> Drawable | None:
    """`fig` with the parts `reduction` names left out (a copy), or None when it has none of them (a
    mask map, panels, a score table already: only a full figure's captions and vectors can go); a mask map in a
    `series` that has grids too (NSA's branches beside its scores, one a slide) is itself, as the grids lose theirs,
    and so are a sparse selection's panels (a walkthrough's first step) in a series of steps."""
    if "state" in reduction:
        if not getattr(fig, "overlays", ()):
            return None
        fig = with_state_in_text(fig)
        reduction = tuple(part for part in reduction if part != "state")
    if not reduction:
        return fig
    if isinstance(fig, Figure) and fig.view == "mask":  # (a map beside grids in one series: it has nothing to leave)
        return fig if any(isinstance(other, Figure) and other.view != "mask" for other in series) else None
    if not isinstance(fig, Figure) or not isinstance(fig.words, FigureText) or fig.view not in ("full", "scores"):
        # (a sparse selection's panels, arranged anew for each region, stay whole beside a walkthrough's reduced steps)
        return fig if len(series) > 1 and hasattr(fig, "for_frame") else None
    changes: dict[str, object] = {"view": "scores"}  # (a score view's "scores" reduction: itself)
    if "bare" in reduction:
        changes.update(subtitle="", q_line="", k_line="", more_vectors=())
    smaller = copy.copy(fig)
    smaller.words = replace(fig.words, **changes)  # type: ignore[arg-type]
    elided = fig.elided
    if elided is not None:
        def elided_reduced(first: int, last: int) -> FigureText:
            return replace(elided(first, last), **changes)  # type: ignore[arg-type]

        smaller.elided = elided_reduced
    return smaller


def _state_words(figures: Sequence[Drawable]) -> str:
    """What the "state" reduction left to the slides' text, in its overlays' own words (FlashAttention's running
    state, the KV cache's slots, Flash-Decoding's strips, FlexAttention's blocks' legend)."""
    said = dict.fromkeys(overlay.placement() for fig in figures for overlay in getattr(fig, "overlays", ())
                         if overlay.in_text)
    return "; ".join(said) or _REDUCED["state"]


def _laid_out(framed: Sequence[Drawable]) -> dict[int, Layout] | None:
    """Each figure's layout by id, or None when one is past its frame or cuts a title or rule with "…"."""
    laid_out: dict[int, Layout] = {}
    try:
        for fig in framed:
            if id(fig) not in laid_out:
                laid_out[id(fig)] = fig.layout()
    except InputError as refused:
        if refused.where != "frame":  # (only a figure past its frame tries the next arrangement)
            raise
        return None
    cut = any(choice.startswith(CUT_WORDS) for layout in laid_out.values() for choice in layout.choices)
    return None if cut else laid_out


def _maps_and_grids(series: Sequence[Drawable]) -> bool:
    """Whether `series` is mask maps and grids (a sparse figure's panels, one a slide: NSA's branches, then their
    union), the only series the region across the slide at 14 pt takes: their slides say little (the maps' rules,
    the grid's captions go to the notes), where a walkthrough's steps would leave every sentence to them."""
    views = {fig.view == "mask" for fig in series if isinstance(fig, Figure)}
    return views == {True, False}


def arrangements(figures: Sequence[Drawable], aspect: str) -> Iterator[Fit]:
    """Each arrangement (`TRIES`, in order) where every one of the series' figures fits its region at the floor,
    its titles and rules whole (the steps of one series share one arrangement, so nothing moves between them)."""
    for reduction, (wide, compact) in TRIES:
        if wide and compact and not _maps_and_grids(figures):
            continue
        smaller = [reduced(fig, reduction, figures) for fig in figures]
        if any(fig is None for fig in smaller):
            continue
        frame = region_frame(aspect, wide, compact)
        framed = [in_frame(fig, frame) for fig in smaller if fig is not None]
        laid_out = _laid_out(framed)
        if laid_out is None:
            continue
        said = (("the figure across the slide, the text under it",) if wide else ()) + (
            ("the grid's values at the deck's 14 pt floor, the cells sized to them",) if compact else ()) + tuple(
            _state_words(framed) if part == "state" else _REDUCED[part] for part in reduction)
        yield Fit(framed, wide, compact, laid_out, said)


def first_per_region(fits: Iterator[Fit]) -> Iterator[Fit]:
    """The first of `fits` in each region (a later one in the same region only leaves more of its figure out)."""
    seen: set[tuple[bool, bool]] = set()
    for fit in fits:
        if (fit.wide, fit.compact) not in seen:
            seen.add((fit.wide, fit.compact))
            yield fit
        if len(seen) == len(REGIONS):
            return


def refusal(figures: Sequence[Drawable], aspect: str) -> InputError:
    """The one line that refuses a series no arrangement holds."""
    wider = "--aspect 16:9, " if aspect != "16:9" else ""
    if any(hasattr(fig, "panels") for fig in figures):  # (panels: a slide's whole body may hold them)
        return InputError(f"the panels do not fit a {aspect} slide with every text at 14 pt and their titles whole, "
                          f"beside or under the slide's text; try {wider}fewer panels or tokens, or attnviz render "
                          "--frame slide (the figure alone on a slide)", "slides")
    return InputError(f"the figure does not fit a {aspect} slide with every text at 14 pt, beside or under the "
                      "slide's text, even as its score table with its values at 14 pt and its mechanics in the text; "
                      f"try {wider}fewer tokens, shorter labels, --view mask, or attnviz page instead of a deck",
                      "slides")
