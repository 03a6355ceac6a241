"""Docs pages that travel (issue 38): a `.. attnviz-page::` document's figures are counted in the build's summary,
and its formulas scroll in their own box, so sphinx-book-theme's page does not scroll sideways on a 390 px phone."""

import pytest

from test_docs_cache import own_key, sphinx  # noqa: F401  (own_key: the fixture that keys the cache per test)
from test_sphinx import write_project

PAGE = {"index": "Walk\n====\n\n.. attnviz-page::\n"}  # the seed document: three sections, each a figure


def test_a_page_documents_figures_are_counted_in_the_build_summary(tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    write_project(src, PAGE)
    status, counts, errors = sphinx(src, out)
    assert status == 0, errors
    drawn = (out / "index.html").read_text(encoding="utf-8").count('<svg xmlns="http://www.w3.org/2000/svg"')
    assert drawn == 3 and counts == (3, 0)


@pytest.mark.parametrize("width", [390, 1280])
def test_a_page_documents_formulas_scroll_in_their_box_not_the_page(tmp_path, browser, width):
    src, out = tmp_path / "src", tmp_path / "out"
    write_project(src, PAGE, conf='extensions = ["attnviz.integrations.sphinx"]\nhtml_theme = "sphinx_book_theme"\n')
    status, _, errors = sphinx(src, out)
    assert status == 0, errors
    page = browser.new_page(viewport={"width": width, "height": 844})
    page.goto((out / "index.html").as_uri())
    boxes = page.evaluate("""() => [...document.querySelectorAll('.attnviz-formula')].map(box => ({
        overflow: getComputedStyle(box).overflowX, box: box.getBoundingClientRect().right,
        wide: box.scrollWidth > box.clientWidth}))""")
    assert len(boxes) == 3 and all(box["overflow"] == "auto" for box in boxes)
    assert all(box["box"] <= width for box in boxes)
    # the page itself does not scroll sideways (a formula wider than the column scrolls in its own box)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    if width == 390:
        page.screenshot(path=str(tmp_path / "phone.png"), full_page=False)
    page.close()
