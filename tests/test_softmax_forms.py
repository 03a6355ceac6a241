"""Softmax forms (issue 34): a sink logit, the quiet softmax, sigmoid attention and logit soft-capping.

Every drawn weight's `data-weight` expression, evaluated in float64, is checked against the real implementations:
transformers' GPT-OSS eager attention with sinks, Gemma 2's eager soft-capping, torch.sigmoid of the biased logits;
and against formulas written here from the papers (numpy), never against attnviz's own code.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import attnviz
from attnviz.numbers.exact import InputError
from clirun import run_cli

_CELL = re.compile(r'data-q="(\d+)" data-k="(\d+)"(?: data-value="([^"]*)")?(?: data-weight="([^"]*)")?')
_NAMES = {"exp": math.exp, "log": math.log, "tanh": math.tanh, "sqrt": math.sqrt,
          "sigmoid": lambda x: 1 / (1 + math.exp(-x))}


def drawn_weights(svg: str, n_q: int, n_k: int, **names: float) -> np.ndarray:
    """The figure's data-weight expressions evaluated in float64 (NaN where a cell has none)."""
    out = np.full((n_q, n_k), np.nan)
    for q, k, _, weight in _CELL.findall(svg):
        if weight:
            out[int(q) - 1, int(k) - 1] = eval(weight, {"__builtins__": {}}, {**_NAMES, **names})  # noqa: S307
    return out


def additive_mask(keep: np.ndarray) -> torch.Tensor:
    return torch.where(torch.tensor(keep), 0.0, float("-inf")).to(torch.float64)[None, None]


def keep_matrix(n: int, window: int | None) -> np.ndarray:
    i, j = np.indices((n, n))
    keep = j <= i
    return keep & (i - j < window) if window else keep


vectors = st.integers(2, 5).flatmap(lambda n: st.integers(1, 3).flatmap(lambda d: st.tuples(
    st.lists(st.lists(st.integers(-3, 3), min_size=d, max_size=d), min_size=n, max_size=n),
    st.lists(st.lists(st.integers(-3, 3), min_size=d, max_size=d), min_size=n, max_size=n))))


@given(vectors, st.fractions(-3, 3, max_denominator=4), st.sampled_from([None, 2, 3]))
def test_sink_weights_equal_gpt_oss_eager_attention(qk, sink, window):
    """GPT-OSS's eager attention with `sinks` (sliding and full layers), float64, to 1e-12."""
    from transformers.models.gpt_oss.modeling_gpt_oss import eager_attention_forward

    q, k = qk
    n, d = len(q), len(q[0])
    mask = f"window={window}" if window else "causal"
    svg = attnviz.figure(q, k, mask=mask, scale="sqrt", sink=str(sink)).svg()
    module = SimpleNamespace(sinks=torch.tensor([float(sink)], dtype=torch.float64), num_key_value_groups=1,
                             training=False)
    qt, kt = (torch.tensor(x, dtype=torch.float64)[None, None] for x in (q, k))
    _, weights = eager_attention_forward(module, qt, kt, kt, additive_mask(keep_matrix(n, window)), d ** -0.5)
    np.testing.assert_allclose(drawn_weights(svg, n, n), np.where(keep_matrix(n, window), weights[0, 0].numpy(), 0),
                               rtol=0, atol=1e-12)


@given(vectors, st.sampled_from([None, 3]))
def test_soft_capped_weights_equal_gemma2_eager_attention(qk, window):
    """Gemma 2's eager soft-capping (its softmax is float32: 1e-6) and the float64 formula (1e-12)."""
    from transformers.models.gemma2.modeling_gemma2 import eager_attention_forward

    q, k = qk
    n = len(q)
    svg = attnviz.figure(q, k, mask=f"window={window}" if window else "causal", softcap=2).svg()
    keep = keep_matrix(n, window)
    module = SimpleNamespace(num_key_value_groups=1, training=False, head_dim=len(q[0]))
    qt, kt = (torch.tensor(x, dtype=torch.float64)[None, None] for x in (q, k))
    _, weights = eager_attention_forward(module, qt, kt, kt, additive_mask(keep), scaling=1.0, softcap=2.0)
    drawn = drawn_weights(svg, n, n)
    np.testing.assert_allclose(drawn, np.where(keep, weights[0, 0].numpy(), 0), rtol=0, atol=1e-6)
    logits = 2 * np.tanh(np.array(q, float) @ np.array(k, float).T / 2)
    exps = np.where(keep, np.exp(logits - logits.max(axis=1, keepdims=True)), 0)
    np.testing.assert_allclose(drawn, exps / exps.sum(axis=1, keepdims=True), rtol=0, atol=1e-12)


@given(vectors, st.sampled_from(["0", "-1/2", "-ln(6)", "-ln(n)"]))
def test_sigmoid_weights_equal_torch_sigmoid(qk, bias):
    """σ(L + b) per cell, masked cells 0, no row sum: torch.sigmoid of the biased logits."""
    q, k = qk
    n = len(q)
    svg = attnviz.figure(q, k, sigmoid=bias).svg()
    keep = keep_matrix(n, None)
    logits = torch.tensor(q, dtype=torch.float64) @ torch.tensor(k, dtype=torch.float64).T
    f64 = torch.float64
    b = {"0": torch.zeros(n, 1, dtype=f64), "-1/2": torch.full((n, 1), -0.5, dtype=f64),
         "-ln(6)": torch.full((n, 1), -math.log(6), dtype=f64),
         "-ln(n)": -torch.log(torch.tensor(keep.sum(axis=1), dtype=f64))[:, None]}[bias]
    expected = torch.where(torch.tensor(keep), torch.sigmoid(logits + b), 0).numpy()
    np.testing.assert_allclose(drawn_weights(svg, n, n), expected, rtol=0, atol=1e-12)


@given(vectors)
def test_quiet_softmax_is_softmax_plus_one(qk):
    """--sink 0 is e^x_i/(1 + Σ e^x_j) (Miller's "quiet" softmax), written from its definition."""
    q, k = qk
    n = len(q)
    keep = keep_matrix(n, None)
    logits = np.array(q, float) @ np.array(k, float).T
    exps = np.where(keep, np.exp(logits), 0)
    expected = exps / (1 + exps.sum(axis=1, keepdims=True))
    np.testing.assert_allclose(drawn_weights(attnviz.figure(q, k, sink=0).svg(), n, n), expected, rtol=0, atol=1e-12)


def test_a_named_sink_stays_a_name_and_its_share_is_said():
    fig = attnviz.figure(sink="s")
    rows = [row.weights for row in fig.words.softmax_rows]
    assert rows[1] == "weights e^0/(e^s+e^0+e^1), e^1/(e^s+e^0+e^1); sink e^s/(e^s+e^0+e^1)"
    assert fig.words.badge == "exact scores, exact causal mask, named softmax with a sink logit"
    assert "K(sink)" not in fig.svg() and "Ksink" not in fig.svg()  # never a key with a vector
    for s in (-2.0, 0.0, 1.5):  # the name evaluates to the formula for any s
        drawn = drawn_weights(fig.svg(), 3, 3, s=s)
        assert drawn[1, 0] == pytest.approx(1 / (math.exp(s) + 1 + math.e), abs=1e-12)


def test_exact_where_the_arithmetic_pins_it():
    """σ(0) = 1/2, σ(0 − ln 6) = 1/7, and a sink equal to a row's equal logits gives 1/(k+1) to each."""
    assert [r.weights for r in attnviz.figure(sigmoid="-ln(6)").words.softmax_rows][1] == "weights 1/7, 1/(1+6·e^(-1))"
    assert [r.weights for r in attnviz.figure(sigmoid="-1").words.softmax_rows][0] == "weights 1/2"
    fig = attnviz.figure([[1, 0], [1, 0]], [[1, 0], [1, 0]], sink=1, v=[[2, 0], [0, 2]])
    assert fig.words.softmax_rows[1].weights == "weights 1/3, 1/3; sink 1/3"
    assert fig.attention.output(1) == (Fraction(2, 3), Fraction(2, 3))


def test_a_sink_row_with_every_key_masked_has_weights_zero():
    fig = attnviz.figure([[1, 0], [0, 1]], [[1, 0], [0, 1]], mask="matrix=10;00", sink="s", v=[[1, 0], [0, 1]])
    assert fig.words.softmax_rows[1].weights == "weights none (every key masked): the sink takes the whole row"
    assert fig.attention.output(1) == (0, 0)


def test_decimal_weights_are_correctly_rounded_for_every_form():
    cases = {"sink": (dict(sink="-1"), lambda x: np.exp(x) / (np.exp(-1) + np.exp(x).sum())),
             "softcap": (dict(softcap=2), lambda x: np.exp(2 * np.tanh(x / 2)) / np.exp(2 * np.tanh(x / 2)).sum()),
             "sigmoid": (dict(sigmoid="-ln(6)"), lambda x: 1 / (1 + 6 * np.exp(-x)))}
    for name, (option, formula) in cases.items():
        fig = attnviz.figure([[1, 0], [0, 1], [1, 1]], [[1, 0], [0, 1], [1, 1]], weights="decimal=6", **option)
        printed = fig.words.softmax_rows[2].weights.removeprefix("weights ").split(";")[0].split(", ")
        expected = formula(np.array([1.0, 1.0, 2.0]))
        assert [float(p.lstrip("≈")) for p in printed] == pytest.approx(list(np.round(expected, 6)), abs=0), name


@pytest.mark.parametrize("frame", ["slide", "slide-4:3", "column", "column-wide", "doc"])
@pytest.mark.parametrize("option", [dict(sink="s"), dict(sink=0), dict(sigmoid="-ln(n)"), dict(softcap=50)])
def test_every_form_fits_every_frame(frame, option):
    fig = attnviz.figure(frame=frame, **option)
    assert fig.svg().startswith("<svg") and "data-weight" in fig.svg()


@pytest.mark.parametrize("options, where, words", [
    (dict(sink="s", sigmoid="0"), "sink", "no denominator for a sink"),
    (dict(softcap=0), "softcap", "must be positive"),
    (dict(sigmoid="ln(6)"), "sigmoid", "expected an exact bias"),
    (dict(sink="s", weights="decimal=3"), "weights", "the name 's'"),
    (dict(sink="s", view="mask"), "sink", "mask view"),
])
def test_forms_refuse_what_they_cannot_name(options, where, words):
    with pytest.raises(InputError) as err:
        attnviz.figure(**options)
    assert err.value.where == where and words in str(err.value)


def test_per_head_sinks_and_their_count():
    fig = attnviz.figure(q_heads=[[[1, 0], [0, 1]], [[0, 1], [1, 1]]], k_heads=[[[1, 0], [0, 1]]], sink="s_1 | s_2")
    assert "e^(s_2)" in fig.panels[1].words.softmax_rows[1].weights
    with pytest.raises(InputError, match="3 sink logits for 2 query heads"):
        attnviz.figure(q_heads=[[[1, 0]], [[0, 1]]], k_heads=[[[1, 0]]], sink="a | b | c")


def test_the_command_line_takes_every_form(tmp_path):
    for flags in (["--sink", "s"], ["--sigmoid=-ln(n)"], ["--softcap", "50"], ["--sink", "0"]):
        result = run_cli("render", *flags, "-o", str(tmp_path / "f.svg"))
        assert result.code == 0, result.stderr
    for flags, words in ((["--sink", "s"], "give it a number"), (["--sigmoid", "0"], "no running maximum"),
                         (["--softcap", "50"], "capped logits")):
        result = run_cli("walkthrough", *flags, "--flash", "2,2", "-o", str(tmp_path / "w"))
        assert result.code == 2 and result.stderr.count("\n") == 1 and words in result.stderr


@given(vectors, st.fractions(-3, 3, max_denominator=2), st.sampled_from([(1, 1), (2, 2), (2, 1), (1, 3)]))
def test_flash_with_a_sink_starts_at_m_s_and_ends_at_the_one_shot_softmax(qk, sink, block):
    """As the sink kernels do: m_i = s, ℓ_i = 1 at the start; after the last tile e^(m_i)·ℓ_i = e^s + Σ_j e^(x_ij),
    and the walkthrough's weights e^(x−m)/ℓ are GPT-OSS's."""
    from attnviz.engine.tiled_softmax import flash_steps

    q, k = qk
    n = len(q)
    fig = attnviz.figure(q, k, sink=str(sink))
    final = {}
    for step in flash_steps(fig.attention, block):
        assert step.start == sink
        for i in step.m:
            final[i] = (step.m[i], step.l[i], step.sink[i])
    logits = np.array(q, float) @ np.array(k, float).T
    for i in range(1, n + 1):
        m, exps, sink_exp = final[i]
        total = math.exp(m) * (math.exp(sink_exp) + sum(math.exp(x) for x in exps))
        expected = math.exp(sink) + sum(math.exp(logits[i - 1, j]) for j in range(i))
        assert total == pytest.approx(expected, rel=1e-12)
        assert sink_exp == sink - m and m == max([sink, *[Fraction(int(round(logits[i - 1, j]))) for j in range(i)]])


def test_the_flash_walkthrough_with_a_sink_says_its_start(tmp_path):
    steps = attnviz.walkthrough(attnviz.figure(sink="-1", v=[[1, 0], [0, 1], [1, 1]]), flash=(2, 2))
    text = " ".join(p for section in steps.document.sections for p in section.paragraphs)
    assert "m_1 = max(-1, 1) = 1" in text and "ℓ_1 = e^(-1-1)·(1) + e^(1-1) = e^(-2)+e^0" in text
    assert "the sink's share e^(-2)/(e^(-2)+e^0) = e^(-1)/(e^(-1)+e^1)" in text
    assert "m_i = s = -1, ℓ_i = e^(s−s) = 1" in steps.document.intro[0]


def _softmax(logits: np.ndarray, keep: np.ndarray) -> np.ndarray:
    exps = np.where(keep, np.exp(logits - logits.max(axis=1, keepdims=True)), 0)
    return exps / exps.sum(axis=1, keepdims=True)


@given(st.integers(2, 4).flatmap(lambda n: st.lists(st.lists(st.integers(-2, 2), min_size=2, max_size=2),
                                                    min_size=4 * n, max_size=4 * n)),
       st.sampled_from([Fraction(1, 2), Fraction(4, 5), Fraction(1)]))
def test_differential_entries_equal_the_diff_transformer_formula(rows, lam):
    """softmax(Q1K1ᵀ) − λ·softmax(Q2K2ᵀ) (Ye et al. 2024), each drawn entry's data-value and its certified sign."""
    n = len(rows) // 4
    q1, q2, k1, k2 = (rows[t * n:(t + 1) * n] for t in range(4))
    fig = attnviz.figure(q_heads=[q1, q2], k_heads=[k1, k2], differential=str(lam))
    svg = fig.panels[2].svg()
    _check_difference(svg, fig, (q1, k1, q2, k2), lam, n)


def test_differential_names_lambda_and_refuses_what_it_cannot_subtract():
    fig = attnviz.figure(q_heads=[[[1, 0], [0, 1]], [[0, 1], [1, 0]]], k_heads=[[[1, 0], [0, 1]]], differential="λ")
    assert fig.panels[2].words.cells[1][0].text == "a21−λ·b21" and fig.panels[2].words.cells[1][0].sign is None
    assert fig.panels[2].words.cells[0][0].text == "1−λ·1"
    with pytest.raises(InputError, match="two query heads"):
        attnviz.figure(differential="1/2")
    with pytest.raises(InputError, match="two plain softmax maps"):
        attnviz.figure(q_heads=[[[1, 0]], [[0, 1]]], k_heads=[[[1, 0]]], differential="1/2", sink="s")


def test_differential_decimals_are_correctly_rounded():
    q_heads = [[[1, 0], [0, 1], [1, 1]], [[0, 1], [1, 0], [1, 1]]]
    fig = attnviz.figure(q_heads=q_heads, k_heads=[[[1, 0], [0, 1], [1, 1]]], differential="1/2", weights="decimal=4")
    keep = keep_matrix(3, None)
    k = np.array([[1, 0], [0, 1], [1, 1]], float)
    expected = (_softmax(np.array(q_heads[0], float) @ k.T, keep) - 0.5 * _softmax(np.array(q_heads[1], float) @ k.T,
                                                                                    keep))
    for row, cells in enumerate(fig.panels[2].words.cells):
        for cell in cells:
            if not cell.masked:
                assert float(cell.text.lstrip("≈")) == round(expected[row, cell.k - 1], 4)
    with pytest.raises(InputError, match="λ's value"):
        attnviz.figure(q_heads=q_heads, k_heads=[[[1, 0], [0, 1], [1, 1]]], differential="λ", weights="decimal=4")


_FONT = re.compile(r'font-size="([\d.]+)"')


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 3).flatmap(lambda n: st.lists(st.lists(st.integers(-2, 2), min_size=2, max_size=2),
                                                    min_size=4 * n, max_size=4 * n)),
       st.sampled_from([Fraction(1, 2), Fraction(4, 5), Fraction(1), Fraction(-3, 10)]))
def test_the_differential_figure_on_a_4_3_slide_equals_the_formula(rows, lam):
    """On a 4:3 slide (issue 34) the difference grid's entries are softmax(Q1K1ᵀ) − λ·softmax(Q2K2ᵀ), each cell's
    sign as numpy's, every text at 16 px or more at 960 px wide (1,024 × 768 shows it larger)."""
    n = len(rows) // 4
    q1, q2, k1, k2 = (rows[t * n:(t + 1) * n] for t in range(4))
    fig = attnviz.figure(q_heads=[q1, q2], k_heads=[k1, k2], differential=str(lam), frame="slide-4:3")
    svg = fig.svg()
    width, height = map(float, re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', svg).groups())
    assert width / height == pytest.approx(4 / 3, rel=1e-3)
    assert min(float(size) for size in _FONT.findall(svg)) * 960 / width >= 16 - 1e-6
    expected = _check_difference(svg[svg.index('data-panel="3"'):], fig, (q1, k1, q2, k2), lam, n)  # 3rd panel
    for row, cells in enumerate(fig.panels[2].words.cells):
        for cell in cells:
            x = expected[row, cell.k - 1]
            if not cell.masked and abs(x) > 1e-9:
                assert cell.text.endswith((">0", "<0")) or Fraction(cell.text.replace("−", "-")) == pytest.approx(x)
                assert cell.text[-2:] != (">0" if x < 0 else "<0")


def test_four_tokens_on_a_4_3_slide_are_refused_naming_a_frame_that_draws_them():
    q_heads = [[[1, 0], [0, 1], [1, 1], [2, -1]], [[0, 1], [1, 0], [1, 1], [-1, 1]]]
    k_heads = [[[1, 0], [0, 1], [1, 1], [1, 2]]]
    result = run_cli("render", "--q-heads", "1,0; 0,1; 1,1; 2,-1 | 0,1; 1,0; 1,1; -1,1", "--k-heads",
                     "1,0; 0,1; 1,1; 1,2", "--differential", "4/5", "--frame", "slide-4:3", "-o", "-")
    assert result.code == 2 and result.stderr.count("\n") == 1 and "--frame doc" in result.stderr
    assert attnviz.figure(q_heads=q_heads, k_heads=k_heads, differential="4/5", frame="doc").svg()


def _check_difference(svg, fig, vectors, lam, n):
    """Every drawn difference entry (`data-value` in `svg`) equals A1 - lam*A2 from numpy, every sign as certified."""
    q1, k1, q2, k2 = vectors
    keep = keep_matrix(n, None)
    expected = (_softmax(np.array(q1, float) @ np.array(k1, float).T, keep)
                - float(lam) * _softmax(np.array(q2, float) @ np.array(k2, float).T, keep))
    drawn = np.full((n, n), np.nan)
    for q, k, value, _ in _CELL.findall(svg):
        if value:
            drawn[int(q) - 1, int(k) - 1] = eval(value, {"__builtins__": {}}, _NAMES)  # noqa: S307
    np.testing.assert_allclose(np.where(keep, drawn, 0), np.where(keep, expected, 0), rtol=0, atol=1e-12)
    for row, cells in enumerate(fig.panels[2].words.cells):
        for cell in cells:
            x = expected[row, cell.k - 1]
            if not cell.masked and abs(x) > 1e-9:
                assert cell.sign == np.sign(x)
    return expected
