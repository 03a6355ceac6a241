"""The docs plugins keep drawn figures: an unchanged figure is read back on rebuild, in parallel builds too.

Real `sphinx-build` and `mkdocs build` runs; each reports how many figures it drew and read back.
"""

import json
import re
import subprocess
import sys

import pytest

from attnviz.integrations.docs_cache import FigureCache, cache_secret, entry_digest, figure_key
from attnviz.integrations.settings import Setting
from test_mkdocs import site
from test_sphinx import CONF, write_project

PAGES = {  # 3 pages, 6 figures: two from flags, one from a TOML body each
    "index": "Home\n====\n\n.. attnviz::\n\n.. attnviz::\n   :q: 1,2; 0,1\n   :k: 1,2; 0,1\n",
    "masks": "Masks\n=====\n\n.. attnviz::\n   :q: 1,0; 0,1; 1,1\n   :k: 1,0; 0,1; 1,1\n   :mask: window=2\n\n"
             ".. attnviz::\n\n   q = \"1,1; 0,1\"\n   k = \"1,1; 0,1\"\n   theme = \"dark\"\n",
    "tokens": "Tokens\n======\n\n.. attnviz::\n   :q: 1,0; 0,1\n   :k: 1,0; 0,1\n   :tokens: <s> cat\n\n"
              ".. attnviz::\n   :q: 2,0; 0,1\n   :k: 1,0; 0,1\n   :softmax: normalizer\n",
}


@pytest.fixture(autouse=True)
def own_key(tmp_path, monkeypatch):
    """Each test's docs caches are keyed from a user cache folder of its own (builds inherit the variable)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    return tmp_path / "user-cache" / "attnviz-docs-cache.key"


def sphinx(src, out, *args):
    """(status, the build's 'attnviz: N figures drawn, M read from the cache' counts, its warnings)."""
    done = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", *args, str(src), str(out)],
                          capture_output=True, text=True, timeout=300)
    counts = re.findall(r"attnviz: (\d+) figures? drawn, (\d+) read from the cache", done.stdout)
    return done.returncode, tuple(map(int, counts[-1])) if counts else (0, 0), done.stderr


def pages(out):
    return {name: (out / f"{name}.html").read_text(encoding="utf-8") for name in PAGES}


def test_a_rebuild_draws_only_what_changed(tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    write_project(src, PAGES)
    assert sphinx(src, out)[:2] == (0, (6, 0))
    first = pages(out)
    assert sphinx(src, out, "-E")[:2] == (0, (0, 6))  # every page read again, no figure drawn
    assert pages(out) == first
    (src / "tokens.rst").write_text(PAGES["tokens"].replace(":q: 2,0; 0,1", ":q: 3,0; 0,1"), encoding="utf-8")
    assert sphinx(src, out)[:2] == (0, (1, 1))  # the changed page's other figure is read back
    assert "row 1: scores [3]" in pages(out)["tokens"]


def test_parallel_builds_write_the_same_pages(tmp_path):
    src = tmp_path / "src"
    write_project(src, PAGES)
    assert sphinx(src, tmp_path / "serial", "-j", "1")[:2] == (0, (6, 0))
    code, counts, warnings = sphinx(src, tmp_path / "parallel", "-j", "auto")
    assert (code, counts) == (0, (6, 0)), warnings  # each build keeps its own cache, beside its doctrees
    assert "parallel" not in warnings
    assert pages(tmp_path / "parallel") == pages(tmp_path / "serial")
    assert sphinx(src, tmp_path / "parallel", "-E", "-j", "2")[:2] == (0, (0, 6))


def test_the_cache_can_be_turned_off(tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    write_project(src, PAGES, conf=CONF + "attnviz_cache = False\n")
    assert sphinx(src, out)[:2] == (0, (6, 0))
    assert sphinx(src, out, "-E")[:2] == (0, (6, 0))


def test_mkdocs_reads_unchanged_figures_back(tmp_path):
    config = "site_name: Test\nplugins:\n  - attnviz\n"
    site(tmp_path, config, {"index.md": "# Home\n\n```attnviz\n```\n\n```attnviz\nq = \"1,2; 0,1\"\n"
                                        "k = \"1,2; 0,1\"\n```\n"})

    def build():
        done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict"], cwd=tmp_path,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        html = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
        return re.findall(r"attnviz: (\d+) figures? drawn, (\d+) read from the cache", done.stderr)[-1], \
            re.findall(r"<svg .*?</svg>", html, flags=re.S)  # the page itself carries its build date

    (drawn, first), (reread, again) = build(), build()
    assert (drawn, reread) == (("2", "0"), ("0", "2")) and len(first) == 2 and again == first
    assert len(list((tmp_path / ".cache" / "attnviz").glob("*.json"))) == 2


def test_the_key_covers_settings_and_id_prefix(tmp_path):
    one = {"q": Setting([["1", "0"]], "q"), "k": Setting([["1", "0"]], "k")}
    assert figure_key(one, "attnviz-a-1") == figure_key(dict(reversed(one.items())), "attnviz-a-1")
    assert figure_key(one, "attnviz-a-1") != figure_key(one, "attnviz-a-2")
    assert figure_key(one, "attnviz-a-1") != figure_key({**one, "theme": Setting("dark", "theme")}, "attnviz-a-1")
    cache = FigureCache(str(tmp_path))
    drawn, reused = cache.figure(one, id_prefix="attnviz-a-1")
    again, reused_again = cache.figure(one, id_prefix="attnviz-a-1")
    assert (reused, reused_again, again.svg, again.prefix) == (False, True, drawn.svg, "attnviz-a-1")
    (tmp_path / f"{figure_key(one, 'attnviz-a-1')}.json").write_text("{not json", encoding="utf-8")
    assert cache.figure(one, id_prefix="attnviz-a-1")[1] is False  # a damaged entry is drawn again


# Issue 24: a cache entry is untrusted data. Whatever is in it, the page gets attnviz's own figure.

INJECTED = "<img src=x onerror=alert(1)>"


def entries(folder):
    return sorted(folder.glob("*.json"))


def edit(path, change):
    """Rewrite the JSON entry at `path` with `change(entry)` applied."""
    entry = json.loads(path.read_text(encoding="utf-8"))
    change(entry)
    path.write_text(json.dumps(entry), encoding="utf-8")


TAMPERINGS = [  # one for each of the 6 figures in PAGES
    lambda path: edit(path, lambda entry: entry.update(svg=entry["svg"].replace("</svg>", INJECTED + "</svg>"))),
    lambda path: edit(path, lambda entry: entry.update(svg=INJECTED, alt=INJECTED)),
    lambda path: path.write_bytes(path.read_bytes()[:len(path.read_bytes()) // 2]),  # truncated
    lambda path: path.write_text("{not json", encoding="utf-8"),
    lambda path: edit(path, lambda entry: entry.update(svg=["<svg/>"])),  # a field's type changed
    lambda path: edit(path, lambda entry: entry.pop("alt")),  # a field missing
]


def test_sphinx_draws_tampered_entries_again(tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    write_project(src, PAGES)
    assert sphinx(src, out)[:2] == (0, (6, 0))
    first = pages(out)
    found = entries(out / ".doctrees" / "attnviz-figures")
    assert len(found) == 6
    for path, tamper in zip(found, TAMPERINGS, strict=True):
        tamper(path)
    code, counts, stderr = sphinx(src, out, "-E")
    assert code == 0 and "Traceback" not in stderr and "Exception" not in stderr, stderr
    assert not any("onerror" in page for page in pages(out).values())
    assert pages(out) == first  # attnviz's own figures, as the first build drew them
    assert counts == (6, 0)  # every entry was a miss
    assert sphinx(src, out, "-E")[:2] == (0, (0, 6))  # the figures drawn again were kept again


def test_sphinx_takes_no_path_from_an_entry(tmp_path):
    src, out = tmp_path / "src", tmp_path / "work" / "latex"
    write_project(src, {"index": PAGES["index"]})
    assert sphinx(src, out, "-b", "latex")[:2] == (0, (2, 0))
    images = sorted(path.name for path in (out / "_images").iterdir())
    assert images == ["attnviz-index-1.pdf", "attnviz-index-2.pdf"]
    for path in entries(out / ".doctrees" / "attnviz-figures"):
        edit(path, lambda entry: entry.update(prefix="../../outside"))  # the old format named its image file
    code, counts, stderr = sphinx(src, out, "-b", "latex", "-E")
    assert sorted(path.name for path in (tmp_path / "work").iterdir()) == ["latex"]  # nothing beside the output
    assert not list(tmp_path.glob("outside*"))
    assert sorted(path.name for path in (out / "_images").iterdir()) == images
    assert (code, counts) == (0, (2, 0)), stderr


def test_an_entry_is_good_only_under_its_own_key_and_secret(tmp_path):
    one = {"q": Setting([["1", "0"]], "q"), "k": Setting([["1", "0"]], "k")}
    two = {"q": Setting([["2", "0"]], "q"), "k": Setting([["1", "0"]], "k")}
    cache = FigureCache(str(tmp_path / "a"))
    drawn_one, drawn_two = cache.figure(one, id_prefix="p-1")[0], cache.figure(two, id_prefix="p-1")[0]
    assert "scores [2]" in drawn_two.svg and "scores [2]" not in drawn_one.svg
    entry_one = tmp_path / "a" / f"{figure_key(one, 'p-1')}.json"
    entry_two = tmp_path / "a" / f"{figure_key(two, 'p-1')}.json"
    entry_two.write_bytes(entry_one.read_bytes())  # a good entry, moved to another figure's name
    again, reused = cache.figure(two, id_prefix="p-1")
    assert (reused, again.svg) == (False, drawn_two.svg)
    other = FigureCache(str(tmp_path / "b"))  # another cache has another secret
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / entry_one.name).write_bytes(entry_one.read_bytes())
    assert other.figure(one, id_prefix="p-1")[1] is False
    assert cache.figure(one, id_prefix="p-1")[1] is True  # in its own cache it is still good
    secret = cache_secret(str(tmp_path / "a"))  # the user's key, for this folder (its own, not in the folder)
    assert len(secret) == 32 and secret != cache_secret(str(tmp_path / "b"))
    assert json.loads(entry_one.read_text(encoding="utf-8"))["digest"] == entry_digest(
        secret, figure_key(one, "p-1"), drawn_one.svg, drawn_one.alt)


def test_mkdocs_draws_tampered_entries_again(tmp_path):
    config = "site_name: Test\nplugins:\n  - attnviz\n"
    site(tmp_path, config, {"index.md": "# Home\n\n```attnviz\n```\n\n```attnviz\nq = \"1,2; 0,1\"\n"
                                        "k = \"1,2; 0,1\"\n```\n"})

    def build():
        done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict"], cwd=tmp_path,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        html = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
        counts = re.findall(r"attnviz: (\d+) figures? drawn, (\d+) read from the cache", done.stderr)[-1]
        return counts, html

    counts, html = build()
    first = re.findall(r"<svg .*?</svg>", html, flags=re.S)
    assert counts == ("2", "0") and len(first) == 2
    found = entries(tmp_path / ".cache" / "attnviz")
    TAMPERINGS[0](found[0])
    edit(found[1], lambda entry: entry.update(svg=7))  # an SVG that is not text: today a silent code block
    counts, html = build()
    assert "onerror" not in html and "<code" not in html  # no injected markup, no block shown as code
    assert re.findall(r"<svg .*?</svg>", html, flags=re.S) == first
    assert counts == ("2", "0")
    assert build()[0] == ("0", "2")
    for path in found:
        path.write_text("[[" * 100_000, encoding="utf-8")  # nested past any recursion limit
    counts, html = build()
    assert counts == ("2", "0") and re.findall(r"<svg .*?</svg>", html, flags=re.S) == first
