"""`attnviz model`'s panels against transformers' own masks, cell for cell.

Every supported model type is built from its transformers config class with small sizes (nothing is
downloaded), then transformers makes each layer's mask as its modeling code does (`create_masks_for_generate`,
`create_causal_mask`, `create_sliding_window_causal_mask`, `create_chunked_causal_mask`, the bidirectional
ones, Gemma 3's `create_masks_for_vision_model`), with and without left padding and in the decode shape
(a `DynamicCache` holding the prompt), and each layer's mask is compared with the panel holding that layer.
"""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import pytest  # noqa: E402
import torch  # noqa: E402
import transformers  # noqa: E402
from transformers import masking_utils as mu  # noqa: E402
from transformers.cache_utils import DynamicCache  # noqa: E402

from attnviz.engine.masks import resolve  # noqa: E402
from attnviz.engine.model_masks import Tokens, model_layers, plan_panels  # noqa: E402
from attnviz.figures.model import load_config, model_figure  # noqa: E402

SMALL = dict(hidden_size=8, num_attention_heads=2, num_key_value_heads=1, intermediate_size=8, vocab_size=16,
             head_dim=4)
N = 9  # tokens in the row: enough for windows and chunks of 3 to repeat


def small(name, **keys):
    config = getattr(transformers, name)(**{**SMALL, **keys})
    config._attn_implementation = "eager"
    return config


def decoders():
    """(id, config) of every decoder-only model type read: windows and chunks of 3 on 5 or 6 layers."""
    return [
        ("mistral", small("MistralConfig", num_hidden_layers=2, sliding_window=3)),
        ("mistral-full", small("MistralConfig", num_hidden_layers=2, sliding_window=None)),
        ("mixtral", small("MixtralConfig", num_hidden_layers=2, sliding_window=3, num_local_experts=2)),
        ("gemma2", small("Gemma2Config", num_hidden_layers=5, sliding_window=3)),
        ("gemma3_text", small("Gemma3TextConfig", num_hidden_layers=7, sliding_window=3)),
        ("llama", small("LlamaConfig", num_hidden_layers=2)),
        ("llama4_text", small("Llama4TextConfig", num_hidden_layers=5, attention_chunk_size=3,
                              no_rope_layer_interval=2, num_local_experts=2, intermediate_size_mlp=8)),
        ("qwen2", small("Qwen2Config", num_hidden_layers=5, use_sliding_window=True, sliding_window=3,
                        max_window_layers=2)),
        ("qwen2-off", small("Qwen2Config", num_hidden_layers=3, use_sliding_window=False, sliding_window=3)),
        ("qwen3", small("Qwen3Config", num_hidden_layers=4, use_sliding_window=True, sliding_window=4,
                        max_window_layers=1)),
        ("qwen2_moe", small("Qwen2MoeConfig", num_hidden_layers=4, use_sliding_window=True, sliding_window=3,
                            max_window_layers=3, num_experts=2, moe_intermediate_size=8,
                            shared_expert_intermediate_size=8)),
        ("qwen3_moe", small("Qwen3MoeConfig", num_hidden_layers=2, use_sliding_window=True, sliding_window=3,
                            num_experts=2, moe_intermediate_size=8)),
        ("gpt_oss", small("GptOssConfig", num_hidden_layers=4, sliding_window=3, num_local_experts=2)),
        ("cohere2", small("Cohere2Config", num_hidden_layers=5, sliding_window=3)),
        ("phi3", small("Phi3Config", num_hidden_layers=2, sliding_window=3)),
    ]


DECODERS = decoders()


def keep_of(mask, q_len, kv_len):
    """A transformers mask (eager: 0 kept, the dtype's minimum masked; None: nothing masked) as rows of bools."""
    if mask is None:
        return [[True] * kv_len for _ in range(q_len)]
    assert mask.ndim == 4 and mask.shape[-2:] == (q_len, kv_len)
    return (mask[0, 0] == 0).tolist()


def attnviz_rows(plan):
    bound = resolve(plan.mask, *plan.shape, plan.align, 0)
    return [[bool(bound.keep(i, j)) for j in range(plan.shape[1])] for i in range(plan.shape[0])]


def panel_of(plans, stack, layer):
    found = [p for p in plans if p.stack == stack and layer in p.layers]
    assert len(found) == 1, (stack, layer)  # every layer in exactly one panel
    return found[0]


def compare(plan, theirs, kv_offset, prompt, where):
    """Panel rows against transformers' rows; columns transformers' cache no longer holds must be masked."""
    ours = attnviz_rows(plan)
    shift = 1 if plan.sink else 0
    assert len(ours) == len(theirs), where
    for i, (row, their_row) in enumerate(zip(ours, theirs)):
        if plan.sink:
            assert row[0], (where, i)  # every row keeps the sink logit
        for j in range(len(row) - shift):
            c = j - kv_offset
            expected = their_row[c] if 0 <= c < len(their_row) else False
            assert row[j + shift] == expected, (where, "query", i + prompt, "key", j)


def hf_decoder_masks(config, n, pad_left, prompt, image=None):
    """Each layer's (mask rows, kv_offset) from transformers, for a row of n tokens (prompt cached)."""
    text = config.get_text_config()
    attention = torch.ones(1, n, dtype=torch.long)
    attention[0, :pad_left] = 0
    q_len = n - prompt
    embeds = torch.zeros(1, q_len, text.hidden_size)
    cache = None
    if prompt:
        cache = DynamicCache(config=text)
        for layer in range(text.num_hidden_layers):
            k = torch.zeros(1, 1, prompt, 4)
            cache.update(k, k.clone(), layer)
    if image is not None:
        from transformers.models.gemma3.modeling_gemma3 import (create_masks_for_vision_model,
                                                                  get_block_sequence_ids_for_mask)

        types = torch.zeros(1, n, dtype=torch.long)
        types[0, image[0]:image[1] + 1] = 1
        blocks = get_block_sequence_ids_for_mask(types, device="cpu")
        made = create_masks_for_vision_model(text, embeds, attention, None, None, blocks)
    else:
        made = mu.create_masks_for_generate(text, embeds, attention, cache)
    out = []
    for layer in range(text.num_hidden_layers):
        kind = getattr(text, "layer_types", None)
        mask = made[kind[layer]] if isinstance(made, dict) else made
        kv_len, kv_offset = (cache.get_mask_sizes(q_len, layer) if cache is not None else (n, 0))
        out.append((keep_of(mask, q_len, kv_len), kv_offset))
    return out


@pytest.mark.parametrize("pad_left, prompt", [(0, 0), (2, 0), (0, 5), (2, 5)])
@pytest.mark.parametrize("name, config", DECODERS, ids=[d[0] for d in DECODERS])
def test_decoder_panels_equal_transformers_masks(name, config, pad_left, prompt):
    plans = plan_panels(model_layers(load_config(config)), Tokens(N, pad_left=pad_left, decode=prompt))
    for layer, (theirs, kv_offset) in enumerate(hf_decoder_masks(config, N, pad_left, prompt)):
        compare(panel_of(plans, "decoder", layer), theirs, kv_offset, prompt, (name, layer))


@pytest.mark.parametrize("pad_left", [0, 2])
def test_gemma3_image_tokens_are_bidirectional_as_transformers_makes_them(pad_left):
    text = dict(num_hidden_layers=4, sliding_window=3, sliding_window_pattern=2, **SMALL)
    config = transformers.Gemma3Config(text_config=text)
    config.get_text_config()._attn_implementation = "eager"
    for image in ((3, 7), (4, 5)):  # a block longer than the window, and one inside it
        plans = plan_panels(model_layers(load_config(config)), Tokens(N, pad_left=pad_left, image=image))
        assert all(p.image == image for p in plans)
        for layer, (theirs, offset) in enumerate(hf_decoder_masks(config, N, pad_left, 0, image)):
            compare(panel_of(plans, "decoder", layer), theirs, offset, 0, ("gemma3", image, layer))


def test_llama4_and_gemma3_multimodal_configs_read_their_text_config():
    llama4 = transformers.Llama4Config(text_config=dict(num_hidden_layers=4, attention_chunk_size=3, **SMALL))
    llama4.get_text_config()._attn_implementation = "eager"
    m = model_layers(load_config(llama4))
    assert [t.kind for t in m.stacks[0].layers] == ["chunked", "chunked", "chunked", "full"]
    plans = plan_panels(m, Tokens(N, pad_left=1))
    rows = hf_decoder_masks(llama4.get_text_config(), N, 1, 0)
    for layer, (theirs, offset) in enumerate(rows):
        compare(panel_of(plans, "decoder", layer), theirs, offset, 0, ("llama4", layer))


ENCODERS = [
    ("bert", lambda: small("BertConfig", num_hidden_layers=2)),
    ("roberta", lambda: small("RobertaConfig", num_hidden_layers=2)),
    ("electra", lambda: small("ElectraConfig", num_hidden_layers=2, embedding_size=8)),
    ("distilbert", lambda: transformers.DistilBertConfig(n_layers=2, dim=8, n_heads=2, hidden_dim=8)),
]


@pytest.mark.parametrize("pad_left, pad_right", [(0, 0), (0, 3), (2, 0)])
@pytest.mark.parametrize("name, make", ENCODERS, ids=[e[0] for e in ENCODERS])
def test_encoder_panels_equal_transformers_bidirectional_masks(name, make, pad_left, pad_right):
    config = make()
    config._attn_implementation = "eager"
    attention = torch.ones(1, N, dtype=torch.long)
    attention[0, :pad_left] = 0
    attention[0, N - pad_right:] = 0
    theirs = keep_of(mu.create_bidirectional_mask(config, torch.zeros(1, N, 8), attention), N, N)
    plans = plan_panels(model_layers(load_config(config)), Tokens(N, pad_left=pad_left, pad_right=pad_right))
    assert len(plans) == 1 and plans[0].stack == "encoder"
    compare(plans[0], theirs, 0, 0, name)


@pytest.mark.parametrize("pad_left, pad_right", [(0, 0), (0, 2), (3, 0)])
def test_modernbert_local_and_global_layers_equal_transformers(pad_left, pad_right):
    config = transformers.ModernBertConfig(num_hidden_layers=4, local_attention=4, hidden_size=8,
                                           num_attention_heads=2, intermediate_size=8, vocab_size=16)
    config._attn_implementation = "eager"
    attention = torch.ones(1, N, dtype=torch.long)
    attention[0, :pad_left] = 0
    attention[0, N - pad_right:] = 0
    embeds = torch.zeros(1, N, 8)
    made = {"full_attention": mu.create_bidirectional_mask(config, embeds, attention),
            "sliding_attention": mu.create_bidirectional_sliding_window_mask(config, embeds, attention)}
    plans = plan_panels(model_layers(load_config(config)), Tokens(N, pad_left=pad_left, pad_right=pad_right))
    assert len(plans) == 2
    for layer, kind in enumerate(config.layer_types):
        compare(panel_of(plans, "encoder", layer), keep_of(made[kind], N, N), 0, 0, ("modernbert", layer))


@pytest.mark.parametrize("name", ["T5Config", "MT5Config", "BartConfig"])
@pytest.mark.parametrize("pad_left, pad_right, prompt", [(0, 0, 0), (0, 2, 0), (2, 0, 0), (0, 2, 2)])
def test_encoder_decoder_panels_equal_transformers(name, pad_left, pad_right, prompt):
    if name == "BartConfig":
        config = transformers.BartConfig(encoder_layers=2, decoder_layers=3, d_model=8, encoder_attention_heads=2,
                                         decoder_attention_heads=2, encoder_ffn_dim=8, decoder_ffn_dim=8,
                                         vocab_size=16)
    else:
        config = getattr(transformers, name)(num_layers=2, num_decoder_layers=3, d_model=8, d_kv=4, d_ff=8,
                                             num_heads=2, vocab_size=16)
    config._attn_implementation = "eager"
    m_dec = 5
    attention = torch.ones(1, N, dtype=torch.long)
    attention[0, :pad_left] = 0
    attention[0, N - pad_right:] = 0
    encoder = torch.zeros(1, N, 8)
    decoder = torch.zeros(1, m_dec - prompt, 8)
    cache = None
    if prompt:
        cache = DynamicCache()
        for layer in range(3):
            k = torch.zeros(1, 1, prompt, 4)
            cache.update(k, k.clone(), layer)
    plans = plan_panels(model_layers(load_config(config)),
                        Tokens(N, pad_left=pad_left, pad_right=pad_right, decode=prompt, decoder_n=m_dec))
    assert {p.stack for p in plans} == {"encoder", "decoder", "cross"}
    theirs = keep_of(mu.create_bidirectional_mask(config, encoder, attention), N, N)
    for layer in range(2):
        compare(panel_of(plans, "encoder", layer), theirs, 0, 0, (name, "encoder"))
    self_mask = keep_of(mu.create_causal_mask(config, decoder, None, cache), m_dec - prompt, m_dec)
    cross = keep_of(mu.create_bidirectional_mask(config, decoder, attention, encoder_hidden_states=encoder),
                    m_dec - prompt, N)
    for layer in range(3):
        compare(panel_of(plans, "decoder", layer), self_mask, 0, prompt, (name, "decoder"))
        compare(panel_of(plans, "cross", layer), cross, 0, prompt, (name, "cross"))
    assert panel_of(plans, "cross", 0).shape == (m_dec - prompt, N)  # the non-square cross-attention panel


def test_every_read_model_type_is_checked_here():
    from attnviz.engine.model_masks import MODEL_TYPES

    checked = {load_config(c)["model_type"] for _, c in DECODERS} | {"gemma3", "llama4", "modernbert", "t5", "mt5",
                                                                      "bart", "bert", "roberta", "electra",
                                                                      "distilbert"}
    from test_model_types_more import CHECKED  # issue 36's types, checked there

    assert set(MODEL_TYPES) - checked - CHECKED <= {"xlm-roberta", "camembert"}  # RoBERTa's code, config names


def test_the_figure_puts_every_layer_in_one_panel_and_titles_it():
    config = small("Gemma3TextConfig", num_hidden_layers=12, sliding_window=4)
    fig = model_figure(config, n=8)
    svg = fig.svg()
    assert 'data-layers="0,1,2,3,4,6,7,8,9,10"' in svg and 'data-layers="5,11"' in svg
    assert "sliding window 4, layers 0–4, 6–10" in svg
    assert svg.count('data-type="sliding"') == 10 and svg.count('data-type="full"') == 2
