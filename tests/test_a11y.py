"""What the figure says to assistive technology: generated from the numbers, in attributes only."""

import pytest
from conftest import SVG_NS, svg_root, svg_text

import attnviz


def cell_labels(svg):
    return {(g.get("data-q"), g.get("data-k")): g.get("aria-label")
            for g in svg_root(svg).iter(f"{SVG_NS}g") if g.get("data-k")}


def test_default_figure_describes_itself(seed_line):
    svg = attnviz.figure(highlight=[(3, 3)]).svg()
    root = svg_root(svg)
    assert root.get("aria-description") == ("3 by 3 causal attention scores; 3 cells masked; "
                                            "cell (3,3) computed this step")
    assert root.get("role") == "img"
    assert root[0].text == "Attention honesty boundary"
    assert root[1].text == "Exact score and mask structure with named softmax."
    assert svg_text(svg) == seed_line  # the sentences add no text nodes


def test_every_cell_is_labelled():
    labels = cell_labels(attnviz.figure(highlight=[(3, 3)]).svg())
    assert labels["3", "3"] == "Q3 K3 score 2, computed this step"
    assert labels["1", "2"] == "Q1 K2 masked"
    assert labels["2", "1"] == "Q2 K1 score 0"
    assert len(labels) == 9


def test_token_labels_and_exact_scores_in_labels():
    fig = attnviz.figure([[1, "1/2"], [0, 1]], [[1, 1], [-1, "3/4"]], tokens=["<s>", "cat"], highlight=["mask"])
    labels = cell_labels(fig.svg())
    assert labels == {("1", "1"): "Q(<s>) K(<s>) score 3/2", ("1", "2"): "Q(<s>) K(cat) masked, computed this step",
                      ("2", "1"): "Q(cat) K(<s>) score 1", ("2", "2"): "Q(cat) K(cat) score 3/4"}
    assert fig.description() == "2 by 2 causal attention scores; 1 cell masked; cell (1,2) computed this step"


def test_a_logit_cell_is_labelled_as_a_logit():
    fig = attnviz.figure([[1, 1], [0, 1]], [[1, 1], [0, 1]], scale="sqrt", show="logits", highlight=[(2, 2)])
    labels = cell_labels(fig.svg())
    assert labels["1", "1"] == "Q1 K1 logit √2"
    assert labels["2", "2"] == "Q2 K2 logit √2/2, computed this step"
    assert fig.description() == "2 by 2 causal attention logits; 1 cell masked; cell (2,2) computed this step"
    assert cell_labels(attnviz.figure([[1, 1]], [[1, 1]], scale="sqrt").svg())["1", "1"] == "Q1 K1 score 2"


@pytest.mark.parametrize("highlight, sentence", [
    (None, "1 by 1 causal attention scores; no cells masked"),
    (["softmax"], "1 by 1 causal attention scores; no cells masked; softmax of row 1 computed this step"),
])
def test_sentences_for_small_figures(highlight, sentence):
    assert attnviz.figure([[1]], [[1]], highlight=highlight).description() == sentence


def test_many_highlighted_cells_are_counted_not_listed():
    q = [[i] for i in range(12)]
    fig = attnviz.figure(q, q, highlight=["mask", "softmax=2", "softmax=3"])
    assert fig.description() == ("12 by 12 causal attention scores; 66 cells masked; 66 cells computed this step; "
                                 "softmax of rows 2, 3 computed this step")
