"""The heads schematic (`--view heads`): which KV head each query head reads, against PyTorch's
`scaled_dot_product_attention(..., enable_gqa=True)`, and the schematic's anatomy."""

import xml.etree.ElementTree as ET

import pytest
import torch
from clirun import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

import attnviz
from attnviz.layout.items import Group, Rect

SVG = "{http://www.w3.org/2000/svg}"


def torch_mapping(n_heads, n_kv, n=3, d=2):
    """Which KV head each query head reads in PyTorch: each KV head's values are all g+1, so a query head's
    output (its weights sum to 1) is exactly the number of the KV head it read."""
    q = torch.tensor([[[(h + i + c) % 3 - 1 for c in range(d)] for i in range(n)] for h in range(n_heads)],
                     dtype=torch.float64)[None]
    k = torch.tensor([[[(g * 2 + i + c) % 3 - 1 for c in range(d)] for i in range(n)] for g in range(n_kv)],
                     dtype=torch.float64)[None]
    v = torch.tensor([[[g + 1] * d for _ in range(n)] for g in range(n_kv)], dtype=torch.float64)[None]
    out = torch.nn.functional.scaled_dot_product_attention(q, k, v, enable_gqa=True)
    return [round(out[0, h].mean().item()) - 1 for h in range(n_heads)], q[0].tolist(), k[0].tolist()


def drawn(svg):
    root = ET.fromstring(svg)
    groups = {}
    for g in root.iter(f"{SVG}g"):
        for cls in ("attnviz-qhead", "attnviz-kvhead", "attnviz-head-link"):
            if cls in (g.get("class") or "").split():
                groups.setdefault(cls, []).append((g.get("data-head"), g.get("data-kv-head")))
    return groups


@settings(max_examples=25, deadline=None)
@given(st.sampled_from([(h, g) for h in range(1, 17) for g in range(1, h + 1) if h % g == 0]), st.sampled_from([0, 1]))
def test_the_schematic_maps_heads_as_pytorch_enable_gqa_does(heads, base):
    n_heads, n_kv = heads
    expected, q, k = torch_mapping(n_heads, n_kv)
    schematic = attnviz.figure(q_heads=[[[int(x) for x in row] for row in head] for head in q],
                               k_heads=[[[int(x) for x in row] for row in head] for head in k], view="heads",
                               index_base=base)
    assert list(schematic.kv_heads) == expected
    groups = drawn(schematic.svg())
    pairs = [(str(h + base), str(g + base)) for h, g in enumerate(expected)]
    assert groups["attnviz-qhead"] == pairs
    assert groups["attnviz-head-link"] == pairs
    assert groups["attnviz-kvhead"] == [(None, str(g + base)) for g in range(n_kv)]
    panels = attnviz.figure(q_heads=[[[int(x) for x in row] for row in head] for head in q],
                            k_heads=[[[int(x) for x in row] for row in head] for head in k], index_base=base)
    assert list(panels.kv_heads) == expected  # the heads' panels read the same KV heads


@pytest.mark.parametrize("n_heads, n_kv, words", [(4, 4, "Multi-head attention"), (8, 2, "Grouped-query attention"),
                                                  (4, 1, "Multi-query attention")])
def test_each_link_runs_from_its_query_head_down_into_its_kv_head(n_heads, n_kv, words):
    one = [[1, 0], [0, 1]]
    schematic = attnviz.figure(q_heads=[one] * n_heads, k_heads=[one] * n_kv, view="heads")
    layout = schematic.layout()
    assert layout.items[0].text.startswith(words)
    boxes = {}
    for item in layout.items:
        if isinstance(item, Group) and item.classes[0] in ("attnviz-qhead", "attnviz-kvhead"):
            key = (item.classes[0], dict(item.attrs).get("data-head") or dict(item.attrs)["data-kv-head"])
            boxes[key] = item.box
    for item in layout.items:
        if isinstance(item, Group) and item.classes[0] == "attnviz-head-link":
            attrs = dict(item.attrs)
            q_box, kv_box = boxes["attnviz-qhead", attrs["data-head"]], boxes["attnviz-kvhead", attrs["data-kv-head"]]
            down, along, into = item.children
            assert all(isinstance(bar, Rect) for bar in item.children)
            assert down.y == q_box[3] and q_box[0] < down.x < q_box[2]  # leaves the query head's bottom edge
            assert into.y + into.h == kv_box[1] and kv_box[0] < into.x < kv_box[2]  # enters the KV head's top
            assert along.x <= min(down.x, into.x) and along.x + along.w >= max(down.x, into.x)
    texts = [t for t, _ in layout.texts_in_boxes()]
    assert all(b[2] <= layout.width - 20 for t in texts for b in t.line_boxes())  # nothing spills


def test_the_heads_view_from_the_command_line(tmp_path):
    out = tmp_path / "gqa.svg"
    result = run_cli("render", "--q-heads", "1,0|0,1|1,1|1,0", "--k-heads", "1,0|0,1", "--view", "heads",
                     "-o", str(out))
    assert result.code == 0, result.stderr
    assert drawn(out.read_text())["attnviz-qhead"] == [("1", "1"), ("2", "1"), ("3", "2"), ("4", "2")]


@pytest.mark.parametrize("args, message", [
    (["--view", "heads"], "attnviz: error: --view: the heads view draws query heads and the KV heads they read"),
    (["--view", "heads", "--q-heads", "1|1|1", "--k-heads", "1|1"], "cannot share 2 KV heads evenly"),
])
def test_the_heads_view_refuses_in_one_line(args, message):
    result = run_cli("render", *args, "-o", "-")
    assert result.code == 2 and message in result.stderr and "Traceback" not in result.stderr
