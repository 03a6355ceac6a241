"""In a real browser: every gallery figure, in every theme, keeps each text inside its cell or panel,
inside the canvas and inside the box layout measured for it, and no two texts overlap.

Chromium draws the figures (tests/browser.py); layout's boxes come from the bundled fonts'
advance widths, so these tests also prove the widths are the ones a browser uses.
"""

import pytest
from browser import BOXES_JS, page_html
from browser_gallery import GALLERY, figures

import attnviz
from attnviz.layout.figure import measure
from attnviz.layout.math_text import runs_width
from attnviz.render.themes import THEME_NAMES, THEMES, host_stylesheet

# Chromium rounds a font's ascent and descent to whole pixels, and a glyph's ink may overhang
# its advance (a W): boxes are compared with this much slack. Advance widths must agree closely.
TOLERANCE = 1.5
ADVANCE_SLACK = 0.5  # px a line may be wider than measured: sub-pixel positioning, never more
OVERLAP_SLACK = 0.5  # boxes may touch
KERNING = 0.98  # drawn lines are at least this fraction of the measured width (kerning tightens a little)


def layout_texts(layout):
    return layout.texts_in_boxes()


def inside(inner, outer, tolerance=TOLERANCE):
    return (outer[0] - tolerance <= inner[0] and inner[2] <= outer[2] + tolerance
            and outer[1] - tolerance <= inner[1] and inner[3] <= outer[3] + tolerance)


def overlapping(boxes):
    """Pairs of boxes that overlap by more than the slack (a sweep along x)."""
    shrunk = sorted((b[0] + OVERLAP_SLACK, b[1] + OVERLAP_SLACK, b[2] - OVERLAP_SLACK, b[3] - OVERLAP_SLACK, n)
                    for n, b in enumerate(boxes))
    found = []
    for i, a in enumerate(shrunk):
        for b in shrunk[i + 1:]:
            if b[0] >= a[2]:
                break
            if a[1] < b[3] and b[1] < a[3]:
                found.append((a[4], b[4]))
    return found


def shown_lines(text):
    """A text's lines as drawn: a typeset text's runs joined (S_ij is S, then ij lowered; Z_2 is Z₂, its digits
    Unicode's subscript digits: `math_text.digit_subscript`)."""
    from attnviz.layout.math_text import digit_subscript

    def drawn(run, kind):
        return (digit_subscript(run) if kind == "sub" else None) or run

    return ["".join(drawn(*run) for run in runs) for runs in text.line_runs()] if text.math else list(text.lines)


def check_figure(fig, drawn):
    """Everything the browser drew for `fig` against the layout; returns a list of problems."""
    layout = fig.layout()
    expected = layout_texts(layout)
    problems = []
    assert (drawn["width"], drawn["height"]) == pytest.approx((layout.width, layout.height), abs=0.01)
    assert [t["text"] for t in drawn["texts"]] == ["".join(shown_lines(t)) for t, _ in expected]
    for (text, _), got in zip(expected, drawn["texts"]):
        if "chars" in got:  # a typeset text: its characters' extents, grouped into its lines
            got["lines"], got["advances"], at = [], [], 0
            for line in shown_lines(text):
                chars, scripts = got["chars"][at:at + len(line)], got["scripts"][at:at + len(line)]
                at += len(line)
                # its height the base text's, as the layout measures it (a script rises into the leading)
                base = [c for c, script in zip(chars, scripts) if not script] or chars
                got["lines"].append((min(c[0] for c in chars), min(c[1] for c in base),
                                     max(c[2] for c in chars), max(c[3] for c in base)))
                got["advances"].append(chars[-1][2] - chars[0][0])
    canvas = (0, 0, drawn["width"], drawn["height"])
    lines, owners = [], []
    for (text, group_box), got in zip(expected, drawn["texts"]):
        runs = text.line_runs() if text.math else [None] * len(text.lines)
        for drawn_line, line, advance, line_runs in zip(text.lines, got["lines"], got["advances"], runs, strict=True):
            # trailing spaces included, as the browser counts them; a typeset line's scripts at their size
            width = (runs_width(line_runs, text.style, text.script) if line_runs is not None
                     else measure(drawn_line, text.style))
            if not KERNING * width - ADVANCE_SLACK <= advance <= width + ADVANCE_SLACK:
                problems.append(f"{text.text!r} is drawn {advance:.2f} wide, measured {width:.2f}")
            if not inside(line, canvas):
                problems.append(f"{text.text!r} leaves the canvas: {line}")
            if group_box and not inside(line, group_box):
                problems.append(f"{text.text!r} leaves its cell or panel {group_box}: {line}")
            lines.append(line)
            owners.append((text, group_box))
    for a, b in overlapping(lines):
        if owners[a][0] is owners[b][0] and owners[a][0].math:
            continue  # one typeset text's lines, LEADING apart: a raised script's em box reaches the line above
        problems.append(f"{owners[a][0].text!r} overlaps {owners[b][0].text!r}")
    # A text outside a panel never reaches into one (a header into a cell, a caption into a band).
    for line, (text, group_box) in zip(lines, owners):
        if group_box is None:
            for panel in drawn["panels"]:
                if overlapping([line, panel]):
                    problems.append(f"{text.text!r} reaches into a panel at {panel}")
    return problems


@pytest.fixture(scope="module")
def drawn_gallery(browser):
    """Every gallery figure in every theme, drawn: {(name, theme): (figure, boxes)}, one page per theme."""
    out = {}
    context = browser.new_context(device_scale_factor=1)
    page = context.new_page()
    for theme in THEME_NAMES:
        shown = figures(themes=[theme])
        page.set_content(page_html([fig.svg() for _, _, fig in shown]))
        for (name, _, fig), boxes in zip(shown, page.evaluate(BOXES_JS), strict=True):
            assert boxes["id"] == fig.id_prefix
            out[name, theme] = fig, boxes
    context.close()
    return out


@pytest.mark.parametrize("theme", THEME_NAMES)
@pytest.mark.parametrize("name", sorted(GALLERY))
def test_every_text_inside_its_box_and_no_overlaps(drawn_gallery, name, theme):
    fig, boxes = drawn_gallery[name, theme]
    assert check_figure(fig, boxes) == []


def test_the_browser_uses_dejavu(drawn_gallery):
    """The figures' first font is the one layout measured (installed here; --embed-font elsewhere)."""
    _, boxes = drawn_gallery["seed", "light"]
    assert {t["font"].split(",")[0].strip("'\"") for t in boxes["texts"]} == {"DejaVu Sans", "DejaVu Sans Mono"}


def test_embedded_fonts_load_and_fit(page):
    shown = [GALLERY[name]("light") for name in ("seed", "long-labels", "negative-fractions")]
    shown = [attnviz.figure(fig.attention.q, fig.attention.k, highlight=["mask", "softmax=1"], embed_font=True)
             for fig in shown[:1]] + [_embedded(fig) for fig in shown[1:]]
    page.set_content(page_html([fig.svg() for fig in shown]))
    page.evaluate("document.fonts.ready")
    faces = page.evaluate("() => { const out = []; document.fonts.forEach(f => out.push([f.family, f.status])); "
                          "return out }")
    assert faces and all(status == "loaded" for _, status in faces)
    assert {family for family, _ in faces} == {f"{fig.id_prefix}-{kind}" for fig in shown for kind in ("sans", "mono")}
    for fig, boxes in zip(shown, page.evaluate(BOXES_JS), strict=True):
        assert {t["font"].split(",")[0].strip("'\"") for t in boxes["texts"]} == {
            f"{fig.id_prefix}-sans", f"{fig.id_prefix}-mono"}
        assert check_figure(fig, boxes) == []


def _embedded(fig):
    """The same figure with the font embedded."""
    from attnviz.figures.api import Figure

    return Figure(fig.attention, fig.highlight, fig.words, theme=fig.theme, embed_font=True)


def _fills(page, selector):
    return page.evaluate(f"() => [...document.querySelectorAll({selector!r})].map(e => getComputedStyle(e).fill)")


def _rgb(colour):
    return f"rgb({int(colour[1:3], 16)}, {int(colour[3:5], 16)}, {int(colour[5:7], 16)})"


def test_styles_stay_inside_their_figure(page):
    """Two themes and a restyled figure on one page: each keeps its own colours."""
    light, dark = (attnviz.figure(highlight=[(3, 3)], theme=theme) for theme in ("light", "dark"))
    restyled = attnviz.figure(highlight=[(3, 3)], id_prefix="restyled")
    page.set_content(page_html([light.svg(), dark.svg(), restyled.svg()],
                               css=host_stylesheet() + "#restyled { --attnviz-computed-fill: #00ff00 }"))
    assert _fills(page, "rect.attnviz-cell-computed") == [
        _rgb(THEMES["light"].colours["computed-fill"]), _rgb(THEMES["dark"].colours["computed-fill"]), "rgb(0, 255, 0)"]
    assert _fills(page, "rect.attnviz-background") == [
        _rgb(THEMES["light"].colours["background"]), _rgb(THEMES["dark"].colours["background"]),
        _rgb(THEMES["light"].colours["background"])]


def test_auto_follows_the_colour_scheme(page):
    fig = attnviz.figure(highlight=[(3, 3)], theme="auto")
    page.set_content(page_html([fig.svg()]))
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        palette = THEMES["auto"].colours if scheme == "light" else THEMES["auto"].dark
        assert _fills(page, "rect.attnviz-cell-computed") == [_rgb(palette["computed-fill"])]
        assert _fills(page, "text.attnviz-title-text") == [_rgb(palette["text"])]
        assert _fills(page, ".attnviz-hatch-stripe") == [_rgb(palette["masked-hatch"])]


@pytest.mark.parametrize("theme", ["light", "dark", "auto"])
def test_the_page_legend_swatch_matches_the_highlight_in_both_schemes(page, theme):
    import dataclasses

    from attnviz.publish.document import build_figures, default_document
    from attnviz.publish.page import render_page

    document = default_document()
    document = dataclasses.replace(document, figure={**document.figure, "theme": theme})
    page.set_content(render_page(document, build_figures(document)))
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        swatch = _fills(page, ".swatch rect") + _fills(page, ".swatch polygon")
        cell = _fills(page, "rect.attnviz-cell-computed")[0]
        corner = page.evaluate("() => getComputedStyle(document.querySelector('.attnviz-computed-mark')).fill")
        assert swatch == [cell, corner], (theme, scheme)


def test_presentation_attributes_alone_paint_the_theme(browser):
    """With style sheets blocked (a strict CSP), the figure still shows its theme's colours."""
    context = browser.new_context(device_scale_factor=1)
    page = context.new_page()
    fig = attnviz.figure(highlight=[(3, 3)], theme="dark")
    csp = "<meta http-equiv='Content-Security-Policy' content=\"style-src 'none'\">"
    page.set_content(page_html([fig.svg()], css=host_stylesheet() + "svg { --attnviz-computed-fill: #00ff00 }")
                     .replace("<head>", "<head>" + csp))
    # The page's style sheet really is blocked: its custom property has no effect either.
    assert page.evaluate("() => [...document.querySelectorAll('style')].map(s => s.sheet && s.sheet.cssRules.length)")\
        == [None]
    assert _fills(page, "rect.attnviz-cell-computed") == [_rgb(THEMES["dark"].colours["computed-fill"])]
    assert _fills(page, "text.attnviz-title-text") == [_rgb(THEMES["dark"].colours["text"])]
    context.close()


def test_notebook_displays_keep_ids_unique(page):
    fig = attnviz.figure(highlight=[(3, 3)])
    page.set_content(page_html([fig.display_svg(), fig.display_svg(), fig.svg()]))
    ids = page.evaluate("() => [...document.querySelectorAll('[id]')].map(e => e.id)")
    assert len(ids) == len(set(ids)) == 3 * 4  # root, title, desc, hatch pattern, per figure
    # Each figure's masked cells use its own hatch pattern.
    patterns = page.evaluate("() => [...document.querySelectorAll('svg.attnviz')].map(s => "
                             "s.querySelector('rect.attnviz-cell-masked').getAttribute('fill'))")
    assert len(set(patterns)) == 3
