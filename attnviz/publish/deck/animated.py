"""`attnviz slides -f svg-animated`: one SVG that shows a deck's steps in turn, with CSS alone.

No SMIL and no script: each step is its figure's own SVG, nested, shown for the deck's
`step_seconds` (`--step-seconds`, 3 by default) by a `step-end` animation of its visibility, so a
step appears at once and nothing fades. A viewer who asks for reduced motion sees the last step,
still. A step's continuation slides are its one slot; the intro's slot is the deck's title card.
`--embed-font` travels too: each nested figure carries its subset fonts in its own <style>.
"""

from __future__ import annotations

from ...numbers.exact import InputError
from ...render.svg import fmt, render_svg
from ...render.themes import get_theme
from ...render.xml import escape_text
from .slide_text import lines_of
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
        if slide.kind == "continued":  # the same figure as its step's slide: one slot a step
            continue
        if slide.kind == "intro":  # its own slot: the deck's title card, not step 1's figure held twice as long
            svgs.append(_title_card(deck, layout.width, layout.height))
            continue
        faces = ""
        if slide.figure.embed_font:
            from ...render.font_embed import font_css  # only --embed-font reads the fonts (fontTools)

            faces = font_css(layout, slide.figure.id_prefix)
        shown = visible_highlights(layout, 0.75)  # drawn at its own size: a unit is a CSS pixel, 0.75 pt
        svgs.append(render_svg(shown, slide.figure.id_prefix, theme=slide.figure.theme,
                               description=slide.figure.description(), font_css=faces))
    n = len(svgs)
    width, height = fmt(layouts[0].width), fmt(layouts[0].height)  # (every layout of a deck is one size)
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


_CARD_PX = (32, 22)  # the title card's title and heading, in px of the figure's size


def _title_card(deck: Deck, width: float, height: float) -> str:
    """The intro's slot: the deck's series title and what it is about, centred on the theme's background."""
    colours = get_theme(deck.theme).colours
    lines = [(line, _CARD_PX[0], "bold") for line in lines_of(deck.title, width - 64, _CARD_PX[0], bold=True) or []]
    lines += [(line, _CARD_PX[1], "normal") for line in lines_of(deck.heading, width - 64, _CARD_PX[1]) or []]
    y = height / 2 - sum(size * 1.3 for _, size, _ in lines) / 2
    texts = []
    for line, size, weight in lines:
        y += size * 1.3
        texts.append(f'<text x="{fmt(width / 2)}" y="{fmt(y)}" text-anchor="middle" font-size="{size}" '
                     f'font-weight="{weight}" font-family="DejaVu Sans, sans-serif" fill="{colours["text"]}">'
                     f"{escape_text(line)}</text>")
    return (f'<svg width="{fmt(width)}" height="{fmt(height)}" viewBox="0 0 {fmt(width)} {fmt(height)}">'
            f'<rect width="100%" height="100%" fill="{colours["background"]}"/>' + "".join(texts) + "</svg>")
