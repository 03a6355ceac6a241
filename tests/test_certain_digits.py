"""Issue 36: for rounded inputs, `--weights decimal=N` prints only the digits that hold for every input the rounded
ones stand for. Held against a real tiny transformers model (random weights, `output_attentions`) and against numpy's
softmax of inputs drawn within the rounding."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attnviz


def _agrees(text, weight):
    """Whether a printed weight agrees with a true one: its digits are the true weight's rounded as far, or the
    printed interval holds it."""
    text = text.lstrip("≈")
    if ".." in text:
        low, high = map(Fraction, text.split(".."))
        return low <= weight <= high
    places = len(text.split(".")[1]) if "." in text else 0
    return round(weight * 10**places) == round(Fraction(text) * 10**places)


def _printed(fig):
    return [row.weights.removeprefix("weights ").split(", ") for row in fig.words.softmax_rows]


@pytest.fixture
def qwen2_queries_and_keys(monkeypatch):
    """A tiny Qwen2 (random weights, float64): layer 0's queries and keys as its eager attention gets them (after
    RoPE), and the weights it returns with output_attentions."""
    torch = pytest.importorskip("torch")
    from transformers import Qwen2Config, Qwen2ForCausalLM
    from transformers.models.qwen2 import modeling_qwen2

    captured = {}
    eager = modeling_qwen2.eager_attention_forward

    def capture(module, query, key, value, attention_mask, **kwargs):
        captured.setdefault(module.layer_idx, (query.detach().clone(), key.detach().clone()))
        return eager(module, query, key, value, attention_mask, **kwargs)

    monkeypatch.setattr(modeling_qwen2, "eager_attention_forward", capture)
    torch.manual_seed(0)
    config = Qwen2Config(vocab_size=50, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
                         initializer_range=0.4)
    config._attn_implementation = "eager"
    model = Qwen2ForCausalLM(config).double().eval()
    with torch.no_grad():
        out = model(torch.tensor([[3, 7, 11, 2, 9, 4, 8]]), output_attentions=True)
    query, key = captured[0]
    return query[0, 0], key[0, 0], out.attentions[0][0, 0]  # head 0 reads KV head 0


@pytest.mark.parametrize("places", [2, 3, 4])
def test_every_printed_digit_agrees_with_the_models_own_weight(qwen2_queries_and_keys, places):
    query, key, weights = qwen2_queries_and_keys
    fig = attnviz.figure(q=query, k=key, decimals=2, scale="sqrt", weights=f"decimal={places}")
    printed = _printed(fig)
    assert sum(map(len, printed)) == 28
    for i, row in enumerate(printed):
        for j, text in enumerate(row):
            assert _agrees(text, Fraction(weights[i, j].item())), (i, j, text, weights[i, j].item())
    assert "only the digits" in fig.words.footer and "±0.005" in fig.words.footer
    # The same rounded inputs taken as exact: weights right for them, but not the model's (what the check is for).
    exact = attnviz.figure(q=[[str(x) for x in row] for row in fig.attention.q],
                           k=[[str(x) for x in row] for row in fig.attention.k], scale="sqrt",
                           weights=f"decimal={places}")
    wrong = sum(not _agrees(text, Fraction(weights[i, j].item()))
                for i, row in enumerate(_printed(exact)) for j, text in enumerate(row))
    assert wrong >= {2: 0, 3: 6, 4: 10}[places]  # 6 of 28 at 3 decimals, 10 at 4


def _numpy_weights(q, k, scale):
    scores = q @ k.T * scale
    scores = np.where(np.tril(np.ones(scores.shape, dtype=bool)), scores, -np.inf)
    scores = scores - scores.max(axis=1, keepdims=True)
    e = np.exp(scores)
    return e / e.sum(axis=1, keepdims=True)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), decimals=st.integers(1, 2), places=st.integers(1, 4))
def test_digits_hold_for_inputs_drawn_within_the_rounding(seed, decimals, places):
    rng = np.random.default_rng(seed)
    q, k = rng.normal(0, 1.5, (4, 3)), rng.normal(0, 1.5, (4, 3))
    fig = attnviz.figure(q=q.tolist(), k=k.tolist(), decimals=decimals, weights=f"decimal={places}")
    rounded_q = np.array([[float(x) for x in row] for row in fig.attention.q])
    rounded_k = np.array([[float(x) for x in row] for row in fig.attention.k])
    h = 0.5 * 10.0**-decimals
    printed = _printed(fig)
    for _ in range(20):  # the true inputs, and inputs anywhere within ±h of the rounded ones (corners too)
        dq = rng.choice([-h, h], q.shape) * rng.uniform(0.9, 1, q.shape)
        dk = rng.choice([-h, h], k.shape) * rng.uniform(0.9, 1, k.shape)
        for true_q, true_k in ((q, k), (rounded_q + dq, rounded_k + dk)):
            w = _numpy_weights(true_q, true_k, 1.0)
            for i, row in enumerate(printed):
                for j, text in enumerate(row):
                    assert _agrees(text, Fraction(float(w[i, j]))), (i, j, text, w[i, j])
