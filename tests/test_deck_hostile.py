"""The attack pass on the decks (issue 39): one hostile document (HTML, XML, TeX primitives, links and
CSS in every field a user writes) built in every deck format and opened by the program that reads it:
pdflatex with -shell-escape and -recorder (notes shown too), LibreOffice, pdfinfo and pdftotext, an HTML and
an XML parser. Nothing runs, nothing is read or written outside the build folder and TeX's own tree, no
part points outside the deck, and every text reads back as typed."""

import re
import subprocess
import xml.etree.ElementTree as ET
import zipfile
from html.parser import HTMLParser

import pytest
from clirun import run_cli
from test_tex_injection import _compile, _files_touched

TITLE = r"""<script>alert(1)</script> \immediate\write18{touch pwned} ?` ''" -- end"""
HEADING = r"</h1><img src=x onerror=alert(1)> \input{/etc/passwd} http://evil.example/a.png"
AUTHOR = r"\write18{touch pwned3} \openin5=/etc/passwd `q'"
DATE = "<b>&amp;</b> ]]>"
SPEC = "heading = '''" + HEADING + "'''\n" + r"""intro = '''&amp; ]]> <!-- x --> javascript:alert(1)
<a href="http://evil.example">l</a> \openin5=/etc/passwd'''
legend = "' onmouseover='alert(1) url(http://evil.example/x)"
[figure]
q = [[1, 0], [0, 1]]
k = [[1, 0], [0, 1]]
tokens = ["<svg onload=alert(1)>", "\\write18{id}"]
title = '<foreignObject><img src="http://evil.example/i.png"/></foreignObject>'
[[sections]]
heading = '''}\end{frame}\immediate\write18{touch pwned2}\begin{frame}{'''
paragraph = '''<script src="http://evil.example/x.js"></script> file:///etc/passwd
@import url(http://evil.example/c.css);'''
formula = '\text{<script>alert(1)</script>} \to \text{http://evil.example} \left< a|b \right> < \|'
highlight = [1, 1]
"""
TYPED = ["<script>alert(1)</script>", "javascript:alert(1)", '<script src="http://evil.example/x.js"></script>',
         "@import url(http://evil.example/c.css);", "' onmouseover='alert(1)"]


def _deck(tmp_path, fmt, name):
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC, encoding="utf-8")
    result = run_cli("slides", str(spec), "-f", fmt, "--title", TITLE, "--author", AUTHOR, "--date", DATE,
                     "-o", str(tmp_path / name))
    assert result.code == 0, result.stderr
    return tmp_path / name


def _pdf_info(pdf):
    return subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout


def _pdf_text(pdf):
    return subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout


@pytest.mark.parametrize("notes", [False, True], ids=["slides", "notes shown"])
def test_a_hostile_beamer_deck_runs_nothing_and_reads_nothing_with_shell_escape(tmp_path, notes):
    tex = _deck(tmp_path, "beamer", "deck.tex")
    if notes:  # the notes repeat every label and sentence: typeset them too
        tex.write_text(tex.read_text(encoding="utf-8").replace(r"\begin{document}",
                                                               r"\setbeameroption{show notes}\begin{document}"),
                       encoding="utf-8")
    fls = _compile(tmp_path, "deck.tex", shell_escape=True)
    assert _files_touched(fls, tmp_path, "deck") == (set(), set())
    assert not list(tmp_path.glob("pwned*")) and not (tmp_path / "id").exists()
    text = " ".join(_pdf_text(tmp_path / "deck.pdf").split())
    for typed in (TITLE, AUTHOR, DATE, *TYPED[:2], "<script>alert(1)</script> → http://evil.example"):
        assert typed in text, typed  # the last, the formula's \text{...}: OT1's text font read `<` as ¡
    assert not re.search("[¡¿—]", text)


def test_a_beamer_decks_pdf_title_and_author_are_as_typed(tmp_path):
    """hyperref writes the title into the PDF's information and outline: a user's quote, backquote and double
    quote were `\\ttfamily\\char13` there, read as `13`."""
    _deck(tmp_path, "beamer", "deck.tex")
    _compile(tmp_path, "deck.tex")
    info = _pdf_info(tmp_path / "deck.pdf")
    assert re.search(r"^Title:\s+" + re.escape(TITLE) + " - ", info, re.M), info
    assert re.search(r"^Author:\s+" + re.escape(AUTHOR) + "$", info, re.M), info


def test_a_hostile_pptx_is_well_formed_points_nowhere_and_libreoffice_reads_it_as_typed(tmp_path):
    path = _deck(tmp_path, "pptx", "deck.pptx")
    with zipfile.ZipFile(path) as archive:
        for name in archive.namelist():
            if name.endswith((".xml", ".rels")):
                root = ET.fromstring(archive.read(name))  # well-formed: text escaped once
                for element in root.iter():
                    assert element.get("TargetMode") != "External", name
                    target = element.get("Target", "")
                    assert "://" not in target and not target.startswith("/") or name == "_rels/.rels", (name, target)
                    assert not element.tag.endswith(("}hlinkClick", "}hlinkHover")), name
    subprocess.run(["soffice", "--headless", f"-env:UserInstallation=file://{tmp_path}/profile", "--convert-to",
                    "pdf", "--outdir", str(tmp_path / "lo"), str(path)], check=True, capture_output=True, timeout=180)
    pdf = tmp_path / "lo" / "deck.pdf"
    assert b"/URI" not in pdf.read_bytes()  # no link in the exported PDF
    text = " ".join(_pdf_text(pdf).split())
    for typed in (*TYPED, "<svg onload=alert(1)>", r"\write18{id}"):
        assert typed in text, typed
    assert re.search(r"^Title:\s+" + re.escape(HEADING) + "$", _pdf_info(pdf), re.M)  # the deck's: its heading


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.data = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    handle_startendtag = handle_starttag

    def handle_data(self, data):
        self.data.append(data)


def _no_reference_outside(tag, attrs):
    for name, value in attrs.items():
        value = value or ""
        assert not name.startswith("on"), (tag, name)
        if name == "xmlns" or name.startswith("xmlns:"):
            continue
        assert "://" not in value and "javascript:" not in value.lower(), (tag, name, value)
        if name == "style":
            assert "url(" not in value and "@import" not in value, (tag, value)


def test_a_hostile_revealjs_folder_points_nowhere_and_runs_only_its_own_scripts(tmp_path):
    folder = _deck(tmp_path, "revealjs", "deck")
    html = (folder / "index.html").read_text(encoding="utf-8")
    page = _Tags()
    page.feed(html)
    for tag, attrs in page.tags:
        _no_reference_outside(tag, attrs)
        assert tag not in ("img", "iframe", "object", "embed", "foreignobject", "a", "base", "form"), tag
    scripts = [attrs.get("src") for tag, attrs in page.tags if tag == "script"]
    assert scripts == ["reveal.js/reveal.js", "reveal.js/notes.js", None]  # reveal.js, its notes, its settings
    assert [attrs.get("href") for tag, attrs in page.tags if tag == "link"] == ["reveal.js/reveal.css"]
    for style in re.findall(r"<style[^>]*>(.*?)</style>", html, re.S):
        assert not re.search(r"url\((?!#)|@import|://", style), style
    text = " ".join(" ".join(page.data).split())
    for typed in TYPED:
        assert typed in text, typed
    files = sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())
    assert files == [".attnviz-deck", "index.html", "reveal.js/LICENSE", "reveal.js/notes.js",
                     "reveal.js/reveal.css", "reveal.js/reveal.js"]


def test_a_hostile_animated_svg_points_nowhere_and_has_no_script(tmp_path):
    path = _deck(tmp_path, "svg-animated", "deck.svg")
    root = ET.parse(path).getroot()
    for element in root.iter():
        tag = element.tag.rsplit("}", 1)[-1]
        assert tag not in ("script", "foreignObject", "image", "a", "use"), tag
        _no_reference_outside(tag, {name.rsplit("}", 1)[-1]: value for name, value in element.attrib.items()})
        if tag == "style":
            assert not re.search(r"url\((?!#)|@import|://", element.text or "")
    text = " ".join(" ".join(root.itertext()).split())
    assert HEADING in text and "<svg onload=alert(1)>" in text


def test_a_hostile_cairo_pdf_deck_reads_as_typed(tmp_path):
    pdf = _deck(tmp_path, "pdf", "deck.pdf")
    assert b"/URI" not in pdf.read_bytes()
    assert re.search(r"^Title:\s+" + re.escape(HEADING) + "$", _pdf_info(pdf), re.M)  # the deck's: its heading
    text = " ".join(_pdf_text(pdf).split())
    for typed in TYPED:
        assert typed in text, typed
