"""Real-valued inputs: numpy arrays and torch tensors as Q, K, V, floats read as the decimals they print as,
`decimals=N` rounding (exact, half to even), boolean matrices as masks, and one-line refusals."""

import re
from fractions import Fraction

import numpy as np
import pytest
import torch

import attnviz
from attnviz.numbers.arrays import read_entry, significant_digits

from clirun import run_cli

Q = [[0.1, 0.2], [0.3, 0.4], [0.5, -0.25]]


@pytest.mark.parametrize("make", [
    lambda: Q, lambda: np.array(Q), lambda: np.array(Q, dtype=np.float32), lambda: np.array(Q, dtype=np.float16),
    lambda: torch.tensor(Q), lambda: torch.tensor(Q, dtype=torch.float64), lambda: torch.tensor(Q).half(),
], ids=["list", "float64", "float32", "float16", "torch-float32", "torch-float64", "torch-float16"])
def test_every_float_width_is_read_as_the_decimal_it_prints(make):
    fig = attnviz.figure(make(), make())
    assert fig.attention.scores[0][0] == Fraction(1, 10) ** 2 + Fraction(2, 10) ** 2
    assert fig.attention.scores[2][1] == Fraction(1, 2) * Fraction(3, 10) - Fraction(1, 4) * Fraction(4, 10)


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint8])
def test_integer_arrays_are_exact(dtype):
    q = np.array([[1, 2], [3, 4]], dtype=dtype)
    assert attnviz.figure(q, q).attention.scores[1][1] == 25
    assert attnviz.figure(torch.tensor(q.astype(np.int64)), q).attention.scores[1][1] == 25


def test_a_long_float_is_refused_naming_decimals_and_decimals_rounds_it():
    q = torch.randn(3, 4, generator=torch.Generator().manual_seed(0))
    with pytest.raises(attnviz.InputError, match=r"significant digits .* decimals=N \(--decimals N\)"):
        attnviz.figure(q, q)
    fig = attnviz.figure(q, q, decimals=2)
    rounded = [[Fraction(round(Fraction(str(x)) * 100), 100) for x in row] for row in q.numpy()]
    assert fig.attention.scores[0][0] == sum(x * x for x in rounded[0])
    svg = fig.svg()
    assert "inputs rounded to 2 decimals; scores exact from the rounded values" in svg


def test_rounding_is_exact_half_to_even_from_the_printed_decimal():
    assert [read_entry(x, 2) for x in (0.125, 0.375, 2.675, -0.005)] == [
        Fraction(12, 100), Fraction(38, 100), Fraction(268, 100), Fraction(0)]  # 2.675 is "2.675", not 2.67499...
    assert read_entry(Fraction(1, 3), 3) == Fraction(333, 1000) and read_entry(7, 0) == 7
    assert significant_digits("1.5e-07") == 2 and significant_digits("123456.0") == 6
    assert read_entry(0.123456, None) == Fraction(123456, 10**6)  # six digits are read as they are


@pytest.mark.parametrize("bad, message", [
    (np.zeros((2, 3, 4)), r"shape \(2, 3, 4\) is 3-D"),
    (torch.zeros(1, 2, 3, 4), r"shape \(1, 2, 3, 4\) is 4-D"),
    (np.array([1.0, 2.0]), r"shape \(2,\) is one vector"),
    (np.array([[1 + 2j, 1]]), "complex"),
    (torch.zeros(2, 2, dtype=torch.complex64), "complex"),
    (np.array([[np.nan, 1.0]]), "nan is not a finite number"),
    ([[float("inf"), 1]], "inf is not a finite number"),
    (torch.tensor([[1.0, float("-inf")]]), "-inf is not a finite number"),
    (np.ones((2, 2), dtype=bool), "a boolean array is a mask"),
])
def test_bad_arrays_are_one_line_naming_the_shape_or_value(bad, message):
    with pytest.raises(attnviz.InputError, match=message) as caught:
        attnviz.figure(bad, [[1, 0], [0, 1]] if getattr(bad, "ndim", 2) != 2 else bad)
    assert "\n" not in str(caught.value)


def test_boolean_matrices_are_masks():
    from torch.nn.attention.flex_attention import create_mask

    keep = create_mask(lambda b, h, q, kv: (q - kv >= 0) & (q - kv < 2), 1, 1, 4, 4, device="cpu")[0, 0]
    window = attnviz.figure(view="mask", n=4, mask="window=2")
    for mask in (keep, keep.numpy()):
        fig = attnviz.figure(view="mask", n=4, mask=mask)
        assert fig.words.runs == window.words.runs
    with pytest.raises(attnviz.InputError, match="float64 array as a mask"):
        attnviz.figure(mask=np.ones((3, 3)))


def test_a_score_mod_may_return_numpy_and_torch_scalars():
    def doubled(score, b, h, q_idx, kv_idx):  # the seed's scores are whole numbers
        return torch.tensor(int(score) * 2)

    def shifted(score, b, h, q_idx, kv_idx):
        return np.int64(int(score)) + 1

    for mod, expected in ((doubled, lambda s: 2 * s), (shifted, lambda s: s + 1)):
        fig = attnviz.figure(bias=mod)
        assert fig.attention.logits[2][2] == expected(fig.attention.scores[2][2])


def test_the_command_rounds_with_decimals(tmp_path):
    out = tmp_path / "f.svg"
    result = run_cli("render", "--q", "0.123456789,1; 1,0", "--k", "1,0; 0,1", "--decimals", "2", "-o", str(out))
    assert result.code == 0, result.stderr
    svg = out.read_text()
    words = re.sub(r' data-(value|weight)="[^"]*"', "", svg)  # (cells' checkable values are fraction literals)
    assert "inputs rounded to 2 decimals" in words and "Q1=(0.12,1)" in words and "3/25" not in words  # decimals stay
    assert 'data-value="3/25"' in svg


class _DeviceTensor:
    """A tensor on another device, as far as attnviz can tell: it must be moved to the CPU to be read."""

    __module__ = "torch.fake"

    def __init__(self, tensor):
        self.tensor, self.device = tensor, "cuda:0"

    def detach(self):
        return self

    def cpu(self):
        return self.tensor


def test_a_tensor_on_another_device_is_read_on_the_cpu_and_the_figure_says_so():
    q = torch.tensor([[1.5, 0.0], [0.0, 2.0]])
    fig = attnviz.figure(_DeviceTensor(q), q)
    assert fig.attention.scores[0][0] == Fraction(9, 4)
    assert "q was on cuda:0; read on the CPU" in fig.svg()


def test_reading_a_config_json_imports_neither_transformers_nor_torch(tmp_path):
    import json
    import subprocess
    import sys

    (tmp_path / "config.json").write_text(json.dumps({"model_type": "gemma2", "num_hidden_layers": 2,
                                                      "sliding_window": 2}))
    probe = (f"import sys, attnviz; attnviz.model_figure({str(tmp_path)!r}, n=4).svg(); "
             "print(sorted(m for m in ('torch', 'transformers', 'numpy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
