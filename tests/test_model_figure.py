"""`attnviz model` and `attnviz.model_figure`: configs in every form, the figure's anatomy, one-line errors.

The masks themselves are checked against transformers in tests/test_model_parity.py.
"""

import json
import re

import pytest

import attnviz
from attnviz.engine.model_masks import layer_list_text
from attnviz.figures.model import model_figure

from clirun import run_cli

GEMMA3 = {"model_type": "gemma3_text", "num_hidden_layers": 12, "sliding_window": 4}


def panels(svg):
    return re.findall(r'<g class="attnviz-panel" data-panel="\d+" data-stack="(\w+)" data-layers="([\d,]+)"', svg)


def test_every_layer_is_in_exactly_one_panel():
    svg = model_figure(GEMMA3, n=8).svg()
    layers = [int(x) for _, group in panels(svg) for x in group.split(",")]
    assert sorted(layers) == list(range(12))
    assert svg.count('class="attnviz-row"') == 16 and 'class="attnviz-kept" data-k=' in svg


def test_a_config_reads_the_same_from_a_file_a_folder_a_dict_and_a_transformers_config(tmp_path):
    import transformers

    (tmp_path / "config.json").write_text(json.dumps(GEMMA3))
    made = [model_figure(c, n=6).svg() for c in (GEMMA3, tmp_path, tmp_path / "config.json", str(tmp_path))]
    assert len(set(made)) == 1
    config = transformers.Gemma3TextConfig(num_hidden_layers=12, sliding_window=4, hidden_size=8, head_dim=4,
                                           num_attention_heads=2, num_key_value_heads=1)
    assert panels(model_figure(config, n=6).svg()) == panels(made[0])


def test_layers_all_draws_one_panel_a_layer_and_a_list_groups_the_listed_layers():
    config = {"model_type": "gemma2", "num_hidden_layers": 4, "sliding_window": 3}
    assert [g for _, g in panels(model_figure(config, n=5, layers="all").svg())] == ["0", "1", "2", "3"]
    svg = model_figure(config, n=5, layers="0,2,3").svg()
    assert [g for _, g in panels(svg)] == ["0,2", "3"]
    assert svg.count('data-drawn="no"') == 1  # layer 1 is in the strip, not drawn


def test_image_tokens_decode_and_tokens():
    config = {"model_type": "gemma3", "text_config": {"num_hidden_layers": 2, "sliding_window": 3,
                                                      "sliding_window_pattern": 2}}
    fig = model_figure(config, tokens="<bos> look : <img> <img> <img> ok", image_tokens="3-5")
    assert [p.title for p in fig.plans] == ["sliding window 3, image tokens 3–5 both ways, layer 0",
                                            "full causal, image tokens 3–5 both ways, layer 1"]
    assert "&lt;img&gt;" in fig.svg()
    fig = model_figure({"model_type": "gpt_oss", "num_hidden_layers": 2, "sliding_window": 3}, n=6, decode=2)
    assert [p.shape for p in fig.plans] == [(4, 7), (4, 7)]  # 4 decoded queries; the sink and 6 keys
    svg = fig.svg()
    assert ">sink<" in svg and "learned logit" in svg


def test_t5_draws_a_non_square_cross_attention_panel():
    fig = model_figure({"model_type": "t5", "num_layers": 2}, n=8, pad_right=2)
    assert [(p.stack, p.shape) for p in fig.plans] == [("encoder", (8, 8)), ("decoder", (4, 4)), ("cross", (4, 8))]


def test_layer_lists_read_as_ranges():
    assert layer_list_text(list(range(5)) + list(range(6, 11)) + [12]) == "layers 0–4, 6–10, 12"
    assert layer_list_text(list(range(0, 26, 2))) == "layers 0, 2, …, 24 (every 2nd)"


def test_the_api_and_the_command_agree(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps(GEMMA3))
    out = tmp_path / "m.svg"
    result = run_cli("model", str(tmp_path), "--n", "6", "--pad-left", "1", "-o", str(out))
    assert result.code == 0, result.stderr
    assert out.read_text() == attnviz.model_figure(GEMMA3, n=6, pad_left=1).svg() + "\n"


@pytest.mark.parametrize("config, args, message", [
    ({"model_type": "falcon"}, (), "model_type 'falcon' is not one attnviz reads"),
    ({"num_hidden_layers": 2}, (), "the config has no 'model_type'"),
    ({"model_type": "gemma2", "num_hidden_layers": 2}, (), "the gemma2 config has no 'sliding_window'"),
    ({"model_type": "llama4_text", "num_hidden_layers": 4}, (), "no 'attention_chunk_size'"),
    ({"model_type": "llama"}, (), "no 'num_hidden_layers'"),
    (GEMMA3, ("--image-tokens", "1-2"), "gemma3_text has no image tokens"),
    (GEMMA3, ("--decode", "16"), "a prompt of 16 leaves no token"),
    ({"model_type": "bert", "num_hidden_layers": 2}, ("--decode", "2"), "bert is an encoder"),
    (GEMMA3, ("--layers", "0,40"), "layer 40 is not a layer of this model"),
    (GEMMA3, ("--pad-left", "16"), "padding positions leave none"),
])
def test_bad_configs_and_flags_are_one_line(tmp_path, config, args, message):
    (tmp_path / "config.json").write_text(json.dumps(config))
    result = run_cli("model", str(tmp_path), "-o", str(tmp_path / "x.svg"), *args)
    assert result.code == 2 and result.stderr.count("\n") == 1, result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr
    if "config" in result.stderr.split(":")[2]:
        assert "--mask" in result.stderr


def test_a_config_that_is_not_json_is_one_line(tmp_path):
    (tmp_path / "config.json").write_text("{nope")
    result = run_cli("model", str(tmp_path))
    assert result.code == 2 and "is not JSON" in result.stderr


@pytest.mark.parametrize("count", [1, 2, 4])
def test_the_sink_family_keeps_the_first_keys_of_every_row(count):
    from attnviz.engine.masks import resolve

    bound = resolve(f"causal & (window=2 | sink={count})", 7, 7, index_base=0)
    for i in range(7):
        for j in range(7):
            assert bool(bound.keep(i, j)) == (j <= i and (i - j < 2 or j < count))
    alone = resolve(f"sink={count}", 3, 6)
    assert alone.rule == f"j<={count}" and [bool(alone.keep(0, j)) for j in range(6)] == [j < count for j in range(6)]


def test_a_local_tokenizer_splits_the_tokens(tmp_path):
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {"[UNK]": 0, "the": 1, "cat": 2, "##s": 3, "sat": 4}
    tokenizer = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    PreTrainedTokenizerFast(tokenizer_object=tokenizer, unk_token="[UNK]").save_pretrained(tmp_path / "tok")
    fig = model_figure(GEMMA3, tokens="the cats sat", tokenizer=tmp_path / "tok")
    assert fig.tokens.n == 4 and ">##s<" in fig.svg()
    (tmp_path / "config.json").write_text(json.dumps(GEMMA3))
    result = run_cli("model", "--tokens", "a b", "--tokenizer", str(tmp_path / "none"), str(tmp_path))
    assert result.code == 2 and "is not a tokenizer folder" in result.stderr
