"""Decks that explain the mechanics on a real sentence, in all six formats, every step measured where it is
shown: FlashAttention on 6 and 8 tokens (2×2 and 3×3 tiles), decoding on 6 and 8 tokens with values and a
window, the docs' Mistral example and a 12-token walkthrough of scores. Where the figure with its running state
fits no arrangement, the state goes to the slide's text (the figure stays still); nothing is refused, nothing
is under 14 pt, nothing leaves the slide: Beamer through pdflatex (no overfull box, every word on the page),
the PDF deck and PowerPoint (through LibreOffice) through poppler's word boxes, reveal.js in Chromium."""

import re
import subprocess
import zipfile
from pathlib import Path

import numpy as np
import pytest
from clirun import run_cli
from test_deck_fit import smallest_pt
from test_deck_revealjs import OVERFLOW_JS, open_deck
from test_decks_tex import _walk, overfull, pages, pdflatex, run, tool

import attnviz
from attnviz.layout.frames import text_floor_misses
from attnviz.layout.items import Text
from attnviz.publish.deck import model as decks
from attnviz.publish.deck.formats import deck_files, write_deck
from attnviz.publish.deck.highlights import from_highlights

SIX = "1,0; 0,1; 1,1; 1,-1; 0,2; 2,1"
EIGHT = SIX + "; -1,1; 1,2"
TWELVE = EIGHT + "; 2,0; 0,-1; 1,3; -2,1"


def _vectors(text, values=False):
    return ["--q", text, "--k", text] + (["--v", text] if values else [])


#: The presenter's scenarios, as `attnviz slides --walkthrough` flags.
SCENARIOS = {
    "flash 6, 2×2": _vectors(SIX) + ["--flash", "2,2"],
    "flash 6, 3×3": _vectors(SIX) + ["--flash", "3,3"],
    "flash 8, 2×2": _vectors(EIGHT) + ["--flash", "2,2"],
    "flash 8, 3×3, values": _vectors(EIGHT, values=True) + ["--flash", "3,3"],
    "decode 6, window 3, values": _vectors(SIX, values=True) + ["--mask", "window=3", "--decode", "3"],
    "decode 8, window 4, values": _vectors(EIGHT, values=True) + ["--mask", "window=4", "--decode", "4"],
    "mistral (docs)": _vectors(SIX) + ["--tokens", "The cat sat on the mat", "--mask", "window=3", "--decode", "2",
                                       "--view", "scores"],
    "scores 12": _vectors(TWELVE),
}
#: The shorter decks, which every check steps through (the 12-token deck's 100 slides: the model, Beamer, PDF).
SHORT = [name for name in SCENARIOS if name != "scores 12"]


@pytest.fixture(scope="module")
def made():
    cache = {}

    def deck(name, aspect="16:9"):
        if (name, aspect) not in cache:
            cache[name, aspect] = decks.from_sections(*_walk(SCENARIOS[name]), aspect=aspect)
        return cache[name, aspect]

    return deck


@pytest.mark.parametrize("aspect", ["16:9", "4:3"])
@pytest.mark.parametrize("name", SCENARIOS)
def test_the_deck_builds_at_14_pt_with_its_figure_still(made, name, aspect):
    if name == "scores 12" and aspect == "4:3":
        with pytest.raises(decks.InputError) as refused:
            made(name, aspect)
        assert "\n" not in str(refused.value) and "try --aspect 16:9" in str(refused.value)
        return
    deck = made(name, aspect)
    assert smallest_pt(deck) >= 14 - 1e-6
    assert all(text_floor_misses(layout, deck.frame) == [] for layout in deck.layouts())
    assert len({(layout.width, layout.height) for layout in deck.layouts()}) == 1  # nothing moves
    assert len({tuple(round(v, 6) for v in layout.grid) for layout in deck.layouts()}) == 1  # the grid stays put
    if any("running state" in choice for choice in deck.choices):  # the state is said on the step's slides
        said = [p for slide in deck.slides for p in slide.paragraphs]
        assert any(p.startswith(("Running state after", "Final state", "KV cache after")) for p in said)


def test_the_mechanics_stay_in_the_figure_where_they_fit(made):
    """The seed's flash deck keeps its state column; a 6-token one says its state in the slide's text."""
    seed = decks.from_sections(*_walk(["--flash", "2,2"]))
    assert not any("running state" in choice for choice in seed.choices)
    six = made("flash 6, 2×2")
    assert any("running state" in choice for choice in six.choices)
    tiles = [slide for slide in six.slides if slide.heading.startswith("Tile 3")]
    said = " ".join(p for slide in tiles for p in slide.paragraphs)
    assert "Running state after tile 3 of 6." in said and "Row 4: m_4 = 2" in said


def _page_words(pdf, page):
    """(word, xMin, yMin, xMax, yMax) of every word on `page`, and the page's (width, height), in pt."""
    html = run(tool("pdftotext"), "-bbox", "-f", str(page), "-l", str(page), str(pdf), "-").stdout
    size = re.search(r'<page width="([\d.]+)" height="([\d.]+)"', html)
    words = [(w, *map(float, box)) for *box, w in
             re.findall(r'<word xMin="([-\d.]+)" yMin="([-\d.]+)" xMax="([-\d.]+)" yMax="([-\d.]+)">([^<]*)</word>',
                        html)]
    return words, (float(size[1]), float(size[2]))


def _off_the_page(pdf):
    """Every word of `pdf` that leaves its page, as (page, word, box)."""
    out = []
    for page in range(1, pages(pdf) + 1):
        words, (width, height) = _page_words(pdf, page)
        out += [(page, w, box) for w, *box in words
                if box[0] < -0.5 or box[1] < -0.5 or box[2] > width + 0.5 or box[3] > height + 0.5]
    return out


@pytest.mark.parametrize("name", SCENARIOS)
def test_beamer_sets_every_step_with_no_overfull_box(made, name, tmp_path):
    deck = made(name)
    tex = tmp_path / "deck.tex"
    tex.write_text(deck_files(deck, "beamer", str(tex))[str(tex)])
    assert "[U+" not in tex.read_text()  # the notes typeset their formulas
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


@pytest.mark.parametrize("name", SHORT)
def test_powerpoint_as_libreoffice_shows_it_keeps_every_word_on_the_slide(made, name, tmp_path):
    deck = made(name)
    write_deck(deck, "pptx", str(tmp_path / "deck.pptx"))
    with zipfile.ZipFile(tmp_path / "deck.pptx") as package:
        slides = [n for n in package.namelist() if re.fullmatch(r"ppt/slides/slide\d+\.xml", n)]
        assert len(slides) == len(deck.slides)
        for n in slides:
            assert "hlink" not in package.read(n).decode()  # no hyperlink theme slot
    subprocess.run([tool("soffice"), "--headless", "--convert-to", "pdf", "--outdir", str(tmp_path),
                    str(tmp_path / "deck.pptx")], check=True, capture_output=True, timeout=300)
    assert pages(tmp_path / "deck.pdf") == len(deck.slides)
    assert _off_the_page(tmp_path / "deck.pdf") == []
    assert _groups_broken(tmp_path / "deck.pdf") == []  # LibreOffice wraps the Unicode fallback between items


#: The end of a line inside a vector or list of numbers: its bracket open, numbers and commas after it.
_OPEN_GROUP = re.compile(r"[(\[]([^()\[\]]*)$")


def _groups_broken(pdf):
    """Every line of `pdf`'s text that ends inside a bracketed group of numbers (`(3, 1,` of `(3, 1, 2, 5)`), but
    between two rows of a matrix too wide for a line."""
    text = run(tool("pdftotext"), str(pdf), "-").stdout
    return [line for line in text.splitlines() if (inside := _OPEN_GROUP.search(line.rstrip()))
            and not line.rstrip().endswith(";")  # (between a matrix's rows)
            and "," in inside[1] and re.fullmatch(r"[\d\s,;.·−/+e⁰-⁹⁻₀-₉-]*", inside[1])]


def assert_on_the_slide_in_chromium(deck, browser, folder):
    """Every slide of `deck` in reveal.js, once auto-animate is over: no box that its content overflows, no
    MathML wider than its text box or clipped by its box, nothing off the 1,280 × 720 slide."""
    write_deck(deck, "revealjs", str(folder))
    context, page, failed = open_deck(browser, folder)
    for n, slide in enumerate(deck.slides):
        page.evaluate(f"() => Reveal.slide({n})")
        page.wait_for_timeout(450)
        assert page.evaluate(OVERFLOW_JS) == [], (n, slide.heading)
    assert failed == []
    context.close()


@pytest.mark.parametrize("name", SHORT)
def test_reveal_js_keeps_every_step_on_the_slide_in_chromium(made, name, browser, tmp_path):
    assert_on_the_slide_in_chromium(made(name), browser, tmp_path / "deck")


@pytest.mark.parametrize("name", SHORT)
def test_the_animated_svg_and_tikz_hold_every_step(made, name, tmp_path):
    deck = made(name)
    svg = deck_files(deck, "svg-animated", str(tmp_path / "deck.svg"))[str(tmp_path / "deck.svg")]
    steps = len({id(slide.figure) for slide in deck.slides})
    assert svg.count("<svg") >= steps
    files = deck_files(deck, "tikz", str(tmp_path / "fig") + "/")
    steps = {slide.step for slide in deck.slides if slide.step}  # (step 0: the intro)
    assert len([path for path in files if Path(path).name.startswith("step-")]) == len(steps)


def test_a_labels_quotes_stay_straight_in_beamer(tmp_path):
    spec = tmp_path / "quoted.toml"
    spec.write_text('q = [[1,0],[0,1],[1,1]]\nk = [[1,0],[0,1],[1,1]]\ntokens = ["\'the\'", "\\"cat\\"", "\'mat\'"]\n',
                    encoding="utf-8")
    tex = tmp_path / "deck.tex"
    assert run_cli("slides", str(spec), "--highlight", "3,3", "-f", "beamer", "-o", str(tex)).code == 0
    pdf, log = pdflatex(tex)
    titles = run(tool("pdftotext"), str(pdf), "-").stdout
    assert "Score of 'mat' and 'mat'" in titles and "’" not in titles


def test_a_dark_beamer_deck_is_dark_to_the_edge(tmp_path):
    tex = tmp_path / "dark.tex"
    assert run_cli("slides", "--theme", "dark", "-f", "beamer", "-o", str(tex), "--steps", "1").code == 0
    pdf, _ = pdflatex(tex)
    subprocess.run([tool("pdftoppm"), "-r", "20", "-png", "-singlefile", str(pdf), str(tmp_path / "page")],
                   check=True, timeout=120)
    from PIL import Image

    page = Image.open(tmp_path / "page.png").convert("L")
    width, height = page.size
    corners = [page.getpixel((x, y)) for x in (0, width - 1) for y in (0, height - 1)]
    assert max(corners) < 60, corners  # the slide's own background, not white


def test_beamer_sets_every_script_at_14_pt_on_the_projected_slide():
    deck = decks.from_sections(*_walk(SCENARIOS["flash 6, 2×2"]))
    tex = deck_files(deck, "beamer", "deck.tex")["deck.tex"]
    assert r"\DeclareMathSizes{10}{10}{7}{7}" in tex  # \small's scripts of scripts at 7 pt: 14.8 pt at 13.33 in
    assert r"\attnvizfit" not in "".join(line for line in tex.splitlines() if "attnviz mono bold, scale" in line
                                         and "computed-text" in line)  # a highlighted value is never shrunk


def test_tikz_for_a_paper_lays_its_figures_out_for_the_column(tmp_path):
    result = run_cli("slides", "-f", "tikz", "--frame", "column", "-o", str(tmp_path / "fig") + "/")
    assert result.code == 0, result.stderr
    box = re.search(r"useasboundingbox \(0,0\) rectangle \(([\d.]+),", (tmp_path / "fig" / "step-1.tex").read_text())
    assert float(box[1]) <= 3.3 * 72 * 2 + 1e-6  # the column's layout: 14 units print at 7 pt or more
    deck = decks.from_walkthrough(attnviz.figure(frame="column"))
    for layout in deck.paper_layouts():
        points = 3.3 * 72 / layout.width  # at the column's width
        assert min(text.style.size for text in layout.walk() if isinstance(text, Text)) * points >= 7 - 1e-6
    slide = decks.from_walkthrough(attnviz.figure())
    assert deck.paper_layouts()[0].width < slide.paper_layouts()[0].width == slide.layouts()[0].width


def _document_deck():
    from importlib.resources import files

    from attnviz.io.spec import read_spec
    from attnviz.publish.document import parse_document

    path = files("attnviz") / "data" / "seed-document.toml"
    return decks.from_document(parse_document(*read_spec(str(path))), str(path))


#: The presenter's other decks, in reveal.js: a 4-token flash deck (its last paragraph once ran under the
#: navigation arrows), the seed's 3-section document deck and GQA's heads (their MathML once clipped).
OTHERS = {"flash 4": lambda: decks.from_sections(*_walk(_vectors("1,0; 0,1; 1,1; 1,-1") + ["--flash", "2,2"])),
          "document": _document_deck,
          "gqa": lambda: decks.from_sections(*_walk(["--q-heads", "1,0; 0,1 | 1,1; 0,1 | 0,1; 1,1 | 1,0; 1,1",
                                                     "--k-heads", "1,0; 0,1 | 1,1; 1,0"]))}


@pytest.mark.parametrize("name", OTHERS)
def test_reveal_js_keeps_the_other_decks_on_the_slide(name, browser, tmp_path):
    assert_on_the_slide_in_chromium(OTHERS[name](), browser, tmp_path / "deck")


def test_the_format_docs_list_every_format_and_say_what_the_decks_write():
    """docs/slide-formats.rst's table is the format table (`formats.FORMATS`), and says what the writers do now:
    a Beamer frame per step, reveal.js with no transition, the sentences on the slide (the old decks' one frame of
    overlays, auto-animate and sentences only in the notes are gone)."""
    from attnviz.publish.deck.formats import FORMATS

    docs = (Path(__file__).parent.parent / "docs" / "slide-formats.rst").read_text(encoding="utf-8")
    table = docs[docs.index(".. list-table::"):]
    assert re.findall(r"^   \* - ``([\w-]+)``$", table, re.M) == list(FORMATS)
    for stale in (r"\only<", "overlays build", "auto-animate with", "sentences in the notes", "one frame whose"):
        assert stale not in docs, stale
    deck = decks.from_walkthrough(attnviz.figure())
    beamer = deck_files(deck, "beamer", "deck.tex")["deck.tex"]
    assert beamer.count(r"\begin{frame}") == len(deck.slides) and r"\only<" not in beamer
    html = deck_files(deck, "revealjs", "deck")[Path("deck") / "index.html"]
    assert "transition: 'none'" in html


def test_score_grids_side_by_side_say_their_softmax_captions_in_the_slides_text():
    grid = {"q": [[1, 0], [0, 1], [1, 1]], "k": [[1, 0], [0, 1], [1, 1]]}
    both = attnviz.compose(attnviz.figure(**grid, title="causal"), attnviz.figure(**grid, mask="none", title="full"))
    deck = from_highlights(both)
    said = [p for slide in deck.slides for p in slide.paragraphs]
    assert any(p.startswith("Each panel's softmax captions are left out") and "panel 2 (full): rows 1–3" in p
               for p in said)
    assert "Panel 2 (full), row 3: scores [1,1,2]: weights e^1/(e^1+e^1+e^2), e^1/(e^1+e^1+e^2), " \
           "e^2/(e^1+e^1+e^2)." in said
    assert len({id(slide.figure) for slide in deck.slides}) == 1  # one figure, its continuations still


def _panels_shown(aspect="16:9"):
    grid = {"q": [[1, 0], [0, 1], [1, 1]], "k": [[1, 0], [0, 1], [1, 1]]}
    both = attnviz.compose(attnviz.figure(**grid, title="causal"), attnviz.figure(**grid, mask="none", title="full"),
                           attnviz.figure(**grid, mask="window=2", title="window"), panel_captions="show")
    return from_highlights(both, aspect=aspect)


@pytest.mark.parametrize("aspect", ["16:9", "4:3"])
def test_score_grids_asked_to_show_their_softmax_captions_draw_them_panel_by_panel(aspect):
    deck = _panels_shown(aspect)
    assert [slide.heading for slide in deck.slides if slide.kind == "step"] == [
        "causal | full | window", "Panel 1: causal", "Panel 2: full", "Panel 3: window"]
    said = [p for slide in deck.slides if slide.figure is deck.slides[0].figure for p in slide.paragraphs]
    assert said[-1].endswith("the next slides draw each panel with its captions.")
    drawn = [[text for text in layout.walk() if isinstance(text, Text) and text.role == "softmax-weights"]
             for slide, layout in zip(deck.slides, deck.layouts()) if slide.kind == "step"]
    assert drawn[0] == [] and all(len(one) == 3 for one in drawn[1:])  # every row's weights, under the floor nowhere
    assert "weights e^1/Z_3, e^1/Z_3, e^2/Z_3" in " ".join(" ".join(" ".join(t.lines).split()) for t in drawn[2])
    assert smallest_pt(deck) >= 14 - 1e-6
    assert all(text_floor_misses(layout, deck.frame) == [] for layout in deck.layouts())
    assert len({slide.figure.id_prefix for slide in deck.slides}) == 4  # ids of their own on one page


def test_score_grids_drawn_panel_by_panel_stay_on_the_slide_in_every_format(browser, tmp_path):
    deck = _panels_shown()
    tex = tmp_path / "deck.tex"
    tex.write_text(deck_files(deck, "beamer", str(tex))[str(tex)])
    pdf, log = pdflatex(tex)
    assert overfull(log) == [] and pages(pdf) == len(deck.slides) and _off_the_page(pdf) == []
    write_deck(deck, "pdf", str(tmp_path / "own.pdf"))
    assert pages(tmp_path / "own.pdf") == len(deck.slides) and _off_the_page(tmp_path / "own.pdf") == []
    write_deck(deck, "pptx", str(tmp_path / "slides.pptx"))
    subprocess.run([tool("soffice"), "--headless", "--convert-to", "pdf", "--outdir", str(tmp_path),
                    str(tmp_path / "slides.pptx")], check=True, capture_output=True, timeout=300)
    assert pages(tmp_path / "slides.pdf") == len(deck.slides) and _off_the_page(tmp_path / "slides.pdf") == []
    assert_on_the_slide_in_chromium(deck, browser, tmp_path / "deck")
    svg = deck_files(deck, "svg-animated", str(tmp_path / "deck.svg"))[str(tmp_path / "deck.svg")]
    assert svg.count("<svg") >= 4
    files = deck_files(deck, "tikz", str(tmp_path / "fig") + "/")
    assert len([path for path in files if Path(path).name.startswith("step-")]) == 4


#: Decks of the softmax forms (issue 34), as `attnviz slides` flags: each builds and stays on the slide.
FORMS = {"sink s": ["--sink", "s"], "sigmoid -ln(n)": ["--sigmoid=-ln(n)"], "softcap 50": ["--softcap", "50"],
         "sink -1, flash 2×2": ["--sink=-1", "--flash", "2,2"]}


@pytest.mark.parametrize("name", FORMS)
def test_softmax_form_decks_stay_on_the_slide_in_every_format(name, browser, tmp_path):
    _on_the_slide_in_every_format(decks.from_sections(*_walk(FORMS[name])), browser, tmp_path)


def _on_the_slide_in_every_format(deck, browser, tmp_path):
    """`deck` at 14 pt or more, its figures' text at their floor, on the page in Beamer (no overfull box), the PDF
    deck, PowerPoint through LibreOffice and reveal.js in Chromium; its animated SVG and TikZ steps written."""
    assert smallest_pt(deck) >= 14 - 1e-6
    assert all(text_floor_misses(layout, deck.frame) == [] for layout in deck.layouts())
    tex = tmp_path / "deck.tex"
    tex.write_text(deck_files(deck, "beamer", str(tex))[str(tex)])
    pdf, log = pdflatex(tex)
    assert overfull(log) == [] and pages(pdf) == len(deck.slides) and _off_the_page(pdf) == []
    write_deck(deck, "pdf", str(tmp_path / "own.pdf"))
    assert _off_the_page(tmp_path / "own.pdf") == []
    write_deck(deck, "pptx", str(tmp_path / "slides.pptx"))
    subprocess.run([tool("soffice"), "--headless", "--convert-to", "pdf", "--outdir", str(tmp_path),
                    str(tmp_path / "slides.pptx")], check=True, capture_output=True, timeout=300)
    assert pages(tmp_path / "slides.pdf") == len(deck.slides) and _off_the_page(tmp_path / "slides.pdf") == []
    assert_on_the_slide_in_chromium(deck, browser, tmp_path / "deck")
    assert deck_files(deck, "svg-animated", "deck.svg")["deck.svg"].count("<svg") >= 2
    assert any(Path(path).name.startswith("step-") for path in deck_files(deck, "tikz", "fig/"))


#: Differential attention's deck (issue 34): head 1's weights, head 2's, then the difference, a slide each (and their
#: continuations), as `attnviz slides` flags.
DIFFERENTIAL = ["--q-heads", "1,0; 0,1; 1,1 | 0,1; 1,0; 1,1", "--k-heads", "1,0; 0,1; 1,1", "--differential", "1/2"]


def _differential(n=3, lam="1/2"):
    q_heads = [[[1, 0], [0, 1], [1, 1], [2, -1]][:n], [[0, 1], [1, 0], [1, 1], [-1, 1]][:n]]
    return attnviz.figure(q_heads=q_heads, k_heads=[[[1, 0], [0, 1], [1, 1], [1, 2]][:n]], differential=lam)


@pytest.mark.parametrize("aspect", ["16:9", "4:3"])
def test_a_differential_deck_is_its_steps_in_every_format(aspect, browser, tmp_path):
    deck = from_highlights(_differential(), aspect=aspect)
    steps = [slide for slide in deck.slides if slide.kind == "step"]
    assert [slide.heading for slide in steps] == ["Head 1's weights a_ij", "Head 2's weights b_ij",
                                                  "The difference d_ij = a_ij − 1/2·b_ij"]
    said = {step.heading: " ".join(p for s in deck.slides if s.heading.startswith(step.heading) for p in s.paragraphs)
            for step in steps}  # (a step's continuation slides included)
    assert "Row 2: a21, a22 = e^0/Z_2, e^1/Z_2, where Z_2=e^0+e^1." in said["Head 1's weights a_ij"]
    assert "Row 3: b31, b32, b33 = e^1/Z_3, e^1/Z_3, e^2/Z_3" in said["Head 2's weights b_ij"]
    # the difference's signs, from numpy here: head 1's softmax minus 1/2 of head 2's, row by row (causal)
    k = np.array([[1, 0], [0, 1], [1, 1]], float)
    difference = [_row_softmax(np.array(q, float) @ k.T) for q in ([[1, 0], [0, 1], [1, 1]], [[0, 1], [1, 0], [1, 1]])]
    difference = difference[0] - 0.5 * difference[1]
    signs = {s: [f"d{i + 1}{j + 1}" for i in range(3) for j in range(i + 1) if np.sign(difference[i, j]) == s]
             for s in (1, -1)}
    assert signs == {1: ["d11", "d22", "d31", "d32", "d33"], -1: ["d21"]}
    text = said["The difference d_ij = a_ij − 1/2·b_ij"]
    assert "the entries of A_1 − 1/2·A_2" in text and "(λ = 1/2)" in text and "Exact: d11 = 1/2." in text
    assert f">0 (blue) {', '.join(signs[1][:-1])} and {signs[1][-1]}; <0 (vermillion) d21." in text
    assert "each panel on a slide of its own" in deck.choices[0]
    last = deck.laid_out[id(steps[-1].figure)]
    cells = {item.text for item in last.walk() if isinstance(item, Text) and item.role.startswith("score")}
    assert {"1/2", "d21<0", "d22>0"} <= cells  # the slide's grid names its entries d_ij, their signs drawn
    _on_the_slide_in_every_format(deck, browser, tmp_path)
    assert "[U+" not in (tmp_path / "deck.tex").read_text()  # every letter set by TeX
    pdf = tmp_path / "own.pdf"
    words = run(tool("pdftotext"), str(pdf), "-").stdout
    assert "vermillion" in words and "Head 2" in words


def _row_softmax(logits):
    exps = np.where(np.tril(np.ones(logits.shape, bool)), np.exp(logits - logits.max(axis=1, keepdims=True)), 0)
    return exps / exps.sum(axis=1, keepdims=True)


def test_a_differential_deck_of_four_tokens_and_a_named_lambda_builds_from_the_command(tmp_path):
    deck = from_highlights(_differential(4, "4/5"), aspect="4:3")
    assert smallest_pt(deck) >= 14 - 1e-6 and [s.kind for s in deck.slides].count("step") == 3
    named = from_highlights(_differential(3, "λ"))
    assert "its sign depends on λ" in " ".join(p for s in named.slides for p in s.paragraphs)
    result = run_cli("slides", *DIFFERENTIAL, "-f", "pdf", "-o", str(tmp_path / "deck.pdf"))
    assert result.code == 0, result.stderr
    assert pages(tmp_path / "deck.pdf") == 3 and _off_the_page(tmp_path / "deck.pdf") == []


#: The current slide's text blocks (sentences, formula lines, the notes line) as drawn this instant, transforms
#: of auto-animate included.
_BLOCKS_JS = """() => [...Reveal.getCurrentSlide().querySelectorAll('.attnviz-text > *')].map(e => {
  const r = e.getBoundingClientRect(); return {id: e.dataset.id, top: r.top, bottom: r.bottom}; })"""


@pytest.mark.parametrize("name", ["flash 6, 2×2", "decode 6, window 3, values"])
def test_reveal_js_text_blocks_never_overlap_while_a_step_changes(made, name, browser, tmp_path):
    """auto-animate matches blocks by data-id: a paragraph matched to another slide's paragraph in another place
    would move over its neighbours for 0.4 s. Sampled 60, 150 and 300 ms into every step."""
    deck = made(name)
    write_deck(deck, "revealjs", str(tmp_path / "deck"))
    context, page, failed = open_deck(browser, tmp_path / "deck")
    for n in range(1, len(deck.slides)):
        for wait in (60, 150, 300):
            page.evaluate(f"() => Reveal.slide({n - 1})")
            page.wait_for_timeout(500)
            page.evaluate("() => Reveal.next()")
            page.wait_for_timeout(wait)
            blocks = page.evaluate(_BLOCKS_JS)
            overlaps = [(a["id"], b["id"]) for a, b in zip(blocks, blocks[1:]) if a["bottom"] > b["top"] + 0.5]
            assert overlaps == [], (n, wait, deck.slides[n].heading)
    assert failed == []
    context.close()


def test_a_spec_of_panels_asking_for_their_captions_gets_a_slide_per_panel(tmp_path):
    grid = "q = [[1,0],[0,1],[1,1]]\nk = [[1,0],[0,1],[1,1]]\n"
    spec = tmp_path / "panels.toml"
    spec.write_text(f'panel_captions = "show"\n[[panel]]\n{grid}title = "causal"\n[[panel]]\n{grid}mask = "none"\n',
                    encoding="utf-8")
    result = run_cli("slides", str(spec), "-f", "pdf", "-o", str(tmp_path / "deck.pdf"))
    assert result.code == 0, result.stderr
    assert pages(tmp_path / "deck.pdf") == 3
    text = run(tool("pdftotext"), str(tmp_path / "deck.pdf"), "-").stdout
    assert "Panel 1: causal" in text and "row 3: scores" in text  # the second panel's captions, drawn
