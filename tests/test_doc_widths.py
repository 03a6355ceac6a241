"""Width-aware doc figures (issue 38): the docs' own three-mask panel example and the GQA figure, built with furo and
MkDocs Material, keep every text of the figure shown at 12 px or more at a 1,280 px page and on a 390 px phone (the
panels stacked there), measured in Chromium; the `doc:WIDTH` frame and the widths' checks on their own."""

import re
from pathlib import Path

import pytest

from attnviz.figures.from_arguments import build
from attnviz.integrations.doc_widths import THEME_WIDTHS, site_widths, widths_html
from attnviz.layout.frames import get_frame, text_floor_misses
from attnviz.numbers.exact import InputError
from test_docs_cache import own_key, sphinx  # noqa: F401  (own_key: the fixture that keys the cache per test)
from test_mkdocs import mkdocs_build, site
from test_sphinx import write_project

DOCS = Path(__file__).resolve().parent.parent / "docs"


def panel_example():
    """The three-mask panel example of docs/gallery.rst, as the docs write it (its options)."""
    text = (DOCS / "gallery.rst").read_text(encoding="utf-8")
    block = re.search(r"   \.\. attnviz::\n((?:      :.*\n)+)", text[text.index("Panels: several figures"):])[1]
    options = dict(re.match(r"\s*:([\w-]+): (.*)", line).groups() for line in block.splitlines())
    assert options["arrange"] == "row" and options["panel"].count("mask =") == 3
    return {key: value for key, value in options.items() if key != "alt"}


GQA = {"q-heads": "1,0; 0,1; 1,1 | 1,1; 0,1; 1,-1 | 2,0; 1,1; 0,1 | 0,1; 1,0; 1,1",
       "k-heads": "1,0; 0,1; 1,1 | 1,1; 1,-1; 0,2", "v-heads": "1; 2; 3 | 3; 1; 0"}
FIGURES = {"panels": panel_example(), "gqa": GQA}

# Every figure shown on the page (not display:none): the smallest text drawn, in CSS px, its font size times the
# figure's on-screen scale, and the figure's box.
SHOWN_JS = """
() => [...document.querySelectorAll('svg.attnviz')].filter(svg => svg.getClientRects().length).map(svg => {
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  const sizes = [...svg.querySelectorAll('text, tspan')].filter(t => [...t.childNodes].some(
    n => n.nodeType === 3 && n.data.trim())).map(t => parseFloat(getComputedStyle(t).fontSize) * scale);
  return {id: svg.id, smallest: Math.min(...sizes), width: svg.getBoundingClientRect().width,
          right: svg.getBoundingClientRect().right};
})
"""


def measured(browser, html_path, width):
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.goto(html_path.as_uri())
    shown = page.evaluate(SHOWN_JS)
    sideways = page.evaluate("() => document.documentElement.scrollWidth")
    page.close()
    return shown, sideways


def sphinx_page():
    blocks = "".join(".. attnviz::\n" + "".join(f"   :{key}: {value}\n" for key, value in options.items()) + "\n"
                     for options in FIGURES.values())
    return {"index": "Figures\n=======\n\n" + blocks}


def mkdocs_page():
    def block(options):  # (the keys in the block's TOML body: a header's value takes no "|")
        def value(key, text):
            return text if key in ("panel", "n") else f'"{text}"'
        return "```attnviz\n" + "".join(f"{key.replace('-', '_')} = {value(key, text)}\n"
                                         for key, text in options.items()) + "```\n\n"
    return {"index.md": "# Figures\n\n" + "".join(block(options) for options in FIGURES.values())}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Each theme's page: furo (Sphinx) and MkDocs Material, neither told a width (the theme's own)."""
    root = tmp_path_factory.mktemp("widths")
    write_project(root / "furo", sphinx_page(),
                  conf='extensions = ["attnviz.integrations.sphinx"]\nhtml_theme = "furo"\nattnviz_cache = False\n')
    status, counts, errors = sphinx(root / "furo", root / "furo-out")
    assert status == 0, errors
    site(root / "material", "site_name: T\ntheme:\n  name: material\nplugins:\n  - attnviz:\n      cache: false\n",
         mkdocs_page())
    run = mkdocs_build(root / "material")
    assert run.returncode == 0, run.stderr
    pages = {"furo": root / "furo-out" / "index.html", "material": root / "material" / "site" / "index.html"}
    for theme in ("sphinx_book_theme", "pydata_sphinx_theme", "sphinx_rtd_theme"):
        write_project(root / theme, sphinx_page(), conf='extensions = ["attnviz.integrations.sphinx"]\n'
                      f'html_theme = "{theme}"\nattnviz_cache = False\n')
        status, _, errors = sphinx(root / theme, root / f"{theme}-out")
        assert status == 0, errors
        pages[theme] = root / f"{theme}-out" / "index.html"
    return pages


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("theme", list(THEME_WIDTHS))
def test_the_docs_examples_keep_12_px_text_at_a_1280_px_page_and_on_a_phone(built, browser, theme, width):
    shown, sideways = measured(browser, built[theme], width)
    assert len(shown) == len(FIGURES)  # one drawing of each figure shown at a time
    for figure_shown in shown:
        assert figure_shown["smallest"] >= 12 - 0.05, (theme, width, figure_shown)
    assert all(figure_shown["right"] <= width for figure_shown in shown)  # no figure runs past the page
    if theme != "pydata_sphinx_theme":  # (whose own header makes a 390 px page 499 px wide, figures or not)
        assert sideways <= width  # the page does not scroll sideways
    if width == 390:  # the phone's drawings are the stacked ones
        assert all(figure_shown["id"].endswith(f"-w{THEME_WIDTHS[theme][1]}") for figure_shown in shown), shown


def test_the_theme_widths_are_the_themes_content_columns_as_chromium_lays_them_out(built, browser):
    for theme, html_path in built.items():
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(html_path.as_uri())
        wide = page.evaluate("() => document.querySelector('.attnviz-widths').getBoundingClientRect().width")
        page.set_viewport_size({"width": 390, "height": 900})
        narrow = page.evaluate("() => document.querySelector('.attnviz-widths').getBoundingClientRect().width")
        page.close()
        assert (int(wide), int(narrow)) == THEME_WIDTHS[theme], theme  # (a box 696.47 px wide shows 696's)


def test_a_doc_width_frame_stacks_the_panels_on_a_phone_and_keeps_the_row_at_a_page():
    options = {"view": "mask", "n": 16, "arrange": "row", "panel": [
        {"title": "causal", "mask": "causal"}, {"title": "sliding window", "mask": "window=4"},
        {"title": "prefix-LM", "mask": "prefix=5"}]}
    wide, phone = (build({**options, "frame": f"doc:{px}"}, id_prefix="P").layout() for px in (736, 358))
    assert not any("instead of" in choice for choice in wide.choices)
    assert "panels in a column instead of a row" in phone.choices
    for px, layout in ((736, wide), (358, phone)):
        assert text_floor_misses(layout, get_frame(f"doc:{px}")) == []
        # every text at 12 px or more where the figure is drawn `px` CSS px wide
        sizes = [text.style.size * px / layout.width for text in layout.walk() if hasattr(text, "style")]
        assert min(sizes) >= 12 - 1e-6


def test_a_doc_width_frame_is_checked():
    frame = get_frame("doc:740")
    assert (frame.name, frame.kind, round(frame.width_in * 96)) == ("doc:740", "doc", 740)
    for bad in ("doc:10", "doc:wide", "doc:740px", "doc:99999"):
        with pytest.raises(InputError, match="content width in CSS pixels"):
            get_frame(bad)


def test_site_widths_are_checked_and_sorted():
    assert site_widths([358, 736, 358], "w") == (736, 358)
    for bad in ("736", [736.0], [10], [True]):
        with pytest.raises(InputError, match="content widths in CSS pixels"):
            site_widths(bad, "w")


def test_one_drawing_is_inlined_as_before_and_several_each_shown_at_its_widths():
    svg = '<svg xmlns="http://www.w3.org/2000/svg" class="attnviz" id="P" viewBox="0 0 10 10"><title>T</title></svg>'
    assert widths_html([(0, svg, "P")], alt=None).startswith('<div class="attnviz-figure">')
    html = widths_html([(736, svg, "P"), (358, svg.replace('"P"', '"P-w358"'), "P-w358")], alt=None)
    assert html.count("<svg") == 2 and "container-type:inline-size" in html
    assert ("<style>@container (max-width: 735.98px) { .P-at-0 { display: none } } "
            "@container (min-width: 736px) { .P-at-1 { display: none } }</style>") in html
