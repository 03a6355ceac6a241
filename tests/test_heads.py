"""Multi-head, grouped-query and multi-query attention: every head's scores against brute force."""

import math
import random
import xml.etree.ElementTree as ET
from fractions import Fraction

import pytest
from clirun import run_cli
from conftest import SVG_NS
from hypothesis import given
from hypothesis import strategies as st
from pagetext import computed

import attnviz
from attnviz.figures.heads import HeadsFigure

NUMBERS = st.one_of(st.integers(-3, 3), st.fractions(Fraction(-3), Fraction(3), max_denominator=4))
SHAPES = [(1, 1), (2, 1), (2, 2), (4, 1), (4, 2), (4, 4), (8, 1), (8, 2), (8, 4), (8, 8)]


@st.composite
def heads(draw):
    n_heads, n_kv = draw(st.sampled_from(SHAPES))
    n_q, n_k, d = draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.integers(1, 2))
    vectors = st.lists(st.lists(NUMBERS, min_size=d, max_size=d), min_size=1, max_size=1)
    q = [[draw(vectors)[0] for _ in range(n_q)] for _ in range(n_heads)]
    k = [[draw(vectors)[0] for _ in range(n_k)] for _ in range(n_kv)]
    return q, k


def brute_score(q, k):
    return sum((Fraction(a) * Fraction(b) for a, b in zip(q, k)), Fraction(0))


def head_groups(svg):
    return [g for g in ET.fromstring(svg).iter(f"{SVG_NS}g") if "attnviz-head" in g.get("class", "").split()]


@given(heads())
def test_every_heads_scores_are_brute_force_with_the_group_mapping(problem):
    q, k = problem
    n_heads, n_kv = len(q), len(k)
    fig = attnviz.figure(q_heads=q, k_heads=k, mask="none")
    assert isinstance(fig, HeadsFigure) and len(fig.panels) == n_heads
    groups = head_groups(fig.svg())
    assert len(groups) == n_heads
    for h, (panel, group) in enumerate(zip(fig.panels, groups)):
        g = h // (n_heads // n_kv)  # the standard mapping, 0-based
        assert fig.kv_heads[h] == g
        assert (group.get("data-head"), group.get("data-kv-head")) == (str(h + 1), str(g + 1))
        expected = [[brute_score(qi, kj) for kj in k[g]] for qi in q[h]]
        assert [list(row) for row in panel.attention.scores] == expected
        cells = {(int(c.get("data-q")), int(c.get("data-k"))): "".join(c.itertext()) for c in group.iter(f"{SVG_NS}g")
                 if "attnviz-cell" in c.get("class", "").split()}
        assert cells == {(i + 1, j + 1): attnviz.figure([q[h][i]], [k[g][j]], mask="none").words.cells[0][0].text
                         for i in range(len(q[h])) for j in range(len(k[g]))}


@pytest.mark.parametrize("n_heads, n_kv", [(2, 2), (4, 2), (4, 1), (8, 2), (8, 4)])
def test_the_head_mapping_is_pytorchs_enable_gqa(n_heads, n_kv):
    """PyTorch's scaled_dot_product_attention(enable_gqa=True) computes the same outputs, head by head:
    its KV head for query head h is ours (the exact named weights, evaluated here in float64)."""
    import torch

    rng = random.Random(n_heads * 10 + n_kv)
    n, d, dv = 4, 3, 2
    q = [[[rng.randint(-2, 2) for _ in range(d)] for _ in range(n)] for _ in range(n_heads)]
    k = [[[rng.randint(-2, 2) for _ in range(d)] for _ in range(n)] for _ in range(n_kv)]
    v = [[[rng.randint(-2, 2) for _ in range(dv)] for _ in range(n)] for _ in range(n_kv)]
    fig = attnviz.figure(q_heads=q, k_heads=k, v_heads=v)
    as_tensor = lambda x: torch.tensor(x, dtype=torch.float64)[None]  # noqa: E731 - (batch, heads, tokens, dim)
    theirs = torch.nn.functional.scaled_dot_product_attention(as_tensor(q), as_tensor(k), as_tensor(v), is_causal=True,
                                                              scale=1.0, enable_gqa=True)[0]
    for h, (panel, g) in enumerate(zip(fig.panels, fig.kv_heads)):
        for i in range(n):
            kept = [j for j in range(n) if panel.attention.kept[i][j]]
            e = [math.exp(x) for x in panel.attention.weights(i).exponents]
            ours = [sum(w * v[g][j][c] for w, j in zip(e, kept)) / sum(e) for c in range(dv)]
            assert ours == pytest.approx(theirs[h, i].tolist(), abs=1e-12)


def test_gqa_figure_names_its_mapping_and_writes_shared_keys_once():
    q = [[[1, 0], [0, 1]], [[1, 1], [0, 1]], [[2, 0], [1, 1]], [[0, 1], [1, 0]]]
    k = [[[1, 0], [0, 1]], [[1, 1], [1, -1]]]
    fig = attnviz.figure(q_heads=q, k_heads=k, v_heads=[[[1], [2]], [[3], [4]]])
    assert fig.title == ("Grouped-query attention (GQA): 4 query heads, 2 KV heads; query head h reads KV head "
                         "⌊(h−1)/2⌋+1")
    lines = [panel.words.k_line for panel in fig.panels]
    assert lines == ["K1=(1,0); K2=(0,1)", "K: KV head 1's, written in query head 1's panel",
                     "K1=(1,1); K2=(1,-1)", "K: KV head 2's, written in query head 3's panel"]
    assert [panel.words.subtitle for panel in fig.panels] == ["Reads KV head 1, shared by query heads 1–2."] * 2 + \
        ["Reads KV head 2, shared by query heads 3–4."] * 2
    assert fig.panels[3].words.more_vectors == ("V: KV head 2's, written in query head 3's panel",)
    assert fig.columns == 2  # one row per KV head


@pytest.mark.parametrize("n_heads, n_kv, title", [
    (1, 1, "Single-head attention: 1 query head, 1 KV head"),
    (3, 3, "Multi-head attention: 3 query heads, 3 KV heads; query head h reads KV head h"),
    (3, 1, "Multi-query attention (MQA): 3 query heads, 1 KV head; every query head reads KV head 1"),
])
def test_multi_head_and_multi_query_are_named(n_heads, n_kv, title):
    fig = attnviz.figure(q_heads=[[[1]]] * n_heads, k_heads=[[[1]]] * n_kv)
    assert fig.title == title


@pytest.mark.parametrize("kwargs, message", [
    (dict(q_heads=[[[1]]] * 3, k_heads=[[[1]]] * 2), "k_heads: 3 query heads cannot share 2 KV heads evenly"),
    (dict(q_heads=[[[1]]]), "k_heads: q_heads needs k_heads too"),
    (dict(q=[[1]], q_heads=[[[1]]], k_heads=[[[1]]]), "q: give q_heads, k_heads (and v_heads) for several heads"),
    (dict(q_heads=[[[1]]] * 17, k_heads=[[[1]]]), "q_heads: 17 query heads; the limit is 16"),
    (dict(q_heads=[[[1]]], k_heads=[[[1]]], v_heads=[[[1]], [[2]]]), "v_heads: 2 value heads for 1 key heads"),
    (dict(q_heads=[[[1, 0]]], k_heads=[[[1]]]), "head 1: q/k: q vectors have 2 entries but k vectors have 1"),
    (dict(q_heads=[[[1]] * 64] * 5, k_heads=[[[1]] * 64]), "q_heads: 5 heads draw 20,480 cells in all; the limit is "
                                                            "16,384"),
])
def test_bad_heads_are_refused(kwargs, message):
    with pytest.raises(attnviz.InputError) as err:
        attnviz.figure(**kwargs)
    assert str(err.value).startswith(message), str(err.value)


def test_spec_and_flags(tmp_path):
    spec = tmp_path / "gqa.toml"
    spec.write_text('q_heads = [[[1, 0]], [[0, 1]]]\nk_heads = [[[1, 0]]]\n', encoding="utf-8")
    result = run_cli("render", str(spec), "-o", str(tmp_path / "a.svg"))
    assert result.code == 0, result.stderr
    result = run_cli("render", "--q-heads", "1,0 | 0,1", "--k-heads", "1,0", "-o", str(tmp_path / "b.svg"))
    assert result.code == 0, result.stderr
    assert (tmp_path / "a.svg").read_bytes() == (tmp_path / "b.svg").read_bytes()
    result = run_cli("render", "--q-heads", "1,0 | 0,1 | 1,1", "--k-heads", "1,0 | 0,1", "-o", str(tmp_path / "c.svg"))
    assert result.code == 2 and result.stderr.startswith("attnviz: error: --k-heads: 3 query heads cannot share")


def test_walkthrough_goes_head_by_head(tmp_path):
    result = run_cli("walkthrough", "--q-heads", "1,0;0,1 | 1,1;0,1 | 2,0;1,1 | 0,1;1,0",
                     "--k-heads", "1,0;0,1 | 1,1;1,-1", "-o", str(tmp_path))
    assert result.code == 0, result.stderr
    paths = sorted((tmp_path / "steps").iterdir())
    assert [p.name for p in paths] == [f"0{h}-query-head-{h}.svg" for h in range(1, 5)]
    second = ET.fromstring(paths[1].read_text(encoding="utf-8"))
    heads = head_groups(ET.tostring(second, encoding="unicode"))
    states = [("pending" if "attnviz-pending" in ET.tostring(g, encoding="unicode") else "shown") for g in heads]
    assert states == ["shown", "shown", "pending", "pending"]
    cells, rows = computed(heads[1])
    assert set(cells) == {(1, 1), (2, 1), (2, 2)} and rows == [1, 2]
    assert computed(heads[0]) == ({}, [])
    text = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert "Query head 3 reads KV head 2, which query heads 3–4 share" in text


def test_a_heads_walkthrough_has_a_size_limit(tmp_path):
    heads = " | ".join([";".join(["1"] * 16)] * 16)
    result = run_cli("walkthrough", "--q-heads", heads, "--k-heads", heads, "-o", str(tmp_path))
    assert result.code == 2 and result.stderr.startswith(
        "attnviz: error: --q-heads: 16 steps of 4,096 cells each (one per query head, 16 panels a step) would draw "
        "65,536 cells; the limit is 60,000"), result.stderr


def test_flash_and_decode_walk_one_head(tmp_path):
    result = run_cli("walkthrough", "--q-heads", "1 | 2", "--k-heads", "1", "--decode", "1", "-o", str(tmp_path))
    assert result.code == 2 and result.stderr.startswith("attnviz: error: --decode: steps through one head")
