"""The docs plugins keep drawn figures: an unchanged figure is read back on rebuild, in parallel builds too.

Real `sphinx-build` and `mkdocs build` runs; each reports how many figures it drew and read back.
"""

import re
import subprocess
import sys

from attnviz.integrations.docs_cache import FigureCache, figure_key
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


def sphinx(src, out, *args):
    """(status, the build's 'attnviz: N figures drawn, M read from the cache' counts, its warnings)."""
    done = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", *args, str(src), str(out)],
                          capture_output=True, text=True, timeout=300)
    counts = re.findall(r"attnviz: (\d+) figures drawn, (\d+) read from the cache", done.stdout)
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
        return re.findall(r"attnviz: (\d+) figures drawn, (\d+) read from the cache", done.stderr)[-1], \
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
