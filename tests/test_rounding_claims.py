"""Issue 36: rounding is part of the claim, and numbers are written in the form they came in."""

import re
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

import attnviz
from clirun import run_cli

Q = [[1.713, 1.8], [0.64, -0.3]]
K = [[1.7, 1.8], [-3.3333, 0.1]]
CLAIM = "exact for inputs rounded to 2 decimals"


def test_every_claim_of_exactness_says_the_inputs_were_rounded():
    fig = attnviz.figure(Q, K, decimals=2)
    svg = fig.svg()
    words = fig.words
    assert words.badge == f"scores {CLAIM}, exact causal mask, named softmax"
    assert words.subtitle == f"Score and mask structure with named softmax, {CLAIM}."
    assert words.title == f"Causal attention, 2 tokens ({CLAIM})"
    desc = re.search(r"<desc [^>]*>([^<]*)</desc>", svg)[1]
    title = re.search(r"<title [^>]*>([^<]*)</title>", svg)[1]
    assert CLAIM in desc and CLAIM in title
    assert re.search(r'aria-description="[^"]*' + CLAIM, svg)
    assert "Exact" not in desc and "exact scores" not in svg
    # not rounded: the claims as they were
    plain = attnviz.figure([[1, 2]], [[3, 4]])
    assert plain.words.badge == "exact scores, exact causal mask, named softmax" and "rounded" not in plain.svg()


def test_verbose_gives_the_largest_rounding_error(tmp_path):
    result = run_cli("render", "--q", "1.713,1.8; 0.64,-0.3", "--k", "1.7,1.8; -3.3333,0.1", "--decimals", "2",
                     "--verbose", "-o", str(tmp_path / "f.svg"))
    assert result.code == 0
    # |-3.3333 - -3.33| = 0.0033 is the largest (|1.713 - 1.71| = 0.003)
    assert "attnviz: inputs rounded to 2 decimals: the largest rounding error is 0.0033 (k row 2, entry 1)\n" \
        in result.stderr


def test_decimals_stay_decimals():
    fig = attnviz.figure([[1.71, 1.8, 0.64, -0.3]], [[-3.12, 2.5, 1.1, 0.35]], decimals=2)
    words = fig.words
    assert words.q_line == "Q1=(1.71,1.8,0.64,-0.3)" and "/" not in words.k_line
    # 1.71·-3.12 + 1.8·2.5 + 0.64·1.1 + -0.3·0.35 = -5.3352 + 4.5 + 0.704 - 0.105
    assert words.cells[0][0].text == "-0.2362"
    assert "171/100" not in fig.svg() and "-0.2362" in fig.svg()
    # typed decimals too, from the command line's text
    fig = attnviz.figure([["0.5", "2"], ["1", "-0.25"]], [["1.5", "0"], ["0", "4"]])
    assert fig.words.q_line == "Q1=(0.5,2); Q2=(1,-0.25)" and fig.words.cells[1][0].text == "1.5"


def test_fractions_where_a_value_does_not_end_and_one_form_for_each_kind():
    # typed fractions stay fractions; a mix of the two forms keeps fractions
    assert attnviz.figure([["1/2", "3"]], [["1/4", "1"]]).words.q_line == "Q1=(1/2,3)"
    assert attnviz.figure([["1/2", "0.5"]], [["1", "1"]]).words.q_line == "Q1=(1/2,1/2)"
    # equal scores pin weights 1/3: a weight is computed, never written as 0.333..
    fig = attnviz.figure([[0.5]] * 3, [[1.5]] * 3, mask="none")
    assert fig.words.softmax_rows[0].weights == "weights 1/3, 1/3, 1/3"
    assert fig.words.cells[0][0].text == "0.75"
    # scaled by 1/3: the logits do not end, so every score and logit of the figure is a fraction
    fig = attnviz.figure([[0.5], [1.5]], [[1.5], [0.5]], scale="1/3", show="logits")
    texts = [c.text for row in fig.words.cells for c in row if not c.masked]
    assert texts == ["1/4", "3/4", "1/4"] and "0.75" not in fig.words.softmax_rows[1].scores


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.decimals(-9, 9, places=2, allow_nan=False), min_size=2, max_size=2), min_size=2,
                max_size=3))
def test_values_that_came_as_decimals_are_written_digit_for_digit(rows):
    q = [[str(x) for x in row] for row in rows]
    fig = attnviz.figure(q, q)
    for n, row in enumerate(rows):
        assert fig.words.q_line.split("; ")[n].split("=")[1] == "(" + ",".join(_plain(x) for x in row) + ")"
    for i, row in enumerate(fig.words.cells):
        for j, cell in enumerate(row):
            if not cell.masked:
                exact = sum(Fraction(a) * Fraction(b) for a, b in zip(rows[i], rows[j]))
                assert "/" not in cell.text and Fraction(cell.text) == exact


def _plain(x):
    """A decimal as attnviz writes it: no trailing zeros, no exponent."""
    value = Fraction(x)
    if value.denominator == 1:
        return str(value.numerator)
    return format(x.normalize(), "f") if x != 0 else "0"


def test_every_head_of_a_heads_figure_says_the_inputs_were_rounded():
    fig = attnviz.figure(q_heads=[[[0.123, 1], [1, 0.5]], [[1, 1], [0.25, 2]]], k_heads=[[[1, 0.333], [0.1, 1]]],
                         decimals=2)
    assert fig.description().count(CLAIM) == 2
    assert all(panel.words.badge.startswith(f"scores {CLAIM}") for panel in fig.panels)


def test_narrow_float_inputs_are_said_to_be_read_as_their_shortest_decimals():
    import numpy as np
    import torch

    for q in (torch.tensor([[0.1, 0.2], [0.3, 1.5]]), np.array([[0.1, 0.2], [0.3, 1.5]], dtype=np.float16)):
        fig = attnviz.figure(q=q, k=[[1, 0], [0, 1]])
        dtype = str(q.dtype).removeprefix("torch.")
        claim = f"exact for {dtype} inputs read as their shortest decimals"
        assert fig.words.badge == f"scores {claim}, exact causal mask, named softmax"
        assert claim in fig.words.subtitle and claim in fig.words.title and claim in fig.description()
        assert fig.words.q_line == "Q1=(0.1,0.2); Q2=(0.3,1.5)"  # as float32 prints them, not 0.10000000149...
    wide = attnviz.figure(q=torch.tensor([[0.1, 0.2]], dtype=torch.float64), k=[[1, 0]])
    assert wide.words.badge.startswith("exact scores")
