"""`auto` figures follow the page's own light/dark toggle: real Furo, PyData and MkDocs Material sites (the
themes from PyPI) and a JupyterLab-like page, in Chromium with the system set light and dark."""

import textwrap
from pathlib import Path

import pytest

import attnviz
from attnviz.render.themes import THEMES
from browser import page_html
from test_mkdocs import mkdocs_build, site
from test_sphinx import build, write_project

LIGHT, DARK = THEMES["auto"].colours, THEMES["auto"].dark

# What the figure shows: its background and its title's colour, as the browser computes them (the drawing shown:
# a figure drawn for several widths shows one, the others display: none).
COLOURS_JS = """
() => [...document.querySelectorAll('svg.attnviz')].filter(svg => svg.getClientRects().length).map(svg => [
  getComputedStyle(svg.querySelector('rect.attnviz-background')).fill,
  getComputedStyle(svg.querySelector('text.attnviz-title-text')).fill])
"""
# Whether the page itself is dark: the luminance of the first opaque background from the figure up.
PAGE_DARK_JS = """
() => {
  const shown = [...document.querySelectorAll('svg.attnviz')].find(svg => svg.getClientRects().length);
  for (let el = shown; el; el = el.parentElement) {
    const m = getComputedStyle(el).backgroundColor.match(/[\\d.]+/g).map(Number);
    if (m.length === 3 || m[3] > 0) return (0.2126 * m[0] + 0.7152 * m[1] + 0.0722 * m[2]) < 128;
  }
  return false;
}
"""


def rgb(colour):
    return f"rgb({int(colour[1:3], 16)}, {int(colour[3:5], 16)}, {int(colour[5:7], 16)})"


def palette(dark):
    chosen = DARK if dark else LIGHT
    return [rgb(chosen["background"]), rgb(chosen["text"])]


@pytest.fixture(scope="module")
def sites(tmp_path_factory):
    """The three sites, built once: {name: index.html path}."""
    root = tmp_path_factory.mktemp("dark-pages")
    built = {}
    for theme in ("furo", "pydata_sphinx_theme", "sphinx_book_theme", "sphinx_rtd_theme"):
        src, out = root / theme / "src", root / theme / "out"
        conf = f'extensions = ["attnviz.integrations.sphinx"]\nhtml_theme = "{theme}"\n'
        write_project(src, {"index": "Dark pages\n==========\n\n.. attnviz::\n   :highlight: 3,3\n"}, conf=conf)
        code, warnings = build(src, out)
        assert code == 0, warnings
        built[theme] = out / "index.html"
    material = root / "material"
    site(material, """\
        site_name: Dark pages
        theme:
          name: material
          font: false
          palette:
            - scheme: default
              toggle: {icon: material/brightness-4, name: dark}
            - scheme: slate
              toggle: {icon: material/brightness-7, name: light}
        plugins: [attnviz]
        """, {"index.md": "# Dark pages\n\n```attnviz\nhighlight = [[3, 3]]\n```\n"})
    run = mkdocs_build(material)
    assert run.returncode == 0, run.stderr
    built["material"] = material / "site" / "index.html"
    plain = root / "mkdocs"  # MkDocs' own theme: Bootstrap 5.3's color modes (MkDocs 1.6)
    site(plain, """\
        site_name: Dark pages
        theme:
          name: mkdocs
          color_mode: auto
          user_color_mode_toggle: true
        plugins: [attnviz]
        """, {"index.md": "# Dark pages\n\n```attnviz\nhighlight = [[3, 3]]\n```\n"})
    run = mkdocs_build(plain)
    assert run.returncode == 0, run.stderr
    built["mkdocs"] = plain / "site" / "index.html"
    return built


# site: (the element that carries the toggle, the attribute, its dark value, its light value, its "system" value)
TOGGLES = {
    "furo": ("document.body", "data-theme", "dark", "light", "auto"),
    "pydata_sphinx_theme": ("document.documentElement", "data-theme", "dark", "light", None),
    "material": ("document.body", "data-md-color-scheme", "slate", "default", None),
    "sphinx_book_theme": ("document.documentElement", "data-theme", "dark", "light", None),
    "mkdocs": ("document.documentElement", "data-bs-theme", "dark", "light", None),
}


@pytest.mark.parametrize("system", ["light", "dark"])
def test_read_the_docs_theme_is_light_and_so_are_its_figures(browser, sites, system):
    """sphinx_rtd_theme has no dark mode (docs/docs-integration.rst says so): its page stays light whatever the
    system says, and so does an auto figure in it."""
    context = browser.new_context(color_scheme=system)
    page = context.new_page()
    page.goto(sites["sphinx_rtd_theme"].as_uri())
    page.wait_for_function("() => document.querySelector('svg.attnviz')")
    assert page.evaluate(PAGE_DARK_JS) is False
    assert page.evaluate(COLOURS_JS) == [palette(False)]
    context.close()


@pytest.mark.parametrize("name", TOGGLES)
@pytest.mark.parametrize("system", ["light", "dark"])
def test_auto_figures_follow_the_theme_toggle_not_the_system(browser, sites, name, system):
    element, attribute, dark, light, neither = TOGGLES[name]
    context = browser.new_context(color_scheme=system)
    page = context.new_page()
    page.goto(sites[name].as_uri())
    page.wait_for_function("() => document.querySelector('svg.attnviz')")
    themes = page.eval_on_selector_all("svg.attnviz", "els => els.map(e => e.dataset.attnvizTheme)")
    assert set(themes) == {"auto"}  # the directive's and the fence's default (each drawing of the figure's)
    for value, expect_dark in ((dark, True), (light, False), (dark, True), (neither, system == "dark")):
        if value is None:
            continue
        page.evaluate(f"() => {element}.setAttribute('{attribute}', '{value}')")
        assert page.evaluate(COLOURS_JS) == [palette(expect_dark)], (name, system, value)
        # the theme's own page agrees: the figure is dark exactly where the page is
        assert page.evaluate(PAGE_DARK_JS) == expect_dark, (name, system, value)
    context.close()


@pytest.mark.parametrize("system", ["light", "dark"])
def test_auto_figures_follow_jupyterlab(browser, system):
    fig = attnviz.figure(highlight=[(3, 3)], theme="auto")
    context = browser.new_context(color_scheme=system)
    page = context.new_page()
    page.set_content(page_html([fig.svg()]))
    assert page.evaluate(COLOURS_JS) == [palette(system == "dark")]  # no toggle: the system's setting
    for value, expect_dark in (("false", True), ("true", False), ("false", True)):
        page.evaluate(f"() => document.body.setAttribute('data-jp-theme-light', '{value}')")
        assert page.evaluate(COLOURS_JS) == [palette(expect_dark)], (system, value)
    context.close()


@pytest.mark.parametrize("system", ["light", "dark"])
def test_a_named_dark_selector_replaces_the_toggles_and_the_system(browser, system):
    fig = attnviz.figure(highlight=[(3, 3)], theme="auto", dark_selector="html.night > body")
    context = browser.new_context(color_scheme=system)
    page = context.new_page()
    page.set_content(page_html([fig.svg()]))
    assert page.evaluate(COLOURS_JS) == [palette(False)]  # light outside the selector, whatever the system says
    page.evaluate("() => document.body.setAttribute('data-jp-theme-light', 'false')")  # not this site's toggle
    assert page.evaluate(COLOURS_JS) == [palette(False)]
    page.evaluate("() => document.documentElement.classList.add('night')")
    assert page.evaluate(COLOURS_JS) == [palette(True)]
    page.evaluate("() => document.documentElement.classList.remove('night')")
    assert page.evaluate(COLOURS_JS) == [palette(False)]
    context.close()


def test_a_site_dark_selector_reaches_every_auto_figure_and_the_host_stylesheet(browser, tmp_path):
    conf = 'extensions = ["attnviz.integrations.sphinx"]\nattnviz_dark_selector = "html.night"\n'
    page_text = "Site\n====\n\n.. attnviz::\n\n.. attnviz::\n   :theme: light\n"
    write_project(tmp_path / "src", {"index": page_text}, conf=conf)
    assert build(tmp_path / "src", tmp_path / "out", "-W") == (0, "")
    assert "html.night" in (tmp_path / "out" / "_static" / "attnviz.css").read_text(encoding="utf-8")
    context = browser.new_context(color_scheme="dark")
    page = context.new_page()
    page.goto((tmp_path / "out" / "index.html").as_uri())
    assert page.evaluate(COLOURS_JS) == [palette(False), palette(False)]
    page.evaluate("() => document.documentElement.classList.add('night')")
    assert page.evaluate(COLOURS_JS) == [palette(True), palette(False)]  # the light figure stays light
    context.close()


def test_the_mkdocs_option_and_a_bad_selector(tmp_path):
    site(tmp_path, """\
        site_name: Test
        plugins:
          - attnviz:
              dark_selector: "x } body { color: red"
        """, {"index.md": "# Test\n\n```attnviz\n```\n"})
    run = mkdocs_build(tmp_path)
    assert run.returncode != 0
    assert "attnviz: dark_selector: '}' cannot be in a selector" in run.stderr
    (tmp_path / "mkdocs.yml").write_text(textwrap.dedent("""\
        site_name: Test
        plugins:
          - attnviz:
              dark_selector: "html.night"
        """), encoding="utf-8")
    run = mkdocs_build(tmp_path)
    assert run.returncode == 0, run.stderr
    html = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert ":where(html.night) :where(#attnviz-index-1)" in html
    assert "html.night" in (tmp_path / "site" / "assets" / "attnviz.css").read_text(encoding="utf-8")


@pytest.mark.parametrize("selector, message", [
    ("</style><script>", "'<' cannot be in a selector"),
    ("html.dark { fill: red", "'{' cannot be in a selector"),
    ("html.dark } svg", "'}' cannot be in a selector"),
    ("html.dark; x", "';' cannot be in a selector"),
    ("html.dark /* x */", "'/' cannot be in a selector"),
    ("@import url(x)", "'@' cannot be in a selector"),
    ("html\\2e dark", "'\\\\' cannot be in a selector"),
    ("a & b", "'&' cannot be in a selector"),
    ("html\n.dark", "U+000A cannot be in a selector"),
    ("html\x00", "U+0000 cannot be in a selector"),
    ('[data-x="dark]', "unclosed '\"' in the selector"),
    ("html:not(.light", "unclosed '(' in the selector"),
    ("html.dark)", "unbalanced ')' in the selector"),
    ("[a=b)", "unbalanced ')' in the selector"),
    ("  ", "expected a CSS selector"),
    ("x" * 201, "a selector of at most 200 characters, not 201"),
])
def test_a_bad_dark_selector_is_refused_in_one_line(selector, message):
    with pytest.raises(attnviz.InputError, match="^dark_selector: ") as err:
        attnviz.figure(theme="auto", dark_selector=selector)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_a_dark_selector_needs_the_auto_theme_and_is_kept_by_panels_and_steps():
    with pytest.raises(attnviz.InputError, match="dark_selector: a dark selector is for theme 'auto'"):
        attnviz.figure(theme="dark", dark_selector="html.dark")
    fig = attnviz.figure(theme="auto", dark_selector='html[data-mode="night"]  >  body')
    assert fig.theme == 'auto;html[data-mode="night"] > body'  # whitespace folded
    assert fig.id_prefix != attnviz.figure(theme="auto").id_prefix
    composed = attnviz.compose(fig, attnviz.figure(theme="auto", dark_selector="html.dark"))
    assert ':where(html[data-mode="night"] &gt; body) :where(#' in composed.svg()
    assert attnviz.figure(theme="auto").svg().count("--_attnviz-text:") == 4  # light, system dark, page toggles
    from attnviz.publish.walkthrough.scores import walkthrough

    heads = attnviz.figure(q_heads=[[[1, 0], [0, 1]], [[1, 1], [0, 1]]], k_heads=[[[1, 0], [0, 1]]], theme="auto",
                           dark_selector="html.dark")
    steps = walkthrough(attnviz.figure(theme="auto", dark_selector="html.dark"))[1]
    for drawn in (heads, *steps):
        assert drawn.theme == "auto;html.dark" and ":where(html.dark) :where(#" in drawn.svg()


def test_the_flag_and_the_spec_key(tmp_path):
    from clirun import run_cli as run

    out = str(tmp_path / "fig.svg")
    result = run("render", "--theme", "auto", "--dark-selector", "html.dark", "-o", out)
    assert result.code == 0, result.stderr
    assert ":where(html.dark) :where(#" in Path(out).read_text(encoding="utf-8")
    result = run("render", "--dark-selector", "html.dark", "-o", out)
    assert (result.code, result.stderr) == (2, "attnviz: error: --dark-selector: a dark selector is for "
                                                  "theme 'auto' (the figure that follows the page), not 'light'\n")
    spec = tmp_path / "fig.toml"
    spec.write_text('q = [[1, 0]]\nk = [[1, 0]]\ntheme = "auto"\ndark_selector = "body.dark}"\n', encoding="utf-8")
    result = run("render", str(spec), "-o", out)
    assert result.code == 2 and result.stderr.startswith(f"attnviz: error: {spec}: dark_selector: '}}'")


def test_attnviz_css_takes_the_sites_selector():
    from clirun import run_cli

    result = run_cli("css", "--dark-selector", "html.dark")
    assert result.code == 0 and ":where(html.dark) :where(svg.attnviz[data-attnviz-theme=auto])" in result.stdout
    assert "prefers-color-scheme" not in result.stdout  # the site's toggle alone decides
    result = run_cli("css", "--dark-selector", "a{")
    assert (result.code, result.stderr) == (2, "attnviz: error: --dark-selector: '{' cannot be in a selector; "
                                               'give one like html.dark or [data-theme="dark"]\n')


@pytest.mark.parametrize("system", ["light", "dark"])
def test_material_automatic_mode_resolves_to_the_system(browser, tmp_path, system):
    """Material's automatic palette (`media: "(prefers-color-scheme)"`) sets the scheme from the system: followed."""
    site(tmp_path, """\
        site_name: Automatic
        theme:
          name: material
          font: false
          palette:
            - media: "(prefers-color-scheme)"
              toggle: {icon: material/brightness-auto, name: light}
            - media: "(prefers-color-scheme: light)"
              scheme: default
              toggle: {icon: material/brightness-7, name: dark}
            - media: "(prefers-color-scheme: dark)"
              scheme: slate
              toggle: {icon: material/brightness-4, name: system}
        plugins: [attnviz]
        """, {"index.md": "# Automatic\n\n```attnviz\n```\n"})
    run = mkdocs_build(tmp_path)
    assert run.returncode == 0, run.stderr
    context = browser.new_context(color_scheme=system)
    page = context.new_page()
    page.goto((tmp_path / "site" / "index.html").as_uri())
    page.wait_for_function("() => document.body.getAttribute('data-md-color-media') !== null")
    scheme = page.evaluate("() => document.body.getAttribute('data-md-color-scheme')")
    assert scheme == ("slate" if system == "dark" else "default")
    assert page.evaluate(COLOURS_JS) == [palette(system == "dark")]
    context.close()
