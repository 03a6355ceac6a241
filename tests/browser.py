"""The system's Chromium, driven by Playwright, for the tests that must see what a browser draws.

Playwright never downloads a browser here: it launches Debian's `chromium`
(tools/install-system-deps.sh installs it). A missing browser fails the tests; it never skips them.
"""

import shutil
from pathlib import Path

import pytest

__all__ = ["chromium_path", "launch", "BOXES_JS", "page_html"]

LAUNCH_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
               "--disable-component-update", "--disable-sync"]

# For every attnviz figure on the page: its size, every <text> with the box of each drawn line
# (a <tspan>, or the text itself; the glyphs' ink included) in the figure's coordinates,
# rotation included, and each line's advance width; and the filled panels (cells, badge,
# softmax bands) with the same boxes.
BOXES_JS = """
() => {
  const box = el => {
    const b = el.getBBox(), m = el.getCTM();
    const pts = [[b.x, b.y], [b.x + b.width, b.y], [b.x, b.y + b.height], [b.x + b.width, b.y + b.height]]
      .map(([x, y]) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]);
    const xs = pts.map(p => p[0]), ys = pts.map(p => p[1]);
    return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
  };
  return [...document.querySelectorAll('svg.attnviz')].map(svg => ({
    id: svg.id,
    width: svg.viewBox.baseVal.width,
    height: svg.viewBox.baseVal.height,
    texts: [...svg.querySelectorAll('text')].map(t => {
      const spans = [...t.querySelectorAll('tspan')];
      // a typeset text (runs raised or lowered by dy): each character's extent, for the caller to group
      // into its lines (the runs of one line are several tspans and text nodes)
      if (spans.some(s => s.hasAttribute('dy'))) {
        const m = t.getCTM(), n = t.getNumberOfChars();
        const chars = [...Array(n).keys()].map(i => {
          const r = t.getExtentOfChar(i);
          return [m.a * r.x + m.e, m.d * r.y + m.f, m.a * (r.x + r.width) + m.e, m.d * (r.y + r.height) + m.f];
        });
        const scripts = [], walk = document.createTreeWalker(t, NodeFilter.SHOW_TEXT);
        for (let node = walk.nextNode(); node; node = walk.nextNode())
          for (const _ of node.data) scripts.push(node.parentElement.hasAttribute('font-size'));
        return {text: t.textContent, font: getComputedStyle(t).fontFamily, chars, scripts};
      }
      const lines = spans.length ? spans : [t];
      return {text: t.textContent, font: getComputedStyle(t).fontFamily, lines: lines.map(box),
              advances: lines.map(el => el.getComputedTextLength())};
    }),
    panels: [...svg.querySelectorAll(
      'rect.attnviz-cell-score, rect.attnviz-cell-masked, rect.attnviz-badge, rect.attnviz-softmax-band')]
      .map(r => box(r)),
  }));
}
"""


def chromium_path():
    for candidate in ("chromium", "chromium-browser"):
        found = shutil.which(candidate)
        if found:
            return found
    if Path("/usr/bin/chromium").exists():
        return "/usr/bin/chromium"
    pytest.fail("Chromium is not installed: run tools/install-system-deps.sh (apt-get install chromium); "
                "the browser tests need the real browser and never skip")


def launch(playwright):
    return playwright.chromium.launch(executable_path=chromium_path(), args=LAUNCH_ARGS)


def page_html(svgs, css=""):
    """A minimal page holding the SVGs inline, one under another."""
    body = "\n".join(f"<div>{svg}</div>" for svg in svgs)
    return (f"<!doctype html><html><head><meta charset='utf-8'><style>body {{ margin: 0 }} {css}</style>"
            f"</head><body>{body}</body></html>")
