"""T5's relative-position buckets (`--bias t5=NUM_BUCKETS,MAX_DISTANCE,values=...`; without values:
test_t5_named.py; `attnviz model --buckets`: test_t5_model_buckets.py): each cell's bucket an exact
integer equal to transformers' `T5Attention._relative_position_bucket` (bidirectional as T5's encoder when the mask
is not causal, one-sided as its decoder when it is), the logit S_ij + b[bucket], and the bucket grid as the bias
panel draws it."""

import math
from fractions import Fraction

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from transformers.models.t5.modeling_t5 import T5Attention

import attnviz
from attnviz.engine.t5_buckets import parse_t5, relative_position_bucket
from attnviz.numbers.exact import InputError
from clirun import run_cli

DISTANCES = torch.arange(-4096, 4097)


def theirs(bidirectional, num_buckets, max_distance, positions=DISTANCES):
    return T5Attention._relative_position_bucket(positions, bidirectional=bidirectional, num_buckets=num_buckets,
                                                 max_distance=max_distance).tolist()


SIZES = [(32, 128), (32, 256), (64, 128), (16, 64), (128, 512), (8, 16), (4, 8)]


@pytest.mark.parametrize("bidirectional, num_buckets, max_distance",
                         [(b, n, d) for b in (True, False) for n, d in SIZES] + [(False, 2, 3)])
def test_every_distance_to_4096_is_bucketed_as_transformers_buckets_it(bidirectional, num_buckets, max_distance):
    ours = [relative_position_bucket(r, bidirectional, num_buckets, max_distance) for r in range(-4096, 4097)]
    assert ours == theirs(bidirectional, num_buckets, max_distance)


def _value(n, num_buckets, max_distance):
    """log(n/e)/log(D/e)·(B-e), in floats: how near a whole number it is."""
    exact = num_buckets // 2
    return math.log(n / exact) / math.log(max_distance / exact) * (num_buckets - exact)


@settings(max_examples=30, deadline=None)
@given(st.integers(4, 256), st.integers(2, 2000), st.booleans())
def test_a_sample_of_sizes_is_bucketed_as_transformers_away_from_float32_ties(num_buckets, max_distance, bidirectional):
    half = num_buckets // 2 if bidirectional else num_buckets
    if max_distance <= half // 2:
        return
    positions = torch.arange(-1500, 1501)
    expected = theirs(bidirectional, num_buckets, max_distance, positions)
    for r, bucket in zip(range(-1500, 1501), expected):
        n = abs(r)
        if n >= half // 2 and abs(_value(n, half, max_distance) - round(_value(n, half, max_distance))) < 1e-4:
            continue  # float32 may round a value a hair below a whole number up (the test below pins one)
        assert relative_position_bucket(r, bidirectional, num_buckets, max_distance) == bucket, (r, num_buckets)


def test_where_float32_rounds_up_attnviz_keeps_the_formula_s_floor():
    # log(2722/77)/log(2851/77)·78 = 76.99999806...: the floor is 76, so the bucket 77 + 76 = 153
    assert relative_position_bucket(-2722, False, 155, 2851) == 153
    assert theirs(False, 155, 2851, torch.tensor([-2722])) == [154]  # float32's


def t5_cells(n_q, n_k, causal, num_buckets, max_distance, past=0):
    """T5Attention.compute_bias's positions: memory - context, context shifted by the cache's length."""
    context = torch.arange(n_q)[:, None] + past
    memory = torch.arange(n_k)[None, :]
    return T5Attention._relative_position_bucket(memory - context, bidirectional=not causal, num_buckets=num_buckets,
                                                 max_distance=max_distance).tolist()


SIX = [[1, 0], [0, 1], [1, 1], [1, 2], [2, 1], [0, 2]]
VALUES = "0,1/2,1,-1,2,1/4,-1/2,3"


@pytest.mark.parametrize("mask, causal", [("none", False), ("causal", True), ("window=3,symmetric", False),
                                          ("window=2", True)])
def test_the_grid_s_buckets_follow_the_mask_as_t5_s_encoder_and_decoder_do(mask, causal):
    fig = attnviz.figure(SIX, SIX, mask=mask, bias=f"t5=8,8,values={VALUES}")
    bias = fig.attention.biases[0]
    assert [[bias.buckets(i, j) for j in range(6)] for i in range(6)] == t5_cells(6, 6, causal, 8, 8)
    values = [Fraction(v) for v in VALUES.split(",")]
    for i in range(6):
        for j in range(6):
            assert bias.value(i, j) == values[bias.buckets(i, j)]
    panel = fig.bias_panel()
    kept = [cell for row in panel.words.cells for cell in row if not cell.masked]
    assert all(cell.text == str(bias.buckets(cell.q - 1, cell.k - 1)) for cell in kept)
    assert ("one-sided, as T5's decoder" if causal else "bidirectional, as T5's encoder") in panel.words.subtitle


def test_a_decoder_step_with_a_cache_buckets_from_the_query_s_position():
    q, k = SIX[:2], SIX
    fig = attnviz.figure(q, k, align="bottom-right", bias=f"t5=8,8,values={VALUES}")
    bias = fig.attention.biases[0]
    assert [[bias.buckets(i, j) for j in range(6)] for i in range(2)] == t5_cells(2, 6, True, 8, 8, past=4)
    assert bias.at(2, 3) == ("+b[3]", "-1")  # query 2 at position 6, key 3: three back, bucket 3, b[3] = -1


def test_the_logits_are_the_scores_plus_the_bucket_s_value():
    fig = attnviz.figure(SIX, SIX, mask="none", bias=f"t5=8,8,values={VALUES}")
    assert "L_ij=S_ij+b[bucket(j-i)]" in fig.words.grid_caption


@pytest.mark.parametrize("text, words", [
    ("t5=8,x", "expected NUM_BUCKETS,MAX_DISTANCE"), ("t5=8,4,values=1,2", "2 values for 8 buckets"),
    ("t5=8,4,head=1,values=0", "give one of them"), ("t5=8,4,head=-1", "head=H takes a head's number"),
    ("t5=8", "expected NUM_BUCKETS,MAX_DISTANCE"), ("t5=2,4,values=0,1", "at least 4"),
    ("t5=8,2,values=0,0,0,0,0,0,0,0", "must exceed"), ("t5=8,4,values=a,0,0,0,0,0,0,0", "not a number"),
])
def test_bad_t5_biases_are_refused_in_one_line(text, words, tmp_path):
    result = run_cli("render", "--q", "1,0;0,1", "--k", "1,0;0,1", "--mask", "none", "--bias", text, "-o",
                     str(tmp_path / "x.svg"))
    assert result.code == 2 and result.stderr.count("\n") == 1 and words in result.stderr, result.stderr


def test_parse_reads_sizes_and_values():
    assert parse_t5("32,128,values=" + ",".join(["0"] * 32))[:2] == (32, 128)
    assert parse_t5("32,128") == (32, 128, None, None) and parse_t5("8,16,head=4")[3] == 4
    with pytest.raises(InputError):
        parse_t5("x,y,values=0")


@pytest.mark.parametrize("bidirectional", [True, False])
def test_the_model_note_s_ranges_are_transformers_buckets(bidirectional):
    from attnviz.engine.t5_buckets import bucket_ranges

    ranges = bucket_ranges(bidirectional, 32, 128)
    buckets = theirs(bidirectional, 32, 128, -torch.arange(0, 400))
    for bucket, (first, last) in enumerate(ranges):
        held = [n for n in range(400) if buckets[n] == bucket]
        assert held[0] == first and (held[-1] == last if last is not None else held[-1] == 399)


def test_attnviz_model_says_a_t5_config_s_buckets():
    from attnviz.figures.model import model_figure

    fig = model_figure({"model_type": "t5", "num_layers": 1, "num_decoder_layers": 1,
                        "relative_attention_num_buckets": 32, "relative_attention_max_distance": 128}, n=4)
    note = fig.notes[-1]
    assert note.startswith("Relative-position bias: 32 buckets, max distance 128")
    assert "8–11, 12–15, 16–22, 23–31, 32–45, 46–63, 64–90, 91+" in note
