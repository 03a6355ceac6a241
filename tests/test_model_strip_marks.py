"""Issue 36: what differs in a layer besides its mask (NoPE, soft-capping, a sink) is drawn over the model's strip of
layers, a glyph a marked layer in a row of its own kind, with a legend entry; not only written in its data."""

import re
import xml.etree.ElementTree as ET

import pytest

from attnviz.figures.model import model_figure

SVG = "{http://www.w3.org/2000/svg}"
CASES = [  # (config, the mark, the layers it marks: 0-based, as transformers' configs count them)
    ({"model_type": "llama4_text", "num_hidden_layers": 8, "attention_chunk_size": 4,
      "no_rope_layers": [1, 1, 1, 0, 1, 1, 1, 0]}, "nope", {3, 7}),
    ({"model_type": "smollm3", "num_hidden_layers": 6, "no_rope_layers": [1, 0, 1, 1, 0, 1]}, "nope", {1, 4}),
    ({"model_type": "gemma2", "num_hidden_layers": 4, "sliding_window": 3, "attn_logit_softcapping": 50},
     "softcap", {0, 1, 2, 3}),
    ({"model_type": "gpt_oss", "num_hidden_layers": 4, "sliding_window": 3}, "sink", {0, 1, 2, 3}),
]
WORDS = {"nope": "no rotary positions (NoPE)", "softcap": "logits soft-capped at 50", "sink": "a learned sink logit"}


def _glyph_box(element):
    """(x0, y0, x1, y1) of a rect or a polygon."""
    if element.tag == SVG + "rect":
        x, y, w, h = (float(element.get(a)) for a in ("x", "y", "width", "height"))
        return x, y, x + w, y + h
    points = [tuple(map(float, p.split(","))) for p in element.get("points").split()]
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return min(xs), min(ys), max(xs), max(ys)


@pytest.mark.parametrize("frame", ["doc", "slide"])
@pytest.mark.parametrize("config, mark, layers", CASES)
def test_each_marked_layer_has_its_glyph_over_it_and_the_legend_names_it(config, mark, layers, frame):
    svg = model_figure(config, n=6, frame=frame).svg()
    root = ET.fromstring(svg)
    strip = next(g for g in root.iter(SVG + "g") if g.get("class") == "attnviz-layers")
    cells = {int(r.get("data-layer")): _glyph_box(r) for r in strip.iter(SVG + "rect") if r.get("data-layer")}
    rows = {g.get("data-mark"): list(g) for g in strip.iter(SVG + "g") if g.get("data-mark")}
    assert set(rows) == {mark}  # only the mark the config has
    glyphs = [_glyph_box(e) for e in rows[mark]]
    assert len(glyphs) == len(layers)
    over = set()
    for x0, _, x1, y1 in glyphs:  # each glyph over one layer's square: within its columns, above it, not on it
        layer = next(n for n, (cx0, _, cx1, _) in cells.items() if cx0 - 0.01 <= x0 and x1 <= cx1 + 0.01)
        assert y1 <= cells[layer][1]
        over.add(layer)
    assert over == layers
    legend = {g.get("data-legend"): "".join(g.itertext()) for g in root.iter(SVG + "g") if g.get("data-legend")}
    assert legend[mark] == WORDS[mark]
    assert re.search(r'class="attnviz-layer-mark"', svg)


def test_a_model_with_no_marks_draws_none():
    svg = model_figure({"model_type": "llama", "num_hidden_layers": 3}, n=4).svg()
    assert "data-mark" not in svg and "attnviz-layer-mark" not in svg


def test_the_glyphs_are_apart_in_shape():
    both = {"model_type": "llama4_text", "num_hidden_layers": 4, "attention_chunk_size": 4,
            "no_rope_layers": [1, 0, 1, 0]}
    root = ET.fromstring(model_figure(both, n=4).svg())
    rows = {g.get("data-mark"): list(g) for g in root.iter(SVG + "g") if g.get("data-mark")}
    nope = rows["nope"][0]
    x0, y0, x1, y1 = _glyph_box(nope)
    assert nope.tag == SVG + "rect" and abs((x1 - x0) - (y1 - y0)) < 0.01  # a square
    oss = ET.fromstring(model_figure({"model_type": "gpt_oss", "num_hidden_layers": 2, "sliding_window": 3},
                                     n=4).svg())
    sink = next(g for g in oss.iter(SVG + "g") if g.get("data-mark") == "sink")
    assert all(e.tag == SVG + "polygon" for e in sink)  # a triangle
    gemma = ET.fromstring(model_figure({"model_type": "gemma2", "num_hidden_layers": 2, "sliding_window": 3,
                                        "attn_logit_softcapping": 50}, n=4).svg())
    cap = next(g for g in gemma.iter(SVG + "g") if g.get("data-mark") == "softcap")
    x0, y0, x1, y1 = _glyph_box(cap[0])
    assert x1 - x0 > 2 * (y1 - y0)  # a bar
