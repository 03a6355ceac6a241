"""Themes: text contrast (WCAG AA) on whatever each text sits on, meaning without colour, scoped styles."""

import re

import pytest
import tinycss2
from conftest import SVG_NS, svg_root
from browser_gallery import figures

import attnviz
from attnviz.layout.figure import Group, Rect, Text
from attnviz.render.themes import COLOUR_NAMES, PAGE_TOGGLES, SHAPE_PAINT, TEXT_COLOUR, THEME_NAMES, THEMES, \
    contrast_ratio, luminance, surface_colours

AA = 4.5
AAA = 7  # the contrast theme's promise
AA_ON_STRIPES = 6.9  # ... but for a masked label on its hatch's stripes (see test_text_contrast_is_wcag_aa_or_better)
NON_TEXT = 3  # WCAG 1.4.11: the highlight's outline against what surrounds it


def backgrounds(text, group):
    """The colours under `text`: the topmost filled rect of its group that holds it, else the canvas."""
    boxes = text.line_boxes()
    for rect in reversed([c for c in (group.children if group else ()) if isinstance(c, Rect)]):
        holds = all(rect.x <= b[0] and b[2] <= rect.x + rect.w and rect.y <= b[1] and b[3] <= rect.y + rect.h
                    for b in boxes)
        if holds and SHAPE_PAINT[rect.role][0] is not None:
            return rect.role
    return "background"


def text_surfaces(layout):
    """{(text role, surface role)} for every text of the layout."""
    pairs = set()
    for item in layout.items:
        children = item.children if isinstance(item, Group) else (item,)
        for child in children:
            if isinstance(child, Text):
                pairs.add((child.role, backgrounds(child, item if isinstance(item, Group) else None)))
    return pairs


# Every pairing a gallery figure draws (masked cells highlighted too), found from the layouts.
PAIRS = sorted(set().union(*(text_surfaces(fig.layout()) for _, _, fig in figures(themes=["light"]))))


def test_pairs_cover_every_surface_a_text_sits_on():
    surfaces = {surface for _, surface in PAIRS}
    assert surfaces == {"background", "badge", "cell-score", "cell-masked", "cell-computed", "softmax-band",
                        # the mechanics (issue 22): the heads schematic's boxes, the cache's slots, the state band
                        "qhead", "kvhead", "slot", "slot-new", "state-band"}
    assert ("masked", "cell-masked") in PAIRS and ("score-computed", "cell-computed") in PAIRS


@pytest.mark.parametrize("theme", THEME_NAMES)
def test_text_contrast_is_wcag_aa_or_better(theme):
    minimum = AAA if theme == "contrast" else AA
    failures = []
    for palette in THEMES[theme].palettes():
        for role, surface in PAIRS:
            for ground in surface_colours(palette, surface):  # a hatch: both stripes, the darker one too
                ratio = contrast_ratio(palette[TEXT_COLOUR[role]], ground)
                # (a masked cell's stripes stand 3:1 from a kept cell's white, WCAG 1.4.11: no grey is also 7:1
                # from black; the label on them is 6.9:1, past AA)
                if ratio < (min(minimum, AA_ON_STRIPES) if ground == palette["masked-hatch"] else minimum):
                    failures.append(f"{role} on {surface} ({ground}): {ratio:.2f}")
    assert failures == []


@pytest.mark.parametrize("theme", THEME_NAMES)
def test_highlight_and_mask_read_in_greyscale(theme):
    for p in THEMES[theme].palettes():
        # The highlight's outline stands out from the cell, the canvas and its own fill.
        for ground in ("cell-fill", "background", "computed-fill", "masked-fill", "masked-hatch"):
            assert contrast_ratio(p["computed-stroke"], p[ground]) >= NON_TEXT, ground
        # A highlighted cell is a different grey from a plain one; the hatch's stripes are visible.
        assert contrast_ratio(p["computed-fill"], p["cell-fill"]) >= 1.15
        assert contrast_ratio(p["masked-hatch"], p["masked-fill"]) >= 1.2


def test_print_theme_is_greyscale():
    for colour in THEMES["print"].colours.values():
        assert colour[1:3] == colour[3:5] == colour[5:7], colour


def test_every_theme_names_every_colour():
    for theme in THEMES.values():
        for palette in theme.palettes():
            assert tuple(palette) == COLOUR_NAMES
            assert all(re.fullmatch(r"#[0-9a-f]{6}", c) for c in palette.values())


def test_luminance_matches_wcag():
    assert luminance("#ffffff") == pytest.approx(1) and luminance("#000000") == 0
    assert contrast_ratio("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)


def test_meaning_without_colour():
    """Masked cells: hatch pattern and dashes; computed: thick outline, bold text, a corner mark."""
    root = svg_root(attnviz.figure(highlight=[(3, 3), (1, 3)], theme="print").svg())
    groups = {(g.get("data-q"), g.get("data-k")): g for g in root.iter(f"{SVG_NS}g") if g.get("data-k")}
    masked = groups["1", "2"].find(f"{SVG_NS}rect")
    assert masked.get("fill").startswith("url(#") and masked.get("stroke-dasharray")
    computed = groups["3", "3"]
    outline = computed.find(f"{SVG_NS}rect[@class='attnviz-cell-computed']")
    assert float(outline.get("stroke-width")) >= 3
    assert computed.find(f"{SVG_NS}text").get("font-weight") == "bold"
    assert computed.find(f"{SVG_NS}polygon") is not None
    # A highlighted masked cell keeps its hatching: the outline over it is not filled.
    both = groups["1", "3"]
    assert [r.get("class") for r in both.iter(f"{SVG_NS}rect")] == ["attnviz-cell-masked",
                                                                   "attnviz-cell-computed-outline"]
    assert both.find(f"{SVG_NS}rect[@class='attnviz-cell-computed-outline']").get("fill") == "none"


@pytest.mark.parametrize("theme", THEME_NAMES)
def test_presentation_attributes_carry_the_theme(theme):
    palette = THEMES[theme].colours
    root = svg_root(attnviz.figure(highlight=[(3, 3)], theme=theme).svg())
    fills = {el.get("class"): el.get("fill") for el in root.iter() if el.get("class")}
    assert fills["attnviz-background"] == palette["background"]
    assert fills["attnviz-title-text"] == palette["text"]
    assert fills["attnviz-cell-computed"] == palette["computed-fill"]
    assert fills["attnviz-score-computed-text"] == palette["computed-text"]
    assert fills["attnviz-hatch-stripe"] == palette["masked-hatch"]


def _rules(css):
    """(selector text, declarations) for every qualified rule, at any depth of @supports/@media."""
    out = []
    for rule in tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True):
        if rule.type == "qualified-rule":
            out.append((tinycss2.serialize(rule.prelude).strip(), tinycss2.serialize(rule.content)))
        elif rule.type == "at-rule" and rule.content is not None and rule.lower_at_keyword != "font-face":
            out += _rules(tinycss2.serialize(rule.content))
    return out


def _outside_toggles(selector):
    """The selector without the page toggle an auto figure's rule sits inside (a light or dark page)."""
    for toggles in PAGE_TOGGLES.values():
        selector = selector.removeprefix(f":where({', '.join(toggles)}) ")
    return selector


@pytest.mark.parametrize("theme", THEME_NAMES)
def test_style_is_scoped_to_the_figure(theme):
    fig = attnviz.figure(highlight=[(3, 3)], theme=theme, embed_font=True)
    style = svg_root(fig.svg()).find(f"{SVG_NS}style").text
    rules = _rules(style)
    assert len(rules) > 10
    for selector, _ in rules:
        for one in _outside_toggles(selector).split(", :where"):
            assert one.removeprefix(":where").startswith(f"(#{fig.id_prefix})"), selector
    # Only renderers that know custom properties read it: the rest keep the presentation attributes.
    assert style.startswith("@supports (color: var(--attnviz-x)) {")
    assert ("prefers-color-scheme: dark" in style) == (theme == "auto")


def test_every_colour_is_a_custom_property_in_the_host_stylesheet():
    from attnviz.render.themes import host_stylesheet

    css = host_stylesheet()
    assert set(re.findall(r"var\(--attnviz-([a-z0-9-]+),", css)) == set(COLOUR_NAMES)
    scopes = {_outside_toggles(selector).split(")")[0] + ")" for selector, _ in _rules(css)}
    themes = {f":where(svg.attnviz[data-attnviz-theme={name}])" for name in THEME_NAMES}
    # palettes per theme, paint for all; and a page's formula box (`FORMULA_BOX`)
    assert scopes - themes == {":where(svg.attnviz)", ":where(.attnviz-formula)"} and themes <= scopes


@pytest.mark.parametrize("theme", ["light", "dark", "print", "contrast"])
def test_a_plain_figure_carries_no_style_sheet(theme):
    """Its text nodes are its words and nothing else; colours are attributes (and the host's CSS)."""
    root = svg_root(attnviz.figure(theme=theme).svg())
    assert root.find(f"{SVG_NS}style") is None and root.get("data-attnviz-theme") == theme


def test_unknown_theme_is_refused():
    with pytest.raises(attnviz.InputError, match="unknown theme 'neon'; choose light, dark, print, contrast or auto"):
        attnviz.figure(theme="neon")


def test_themes_get_their_own_ids():
    prefixes = {attnviz.figure(theme=theme).id_prefix for theme in THEME_NAMES}
    assert len(prefixes) == len(THEME_NAMES)


@pytest.mark.parametrize("doc", ["docs/styling.rst", "docs/anatomy.rst"])
def test_every_custom_property_is_documented(doc):
    from pathlib import Path

    text = (Path(__file__).parent.parent / doc).read_text(encoding="utf-8")
    assert [name for name in COLOUR_NAMES if f"--attnviz-{name}`" not in text] == []
