"""Deck details (issue 21): no raw notation (carets, `_{`, `\\_`, backslashes) in any text of any format, a
one-cell highlight at 512 tokens visible in Beamer and the PDF deck too, and `--verbose` on every command
that lays out a framed figure. Real tools (poppler, python-pptx), none skipped."""

import dataclasses
import html
import io
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest
from clirun import run_cli

import attnviz
from attnviz.layout.items import Text
from attnviz.publish.deck import model as decks
from attnviz.publish.deck.formats import FORMATS, deck_files
from attnviz.publish.deck.fitting import in_frame
from attnviz.publish.deck.highlights import from_highlights

TWELVE = [[1, 0], [0, 1], [1, 1], [2, 1], [1, 2], [0, 2], [2, 0], [1, -1], [-1, 1], [3, 1], [1, 3], [2, 2]]
#: Raw notation: a caret, a TeX group's subscript, an escaped underscore, a backslash, an index after `_`.
RAW = re.compile(r"\^|_\{|\\_|\\|(?<=\w)_(?=\w)")


def _walk(argv):
    from attnviz.cli.arguments import walkthrough_from_args
    from attnviz.cli.parser import build_parser

    return walkthrough_from_args(build_parser().parse_args(["walkthrough", *argv]))


DECKS = {
    "seed": lambda: decks.from_walkthrough(attnviz.figure()),
    "six tokens": lambda: decks.from_walkthrough(attnviz.figure(q=TWELVE[:6], k=TWELVE[:6],
                                                                tokens="The cat sat on the mat".split())),
    "flash": lambda: decks.from_sections(*_walk(["--flash", "2,2"])),
    "decode": lambda: decks.from_sections(*_walk(["--q", "1;2;3;4", "--k", "1;1;1;1", "--decode", "2"])),
    "gqa heads": lambda: decks.from_sections(*_walk(["--q-heads", "1,0; 0,1 | 1,1; 0,1 | 0,1; 1,1 | 1,0; 1,1",
                                                     "--k-heads", "1,0; 0,1 | 1,1; 1,0"])),
}


def tool(name):
    path = shutil.which(name)
    assert path, f"{name} is not installed (tools/install-system-deps.sh)"
    return path


def _typeset(deck):
    """The deck with its figures typeset (`Text.math`): as it is when its layouts already typeset their
    notation, else with each figure laid out for the slide frame, which does."""
    if any(isinstance(t, Text) and t.math for layout in deck.layouts() for t in layout.walk()):
        return deck
    framed = {}
    for slide in deck.slides:
        framed.setdefault(id(slide.figure), in_frame(slide.figure, "slide"))
    return dataclasses.replace(deck, slides=tuple(dataclasses.replace(s, figure=framed[id(s.figure)])
                                                  for s in deck.slides))


@pytest.fixture(scope="module", params=list(DECKS))
def deck(request):
    return request.param, _typeset(DECKS[request.param]())


def _pptx_texts(data):
    from pptx import Presentation
    from pptx.oxml.ns import qn

    from attnviz.publish.deck.powerpoint import FIGURE_NAME

    prose, figure = [], []
    for slide in Presentation(io.BytesIO(data)).slides:
        for shape in slide.shapes:  # every a:t: runs, placeholders, an equation's Unicode fallback
            texts = (t.text or "" for t in shape._element.iter(qn("a:t")))
            (figure if shape.name == FIGURE_NAME else prose).extend(texts)
        if slide.has_notes_slide:
            prose.append(slide.notes_slide.notes_text_frame.text)
    return prose, figure


def _pdf_texts(data, deck, tmp_path):
    pdf = tmp_path / "deck.pdf"
    pdf.write_bytes(data)
    out = subprocess.run([tool("pdftotext"), "-bbox", str(pdf), "-"], capture_output=True, text=True,
                         check=True).stdout
    box = deck.geometry.figure
    prose, figure = [], []
    words = re.findall(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="[\d.]+" yMax="[\d.]+">([^<]*)</word>', out)
    for x0, y0, word in words:
        inside = box.x - 1 <= float(x0) <= box.x + box.w and box.y - 1 <= float(y0) <= box.y + box.h
        (figure if inside else prose).append(html.unescape(word))
    return prose, figure


def _svg_texts(data):
    root = ET.fromstring(data)
    figure = ["".join(text.itertext()) for text in root.iter("{http://www.w3.org/2000/svg}text")]
    return [root.find("{http://www.w3.org/2000/svg}title").text], figure


def _revealjs_texts(files):
    page = next(text for path, text in files.items() if str(path).endswith("index.html"))
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    figure = [html.unescape(re.sub(r"<[^>]+>", "", text)) for svg in re.findall(r"<svg\b.*?</svg>", page, flags=re.S)
              for text in re.findall(r"<text\b.*?</text>", svg, flags=re.S)]  # what it draws: not its <desc>
    page = re.sub(r"<svg\b.*?</svg>|<math\b.*?</math>", " ", page, flags=re.S)
    body = page.split("<body", 1)[1]
    return [html.unescape(t) for t in re.findall(r">([^<]+)<", body) if t.strip()], figure


_TEX_RAW = re.compile(r"\\_|\\textasciicircum|\\textbackslash|\^|_\{")


def _outside_math(tex):
    return re.sub(r"(?<!\\)\$.*?(?<!\\)\$", " ", tex, flags=re.S)


def _tex_texts(text):
    """(frames, figure) of a Beamer or TikZ file, math mode removed: the frames' titles, sentences and notes,
    and the figure's node texts."""
    body = text.split(r"\begin{document}")[-1]
    figure = [_outside_math(node) for node in re.findall(r"\\node\[[^\]]*\] at \([^)]*\) \{(.*)\};", body)]
    frames = [line for line in body.split("\n") if not line.startswith(r"\attnvizsave") and r"\node[" not in line]
    return [_outside_math(line) for line in frames], figure


def _texts(deck, format, tmp_path):
    path = str(tmp_path / ("talk" if format == "revealjs" else f"deck-{format}.x"))
    files = deck_files(deck, format, path)
    data = next(iter(files.values())) if format != "revealjs" else None
    if format == "pptx":
        return _pptx_texts(data)
    if format == "pdf":
        return _pdf_texts(data, deck, tmp_path)
    if format == "svg-animated":
        return _svg_texts(data)
    if format == "revealjs":
        return _revealjs_texts(files)
    return _tex_texts(data)


def _letters(text):
    return re.sub(r"[^0-9A-Za-zℓ]", "", re.sub(r"\\[A-Za-z]+(?:\{\})?", "", text))


def _untypeset(deck):
    """The letters of each figure text its layout leaves untypeset although it holds notation (`Text.math`
    off: a mechanic's state or a heads figure not yet typeset by its frame's layout, not a painter's doing)."""
    return {_letters(t.text) for layout in deck.layouts() for t in layout.walk()
            if isinstance(t, Text) and not t.math and RAW.search(t.text)}


@pytest.mark.parametrize("format", FORMATS)
def test_no_text_of_any_format_holds_raw_notation(deck, format, tmp_path):
    """The slides' titles, sentences, formulas' Unicode and notes, and the figure as each format paints it."""
    name, deck = deck
    prose, figure = _texts(deck, format, tmp_path)
    raw = _TEX_RAW if format in ("beamer", "tikz") else RAW
    assert prose or format == "tikz"
    assert [t for t in prose if raw.search(t)] == [], (name, format)
    left = _untypeset(deck)  # every text a layout typesets is painted typeset: no painter drops its runs
    assert [t for t in figure if raw.search(t) and not any(_letters(t) in text for text in left)] == [], (name, format)


def test_a_formulas_matrix_reads_as_rows_in_unicode():
    from attnviz.publish.deck.slide_text import unicode_math

    assert unicode_math(r"S = \begin{pmatrix} 1 & \cdot \\ 2 & 2 \end{pmatrix}") == "S = (1, ·; 2, 2)"
    assert unicode_math(r"\begin{cases} 1 & j \le i \\ 0 & \text{else} \end{cases}") == "{1 j ≤ i; 0 else"


# --- A one-cell highlight at 512 tokens is seen in Beamer and the PDF deck, as in the other formats ---------

PX_PER_PT = 1280 / 960  # a 13.333-inch slide shown 1,280 px wide


@pytest.fixture(scope="module")
def ringed_deck():
    return from_highlights(attnviz.figure(view="mask", n=512, highlight=[(300, 100)], frame="slide"))


def _cell_px(deck):
    """Where the highlighted cell's centre is drawn on a 1,280-px slide, by the deck's geometry, and its size."""
    layout, box = deck.layouts()[0], deck.geometry.figure
    cell = next(r for r in layout.walk() if getattr(r, "role", "") == "computed" and r.w < 1)
    scale = box.w / layout.width * PX_PER_PT
    return (box.x * PX_PER_PT + (cell.x + cell.w / 2) * scale, box.y * PX_PER_PT + (cell.y + cell.h / 2) * scale,
            cell.w * scale)


def _ring_px(pdf, centre, tmp_path):
    """(width, height) in px of what is drawn over the kept cells round `centre` on the PDF's page at 1,280 px."""
    from PIL import Image

    subprocess.run([tool("pdftoppm"), "-png", "-scale-to-x", "1280", "-scale-to-y", "-1", "-f", "1", "-l", "1",
                    str(pdf), str(tmp_path / "page")], check=True)
    image = Image.open(next(tmp_path.glob("page*.png"))).convert("RGB")
    x, y = map(round, centre[:2])
    kept = image.getpixel((x - 30, y + 30))  # 100 cells or more from the map's edges: kept cells, the cell, its ring
    drawn = [(i, j) for i in range(x - 30, x + 31) for j in range(y - 30, y + 31)
             if max(abs(a - b) for a, b in zip(image.getpixel((i, j)), kept)) > 40]
    assert drawn, "nothing drawn round the highlighted cell"
    xs, ys = [i for i, _ in drawn], [j for _, j in drawn]
    return max(xs) - min(xs) + 1, max(ys) - min(ys) + 1


def test_a_one_cell_highlight_at_512_tokens_is_ringed_in_the_pdf_deck(ringed_deck, tmp_path):
    from attnviz.publish.deck.pdf import pdf_deck

    pdf = tmp_path / "deck.pdf"
    pdf.write_bytes(pdf_deck(ringed_deck))
    *centre, cell = _cell_px(ringed_deck)
    assert cell < 1  # the cell itself: under a pixel
    width, height = _ring_px(pdf, centre, tmp_path)
    assert width >= 16 and height >= 16, (width, height)  # 12 pt: 16 px on a 1,280-px slide


def test_a_one_cell_highlight_at_512_tokens_is_ringed_in_beamer(ringed_deck, tmp_path):
    from attnviz.publish.deck.beamer import beamer_document

    tex = tmp_path / "deck.tex"
    tex.write_text(beamer_document(ringed_deck), encoding="utf-8")
    subprocess.run([tool("pdflatex"), "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape",
                    tex.name], cwd=tmp_path,
                   capture_output=True, timeout=300, check=True)
    # Beamer places the figure by its own margins and title: within a few pixels of the deck's geometry.
    width, height = _ring_px(tmp_path / "deck.pdf", _cell_px(ringed_deck), tmp_path)
    assert width >= 15 and height >= 15, (width, height)  # 12 pt on the slide, less a pixel of rounding


# --- --verbose on every command that lays out a framed figure -------------------------------------------

def _said(result):
    assert result.code == 0, result.stderr
    return result.stderr.splitlines()


def test_walkthrough_and_page_verbose_say_each_steps_choices_in_one_line(tmp_path):
    from attnviz.publish.document import build_figures, default_document

    said = _said(run_cli("walkthrough", "--frame", "slide", "--verbose", "-o", str(tmp_path / "walk")))
    document, figures = _walk(["--frame", "slide"])
    assert said == [f"attnviz: frame slide: {section.name}: {'; '.join(fig.layout().choices)}"
                    for section, fig in zip(document.sections, figures)]
    assert len(said) == 10 and all("notation typeset" in line for line in said)
    page = _said(run_cli("page", "--frame", "column", "--verbose", "-o", str(tmp_path / "page")))
    document = default_document()
    framed = dataclasses.replace(document, figure={**document.figure, "frame": "column"})
    assert page == [f"attnviz: frame column: {section.name}: {'; '.join(fig.layout().choices)}"
                    for section, fig in zip(document.sections, build_figures(framed, "seed-document.toml"))]
    assert _said(run_cli("page", "-o", str(tmp_path / "quiet"))) == []  # without --verbose: nothing said


def test_slides_verbose_says_one_line_per_step_figure(tmp_path):
    said = _said(run_cli("slides", "--flash", "2,2", "--verbose", "-o", str(tmp_path / "talk.pdf")))
    deck = decks.from_sections(*_walk(["--flash", "2,2"]))
    steps = [s for n, s in enumerate(deck.slides) if n == 0 or s.figure is not deck.slides[n - 1].figure]
    assert len(steps) < len(deck.slides)  # continuation slides: no line of their own
    layouts = dict(zip((s.name for s in deck.slides), deck.layouts()))
    said_of = {s.name: "; ".join(layouts[s.name].choices) or "no choice made" for s in steps}
    assert said == [f"attnviz: frame {deck.frame.name}: {s.name}: {said_of[s.name]}" for s in steps]


def test_model_and_panels_verbose_say_their_choices(tmp_path):
    import json

    config = tmp_path / "config.json"
    config.write_text(json.dumps({"model_type": "gemma3_text", "num_hidden_layers": 12, "sliding_window": 4}))
    said = _said(run_cli("model", str(config), "--n", "8", "--frame", "slide", "--verbose", "-o", "-"))
    fig = attnviz.model_figure(config, n=8, frame="slide")
    assert said == [f"attnviz: frame slide: {choice}" for choice in fig.layout().choices] and said
    spec = tmp_path / "window.toml"
    spec.write_text('mask = "window=2"\n', encoding="utf-8")
    panels = _said(run_cli("render", "--view", "mask", "--n", "8", "--panel", str(spec), "--panel", str(spec),
                           "--frame", "slide", "--verbose", "-o", "-"))
    assert panels and all(line.startswith("attnviz: frame slide: ") for line in panels)


@pytest.mark.parametrize("letter", ["👍🏽", "e\u0301", "का", "🇫🇷"])
def test_a_shortened_slide_title_is_cut_between_letters(letter):
    """The deck's title rule cuts as wrapping and short labels do (`graphemes`): never inside a letter."""
    from attnviz.publish.deck.model import _title
    from attnviz.words.user_text import graphemes

    title, shortened = _title(letter * 200, 300)
    assert shortened and title.endswith("…") and set(graphemes(title[:-1])) == {letter}, title
