"""The ```attnviz fence: real `mkdocs build`s with the plugin, and Python-Markdown with superfences."""

import re
import subprocess
import sys
import textwrap

import markdown
import pytest

from attnviz.integrations.markdown import FENCE, FenceError, FenceInternalError, _block_line
from conftest import SVG_NS
from pagetext import cell_texts
from pagetext import docs_figures as figures

ISSUE_EXAMPLE = """\
```attnviz
q = [[1,0],[0,1],[1,1]]
k = [[1,0],[0,1],[1,1]]
highlight = [[3,3]]
```
"""


def site(root, config, pages):
    root.mkdir(parents=True, exist_ok=True)
    (root / "mkdocs.yml").write_text(textwrap.dedent(config), encoding="utf-8")
    for name, text in pages.items():
        path = root / "docs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


def mkdocs_build(root):
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q"], cwd=root,
                          capture_output=True, text=True, timeout=120)


PLUGIN = """\
site_name: Test
plugins:
  - attnviz
markdown_extensions:
  - admonition
"""


def test_the_plugin_renders_fences_in_pages(tmp_path):
    site(tmp_path, PLUGIN, {
        "index.md": "---\ntitle: Home\n---\n# Home\n\n" + ISSUE_EXAMPLE + textwrap.dedent("""
            ```attnviz alt="The seed figure"
            ```

            - in a list:

                ```attnviz
                q = [[1,0],[0,1]]
                k = [[2,0],[0,1]]
                ```

            !!! note
                ```attnviz
                q = [[1,0]]
                k = [[3,0]]
                ```
            """),
        "guide/steps.md": "# Steps\n\n" + ISSUE_EXAMPLE,
    })
    run = mkdocs_build(tmp_path)
    assert run.returncode == 0, run.stderr
    html = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    found = figures(html)
    assert [root.get("id") for _, root in found] == [f"attnviz-index-{n}" for n in (1, 2, 3, 4)]
    first, seed, in_list, in_note = (root for _, root in found)
    assert cell_texts(first) == {(1, 1): "1", (1, 2): "masked", (1, 3): "masked",
                                 (2, 1): "0", (2, 2): "1", (2, 3): "masked",
                                 (3, 1): "1", (3, 2): "1", (3, 3): "2"}
    assert [g.get("data-q") + g.get("data-k") for g in first.iter(f"{SVG_NS}g")
            if "attnviz-computed" in g.get("class", "").split()] == ["33"]
    assert seed.get("aria-label") == "The seed figure"
    assert cell_texts(in_list) == {(1, 1): "2", (1, 2): "masked", (2, 1): "0", (2, 2): "1"}
    assert cell_texts(in_note) == {(1, 1): "3"}
    assert "<pre" not in html.split("<h1", 1)[1].split("</article>")[0]  # no fence left as code
    # attnviz.css, the figures' colours as custom properties, is linked and written.
    from attnviz.render.themes import host_stylesheet

    assert re.search(r'<link[^>]*href="assets/attnviz\.css"', html)
    assert (tmp_path / "site" / "assets" / "attnviz.css").read_text(encoding="utf-8") == host_stylesheet()
    guide = (tmp_path / "site" / "guide" / "steps" / "index.html").read_text(encoding="utf-8")
    [(_, root)] = figures(guide)
    assert root.get("id").startswith("attnviz-guide-steps-") and root.get("id").endswith("-1")

    again = mkdocs_build(tmp_path)  # the same figures, byte for byte
    assert again.returncode == 0
    assert figures((tmp_path / "site" / "index.html").read_text(encoding="utf-8")) and \
        re.findall(r"<svg .*?</svg>", html, flags=re.S) == re.findall(
            r"<svg .*?</svg>", (tmp_path / "site" / "index.html").read_text(encoding="utf-8"), flags=re.S)


def test_a_bad_block_stops_the_build_naming_page_line_and_block(tmp_path):
    site(tmp_path, PLUGIN, {
        "index.md": "# Home\n",
        "guide/bad.md": "---\ntitle: Bad\n---\n# Bad\n\n" + ISSUE_EXAMPLE + textwrap.dedent("""
            ```attnviz
            q = [[1,0],[0,1],[1,1]]
            k = [[1,0],[0,1],[1]]
            ```
            """),
    })
    run = mkdocs_build(tmp_path)
    assert run.returncode == 1
    assert "guide/bad.md:14: attnviz block 2: k: vector 3 has 1 entries but vector 1 has 2; " \
           "all vectors need the same length" in run.stderr
    assert "Traceback" not in run.stderr


BROKEN_HOOK = """\
import attnviz


def broken(self, id_prefix=None):
    raise RuntimeError("boom")


attnviz.Figure.svg = broken  # attnviz fails on every figure: a bug, not the page's fault
"""


@pytest.mark.parametrize("config", [PLUGIN, """\
    site_name: Test
    markdown_extensions:
      - pymdownx.superfences:
          custom_fences:
            - name: attnviz
              class: attnviz
              format: !!python/name:attnviz.integrations.markdown.fence_format
    """])
def test_a_failure_of_attnviz_fails_the_build_rather_than_showing_a_code_block(tmp_path, config):
    site(tmp_path, textwrap.dedent(config) + "hooks:\n  - broken.py\n", {"index.md": "# Home\n\n" + ISSUE_EXAMPLE})
    (tmp_path / "broken.py").write_text(BROKEN_HOOK, encoding="utf-8")
    run = mkdocs_build(tmp_path)
    assert run.returncode == 1
    assert "RuntimeError: boom" in run.stderr and "Traceback" in run.stderr  # a bug shows where it happened
    assert "attnviz block 1: internal error: RuntimeError: boom; please report this bug" in run.stderr
    assert not (tmp_path / "site" / "index.html").exists()


def test_the_plugin_keeps_custom_fences_already_configured(tmp_path):
    site(tmp_path, """\
        site_name: Test
        plugins:
          - attnviz
        markdown_extensions:
          - pymdownx.superfences:
              custom_fences:
                - name: mermaid
                  class: mermaid
                  format: !!python/name:pymdownx.superfences.fence_code_format
        """, {"index.md": "# Home\n\n```mermaid\ngraph LR; A-->B\n```\n\n" + ISSUE_EXAMPLE})
    run = mkdocs_build(tmp_path)
    assert run.returncode == 0, run.stderr
    html = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert '<pre class="mermaid"><code>graph LR; A--&gt;B</code></pre>' in html
    assert len(figures(html)) == 1


def test_superfences_configured_by_hand_without_the_plugin(tmp_path):
    site(tmp_path, """\
        site_name: Test
        markdown_extensions:
          - pymdownx.superfences:
              custom_fences:
                - name: attnviz
                  class: attnviz
                  format: !!python/name:attnviz.integrations.markdown.fence_format
                  validator: !!python/name:attnviz.integrations.markdown.fence_validator
        """, {"index.md": "# Home\n\n" + ISSUE_EXAMPLE + ISSUE_EXAMPLE})
    run = mkdocs_build(tmp_path)
    assert run.returncode == 0, run.stderr
    html = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert [root.get("id") for _, root in figures(html)] == ["attnviz-md-1", "attnviz-md-2"]


def convert(text):
    return markdown.markdown(textwrap.dedent(text), extensions=["pymdownx.superfences"],
                             extension_configs={"pymdownx.superfences": {"custom_fences": [FENCE]}})


def test_python_markdown_with_the_fence():
    html = convert(ISSUE_EXAMPLE + '\n```attnviz alt="Two & more <tokens>"\nq = "1,0"\nk = "2,0"\n```\n')
    (_, first), (wrapper, second) = figures(html)
    assert cell_texts(first)[(3, 3)] == "2"
    assert second.get("aria-label") == "Two & more <tokens>" and cell_texts(second) == {(1, 1): "2"}
    assert 'aria-label="Two &amp; more &lt;tokens&gt;"' in html


@pytest.mark.parametrize("text, message", [
    ("```attnviz\nq = [[1,0]]\nkk = [[1,0]]\n```\n", "attnviz block 1: line 2: unknown key 'kk'; did you mean 'k'?"),
    ("```attnviz\nq = [[1,0]]\n```\n", "attnviz block 1: line 1: q gives the q vectors, so 'k' is needed too"),
    ("```attnviz\n```\n\n```attnviz\nq = [[1,0]\n```\n",
     "attnviz block 2: line 1: invalid TOML: Unclosed array (at end of document)"),
    ('```attnviz size="3"\n```\n', "attnviz block 1: unknown fence option 'size'"),
])
def test_errors_name_the_block(text, message):
    with pytest.raises(FenceError) as caught:
        convert(text)
    assert str(caught.value).startswith(message)


def test_a_failure_of_attnviz_is_not_a_silent_code_block(monkeypatch):
    import attnviz

    def broken(self, id_prefix=None):
        raise RuntimeError("boom")

    monkeypatch.setattr(attnviz.Figure, "svg", broken)
    with pytest.raises(FenceInternalError) as caught:
        convert(ISSUE_EXAMPLE)
    assert str(caught.value) == "attnviz block 1: internal error: RuntimeError: boom; please report this bug"
    assert not isinstance(caught.value, FenceError) and isinstance(caught.value.__cause__, RuntimeError)


def test_a_failure_with_no_message_is_still_said(monkeypatch):
    import attnviz

    def broken(self, id_prefix=None):
        raise IndexError()

    monkeypatch.setattr(attnviz.Figure, "svg", broken)
    with pytest.raises(FenceInternalError) as caught:
        convert(ISSUE_EXAMPLE)
    said = str(caught.value)
    assert re.fullmatch(r"attnviz block 1: internal error: IndexError \(no message; raised at "
                        r"tests/test_mkdocs\.py:\d+\); please report this bug", said), said


def test_block_lines_are_found_by_number_and_checked_by_body():
    page = "# T\n\n```attnviz\nq = 1\n```\n\n    ```attnviz\n    k = 2\n    ```\n"
    assert _block_line(page, "q = 1", 1) == 4
    assert _block_line(page, "k = 2", 2) == 8
    assert _block_line(page, "k = 3", 2) is None  # not the block we think: no line rather than a wrong one
    assert _block_line(None, "q = 1", 1) is None


def test_plugin_defaults_apply_to_every_block(tmp_path):
    site(tmp_path, """\
        site_name: Test
        plugins:
          - attnviz:
              defaults:
                mask: none
                title: Site-wide
        """, {"index.md": "# Home\n\n" + ISSUE_EXAMPLE + '\n```attnviz\nmask = "causal"\n```\n'})
    run = mkdocs_build(tmp_path)
    assert run.returncode == 0, run.stderr
    (_, bidirectional), (_, causal) = figures((tmp_path / "site" / "index.html").read_text(encoding="utf-8"))
    assert cell_texts(bidirectional)[(1, 3)] == "1" and cell_texts(causal)[(1, 3)] == "masked"
    assert [root.find(f"{SVG_NS}title").text for root in (bidirectional, causal)] == ["Site-wide"] * 2


def test_bad_plugin_defaults_stop_the_build(tmp_path):
    site(tmp_path, "site_name: Test\nplugins:\n  - attnviz:\n      defaults: {kk: 1}\n", {"index.md": "# Home\n"})
    run = mkdocs_build(tmp_path)
    assert run.returncode == 1
    assert "mkdocs.yml: attnviz: defaults: unknown key 'kk'; did you mean 'k'?" in run.stderr


def test_fence_options_match_the_sphinx_directive():
    """caption, title, alt, frame, theme and every spec key in the header; they override the body's keys."""
    html = convert('```attnviz caption="The exact <register>." title="Mine" theme="dark" q_tokens="a b c" '
                   'k_tokens="x y z" highlight="3,3" alt="Three tokens"\n'
                   'q = [[1,0],[0,1],[1,1]]\nk = [[1,0],[0,1],[1,1]]\ntitle = "Overridden"\n```\n\n'
                   '```attnviz view="mask" n="8" mask="window=3" frame="slide" elide\n```\n')
    (_, first), (_, second) = figures(html)
    assert '<figure class="attnviz"><div class="attnviz-figure">' in html
    assert "<figcaption>The exact &lt;register&gt;.</figcaption></figure>" in html
    assert first.find(f"{SVG_NS}title").text == "Mine" and first.get("data-attnviz-theme") == "dark"
    assert first.get("aria-label") == "Three tokens"
    assert cell_texts(first)[(3, 3)] == "2" and "Q(c)" in "".join(first.itertext())
    assert second.find(f"{SVG_NS}g[@class='attnviz-map']") is not None


@pytest.mark.parametrize("header, message", [
    ('captoin="x"', "attnviz block 1: unknown fence option 'captoin'; did you mean 'caption'?"),
    ('frame="poster"', "attnviz block 1: line 1: fence option frame: unknown frame 'poster'"),
])
def test_bad_fence_options_name_the_block(header, message):
    with pytest.raises(FenceError) as caught:
        convert(f"```attnviz {header}\n```\n")
    assert str(caught.value).startswith(message)


def test_a_bad_fence_option_names_the_page_and_line(tmp_path):
    site(tmp_path, PLUGIN, {"index.md": "# Home\n\ntext\n\n```attnviz theme=\"sepia\"\n```\n"})
    run = mkdocs_build(tmp_path)
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert "index.md:5: attnviz block 1: fence option theme: unknown theme 'sepia'" in run.stderr


HIDE_PYMDOWNX = """\
import importlib.abc, sys


class Hide(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "pymdownx" or name.startswith("pymdownx."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, Hide())
"""


def test_without_pymdown_extensions_the_build_fails_in_one_line(tmp_path):
    """A real mkdocs build where pymdown-extensions cannot be imported (a sitecustomize hides it)."""
    import os

    hide = tmp_path / "hide"
    hide.mkdir()
    (hide / "sitecustomize.py").write_text(HIDE_PYMDOWNX, encoding="utf-8")
    site(tmp_path / "site-src", PLUGIN.replace("markdown_extensions:\n  - admonition\n", ""),
         {"index.md": "# Home\n\n" + ISSUE_EXAMPLE})
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(hide), os.environ.get("PYTHONPATH", "")])}
    check = subprocess.run([sys.executable, "-c", "import pymdownx"], env=env, capture_output=True, text=True)
    assert check.returncode == 1  # hidden indeed
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q"], cwd=tmp_path / "site-src", env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 1 and "Traceback" not in run.stderr
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    assert lines == ["ERROR   -  attnviz: the attnviz fences need pymdown-extensions (superfences): "
                     "pip install 'attnviz[mkdocs]' or pip install pymdown-extensions"]
