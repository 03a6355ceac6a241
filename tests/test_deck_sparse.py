"""Sparse and split attention on slides (issue 35), in all six formats, every step measured where it is shown as
tests/test_deck_mechanics.py measures it: FlexAttention's blocks on a 16-token mask map and on 8-token score grids
(a deck of one figure, of a score view, of a walkthrough), a Medusa token tree, and Flash-Decoding decks of one
query × 8 keys and 4 queries × 8 keys with values. Where a figure with its blocks' legend or its chunks' strips fits
no arrangement, that legend or the strips go to the slide's text (the figure stays still); nothing is refused,
nothing is under 14 pt, nothing leaves the slide."""

import re
import subprocess
import zipfile

import pytest
from test_deck_fit import smallest_pt
from test_deck_mechanics import _off_the_page, assert_on_the_slide_in_chromium
from test_decks_tex import _walk, overfull, pages, pdflatex, tool

import attnviz
from attnviz.layout.frames import text_floor_misses
from attnviz.publish.deck import model as decks
from attnviz.publish.deck.formats import deck_files, write_deck
from attnviz.publish.deck.highlights import from_highlights

EIGHT = "1,0; 0,1; 1,1; 1,-1; 0,2; 2,1; -1,1; 1,2"
FOUR = "1,0; 0,1; 1,1; 2,0"
VECTORS = [[1, 0], [0, 1], [1, 1], [1, -1], [0, 2], [2, 1], [-1, 1], [1, 2]]
M6 = "1,0; 0,1; 1,1; 2,0; 0,2; 0,0"  # (the gallery's MoBA and NSA vectors)
Q12 = "1,0; 0,1; 1,1; 2,0; 0,2; 1,-1; 3,1; 0,1; 1,2; 2,1; -1,1; 1,3"


def _figure(argv):
    """The figure `attnviz slides` draws from these flags (a sparse figure with its panels, as the command makes it)."""
    from attnviz.cli.arguments import figure_from_args
    from attnviz.cli.parser import build_parser

    return figure_from_args(build_parser().parse_args(["slides", *argv]))

#: Each deck as `attnviz slides` makes it: (how it is made, the blocks a slide's figure outlines (full, partial,
#: empty), or None).
SCENARIOS = {
    "map 16, blocks 4": (lambda: from_highlights(attnviz.figure(view="mask", n=16, blocks=4)), (6, 4, 6)),
    "scores 8, blocks 4": (lambda: from_highlights(attnviz.figure(VECTORS, VECTORS, blocks=4)), (1, 2, 1)),
    "score view 8, blocks 4": (lambda: from_highlights(attnviz.figure(VECTORS, VECTORS, blocks=4,
                                                                            view="scores")), (1, 2, 1)),
    "walkthrough 4, blocks 2": (lambda: decks.from_sections(*_walk(["--q", FOUR, "--k", FOUR, "--blocks", "2"])),
                                (1, 2, 1)),
    "medusa tree": (lambda: from_highlights(attnviz.figure(
        view="mask", tokens="The cat sat on in the a the my".split(), mask="tree=-1,-1,0,0,1,1,prompt=3")), None),
    # MoBA's gate as a map beside its mask (arranged anew for the slide's region), NSA's three branches and union
    "moba map": (lambda: from_highlights(_figure(["--q", M6, "--k", M6, "--sparse", "moba=2,2", "--view",
                                                        "mask"])), None),
    "moba full": (lambda: from_highlights(_figure(["--q", M6, "--k", M6, "--sparse", "moba=2,2"])), None),
    "nsa map": (lambda: from_highlights(_figure(["--q", Q12, "--k", Q12, "--sparse", "nsa=4,2,2,3,2,local=1",
                                                       "--view", "mask"])), None),
    "flash-decoding 1×8, values": (lambda: decks.from_sections(*_walk(
        ["--q", "1,1", "--k", EIGHT, "--v", EIGHT, "--mask", "none", "--split-kv", "4"])), None),
    "flash-decoding 4×8, values": (lambda: decks.from_sections(*_walk(
        ["--q", FOUR, "--k", EIGHT, "--v", EIGHT, "--mask", "none", "--split-kv", "4"])), None),
}


@pytest.fixture(scope="module")
def made():
    cache = {}

    def deck(name):
        if name not in cache:
            cache[name] = SCENARIOS[name][0]()
        return cache[name]

    return deck


def _classes(svg):
    """How many outlines of each block class `svg` draws over its grid (its legend's swatches left out)."""
    found = re.findall(r'<rect class="attnviz-block-(full|partial|empty)" data-q=', svg)
    return tuple(found.count(kind) for kind in ("full", "partial", "empty"))


@pytest.mark.parametrize("name", SCENARIOS)
def test_the_deck_builds_at_14_pt_with_its_figure_still_and_its_blocks_on_every_slide(made, name):
    deck = made(name)
    assert smallest_pt(deck) >= 14 - 1e-6
    assert all(text_floor_misses(layout, deck.frame) == [] for layout in deck.layouts())
    assert len({(layout.width, layout.height) for layout in deck.layouts()}) == 1  # nothing moves
    blocks = SCENARIOS[name][1]
    if blocks is not None:
        assert all(_classes(slide.figure.svg()) == blocks for slide in deck.slides)
    said = " ".join(p for slide in deck.slides for p in slide.paragraphs)
    if any("legend in the step's text" in choice for choice in deck.choices):
        assert "outlined over the grid: full block: no mask call" in said
    if any("strips in the step's text" in choice for choice in deck.choices):
        assert "After chunk 2 of 2 (side by side)." in said and "Chunk 1 (keys 1–4), row 1: m = " in said


def test_flash_decoding_decks_say_their_strips_in_the_text_not_as_flashattentions_running_state(made):
    deck = made("flash-decoding 4×8, values")
    assert "the chunks outlined over the grid, their strips in the step's text" in deck.choices
    assert not any("FlashAttention's m_i" in choice for choice in deck.choices)
    said = [p for slide in deck.slides for p in slide.paragraphs]
    # the combine step's slides say each chunk's partial output O_c, which its strip no longer draws
    assert any(p.startswith("Chunk 2 (keys 5–8), row ") and "ℓO = " in p for p in said)
    one = made("flash-decoding 1×8, values")
    assert len({id(slide.figure) for slide in one.slides}) == 5  # the intro and 4 steps, each one still figure


@pytest.mark.parametrize("name", SCENARIOS)
def test_beamer_sets_every_step_with_no_overfull_box(made, name, tmp_path):
    deck = made(name)
    tex = tmp_path / "deck.tex"
    tex.write_text(deck_files(deck, "beamer", str(tex))[str(tex)])
    pdf, log = pdflatex(tex)
    assert overfull(log) == []
    assert pages(pdf) == len(deck.slides)
    assert _off_the_page(pdf) == []


@pytest.mark.parametrize("name", SCENARIOS)
def test_the_pdf_deck_keeps_every_word_on_its_page(made, name, tmp_path):
    deck = made(name)
    write_deck(deck, "pdf", str(tmp_path / "deck.pdf"))
    assert pages(tmp_path / "deck.pdf") == len(deck.slides)
    assert _off_the_page(tmp_path / "deck.pdf") == []


@pytest.mark.parametrize("name", SCENARIOS)
def test_powerpoint_as_libreoffice_shows_it_keeps_every_word_on_the_slide(made, name, tmp_path):
    deck = made(name)
    write_deck(deck, "pptx", str(tmp_path / "deck.pptx"))
    blocks = SCENARIOS[name][1]
    with zipfile.ZipFile(tmp_path / "deck.pptx") as package:
        slides = [n for n in package.namelist() if re.fullmatch(r"ppt/slides/slide\d+\.xml", n)]
        assert len(slides) == len(deck.slides)
        if blocks is not None:  # full blocks in the theme's part-3 green, partial ones in its part-2 orange
            xml = package.read(slides[0]).decode()
            xml = xml[xml.index("<p:grpSp>"):xml.rindex("</p:grpSp>")]  # the figure (not the slide's sentences)
            swatch = "full block: no mask call" in xml  # the legend's swatches, where the legend is drawn
            assert xml.count('<a:srgbClr val="009E73"/>') == blocks[0] + swatch
            assert xml.count('<a:srgbClr val="E69F00"/>') == blocks[1] + swatch
    subprocess.run([tool("soffice"), "--headless", "--convert-to", "pdf", "--outdir", str(tmp_path),
                    str(tmp_path / "deck.pptx")], check=True, capture_output=True, timeout=300)
    assert pages(tmp_path / "deck.pdf") == len(deck.slides)
    assert _off_the_page(tmp_path / "deck.pdf") == []


@pytest.mark.parametrize("name", SCENARIOS)
def test_reveal_js_keeps_every_step_on_the_slide_in_chromium(made, name, browser, tmp_path):
    assert_on_the_slide_in_chromium(made(name), browser, tmp_path / "deck")


@pytest.mark.parametrize("name", SCENARIOS)
def test_the_animated_svg_and_tikz_hold_every_step_and_its_blocks(made, name, tmp_path):
    deck = made(name)
    svg = deck_files(deck, "svg-animated", str(tmp_path / "deck.svg"))[str(tmp_path / "deck.svg")]
    assert svg.count("<svg") >= len({id(slide.figure) for slide in deck.slides})
    files = deck_files(deck, "tikz", str(tmp_path / "fig") + "/")
    steps = [path for path in files if path.rsplit("/", 1)[-1].startswith("step-")]
    assert len(steps) == len({slide.step for slide in deck.slides if slide.step}) or len(steps) == 1
    blocks = SCENARIOS[name][1]
    if blocks is not None:
        drawn = [found for found in map(_classes, svg.split("<svg")) if found != (0, 0, 0)]
        assert len(drawn) >= len({id(slide.figure) for slide in deck.slides}) - 1 and set(drawn) == {blocks}
        tikz = files[steps[0]]
        swatch = "full block: no mask call" in tikz  # each full block's outline, and the legend's swatch if drawn
        assert tikz.count(r"\draw[attnviz-part-3,") == blocks[0] + swatch


def test_a_moba_deck_arranges_its_gate_as_a_map_where_its_score_grid_does_not_fit_the_slide(made):
    """The command's MoBA figure is composed for the page (the gate's scores beside the map); on a slide its panels are
    arranged anew for the slide's region, the gate drawn as the map of the chosen blocks (it once did not fit)."""
    doc = _figure(["--q", M6, "--k", M6, "--sparse", "moba=2,2", "--view", "mask"])
    assert "MoBA gate" in doc.svg()
    deck = made("moba map")
    shown = deck.slides[0].figure.svg()
    assert "MoBA gate" not in shown and "top 2 by gate" in shown.replace("\u2026", "")
    assert deck.slides[0].figure.frame == deck.geometry.frame
