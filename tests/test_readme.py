"""The README is a front door: short, its links and anchors resolve, its five first figures work as written,
and the reference it used to hold (every flag and spec key) lives in the docs."""

import re
import subprocess
import sys
import textwrap
from pathlib import Path

from sphinx.cmd.build import build_main

from attnviz.cli.commands import build_parser
from attnviz.io.spec import KEYS

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = ROOT / "docs"
REFERENCE = "\n".join(page.read_text(encoding="utf-8") for page in sorted(DOCS.glob("*.rst")))


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def section(name):
    return README.split(f"### {name}", 1)[1].split("\n### ", 1)[0].split("\n## ", 1)[0]


def blocks(text, language):
    return re.findall(rf"^(`{{3,4}}){language}[^\n]*\n(.*?)^\1$", text, flags=re.S | re.M)


def test_the_readme_is_short():
    assert len(README.splitlines()) < 300


def test_every_intra_readme_anchor_resolves():
    anchors = {slug(h) for h in re.findall(r"^#{1,6} (.+)$", README, flags=re.M)}
    links = re.findall(r"\]\(#([^)]+)\)", README)
    assert links and [link for link in links if link not in anchors] == []


def test_every_relative_link_and_picture_exists():
    targets = [t for t in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README) if not t.startswith("http")]
    assert targets and [t for t in targets if not (ROOT / t).exists()] == []


def test_the_readme_links_every_docs_page():
    pages = {p.name for p in DOCS.glob("*.rst")} - {"index.rst"}
    assert [page for page in sorted(pages) if f"docs/{page}" not in README] == []


def test_every_spec_key_is_documented():
    missing = [key for key in KEYS if f"``{key}``" not in REFERENCE]
    assert missing == []


def test_every_render_flag_is_documented():
    render = build_parser()._subparsers._group_actions[0].choices["render"]
    flags = [opt for action in render._actions for opt in action.option_strings if opt.startswith("--")]
    missing = [flag for flag in flags if flag not in REFERENCE]
    assert missing == []


# Each section of the README before issue 25, and the docs page it moved to (nothing lost).
MOVED = {
    "Two commands": "install", "Command line": "command-line", "Figure specs": "command-line",
    "Views and panels": "views-and-panels", "Pages and slides: ``attnviz page``": "pages-and-walkthroughs",
    "Walkthroughs: ``attnviz walkthrough``": "pages-and-walkthroughs",
    "KV-cache decoding, step by step: ``--decode P``": "pages-and-walkthroughs",
    "FlashAttention, tile by tile: ``--flash Br,Bc``": "pages-and-walkthroughs",
    "Slides: ``attnviz slides``": "slide-formats", "Masks, scores and captions": "masks-and-scores",
    "Masks (``--mask``, ``mask``)": "masks-and-scores",
    "Scores: scaling and biases (``--scale``, ``--bias``, ``--show``)": "masks-and-scores",
    "Caption forms (``--softmax``) and decimal weights (``--weights``)": "masks-and-scores",
    "Value vectors (``--v``)": "masks-and-scores",
    "Heads: multi-head, grouped-query and multi-query attention": "masks-and-scores",
    "Gallery: every figure with its command": "gallery-commands",
    "In your docs: Sphinx and MkDocs": "embedding-summary", "Python API": "python-api",
    "SVG anatomy: styling hooks": "styling", "Themes and CSS custom properties": "styling", "Fonts": "styling",
    "Accessibility": "styling", "Layout": "project", "Versions and what counts as breaking": "project",
    "Benchmarks": "project", "Why not svgwrite": "project",
}


def test_every_former_readme_section_is_a_docs_heading():
    missing = []
    for heading, page in MOVED.items():
        text = (DOCS / f"{page}.rst").read_text(encoding="utf-8")
        if not re.search(rf"^{re.escape(heading)}\n[=\-~^]{{3,}}$", text, flags=re.M):
            missing.append((heading, page))
    assert missing == []


def test_the_readmes_sphinx_figure_builds(tmp_path):
    (conf,), (page,) = blocks(section("4. A figure in Sphinx"), "python"), blocks(section("4. A figure in Sphinx"),
                                                                                  "rst")
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(conf[1], encoding="utf-8")
    (src / "index.rst").write_text("Home\n====\n\n" + page[1], encoding="utf-8")
    warnings = tmp_path / "warnings.txt"
    code = build_main(["-q", "-W", "-b", "html", "-w", str(warnings), str(src), str(tmp_path / "html")])
    assert (code, warnings.read_text(encoding="utf-8")) == (0, "")
    html = (tmp_path / "html" / "index.html").read_text(encoding="utf-8")
    assert html.count("<svg ") == 1 and "The exact register." in html and ">&lt;s&gt;</text>" in html


def test_the_readmes_mkdocs_figure_builds(tmp_path):
    text = section("5. A figure in MkDocs")
    (config,), (outer,) = blocks(text, "yaml"), blocks(text, "markdown")
    (tmp_path / "mkdocs.yml").write_text("site_name: Test\n" + config[1], encoding="utf-8")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n\n" + textwrap.dedent(outer[1]), encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    html = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert html.count("<svg ") == 1 and "<figcaption>The exact register.</figcaption>" in html
    assert 'aria-label="Causal attention scores for three tokens"' in html
