"""Golden files: committed figures a reviewer can open, each stored pretty-printed (one element a line, indented
by depth), so a change is a readable diff; each SVG has its PNG beside it (CairoSVG), to look at. `make golden`
rewrites them after an intended change (then look at them before committing).

The pretty form is the test's, not attnviz's: the figure's bytes are compared exactly, through `pretty`, which
only adds line breaks and indentation (`unpretty` takes them away again)."""

import io
import os
import re
import struct
import zipfile

import pytest

import attnviz
from attnviz.publish.walkthrough.scores import walkthrough
from clirun import run_cli
from conftest import GOLDEN

UPDATE = bool(os.environ.get("ATTNVIZ_UPDATE_GOLDEN"))

CASES = {
    "seed": lambda: attnviz.figure(highlight=[(3, 3)]),
    "rational-4x4": lambda: attnviz.figure(
        [[-1, "1/2"], ["0.25", 3], [2, -2], [0, "-0.5"]], [[1, 1], [-2, "3/4"], ["1.5", 0], [4, 1]],
        highlight=["softmax=4", "4,2"], title="Rational vectors", subtitle="Negative and fractional scores."),
    # A walkthrough step: S_{3,2} just computed, later cells and every softmax row still empty.
    "walkthrough-step-05": lambda: walkthrough(attnviz.figure())[1][4],
    "window-padding": lambda: attnviz.figure(
        [[1, 0], [0, 1], [1, 1], [2, -1], ["1/2", 1]], [[1, 0], [0, 1], [1, 1], [2, -1], ["1/2", 1]],
        mask=["window=3", "padding=2"], highlight=["mask", "softmax=5"], softmax="grouped",
        title="Sliding window with padding", subtitle="Window of 3 keys; key 2 is padding."),
    "decode-bottom-right": lambda: attnviz.figure(
        [[1, 1, 0], [0, 1, 1]], [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]], align="bottom-right",
        scale="sqrt", bias="alibi=1/4", softmax="normalizer", v=[[1], [2], [3], [4]], highlight=["row=2"],
        title="Decoding with a cache", subtitle="Two new queries over four keys, ALiBi, S/√3."),
    # Frames: the layout placed for a 16:9 slide and for a paper column, text at its point size.
    "slide-16x9": lambda: attnviz.figure(highlight=[(3, 3)], frame="slide"),
    "column": lambda: attnviz.figure(mask="window=2", highlight=["softmax=3"], frame="column"),
}
#: The seed walkthrough's first step as a deck, in the backends that are not SVG: TikZ and PowerPoint.
DECKS = {"seed-step-1.tex": "tikz", "seed-step-1.pptx.xml": "pptx"}


def pretty(markup):
    """`markup` (one line, but for an XML declaration's) with each element from a new line, indented by depth;
    an element's text stays on its line (`<text ...>S = 2</text>`)."""
    declaration, _, body = markup.rpartition("?>\n") if markup.startswith("<?xml") else ("", "", markup)
    assert "\n" not in body, "pretty() takes markup on one line: teach it the new line breaks"
    lines, depth, in_text = [declaration + "?>"] if declaration else [], 0, 0
    for piece in re.split(r"(?<=>)(?=<)", body):
        closes = piece.count("</")
        opens = len(re.findall(r"<[^/?!]", piece)) - len(re.findall(r"/>", piece))
        if in_text:  # inside <text>, a line break would be a space the reader sees: its tspans stay on its line
            lines[-1] += piece
        else:
            lines.append("  " * (depth - piece.startswith("</")) + piece)
        depth += opens - closes
        in_text += len(re.findall(r"<text[\s>]", piece)) - piece.count("</text>")
    return "\n".join(lines) + "\n"


def unpretty(text):
    """The markup `pretty` made `text` from: its line breaks and indentation taken away."""
    first, *rest = text.splitlines()
    if first.startswith("<?xml"):
        return first + "\n" + "".join(line.lstrip(" ") for line in rest)
    return "".join(line.lstrip(" ") for line in [first, *rest])


def check(name, text):
    path = GOLDEN / name
    if UPDATE:
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{path} differs; run `make golden` if intended"


def png_size(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden(name):
    figure = CASES[name]()
    svg = figure.svg()
    assert unpretty(pretty(svg)) == svg  # the stored form holds every byte of the figure
    check(f"{name}.svg", pretty(svg))
    png = GOLDEN / f"{name}.png"
    if UPDATE:
        png.write_bytes(figure.png(scale=1))
    # (the viewBox's units: a framed figure's root says its size in inches)
    width, height = (float(n) for n in re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', svg).groups())
    assert [abs(a - b) <= 1 for a, b in zip(png_size(png.read_bytes()), (width, height))] == [True, True], \
        f"{png} is not this figure's PNG; run `make golden`"


@pytest.mark.parametrize("name", sorted(DECKS))
def test_golden_deck(name, tmp_path):
    """TikZ as written (its own lines); PowerPoint as each slide's XML, pretty-printed (the zip's other parts
    are python-pptx's template)."""
    out = tmp_path / f"deck.{name.split('.')[1]}"
    result = run_cli("slides", "-f", DECKS[name], "--steps", "1", "-o", str(out))
    assert result.code == 0, result.stderr
    if DECKS[name] == "tikz":
        text = out.read_text(encoding="utf-8")
    else:
        with zipfile.ZipFile(io.BytesIO(out.read_bytes())) as deck:
            slides = sorted((n for n in deck.namelist() if re.fullmatch(r"ppt/slides/slide\d+\.xml", n)),
                            key=lambda n: int(re.search(r"\d+", n)[0]))
            text = "".join(f"<!-- {n} -->\n" + pretty(deck.read(n).decode("utf-8")) for n in slides)
    check(name, text)


def test_pretty_is_one_element_a_line_and_undone_exactly():
    svg = ('<svg a="1"><g class="x"><rect x="0"/><text y="2">S<tspan>i</tspan><tspan>j</tspan> &lt; 3</text></g>'
           '<desc>d</desc></svg>')
    assert pretty(svg) == ('<svg a="1">\n  <g class="x">\n    <rect x="0"/>\n'
                           '    <text y="2">S<tspan>i</tspan><tspan>j</tspan> &lt; 3</text>\n'
                           '  </g>\n  <desc>d</desc>\n</svg>\n')
    assert unpretty(pretty(svg)) == svg
    xml = "<?xml version='1.0'?>\n<p:sld><a:t>x</a:t></p:sld>"
    assert unpretty(pretty(xml)) == xml
