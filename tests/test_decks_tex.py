"""Decks on the slide geometry: the model (steps, continuation, notes, mask targets), Beamer through pdflatex
(normal and handout, titles per page, no overfull box, no font warning), TikZ one file per step, and the
PDF deck through poppler (page size, text, sizes above the floors). Real tools, none skipped."""

import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

import attnviz
from attnviz.publish.deck import model as decks
from attnviz.publish.deck.beamer import beamer_document, tikz_files
from attnviz.publish.deck.formats import deck_files
from attnviz.publish.deck.pdf import pdf_deck
from attnviz.publish.deck.slide_text import TEXT_PT, unicode_prose
from attnviz.publish.deck.highlights import from_highlights
from clirun import run_cli

TWELVE = [[1, 0], [0, 1], [1, 1], [2, 1], [1, 2], [0, 2], [2, 0], [1, -1], [-1, 1], [3, 1], [1, 3], [2, 2]]


def tool(name):
    path = shutil.which(name)
    assert path, f"{name} is not installed (tools/install-system-deps.sh)"
    return path


def run(*command, cwd=None):
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=300, check=True)


def pdflatex(tex, handout=False):
    source = (r"\PassOptionsToClass{handout}{beamer}" if handout else "") + rf"\input{{{tex.name}}}"
    job = tex.stem + ("-handout" if handout else "")
    subprocess.run([tool("pdflatex"), "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape",
                    f"-jobname={job}", source],
                   cwd=tex.parent, capture_output=True, timeout=300, check=True)
    return tex.with_name(f"{job}.pdf"), tex.with_name(f"{job}.log").read_text(encoding="latin-1")


def pages(pdf):
    return int(re.search(r"Pages:\s+(\d+)", run(tool("pdfinfo"), str(pdf)).stdout)[1])


def page_text(pdf, page):
    return run(tool("pdftotext"), "-f", str(page), "-l", str(page), str(pdf), "-").stdout


def word_sizes(pdf, page, left=0.0):
    """(word, height in pt) of every word pdftotext finds on `page` right of `left` pt."""
    html = run(tool("pdftotext"), "-bbox", "-f", str(page), "-l", str(page), str(pdf), "-").stdout
    return [(w, float(y1) - float(y0)) for x0, y0, y1, w in
            re.findall(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)">([^<]*)</word>', html)
            if float(x0) >= left]


def overfull(log):
    return [float(points) for points in re.findall(r"Overfull \\[hv]box \(([\d.]+)pt too", log)]


def font_warnings(log):
    return re.findall(r"LaTeX Font Warning: .*", log)


DECKS = {
    "seed": lambda: decks.from_walkthrough(attnviz.figure()),
    "six tokens": lambda: decks.from_walkthrough(attnviz.figure(q=TWELVE[:6], k=TWELVE[:6],
                                                                tokens="▁The ▁cat ▁sat \"on\" ⌊mat⌋ it's".split())),
    "flash": lambda: decks.from_sections(*_walk(["--flash", "2,2"])),
    "seed 4:3": lambda: decks.from_walkthrough(attnviz.figure(), aspect="4:3"),
    "gqa heads": lambda: decks.from_sections(*_walk(["--q-heads", "1,0; 0,1 | 1,1; 0,1 | 0,1; 1,1 | 1,0; 1,1",
                                                     "--k-heads", "1,0; 0,1 | 1,1; 1,0"])),
}


def _walk(argv):
    from attnviz.cli.arguments import walkthrough_from_args
    from attnviz.cli.parser import build_parser

    args = build_parser().parse_args(["walkthrough", *argv])
    return walkthrough_from_args(args)


@pytest.fixture(scope="module", params=list(DECKS))
def deck(request):
    return request.param, DECKS[request.param]()


# --- The model ----------------------------------------------------------------------------------------

def test_every_slide_fits_its_text_column_at_the_text_size(deck):
    from attnviz.publish.deck.slide_text import lines_of

    _, one = deck
    box = one.geometry.text
    for slide in one.slides:
        lines = [lines_of(unicode_prose(p), box.w, TEXT_PT) for p in slide.paragraphs]
        assert all(line is not None for line in lines), slide.heading
        assert sum(len(line) for line in lines) * TEXT_PT * 1.3 <= box.h
        assert slide.notes and all(p in " ".join(slide.notes) for p in slide.paragraphs if p not in decks.IN_NOTES)


def test_steps_choose_slides_and_bad_ranges_are_one_line(tmp_path):
    deck = decks.from_walkthrough(attnviz.figure(), steps="1-3,7,10")
    assert [s.step for s in deck.slides] == [0, 1, 2, 3, 7, 10]
    for bad, message in (("3-1", "runs backwards"), ("0", "outside"), ("11", "outside"), ("1,,2", "expected"),
                         ("x", "expected")):
        result = run_cli("slides", "--steps", bad, "-o", str(tmp_path / "d.pdf"))
        assert result.code == 2 and len(result.stderr.splitlines()) == 1 and message in result.stderr
        assert result.stderr.startswith("attnviz: error: --steps: ") and not (tmp_path / "d.pdf").exists()


def test_long_sentences_continue_or_go_to_the_notes():
    deck = decks.from_walkthrough(attnviz.figure(q=TWELVE, k=TWELVE))
    assert len([s for s in deck.slides if s.kind == "step"]) == 91
    last = deck.slides[-1]
    assert last.paragraphs[-1] in decks.IN_NOTES and any("e^" in note for note in last.notes)
    assert any("Z_12" in p for slide in deck.slides if slide.heading.startswith("Softmax of row 12")
               for p in slide.paragraphs)  # its weights on the slide, in the normalizer form
    document = attnviz.publish.document.make_document(
        heading="H", sections=[attnviz.publish.document.Section("S", ("A long sentence of words. " * 40,))])
    long = decks.from_sections(document, [attnviz.figure()])
    assert [s.kind for s in long.slides] == ["step"] + ["continued"] * (len(long.slides) - 1)
    assert 2 <= len(long.slides) <= 4  # 40 sentences of 2 lines, their gaps counted: 12 to a slide
    assert len(long.slides) >= 2 and long.slides[1].heading == "S (continued)"


def test_a_mask_map_deck_has_one_slide_per_highlight_target():
    fig = attnviz.figure(view="mask", n=512, highlight=["3,3", "row=100"])
    deck = from_highlights(fig)
    assert [s.heading for s in deck.slides] == ["Cell 3,3", "512 cells from row 100"]
    assert [sum(map(len, s.figure.words.computed)) for s in deck.slides] == [1, 1]


def test_aspect_4_3_and_title_page():
    deck = decks.from_walkthrough(attnviz.figure(), aspect="4:3", author="Ada", date="1 May 2026")
    assert (deck.geometry.width, deck.geometry.height) == (720, 540) and deck.title_page.author == "Ada"
    layout = deck.layouts()[0]
    frame = deck.frame
    assert abs(layout.width / layout.height - frame.width_in / frame.height_in) < 1e-9


# --- Beamer -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("handout", [False, True])
def test_beamer_prints_a_titled_page_per_slide(deck, tmp_path, handout):
    name, one = deck
    tex = tmp_path / "deck.tex"
    tex.write_text(beamer_document(one), encoding="utf-8")
    pdf, log = pdflatex(tex, handout)
    assert pages(pdf) == len(one.slides)
    assert [o for o in overfull(log) if o > 1] == [] and font_warnings(log) == []
    for n in (1, len(one.slides)):
        text = re.sub(r"\s+", " ", page_text(pdf, n))
        assert " ".join(one.slides[n - 1].heading.split())[:20] in text
        assert "S_{" not in text and "^" not in text and r"\_" not in text
    everything = run(tool("pdftotext"), str(pdf), "-").stdout
    assert "[U+" not in everything  # ⌊ ⌋ and SentencePiece's ▁ are drawn, not written as code points
    if name == "six tokens":
        assert "⌊mat⌋" in everything and '"on"' in everything and "it's" in everything  # quotes stay straight
    source = tex.read_text(encoding="utf-8")
    assert source.count(r"\begin{frame}") == len(one.slides) and r"\only<" not in source


def test_beamer_note_pages_carry_their_slides_title(tmp_path):
    deck = decks.from_walkthrough(attnviz.figure())
    tex = tmp_path / "notes.tex"
    shown = beamer_document(deck).replace(r"\begin{document}", "\\setbeameroption{show notes}\n\\begin{document}")
    tex.write_text(shown, encoding="utf-8")
    pdf, _ = pdflatex(tex)
    assert pages(pdf) == 2 * len(deck.slides)
    row2 = [n for n, slide in enumerate(deck.slides, 1) if slide.heading == "Softmax of row 2"][0]
    note = page_text(pdf, 2 * row2)
    assert "Softmax of row 2" in note and "Softmax of row 3" not in note


def test_beamer_sizes_are_above_the_floors(tmp_path):
    deck = decks.from_walkthrough(attnviz.figure())
    tex = tmp_path / "sizes.tex"
    tex.write_text(beamer_document(deck), encoding="utf-8")
    pdf, _ = pdflatex(tex)
    scale = 960 / (160 * 72 / 25.4)  # Beamer's 160 mm page is a 13.333-inch slide
    words = word_sizes(pdf, len(deck.slides), left=deck.geometry.text.x / scale - 1)  # the text column
    title = [h for w, h in word_sizes(pdf, len(deck.slides)) if w == "Softmax"]  # the title's, and the sentence's
    assert title and max(title) * scale > 18 * 1.1
    sentence = [h for w, h in words if w in ("unmasked", "named,", "decimalized:")]
    assert sentence and min(sentence) * scale >= 18


def test_beamer_colours_follow_the_theme_and_can_be_overridden(tmp_path):
    source = beamer_document(decks.from_walkthrough(attnviz.figure(), steps="6"))
    assert r"\colorlet{attnviz-computed-fill}{structure.fg" in source
    assert r"\definecolor{attnviz-computed-fill}" not in source  # the theme's, unless the preamble says
    colours = {}
    for name, preamble in (("theme", ""), ("orange", r"\colorlet{attnviz-computed-fill}{orange}")):
        tex = tmp_path / f"{name}.tex"
        tex.write_text(source.replace(r"\begin{document}", preamble + "\n\\begin{document}"), encoding="utf-8")
        pdf, _ = pdflatex(tex)
        run(tool("pdftoppm"), "-r", "100", "-f", "2", "-l", "2", "-png", str(pdf), str(tmp_path / name))
        from PIL import Image  # Pillow: a test dependency (cairosvg needs it too)

        image = Image.open(next(tmp_path.glob(f"{name}-*.png"))).convert("RGB")
        colours[name] = {image.getpixel((x, y)) for x in range(image.width) for y in range(image.height)}
    orange = [(r, g, b) for r, g, b in colours["orange"] if r > 230 and 120 < g < 190 and b < 60]
    assert orange and not [(r, g, b) for r, g, b in colours["theme"] if r > 230 and 120 < g < 190 and b < 60]


def test_beamer_time_grows_linearly(tmp_path):
    small, big = decks.from_walkthrough(attnviz.figure()), decks.from_walkthrough(attnviz.figure(q=TWELVE, k=TWELVE))
    times = []
    for name, one in (("small", small), ("big", big)):
        tex = tmp_path / f"{name}.tex"
        tex.write_text(beamer_document(one), encoding="utf-8")
        start = time.perf_counter()
        pdf, log = pdflatex(tex)
        times.append(time.perf_counter() - start)
        assert pages(pdf) == len(one.slides) and [o for o in overfull(log) if o > 1] == []
    assert times[1] <= 15 * times[0], times


# --- TikZ ---------------------------------------------------------------------------------------------

PAPER = r"""\documentclass[twocolumn]{article}
\usepackage{tikz}
\usepackage{amsmath}
\begin{document}
\input{fig/steps}
Some text before the figure.

\noindent\attnvizstep[\columnwidth]{3}

Some text after it.
\end{document}
"""


def test_a_paper_inputs_one_step_at_column_width(tmp_path):
    result = run_cli("slides", "-f", "tikz", "-o", str(tmp_path / "fig") + "/")
    assert result.code == 0
    assert {p.name for p in (tmp_path / "fig").iterdir()} == {"steps.tex", *(f"step-{n}.tex" for n in range(1, 11))}
    (tmp_path / "paper.tex").write_text(PAPER, encoding="utf-8")
    subprocess.run([tool("pdflatex"), "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape",
                    "paper.tex"], cwd=tmp_path,
                   capture_output=True, timeout=300, check=True)
    log = (tmp_path / "paper.log").read_text(encoding="latin-1")
    assert [o for o in overfull(log) if o > 1] == [] and font_warnings(log) == []
    text = re.sub(r"\s+", "", run(tool("pdftotext"), str(tmp_path / "paper.pdf"), "-").stdout)
    assert "Exactscoreandmaskstructure" in text
    files = tikz_files(decks.from_walkthrough(attnviz.figure()), "fig")
    assert r"\providecommand\attnvizstep" in files["fig/steps.tex"]


# --- The PDF deck ---------------------------------------------------------------------------------------

def test_pdf_deck_pages_are_the_slide_with_title_and_sentence(deck, tmp_path):
    name, one = deck
    pdf = tmp_path / "deck.pdf"
    pdf.write_bytes(pdf_deck(one))
    assert pdf_deck(one) == pdf.read_bytes()  # same deck, same bytes
    info = run(tool("pdfinfo"), str(pdf)).stdout
    assert re.search(rf"Page size:\s+{one.geometry.width:g} x 540 pts", info) and pages(pdf) == len(one.slides)
    for n in (1, len(one.slides)):
        slide = one.slides[n - 1]
        text = re.sub(r"\s+", " ", page_text(pdf, n))
        assert " ".join(slide.heading.split()) in text
        if slide.paragraphs:
            first = unicode_prose(slide.paragraphs[0]).split()
            assert " ".join(first[:4]) in text
    sizes = dict(word_sizes(pdf, len(one.slides)))
    heading = one.slides[-1].heading.split()[0]
    assert sizes[heading] >= 22


def test_pdf_deck_text_is_at_least_the_floor(tmp_path):
    deck = decks.from_walkthrough(attnviz.figure())
    pdf = tmp_path / "deck.pdf"
    pdf.write_bytes(pdf_deck(deck))
    words = word_sizes(pdf, len(deck.slides))
    box = deck.geometry.text
    last = str(len(deck.slides))
    html = run(tool("pdftotext"), "-bbox", "-f", last, "-l", last, str(pdf), "-").stdout
    column = [float(y1) - float(y0) for x0, y0, y1 in
              re.findall(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)"', html)
              if float(x0) >= box.x - 1]
    assert column and min(column) >= 18 and words


def test_a_91_step_pdf_deck_takes_under_5_seconds(tmp_path):
    start = time.process_time()  # CPU time: the machine's other work does not count
    deck = decks.from_walkthrough(attnviz.figure(q=TWELVE, k=TWELVE))
    data = deck_files(deck, "pdf", str(tmp_path / "d.pdf"))[str(tmp_path / "d.pdf")]
    assert time.process_time() - start < 5
    (tmp_path / "d.pdf").write_bytes(data)
    assert pages(tmp_path / "d.pdf") == len(deck.slides) and len([s for s in deck.slides if s.kind == "step"]) == 91


def test_pdf_deck_4_3_is_10_by_7_5_inches(tmp_path):
    result = run_cli("slides", "--aspect", "4:3", "--title", "Talk", "--author", "Ada", "-o", str(tmp_path / "d.pdf"))
    assert result.code == 0
    assert re.search(r"Page size:\s+720 x 540 pts", run(tool("pdfinfo"), str(tmp_path / "d.pdf")).stdout)
    assert "Ada" in page_text(tmp_path / "d.pdf", 1) and pages(tmp_path / "d.pdf") == 12


def test_slides_docs_name_every_deck_flag():
    text = (Path(__file__).parent.parent / "docs" / "slides.rst").read_text(encoding="utf-8")
    for flag in ("--aspect", "--steps", "--author", "--date", "--step-seconds", r"\attnvizstep"):
        assert flag in text


def test_a_spec_gives_the_deck_keys_and_flags_override_them(tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text('q = [[1, 0], [0, 1], [1, 1]]\nk = [[1, 0], [0, 1], [1, 1]]\nsteps = "1-2"\naspect = "4:3"\n'
                    'author = "Ada"\n', encoding="utf-8")
    assert run_cli("slides", str(spec), "--walkthrough", "-o", str(tmp_path / "a.pdf")).code == 0
    assert pages(tmp_path / "a.pdf") == 4  # the title slide, the intro, steps 1 and 2
    assert re.search(r"Page size:\s+720 x 540 pts", run(tool("pdfinfo"), str(tmp_path / "a.pdf")).stdout)
    assert run_cli("slides", str(spec), "--walkthrough", "--steps", "3", "-o", str(tmp_path / "b.pdf")).code == 0
    assert pages(tmp_path / "b.pdf") == 3
    spec.write_text('q = [[1, 0], [0, 1]]\nk = [[1, 0], [0, 1]]\nsteps = "9-2"\n', encoding="utf-8")
    result = run_cli("slides", str(spec), "--walkthrough", "-o", str(tmp_path / "c.pdf"))
    assert result.code == 2 and result.stderr.endswith("s.toml: steps: step 9-2 runs backwards\n")


def test_step_seconds_time_the_animated_svg(tmp_path):
    assert run_cli("slides", "--step-seconds", "1.5", "-o", str(tmp_path / "d.svg")).code == 0
    svg = (tmp_path / "d.svg").read_text(encoding="utf-8")
    assert "attnviz-steps 16.5s" in svg and ".attnviz-step-2 { animation-delay: 1.5s }" in svg
