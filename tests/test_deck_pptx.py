"""PowerPoint decks as a presenter gets them: reopened with python-pptx, converted by LibreOffice and read
back with poppler. Titled slides, one named figure group, names that Morph can match, theme colours,
native equations, notes with the exact values, nothing off the slide, and quick at 91 steps."""

import io
import re
import subprocess
import time
import zipfile

import pytest

import attnviz
from attnviz.layout.items import Text
from attnviz.publish.deck import model as decks
from attnviz.publish.deck.formats import pptx_bytes
from attnviz.render.pptx import TINTS, _opaque
from attnviz.publish.deck.plan import MORE_IN_NOTES, NOTE_PT, TEXT_PT
from attnviz.publish.deck.slide_text import unicode_prose
from attnviz.publish.walkthrough.flash import flash_walkthrough
from attnviz.render.pptx import OFFICE_SCRIPT, SCHEME
from attnviz.render.themes import get_theme
from attnviz.publish.deck.highlights import from_highlights

P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
M = "{http://schemas.openxmlformats.org/officeDocument/2006/math}"
MC = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"
SIX = ["The", "cat", "sat", "on", "the", "mat"]
SIX_VECTORS = [[1, 0], [0, 1], [1, 1], [2, 0], [1, 0], [0, 2]]


def make_deck(name, theme="light"):
    if name == "seed":
        return decks.from_walkthrough(attnviz.figure(frame="slide", theme=theme))
    if name == "six":
        return decks.from_walkthrough(attnviz.figure(SIX_VECTORS, SIX_VECTORS, tokens=SIX, frame="slide",
                                                     theme=theme))
    if name == "flash":
        return decks.from_sections(*flash_walkthrough(attnviz.figure(frame="slide", theme=theme), (2, 2)))
    assert name == "gqa"
    heads = attnviz.figure(q_heads=[[[1, 0], [0, 1], [1, 1]], [[2, 1], [1, 2], [0, 1]]],
                           k_heads=[[[1, 1], [0, 1], [1, 0]]], frame="slide", theme=theme)
    return from_highlights(heads)


DECKS = ("seed", "six", "flash", "gqa")
FIGURE_PT = 14  # the floor of every text on a deck's slide, the figure's included


@pytest.fixture(scope="module", params=DECKS)
def deck_and_file(request):
    deck = make_deck(request.param)
    return request.param, deck, pptx_bytes(deck)


def open_deck(data):
    from pptx import Presentation

    return Presentation(io.BytesIO(data))


def group_shapes(group):
    for shape in group.shapes:
        if shape.shape_type == 6:  # a group inside
            yield from group_shapes(shape)
        else:
            yield shape


def figure_of(slide):
    groups = [shape for shape in slide.shapes if shape.shape_type == 6]
    assert [group.name for group in groups] == ["figure"]  # the figure is one named group, with alt text
    assert groups[0]._element.find(f"{P}nvGrpSpPr/{P}cNvPr").get("descr")
    return groups[0]


def test_every_step_slide_is_titled_in_its_placeholder(deck_and_file):
    _, deck, data = deck_and_file
    presentation = open_deck(data)
    slides = list(presentation.slides)
    assert len(slides) == len(deck.slides)  # no title slide unless asked for (--title, --author, --date)
    for slide, step in zip(slides, deck.slides):
        assert slide.slide_layout.name == "Title Only"
        title = slide.shapes.title  # the outline and the accessibility checker read this placeholder
        assert title is not None and title.is_placeholder and title.text.strip()
        assert title.text == step.heading or title.text.endswith("…")


def test_the_figure_is_one_group_with_the_same_names_on_every_step(deck_and_file):
    name, deck, data = deck_and_file
    presentation = open_deck(data)
    named = []
    for slide in list(presentation.slides):
        names = [shape.name for shape in group_shapes(figure_of(slide))]
        assert len(names) == len(set(names))  # each name once a slide
        named.append(set(names))
    common = set.intersection(*named)
    if name != "gqa":  # a walkthrough: every cell of the grid, by its row and column, on every step
        n = len(deck.slides[0].figure.attention.q)
        cells = {f"cell {i},{j}" for i in range(1, n + 1) for j in range(1, n + 1)}
        assert cells <= common
        assert {"subtitle", "background"} <= common if name == "seed" else "background" in common


def test_colours_are_the_themes_scheme_colours_and_dark_is_a_dark_slide():
    data = pptx_bytes(make_deck("seed", "dark"))
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        slides = [z.read(n).decode() for n in z.namelist() if re.fullmatch(r"ppt/slides/slide\d+\.xml", n)]
        theme = z.read("ppt/theme/theme1.xml").decode()
        master = z.read("ppt/slideMasters/slideMaster1.xml").decode()
    assert all("srgbClr" not in xml for xml in slides)  # no colour fixed on a slide: Variants restyle it all
    used = {v for xml in slides for v in re.findall(r'<a:schemeClr val="(\w+)"', xml)}
    assert {"accent1", "accent2", "tx1", "bg1"} <= used and used <= set(SCHEME.values())
    dark = get_theme("dark").colours
    assert f'<a:lt1><a:srgbClr val="{dark["background"][1:].upper()}"/></a:lt1>' in theme
    seen = _opaque(dark["computed-fill"], dark["background"], TINTS["computed-fill"])  # see-through, it is the fill
    assert f'<a:accent1><a:srgbClr val="{seen[1:].upper()}"/></a:accent1>' in theme
    assert '<p:bg><p:bgPr><a:solidFill><a:schemeClr val="bg1"/>' in master  # the slide itself is dark


def test_formulas_are_native_equations_and_notes_hold_the_exact_values(deck_and_file):
    name, deck, data = deck_and_file
    presentation = open_deck(data)
    from lxml import etree

    for slide, step in zip(list(presentation.slides), deck.slides):
        xml = etree.tostring(slide._element).decode()
        notes = slide.notes_slide.notes_text_frame.text
        assert notes.startswith(step.heading)
        assert all(unicode_prose(paragraph) in notes for paragraph in step.paragraphs  # as Unicode math
                   if paragraph not in decks.IN_NOTES)  # (but the line that points to the notes)
        if step.formula:  # Office Math, not caret text; or, too big for the slide, in the notes
            in_notes = MORE_IN_NOTES in xml and "Formula: " in notes
            assert ("<m:oMathPara" in xml and "<a14:m" in xml) or in_notes
        if any("_{" in p or "^" in p for p in step.paragraphs):  # the sentences' notation: equations too
            assert re.search("<m:oMath[ >]", xml) and 'Requires="a14 m"' in xml
        fallback = "".join(t for f in slide._element.iter(f"{MC}Fallback") for t in f.itertext())
        assert "^{" not in fallback and "_{" not in fallback and "\\" not in fallback  # no TeX: Unicode math
    if name == "seed":
        last = etree.tostring(list(presentation.slides)[-1]._element).decode()
        assert last.count("<m:f>") == 3 and "<m:sSup>" in last  # the three named weights, as fractions
        score = etree.tostring(list(presentation.slides)[1]._element).decode()  # after the intro
        assert "<m:sSub>" in score
        assert "e¹/(e¹+e¹+e²)" in list(presentation.slides)[-1].notes_slide.notes_text_frame.text


def test_text_sizes_meet_the_floors_and_the_figure_keeps_its_layouts(deck_and_file):
    """Titles and sentences at 18 pt or more, nothing of the slide's own under 14 pt; the figure's runs
    are its layout's sizes at the figure's scale (its layout, made for the frame, holds the floors)."""
    _, deck, data = deck_and_file
    presentation = open_deck(data)
    for slide, layout in zip(list(presentation.slides), deck.layouts()):
        own = [run for shape in slide._element.iter(f"{P}sp") if shape.getparent().tag != f"{P}grpSp"
               for run in shape.iter(f"{A}rPr")]  # the title, sentences and formula, equations and fallbacks
        assert own
        for run in own:
            floor = NOTE_PT if run.get("i") == "1" else TEXT_PT
            assert int(run.get("sz")) / 100 >= floor, ("".join(run.getparent().itertext()), run.get("sz"))
        figure = figure_of(slide)
        runs = [run for shape in group_shapes(figure) if shape.has_text_frame
                for p in shape.text_frame.paragraphs for run in p.runs
                if not run.font._rPr.get("baseline")]  # a script's size is its own (a frame's floor)
        texts = [t for t in layout.walk() if isinstance(t, Text)]
        scale = figure.width / layout.width  # EMU a layout unit
        sizes = {round(t.style.size * scale / 12700, 2) for t in texts}
        assert {round(run.font.size.pt, 2) for run in runs} <= sizes
        # and every run of the figure, its scripts too, at 14 pt or more on the 13.33-inch slide
        # (a raised or lowered run is drawn at OFFICE_SCRIPT of its size: LibreOffice's 58 %, PowerPoint's 65 %)
        every = [run.font.size.pt * (OFFICE_SCRIPT if run.font._rPr.get("baseline") else 1)
                 for shape in group_shapes(figure) if shape.has_text_frame
                 for p in shape.text_frame.paragraphs for run in p.runs]
        assert every and min(every) >= FIGURE_PT - 0.01


def _xml(slide):
    from lxml import etree

    return etree.tostring(slide._element).decode()


def test_every_shape_is_inside_the_slide(deck_and_file):
    _, _, data = deck_and_file
    presentation = open_deck(data)
    width, height = presentation.slide_width, presentation.slide_height
    for slide in presentation.slides:
        for shape in slide._element.iter(f"{P}sp", f"{P}grpSp"):
            xfrm = shape.find(f"{P}spPr/{A}xfrm")
            if xfrm is None:
                xfrm = shape.find(f"{P}grpSpPr/{A}xfrm")
            if xfrm is None:
                continue
            off, ext = xfrm.find(f"{A}off"), xfrm.find(f"{A}ext")
            x, y, cx, cy = (int(off.get("x")), int(off.get("y")), int(ext.get("cx")), int(ext.get("cy")))
            if xfrm.get("rot") in ("5400000", "16200000"):  # turned a quarter: the box's other sides
                x, y, cx, cy = x + (cx - cy) // 2, y + (cy - cx) // 2, cy, cx
            assert 0 <= x and 0 <= y and x + cx <= width and y + cy <= height, shape.find(f".//{P}cNvPr").get("name")


def test_step_slides_morph_to_the_next():
    data = pptx_bytes(make_deck("seed"))
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        steps = [z.read(f"ppt/slides/slide{n}.xml").decode() for n in range(1, 12)]
    assert all('<p159:morph option="byObject"/>' in xml for xml in steps)


def test_map_rows_meet_without_seams_at_512_tokens(tmp_path):
    """Each row's run reaches into the next row where that row keeps the same keys (no edge for a viewer
    to smooth into a hairline), and LibreOffice's picture of a causal map has no light line in its kept part."""
    from PIL import Image

    deck = from_highlights(attnviz.figure(view="mask", n=512, mask="causal", frame="slide"))
    path = tmp_path / "map.pptx"
    path.write_bytes(pptx_bytes(deck))
    slide = list(open_deck(path.read_bytes()).slides)[0]
    rows = {}
    for shape in group_shapes(figure_of(slide)):
        found = re.fullmatch(r"row (\d+)( kept( \d+)?)?", shape.name)
        if found:
            rows.setdefault(int(found[1]), []).append((shape.left, shape.top, shape.left + shape.width,
                                                       shape.top + shape.height))
    assert len(rows) == 512
    for i in range(1, 512):
        below_top = min(top for _, top, _, _ in rows[i + 1])
        assert all(bottom > below_top for _, _, _, bottom in rows[i])  # overlapping, not merely meeting
    subprocess.run(["soffice", "--headless", f"-env:UserInstallation=file://{tmp_path}/profile", "--convert-to",
                    "pdf", "--outdir", str(tmp_path), str(path)], check=True, capture_output=True, timeout=180)
    subprocess.run(["pdftoppm", "-png", "-singlefile", "-f", "1", "-l", "1", "-scale-to-x", "1280", "-scale-to-y",
                    "720", str(tmp_path / "map.pdf"), str(tmp_path / "map")], check=True, timeout=120)
    image = Image.open(tmp_path / "map.png").convert("L")
    x = round((rows[20][0][0] + rows[20][0][2]) / 2 / 9525)  # 9,525 EMU a pixel at 1,280 px
    column = [image.getpixel((x, y)) for y in range(round(rows[40][0][1] / 9525), round(rows[500][0][1] / 9525))]
    assert max(column) - min(column) < 40, column  # one even dark band: no lighter row between


def test_a_one_cell_highlight_at_512_tokens_is_ringed_at_a_visible_size():
    deck = from_highlights(attnviz.figure(view="mask", n=512, highlight=[(300, 200)], frame="slide"))
    slide = list(open_deck(pptx_bytes(deck)).slides)[0]
    cell = [s for s in group_shapes(figure_of(slide)) if s.name.startswith("computed")]
    ring = [s for s in group_shapes(figure_of(slide)) if s.name.startswith("highlight-ring")]
    assert len(cell) == 1 and cell[0].width < 12700 and len(ring) == 4  # the cell: under a point wide
    left, right = min(s.left for s in ring), max(s.left + s.width for s in ring)
    top, bottom = min(s.top for s in ring), max(s.top + s.height for s in ring)
    assert right - left >= 12 * 12700 and bottom - top >= 12 * 12700  # 12 pt: 16 px on a 1,280-px slide
    assert min(min(s.width, s.height) for s in ring) >= 2.25 * 12700 - 2
    assert left <= cell[0].left and cell[0].left + cell[0].width <= right


def test_a_91_step_deck_takes_under_5_seconds():
    q = [[i % 3, (i * 2) % 5] for i in range(12)]
    deck = decks.from_walkthrough(attnviz.figure(q, q))  # 12 tokens: 78 scores, the mask, 12 softmax rows
    assert sum(slide.kind == "step" for slide in deck.slides) == 91
    start = time.process_time()  # the work itself: other processes on a shared machine do not count
    data = pptx_bytes(deck)
    assert time.process_time() - start < 5
    assert len(open_deck(data).slides) == len(deck.slides)


@pytest.mark.parametrize("name", DECKS)
def test_libreoffice_shows_every_slide_with_its_text_on_the_page(tmp_path, name):
    deck = make_deck(name)
    path = tmp_path / "deck.pptx"
    path.write_bytes(pptx_bytes(deck))
    subprocess.run(["soffice", "--headless", f"-env:UserInstallation=file://{tmp_path}/profile", "--convert-to",
                    "pdf", "--outdir", str(tmp_path), str(path)], check=True, capture_output=True, timeout=180)
    pdf = tmp_path / "deck.pdf"
    info = subprocess.run(["pdfinfo", str(pdf)], check=True, capture_output=True, text=True).stdout
    assert re.search(rf"Pages:\s+{len(deck.slides)}\b", info)
    width, height = map(float, re.search(r"Page size:\s+([\d.]+) x ([\d.]+) pts", info).groups())
    assert (round(width), round(height)) == (960, 540)
    html = subprocess.run(["pdftotext", "-bbox", str(pdf), "-"], check=True, capture_output=True, text=True).stdout
    pages = html.split("<page ")[1:]
    for page, step in zip(pages, deck.slides):
        words = [(float(a), float(b), float(c), float(d)) for a, b, c, d in
                 re.findall(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)"', page)]
        assert words and all(0 <= x0 and x1 <= width and 0 <= y0 and y1 <= height for x0, y0, x1, y1 in words)
        assert step.heading.split()[0] in page
        assert max(y1 for _, _, _, y1 in words) <= height - 10  # nothing runs into the bottom edge
        boxes = (deck.geometry.title, deck.geometry.figure, deck.geometry.text)
        for x0, y0, x1, y1 in words:  # every word inside the box it belongs to: nothing clipped or spilled
            inside = [b.x - 2 <= x0 and x1 <= b.x + b.w + 2 and b.y - 4 <= y0 and y1 <= b.y + b.h + 4 for b in boxes]
            assert any(inside), (step.heading, (x0, y0, x1, y1))


def test_hostile_labels_and_titles_are_text_in_every_part():
    tokens = ["<a&b>", "x]]>y", '"q"']
    fig = attnviz.figure([[1, 0], [0, 1], [1, 1]], [[1, 0], [0, 1], [1, 1]], tokens=tokens,
                         highlight=[(2, 1)], frame="slide")
    presentation = open_deck(pptx_bytes(from_highlights(fig, title="A & B <c> \"d\"")))
    assert presentation.slides[0].shapes.title.text == "A & B <c> \"d\""
    texts = [shape.text_frame.text for slide in list(presentation.slides)[1:]  # after the title slide
             for shape in group_shapes(figure_of(slide)) if shape.has_text_frame]
    assert "<a&b>" in texts and "x]]>y" in texts and '"q"' in texts  # as typed, escaped once


def test_a_4_3_deck_is_a_4_3_slide_with_everything_on_it():
    deck = decks.from_walkthrough(attnviz.figure(), aspect="4:3")
    presentation = open_deck(pptx_bytes(deck))
    assert (presentation.slide_width, presentation.slide_height) == (9144000, 6858000)
    for slide in list(presentation.slides):
        figure = figure_of(slide)
        assert figure.left + figure.width <= 9144000 and figure.top + figure.height <= 6858000
        (sentences,) = [s for s in slide._element.iter(f"{P}sp") if s.find(f".//{P}cNvPr").get("name") == "sentences"
                        and s.getparent().tag != f"{MC}Fallback"]
        off = sentences.find(f"{P}spPr/{A}xfrm/{A}off")
        ext = sentences.find(f"{P}spPr/{A}xfrm/{A}ext")
        assert figure.left + figure.width < int(off.get("x")) and int(off.get("x")) + int(ext.get("cx")) <= 9144000
