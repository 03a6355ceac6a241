"""A model figure's maps at the floor in every fitted frame (issue 38): Gemma 3's twelve layers with `--layers all`
were twelve maps about 0.14 inch across on a 4:3 slide (16 px); now, in every frame where one panel a layer would
leave a map's cells under a tenth of an inch (16 tokens: 1.6 inches), the layers with identical masks are one panel
titled with their layers. Measured from the SVG: each map's drawn size, in inches, and each panel's whole title."""

import html
import re

import pytest
from clirun import run_cli

from attnviz.figures.model import model_figure
from attnviz.figures.model_floor import GROUPED, _in, at_floor
from attnviz.numbers.exact import InputError

GEMMA3 = {"model_type": "gemma3_text", "num_hidden_layers": 12, "sliding_window": 4}
FLOOR_IN = 1.6 * 0.98  # 16 tokens at a tenth of an inch, 2 % spared (as printed)


def maps_in_inches(svg):
    """Every map's drawn width in inches, from the root's physical width and its viewBox."""
    width_in = float(re.search(r'<svg [^>]*width="([\d.]+)in"', svg)[1])
    view_w = float(re.search(r'viewBox="0 0 ([\d.]+) [\d.]+"', svg)[1])
    widths = re.findall(r'<g class="attnviz-map" data-shape="\d+x\d+"[^>]*>\s*<rect [^>]*width="([\d.]+)"', svg)
    return [float(w) * width_in / view_w for w in widths]


def titles(svg):
    """Each panel's title, its wrapped lines joined."""
    found = re.findall(r'<text class="attnviz-panel-title-text"[^>]*>(.*?)</text>', svg, flags=re.S)
    return [html.unescape(" ".join(re.findall(r"<tspan[^>]*>([^<]*)</tspan>", text)) or re.sub("<[^>]+>", "", text))
            for text in found]


def layers(svg):
    return re.findall(r'<g class="attnviz-panel" data-panel="\d+" data-stack="\w+" data-layers="([\d,]+)"', svg)


@pytest.mark.parametrize("frame", ["slide", "slide-4:3", "column", "column-wide"])
def test_gemma3_all_layers_group_identical_masks_at_the_floor(tmp_path, frame):
    (tmp_path / "config.json").write_text('{"model_type": "gemma3_text", "num_hidden_layers": 12, '
                                          '"sliding_window": 4}')
    out = tmp_path / "model.svg"
    result = run_cli("model", str(tmp_path), "--layers", "all", "--frame", frame, "-o", str(out), "-v")
    assert result.code == 0, result.stderr
    assert GROUPED in result.stderr
    svg = out.read_text()
    assert layers(svg) == ["0,1,2,3,4,6,7,8,9,10", "5,11"]
    assert [re.sub(r"\s+", " ", t) for t in titles(svg)] == ["sliding window 4, layers 0–4, 6–10",
                                                             "full causal, layers 5, 11"]
    sizes = maps_in_inches(svg)
    assert len(sizes) == 2 and min(sizes) >= FLOOR_IN, sizes


def test_a_docs_page_keeps_one_panel_a_layer_where_maps_reach_the_floor():
    svg = model_figure(GEMMA3, layers="all", frame="doc:740").svg()
    assert len(layers(svg)) == 12 and min(maps_in_inches(svg)) >= FLOOR_IN
    assert all("…" not in title for title in titles(svg))


def test_the_old_4_3_figure_was_under_the_floor_and_is_refused_naming_frames_that_hold_it():
    whole = model_figure(GEMMA3, layers="all")  # the web page's frame: twelve panels, no floor to keep
    assert len(whole.panels) == 12
    with pytest.raises(InputError) as refused:  # the same twelve panels, not grouped, on a 4:3 slide
        at_floor(_in(whole, "slide-4:3"), None)
    message = str(refused.value)
    assert "\n" not in message and "under the slide-4:3 frame's floor of 0.1 inch" in message
    ways = re.findall(r"--frame ([\w:-]+)", message)
    assert ways
    for way in ways:  # each frame named holds them
        moved = _in(whole, way)
        assert at_floor(moved, None) is moved


def test_types_is_unchanged_and_a_layer_list_is_grouped_as_before():
    assert [p.layers for p in model_figure(GEMMA3, frame="slide-4:3").plans] == [(0, 1, 2, 3, 4, 6, 7, 8, 9, 10),
                                                                                 (5, 11)]
    assert [p.layers for p in model_figure(GEMMA3, layers="0,5", frame="slide").plans] == [(0,), (5,)]
