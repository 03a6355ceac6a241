"""Nothing outside the viewBox, as Chromium draws it: every <text> of every view (mask map, full, scores, the heads'
maps, composed panels, the heads schematic, a model's figure) in every frame, with hostile titles, subtitles, axis
titles and token labels (tests/hostile_texts.py: long words without spaces, many short words, right-to-left, CJK,
emoji, combining marks, seeded mixes), lies inside its figure's box on the page. The layout-level twin, without a
browser, is tests/test_frame_maps.py's, in `make check`."""

import pytest
from browser import page_html
from hostile_texts import FRAMES, VIEWS, cases, drawn

TOLERANCE = 1.5  # px: Chromium rounds a font's ascent and descent to whole pixels

# Each figure's box on the page and the box of every <text> in it (rotation included), in page pixels.
TEXT_BOXES_JS = """
() => [...document.querySelectorAll('svg.attnviz')].map(svg => {
  const r = svg.getBoundingClientRect();
  return {box: [r.left, r.top, r.right, r.bottom], texts: [...svg.querySelectorAll('text')].map(t => {
    const b = t.getBoundingClientRect();
    return [t.textContent, b.left, b.top, b.right, b.bottom];
  })};
})
"""


@pytest.fixture(scope="module")
def page_boxes(browser):
    """{view: [(case, figure boxes)]}: each view's figures drawn on one page, in one browser."""
    context = browser.new_context(device_scale_factor=1)
    page = context.new_page()
    out = {}
    for view in VIEWS:
        shown = [(case, got[0]) for case in cases() if case[0] == view if (got := drawn(*case)) is not None]
        page.set_content(page_html([fig.svg() for _, fig in shown]))
        out[view] = list(zip([case for case, _ in shown], page.evaluate(TEXT_BOXES_JS), strict=True))
    context.close()
    return out


@pytest.mark.parametrize("view", VIEWS)
def test_every_text_of_every_view_and_frame_is_inside_its_figure(page_boxes, view):
    outside = []
    for case, figure in page_boxes[view]:
        x0, y0, x1, y1 = figure["box"]
        for text, left, top, right, bottom in figure["texts"]:
            if left < x0 - TOLERANCE or top < y0 - TOLERANCE or right > x1 + TOLERANCE or bottom > y1 + TOLERANCE:
                outside.append((case, text[:30], round(left - x0), round(top - y0), round(right - x1),
                                round(bottom - y1)))
    assert outside == []
    assert {case[1] for case, _ in page_boxes[view]} == set(FRAMES)  # every frame drew some of them
