"""`attnviz slides -f svg-animated`: one SVG that shows a deck's steps in turn, with CSS alone.

No SMIL and no script: each step is its figure's own SVG, nested, shown for the deck's
`step_seconds` (`--step-seconds`, 3 by default) by a `step-end` animation of its visibility, so a
step appears at once and nothing fades. A viewer who asks for reduced motion sees the last step,
still. `--embed-font` travels too: each nested figure carries its subset fonts in its own <style>.
"""

from __future__ import annotations

from ...numbers.exact import InputError
from ...render.svg import fmt, render_svg
from ...render.xml import escape_text
from .visible import visible_highlights

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from .model import Deck

__all__ = ["animated_svg", "MAX_STEP_SECONDS"]

MAX_STEP_SECONDS = 600  # ten minutes a step, as the deck model allows


def animated_svg(deck: Deck) -> str:
    """The deck as one animated SVG (a str): every step at the deck's frame size, `deck.step_seconds` each."""
    seconds = deck.step_seconds
    if not 0 < seconds <= MAX_STEP_SECONDS:
        raise InputError(f"a step is shown for more than 0 and at most {MAX_STEP_SECONDS:,} seconds, not {seconds:g}",
                         "--step-seconds")
    layouts = deck.layouts()
    svgs = []
    for slide, layout in zip(deck.slides, layouts):
        faces = ""
        if slide.figure.embed_font:
            from ...render.font_embed import font_css  # only --embed-font reads the fonts (fontTools)

            faces = font_css(layout, slide.figure.id_prefix)
        shown = visible_highlights(layout, 0.75)  # drawn at its own size: a unit is a CSS pixel, 0.75 pt
        svgs.append(render_svg(shown, slide.figure.id_prefix, theme=slide.figure.theme,
                               description=slide.figure.description(), font_css=faces))
    n = len(svgs)
    width, height = fmt(layouts[0].width), fmt(layouts[0].height)
    # %-formatting: CSS is all braces, which f-strings would double
    css = [".attnviz-step { visibility: hidden; animation: attnviz-steps %ss step-end infinite }" % fmt(n * seconds),  # noqa: UP031
           "@keyframes attnviz-steps { 0%% { visibility: visible } %s%% { visibility: hidden } }" % fmt(100 / n)]  # noqa: UP031
    css += [f".attnviz-step-{k} {{ animation-delay: {fmt((k - 1) * seconds)}s }}" for k in range(2, n + 1)]
    css.append("@media (prefers-reduced-motion: reduce) { .attnviz-step { animation: none } "
               f".attnviz-step-{n} {{ visibility: visible }} }}")
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" class="attnviz-deck" role="img" '
             f'aria-labelledby="attnviz-deck-title" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}">',
             f'<title id="attnviz-deck-title">{escape_text(deck.title)}: {n} step{"s" * (n != 1)}</title>',
             "<style>\n" + "\n".join(css) + "\n</style>"]
    for k, svg in enumerate(svgs, 1):
        parts.append(f'<g class="attnviz-step attnviz-step-{k}">{svg}</g>')
    return "\n".join(parts) + "\n</svg>\n"
