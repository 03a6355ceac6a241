"""Issue 36: the model types added (starcoder2, olmo3, exaone4, smollm3, gemma3n_text, vision wrappers around a text
config) against transformers' own masks, every layer, with left padding and in the decode shape (the helpers are
tests/test_model_parity.py's)."""

import pytest
import transformers

from attnviz.engine.model_masks import Tokens, model_layers, plan_panels
from attnviz.numbers.exact import InputError
from attnviz.figures.model import load_config, model_figure
from test_model_parity import N, SMALL, compare, hf_decoder_masks, panel_of, small


def _gemma3n(**keys):
    config = transformers.Gemma3nTextConfig(**{**SMALL, "num_hidden_layers": 6, "sliding_window": 3,
                                               "num_kv_shared_layers": 0, "laurel_rank": 2,
                                               "altup_num_inputs": 2, "hidden_size_per_layer_input": 2,
                                               "vocab_size_per_layer_input": 16, **keys})
    config._attn_implementation = "eager"
    return config


ADDED = [
    ("starcoder2", lambda: small("Starcoder2Config", num_hidden_layers=2, sliding_window=3)),
    ("starcoder2-full", lambda: small("Starcoder2Config", num_hidden_layers=2, sliding_window=None)),
    ("olmo3", lambda: small("Olmo3Config", num_hidden_layers=5, sliding_window=3)),
    ("exaone4", lambda: small("Exaone4Config", num_hidden_layers=5, sliding_window=3, sliding_window_pattern=3)),
    ("exaone4-LLG", lambda: small("Exaone4Config", num_hidden_layers=4, sliding_window=3,
                                  layer_types=["sliding_attention", "sliding_attention", "full_attention",
                                               "sliding_attention"])),
    ("smollm3", lambda: small("SmolLM3Config", num_hidden_layers=4)),
    ("smollm3-sliding", lambda: small("SmolLM3Config", num_hidden_layers=4, use_sliding_window=True,
                                      sliding_window=3, no_rope_layer_interval=2)),
    ("gemma3n_text", _gemma3n),
]


@pytest.mark.parametrize("pad_left, prompt", [(0, 0), (2, 0), (0, 5), (2, 5)])
@pytest.mark.parametrize("name, make", ADDED, ids=[a[0] for a in ADDED])
def test_added_decoders_equal_transformers_masks(name, make, pad_left, prompt):
    config = make()
    plans = plan_panels(model_layers(load_config(config)), Tokens(N, pad_left=pad_left, decode=prompt))
    for layer, (theirs, kv_offset) in enumerate(hf_decoder_masks(config, N, pad_left, prompt)):
        compare(panel_of(plans, "decoder", layer), theirs, kv_offset, prompt, (name, layer))


WRAPPED = [
    ("llava", lambda text: transformers.LlavaConfig(text_config=text)),
    ("llava_next", lambda text: transformers.LlavaNextConfig(text_config=text)),
    ("llava_onevision", lambda text: transformers.LlavaOnevisionConfig(text_config=text)),
    ("mistral3", lambda text: transformers.Mistral3Config(text_config=text)),
]

#: The model types this file checks against transformers (tests/test_model_parity.py checks the others).
CHECKED = {"starcoder2", "olmo3", "exaone4", "smollm3", "gemma3n_text", "paligemma", "gemma",
           *(name for name, _ in WRAPPED)}


@pytest.mark.parametrize("pad_left, prompt", [(0, 0), (2, 5)])
@pytest.mark.parametrize("name, wrap", WRAPPED, ids=[w[0] for w in WRAPPED])
def test_vision_wrappers_draw_their_text_models_masks(name, wrap, pad_left, prompt):
    text = small("MistralConfig", num_hidden_layers=2, sliding_window=3)
    config = wrap(text.to_dict())
    config.get_text_config()._attn_implementation = "eager"
    model = model_layers(load_config(config))
    assert model.model_type == name
    plans = plan_panels(model, Tokens(N, pad_left=pad_left, decode=prompt))
    for layer, (theirs, kv_offset) in enumerate(hf_decoder_masks(config, N, pad_left, prompt)):
        compare(panel_of(plans, "decoder", layer), theirs, kv_offset, prompt, (name, layer))


def test_a_wrapper_without_a_known_text_model_is_one_line():
    with pytest.raises(InputError) as caught:
        model_layers({"model_type": "llava", "text_config": {"model_type": "falcon", "num_hidden_layers": 2}})
    assert "falcon" in str(caught.value) and "\n" not in str(caught.value)


def test_no_rope_layers_are_read():
    model = model_layers(load_config(small("SmolLM3Config", num_hidden_layers=8)))
    assert model.no_rope == (3, 7)
    assert "NoPE" in model_figure(small("SmolLM3Config", num_hidden_layers=8), n=4).svg()


PACKED = [("mistral", lambda: small("MistralConfig", num_hidden_layers=2, sliding_window=3)),
          ("gemma2", lambda: small("Gemma2Config", num_hidden_layers=3, sliding_window=3)),
          ("qwen2", lambda: small("Qwen2Config", num_hidden_layers=3, use_sliding_window=True, sliding_window=2,
                                  max_window_layers=1)),
          ("olmo3", lambda: small("Olmo3Config", num_hidden_layers=4, sliding_window=2))]


@pytest.mark.parametrize("lengths", [(3, 4, 2), (1, 5, 3), (4, 5)])
@pytest.mark.parametrize("name, make", PACKED, ids=[p[0] for p in PACKED])
def test_packed_documents_equal_the_mask_transformers_derives_from_position_ids(name, make, lengths):
    import torch
    from transformers import masking_utils as mu

    config, n = make(), sum(lengths)
    position_ids = torch.tensor([[p for length in lengths for p in range(length)]])
    made = mu.create_masks_for_generate(config, torch.zeros(1, n, config.hidden_size), None, None,
                                        position_ids=position_ids)
    plans = plan_panels(model_layers(load_config(config)), Tokens(n, packed=lengths))
    for layer in range(config.num_hidden_layers):
        kind = getattr(config, "layer_types", None)
        mask = made[kind[layer]] if isinstance(made, dict) else made
        theirs = (mask[0, 0] == 0).tolist() if mask.dtype != torch.bool else mask[0, 0].tolist()
        compare(panel_of(plans, "decoder", layer), theirs, 0, 0, (name, lengths, layer))


def test_packed_is_refused_where_transformers_does_not_pack(tmp_path):
    from clirun import run_cli

    config = tmp_path / "config.json"
    config.write_text('{"model_type": "mistral", "num_hidden_layers": 2, "sliding_window": 3}')
    for flags, words in ((["--n", "8"], "add up to 9, but the row has 8 tokens"),
                         (["--pad-left", "1"], "--pad does not go with --packed"),
                         (["--decode", "4"], "--decode does not go with --packed"),
                         (["--packed", "3,x"], "expected two or more document lengths like 3,4,2")):
        result = run_cli("model", str(config), "--packed", "3,4,2", *flags, "-o", str(tmp_path / "m.svg"))
        assert result.code == 2 and words in result.stderr and result.stderr.count("\n") == 1, result.stderr
    result = run_cli("model", str(config), "--packed", "3,4,2", "-o", str(tmp_path / "m.svg"))  # --n from them
    assert result.code == 0 and "Packed: 3 documents of 3, 4, 2 tokens" in (tmp_path / "m.svg").read_text()


def test_image_tokens_are_a_part_of_their_own_and_the_sink_is_not_a_token():
    config = {"model_type": "gemma3", "text_config": {"num_hidden_layers": 2, "sliding_window": 3,
                                                      "sliding_window_pattern": 2}}
    fig = model_figure(config, n=7, image_tokens="3-5")
    svg = fig.svg()
    assert ">image tokens, both ways<" in svg and ">kept<" in svg
    # the image's cells are the first part: rows 3..5, keys 3..5
    for plan in fig.plans:
        bound = plan.mask.bind(*plan.shape)
        assert bound.part_runs(4)[-1] == (3, 6, 0) and all(n == 1 for _, _, n in bound.part_runs(6))
    oss = model_figure({"model_type": "gpt_oss", "num_hidden_layers": 2, "sliding_window": 3}, n=6, decode=2)
    for plan in oss.plans:
        bound = plan.mask.bind(*plan.shape)
        assert "aligned" not in bound.rule_text(0) or "i the query's label" in bound.rule_text(0)
        assert bound.rule_text(0).startswith("the sink, and ") and bound.part_runs(0)[0] == (0, 1, 0)
    assert ">sink logit (not a token)<" in oss.svg()


@pytest.mark.parametrize("text_name, keys", [("GemmaConfig", {"num_hidden_layers": 2}),
                                             ("Gemma2Config", {"num_hidden_layers": 3, "sliding_window": 3})])
@pytest.mark.parametrize("prefix, image", [(6, (0, 3)), (3, (0, 1)), (9, (0, 4))])
def test_paligemma_prefix_lm_equals_transformers(text_name, keys, prefix, image):
    import torch
    from transformers import PaliGemmaConfig, PaliGemmaForConditionalGeneration

    text = small(text_name, **keys)
    config = PaliGemmaConfig(text_config=text.to_dict())
    config.get_text_config()._attn_implementation = "eager"
    token_types = torch.tensor([[0 if p < prefix else 1 for p in range(N)]])
    made = PaliGemmaForConditionalGeneration.create_masks_for_generate(
        config, torch.zeros(1, N, text.hidden_size), torch.ones(1, N, dtype=torch.long), None, None,
        token_type_ids=token_types)
    model = model_layers(load_config(config))
    plans = plan_panels(model, Tokens(N, image=image, prefix=prefix))
    assert all(p.prefix == prefix for p in plans)
    for layer in range(config.get_text_config().num_hidden_layers):
        kinds = getattr(config.get_text_config(), "layer_types", None)
        mask = made[kinds[layer]] if isinstance(made, dict) else made
        compare(panel_of(plans, "decoder", layer), (mask[0, 0] == 0).tolist(), 0, 0, ("paligemma", layer))
    fig = model_figure(config, n=N, image_tokens=image, prefix=prefix)
    assert ">prefix, both ways<" in fig.svg() and ">image tokens, both ways<" in fig.svg()


def test_a_prefix_is_paligemmas_and_is_drawn_in_the_prefill():
    paligemma = {"model_type": "paligemma", "text_config": {"model_type": "gemma", "num_hidden_layers": 1}}
    for config, keys, words in (({"model_type": "llama", "num_hidden_layers": 1}, {"prefix": 3}, "no bidirectional"),
                                (paligemma, {"prefix": 3, "decode": 2}, "prefill of an unpadded row"),
                                (paligemma, {"prefix": 3, "image_tokens": "0-4"}, "give a longer --prefix")):
        with pytest.raises(InputError, match=words):
            model_figure(config, n=6, **keys)


@pytest.mark.parametrize("pad_left", [0, 2])
def test_several_images_each_a_block_as_transformers_makes_them(pad_left):
    import torch
    from transformers.models.gemma3.modeling_gemma3 import (create_masks_for_vision_model,
                                                              get_block_sequence_ids_for_mask)

    config = small("Gemma3TextConfig", num_hidden_layers=4, sliding_window=3, sliding_window_pattern=2)
    blocks = ((2, 3), (5, 8))
    types = torch.zeros(1, N, dtype=torch.long)
    for first, last in blocks:
        types[0, first:last + 1] = 1
    attention = torch.ones(1, N, dtype=torch.long)
    attention[0, :pad_left] = 0
    made = create_masks_for_vision_model(config, torch.zeros(1, N, config.hidden_size), attention, None, None,
                                         get_block_sequence_ids_for_mask(types, device="cpu"))
    wrapped = {"model_type": "gemma3", "text_config": load_config(config)}
    plans = plan_panels(model_layers(wrapped), Tokens(N, pad_left=pad_left, image=blocks))
    for layer in range(4):
        theirs = (made[config.layer_types[layer]][0, 0] == 0).tolist()
        compare(panel_of(plans, "decoder", layer), theirs, 0, 0, ("gemma3 images", layer))
    fig = model_figure(wrapped, n=N, pad_left=pad_left, image_tokens="2-3,5-8")
    assert all("image tokens 2–3, 5–8 both ways" in plan.title for plan in fig.plans)
    with pytest.raises(InputError, match="overlap or touch"):
        model_figure(wrapped, n=N, image_tokens="2-4,5-8")
