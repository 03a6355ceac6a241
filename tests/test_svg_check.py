"""The docs cache's check of an entry (render.svg_check): every figure attnviz draws passes it, nothing else does.

The allow-list is held by drawing: every gallery entry in every frame and theme, with the page's own dark
toggle and with embedded fonts, and the model gallery; each must pass, so a new element or attribute in the
SVG writer fails here rather than making every cached figure a silent miss. Then hostile SVGs, each refused.
"""

import itertools
import time

import pytest

from attnviz.errors import InputError
from attnviz.figures.from_arguments import build
from attnviz.io.spec import figure_arguments, parse_spec
from attnviz.layout.frames import FRAME_NAMES
from attnviz.publish.gallery import ENTRIES, MODEL_ENTRIES, flag_arguments, make, make_model
from attnviz.render.svg_check import ELEMENTS, MAX_SVG_CHARS, css_problem, svg_problem
from attnviz.render.themes import THEME_NAMES


def arguments(entry):
    """The entry's figure arguments, or None for an entry drawn otherwise (a walkthrough step, the API's mask)."""
    if entry.spec:
        return figure_arguments(parse_spec(entry.spec, f"{entry.name}.toml"), f"{entry.name}.toml")
    if not entry.args or entry.step:
        return None
    return flag_arguments([*entry.args, "--title", entry.title])[0]


# Every theme and every frame (each theme in a different frame, so each frame is drawn in several themes).
LOOKS = [*({"theme": theme, "frame": frame} for theme, frame in zip(THEME_NAMES, itertools.cycle(FRAME_NAMES))),
         *({"theme": theme, "frame": frame} for theme, frame in zip(reversed(THEME_NAMES), FRAME_NAMES)),
         {"theme": "auto", "embed_font": True}, {"theme": "dark", "embed_font": True, "frame": "slide"},
         {"theme": "auto", "dark_selector": 'html.dark, [data-mode="night"] body'}]


#: Looks a gallery figure may be refused in (one line naming the frames that fit): maps whose cells would be under a
#: tenth of an inch in a column (tests/test_frame_fit.py pins the same).
REFUSED = {("sparse-nsa", "column"), ("paper-longformer", "column"),
           ("paper-sparse-transformer", "column")}


def drawn():
    """(id prefix, SVG) of every figure the gallery draws, in every look."""
    for entry in ENTRIES:
        figure = make(entry)
        yield figure.id_prefix, figure.svg()
        given = arguments(entry)
        for n, look in enumerate(LOOKS if given is not None else ()):
            prefix = f"attnviz-{entry.name}-{n}"
            try:
                svg = build({**given, **look}, id_prefix=prefix).svg()
            except InputError as refused:  # only where a frame is pinned to refuse the figure, in one line
                assert (entry.name, look.get("frame")) in REFUSED and "\n" not in str(refused), (entry.name, look)
                continue
            yield prefix, svg
    for entry in MODEL_ENTRIES:
        figure = make_model(entry)
        yield figure.id_prefix, figure.svg()


def test_every_figure_attnviz_draws_passes():
    seen, count, slowest = set(), 0, 0.0
    for prefix, svg in drawn():
        start = time.perf_counter()
        assert svg_problem(svg, prefix) is None, (prefix, svg_problem(svg, prefix))
        slowest = max(slowest, time.perf_counter() - start)
        seen.update(tag for tag in ELEMENTS if f"<{tag}" in svg)
        count += 1
    assert count > 400 and seen == set(ELEMENTS)  # every element of the list is one attnviz writes
    assert slowest < 1.0


def test_the_check_is_tied_to_the_prefix():
    figure = make(ENTRIES[0])
    svg = figure.svg(id_prefix="attnviz-index-1")
    assert svg_problem(svg, "attnviz-index-1") is None
    assert "not an id of this figure" in svg_problem(svg, "attnviz-index-2")  # another figure's entry


ROOT = '<svg xmlns="http://www.w3.org/2000/svg" id="p" width="10" height="10">{}</svg>'
HOSTILE = {
    "script": ROOT.format("<script>document.title='pwned'</script>"),
    "foreignObject": ROOT.format('<foreignObject><img xmlns="http://www.w3.org/1999/xhtml" src="x" '
                                 "onerror=\"document.title='pwned'\"/></foreignObject>"),
    "img in title": ROOT.format('<title id="p-title"><img src="x" onerror="alert(1)"/></title>'),
    "onload": ROOT.replace('id="p"', 'id="p" onload="alert(1)"').format(""),
    "onclick on a rect": ROOT.format('<rect x="0" y="0" width="1" height="1" onclick="alert(1)"/>'),
    "onmouseover on a text": ROOT.format('<text x="0" y="0" onmouseover="alert(1)">a</text>'),
    "a link": ROOT.format('<a href="javascript:alert(1)"><text x="0" y="0">a</text></a>'),
    "use of an external file": ROOT.format('<use href="https://evil.example/x.svg#a"/>'),
    "xlink:href": ROOT.format('<image xlink:href="https://evil.example/x.png"/>'),
    "image": ROOT.format('<image href="data:image/png;base64,AAAA"/>'),
    "animate": ROOT.format('<animate attributeName="href" to="javascript:alert(1)"/>'),
    "set": ROOT.format('<set attributeName="onmouseover" to="alert(1)"/>'),
    "external url() fill": ROOT.format('<rect x="0" y="0" width="1" height="1" fill="url(https://evil.example/)"/>'),
    "relative url() fill": ROOT.format('<rect x="0" y="0" width="1" height="1" fill="url(x.svg#a)"/>'),
    "url() of another figure": ROOT.format('<rect x="0" y="0" width="1" height="1" fill="url(#q-hatch)"/>'),
    "escaped url": ROOT.format('<rect x="0" y="0" width="1" height="1" fill="u\\72l(https://e.example/)"/>'),
    "url() inside rotate()": ROOT.format('<rect x="0" y="0" width="1" height="1" fill="rotate( url(x.svg#a)"/>'),
    "unclosed url()": ROOT.format('<rect x="0" y="0" width="1" height="1" fill="url(#p-a"/>'),
    "style attribute": ROOT.format('<rect x="0" y="0" width="1" height="1" style="fill:url(//e.example/)"/>'),
    "DOCTYPE with entities": '<!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;">]>'
                             + ROOT.format('<title id="p-title">&b;</title>'),
    "external entity": '<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]>' + ROOT.format(
        '<title id="p-title">&x;</title>'),
    "undeclared entity": ROOT.format('<title id="p-title">&nbsp;</title>'),
    "processing instruction": '<?xml-stylesheet href="https://evil.example/a.css"?>' + ROOT.format(""),
    "comment": ROOT.format("<!-- x -->"),
    "CDATA": ROOT.format('<style><![CDATA[ :where(#p) { fill: red } ]]></style>'),
    "HTML namespace": ROOT.replace("http://www.w3.org/2000/svg", "http://www.w3.org/1999/xhtml").format(""),
    "id of another element": ROOT.format('<title id="content">a</title>'),
    "not XML": "<svg><rect></svg>",
    "two roots": ROOT.format("") + ROOT.format(""),
    "text after the root": ROOT.format("") + "<img src=x onerror=alert(1)>",
    "a rect as the root": '<rect xmlns="http://www.w3.org/2000/svg" id="p"/>',
    "nested svg": ROOT.format('<svg xmlns="http://www.w3.org/2000/svg" id="p-2"/>'),
    "tspan outside a text": ROOT.format('<tspan x="0">a</tspan>'),
    "an element inside <style>": ROOT.format("<style><g/></style>"),
    "a second <style> after a good one": ROOT.format("<style>body { display: none }</style>"
                                                     "<style>:where(#p) rect.a { fill: red }</style>"),
    "an empty <style> after a good one": ROOT.format("<style>:where(#p) rect.a { fill: red }</style><style></style>"),
}


@pytest.mark.parametrize("svg", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_svgs_are_refused(svg):
    assert svg_problem(svg, "p")


def test_a_huge_svg_is_refused_before_it_is_read():
    svg = ROOT.format("<g>" * (MAX_SVG_CHARS // 3) + "</g>" * (MAX_SVG_CHARS // 3))
    start = time.perf_counter()
    assert "longer than" in svg_problem(svg, "p")
    assert time.perf_counter() - start < 0.5


def test_deep_nesting_within_the_bound_is_bounded():
    svg = ROOT.format("<g>" * 200_000 + "</g>" * 200_000)
    start = time.perf_counter()
    assert svg_problem(svg, "p") is None  # only groups: a strange figure, but a figure
    assert time.perf_counter() - start < 5


SCOPE = ":where(#p)"
FACE = ('@font-face {{ font-family: "{}"; font-weight: normal; font-style: normal; '
        'src: url(data:font/woff;base64,AAAA) format("woff") }}')
HOSTILE_CSS = {
    "@import": '@import url("https://evil.example/a.css");',
    "@import without url": "@import 'https://evil.example/a.css';",
    "url() in a value": f"{SCOPE} rect {{ fill: url(https://evil.example/) }}",
    "background image": f"{SCOPE} {{ background-image: url(x.png) }}",
    "image-set": f"{SCOPE} {{ fill: image-set('x.png' 1x) }}",
    "escape": f"{SCOPE} {{ fill: \\75rl(x.png) }}",
    "comment": f"{SCOPE} {{ fill: red /* x */ }}",
    "the whole page": "body { display: none }",
    "the page, before the scope": f"body, {SCOPE} {{ fill: red }}",
    "a sibling of the figure": f"{SCOPE} + p {{ display: none }}",
    "a later sibling": f"{SCOPE} ~ * {{ display: none }}",
    "another figure": ":where(#q) rect { fill: red }",
    "position fixed on the figure": f"{SCOPE} {{ position: fixed; top: 0; left: 0; width: 100vw; height: 100vh }}",
    "nested rule": f"{SCOPE} {{ fill: red; body & {{ display: none }} }}",
    "nested rule without &": f"{SCOPE} {{ fill: red; body {{ display: none }} }}",
    "a font from elsewhere": '@font-face { font-family: "x"; src: url(https://evil.example/f.woff) }',
    "an embedded font named as the page's": FACE.format("Arial"),
    "another figure's embedded font": FACE.format("q-sans"),
    "an unknown at-rule": "@media print { body { display: none } }",
    "unbalanced": f"{SCOPE} {{ fill: red",
    "a brace in a string": f'{SCOPE} {{ font-family: "}} body {{ display: none }} " }}',
    "important": f"{SCOPE} {{ fill: red !important }}",
    "a context that closes early": f":where(html) body, :where(x) {SCOPE} {{ fill: red }}",
}


@pytest.mark.parametrize("css", HOSTILE_CSS.values(), ids=HOSTILE_CSS.keys())
def test_hostile_style_sheets_are_refused(css):
    assert css_problem(css, "p")
    assert svg_problem(ROOT.format(f"<style>{css.replace('&', '&amp;').replace('<', '&lt;')}</style>"), "p")
