"""Masks, scaling, biases and caption forms from the command line and from spec files, end to end."""

from types import SimpleNamespace

import pytest

import attnviz
from attnviz.cli.commands import build_parser
from clirun import run_cli
from conftest import svg_text

QK = ["--q", "1,0; 0,1; 1,1; 2,0", "--k", "1,0; 0,1; 1,1; 1,-1"]


def run(*args):
    result = run_cli(*args)
    return SimpleNamespace(returncode=result.code, stdout=result.stdout, stderr=result.stderr)


def test_flags_reach_the_figure():
    result = run("render", *QK, "--mask", "window=2", "--mask", "padding=1", "--scale", "sqrt", "--bias",
                 "alibi=2^-1", "--v", "1;2;3;4", "--softmax", "normalizer", "--show", "logits", "-o", "-")
    assert result.returncode == 0, result.stderr
    expected = attnviz.figure([[1, 0], [0, 1], [1, 1], [2, 0]], [[1, 0], [0, 1], [1, 1], [1, -1]],
                              mask=["window=2", "padding=1"], scale="sqrt", bias="alibi=1/2", v=[[1], [2], [3], [4]],
                              softmax="normalizer", show="logits")
    assert result.stdout == expected.svg() + "\n"
    text = svg_text(result.stdout)
    assert "sliding-window + padding mask keeps i-2<j<=i and j not in {1}" in text
    assert "logit L_ij=S_ij/√2+1/2·(j-i), S_ij=Qi·Kj, with sliding-window + padding mask" in text
    assert "row 3: logits [-1/2+√2/2,√2]; Z_3=e^(-1/2+√2/2)+e^(√2)" in text
    assert "O3 = w32·V2 + w33·V3" in text


def test_align_and_decimal_weights():
    result = run("render", "--q", "1;1", "--k", "1;2;3", "--align", "bottom-right", "--weights", "decimal=2",
                 "-o", "-")
    assert result.returncode == 0, result.stderr
    text = svg_text(result.stdout)
    assert "causal mask keeps j<=i+1, aligned bottom-right" in text
    assert "row 1: scores [1,2]weights ≈0.27, ≈0.73" in text
    assert "softmax weights marked ≈ are rounded to 2 decimals, not exact" in text


def test_negative_scale_value_reaches_its_option():
    result = run("render", "--scale", "-1/2", "-o", "-")
    assert result.returncode == 2 and result.stderr == (
        "attnviz: error: --scale: a scale factor must be positive, got -1/2\n")


def test_spec_keys(tmp_path):
    spec = tmp_path / "fig.toml"
    spec.write_text('q = [[1, 0], [0, 1], [1, 1]]\nk = [[1, 0], [0, 1], [1, 1]]\nmask = ["none", "padding=3"]\n'
                    'scale = 0.5\nbias = ["alibi=1", "matrix=0,0,0;0,0,0;1,1,1"]\nv = [[1], [2], [3]]\n'
                    'softmax = "grouped"\nweights = "decimal=3"\nshow = "logits"\nalign = "top-left"\n',
                    encoding="utf-8")
    result = run("render", str(spec), "-o", "-")
    assert result.returncode == 0, result.stderr
    expected = attnviz.figure([[1, 0], [0, 1], [1, 1]], [[1, 0], [0, 1], [1, 1]], mask=["none", "padding=3"],
                              scale="1/2", bias=["alibi=1", "matrix=0,0,0;0,0,0;1,1,1"], v=[[1], [2], [3]],
                              softmax="grouped", weights="decimal=3", show="logits")
    assert result.stdout == expected.svg() + "\n"
    assert "logit L_ij=1/2·S_ij+(j-i)+B_ij" in svg_text(result.stdout)


def test_json_spec_with_a_single_mask(tmp_path):
    spec = tmp_path / "fig.json"
    spec.write_text('{"q": "1;1;1", "k": "1;2;3", "mask": "chunk=2", "scale": "sqrt"}', encoding="utf-8")
    result = run("render", str(spec), "--mask", "prefix=2", "-o", "-")  # the flag overrides the key
    assert result.returncode == 0, result.stderr
    assert "prefix-LM mask keeps j<=i, or i<=2 and j<=2" in svg_text(result.stdout)


@pytest.mark.parametrize("args, message", [
    (["--mask", "windw=2"], "attnviz: error: --mask 'windw=2': unknown mask 'windw'; did you mean 'window='?"),
    (["--mask", "padding=7"], "attnviz: error: --mask 'padding=7': key position 7 is outside the grid (keys 1..3)"),
    (["--align", "left"], "attnviz: error: --align: expected top-left or bottom-right, got 'left'"),
    (["--scale", "two"], "attnviz: error: --scale: expected \"sqrt\" or an exact number like 1/8"),
    (["--bias", "alibi"], "attnviz: error: --bias 'alibi': 'alibi' needs a value: alibi=M"),
    (["--v", "1;2"], "attnviz: error: --v: 2 value vectors for 3 keys; give one per key"),
    (["--v", "1;x;2"], "attnviz: error: --v: vector 2: 'x' is not a number"),
    (["--softmax", "long"], "attnviz: error: --softmax: expected expanded, normalizer or grouped; got 'long'"),
    (["--weights", "decimal=x"], "attnviz: error: --weights: expected \"named\" or \"decimal=N\""),
    (["--show", "all"], "attnviz: error: --show: expected scores, logits or bias; got 'all'"),
])
def test_bad_new_flags_are_one_line_and_exit_2(tmp_path, args, message):
    target = tmp_path / "keep.svg"
    target.write_text("precious", encoding="utf-8")
    result = run("render", *args, "-o", str(target))
    assert result.returncode == 2
    assert result.stderr.startswith(message) and result.stderr.count("\n") == 1, result.stderr
    assert target.read_text(encoding="utf-8") == "precious"


@pytest.mark.parametrize("body, message", [
    ('mask = 3', "fig.toml: mask: expected a list of strings, got an integer"),
    ('mask = "windo=2"', "fig.toml: mask 'windo=2': unknown mask 'windo'; did you mean 'window='?"),
    ('scale = true', "fig.toml: scale: expected \"sqrt\" or an exact number"),
    ('softmax = 1', "fig.toml: softmax: expected a string, got an integer"),
    ('mask = {some = ["causal"]}', "fig.toml: mask: a mask table has one key, all, any or not (got some)"),
    ('mask = {any = ["causal", "windw=2"]}', "fig.toml: mask 'windw=2': unknown mask 'windw'; did you mean 'window='?"),
    ('mask = {any = [1]}', "fig.toml: mask.any[1]: expected a list of strings, got an integer"),
])
def test_bad_spec_values_name_the_key(tmp_path, body, message):
    spec = tmp_path / "fig.toml"
    spec.write_text(f'q = [[1], [1]]\nk = [[1], [2]]\n{body}\n', encoding="utf-8")
    result = run("render", str(spec), "-o", str(tmp_path / "out.svg"))
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith(f"attnviz: error: {tmp_path / message}"), result.stderr


def test_help_lists_the_new_options():
    help_text = build_parser()._subparsers._group_actions[0].choices["render"].format_help()
    for flag in ("--mask", "--align", "--scale", "--bias", "--v", "--softmax", "--weights", "--show"):
        assert flag in help_text


def test_mask_algebra_from_the_command_line_and_a_spec(tmp_path):
    result = run("render", "--q", "1;1;1;1;1", "--k", "1;2;3;4;5", "--mask", "window=2,symmetric | global=1",
                 "--mask", "!padding=5", "-o", "-")
    assert result.returncode == 0, result.stderr
    text = svg_text(result.stdout)
    assert "(symmetric sliding-window or global) + not padding mask keeps (|i-j|<2 or (i in {1} or j in {1})) " \
           "and not (j not in {5})" in text.replace("\n", "")
    spec = tmp_path / "fig.toml"
    spec.write_text('q = "1;1;1;1;1"\nk = "1;2;3;4;5"\n'
                    'mask = {all = [{any = ["window=2,symmetric", "global=1"]}, {not = "padding=5"}]}\n',
                    encoding="utf-8")
    from_spec = run("render", str(spec), "-o", "-")
    assert from_spec.returncode == 0, from_spec.stderr
    assert from_spec.stdout == result.stdout


def test_a_bad_expression_is_one_line():
    result = run("render", "--mask", "(window=2 | global=1", "-o", "-")
    assert result.returncode == 2
    assert result.stderr == "attnviz: error: --mask '(window=2 | global=1': expected ')', found the end\n"
