"""`attnviz model CONFIG --buckets`: a T5 config's self-attention stacks drawn as bucket grids, every drawn cell
equal to transformers' `T5Attention._relative_position_bucket` as `T5Attention.compute_bias` calls it (the encoder
bidirectional, the decoder not, a decoding query at its own position), in every frame."""

from __future__ import annotations

import json
import math
import re

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from transformers import T5Config
from transformers.models.t5.modeling_t5 import T5Attention

from attnviz.engine.t5_buckets import bucket_ranges
from attnviz.figures.model import model_figure
from attnviz.layout.frames import get_frame, text_floor_misses
from attnviz.numbers.exact import InputError
from clirun import run_cli
from test_layout import assert_clean

_CELL = re.compile(r'data-q="(\d+)" data-k="(\d+)"(?: data-value="(\d+)")?')


def compute_bias_buckets(config, n_q, n_k, is_decoder, past=0):
    """The buckets T5Attention.compute_bias looks b up with: its relative_position and its config's sizes."""
    context = torch.arange(past, past + n_q)[:, None]
    memory = torch.arange(n_k)[None, :]
    return T5Attention._relative_position_bucket(memory - context, bidirectional=not is_decoder,
                                                 num_buckets=config.relative_attention_num_buckets,
                                                 max_distance=config.relative_attention_max_distance).tolist()


def drawn_buckets(fig):
    """{stack: {(q, k): bucket}} of the kept cells each bucket panel draws (data-q, data-k 1-based)."""
    out = {}
    for plan, panel in zip(fig.plans, fig.panels):
        svg = panel.svg()
        out[plan.stack] = {(int(q), int(k)): int(v) for q, k, v in _CELL.findall(svg) if v}
    return out


CONFIGS = [{"model_type": "t5", "num_layers": 6},
           {"model_type": "t5", "num_layers": 2, "num_decoder_layers": 3, "relative_attention_num_buckets": 8,
            "relative_attention_max_distance": 16},
           {"model_type": "mt5", "num_layers": 4, "relative_attention_num_buckets": 16,
            "relative_attention_max_distance": 20}]


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("n, decoder_n, decode", [(24, 12, 0), (12, 9, 4)])
def test_every_cell_is_transformers_bucket_in_the_encoder_and_the_decoder(config, n, decoder_n, decode):
    theirs = T5Config(**{k: v for k, v in config.items() if k != "model_type"})
    fig = model_figure(config, n=n, decoder_n=decoder_n, decode=decode, buckets=True)
    assert [plan.stack for plan in fig.plans] == ["encoder", "decoder"]
    drawn = drawn_buckets(fig)
    encoder = compute_bias_buckets(theirs, n, n, False)
    assert drawn["encoder"] == {(i + 1, j + 1): encoder[i][j] for i in range(n) for j in range(n)}
    n_q = decoder_n - decode if decode else decoder_n
    decoder = compute_bias_buckets(theirs, n_q, decoder_n, True, past=decoder_n - n_q)
    kept = {(i + 1, j + 1): decoder[i][j] for i in range(n_q) for j in range(decoder_n) if j <= i + decoder_n - n_q}
    assert drawn["decoder"] == kept  # the causal mask hides the rest


def test_padding_masks_keys_and_keeps_the_buckets_of_the_rest():
    config = CONFIGS[1]
    fig = model_figure(config, n=10, pad_right=3, decoder_n=4, buckets=True)
    encoder = compute_bias_buckets(T5Config(relative_attention_num_buckets=8, relative_attention_max_distance=16),
                                   10, 10, False)
    assert drawn_buckets(fig)["encoder"] == {(i + 1, j + 1): encoder[i][j] for i in range(10) for j in range(7)}


def test_the_note_says_who_owns_the_bias_and_that_cross_attention_has_none():
    fig = model_figure(CONFIGS[0], n=10, decoder_n=6, buckets=True)
    note = fig.notes[-2]
    assert "Only layer 0 of each stack owns relative_attention_bias" in note
    assert "the encoder's layers 1–5 and the decoder's layers 1–5 add the position_bias it computed" in note
    assert "Cross-attention has no position bias" in note
    assert fig.notes[-1].startswith("Relative-position bias: 32 buckets, max distance 128")
    assert "attnviz model --buckets" not in fig.notes[-1]
    assert "attnviz model --buckets" in model_figure(CONFIGS[0] | {"relative_attention_num_buckets": 32},
                                                     n=10).notes[-1]
    assert [p.words.title for p in fig.panels] == ["encoder buckets, layers 0–5", "decoder buckets, layers 0–5"]


@pytest.mark.parametrize("frame, n", [("doc", 16), ("slide", 7), ("slide-4:3", 5), ("column", 8),
                                      ("column-wide", 16)])
def test_every_frame_draws_the_grids_with_its_text_at_the_floor(frame, n):
    fig = model_figure(CONFIGS[1], n=n, decoder_n=n // 2 + 1, buckets=True, frame=frame)
    layout = fig.layout()
    assert_clean(layout)
    assert text_floor_misses(layout, get_frame(frame)) == []
    aspect = get_frame(frame).aspect
    if aspect is not None:
        assert layout.width / layout.height == pytest.approx(aspect, rel=1e-6)
    svg = fig.svg()
    assert svg.count('data-stack="encoder" data-layers="0,1"') == 1 and 'data-stack="cross" data-layers' not in svg


@pytest.mark.parametrize("frame, n", [("slide", 16), ("slide-4:3", 10), ("column", 16)])
def test_a_frame_too_small_for_the_grids_is_refused_in_one_line(frame, n, tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps(CONFIGS[0]))
    result = run_cli("model", str(config), "--n", str(n), "--buckets", "--frame", frame, "-o", str(tmp_path / "m.svg"))
    assert result.code == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "do not fit" in result.stderr and "--n" in result.stderr or "fewer" in result.stderr


@pytest.mark.parametrize("config, words", [
    ({"model_type": "bart", "encoder_layers": 2, "decoder_layers": 2}, "bart has none"),
    ({"model_type": "gemma2", "num_hidden_layers": 2, "sliding_window": 3}, "gemma2 has none"),
    ({"model_type": "t5", "num_layers": 2, "relative_attention_num_buckets": "32"}, "must be a whole number"),
    ({"model_type": "t5", "num_layers": 2, "relative_attention_num_buckets": True}, "must be a whole number"),
    ({"model_type": "t5", "num_layers": 2, "relative_attention_max_distance": 10**30}, "must be a whole number"),
    ({"model_type": "t5", "num_layers": 2, "relative_attention_num_buckets": 5000}, "attnviz draws 2 to 1024"),
    ({"model_type": "t5", "num_layers": 2, "relative_attention_num_buckets": 2}, "at least 4"),
    ({"model_type": "t5", "num_layers": 2, "relative_attention_max_distance": 4}, "must exceed"),
    ({"model_type": "t5", "num_layers": 2, "relative_attention_num_buckets": [32]}, "got list"),
])
def test_bad_configs_are_refused_in_one_line(config, words, tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    result = run_cli("model", str(path), "--n", "6", "--buckets", "-o", str(tmp_path / "m.svg"))
    assert result.code == 2 and result.stderr.count("\n") == 1, result.stderr
    assert words in result.stderr, result.stderr


def test_too_many_tokens_and_cross_attention_alone_are_refused():
    with pytest.raises(InputError, match="at most 64 tokens"):
        model_figure(CONFIGS[0], n=80, buckets=True)
    with pytest.raises(InputError, match="expected True or False"):
        model_figure(CONFIGS[0], n=8, buckets="yes")


def test_the_command_draws_what_the_api_draws(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(CONFIGS[1]))
    out = tmp_path / "m.svg"
    result = run_cli("model", str(path), "--n", "8", "--decoder-n", "5", "--buckets", "-o", str(out))
    assert result.code == 0, result.stderr
    assert out.read_text(encoding="utf-8") == model_figure(CONFIGS[1], n=8, decoder_n=5, buckets=True).svg() + "\n"


@settings(max_examples=20, deadline=None)
@given(st.integers(4, 128), st.integers(1, 300), st.integers(1, 20), st.integers(1, 12))
def test_a_sample_of_configs_buckets_as_transformers(num_buckets, max_distance, n, decoder_n):
    if max_distance <= num_buckets // 2:  # the decoder's exact buckets need a larger distance (refused)
        return
    config = {"model_type": "t5", "num_layers": 1, "relative_attention_num_buckets": num_buckets,
              "relative_attention_max_distance": max_distance}
    theirs = T5Config(relative_attention_num_buckets=num_buckets, relative_attention_max_distance=max_distance)
    fig = model_figure(config, n=n, decoder_n=decoder_n, buckets=True)
    drawn = drawn_buckets(fig)
    encoder = compute_bias_buckets(theirs, n, n, False)
    decoder = compute_bias_buckets(theirs, decoder_n, decoder_n, True)
    assert drawn["encoder"] == {(i + 1, j + 1): encoder[i][j] for i in range(n) for j in range(n)}
    assert drawn["decoder"] == {(i + 1, j + 1): decoder[i][j] for i in range(decoder_n) for j in range(i + 1)}


def _near_tie(n, half, max_distance):
    """Whether float32 may round log(n/e)/log(D/e)·(B-e) across a whole number (see test_t5_buckets.py)."""
    exact = half // 2
    if n < exact:
        return False
    value = math.log(n / exact) / math.log(max_distance / exact) * (half - exact)
    return abs(value - round(value)) < 1e-4


@settings(max_examples=40, deadline=None)
@given(st.integers(4, 200), st.integers(1, 3000), st.booleans())
def test_the_note_s_ranges_found_by_bisection_are_transformers(num_buckets, max_distance, bidirectional):
    half = num_buckets // 2 if bidirectional else num_buckets
    if max_distance <= half // 2:
        return
    far = max_distance + 50
    theirs = T5Attention._relative_position_bucket(-torch.arange(far), bidirectional=bidirectional,
                                                   num_buckets=num_buckets, max_distance=max_distance).tolist()
    ranges = bucket_ranges(bidirectional, num_buckets, max_distance)
    assert ranges[0][0] == 0 and ranges[-1][1] is None
    assert all(last + 1 == nxt for (_, last), (nxt, _) in zip(ranges, ranges[1:]))  # consecutive, no gap
    for first, last in ranges:
        bucket = theirs[first]
        for d in range(first, (far - 1 if last is None else last) + 1):
            if not _near_tie(d, half, max_distance) and not _near_tie(first, half, max_distance):
                assert theirs[d] == bucket, (d, first, last)


def test_an_encoder_decoder_s_decode_note_counts_the_decoder_s_queries():
    fig = model_figure(CONFIGS[0], n=12, decoder_n=8, decode=3, buckets=True)
    assert any(note.startswith("Decoding: the queries are the 5 tokens after a prompt of 3") for note in fig.notes)


@pytest.mark.parametrize("frame, n, drawn", [("slide", 7, True), ("slide-4:3", 5, False)])
def test_a_slide_draws_the_note_beside_the_grids_or_says_it_in_the_description(frame, n, drawn):
    fig = model_figure(CONFIGS[1], n=n, decoder_n=n // 2 + 1, buckets=True, frame=frame)
    layout = fig.layout()
    texts = " ".join(" ".join(t.lines) for t in layout.walk() if getattr(t, "role", "") == "note")
    assert ("relative_attention_bias" in texts) is drawn
    assert ("Only layer 0 of each stack owns relative_attention_bias" in layout.desc) is not drawn
    assert any(("notes in the description" in choice) is not drawn and "strip of layers" in choice
               for choice in layout.choices)
