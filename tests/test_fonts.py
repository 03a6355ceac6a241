"""Text is measured with the bundled DejaVu fonts; --embed-font inlines them, subset."""

import base64
import io
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SVG_NS, svg_root, svg_text
from fontTools.ttLib import TTFont

import attnviz
from attnviz.layout import metrics
from attnviz.layout.metrics import WIDTHS
from attnviz.render.font_embed import subset_woff
from attnviz.layout.figure import Text


@pytest.mark.parametrize("face", sorted(metrics.FACES))
def test_fast_table_matches_the_bundled_font(face):
    font = TTFont(Path(metrics.FONT_DIR, metrics.FACES[face]), lazy=True)
    cmap, hmtx, upem = font.getBestCmap(), font["hmtx"], font["head"].unitsPerEm
    assert len(WIDTHS[face]) > 400
    for ch, width in WIDTHS[face].items():
        assert width == hmtx[cmap[ord(ch)]][0] / upem, ch


@pytest.mark.parametrize("ch, face", [("Ж", "sans"), ("א", "sans-bold"), ("→", "mono"), ("∑", "sans-italic")])
def test_any_character_the_font_has_is_measured_from_it(ch, face):
    assert ch not in WIDTHS[face]
    font = TTFont(Path(metrics.FONT_DIR, metrics.FACES[face]), lazy=True)
    expected = font["hmtx"][font.getBestCmap()[ord(ch)]][0] / font["head"].unitsPerEm
    assert metrics.char_width(ch, face) == expected != metrics._UNKNOWN


def test_characters_no_face_has_are_guessed_wide():
    assert metrics.char_width("注", "sans") == metrics._UNKNOWN >= 1
    assert metrics.text_width("注", 10) == 10 * metrics._UNKNOWN


def test_italic_is_measured_with_the_oblique_face():
    assert WIDTHS["sans-italic"]["æ"] != WIDTHS["sans"]["æ"]
    assert metrics.text_width("æ", 12.5, italic=True) == 12.5 * WIDTHS["sans-italic"]["æ"]
    assert metrics.face("sans", italic=True) == "sans-italic" and metrics.face("mono", bold=True) == "mono-bold"


def test_ascent_and_descent_cover_every_face():
    for filename in metrics.FACES.values():
        hhea = TTFont(Path(metrics.FONT_DIR, filename), lazy=True)["hhea"]
        assert metrics.ASCENT >= hhea.ascent / 2048 and metrics.DESCENT >= -hhea.descent / 2048


def test_fonts_ship_with_their_license():
    text = Path(metrics.FONT_DIR, "LICENSE").read_text(encoding="utf-8")
    assert "Bitstream Vera" in text and "Permission is hereby granted" in text and "Arev" in text


def test_rendering_does_not_load_fonttools():
    code = "import sys, attnviz; attnviz.figure().svg(); print('fontTools' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "False"


def _faces(svg):
    style = svg_root(svg).find(f"{SVG_NS}style").text
    return re.findall(r'font-family: "([^"]+)"; font-weight: (\w+); font-style: (\w+); '
                      r'src: url\(data:font/woff;base64,([A-Za-z0-9+/=]+)\) format\("woff"\)', style)


def test_embedded_fonts_cover_the_figure_and_nothing_more(seed_line):
    fig = attnviz.figure(highlight=[(3, 3)], embed_font=True)
    svg = fig.svg()
    # The @font-face rules are one more text node (the <style>'s), right after <title> and <desc>.
    root = svg_root(svg)
    assert [el.tag for el in root][:3] == [f"{SVG_NS}title", f"{SVG_NS}desc", f"{SVG_NS}style"]
    assert svg_text(svg).replace(root[2].text, "", 1) == seed_line
    faces = _faces(svg)
    p = fig.id_prefix
    assert [(f, w, s) for f, w, s, _ in faces] == [
        (f"{p}-mono", "normal", "normal"), (f"{p}-mono", "bold", "normal"), (f"{p}-sans", "normal", "normal"),
        (f"{p}-sans", "bold", "normal"), (f"{p}-sans", "normal", "italic")]
    mono = TTFont(io.BytesIO(base64.b64decode(faces[0][3])))
    assert mono.flavor == "woff"
    drawn = {ch for t in fig.layout().walk() if isinstance(t, Text) and metrics.face(
        t.style.family, t.style.bold, t.style.italic) == "mono" for ch in t.text}
    assert set(map(chr, mono.getBestCmap())) == drawn
    names = {record.nameID for record in mono["name"].names}
    assert {0, 13} <= names  # the copyright and the license travel with every copy
    assert len(svg) < 60_000


def test_embedded_subset_is_deterministic():
    subset_woff.cache_clear()
    first = subset_woff("sans", "abc")
    subset_woff.cache_clear()
    assert subset_woff("sans", "abc") == first
    assert attnviz.figure(embed_font=True).svg() == attnviz.figure(embed_font=True).svg()


def test_embedded_font_has_no_external_reference():
    svg = attnviz.figure(embed_font=True, tokens=["a", "b", "c"]).svg()
    assert "http" not in svg.replace("http://www.w3.org/", "") and "url(data:font/woff;base64," in svg
