"""Issue 36: PaliGemma with several image blocks (`--image-tokens 0-1,3-4` inside `--prefix`), each layer's panel
equal to the mask PaliGemma's own eager forward pass applies (its attention weights, random small weights), the
blocks coloured as image tokens and the rest of the prefix as the prefix."""

import pytest
import torch
from transformers import PaliGemmaConfig, PaliGemmaForConditionalGeneration

from attnviz.engine.model_masks import Tokens, model_layers, plan_panels
from attnviz.figures.model import load_config, model_figure
from attnviz.numbers.exact import InputError
from test_model_parity import compare, panel_of, small

N = 10
#: A tiny vision tower: the mask does not read it, and SigLIP's default takes seconds to build.
VISION = {"hidden_size": 8, "intermediate_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2,
          "image_size": 16, "patch_size": 8}


def _forward_keeps(config, prefix, n):
    """Each layer's kept cells as PaliGemma's eager forward pass weighs them: a weight above 0 is kept (masked
    logits are the dtype's minimum, whose weight is exactly 0)."""
    torch.manual_seed(0)
    model = PaliGemmaForConditionalGeneration(config).eval()
    types = torch.tensor([[0 if p < prefix else 1 for p in range(n)]])
    with torch.no_grad():
        out = model.model(inputs_embeds=torch.randn(1, n, config.get_text_config().hidden_size),
                          token_type_ids=types, attention_mask=torch.ones(1, n, dtype=torch.long),
                          output_attentions=True, use_cache=False)
    return [(weights[0, 0] > 0).tolist() for weights in out.attentions]


@pytest.mark.parametrize("text_name, keys", [("GemmaConfig", {"num_hidden_layers": 1}),
                                             ("Gemma2Config", {"num_hidden_layers": 2, "sliding_window": 3})])
@pytest.mark.parametrize("prefix, blocks", [(6, ((0, 1), (3, 4))), (7, ((0, 0), (2, 3), (5, 6))),
                                            (5, ((1, 2), (4, 4)))])
def test_several_image_blocks_equal_paligemmas_forward(text_name, keys, prefix, blocks):
    config = PaliGemmaConfig(text_config=small(text_name, **keys).to_dict(), vision_config=VISION)
    config._attn_implementation = "eager"
    config.get_text_config()._attn_implementation = "eager"
    theirs = _forward_keeps(config, prefix, N)
    plans = plan_panels(model_layers(load_config(config)), Tokens(N, image=blocks, prefix=prefix))
    for layer, rows in enumerate(theirs):
        compare(panel_of(plans, "decoder", layer), rows, 0, 0, ("paligemma", text_name, layer))
    text = ",".join(f"{a}-{b}" for a, b in blocks)
    fig = model_figure(config, n=N, image_tokens=text, prefix=prefix)
    for plan in fig.plans:  # each block's cells the image's part, the rest of the prefix the prefix's
        bound = plan.mask.bind(*plan.shape)
        inside = {p for a, b in blocks for p in range(a, b + 1)}
        for i in range(prefix):
            for start, stop, part in bound.part_runs(i):
                for j in range(start, stop):
                    same_block = any(a <= i <= b and a <= j <= b for a, b in blocks)
                    assert part == (0 if same_block else 1), (i, j, part, inside)
    svg = fig.svg()
    assert ">image tokens, both ways<" in svg and ">prefix, both ways<" in svg


def test_an_image_block_past_the_prefix_is_refused_in_one_line():
    paligemma = {"model_type": "paligemma", "text_config": {"model_type": "gemma", "num_hidden_layers": 1}}
    with pytest.raises(InputError, match="give a longer --prefix") as err:
        model_figure(paligemma, n=10, prefix=4, image_tokens="0-1,3-5")
    assert "\n" not in str(err.value)
