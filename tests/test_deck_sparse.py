"""Sparse and split attention on slides (issue 35), in all six formats, every step measured where it is shown as
tests/test_deck_mechanics.py measures it: FlexAttention's blocks on a 16-token mask map and on 8-token score grids
(a deck of one figure, of a score view, of a walkthrough), a Medusa token tree, MoBA's gate and mask (the mask view
and the full view) and NSA's branches, one panel a slide, and Flash-Decoding decks of one query × 8 keys and 4 queries
× 8 keys with values. Where a figure with its blocks' legend or its chunks' strips fits no arrangement, that legend or
the strips go to the slide's text (the figure stays still); nothing is refused, nothing is under 14 pt, nothing leaves
the slide, no title or rule is cut with "…", and each deck takes the arrangement with the fewest slides."""

import re
import subprocess
import zipfile

import pytest
from test_deck_fit import smallest_pt
from test_deck_mechanics import _off_the_page, assert_on_the_slide_in_chromium
from test_deck_pptx import make_deck
from test_decks_tex import _walk, overfull, pages, pdflatex, tool

import attnviz
from attnviz.layout.frames import text_floor_misses
from attnviz.publish.deck import model as decks
from attnviz.publish.deck.formats import deck_files, write_deck
from attnviz.layout.items import Text
from attnviz.publish.deck.fitting import CUT_WORDS, arrangements, first_per_region
from attnviz.publish.deck.highlights import ONE_PANEL_A_SLIDE, from_highlights

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
    # MoBA's gate and its mask, NSA's three branches and their union: each panel on a slide of its own (side by side
    # they fit no slide region with their titles and rules whole), MoBA's in the mask view and the full view
    "moba map": (lambda: from_highlights(_figure(["--q", M6, "--k", M6, "--sparse", "moba=2,2", "--view",
                                                        "mask"])), None),
    "moba full": (lambda: from_highlights(_figure(["--q", M6, "--k", M6, "--sparse", "moba=2,2"])), None),
    "nsa map": (lambda: from_highlights(_figure(["--q", Q12, "--k", Q12, "--sparse", "nsa=4,2,2,3,2,local=1",
                                                       "--view", "mask"])), None),
    "nsa full": (lambda: from_highlights(_figure(["--q", Q12, "--k", Q12, "--sparse", "nsa=4,2,2,3,2,local=1"])),
                 None),
    # on 4:3 its 12-token score grid fits only across the slide at 14 pt (the region across it at the floor: the
    # maps share it, their rules in the notes)
    "nsa full 4:3": (lambda: from_highlights(_figure(["--q", Q12, "--k", Q12, "--sparse", "nsa=4,2,2,3,2,local=1"]),
                                             aspect="4:3"), None),
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
    kinds = {slide.figure.view == "mask" for slide in deck.slides}  # (MoBA's mask view: its gate's scores, its map)
    assert len({(layout.width, layout.height) for layout in deck.layouts()}) == len(kinds)  # nothing moves
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


def test_beamer_typesets_the_combined_output_state_of_flash_decoding(made, tmp_path):
    """The combine step's state `ℓO = e^(-1)ℓ_1O_1+ℓ_2O_2` is math on the slide and in its notes: a subscript of
    digits ends where the next factor's name begins (it was read as `ℓ_{1O}`, and the sentence fell back to raw
    text: `e\\textasciicircum{}(-{}1)$\\ell$\\_1O\\_1`), and `ℓO` is ℓ times O."""
    deck = made("flash-decoding 1×8, values")
    tex = tmp_path / "deck.tex"
    tex.write_text(deck_files(deck, "beamer", str(tex))[str(tex)])
    source = tex.read_text()
    assert r"\ell{}O = e^{-1}\ell_{1}O_{1}+\ell_{2}O_{2}$" in source
    assert r"\textasciicircum" not in source and not re.search(r"[A-Za-z$]\\_[0-9]", source)
    pdf, _ = pdflatex(tex)
    page = next(n for n, slide in enumerate(deck.slides, 1) if any(p.startswith("Combined") for p in slide.paragraphs))
    text = subprocess.run([tool("pdftotext"), "-f", str(page), "-l", str(page), str(pdf), "-"], capture_output=True,
                          text=True, check=True).stdout
    assert "Combined, row" in text and not re.search(r"[\^_]", text)


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


#: Each deck's slides (issue 35's deck round: before it MoBA's and NSA's full views were refused, their maps cut their
#: panels' titles on one slide (1 each), and the 1×8 Flash-Decoding deck took 22 slides across the slide).
SLIDES = {"map 16, blocks 4": 1, "scores 8, blocks 4": 1, "score view 8, blocks 4": 1, "walkthrough 4, blocks 2": 17,
          "medusa tree": 1, "moba map": 2, "moba full": 2, "nsa map": 4, "nsa full": 4, "nsa full 4:3": 4,
          "flash-decoding 1×8, values": 11, "flash-decoding 4×8, values": 18}
#: The roles of the words that name a panel or say its rule: never cut with "…" on a slide.
NAMING = ("title", "panel-title", "axis-title", "subtitle", "caption")


@pytest.mark.parametrize("name", SCENARIOS)
def test_no_title_or_rule_is_cut_and_the_deck_has_its_slides(made, name):
    deck = made(name)
    assert len(deck.slides) == SLIDES[name]
    assert not any("\u2026" in slide.heading for slide in deck.slides)
    for layout in deck.layouts():
        cut = [line for item in layout.walk() if isinstance(item, Text) and item.role in NAMING
               for line in item.lines if line.rstrip().endswith("\u2026")]  # ("K(b…)": notation)
        assert cut == [], cut
        assert not any(choice.startswith(CUT_WORDS) for choice in layout.choices)


@pytest.mark.parametrize("aspect", ["16:9", "4:3"])
@pytest.mark.parametrize("name", ["moba map", "moba full", "nsa map"])
def test_moba_and_nsa_decks_draw_each_panel_on_a_slide_of_its_own_with_its_title_and_rule_whole(name, aspect):
    """Side by side, MoBA's gate and mask (and NSA's four maps) fit no slide region with their titles and rules whole
    at 14 pt: each panel goes on a slide of its own, its title the slide's (after "Panel n of N"), a map's rule in the
    slide's sentences; MoBA's gate is drawn as its scores with the chosen blocks marked, in the full view too."""
    argv = {"moba map": ["--q", M6, "--k", M6, "--sparse", "moba=2,2", "--view", "mask"],
            "moba full": ["--q", M6, "--k", M6, "--sparse", "moba=2,2"],
            "nsa map": ["--q", Q12, "--k", Q12, "--sparse", "nsa=4,2,2,3,2,local=1", "--view", "mask"]}[name]
    fig = _figure(argv)
    deck = from_highlights(fig, aspect=aspect)
    assert deck.choices[0] == ONE_PANEL_A_SLIDE
    assert [slide.heading for slide in deck.slides] == [
        f"Panel {n} of {len(fig.panels)} \u2014 {panel.words.title}" for n, panel in enumerate(fig.panels, 1)]
    assert smallest_pt(deck) >= 14 - 1e-6
    assert all(text_floor_misses(layout, deck.frame) == [] for layout in deck.layouts())
    assert len({(layout.width, layout.height) for layout in deck.layouts()}) == (2 if name == "moba map" else 1)
    if name.startswith("moba"):
        gate = deck.slides[0].figure.svg()
        # the gate's scores, the blocks each query reads marked: queries 1-2 their own block, 3-6 theirs and one more
        assert "MoBA gate" in gate and gate.count("attnviz-cell attnviz-score attnviz-computed") == 2 * 1 + 4 * 2
        # the masked scores: their score view (the softmax captions in the slide's text; at the type scale's sizes
        # the full view fits neither aspect's region beside or under the slide's text)
        shown = "mask" if name == "moba map" else "scores"
        assert deck.slides[1].figure.view == shown
    else:  # each branch's rule said on its slide, whole
        rules = ["complete compressed block (4 keys, stride 2; \u03c6 = mean)", "top 3 selection blocks of 2 keys",
                 "i-2<j<=i", "g_cmp·o_cmp + g_slc·o_slc + g_win·o_win"]
        for slide, rule in zip(deck.slides, rules):
            assert rule in " ".join(slide.paragraphs), (slide.heading, rule)


def test_the_flash_decoding_deck_takes_the_arrangement_with_the_fewest_slides():
    """The fitter's first arrangement for one query × 8 keys is the figure across the slide (22 slides: two lines of
    text under it); beside the text the same steps take 11, leaving no more of their text to the notes: the deck takes
    the fewest. On 4:3 the region beside the text (10 slides) leaves a step's sentence to the notes that the slide's
    width shows: the deck keeps the width (24: the combine step's state, typeset, shares a slide with the line after
    it), as it would any deck whose words a narrower column cannot hold."""
    document, figures = _walk(["--q", "1,1", "--k", EIGHT, "--v", EIGHT, "--mask", "none", "--split-kv", "4"])
    chosen = tuple(range(1, len(document.sections) + 1))
    for aspect, taken in (("16:9", 11), ("4:3", 24)):
        deck = decks.from_sections(document, figures, aspect=aspect)
        tried = []
        for fit in first_per_region(arrangements(figures, aspect)):
            slides = decks._slides(document, chosen, figures, fit, aspect)
            tried.append((sum(p in decks.IN_NOTES for slide in slides for p in slide.paragraphs), len(slides), fit))
        assert tried[0][2].wide and tried[0][1] in (22, 24)  # the first that fits: across the slide
        assert len(deck.slides) == taken == min(tried, key=lambda t: t[:2])[1]
        assert min(count for _, count, _ in tried) == {"16:9": 11, "4:3": 10}[aspect]
        assert deck.wide == (aspect == "4:3") and deck.choices == min(tried, key=lambda t: t[:2])[2].choices
    for name in ("seed", "six"):  # a deck that fits beside the text keeps its first arrangement
        assert not make_deck(name).wide and not make_deck(name).compact


def test_an_nsa_deck_of_the_full_view_on_4_3_draws_its_score_grid_across_the_slide_at_14_pt(made):
    """NSA's 12-token score grid fits no 4:3 region beside the text or the wide one under 14 pt values (684 × 507 px
    as its score view at the floor): the deck takes the region across the slide with its values at 14 pt, every one
    of the 144 values drawn, the softmax captions and the maps' rules in the notes (said on the slide)."""
    deck = made("nsa full 4:3")
    assert deck.wide and deck.compact and deck.frame.name == "slide-4:3-figure-wide-compact"
    assert deck.choices[0] == ONE_PANEL_A_SLIDE
    assert [slide.heading.split(" \u2014 ")[0] for slide in deck.slides] == [f"Panel {n} of 4" for n in range(1, 5)]
    grid = deck.slides[-1].figure
    assert grid.view == "scores" and deck.laid_out[id(grid)].width <= deck.frame.judged_px
    svg = grid.svg()
    assert svg.count("attnviz-cell attnviz-score") == 12 * 12 - 66  # every unmasked score drawn (66 masked)
    for slide in deck.slides:
        assert slide.paragraphs and all(p in slide.notes for p in slide.paragraphs if p not in decks.IN_NOTES)
    sixteen = made("nsa full")
    assert not sixteen.wide and sixteen.compact  # (16:9 keeps the region beside the text)
