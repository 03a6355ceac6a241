"""Budgets count what is drawn (issue 24): a 2 KB spec of 1,024 tokens in alternating documents wrote a
46 MB mask map against the 8 MB figure budget, a 5-section page of it 465 MB, and PNG and PowerPoint of it
ran for minutes. A map draws one rectangle a run of kept keys, so its estimate counts the runs; a deck
counts its figures and, for PowerPoint, its shapes. Each is refused in one line before the costly work."""

import importlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_hostile_input import refused

import attnviz
import attnviz.layout.mask_map
import attnviz.render.raster
import attnviz.words.budget as budget
from attnviz.publish.deck.formats import pptx_bytes
from attnviz.publish.deck.powerpoint import deck_shapes, drawn_shapes
from attnviz.publish.deck.highlights import from_highlights

LAYOUT_MODULE = importlib.import_module("attnviz.figures.figure")
FIGURE_MODULE = importlib.import_module("attnviz.figures.api")


def alternating(n, kind="documents"):
    return f"{kind}=" + ",".join("12"[i % 2] for i in range(n))


def map_spec(n=1024, kind="documents", sections=0):
    figure = f'view = "mask"\nn = {n}\nmask = "{alternating(n, kind)}"\n'
    if not sections:
        return figure
    return "heading = 'h'\n[figure]\n" + figure + "[[sections]]\nheading = 's'\nhighlight = 'row=1'\n" * sections


@pytest.fixture
def nothing_drawn(monkeypatch):
    """Any layout, Cairo or python-pptx work fails the test: the refusals come first."""
    monkeypatch.setattr(LAYOUT_MODULE, "lay_out", lambda *a: pytest.fail("layout was made"))
    monkeypatch.setattr(attnviz.layout.mask_map, "lay_out_map", lambda *a: pytest.fail("a map was laid out"))
    monkeypatch.setattr(attnviz.render.raster, "_cairosvg", lambda: pytest.fail("Cairo was called"))
    pptx = importlib.import_module("pptx")
    monkeypatch.setattr(pptx, "Presentation", lambda *a: pytest.fail("python-pptx was called"))


@pytest.mark.parametrize("kind", ["segments", "documents"])
def test_the_estimate_counts_a_maps_runs_and_bounds_what_it_writes(kind):
    """Before: a 1,024-token map of alternating documents was estimated at 537,646 characters and wrote
    46,554,627. Its runs (n²/2) now count: small maps of the same kind, highlighted too, stay bounded."""
    for n in (2, 9, 64, 200):
        for highlight in (None, "mask", ["row=2", "1,2"]):
            fig = attnviz.figure(view="mask", n=n, mask=alternating(n, kind), highlight=highlight)
            runs = sum(map(len, fig.words.runs))
            assert runs >= n * n // 4  # the runs the map draws: about one a kept cell
            assert budget.figure_chars(fig.words) >= len(fig.svg())
    big = attnviz.figure(view="mask", n=1024, mask=alternating(1024, kind))
    assert budget.figure_chars(big.words) > budget.FIGURE_CHARS  # over, where it was estimated at 537,646


@pytest.mark.parametrize("out", ["x.svg", "x.png", "x.pdf"])
def test_a_map_of_many_runs_is_refused_before_layout(tmp_path, monkeypatch, nothing_drawn, out):
    monkeypatch.chdir(tmp_path)
    error = refused(tmp_path, "render", "spec.toml", "-o", out, spec=map_spec())
    assert error.startswith("figure: the figure would be about 62,403,630 characters of SVG, past the budget of "
                            "8,000,000 per figure: the map draws one rectangle per run of kept keys: use a simpler "
                            "mask (fewer, longer runs: fewer documents or segments), fewer tokens, or another --view")


def test_a_page_of_such_maps_is_refused_before_its_figures_are_drawn(tmp_path, monkeypatch, nothing_drawn):
    """Before: 5 sections wrote 465 MB against the 24 MB page budget."""
    built = []
    real = FIGURE_MODULE.figure
    monkeypatch.setattr(FIGURE_MODULE, "figure", lambda *a, **k: built.append(1) or real(*a, **k))
    monkeypatch.chdir(tmp_path)
    error = refused(tmp_path, "page", "spec.toml", "-o", "out", spec=map_spec(sections=5))
    assert error.startswith("spec.toml: the page would be about ")
    assert "past the budget of 24,000,000 per page" in error
    assert built == [1]


@pytest.mark.parametrize("fmt", ["pptx", "pdf", "svg-animated", "revealjs", "beamer"])
def test_a_deck_of_such_a_map_is_refused_before_any_slide_is_drawn(tmp_path, monkeypatch, nothing_drawn, fmt):
    monkeypatch.chdir(tmp_path)
    error = refused(tmp_path, "slides", "spec.toml", "-f", fmt, "-o", "deck", spec=map_spec())
    assert error.startswith("figure: the figure would be about 62,403,630 characters of SVG, past the budget of ")


@pytest.mark.parametrize("fmt", ["pptx", "pdf", "svg-animated", "revealjs", "tikz"])
def test_a_deck_of_many_highlights_is_refused_before_any_slide_is_laid_out(tmp_path, monkeypatch, nothing_drawn,
                                                                         fmt):
    """A slide per highlighted cell: each figure fits its budget, all of them together do not."""
    monkeypatch.chdir(tmp_path)
    grid = [[i % 3 - 1, i % 5 - 2] for i in range(8)]
    cells = [[i, j] for i in range(1, 9) for j in range(1, i + 1)]  # 36 slides
    spec = f"q = {grid}\nk = {grid}\nhighlight = {cells}\n"
    one = budget.figure_chars(attnviz.figure(grid, grid, highlight=[(1, 1)]).words)
    monkeypatch.setattr(budget, "PAGE_CHARS", 20 * one)
    error = refused(tmp_path, "slides", "spec.toml", "-f", fmt, "-o", "deck", spec=spec)
    assert error.startswith("slides: the deck's 36 slides would draw about ")
    assert f"past the budget of {20 * one:,} per deck: use fewer steps or highlights" in error


def test_a_powerpoint_deck_is_refused_by_its_shapes_before_python_pptx_adds_any(tmp_path, monkeypatch):
    """PowerPoint draws a shape per rectangle, mark and line of text; python-pptx slows with each one."""
    pptx = importlib.import_module("pptx")
    deck = from_highlights(attnviz.figure(view="mask", n=32, mask=alternating(32)))
    shapes = deck_shapes(deck.layouts())
    assert shapes > 32 * 32 // 2  # a rectangle a run: about one a kept cell
    monkeypatch.setattr(budget, "PPTX_SHAPES", shapes)
    assert pptx_bytes(deck).startswith(b"PK")  # at the budget: drawn
    monkeypatch.setattr(budget, "PPTX_SHAPES", shapes - 1)
    monkeypatch.setattr(pptx, "Presentation", lambda *a: pytest.fail("python-pptx was called"))
    with pytest.raises(attnviz.InputError, match=f"the PowerPoint deck would be {shapes:,} shapes, past the budget "
                                                 f"of {shapes - 1:,}: use another format"):
        pptx_bytes(deck)


def test_the_shape_count_is_what_python_pptx_draws():
    pptx = importlib.import_module("pptx")
    import io

    deck = from_highlights(attnviz.figure(view="mask", n=12, mask=alternating(12), highlight="row=3"))
    presentation = pptx.Presentation(io.BytesIO(pptx_bytes(deck)))
    ns = {"p": "http://schemas.openxmlformats.org/presentationml/2006/main",
          "mc": "http://schemas.openxmlformats.org/markup-compatibility/2006"}
    drawn = sum(len(slide._element.findall(".//p:sp", ns)) + len(slide._element.findall(".//p:grpSp", ns))
                - len(slide._element.findall(".//mc:Fallback/p:sp", ns)) for slide in presentation.slides)
    assert drawn <= deck_shapes(deck.layouts())  # the budget counts every shape that may be drawn
    assert drawn >= sum(drawn_shapes(layout.items) for layout in deck.layouts())  # the figures at least


def test_the_issues_spec_is_small():
    assert len(map_spec().encode()) < 2100  # a 2 KB spec: the budget is on output, not input


# The auto theme's dark-mode CSS (~7,000 characters, once a figure) is outside the words' estimate:
# figure_chars does not know the theme. Small figures only; not a run's cost: light and dark here.
@settings(max_examples=25, deadline=None)
@given(ids=st.lists(st.integers(0, 3), min_size=1, max_size=40), kind=st.sampled_from(["segments", "documents"]),
       highlight=st.sampled_from([None, "mask", "row=1"]), theme=st.sampled_from(["light", "dark"]))
def test_the_estimate_bounds_maps_of_any_documents(ids, kind, highlight, theme):
    fig = attnviz.figure(view="mask", n=len(ids), mask=f"{kind}=" + ",".join(map(str, ids)), highlight=highlight,
                         theme=theme)
    assert budget.figure_chars(fig.words) >= len(fig.svg())


@pytest.mark.parametrize("q, k", [("123456789; 0", "123456789; 1"), ("100000; 0", "100000; 1"),
                                  ("10^39; 0", "10^39; 1")])
def test_decimal_weights_of_far_apart_scores_round_in_bounded_memory(q, k):
    """A score gap of 10^10 made a weight e^(-10^10): its interval's ends were turned into fractions with
    denominators of 2^(10^10) (7.5 GB, then MemoryError). An end under 10^-(places+1) rounds to 0 unmade."""
    import subprocess
    import sys

    # (the process may take 2 GB of address space at most: past it, Python raises MemoryError and exits 1)
    code = ("import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30)); "
            "from attnviz.cli import main; sys.exit(main(sys.argv[1:]))")
    if "^" in q:
        q, k = q.replace("10^39", "1" + "0" * 39), k.replace("10^39", "1" + "0" * 39)
    done = subprocess.run([sys.executable, "-c", code, "render", "--q", q, "--k", k, "--mask", "none",
                           "--v", "1,0; 0,1", "--weights", "decimal=6", "-o", "-"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "weights ≈1.000000, ≈0.000000" in done.stdout and "≈ (1.000000,0.000000)" in done.stdout
