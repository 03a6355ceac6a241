"""Contrast in every theme, as a browser composes it (issue 38): each text against what lies under it (and any
see-through overlay above it, such as an evicted key's shade), both colours of a hatch; masked cells against kept
ones in the score grid (WCAG 1.4.11's 3:1 for the graphic that carries the meaning); the print theme's highlight
fill distinct from the hatch. The colours are read from the SVG in Chromium; the composing is written here."""

import re

import pytest

import attnviz
from browser import page_html

AA, NON_TEXT = 4.5, 3.0

# For every text of every figure: its fill and the stack of shapes at its centre, bottom first, each its fill
# (a hatch as its pattern's two colours), its opacity, and whether it lies above the text.
STACKS_JS = """
() => {
  const hatch = url => {
    const id = url.match(/#([^"')]+)/)[1];
    return [...document.getElementById(id).querySelectorAll('rect')].map(r => getComputedStyle(r).fill);
  };
  const paint = el => {
    const s = getComputedStyle(el);
    const fill = s.fill.startsWith('url(') ? hatch(s.fill) : [s.fill];
    return {fill, opacity: parseFloat(s.fillOpacity) * parseFloat(s.opacity)};
  };
  const out = [];
  for (const text of document.querySelectorAll('svg.attnviz text')) {
    const b = text.getBoundingClientRect();
    if (!b.width || !text.textContent.trim()) continue;
    const hits = document.elementsFromPoint(b.x + b.width / 2, b.y + b.height / 2);
    const at = hits.indexOf(text);
    const shapes = hits.map((el, n) => [el, n]).filter(([el]) => ['rect', 'polygon'].includes(el.localName)
        && getComputedStyle(el).fill !== 'none')
      .map(([el, n]) => ({...paint(el), above: at >= 0 && n < at, role: el.getAttribute('class')}));
    out.push({text: text.textContent, role: text.getAttribute('class'), fill: getComputedStyle(text).fill,
              stack: shapes.reverse()});
  }
  return out;
}
"""
# Each kept and each masked cell of the score grid: its fill as drawn (a hatch: its two colours).
CELLS_JS = """
() => [...document.querySelectorAll('svg.attnviz rect.attnviz-cell-score, svg.attnviz rect.attnviz-cell-masked')]
  .map(r => {
    const fill = getComputedStyle(r).fill;
    if (!fill.startsWith('url(')) return {role: 'kept', fill: [fill]};
    const id = fill.match(/#([^"')]+)/)[1];
    return {role: 'masked', fill: [...document.getElementById(id).querySelectorAll('rect')]
      .map(x => getComputedStyle(x).fill)};
  })
"""


def rgb(css):
    return tuple(float(n) / 255 for n in re.findall(r"[\d.]+", css)[:3])


def over(top, alpha, under):
    """`top` at `alpha` over `under`, as a browser composes them (in sRGB, as CSS does)."""
    return tuple(alpha * t + (1 - alpha) * u for t, u in zip(top, under))


def luminance(colour):
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def ratio(a, b):
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def composed(stack, text_fill):
    """(the text's colour, the ground's colours): every choice of a hatch's two colours, composed bottom up;
    a shape above the text shades the text as well as its ground."""
    grounds, text = [(1.0, 1.0, 1.0)], rgb(text_fill)
    for shape in stack:
        colours = [rgb(fill) for fill in shape["fill"]]
        if shape["above"]:
            text = over(colours[0], shape["opacity"], text)
        grounds = [over(colour, shape["opacity"], ground) for ground in grounds for colour in colours]
    return text, grounds


FIGURES = {
    "seed": lambda theme: attnviz.figure(highlight=[(3, 3), (1, 3)], theme=theme),
    "seed-slide": lambda theme: attnviz.figure(highlight=[(3, 3)], theme=theme, frame="slide"),
    "mask": lambda theme: attnviz.figure(view="mask", n=8, mask="window=3", theme=theme),
    "decode": lambda theme: attnviz.walkthrough(
        attnviz.figure(q=[[1, 0], [0, 1], [1, 1], [1, 0], [0, 1]], k=[[1, 0], [0, 1], [1, 1], [1, 0], [0, 1]],
                       mask="window=2", view="scores", theme=theme), decode=2)[-1],
    "flash": lambda theme: attnviz.walkthrough(attnviz.figure(theme=theme), flash=(2, 2))[2],
}


def shown(page, fig, scheme):
    page.emulate_media(color_scheme=scheme)
    page.set_content(page_html([fig.svg()]))


@pytest.mark.parametrize("theme", ["light", "dark", "print", "contrast", "auto-dark"])
@pytest.mark.parametrize("name", FIGURES)
def test_every_text_is_aa_against_what_a_browser_draws_under_it(page, theme, name):
    fig = FIGURES[name](theme.removesuffix("-dark"))
    shown(page, fig, "dark" if theme.endswith("-dark") else "light")
    failures = []
    for text in page.evaluate(STACKS_JS):
        colour, grounds = composed(text["stack"], text["fill"])
        worst = min(ratio(colour, ground) for ground in grounds)
        if worst < AA - 0.005:
            failures.append(f"{text['role']} {text['text']!r}: {worst:.2f}")
    assert failures == []


@pytest.mark.parametrize("theme", ["light", "dark", "print", "contrast", "auto-dark"])
def test_masked_cells_differ_from_kept_ones_by_3_to_1(page, theme):
    shown(page, FIGURES["seed"](theme.removesuffix("-dark")), "dark" if theme.endswith("-dark") else "light")
    cells = page.evaluate(CELLS_JS)
    kept = {fill for cell in cells if cell["role"] == "kept" for fill in cell["fill"]}
    masked = {tuple(cell["fill"]) for cell in cells if cell["role"] == "masked"}
    assert kept and masked
    # the hatch's stripes, the graphic that says "masked", stand 3:1 from a kept cell's fill
    for _base, stripe in masked:
        for fill in kept:
            assert ratio(rgb(stripe), rgb(fill)) >= NON_TEXT, (stripe, fill)


def test_the_print_themes_highlight_fill_is_not_the_hatch(page):
    shown(page, FIGURES["seed"]("print"), "light")
    computed = page.evaluate("() => getComputedStyle(document.querySelector('rect.attnviz-cell-computed')).fill")
    hatch = page.evaluate("() => [...document.querySelectorAll('pattern rect')].map(r => getComputedStyle(r).fill)")
    assert all(ratio(rgb(computed), rgb(colour)) >= 1.3 for colour in hatch), (computed, hatch)
