"""Heads with their own masks (`head_masks`, `--head-mask`), each head's mask map side by side (Sparse
Transformer's two heads), `--view mask|scores` and `--arrange` with heads, against brute force."""

import xml.etree.ElementTree as ET

import pytest
from clirun import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st
from test_views import SVG, brute_kept, kept_from_svg

import attnviz

FAMILIES = ["causal", "none", "window={w}", "prefix={w}", "chunk={w}"]


def panels(svg):
    """Each panel's SVG subtree, in order, with its data-head and data-kv-head."""
    root = ET.fromstring(svg)
    return [(g.get("data-head"), g.get("data-kv-head"), g) for g in root.iter(f"{SVG}g")
            if "attnviz-panel" in (g.get("class") or "").split()]


def kept_in(panel):
    return kept_from_svg(ET.tostring(panel, encoding="unicode").replace("ns0:", "").replace(
        'xmlns:ns0="http://www.w3.org/2000/svg"', 'xmlns="http://www.w3.org/2000/svg"'))


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 24), masks=st.lists(st.tuples(st.sampled_from(FAMILIES), st.integers(1, 8)), min_size=1,
                                              max_size=4))
def test_each_heads_mask_map_keeps_its_own_masks_cells(n, masks):
    texts = [family.format(w=w) for family, w in masks]
    fig = attnviz.figure(view="mask", n=n, head_masks=texts)
    drawn = panels(fig.svg())
    assert [head for head, _, _ in drawn] == [str(h) for h in range(1, len(texts) + 1)]
    for (_, _, panel), text in zip(drawn, texts):
        assert kept_in(panel) == brute_kept(text, n, n), text


def test_query_heads_with_their_own_masks_draw_each_heads_cells():
    q = [[[1, 0], [0, 1], [1, 1], [1, 0]], [[0, 1], [1, 1], [1, 0], [0, 1]]]
    k = [[[1, 0], [0, 1], [1, 1], [1, 1]]]
    for view in ("mask", "full"):
        fig = attnviz.figure(q_heads=q, k_heads=k, head_masks=["causal", "window=2"], view=view)
        assert [p.attention.mask.name if p.attention else p.words.caption for p in fig.panels][0]
        assert list(fig.kv_heads) == [0, 0]
    maps = panels(attnviz.figure(q_heads=q, k_heads=k, head_masks=["causal", "window=2"], view="mask").svg())
    assert [(h, g) for h, g, _ in maps] == [("1", "1"), ("2", "1")]
    assert [kept_in(p) for _, _, p in maps] == [brute_kept("causal", 4, 4), brute_kept("window=2", 4, 4)]


@pytest.mark.parametrize("kwargs, message", [
    ({"view": "mask", "n": 4, "head_masks": "causal"}, "one mask per head"),
    ({"head_masks": ["causal"], "n": 4}, "gives each head its own mask"),
    ({"q_heads": [[[1]], [[1]]], "k_heads": [[[1]]], "head_masks": ["causal"]}, "1 mask for 2 query heads"),
])
def test_head_masks_refuse_in_one_line(kwargs, message):
    with pytest.raises(attnviz.InputError, match=message):
        attnviz.figure(**kwargs)


def test_sparse_transformers_two_heads_from_the_command_line(tmp_path):
    out = tmp_path / "sparse.svg"
    result = run_cli("render", "--view", "mask", "--n", "16", "--head-mask", "window=4", "--head-mask",
                     "window=16,dilation=4", "-o", str(out))
    assert result.code == 0, result.stderr
    (_, _, local), (_, _, strided) = panels(out.read_text())
    assert kept_in(local) == brute_kept("window=4", 16, 16)
    assert kept_in(strided) == {(i, j) for i in range(1, 17) for j in range(1, i + 1) if (i - j) % 4 == 0}


@pytest.mark.parametrize("arrange, columns", [("row", 4), ("column", 1), ("grid:2", 2)])
def test_arrange_places_the_heads_panels(tmp_path, arrange, columns):
    out = tmp_path / "heads.svg"
    result = run_cli("render", "--q-heads", "1,0;0,1|1,1;0,1|0,1;1,0|1,1;1,1", "--k-heads", "1,0;0,1|0,1;1,1",
                     "--view", "scores", "--arrange", arrange, "-o", str(out))
    assert result.code == 0, result.stderr
    drawn = panels(out.read_text())
    assert [(h, g) for h, g, _ in drawn] == [("1", "1"), ("2", "1"), ("3", "2"), ("4", "2")]
    firsts = [float(next(p.iter(f"{SVG}text")).get("x")) for _, _, p in drawn]
    assert len(set(firsts)) == columns  # one x per column


def test_a_spec_gives_head_masks_and_arrange(tmp_path):
    spec = tmp_path / "heads.toml"
    spec.write_text('view = "mask"\nn = 8\nhead_masks = ["window=2", "chunk=4"]\narrange = "column"\n')
    out = tmp_path / "heads.svg"
    result = run_cli("render", str(spec), "-o", str(out))
    assert result.code == 0, result.stderr
    drawn = panels(out.read_text())
    assert [kept_in(p) for _, _, p in drawn] == [brute_kept("window=2", 8, 8), brute_kept("chunk=4", 8, 8)]
