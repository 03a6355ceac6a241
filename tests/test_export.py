"""PNG and PDF: through CairoSVG, matching what Chromium draws, from the API and the command line."""

import io
import re
import struct
import subprocess
import sys

import cairocffi
import numpy as np
import pytest
from browser import page_html
from clirun import run_cli
from browser_gallery import GALLERY, figures

import attnviz
from attnviz.render.raster import format_for
from attnviz.layout.figure import Group, Text

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(png):
    assert png.startswith(PNG_SIGNATURE)
    return struct.unpack(">II", png[16:24])


def png_dpi(png):
    at = png.index(b"pHYs")
    x, y, unit = struct.unpack(">IIB", png[at + 4:at + 13])
    assert x == y and unit == 1
    return x * 0.0254


def pixels(png):
    """Luminance (0..1) of every pixel of a PNG, as a (height, width) array."""
    surface = cairocffi.ImageSurface.create_from_png(io.BytesIO(png))
    w, h, stride = surface.get_width(), surface.get_height(), surface.get_stride()
    data = np.frombuffer(bytes(surface.get_data()), dtype=np.uint8).reshape(h, stride // 4, 4)[:, :w, :3] / 255
    b, g, r = data[..., 0], data[..., 1], data[..., 2]
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def test_png_scale_and_dpi():
    fig = attnviz.figure(highlight=[(3, 3)])
    layout = fig.layout()
    png = fig.png()
    assert png_size(png) == (round(layout.width * 2), round(layout.height * 2))
    assert png_dpi(png) == pytest.approx(192, abs=0.05)
    png = fig.png(dpi=300)
    assert png_size(png) == (round(layout.width * 300 / 96), round(layout.height * 300 / 96))
    assert png_dpi(png) == pytest.approx(300, abs=0.05)
    assert png_size(fig.png(scale=1)) == (round(layout.width), round(layout.height))
    assert fig.png() == fig.png()  # same figure, same bytes


def test_pdf_is_vector_the_figure_size_and_stable():
    fig = attnviz.figure(highlight=[(3, 3)])
    pdf = fig.pdf()
    assert pdf.startswith(b"%PDF-")
    box = [float(v) for v in re.search(rb"/MediaBox \[ ?([\d. ]+)\]", pdf)[1].split()]
    assert box == pytest.approx([0, 0, fig.layout().width * 0.75, fig.layout().height * 0.75], abs=0.5)
    assert b"/Title (Attention honesty boundary)" in pdf and b"/CreationDate" not in pdf
    assert fig.pdf() == pdf


def test_too_large_a_png_is_refused_with_advice():
    with pytest.raises(attnviz.InputError, match="past 32,767 a side, the most Cairo can draw: lower the scale"):
        GALLERY["grid-32"]("light").png(scale=5)


@pytest.mark.parametrize("path, given, expected", [
    ("fig.svg", None, "svg"), ("fig.PNG", None, "png"), ("a/fig.pdf", None, "pdf"), ("fig", None, "svg"),
    ("out.d/fig", None, "svg"), (".hidden", None, "svg"), ("a/.x.png", None, "png"), ("-", "png", "png"),
    ("fig.x", "pdf", "pdf"), ("fig.png", "png", "png")])
def test_format_for(path, given, expected):
    assert format_for(path, given) == expected


@pytest.mark.parametrize("path", ["fig.jpg", "fig.v2", "a.b/fig.svgz"])
def test_an_extension_that_is_no_format_is_refused_not_filled_with_svg(path):
    with pytest.raises(attnviz.InputError) as err:
        attnviz.figure().save(path)
    suffix = path.rpartition(".")[2]
    assert str(err.value) == (f"path {path}: attnviz writes SVG, PNG or PDF, and '.{suffix}' is none of them; "
                              "name the file .svg, .png or .pdf, or choose the format: format='svg'|'png'|'pdf'")


def test_format_and_extension_must_agree():
    with pytest.raises(attnviz.InputError, match="format pdf does not match the file name 'fig.png'"):
        format_for("fig.png", "pdf")


@pytest.mark.parametrize("name", sorted(GALLERY))
def test_every_gallery_figure_in_every_theme_exports(name):
    for _, theme, fig in figures(names=[name]):
        layout = fig.layout()
        png = fig.png(scale=0.5)
        assert png_size(png) == (round(layout.width * 0.5), round(layout.height * 0.5)), theme
        pdf = fig.pdf()
        assert pdf.startswith(b"%PDF-") and pdf.rstrip().endswith(b"%%EOF"), theme


def test_cli_writes_png_and_pdf_by_extension(tmp_path):
    for suffix, magic in (("png", PNG_SIGNATURE), ("pdf", b"%PDF-")):
        path = tmp_path / f"fig.{suffix}"
        result = run_cli("render", "--theme", "print", "-o", str(path))
        assert result.code == 0 and result.stdout.strip() == str(path)
        assert path.read_bytes().startswith(magic)
    result = run_cli("render", "-f", "png", "--dpi", "150", "-o", str(tmp_path / "x"))
    assert result.code == 0 and png_dpi((tmp_path / "x").read_bytes()) == pytest.approx(150, abs=0.05)


def test_cli_default_output_takes_the_format_extension(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run_cli("render", "-f", "pdf")
    assert result.code == 0 and result.stdout.strip() == "out/attention-honesty-boundary.pdf"
    assert (tmp_path / "out" / "attention-honesty-boundary.pdf").read_bytes().startswith(b"%PDF-")


def test_cli_png_to_standard_output():
    done = subprocess.run([sys.executable, "-m", "attnviz", "render", "-f", "png", "--png-scale", "1", "-o", "-"],
                          capture_output=True, check=True)
    assert png_size(done.stdout) == png_size(attnviz.figure(highlight=[(3, 3)]).png(scale=1))


@pytest.mark.parametrize("args, message", [
    (["-f", "pdf", "-o", "fig.png"], "attnviz: error: -f: format pdf does not match the file name 'fig.png'"),
    (["--dpi", "300", "-o", "fig.svg"], "attnviz: error: --dpi: only a PNG has a resolution, and this writes SVG"),
    (["--dpi", "300", "--png-scale", "2", "-o", "fig.png"], "attnviz: error: --dpi: give a scale or a DPI, "
                                                           "not both"),
    (["--dpi", "0", "-o", "f.png"], "argument --dpi: expected a number above 0, got '0'"),
    (["--png-scale", "-2", "-o", "f.png"], "argument --png-scale: expected a number above 0, got '-2'"),
    (["--png-scale", "0.0005", "-o", "f.png"], "attnviz: error: --png-scale: 0.0005 is out of range; use a scale "
                                               "from 0.25 to 25"),
    (["--dpi", "0.5", "-o", "f.png"], "attnviz: error: --dpi: 0.5 is out of range; use a DPI from 24 to 2400"),
    (["--png-scale", "1e400", "-o", "f.png"], "argument --png-scale: expected a number above 0, got '1e400'"),
    (["-f", "gif"], "argument -f/--format: invalid choice: 'gif'"),
    (["-o", "fig.jpg"], "attnviz: error: -o fig.jpg: attnviz writes SVG, PNG or PDF, and '.jpg' is none of them; "
                        "name the file .svg, .png or .pdf, or choose the format: -f svg|png|pdf"),
    (["--theme", "neon"], "attnviz: error: --theme: unknown theme 'neon'; choose light, dark, print, contrast "
                          "or auto"),
])
def test_cli_refuses_bad_export_options(args, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run_cli("render", *args)
    assert result.code == 2 and message in result.stderr and len(result.stderr.splitlines()) == 1
    assert not any(tmp_path.iterdir())


def test_spec_keys_theme_and_embed_font(tmp_path):
    spec = tmp_path / "fig.toml"
    spec.write_text('q = [[1]]\nk = [[1]]\ntheme = "contrast"\nembed_font = true\n', encoding="utf-8")
    result = run_cli("render", str(spec), "-o", "-")
    assert result.code == 0 and "@font-face" in result.stdout and 'fill="#ffe500"' not in result.stdout
    assert attnviz.figure([[1]], [[1]], theme="contrast", embed_font=True).svg() + "\n" == result.stdout
    spec.write_text('q = [[1]]\nk = [[1]]\nembed_font = "yes"\n', encoding="utf-8")
    result = run_cli("render", str(spec), "-o", "-")
    assert result.stderr.strip() == f"attnviz: error: {spec}: embed_font: expected true or false, got a string"


# --- PNGs match what Chromium shows ----------------------------------------------------------------

# Chromium kerns and Cairo does not: kerning tightens DejaVu text by about half a percent, which
# moves the ink of a long line by a few pixels. Anything misplaced is off by far more.
def near(box):
    return 1.5 + 0.006 * (box[2] - box[0])


def ink_centroid(lum, box, ground):
    """Centroid and amount of ink in `box`: pixels weighted by how far they differ from the `ground`
    luminance (weighting, not a threshold, so the two renderers' anti-aliasing of thin strokes agrees)."""
    x0, y0, x1, y1 = (round(v) for v in box)
    ink = np.clip(np.abs(lum[y0:y1, x0:x1] - ground) - 0.05, 0, None)
    total = ink.sum()
    if total == 0:
        return None, 0
    ys, xs = np.mgrid[y0:y1, x0:x1]
    return ((xs * ink).sum() / total, (ys * ink).sum() / total), total


def regions(layout):
    """A box around each cell's text and each header: where the same ink must land in both renderings."""
    out = []
    for item in layout.items:
        if isinstance(item, Group) and "attnviz-cell" in item.classes:
            x0, y0, x1, y1 = item.box
            out.append((f"cell {dict(item.attrs)['data-q']},{dict(item.attrs)['data-k']}",
                        (x0 + 5, y0 + 8, x1 - 18, y1 - 5)))  # inside the outline, clear of the corner mark
        elif isinstance(item, Text) and item.role in ("header", "title"):
            b = item.line_boxes()[0]
            out.append((f"{item.role} {item.text}", (b[0] - 2, b[1] - 2, b[2] + 2, b[3] + 2)))
    return out


@pytest.mark.parametrize("name, theme", [("seed", "light"), ("seed", "dark"), ("negative-fractions", "contrast"),
                                         ("long-labels", "print")])
def test_png_matches_chromium(page, name, theme):
    fig = GALLERY[name](theme)
    layout = fig.layout()
    width, height = round(layout.width), round(layout.height)
    page.set_viewport_size({"width": width, "height": height})
    page.set_content(page_html([fig.svg()], css="div { line-height: 0 }"))
    shot = pixels(page.screenshot(clip={"x": 0, "y": 0, "width": width, "height": height}))
    cairo = pixels(fig.png(scale=1))
    assert shot.shape == cairo.shape == (height, width)
    checked = 0
    for what, box in regions(layout):
        ground = float(np.median(cairo[round(box[1]):round(box[3]), round(box[0]):round(box[2])]))
        (c1, n1), (c2, n2) = ink_centroid(shot, box, ground), ink_centroid(cairo, box, ground)
        assert n1 and n2, what
        assert abs(c1[0] - c2[0]) <= near(box) and abs(c1[1] - c2[1]) <= 1.5, (what, c1, c2)
        assert 0.6 <= n1 / n2 <= 1.6, (what, n1, n2)
        checked += 1
    assert checked >= 9 + 6 + 1


@pytest.mark.parametrize("kwargs, message", [
    (dict(scale=0), "scale: 0 is out of range; use a scale from 0.25 to 25"),
    (dict(scale=0.0005), "scale: 0.0005 is out of range; use a scale from 0.25 to 25"),
    (dict(dpi=5000), "dpi: 5000 is out of range; use a DPI from 24 to 2400"),
    (dict(dpi=0.5), "dpi: 0.5 is out of range; use a DPI from 24 to 2400"),
    (dict(scale=2, dpi=100), "dpi: give a scale or a DPI, not both"),
    (dict(scale="2"), "scale: expected a number, got str"),
    (dict(dpi=True), "dpi: expected a number, got bool"),
])
def test_png_arguments_are_checked_and_named_as_the_api_names_them(kwargs, message):
    with pytest.raises(attnviz.InputError) as err:
        attnviz.figure().png(**kwargs)
    assert str(err.value) == message
