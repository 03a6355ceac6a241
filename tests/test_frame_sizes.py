"""PNG and PDF at the frame's size: a slide's 1,280 px (960 for 4:3), a column at 300 dpi, PDF pages at the
frame's physical size; `--width`; walkthrough and page steps as PNG and PDF."""

import io
import struct

import pypdf
import pytest

import attnviz
from attnviz.layout.frames import FRAMES, fit_to_frame
from attnviz.render.raster import pdf_scale, to_pdf
from attnviz.render.svg import render_svg
from clirun import run_cli

# frame: (PNG width in pixels, the DPI it records, the PDF page's width in inches)
SIZES = {
    "slide": (1280, 96, 13.333),
    "slide-4:3": (960, 96, 10.0),
    "column": (990, 300, 3.3),
    "column-wide": (2100, 300, 7.0),
}


def png_size(png):
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    at = png.index(b"pHYs")
    per_metre = struct.unpack(">I", png[at + 4:at + 8])[0]
    return width, height, round(per_metre * 0.0254)


def pdf_pages(pdf):
    return [(float(page.mediabox.width) / 72, float(page.mediabox.height) / 72)
            for page in pypdf.PdfReader(io.BytesIO(pdf)).pages]


@pytest.mark.parametrize("frame", SIZES)
@pytest.mark.parametrize("view", ["full", "mask"])
def test_png_and_pdf_are_the_frames_size(frame, view):
    fig = attnviz.figure(frame=frame, view=view, **({"n": 16} if view == "mask" else {}))
    layout = fig.layout()
    width, dpi, inches = SIZES[frame]
    png_width, png_height, recorded = png_size(fig.png())
    assert (png_width, recorded) == (width, dpi)
    assert abs(png_height - layout.height * width / layout.width) <= 1
    [(page_width, page_height)] = pdf_pages(fig.pdf())
    assert page_width == pytest.approx(inches, abs=0.002)
    assert page_height == pytest.approx(layout.height * inches / layout.width, abs=0.002)


@pytest.mark.parametrize("frame", ["slide", "slide-4:3"])
def test_a_slide_shaped_figure_prints_on_the_slides_page(frame):
    """Once a layout has the slide's aspect (layout.frames.fit_to_frame), its PDF page is the slide: 13.333 × 7.5
    inches (10 × 7.5)."""
    fig = attnviz.figure(frame=frame)
    layout = fit_to_frame(fig.layout(), FRAMES[frame])
    pdf = to_pdf(render_svg(layout, fig.id_prefix), scale=pdf_scale(FRAMES[frame], layout.width))
    [(width, height)] = pdf_pages(pdf)
    assert (width, height) == (pytest.approx(FRAMES[frame].width_in, abs=0.002), pytest.approx(7.5, abs=0.002))


def test_the_doc_frame_keeps_its_sizes():
    fig = attnviz.figure()
    layout = fig.layout()
    width, height, dpi = png_size(fig.png())
    assert (width, dpi) == (round(layout.width * 2), 192)  # scale 2, as before frames
    assert fig.png() == fig.png(scale=2)
    [(page_width, _)] = pdf_pages(fig.pdf())
    assert page_width == pytest.approx(layout.width * 0.75 / 72, abs=0.002)  # a unit is 3/4 point


def test_width_scale_and_dpi():
    fig = attnviz.figure(frame="slide")
    assert png_size(fig.png(width=1920))[::2] == (1920, 144)
    assert png_size(fig.png(dpi=192))[::2] == (2560, 192)  # a slide's DPI is at its 13.333 inches
    assert png_size(attnviz.figure(frame="column").png(dpi=600))[::2] == (1980, 600)
    assert png_size(attnviz.figure().png(width=500))[0] == 500
    with pytest.raises(attnviz.InputError, match="^width: give a width, a scale or a DPI, not two of them$"):
        fig.png(width=800, scale=2)
    for bad in (0, -5, 2.5, True, "800"):
        with pytest.raises(attnviz.InputError, match="^width: expected a whole number of pixels"):
            fig.png(width=bad)


def test_the_budget_refuses_a_huge_width_in_one_line(tmp_path):
    result = run_cli("render", "--frame", "slide", "--width", "40000", "-o", str(tmp_path / "big.png"))
    assert result.code == 2 and result.stderr.count("\n") == 1
    assert result.stderr.startswith("attnviz: error: --width: the PNG would be 40,000x")
    assert "past 32,767 a side, the most Cairo can draw: lower the width" in result.stderr
    assert not (tmp_path / "big.png").exists()
    result = run_cli("render", "--width", "1280", "-o", str(tmp_path / "fig.svg"))
    assert (result.code, result.stderr) == (2, "attnviz: error: --width: only a PNG has a resolution, and this "
                                               "writes SVG\n")


def test_render_writes_the_frames_png(tmp_path):
    out = tmp_path / "slide.png"
    assert run_cli("render", "--frame", "slide-4:3", "-o", str(out)).code == 0
    assert png_size(out.read_bytes())[::2] == (960, 96)
    assert run_cli("render", "--frame", "slide", "--width", "640", "-o", str(out)).code == 0
    assert png_size(out.read_bytes())[0] == 640


def test_walkthrough_and_page_steps_as_png_and_pdf(tmp_path):
    result = run_cli("walkthrough", "-f", "png", "--frame", "slide", "-o", str(tmp_path / "walk"))
    assert result.code == 0, result.stderr
    steps = sorted((tmp_path / "walk" / "steps").iterdir())
    assert len(steps) == 10 and all(step.suffix == ".png" for step in steps)
    assert {png_size(step.read_bytes())[::2] for step in steps} == {(1280, 96)}
    assert (tmp_path / "walk" / "index.html").read_text(encoding="utf-8").count('class="attnviz"') == 10
    result = run_cli("page", "-f", "pdf", "--frame", "column", "-o", str(tmp_path / "page"))
    assert result.code == 0, result.stderr
    pdfs = sorted((tmp_path / "page" / "steps").iterdir())
    assert pdfs and all(pdf_pages(p.read_bytes())[0][0] == pytest.approx(3.3, abs=0.002) for p in pdfs)
    result = run_cli("page", "--width", "800", "-o", str(tmp_path / "p2"))
    assert (result.code, result.stderr) == (2, "attnviz: error: --width: only a PNG has a width in pixels, and the "
                                               "steps are SVG\n")
    result = run_cli("walkthrough", "-f", "png", "--width", "600", "-o", str(tmp_path / "w2"))
    assert result.code == 0, result.stderr
    assert {png_size(p.read_bytes())[0] for p in (tmp_path / "w2" / "steps").iterdir()} == {600}
