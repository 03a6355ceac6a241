"""Hostile model configs and tokenizer folders (issue 39): no remote code, bounded layers and lists, only
regular files read, bounded nesting and numbers, every error one line (CLI) or an InputError (API)."""

import json
import os
import subprocess
import sys
import time

import pytest

from attnviz.engine.model_masks import MAX_LAYERS
from attnviz.errors import InputError
from attnviz.figures.model import model_figure
from attnviz.words.budget import drawable_chars

from clirun import run_cli

GEMMA2 = {"model_type": "gemma2", "sliding_window": 4}
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def one_line_error(result):
    assert result.code == 2 and result.stdout == "", result
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("attnviz: error: "), result.stderr
    return result.stderr


def test_an_auto_map_tokenizer_folder_is_refused_before_transformers_runs_its_code(tmp_path):
    marker = tmp_path / "ran"
    evil = tmp_path / "evil"
    evil.mkdir()
    (evil / "tokenization_evil.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    (evil / "tokenizer_config.json").write_text(json.dumps(
        {"auto_map": {"AutoTokenizer": ["tokenization_evil.EvilTokenizer", None]}, "tokenizer_class": "EvilTokenizer"}))
    (tmp_path / "config.json").write_text(json.dumps({**GEMMA2, "num_hidden_layers": 2}))
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "attnviz", "model", str(tmp_path), "--tokens", "a b",
                           "--tokenizer", str(evil), "-o", "-"], input=b"y\ny\n", capture_output=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": ROOT, "HF_HUB_OFFLINE": "1"})
    assert not marker.exists()
    assert done.returncode == 2 and done.stdout == b"", done
    err = done.stderr.decode()
    assert err.count("\n") == 1 and err.startswith("attnviz: error: ") and "auto_map" in err, err
    assert time.monotonic() - start < 20


def test_an_auto_map_in_the_tokenizer_folders_config_is_refused_too(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"auto_map": {"AutoConfig": "x.Y"}}))
    with pytest.raises(InputError, match="has an auto_map"):
        model_figure({**GEMMA2, "num_hidden_layers": 2}, tokens="a b", tokenizer=tmp_path)


@pytest.mark.parametrize("name", ["Config.json", "TOKENIZER_CONFIG.JSON"])
def test_an_auto_map_is_refused_whatever_the_case_of_its_file_name(tmp_path, name):
    (tmp_path / name).write_text(json.dumps({"auto_map": {"AutoConfig": "x.Y"}}))  # macOS and Windows open it as such
    with pytest.raises(InputError, match="has an auto_map"):
        model_figure({**GEMMA2, "num_hidden_layers": 2}, tokens="a b", tokenizer=tmp_path)


def test_a_tokenizer_error_without_a_message_is_still_one_line(tmp_path, monkeypatch):
    import transformers

    def fail(*args, **kwargs):
        raise IndexError()

    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained", fail)
    with pytest.raises(InputError, match="IndexError"):
        model_figure({**GEMMA2, "num_hidden_layers": 2}, tokens="a b", tokenizer=tmp_path)


def test_a_tokenizer_error_is_said_as_an_internal_error_is(tmp_path, monkeypatch):
    """Control characters escaped (`errors.describe`), a long message cut, the exception's type named."""
    import transformers

    def fail(*args, **kwargs):
        raise OSError("no tokenizer\x1b[2J here\n" + "x" * 5000)

    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained", fail)
    with pytest.raises(InputError) as caught:
        model_figure({**GEMMA2, "num_hidden_layers": 2}, tokens="a b", tokenizer=tmp_path)
    said = str(caught.value)
    assert "OSError: no tokenizer\\x1b[2J here" in said and "\x1b" not in said and len(said) < 600, said


def test_the_tokenizer_is_loaded_without_remote_code_and_without_standard_input(tmp_path, monkeypatch):
    import transformers

    seen = {}

    def spy(*args, **kwargs):
        seen.update(kwargs, stdin=sys.stdin.read())
        raise OSError("no tokenizer here")

    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained", spy)
    monkeypatch.setattr(sys, "stdin", open(__file__))  # noqa: SIM115  a readable stdin
    with pytest.raises(InputError, match="no tokenizer here"):
        model_figure({**GEMMA2, "num_hidden_layers": 2}, tokens="a b", tokenizer=tmp_path)
    assert seen["trust_remote_code"] is False and seen["local_files_only"] is True and seen["stdin"] == ""


@pytest.mark.parametrize("config", [
    {**GEMMA2, "num_hidden_layers": 10**9},
    {**GEMMA2, "num_hidden_layers": MAX_LAYERS + 1},
    {"model_type": "llama4_text", "num_hidden_layers": 10**6, "attention_chunk_size": 4,
     "no_rope_layers": [1] * 10**6},
    {"model_type": "bert", "num_hidden_layers": 100_000},
    {"model_type": "t5", "num_layers": 2, "num_decoder_layers": 10**6},
    {"model_type": "bart", "encoder_layers": 10**6, "decoder_layers": 2},
    {"model_type": "distilbert", "n_layers": 10**6},
])
def test_a_layer_count_past_the_limit_is_refused_at_once(config):
    start = time.monotonic()
    with pytest.raises(InputError, match=f"at most {MAX_LAYERS} layers"):
        model_figure(config)
    assert time.monotonic() - start < 1


@pytest.mark.parametrize(("key", "extra"), [("layer_types", {}), ("no_rope_layers", {"attention_chunk_size": 4})])
def test_a_long_layer_list_is_refused_at_once(key, extra):
    model_type = "llama4_text" if key == "no_rope_layers" else "gemma2"
    config = {**GEMMA2, **extra, "model_type": model_type, "num_hidden_layers": 4, key: ["x"] * 200_000}
    start = time.monotonic()
    with pytest.raises(InputError, match="200,000"):
        model_figure(config)
    assert time.monotonic() - start < 1


@pytest.mark.parametrize("key", ["num_hidden_layers", "sliding_window", "sliding_window_pattern"])
@pytest.mark.parametrize("value", [-10**5000, 10**5000], ids=["negative", "positive"])
def test_a_huge_number_in_a_dict_is_an_input_error(key, value):
    config = {"model_type": "gemma3_text", "num_hidden_layers": 4, "sliding_window": 4, key: value}
    with pytest.raises(InputError) as caught:
        model_figure(config)
    assert len(str(caught.value)) < 300


@pytest.mark.parametrize("options", [{"n": 10**5000}, {"pad_left": -10**5000}, {"layers": [10**5000]},
                                     {"image_tokens": (0, 10**5000)}], ids=["n", "pad_left", "layers", "image"])
def test_a_huge_number_as_an_option_is_an_input_error(options):
    with pytest.raises(InputError) as caught:
        model_figure({"model_type": "gemma3", "text_config": {**GEMMA2, "num_hidden_layers": 4}}, **options)
    assert len(str(caught.value)) < 300


def test_the_layer_strip_is_counted_in_the_budget():
    small = drawable_chars(model_figure({**GEMMA2, "num_hidden_layers": 2}, n=4))
    large = drawable_chars(model_figure({**GEMMA2, "num_hidden_layers": MAX_LAYERS}, n=4))
    assert large - small >= (MAX_LAYERS - 2) * 100


def test_the_largest_model_draws(tmp_path):
    svg = model_figure({"model_type": "t5", "num_layers": MAX_LAYERS}, n=4).svg()
    assert svg.count("data-layer=") == 3 * MAX_LAYERS and len(svg) < drawable_chars(
        model_figure({"model_type": "t5", "num_layers": MAX_LAYERS}, n=4))


def test_a_fifo_config_is_refused_without_waiting(tmp_path):
    os.mkfifo(tmp_path / "config.json")
    start = time.monotonic()
    for path in (tmp_path, tmp_path / "config.json"):
        assert "not a regular file" in one_line_error(run_cli("model", str(path)))
    assert time.monotonic() - start < 5


def test_a_folder_or_device_config_is_refused(tmp_path):
    (tmp_path / "config.json").mkdir()
    assert "not a regular file" in one_line_error(run_cli("model", str(tmp_path)))
    assert "not a regular file" in one_line_error(run_cli("model", "/dev/zero"))


def test_a_fifo_in_a_tokenizer_folder_is_refused_without_waiting(tmp_path):
    os.mkfifo(tmp_path / "tokenizer.json")
    start = time.monotonic()
    with pytest.raises(InputError, match="not a regular file"):
        model_figure({**GEMMA2, "num_hidden_layers": 2}, tokens="a b", tokenizer=tmp_path)
    assert time.monotonic() - start < 5


@pytest.mark.parametrize(("text", "words"), [
    ("[" * 100_000 + "]" * 100_000, "nested"),
    ('{"a": ' * 100_000 + "1" + "}" * 100_000, "nested"),
    ('{"model_type": "gemma2", "num_hidden_layers": ' + "9" * 5000 + "}", "digits"),
    ('{"model_type": "gemma2", "num_hidden_layers": -' + "9" * 5000 + "}", "digits"),
])
def test_deep_nesting_and_long_numbers_in_a_config_file_are_one_line(tmp_path, text, words):
    (tmp_path / "config.json").write_text(text)
    assert words in one_line_error(run_cli("model", str(tmp_path)))


def test_nesting_inside_strings_is_not_counted(tmp_path):
    config = {**GEMMA2, "num_hidden_layers": 2, "note": "[" * 1000, "deep": [[[[[[1]]]]]]}
    (tmp_path / "config.json").write_text(json.dumps(config))
    assert run_cli("model", str(tmp_path)).code == 0


def test_a_meta_device_tensor_is_one_input_error():
    import torch

    import attnviz

    q = torch.empty(3, 2, device="meta")
    with pytest.raises(InputError, match="meta device has no values"):
        attnviz.figure(q=q, k=q)
