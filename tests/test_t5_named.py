"""T5's relative-position buckets without values (`--bias t5=NUM_BUCKETS,MAX_DISTANCE`): the bias is a name per
bucket, b[k], so the logits are named S_ij+b[k] and the weights named over them.

Checked against transformers: each cell's name is b[k] for the k `T5Attention._relative_position_bucket` gives it;
the drawn `data-weight` expressions, evaluated with b bound to numbers, equal torch's softmax of the scores plus
`relative_attention_bias`-style values looked up by transformers' buckets (written here, not by attnviz).
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from transformers.models.t5.modeling_t5 import T5Attention

import attnviz
from attnviz.numbers.exact import InputError
from clirun import run_cli

_CELL = re.compile(r'data-q="(\d+)" data-k="(\d+)"(?: data-value="([^"]*)")?(?: data-weight="([^"]*)")?')
_FUNCTIONS = {"exp": math.exp, "sqrt": math.sqrt}
SIX = [[1, 0], [0, 1], [1, 1], [1, -1], [0, 2], [2, 1]]


def buckets(n_q, n_k, causal, num_buckets, max_distance, past=0):
    """transformers' buckets for T5Attention.compute_bias: memory - context, context shifted by the cache."""
    context = torch.arange(n_q)[:, None] + past
    memory = torch.arange(n_k)[None, :]
    return T5Attention._relative_position_bucket(memory - context, bidirectional=not causal, num_buckets=num_buckets,
                                                 max_distance=max_distance)


def evaluated(svg, n_q, n_k, column, **names):
    """The figure's data-value (column 2) or data-weight (column 3) expressions, evaluated in float64."""
    out = np.full((n_q, n_k), np.nan)
    for match in _CELL.findall(svg):
        if match[column]:
            out[int(match[0]) - 1, int(match[1]) - 1] = eval(match[column], {"__builtins__": {}},  # noqa: S307
                                                             {**_FUNCTIONS, **names})
    return out


def test_each_logit_is_the_score_plus_the_name_of_transformers_bucket():
    fig = attnviz.figure(SIX, SIX, mask="none", bias="t5=8,8")
    expected = buckets(6, 6, False, 8, 8).tolist()
    for i in range(6):
        for j in range(6):
            logit = fig.attention.logits[i][j]
            assert logit.term == f"b[{expected[i][j]}]"
            assert logit.x == sum(a * b for a, b in zip(SIX[i], SIX[j]))  # the score, exact
    assert fig.attention.scores[1] == (0, 1, 1, -1, 2, 1)  # the scores stay exact numbers


@pytest.mark.parametrize("mask, causal", [("none", False), ("causal", True), ("window=2", True),
                                          ("window=3,symmetric", False)])
def test_the_drawn_weights_are_torch_s_softmax_for_any_values_of_b(mask, causal):
    fig = attnviz.figure(SIX, SIX, mask=mask, bias="t5=8,8")
    b = [0.5, -1.25, 2.0, 0.0, -0.75, 1.5, 3.0, -2.0]
    svg = fig.svg()
    drawn = evaluated(svg, 6, 6, 3, b=b)
    scores = torch.tensor(SIX, dtype=torch.float64) @ torch.tensor(SIX, dtype=torch.float64).T
    bias = torch.tensor(b, dtype=torch.float64)[buckets(6, 6, causal, 8, 8)]
    keep = torch.tensor([[fig.attention.kept[i][j] for j in range(6)] for i in range(6)])
    theirs = torch.softmax((scores + bias).masked_fill(~keep, float("-inf")), dim=-1).numpy()
    assert np.allclose(drawn, theirs, atol=1e-12, rtol=0)
    logits = evaluated(svg, 6, 6, 2, b=b)  # data-value: the score, as the grid shows it
    assert np.allclose(np.where(keep.numpy(), logits, 0), np.where(keep.numpy(), scores.numpy(), 0))


def test_with_show_logits_each_cell_s_value_names_its_bucket():
    svg = attnviz.figure(SIX, SIX, mask="none", bias="t5=8,8", show="logits").svg()
    assert 'data-q="1" data-k="2" data-value="b[5]"' in svg and 'data-q="2" data-k="2" data-value="1+b[0]"' in svg


def test_nothing_is_pinned_that_the_names_leave_open():
    fig = attnviz.figure(SIX, SIX, mask="causal", bias="t5=8,8")
    assert fig.attention.weights(0).kind == "pinned"  # one kept key: weight 1, whatever b[0] is
    assert all(fig.attention.weights(i).kind == "named" for i in range(1, 6))
    # equal scores in one bucket: b[k] cancels, 1/2 each; equal scores in two buckets: named
    same = attnviz.figure([[1, 0]], [[1, 0], [1, 0]], mask="none", bias="t5=8,64", align="bottom-right")
    assert same.attention.weights(0).kind == "named"  # keys 1 and 0 back: buckets 1 and 0
    assert "weights 1" in fig.words.softmax_rows[0].weights


def test_values_keep_everything_as_it_was():
    fig = attnviz.figure(SIX, SIX, mask="none", bias="t5=8,8,values=0,1,2,3,4,5,6,7", weights="decimal=3")
    assert all(isinstance(x, Fraction) for x in fig.attention.logits[0])
    assert "named T5" not in fig.svg() and "bias named" not in fig.svg()


def test_the_badge_title_desc_and_a11y_say_the_bias_is_named():
    fig = attnviz.figure(SIX, SIX, mask="none", bias="t5=32,128")
    svg = fig.svg()
    words = "T5 relative-position buckets (32 buckets, max distance 128), bias named per bucket"
    assert re.search(r"<desc[^>]*>[^<]*" + re.escape(words), svg)
    assert words in fig.description()
    assert "T5 bias named per bucket" in fig.words.badge
    assert fig.words.title == "Bidirectional attention, named T5 bias, 6 tokens"


def test_the_bias_view_shows_each_bucket_without_values():
    fig = attnviz.figure(SIX, SIX, mask="causal", bias="t5=8,8")
    panel = fig.bias_panel()
    expected = buckets(6, 6, True, 8, 8).tolist()
    svg = panel.svg()
    for cell in (c for row in panel.words.cells for c in row if not c.masked):
        assert cell.text == str(expected[cell.q - 1][cell.k - 1])
        assert f'data-q="{cell.q}" data-k="{cell.k}" data-value="{cell.text}" aria-label' in svg  # no weight
    assert "bias named per bucket" in panel.words.subtitle


def test_each_query_head_names_its_own_bias():
    fig = attnviz.figure(q_heads=[SIX[:3], SIX[3:]], k_heads=[SIX[:3]], bias="t5=8,8")
    first, second = (panel.attention.logits[2][0] for panel in fig.panels)
    assert (first.term, second.term) == ("b_1[2]", "b_2[2]")
    assert "exp(b_2[" in fig.svg()
    base0 = attnviz.figure(q_heads=[SIX[:3], SIX[3:]], k_heads=[SIX[:3]], bias="t5=8,8", index_base=0)
    assert base0.panels[1].attention.logits[0][0].term == "b_1[0]"  # heads 0 and 1
    assert attnviz.figure(SIX, SIX, bias="t5=8,8,head=3").attention.logits[1][0].term == "b_3[1]"


def test_a_decoder_step_names_the_buckets_from_the_query_s_position():
    fig = attnviz.figure(SIX[:2], SIX, bias="t5=8,8", align="bottom-right")
    expected = buckets(2, 6, True, 8, 8, past=4).tolist()
    assert [[x.term for x in row] for row in fig.attention.logits] == [[f"b[{k}]" for k in row] for row in expected]


@pytest.mark.parametrize("frame", ["doc", "slide", "slide-4:3", "column"])
@pytest.mark.parametrize("show", ["scores", "bias"])
def test_every_frame_draws_it(frame, show, tmp_path):
    out = tmp_path / "x.svg"
    result = run_cli("render", "--q", "1,0;0,1;1,1;1,-1", "--k", "1,0;0,1;1,1;1,-1", "--mask", "none", "--bias",
                     "t5=8,8", "--show", show, "--frame", frame, "-o", str(out))
    assert result.code == 0, result.stderr
    assert "b[" in out.read_text(encoding="utf-8") or show == "bias"


@pytest.mark.parametrize("args, where, words", [
    (("--weights", "decimal=3"), "--weights", "T5's b[k] are named"),
    (("--softcap", "50"), "--softcap", "of a named logit"),
    (("--sigmoid", "0"), "--sigmoid", "of a named logit"),
    (("--view", "mask"), "--bias", "the full or scores view"),
    (("--bias", "t5=8,8,values=0,0,0,0,0,0,0,0,head=2"), "--bias", "give one of them"),
    (("--bias", "t5=8,8,head=x"), "--bias", "head=H takes a head's number"),
])
def test_what_needs_the_values_is_refused_in_one_line(args, where, words, tmp_path):
    bias = () if "--bias" in args else ("--bias", "t5=8,8")
    result = run_cli("render", "--q", "1,0;0,1", "--k", "1,0;0,1", *bias, *args, "-o", str(tmp_path / "x.svg"))
    assert result.code == 2 and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith(f"attnviz: error: {where}") and words in result.stderr, result.stderr


@pytest.mark.parametrize("walk, words", [(("--flash", "2,2"), "running maximum"),
                                         (("--split-kv", "2"), "chunk maxima")])
def test_the_flash_walkthroughs_refuse_a_named_bias(walk, words, tmp_path):
    result = run_cli("walkthrough", "--q", "1,0;0,1;1,1", "--k", "1,0;0,1;1,1", "--bias", "t5=8,8", *walk, "-o",
                     str(tmp_path / "w"))
    assert result.code == 2 and result.stderr.count("\n") == 1 and words in result.stderr, result.stderr


@pytest.mark.parametrize("walk", [(), ("--decode", "2")])
def test_the_scores_and_decode_walkthroughs_draw_it(walk, tmp_path):
    result = run_cli("walkthrough", "--q", "1,0;0,1;1,1", "--k", "1,0;0,1;1,1", "--bias", "t5=8,8", *walk, "-o",
                     str(tmp_path / "w"))
    assert result.code == 0, result.stderr
    page = (tmp_path / "w" / "index.html").read_text(encoding="utf-8")
    assert "b[" in page


def test_differential_attention_and_a_later_score_mod_refuse_it():
    heads = dict(q_heads=[SIX[:3], SIX[3:]], k_heads=[SIX[:3]])
    with pytest.raises(InputError, match="certifies each entry's sign") as err:
        attnviz.figure(**heads, bias="t5=8,8", differential="1/2")
    assert "\n" not in str(err.value)

    def later(score, b, h, q_idx, kv_idx):
        return score

    with pytest.raises(InputError, match="put the score_mod first"):
        attnviz.figure(SIX, SIX, bias=["t5=8,8", later])


@pytest.mark.parametrize("fmt, name", [("pdf", "deck.pdf"), ("revealjs", "deck/"), ("beamer", "deck.tex"),
                                       ("pptx", "deck.pptx")])
def test_decks_draw_it(fmt, name, tmp_path):
    result = run_cli("slides", "-f", fmt, "--q", "1,0;0,1;1,1", "--k", "1,0;0,1;1,1", "--bias", "t5=8,8",
                     "-o", str(tmp_path / name))
    assert result.code == 0, result.stderr


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 7), st.sampled_from([(4, 8), (8, 8), (8, 16), (16, 12), (32, 128)]), st.booleans(),
       st.lists(st.floats(-3, 3), min_size=32, max_size=32))
def test_a_sample_of_grids_weighs_as_torch(n, sizes, causal, b):
    q = [[(i * 7 + c * 3) % 5 - 2 for c in range(2)] for i in range(n)]
    fig = attnviz.figure(q, q, mask="causal" if causal else "none", bias=f"t5={sizes[0]},{sizes[1]}")
    drawn = evaluated(fig.svg(), n, n, 3, b=b[:sizes[0]])
    scores = torch.tensor(q, dtype=torch.float64) @ torch.tensor(q, dtype=torch.float64).T
    bias = torch.tensor(b[:sizes[0]], dtype=torch.float64)[buckets(n, n, causal, *sizes)]
    if causal:
        scores = scores.masked_fill(torch.ones(n, n, dtype=torch.bool).triu(1), float("-inf"))
    assert np.allclose(drawn, torch.softmax(scores + bias, dim=-1).numpy(), atol=1e-12, rtol=0)


def test_heads_with_the_bias_view_are_refused_in_one_line(tmp_path):
    result = run_cli("render", "--q-heads", "1,0;0,1 | 0,1;1,1", "--k-heads", "1,0;0,1", "--bias", "t5=8,8",
                     "--show", "bias", "-o", str(tmp_path / "x.svg"))
    assert result.code == 2 and result.stderr.count("\n") == 1 and "one head's" in result.stderr, result.stderr
