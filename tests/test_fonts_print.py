"""Fonts outside browsers (issue 38): with DejaVu hidden from fontconfig, attnviz's own PNG and PDF still draw with
the DejaVu it measures with (bundled, given to Cairo as application fonts); an SVG's @font-face (`--embed-font`)
is read by browsers only, and librsvg draws such an SVG in whatever font fontconfig finds, as the docs say."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def no_dejavu(tmp_path_factory):
    """A fontconfig that knows one font, not DejaVu (the first other font the machine has)."""
    root = tmp_path_factory.mktemp("no-dejavu")
    listed = subprocess.run(["fc-list", ":", "file"], capture_output=True, text=True, check=True).stdout.splitlines()
    other = next(line.split(":")[0] for line in sorted(listed) if "dejavu" not in line.lower()
                 and line.split(":")[0].endswith((".ttf", ".otf")))
    (root / "fonts").mkdir()
    shutil.copy(other, root / "fonts")
    (root / "fonts.conf").write_text(f"""<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig><dir>{root / "fonts"}</dir><cachedir>{root / "cache"}</cachedir></fontconfig>
""")
    env = dict(os.environ, FONTCONFIG_FILE=str(root / "fonts.conf"), PYTHONPATH=str(ROOT))
    found = subprocess.run(["fc-match", "DejaVu Sans"], capture_output=True, text=True, env=env, check=True).stdout
    assert "dejavu" not in found.lower()  # hidden
    return env


def fonts(pdf):
    return subprocess.run(["pdffonts", str(pdf)], capture_output=True, text=True, check=True).stdout


@pytest.mark.parametrize("frame", ["doc", "column"])
def test_attnvizs_pdf_draws_with_dejavu_where_the_machine_has_none(no_dejavu, tmp_path, frame):
    pdf = tmp_path / "fig.pdf"
    subprocess.run([sys.executable, "-m", "attnviz", "render", "--frame", frame, "-o", str(pdf)], env=no_dejavu,
                   check=True)
    names = fonts(pdf)
    assert "DejaVuSans+" not in names  # (a subset's name is ABCDEF+Name)
    assert {"DejaVuSans", "DejaVuSansMono", "DejaVuSans-Bold"} <= {line.split()[0].split("+")[-1]
                                                                     for line in names.splitlines()[2:]}


def test_attnvizs_png_draws_the_same_pixels_with_or_without_dejavu(no_dejavu, tmp_path):
    hidden, shown = tmp_path / "hidden.png", tmp_path / "shown.png"
    command = [sys.executable, "-m", "attnviz", "render", "-o"]
    subprocess.run([*command, str(hidden)], env=no_dejavu, check=True)
    # the machine's fonts, DejaVu among them, under the same (minimal) fontconfig settings
    with_dejavu = Path(no_dejavu["FONTCONFIG_FILE"]).with_name("with-dejavu.conf")
    with_dejavu.write_text(Path(no_dejavu["FONTCONFIG_FILE"]).read_text().replace(
        "<dir>", "<dir>/usr/share/fonts</dir><dir>", 1))
    subprocess.run([*command, str(shown)], env=dict(no_dejavu, FONTCONFIG_FILE=str(with_dejavu)), check=True)
    from PIL import Image, ImageChops

    a, b = (Image.open(path).convert("L") for path in (hidden, shown))
    assert a.size == b.size
    # the same glyphs in the same places (the system's own settings may hint their edges a little differently)
    assert ImageChops.difference(a, b).point(lambda v: 255 if v > 96 else 0).getbbox() is None


def test_librsvg_ignores_an_embedded_font_as_the_docs_say(no_dejavu, tmp_path):
    svg, pdf = tmp_path / "fig.svg", tmp_path / "fig.pdf"
    subprocess.run([sys.executable, "-m", "attnviz", "render", "--embed-font", "-o", str(svg)], env=no_dejavu,
                   check=True)
    assert "@font-face" in svg.read_text(encoding="utf-8")
    subprocess.run(["rsvg-convert", "-f", "pdf", str(svg), "-o", str(pdf)], env=no_dejavu, check=True)
    assert "DejaVu" not in fonts(pdf)  # (docs/styling.rst: for print, attnviz's own PDF or PNG)
