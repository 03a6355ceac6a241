"""Print pipelines (issue 38): paper columns of any width, every framed SVG sized in physical units beside its
viewBox, spaces beside scripts kept (xml:space), digit subscripts as Unicode subscript digits; checked in the
SVG and in librsvg (rsvg-convert, what LaTeX's svg package and many converters use) and poppler."""

import re
import shutil
import subprocess

import pytest

import attnviz
from attnviz.layout.frames import frame_width, get_frame, text_floor_misses
from attnviz.layout.items import Layout, Text
from attnviz.numbers.exact import InputError
from attnviz.render.svg import render_svg
from tests.clirun import run_cli

RSVG = shutil.which("rsvg-convert")  # tools/install-system-deps.sh installs librsvg2-bin

ROOT = re.compile(r'<svg [^>]*width="([^"]+)" height="([^"]+)" viewBox="0 0 ([\d.]+) ([\d.]+)"')


def root_size(svg):
    width, height, vw, vh = ROOT.search(svg).groups()
    return width, height, float(vw), float(vh)


@pytest.mark.parametrize(("frame", "inches"), [("column", 3.3), ("column:3.5in", 3.5), ("column:3.18in", 3.18),
                                               ("column-wide:7in", 7.0), ("column:8.9cm", 8.9 / 2.54),
                                               ("column:252pt", 3.5), ("slide", 40 / 3), ("slide-4:3", 10.0)])
def test_a_framed_svg_says_its_physical_size_beside_its_viewbox(frame, inches):
    fig = attnviz.figure(frame=frame)
    width, height, vw, vh = root_size(fig.svg())
    assert width.endswith("in") and height.endswith("in")
    assert float(width[:-2]) == pytest.approx(inches, abs=1e-4)
    # the height in proportion: the viewBox is not stretched
    assert float(height[:-2]) / float(width[:-2]) == pytest.approx(vh / vw, rel=1e-3)
    assert not text_floor_misses(fig.layout(), get_frame(frame))


def test_the_doc_frame_keeps_its_css_pixels():
    width, height, vw, vh = root_size(attnviz.figure().svg())
    assert (float(width), float(height)) == (vw, vh)


@pytest.mark.parametrize(("frame", "points"), [("column:3.5in", 252.0), ("column:3.18in", 228.96),
                                               ("column-wide:7in", 504.0), ("column", 237.6)])
def test_a_column_pdf_is_the_columns_width(frame, points, tmp_path):
    path = tmp_path / "fig.pdf"
    attnviz.figure(frame=frame).save(path)
    info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True).stdout
    width = float(re.search(r"Page size:\s+([\d.]+) x", info)[1])
    assert width == pytest.approx(points, abs=0.01)


def test_a_column_png_is_the_columns_width_at_300_dpi():
    png = attnviz.figure(frame="column:3.5in").png()
    assert int.from_bytes(png[16:20], "big") == 1050


@pytest.mark.parametrize("frame", ["column:3.5in", "column-wide:7in", "column"])
def test_librsvg_places_a_column_at_its_physical_size(frame, tmp_path):
    """rsvg-convert at 96 dpi: the column's inches × 96 pixels wide (the unitless root gave 1.5× that)."""
    svg = tmp_path / "fig.svg"
    svg.write_text(attnviz.figure(frame=frame).svg(), encoding="utf-8")
    png = tmp_path / "fig.png"
    subprocess.run([RSVG, str(svg), "-o", str(png)], check=True)
    width = int.from_bytes(png.read_bytes()[16:20], "big")
    assert width == round(get_frame(frame).width_in * 96)


@pytest.mark.parametrize("frame", ["slide", "column"])
def test_librsvg_keeps_the_space_after_a_subscript(frame, tmp_path):
    """The caption "score S_ij=Qi·Kj with causal mask": librsvg drops a run's leading space without
    xml:space="preserve"; its PDF's text (poppler) says whether the space is there."""
    svg = tmp_path / "fig.svg"
    svg.write_text(attnviz.figure(frame=frame).svg(), encoding="utf-8")
    pdf = tmp_path / "fig.pdf"
    subprocess.run([RSVG, "-f", "pdf", str(svg), "-o", str(pdf)], check=True)
    text = subprocess.run(["pdftotext", "-raw", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    assert re.search(r"Kj with", text), text
    assert "Kjwith" not in text


def test_spaces_beside_scripts_are_preserved_and_no_other_text_changes():
    svg = attnviz.figure(frame="slide").svg()
    preserved = re.findall(r"<text[^>]*xml:space=\"preserve\"[^>]*>(.*?)</text>", svg)
    assert any("with" in text for text in preserved)
    # the doc frame typesets nothing: its texts are as they were
    assert 'xml:space="preserve"' not in attnviz.figure().svg()


def digit_text(line, anchor="start"):
    return Text("caption", 10, 30, (line,), anchor=anchor, math=True, size=20)


def test_a_digit_subscript_is_written_in_unicode_subscript_digits():
    layout = Layout(400, 60, "t", "d", [digit_text("Z_2=e^0+e^1 and S_ij")])
    svg = render_svg(layout, "t")
    assert "Z₂=e" in svg  # in the line's own run: no tspan lowers it
    assert '<tspan dy="3.6" font-size="14">ij</tspan>' in svg  # a letter subscript is still lowered


def test_the_layout_measures_the_unicode_subscript_it_draws():
    from attnviz.layout.math_text import math_runs, runs_width
    from attnviz.layout.metrics import text_width

    text = digit_text("Z_12")
    runs = math_runs("Z_12", ())
    assert runs_width(runs, text.style) == pytest.approx(text_width("Z₁₂", 20, "sans", bold=True))


@pytest.mark.parametrize("line, lowered", [
    ("ℓO = e^(-1)ℓ_1O_1+ℓ_2O_2", [("1", "sub"), ("1", "sub"), ("2", "sub"), ("2", "sub")]),  # Flash-Decoding's combine
    ("ℓO = e^0V_3", [("3", "sub")]),  # a name after an exponent
    ("my_top_k layer2_b a1b_2", []),  # inside words: never lowered
])
def test_a_digit_subscript_ends_where_the_next_factor_begins(line, lowered):
    """Typeset frames lower `ℓ_1O_1` as ℓ₁O₁ (it stayed raw: a subscript had to end the word), and the TeX reader
    writes it as math (it was read as ℓ_{1O} and the sentence fell back to text)."""
    from attnviz.layout.math_text import math_runs
    from attnviz.render.tex_escape import math

    assert [run for run in math_runs(line, ()) if run[1] == "sub"] == lowered
    if lowered:
        assert "_" not in "".join(text for text, kind in math_runs(line, ()) if kind == "")
        assert math(line) in (r"\ell{}O = e^{-1}\ell_{1}O_{1}+\ell_{2}O_{2}", r"\ell{}O = e^{0}V_{3}")


@pytest.mark.parametrize("given", ["3.5", "3.5 in", "in", "0.5in", "40in", "nanin", "-3in", "3.5px"])
def test_a_bad_column_width_is_refused_in_one_line(given):
    with pytest.raises(InputError):
        frame_width(given)
    result = run_cli("render", "--frame", f"column:{given}", "-o", "-")
    assert result.code == 2
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("attnviz: error: --frame")


def test_a_refusal_in_a_sized_column_names_column_wide():
    vectors = "; ".join(["1,0,1,0,1,0"] * 40)
    result = run_cli("render", "--q", vectors, "--k", vectors, "--frame", "column:1.5in", "-o", "-")
    assert result.code == 2 and "--frame column-wide" in result.stderr, result.stderr


@pytest.mark.parametrize("frame", ["slide", "column"])
def test_a_mask_maps_caption_is_typeset_in_a_frame_as_the_full_views(frame):
    """`i-4<j<=i` in the doc frame; `i−4<j≤i` in a slide or column, as the full figure's caption there."""
    shown = attnviz.figure(view="mask", n=16, mask="window=4", frame=frame).svg()
    caption = "".join(re.findall(r'class="attnviz-caption-text".*?</text>', shown))
    assert "i−4&lt;j≤i" in re.sub(r"<[^>]+>", "", caption)
    assert "&lt;=" in attnviz.figure(view="mask", n=16, mask="window=4").svg()  # the doc frame: as written
