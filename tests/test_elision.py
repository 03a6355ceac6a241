"""Elision at the edge: an axis of up to 8 is drawn whole, 9 is the first length that leaves something out.

Expected rows, keys and captions are written out by hand here, not computed by attnviz."""

import re
import xml.etree.ElementTree as ET

import pytest

import attnviz

SVG = "{http://www.w3.org/2000/svg}"


def vectors(n):
    return [[i + 1] for i in range(n)]


def drawn_cells(fig):
    """{(q, k)} of the grid cells the SVG draws (1-based data-q/data-k)."""
    root = ET.fromstring(fig.svg())
    return {(int(g.get("data-q")), int(g.get("data-k"))) for g in root.iter(f"{SVG}g")
            if "attnviz-cell" in (g.get("class") or "").split()}


@pytest.mark.parametrize("n", [7, 8])
def test_an_axis_of_7_or_8_is_drawn_whole_with_no_elision_words(n):
    q = vectors(n)
    fig = attnviz.figure(q, q, elide=True)
    whole = attnviz.figure(q, q)
    assert fig.words.q_labels == tuple(f"Q{i}" for i in range(1, n + 1))
    assert fig.words.k_labels == tuple(f"K{j}" for j in range(1, n + 1))
    assert [r.q for r in fig.words.softmax_rows] == list(range(1, n + 1))
    assert drawn_cells(fig) == {(i, j) for i in range(1, n + 1) for j in range(1, n + 1)}
    assert fig.words.elided == ""
    assert fig.words.grid_caption == "score S_ij=Qi·Kj with causal mask"
    assert fig.description() == f"{n} by {n} causal attention scores; {n * (n - 1) // 2} cells masked"
    assert fig.words.q_line == "; ".join(f"Q{i}=({i})" for i in range(1, n + 1))
    assert fig.words.softmax_rows[-1].scores == f"row {n}: scores [{','.join(str(n * j) for j in range(1, n + 1))}]"
    svg = fig.svg()
    assert "not shown" not in svg and "⋮" not in svg and "⋯" not in svg and "more …" not in svg
    assert svg == whole.svg()


def test_9_is_the_first_length_that_leaves_rows_and_keys_out():
    q = vectors(9)
    fig = attnviz.figure(q, q, elide=True)
    assert fig.words.q_labels == ("Q1", "Q2", "Q3", "Q4", "⋮", "Q8", "Q9")
    assert fig.words.k_labels == ("K1", "K2", "K3", "K4", "⋯", "K8", "K9")
    assert [r.q for r in fig.words.softmax_rows] == [1, 2, 3, 4, 8, 9]
    shown = [1, 2, 3, 4, 8, 9]
    assert drawn_cells(fig) == {(i, j) for i in shown for j in shown}
    assert fig.words.elided == "rows 5–7 and keys 5–7 not shown"
    assert fig.words.grid_caption == "score S_ij=Qi·Kj with causal mask; rows 5–7 and keys 5–7 not shown"
    assert fig.description() == "9 by 9 causal attention scores; 36 cells masked; rows 5–7 and keys 5–7 not shown"
    assert fig.words.q_line == "Q1=(1); Q2=(2); Q3=(3); Q4=(4); …; Q8=(8); Q9=(9)"
    assert fig.words.softmax_rows[-1].scores == "row 9: scores [9,18,27,… 4 more …,72,81]"
    assert "rows 5–7 and keys 5–7 not shown" in fig.svg()


def test_at_9_a_highlight_brings_its_row_and_key_back():
    fig = attnviz.figure([[1]] * 9, [[1]] * 9, elide=True, highlight=["6,7"])
    assert fig.words.q_labels == ("Q1", "Q2", "Q3", "Q4", "⋮", "Q6", "⋮", "Q8", "Q9")
    assert fig.words.k_labels == ("K1", "K2", "K3", "K4", "⋯", "K7", "K8", "K9")
    assert fig.words.elided == "rows 5, 7 and keys 5–6 not shown"


@pytest.mark.parametrize("n_q, n_k, left_out", [
    (8, 9, "keys 5–7 not shown"),
    (9, 8, "rows 5–7 not shown"),
    (7, 10, "keys 5–8 not shown"),
])
def test_only_the_long_axis_is_elided(n_q, n_k, left_out):
    fig = attnviz.figure(vectors(n_q), vectors(n_k), mask="none", elide=True)
    assert fig.words.elided == left_out
    rows = [i for i in range(1, n_q + 1) if n_q <= 8 or i <= 4 or i > n_q - 2]
    keys = [j for j in range(1, n_k + 1) if n_k <= 8 or j <= 4 or j > n_k - 2]
    assert drawn_cells(fig) == {(i, j) for i in rows for j in keys}
    assert fig.words.grid_caption.endswith("; " + left_out)


def test_the_first_elided_length_tells_the_count_in_each_long_caption():
    fig = attnviz.figure(vectors(10), vectors(10), mask="none", elide=True)
    assert fig.words.elided == "rows 5–8 and keys 5–8 not shown"
    assert re.fullmatch(r"row 10: scores \[10,20,30,… 5 more …,90,100\]", fig.words.softmax_rows[-1].scores)
