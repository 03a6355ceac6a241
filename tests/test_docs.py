"""attnviz's own docs: built with Sphinx and its own directive, warnings treated as errors."""

import re
from pathlib import Path

import pytest
from sphinx.cmd.build import build_main

from attnviz.io import spec
from conftest import element_text, svg_root

DOCS = Path(__file__).parent.parent / "docs"
PAGES = sorted(path.stem for path in DOCS.glob("*.rst"))  # every page, the slides page included


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("docs")
    warnings = out / "warnings.txt"
    code = build_main(["-q", "-W", "--keep-going", "-b", "html", "-d", str(out / "doctrees"), "-w", str(warnings),
                       str(DOCS), str(out / "html")])
    assert (code, warnings.read_text(encoding="utf-8")) == (0, "")
    return out / "html"


def page(site, name):
    return (site / f"{name}.html").read_text(encoding="utf-8")


def svgs(html):
    """One SVG a figure: a figure drawn again for narrower widths (`attnviz-widths`, its other drawings in boxes
    classed `...-at-1`, `-at-2`: shown only at their widths, out of the accessibility tree elsewhere) counts once."""
    found = re.findall(r'<div class="attnviz-figure([^"]*)"[^>]*>(<svg .*?</svg>)', html, flags=re.S)
    return [svg_root(svg) for classes, svg in found if not re.search(r"-at-[1-9]\d*\b", classes)]


def test_every_page_builds_and_has_its_figures(site):
    counts = {name: len(svgs(page(site, name))) for name in PAGES}
    assert counts["index"] == 1 and counts["tutorial"] == 8 and counts["gallery"] >= 12
    assert counts["anatomy"] == 2 and counts["comparison"] == 1


def test_every_page_is_in_the_navigation(site):
    index = (DOCS / "index.rst").read_text(encoding="utf-8")
    captions = re.findall(r"^   :caption: (.+)", index.split(".. toctree::", 1)[1], flags=re.M)
    assert captions == ["Tutorial", "How-to", "Reference", "Gallery", "API"]
    listed = set(re.findall(r"^   ([a-z][\w-]*)$", index, flags=re.M))
    assert sorted(set(PAGES) - {"index"} - listed) == []


def accessible_name(root):
    """What a screen reader announces for an inline figure: its aria-label, else its <title> and <desc>."""
    if root.get("aria-label"):
        return root.get("aria-label")
    svg = "{http://www.w3.org/2000/svg}"
    return " ".join(filter(None, (root.findtext(f"{svg}title"), root.findtext(f"{svg}desc"))))


def test_accessible_names_are_unique_on_every_page(site):
    for name in PAGES:
        names = [accessible_name(root) for root in svgs(page(site, name))]
        assert len(names) == len(set(names)), (name, [n for n in names if names.count(n) > 1])


def test_the_install_page_and_quick_start_need_no_checkout(site):
    quick = (DOCS / "quickstart.rst").read_text(encoding="utf-8")
    assert "pip install -e" not in quick and "pip install attnviz" in quick
    install = page(site, "install")
    for extra in ("png", "slides", "sphinx", "mkdocs", "torch", "models", "all"):
        assert f'<span class="pre">{extra}</span>' in install
    assert "libcairo2" in install


def test_ids_are_unique_on_every_page(site):
    for name in PAGES:
        ids = re.findall(r' id="([^"]+)"', page(site, name))
        assert len(ids) == len(set(ids)), name


def test_the_site_works_offline(site):
    """No script, stylesheet or font is fetched from elsewhere (no MathJax from a CDN either)."""
    for name in PAGES:
        html = page(site, name)
        assert not re.findall(r'<(?:script|link|img)[^>]+(?:src|href)="(?:https?:)?//', html), name


def test_the_gallery_shows_every_figure_key(site):
    """Each key is an option of some gallery example (a new key needs an example in gallery.rst)."""
    html = page(site, "gallery")
    missing = [key for key in spec.KEYS if f'<span class="nc">:{key.replace("_", "-")}:</span>' not in html]
    assert missing == [], "add a gallery example for each new figure key"


def test_the_gallery_draws_every_entry_of_attnviz_gallery(site):
    from attnviz.publish.gallery import ENTRIES

    roots = svgs(page(site, "gallery"))
    titles = [root.find("{http://www.w3.org/2000/svg}title").text for root in roots]
    assert all(entry.title in titles for entry in ENTRIES)


def test_the_reference_lists_every_key_and_command(site):
    html = page(site, "reference")
    for key in spec.KEYS:
        assert f"<code class=\"docutils literal notranslate\"><span class=\"pre\">{key}</span></code>" in html
    assert "$ attnviz render --help" in html


def test_the_tutorial_figure_is_the_seed_figure(site, seed_line):
    """The seed's numbers written out: the seed's figure, titled from what it shows."""
    first = svgs(page(site, "tutorial"))[0]
    assert element_text(first) == seed_line.replace("Attention honesty boundary", "Causal attention, 3 tokens")
