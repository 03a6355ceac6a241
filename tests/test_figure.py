"""The figure: the seed's words, the anatomy for any input, determinism."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import attnviz
from attnviz.numbers.exact import format_number
from conftest import SVG_NS, svg_root, svg_text

small = st.integers(-4, 4)


@st.composite
def square_qk(draw, max_n=8):
    n, d = draw(st.integers(1, max_n)), draw(st.integers(1, 4))
    vecs = st.lists(st.lists(st.one_of(small, st.fractions(-3, 3, max_denominator=4)), min_size=d, max_size=d),
                    min_size=n, max_size=n)
    return draw(vecs), draw(vecs)


def cells(root):
    return [g for g in root.iter(f"{SVG_NS}g") if "attnviz-cell" in g.get("class", "").split()]


def test_default_figure_text_is_the_seed_line(seed_line):
    assert svg_text(attnviz.figure(highlight=[(3, 3)]).svg()) == seed_line


def test_default_figure_highlights_the_lower_right_cell():
    root = svg_root(attnviz.figure(highlight=[(3, 3)]).svg())
    computed = [g for g in cells(root) if "attnviz-computed" in g.get("class").split()]
    assert [(g.get("data-q"), g.get("data-k"), "".join(g.itertext())) for g in computed] == [("3", "3", "2")]


def test_root_anatomy():
    fig = attnviz.figure(id_prefix="fig1")
    root = svg_root(fig.svg())
    assert root.get("class") == "attnviz" and root.get("role") == "img"
    assert root.get("aria-labelledby") == "fig1-title fig1-desc"
    assert [child.tag for child in root][:2] == [f"{SVG_NS}title", f"{SVG_NS}desc"]
    assert root[0].get("id") == "fig1-title" and root[1].get("id") == "fig1-desc"
    assert root.get("viewBox") == f"0 0 {root.get('width')} {root.get('height')}"
    assert root.get("width") and root.get("height")
    ids = [el.get("id") for el in root.iter() if el.get("id")]
    assert all(i == "fig1" or i.startswith("fig1-") for i in ids) and len(ids) == len(set(ids))


@given(square_qk())
def test_anatomy_for_random_inputs(vectors):
    q, k = vectors
    fig = attnviz.figure(q, k, highlight=["softmax=1", (len(q), 1)])
    root = svg_root(fig.svg())
    grid = cells(root)
    assert len(grid) == len(q) * len(k)
    for g in grid:
        i, j = int(g.get("data-q")), int(g.get("data-k"))
        classes = set(g.get("class").split())
        text = "".join(g.itertext())
        if j <= i:
            assert "attnviz-score" in classes and "attnviz-masked" not in classes
            exact = sum((Fraction(a) * Fraction(b) for a, b in zip(q[i - 1], k[j - 1])), Fraction(0))
            assert text == format_number(exact)
        else:
            assert "attnviz-masked" in classes and text == "masked"
        assert ("attnviz-computed" in classes) == ((i, j) == (len(q), 1))
    rows = [g for g in root.iter(f"{SVG_NS}g") if "attnviz-softmax-row" in g.get("class", "").split()]
    assert [g.get("data-q") for g in rows] == [str(i) for i in range(1, len(q) + 1)]
    assert ["attnviz-computed" in g.get("class") for g in rows] == [i == 0 for i in range(len(q))]
    assert "".join(rows[0].itertext()).startswith("row 1: scores [")


def test_unseen_vectors_are_exact_everywhere():
    q = [[-1, "1/2"], ["0.25", 3], [2, -2], [0, "-0.5"]]
    k = [[1, 1], [-2, "3/4"], ["1.5", 0], [4, 1]]
    text = svg_text(attnviz.figure(q, k).svg())
    assert "Q1=(-1,1/2); Q2=(1/4,3); Q3=(2,-2); Q4=(0,-1/2)" in text
    assert "displayed Q,K rational vectors" in text
    assert "row 2: scores [13/4,7/4]weights e^(13/4)/(e^(13/4)+e^(7/4)), e^(7/4)/(e^(13/4)+e^(7/4))" in text
    assert "row 4: scores [-1/2,-3/8,0,-1/2]" in text


def test_uniform_and_single_rows_are_pinned():
    text = svg_text(attnviz.figure([[1], [1], [1]], [[2], [2], [2]]).svg())
    assert ("row 1: scores [2]weights 1row 2: scores [2,2]weights 1/2, 1/2"
            "row 3: scores [2,2,2]weights 1/3, 1/3, 1/3") in text


def test_api_accepts_tuples_fractions_and_numpy():
    a = attnviz.figure(np.array([[1, 0], [0, 1]]), ((Fraction(1), 0), (0, 1)))
    b = attnviz.figure([[1, 0], [0, 1]], [[1, 0], [0, 1]])
    assert a.svg() == b.svg()


def test_same_input_same_bytes():
    assert attnviz.figure(highlight=[(3, 3)]).svg() == attnviz.figure(highlight=[(3, 3)]).svg()


def test_different_figures_get_different_id_prefixes():
    assert attnviz.figure(highlight=[(3, 3)]).id_prefix != attnviz.figure(highlight=[(1, 1)]).id_prefix


def test_save_writes_file(tmp_path):
    path = attnviz.figure().save(tmp_path / "a" / "b.svg")
    assert path.read_text(encoding="utf-8") == attnviz.figure().svg() + "\n"


@pytest.mark.parametrize("target, cells_, rows_", [
    ("2,1", {(2, 1)}, set()),
    ("row=2", {(2, 1), (2, 2), (2, 3)}, set()),
    ("mask", {(1, 2), (1, 3), (2, 3)}, set()),
    ("softmax=3", set(), {3}),
    ("softmax", set(), {1, 2, 3}),
    ((np.argmax([0, 0, 5]) + 1, np.int32(2)), {(3, 2)}, set()),  # numpy indices, as argmax gives them
])
def test_highlight_targets(target, cells_, rows_):
    fig = attnviz.figure(highlight=[target])
    assert fig.highlight.cells == cells_ and fig.highlight.softmax_rows == rows_


@pytest.mark.parametrize("target, message", [
    ("4,1", "row 4 is outside the grid (rows 1..3)"), ("1,9", "column 9 is outside the grid"),
    ("x", "expected I,J, row=I, mask, softmax=I, softmax, output=I or output"),
    ((1, 2, 3), "expected a pair of integers"), ("softmax=0", "row 0 is outside the grid"),
    ((True, 1), "expected a pair of integers"), ((1.0, 2), "expected a pair of integers"),
    ("output=1", "the figure has no outputs: give value vectors (v)"),
])
def test_bad_highlight(target, message):
    with pytest.raises(attnviz.InputError) as err:
        attnviz.figure(highlight=[target])
    assert message in str(err.value)


def test_output_highlight_marks_that_output_row_like_a_softmax_row():
    fig = attnviz.figure(v=[[1], [2], [3]], highlight=["output=2"])
    assert fig.highlight.outputs == {2} and not fig.highlight.cells and not fig.highlight.softmax_rows
    assert attnviz.figure(v=[[1], [2], [3]], highlight=["output"]).highlight.outputs == {1, 2, 3}
    root = svg_root(fig.svg())
    assert root.get("aria-description").endswith("; output of row 2 computed this step")
    rows = {g.get("data-q"): g for g in root.iter(f"{SVG_NS}g") if "attnviz-output-row" in g.get("class").split()}
    assert rows["2"].get("class") == "attnviz-output-row attnviz-computed"
    assert [r.get("class") for r in rows["2"].iter(f"{SVG_NS}rect")] == ["attnviz-output-band", "attnviz-output-bar"]
    assert "".join(rows["2"].itertext()) == "O2 = w21·V1 + w22·V2"
    assert [rows[q].get("class") for q in "13"] == ["attnviz-output-row"] * 2
    assert not list(rows["1"].iter(f"{SVG_NS}rect"))
    # Figures that differ only in the highlighted output get different ids; an unhighlighted one keeps its id.
    assert fig.id_prefix != attnviz.figure(v=[[1], [2], [3]], highlight=["output=3"]).id_prefix
    with pytest.raises(attnviz.InputError, match=r"row 4 is outside the grid \(rows 1..3\)"):
        attnviz.figure(v=[[1], [2], [3]], highlight=["output=4"])


def test_text_and_attributes_are_escaped():
    fig = attnviz.figure(title='<script>alert("x")</script> & co', subtitle="a ]]> b",
                         q_tokens=["<b>", "&amp;", '"q"'], k_tokens=["'k'", "<!--", "x"])
    svg = fig.svg()
    root = svg_root(svg)
    assert "<script" not in svg and "<b>" not in svg and "<!--" not in svg
    assert root[0].text == '<script>alert("x")</script> & co'
    assert "&amp;" in svg_text(svg) and "'k'" in svg_text(svg)


def test_notebook_displays_get_fresh_ids_and_svg_stays_deterministic():
    fig = attnviz.figure(highlight=[(3, 3)], theme="auto")  # auto carries a <style> scoped by id
    shown = [svg_root(fig.display_svg()) for _ in range(3)]
    prefixes = [root.get("id") for root in shown]
    assert len(set(prefixes)) == 3 and all(p.startswith(fig.id_prefix + "-") for p in prefixes)
    for root in shown:
        style = root.find(f"{SVG_NS}style").text
        assert f"#{root.get('id')})" in style and f"#{fig.id_prefix})" not in style
    assert fig.svg() == fig.svg() and fig.svg() != fig.display_svg()


@pytest.mark.parametrize("prefix", ["", "1abc", "a b", "a{}", "x" * 65, "a\n", None.__class__.__name__ + "!"])
def test_unsafe_id_prefixes_are_refused(prefix):
    with pytest.raises(attnviz.InputError, match="not a usable id prefix"):
        attnviz.figure(id_prefix=prefix)
