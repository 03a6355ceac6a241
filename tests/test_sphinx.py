"""The Sphinx directive, through real builds of small projects (sphinx-build's own entry point)."""

import re
import subprocess
import sys
import textwrap

import pytest
from sphinx.cmd.build import build_main

from attnviz.integrations.settings import id_prefix
from conftest import SVG_NS, svg_root
from pagetext import cell_texts
from pagetext import docs_figures as figures

CONF = 'extensions = ["attnviz.integrations.sphinx"]\nnumfig = True\n'

ISSUE_EXAMPLE = """\
Causal
======

.. attnviz::
   :q: 1,0; 0,1; 1,1
   :k: 1,0; 0,1; 1,1
   :highlight: 3,3
   :alt: Causal attention scores for three tokens
   :caption: The exact register.
"""


def write_project(root, pages, conf=CONF, files=None):
    root.mkdir(parents=True, exist_ok=True)
    (root / "conf.py").write_text(conf, encoding="utf-8")
    names = [name for name in pages if name != "index"]
    toctree = "\n\n.. toctree::\n\n" + "".join(f"   {name}\n" for name in names) if names else ""
    for name, text in pages.items():
        path = root / f"{name}.rst"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text) + (toctree if name == "index" else ""), encoding="utf-8")
    for name, text in (files or {}).items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def build(src, out, *args, builder="html"):
    """Run sphinx-build in this process; returns (exit status, warnings and errors as text)."""
    warnings = out.parent / f"{out.name}-warnings.txt"
    code = build_main(["-q", "-b", builder, "-w", str(warnings), *args, str(src), str(out)])
    return code, warnings.read_text(encoding="utf-8") if warnings.exists() else ""


def computed(root):
    return sorted((int(g.get("data-q")), int(g.get("data-k"))) for g in root.iter(f"{SVG_NS}g")
                  if "attnviz-computed" in g.get("class", "").split() and g.get("data-k"))


def test_the_issue_example_inlines_the_svg_with_the_right_cells(tmp_path):
    write_project(tmp_path / "src", {"index": ISSUE_EXAMPLE})
    code, warnings = build(tmp_path / "src", tmp_path / "out", "-W")
    assert (code, warnings) == (0, "")
    html = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    [(wrapper, root)] = figures(html)
    assert wrapper == '<div class="attnviz-figure">'
    assert cell_texts(root) == {(1, 1): "1", (1, 2): "masked", (1, 3): "masked",
                                (2, 1): "0", (2, 2): "1", (2, 3): "masked",
                                (3, 1): "1", (3, 2): "1", (3, 3): "2"}
    assert computed(root) == [(3, 3)]
    assert root.get("id") == "attnviz-index-1"
    assert root.get("aria-label") == "Causal attention scores for three tokens"
    assert root.get("aria-describedby") == "attnviz-index-1-desc" and root.get("aria-labelledby") is None
    assert "max-width:100%" in root.get("style")
    caption = re.search(r"<figcaption>(.*?)</figcaption>", html, flags=re.S)[1]
    assert "Fig. 1" in caption and "The exact register." in caption
    assert "<script" not in re.search(r'<div class="attnviz-figure.*?</div>', html, flags=re.S)[0]
    # attnviz.css, the figures' colours as custom properties, is linked and written.
    from attnviz.render.themes import host_stylesheet

    assert re.search(r'<link rel="stylesheet"[^>]*href="_static/attnviz\.css', html)
    assert (tmp_path / "out" / "_static" / "attnviz.css").read_text(encoding="utf-8") == host_stylesheet()


def test_ids_are_unique_on_a_page_and_the_same_in_every_build(tmp_path):
    page = "Page\n====\n\n" + ".. attnviz::\n   :highlight: {}\n\n" * 3
    write_project(tmp_path / "src", {"index": page.format("1,1", "2,2", "3,3"),
                                     "guide/steps": page.format("mask", "row=2", "softmax")})
    assert build(tmp_path / "src", tmp_path / "one", "-W") == (0, "")
    assert build(tmp_path / "src", tmp_path / "two", "-W", "-E") == (0, "")
    for name, prefix in (("index", "attnviz-index"), ("guide/steps", id_prefix("guide/steps", 1)[:-2])):
        html = (tmp_path / "one" / f"{name}.html").read_text(encoding="utf-8")
        assert html == (tmp_path / "two" / f"{name}.html").read_text(encoding="utf-8")
        roots = [root for _, root in figures(html)]
        assert [root.get("id") for root in roots] == [f"{prefix}-{n}" for n in (1, 2, 3)]
        ids = re.findall(r' id="([^"]+)"', "".join(re.findall(r"<svg .*?</svg>", html, flags=re.S)))
        assert len(ids) == len(set(ids)) and all(ident.startswith(f"{prefix}-") for ident in ids)


def test_singlehtml_keeps_ids_unique_across_documents(tmp_path):
    page = "Page {}\n=======\n\n.. attnviz::\n\n.. attnviz::\n"
    write_project(tmp_path / "src", {"index": page.format(1), "a-b": page.format(2), "a/b": page.format(3)})
    assert build(tmp_path / "src", tmp_path / "out", "-W", builder="singlehtml") == (0, "")
    html = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    roots = [root for _, root in figures(html)]
    ids = re.findall(r' id="([^"]+)"', "".join(re.findall(r"<svg .*?</svg>", html, flags=re.S)))
    assert len(roots) == 6 and len(ids) == len(set(ids)) > 6


def test_spec_file_body_and_options_layer_like_the_command_line(tmp_path):
    spec = 'q = [[1, 0], [0, 1], [1, 1]]\nk = [[1, 0], [0, 1], ["1/2", 0.5]]\ntokens = ["<s>", "the", "cat"]\n'
    write_project(tmp_path / "src", {"guide/index": """\
        Guide
        =====

        .. attnviz:: ../figures/causal.toml
           :highlight: softmax=3

        .. attnviz::
           :highlight: 2,2
           :tokens: ["a b", "c", "d"]

           q = [[2, 0], [0, 3], [1, 1]]
           k = [[1, 0], [0, 1], [1, 1]]
           title = "From a body"

        .. attnviz:: /figures/causal.toml
           :k: 1,0; 0,1; 2,2
           :tokens: x y z
        """, "index": "Index\n=====\n"}, files={"figures/causal.toml": spec})
    assert build(tmp_path / "src", tmp_path / "out", "-W") == (0, "")
    html = (tmp_path / "out" / "guide" / "index.html").read_text(encoding="utf-8")
    (_, from_file), (_, from_body), (_, overridden) = figures(html)
    assert cell_texts(from_file)[(3, 3)] == "1"
    assert "weights 1/3, 1/3, 1/3" in "".join(from_file.itertext())
    assert "row cat: scores [1,1,1]" in "".join(from_file.itertext())
    assert cell_texts(from_body)[(2, 2)] == "3" and computed(from_body) == [(2, 2)]
    assert from_body.find(f"{SVG_NS}title").text == "From a body"
    assert "row a b: scores [2]" in "".join(from_body.itertext())
    assert cell_texts(overridden)[(3, 3)] == "4"
    assert "row z: scores [1,1,4]" in "".join(overridden.itertext())
    assert "K(x)=(1,0)" in "".join(overridden.itertext())


def test_a_changed_spec_file_rebuilds_the_document(tmp_path):
    src = tmp_path / "src"
    write_project(src, {"index": "Index\n=====\n\n.. attnviz:: fig.toml\n"},
                  files={"fig.toml": "q = [[1, 0]]\nk = [[5, 0]]\n"})
    assert build(src, tmp_path / "out") == (0, "")
    (src / "fig.toml").write_text("q = [[1, 0]]\nk = [[7, 0]]\n", encoding="utf-8")
    assert build(src, tmp_path / "out") == (0, "")
    [(_, root)] = figures((tmp_path / "out" / "index.html").read_text(encoding="utf-8"))
    assert cell_texts(root) == {(1, 1): "7"}


BAD = """\
Bad
===

.. attnviz::
   :q: 1,0; 0,1; 1,1
   :k: 1,0; 0,1; 1

.. attnviz::
   :qq: 1,0

.. attnviz::

   q = [[1, 0], [0, 1]]
   k = [[1, 2], [3, 4]]
   tokens = ["a", "b", "c"]

.. attnviz:: missing.toml
"""


def test_bad_options_fail_the_build_with_file_and_line(tmp_path):
    """The sphinx-build command itself: exit status 1, each error with its document and line."""
    write_project(tmp_path / "src", {"index": BAD})
    # --no-color: CI may set FORCE_COLOR, which makes Sphinx wrap each line in ANSI codes.
    run = subprocess.run([sys.executable, "-m", "sphinx", "--no-color", "-q", "-b", "html", str(tmp_path / "src"),
                          str(tmp_path / "out")], capture_output=True, text=True, timeout=120)
    assert run.returncode == 1
    index = tmp_path / "src" / "index.rst"
    lines = [line for line in run.stderr.splitlines() if "attnviz" in line]
    assert lines == [
        f"{index}:6: ERROR: attnviz: :k: vector 3 has 1 entries but vector 1 has 2; all vectors need the same length",
        f"{index}:9: ERROR: attnviz: unknown option ':qq:'; did you mean ':q:'?",
        f"{index}:15: ERROR: attnviz: tokens: 3 labels for 2 tokens; give one per token",
        f"{index}:17: ERROR: attnviz: missing.toml: cannot read: No such file or directory",
        "ERROR: attnviz: 4 figures could not be drawn (index.rst:6, index.rst:9, index.rst:15, index.rst:17); "
        "the build fails",
    ]
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize("body, line, message", [
    (".. attnviz::\n   :highlight: 4,4\n", 5, ":highlight: '4,4': row 4 is outside the grid (rows 1..3)"),
    (".. attnviz::\n   :title: ok\n   :q: 1,0\n", 6, ":q: gives the q vectors, so 'k' is needed too"),
    (".. attnviz::\n   :q-tokens: a b\n   :q_tokens: c d\n", 6, ":q_tokens: and :q-tokens: set the same key"),
    (".. attnviz::\n   :alt: bell \x07\n", 5, ":alt: control character U+0007"),
    (".. attnviz::\n\n   q = [[1, 0]]\n   k = [[1, 0]\n", 6, "invalid TOML: Unclosed array (at end of document)"),
    (".. attnviz::\n\n   q = [[1, 0]]\n   k = [[1, 0]\n   kk = 1\n", 8, "invalid TOML: Unclosed array (column 1)"),
    (".. attnviz::\n\n   q = [[1, 0]]\n   k = [[1, 0]]\n   kk = 2\n", 8, "unknown key 'kk'; did you mean 'k'?"),
    (".. attnviz::\n\n   q = [[1, 0]]\n   k = [[1, 0], [1]]\n", 7, "k: vector 2 has 1 entries"),
    (".. attnviz::\n\n   k = [[1, 0]]\n   q = [[1, 0]]\n   highlight = \"2,2\"\n", 8, "highlight '2,2': row 2"),
    (".. attnviz:: fig.toml\n\n   q = [[1, 0]]\n", 4, "give a spec file or a TOML body, not both"),
    (".. attnviz:: bad.toml\n", 4, "bad.toml: q: vector 1: 'one' is not a number"),
    (".. attnviz:: bad.toml\n   :q: 1,0\n", 5, ":q: and bad.toml: k: q vectors have 2 entries but k vectors have 1"),
])
def test_errors_are_located(tmp_path, body, line, message):
    write_project(tmp_path / "src", {"index": f"T\n=\n\n{body}"}, files={"bad.toml": 'q = [["one"]]\nk = [[1]]\n'})
    code, warnings = build(tmp_path / "src", tmp_path / "out")
    assert code == 1
    first = warnings.splitlines()[0]
    assert first.startswith(f"{tmp_path / 'src' / 'index.rst'}:{line}: ERROR: attnviz: {message}")


def test_an_unchanged_failing_document_keeps_failing(tmp_path):
    write_project(tmp_path / "src", {"index": "T\n=\n\n.. attnviz::\n   :highlight: 9,9\n"})
    assert build(tmp_path / "src", tmp_path / "out")[0] == 1
    code, warnings = build(tmp_path / "src", tmp_path / "out")  # nothing re-read
    assert code == 1
    assert "attnviz: 1 figure could not be drawn (index.rst:5); the build fails" in warnings


def test_every_spec_key_is_an_option(tmp_path, monkeypatch):
    """Options come from spec.KEYS at build time: a key added there is an option, read by its own check."""
    from attnviz.io import spec

    def check(value, where):
        raise spec.InputError(f"the test key's check got {value!r}", where)

    monkeypatch.setitem(spec.KEYS, "test_only_key", spec.Key("a test key", check, "test_only_key = 1"))
    write_project(tmp_path / "src", {"index": "T\n=\n\n.. attnviz::\n   :q: 1\n   :test-only-key: [1, 2]\n"})
    code, warnings = build(tmp_path / "src", tmp_path / "out")
    assert code == 1
    assert warnings.splitlines()[0].endswith(
        "index.rst:6: ERROR: attnviz: :test-only-key: the test key's check got [1, 2]")


def test_other_builders_get_image_files(tmp_path):
    write_project(tmp_path / "src", {"index": ISSUE_EXAMPLE + "\n.. attnviz::\n   :name: seed\n"})
    assert build(tmp_path / "src", tmp_path / "latex", builder="latex") == (0, "")
    tex = next((tmp_path / "latex").glob("*.tex")).read_text(encoding="utf-8")
    assert re.findall(r"\\sphinxincludegraphics\{\{(_images/[\w-]+)\}\.pdf\}", tex) == [
        "_images/attnviz-index-1", "_images/attnviz-index-2"]
    assert "\\caption{The exact register.}" in tex
    pdf = (tmp_path / "latex" / "_images" / "attnviz-index-1.pdf").read_bytes()
    assert pdf.startswith(b"%PDF")
    assert b"/Title (" in pdf and b"/CreationDate" not in pdf  # the same PDF writer as Figure.pdf()

    assert build(tmp_path / "src", tmp_path / "text", builder="text") == (0, "")
    text = (tmp_path / "text" / "index.txt").read_text(encoding="utf-8")
    assert "[image: Causal attention scores for three tokens]" in text
    assert "[image: Attention honesty boundary. Exact score and mask structure" in text
    svg = (tmp_path / "text" / "_images" / "attnviz-index-1.svg").read_text(encoding="utf-8")
    assert cell_texts(svg_root(svg))[(3, 3)] == "2"


def test_importing_attnviz_does_not_import_sphinx_or_markdown():
    code = "import sys, attnviz, attnviz.integrations.settings; " \
           "print(sorted(m for m in ('sphinx', 'docutils', 'markdown', " \
           "'mkdocs', 'pymdownx') if m in sys.modules))"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.stdout.strip() == "[]"


# The attnviz-page directive: a whole document spec inside a Sphinx page.

def page_box(html):
    """The attnviz-page container's HTML (it holds no nested <div class="attnviz-page">)."""
    start = html.index('<div class="attnviz-page')
    return html[start:html.index("<footer", start) if "<footer" in html[start:] else None]


def test_the_page_directive_shows_the_seed_document_word_for_word(tmp_path):
    from pagetext import body_text, computed, inline_figures, squeeze

    from conftest import DATA

    write_project(tmp_path / "src", {"index": "Seed\n====\n\n.. attnviz-page::\n\nAfter.\n"})
    assert build(tmp_path / "src", tmp_path / "out", "-W") == (0, "")
    html = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    box = page_box(html).split("<p>After.</p>")[0]
    seed = (DATA / "seed-page.txt").read_text(encoding="utf-8")
    assert squeeze(body_text(f"<body>{box}</body>")) == squeeze(seed)
    figures = inline_figures(box)
    assert [root.get("id") for root in figures] == ["attnviz-index-1", "attnviz-index-2", "attnviz-index-3"]
    assert [computed(root) for root in figures] == [({(3, 3): "2"}, []), ({}, [1, 2, 3]), ({}, [])]
    assert box.count('<div class="attnviz-formula" tabindex="0"><math') == 3
    assert '<annotation encoding="application/x-tex">S_{3,3}=2</annotation>' in box


def test_the_page_directive_reads_a_document_file_and_locates_its_errors(tmp_path):
    document = ('heading = "Two steps"\n[figure]\nq = [[1, 0], [0, 1]]\nk = [[1, 0], [0, 1]]\n'
                '[[sections]]\nheading = "First"\nhighlight = [2, 2]\n'
                '[[sections]]\nheading = "Second"\nformula = "x^2"\nhighlight = "softmax"\n')
    write_project(tmp_path / "src", {"index": "T\n=\n\n.. attnviz-page:: doc.toml\n\n.. attnviz::\n"},
                  files={"doc.toml": document})
    assert build(tmp_path / "src", tmp_path / "out", "-W") == (0, "")
    from pagetext import computed, inline_figures

    html = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    figures = inline_figures(html)
    assert [root.get("id") for root in figures] == [f"attnviz-index-{n}" for n in (1, 2, 3)]
    assert [computed(root) for root in figures[:2]] == [({(2, 2): "1"}, []), ({}, [1, 2])]

    (tmp_path / "src" / "doc.toml").write_text(document.replace("[2, 2]", "[3, 3]"), encoding="utf-8")
    code, warnings = build(tmp_path / "src", tmp_path / "out")
    assert code == 1
    assert warnings.splitlines()[0].endswith(
        "index.rst:4: ERROR: attnviz: doc.toml: section 1: highlight (3, 3): row 3 is outside the grid (rows 1..2)")


def test_the_page_directive_in_latex_gets_math_and_images(tmp_path):
    write_project(tmp_path / "src", {"index": "Seed\n====\n\n.. attnviz-page::\n"})
    assert build(tmp_path / "src", tmp_path / "latex", builder="latex") == (0, "")
    tex = next((tmp_path / "latex").glob("*.tex")).read_text(encoding="utf-8")
    assert "S_{3,3}=2" in tex and tex.count("\\begin{equation*}") == 3
    assert tex.count("\\sphinxincludegraphics") == 3


def test_conf_py_defaults_apply_to_every_figure_and_figures_override_them(tmp_path):
    conf = CONF + 'attnviz_defaults = {"mask": "none", "title": "Site-wide"}\n'
    write_project(tmp_path / "src", {"index": "T\n=\n\n.. attnviz::\n\n.. attnviz::\n   :mask: causal\n"}, conf=conf)
    assert build(tmp_path / "src", tmp_path / "out", "-W") == (0, "")
    (_, bidirectional), (_, causal) = figures((tmp_path / "out" / "index.html").read_text(encoding="utf-8"))
    assert cell_texts(bidirectional)[(1, 3)] == "1" and cell_texts(causal)[(1, 3)] == "masked"
    assert [root.find(f"{SVG_NS}title").text for root in (bidirectional, causal)] == ["Site-wide"] * 2


def test_bad_conf_py_defaults_fail_the_build(tmp_path):
    write_project(tmp_path / "src", {"index": "T\n=\n\n.. attnviz::\n"}, conf=CONF + 'attnviz_defaults = {"kk": 1}\n')
    code, warnings = build(tmp_path / "src", tmp_path / "out")
    assert code == 1
    assert "ERROR: attnviz: conf.py: attnviz_defaults: unknown key 'kk'; did you mean 'k'?" in warnings


def test_an_alt_over_several_lines_is_one_line_of_text(tmp_path):
    page = "T\n=\n\n.. attnviz::\n   :alt: The seed figure,\n         on two lines.\n"
    write_project(tmp_path / "src", {"index": page})
    assert build(tmp_path / "src", tmp_path / "out", "-W") == (0, "")
    html = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert 'aria-label="The seed figure, on two lines."' in html
