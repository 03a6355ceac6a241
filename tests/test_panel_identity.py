"""Frames keep what identifies a panel (issue 38): a layer's number and a rule's text are never cut with "…" (titles
wrap as their captions do, and an arrangement that cuts one yields to one that does not); maps in a paper column keep
cells of a tenth of an inch up to 16 tokens, or are refused naming column-wide; an `--arrange` given by name is drawn
as given in a slide or column, or refused saying why, while the default row is the frame's to rearrange."""

import xml.etree.ElementTree as ET

import pytest

import attnviz
from attnviz.figures.from_arguments import build
from attnviz.numbers.exact import InputError
from clirun import run_cli

SVG = "{http://www.w3.org/2000/svg}"
GEMMA3 = {"model_type": "gemma3_text", "num_hidden_layers": 12, "sliding_window": 4}
THREE = [{"title": "causal", "mask": "causal"}, {"title": "sliding window", "mask": "window=4"},
         {"title": "prefix-LM", "mask": "prefix=5"}]


def panel_texts(layout, roles=("panel-title", "caption", "subtitle")):
    return [t for t, _ in layout.texts_in_boxes() if t.role in roles]


@pytest.mark.parametrize("frame, n, count", [("slide", 16, 2), ("slide-4:3", 16, 2), ("column-wide", 8, 12),
                                             ("doc:740", 16, 12)])
def test_every_layer_of_gemma_3_keeps_its_number_and_its_kind(frame, n, count):
    # one panel a layer where its maps keep 0.1-inch cells; else one panel a mask, titled with its layers
    fig = attnviz.model_figure(GEMMA3, layers="all", frame=frame, n=n)
    titles = [" ".join("".join(t.lines).split()) for t in panel_texts(fig.layout(), ("panel-title",))]
    assert len(titles) == count and not any("…" in title for title in titles), titles
    assert titles == [plan.title for plan in fig.plans]
    assert sorted(layer for plan in fig.plans for layer in plan.layers) == list(range(12))
    sliding = [plan for plan in fig.plans if plan.title.startswith("sliding window 4,")]
    assert sorted(layer for plan in sliding for layer in plan.layers) == [0, 1, 2, 3, 4, 6, 7, 8, 9, 10]


def test_twelve_16_token_layers_in_a_column_become_one_panel_a_mask_at_the_floor():
    # (one panel a layer would leave cells of 0.03 inch: refused before, naming column-wide)
    fig = attnviz.model_figure(GEMMA3, layers="all", frame="column")
    assert [plan.title for plan in fig.plans] == ["sliding window 4, layers 0–4, 6–10", "full causal, layers 5, 11"]
    assert "layers with identical masks drawn as one panel" in fig.layout().choices[0]


@pytest.mark.parametrize("frame", ["column", "column-wide"])
def test_nsa_maps_in_a_column_keep_their_rules_and_tenth_of_an_inch_cells_or_are_refused(frame):
    from attnviz.publish.gallery import ENTRIES

    nsa = next(entry for entry in ENTRIES if entry.name == "sparse-nsa")
    result = run_cli("render", *nsa.args, "--frame", frame, "-o", "-")
    if frame == "column":  # four 12-token maps: 0.1-inch cells stacked are taller than a column's figure
        assert result.code == 2 and result.stderr.count("\n") == 1, result.stderr
        assert "cells of 0.1 inch or more" in result.stderr and "--frame column-wide" in result.stderr
        return
    assert result.code == 0, result.stderr
    root = ET.fromstring(result.stdout)
    texts = ["".join(t.itertext()) for t in root.iter(f"{SVG}text")
             if t.get("class") in ("attnviz-panel-title-text", "attnviz-caption-text")]
    assert len(texts) >= 4 and not any("…" in text for text in texts), texts
    width = float(root.get("viewBox").split()[2])
    cells = [float(r.get("height")) for r in root.iter(f"{SVG}rect") if r.get("class") == "attnviz-kept"]
    assert cells and min(cells) * 7 / width >= 0.1 - 1e-3


def test_arrange_column_given_by_name_is_drawn_in_a_column():
    fig = build({"view": "mask", "n": 16, "arrange": "column", "panel": THREE, "frame": "column"})
    layout = fig.layout()
    panels = [g for g in layout.items if getattr(g, "classes", ())[:1] == ("attnviz-panel",)]
    lefts = {round(min(t.x for t in g.children if hasattr(t, "lines")), 3) for g in panels}
    assert len(panels) == 3 and len(lefts) == 1  # one above another
    assert not any("…" in "".join(t.lines) for t in panel_texts(layout))
    assert not any("instead of" in choice for choice in layout.choices)


@pytest.mark.parametrize("arrange", ["row", "grid:2"])
def test_an_arrangement_given_by_name_that_cannot_keep_its_cells_is_refused_saying_why(arrange):
    with pytest.raises(InputError, match=rf"^arrange: --arrange {arrange} of 3 panels in the column frame leaves "
                                         r"them no room .* cells of 0\.1 inch or more \(they would be 0\.0\d+\); "
                                         r"try another --arrange \(or none: the frame arranges them\), --frame "
                                         "column-wide"):
        build({"view": "mask", "n": 16, "arrange": arrange, "panel": THREE, "frame": "column"}).layout()


def test_the_default_row_is_the_frame_s_to_rearrange():
    layout = build({"view": "mask", "n": 16, "panel": THREE, "frame": "column"}).layout()
    assert "panels in a column instead of a row" in layout.choices
    assert attnviz.compose(*[attnviz.figure(view="mask", n=4)] * 2).arrange == "row"  # (the default, by name)


@pytest.mark.parametrize("frame", ["slide", "column", "doc:736"])
def test_panel_rule_captions_are_typeset_as_a_single_map_s_are(frame):
    fig = build({"view": "mask", "n": 16, "panel": THREE, "frame": frame, "panel_captions": "show"})
    captions = [t for t in panel_texts(fig.layout(), ("caption",))]
    assert len(captions) == 3 and all(t.math for t in captions)
    drawn = [" ".join("".join(t.itertext()).split()) for t in ET.fromstring(fig.svg()).iter(f"{SVG}text")
             if t.get("class") == "attnviz-caption-text"]
    assert any("i\u22124<j\u2264i" in text for text in drawn) and not any("<=" in text for text in drawn), drawn
