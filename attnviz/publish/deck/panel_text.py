"""What a slide of several score grids says of their softmax captions: which it leaves out to fit (said in the slide's
text), and whether each panel follows on a slide of its own (`publish.deck.model.from_sections` reads both).
"""

from __future__ import annotations

from ...layout.items import Text
from ...words.figure_text import FigureText
from ...words.user_text import concat

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ...figures.api import Drawable
    from ...layout.figure import Layout

__all__ = ["panels_follow", "captions_left_out"]


def panels_follow(figures: Sequence[Drawable], number: int) -> bool:
    """Whether the series' figures after the `number`th (1-based) are its panels, each drawn alone."""
    panels = getattr(figures[number - 1], "panels", ())
    keys = [later._key() for later in figures[number:]]
    return bool(panels) and all(panel._key() in keys for panel in panels)


def captions_left_out(fig: Drawable, layout: Layout, drawn_next: bool = False) -> tuple[str, ...]:
    """The softmax captions a figure of several score grids leaves out to fit its frame, said in the slide's
    text: which rows, then (unless `drawn_next`: the next slides draw each panel with its captions) each
    panel's rows as its captions write them (on continuation slides if need be)."""
    drawn = {item.role for item in layout.walk() if isinstance(item, Text)}
    panels = [(n, panel) for n, panel in enumerate(getattr(fig, "panels", ()), 1)
              if isinstance(panel.words, FigureText) and panel.words.softmax_rows]
    if not panels or "softmax-weights" in drawn:
        return ()
    if drawn_next:
        return ("Each panel's softmax captions are left out of the figure to fit the slide; the next slides draw "
                "each panel with its captions.",)
    names = [concat(f"panel {n}", *((" (", panel.words.title, ")") if panel.words.title else ()))
             for n, panel in panels]
    rows = [panel.words.softmax_rows for _, panel in panels]
    said = concat(*(part for name, row in zip(names, rows)
                    for part in (name, f": rows {row[0].q}–{row[-1].q}; ")))
    out = [concat("Each panel's softmax captions are left out of the figure to fit the slide, ", said.rstrip("; "),
                  ".")]
    out += [concat("P", name[1:], ", ", row.scores, ": ", row.weights, ".")
            for name, panel_rows in zip(names, rows) for row in panel_rows]
    return tuple(out)
