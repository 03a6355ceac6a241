"""ALiBi's slopes for any head count, exactly, and FlexAttention score_mods as logit transforms."""

import math
from fractions import Fraction

import pytest
import torch

import attnviz
from clirun import run_cli
from attnviz.numbers.exact import InputError
from attnviz.engine.logits import alibi_exponents, parse_slope
from attnviz.numbers.surds import Surd, surd


def paper_slopes(n):
    """The ALiBi paper's get_slopes (Press et al.), in floats, as the reference."""
    def power_of_2(n):
        start = 2 ** (-2 ** -(math.log2(n) - 3))
        return [start * start ** i for i in range(n)]

    if math.log2(n).is_integer():
        return power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_2(closest) + paper_slopes(2 * closest)[0::2][:n - closest]


@pytest.mark.parametrize("heads", range(1, 65))
def test_slopes_match_the_paper_for_every_head_count(heads):
    assert [2.0 ** float(e) for e in alibi_exponents(heads)] == pytest.approx(paper_slopes(heads), rel=1e-12)


def test_twelve_heads_are_exact():
    slopes = [parse_slope(f"head:{h}/12") for h in range(1, 13)]
    assert slopes[:8] == [Fraction(1, 2 ** h) for h in range(1, 9)]
    assert slopes[8:] == [surd(0, Fraction(1, 2), 2), surd(0, Fraction(1, 4), 2), surd(0, Fraction(1, 8), 2),
                          surd(0, Fraction(1, 16), 2)]  # 2^(-1/2) = √2/2, 2^(-3/2) = √2/4, ...
    for s, reference in zip(slopes, paper_slopes(12)):
        value = float(s) if isinstance(s, Fraction) else float(s.b) * math.sqrt(s.r)
        assert value == pytest.approx(reference, rel=1e-12)


def test_an_alibi_head_in_a_figure():
    fig = attnviz.figure([[1, 0], [0, 1]], [[1, 0], [0, 1]], bias="alibi=head:9/12", show="logits")
    assert fig.words.grid_caption == "logit L_ij=S_ij+√2/2·(j-i), S_ij=Qi·Kj, with causal mask"
    assert fig.attention.logits[1][0] == Surd(0, Fraction(-1, 2), 2)


@pytest.mark.parametrize("bias, message", [
    ("alibi=head:1/32", "bias 'alibi=head:1/32': head 1 of 32 has slope 2^(-1/4), which is a fourth root; "
                        "logits stay exact with square roots only"),
    ("alibi=2^(-2/3)", "bias 'alibi=2^(-2/3)': 2^(-2/3) is a cube root"),
    ("alibi=head:13/12", "head 13 of 12: heads are numbered 1 to 12"),
    ("alibi=head:1/0", "needs a head count from 1 to 1024, got 0"),
])
def test_slopes_that_cannot_stay_exact_are_refused(bias, message):
    with pytest.raises(InputError) as err:
        attnviz.figure(bias=bias)
    assert message in str(err.value)


def test_two_square_roots_are_refused_by_name():
    with pytest.raises(InputError) as err:
        attnviz.figure([[1, 0, 0]], [[1, 0, 0]], scale="sqrt", bias="alibi=head:9/12")  # √3 with ALiBi's √2
    assert str(err.value) == ("bias 'alibi=head:9/12': its slope √2/2 and the scale would mix √2 with √3; exact "
                              "logits here hold one square root at a time")


def relative_positional(score, b, h, q_idx, kv_idx):  # PyTorch's FlexAttention docs
    return score + (q_idx - kv_idx)


def halved_distance(score, b, h, q_idx, kv_idx):
    return score + (kv_idx - q_idx) / 2


@pytest.mark.parametrize("score_mod", [relative_positional, halved_distance])
def test_score_mods_change_logits_as_flex_attention_does(score_mod):
    q = [[1, 0], [0, 1], [1, 1], [2, 1]]
    fig = attnviz.figure(q, q, bias=score_mod, mask="none")
    zero, index = torch.zeros(4, 4, dtype=torch.float64), torch.arange(4)
    change = score_mod(zero, torch.tensor(0), torch.tensor(0), index[:, None], index[None, :])  # on tensors
    for i in range(4):
        for j in range(4):
            assert fig.attention.logits[i][j] - fig.attention.scores[i][j] == Fraction(change[i, j].item())
            assert isinstance(fig.attention.logits[i][j], Fraction)


def test_a_score_mod_wraps_the_scaled_logit_and_matches_alibi():
    alibi = attnviz.figure(scale="sqrt", bias="alibi=1/2")
    mod = attnviz.figure(scale="sqrt", bias=halved_distance)
    assert mod.attention.logits == alibi.attention.logits
    assert mod.words.grid_caption == ("score S_ij=Qi·Kj with causal mask; logits L_ij=halved_distance(S_ij/√2,"
                                      "i-1,j-1)")


def test_score_mods_that_need_tensors_or_floats_say_so():
    def tensor_only(score, b, h, q_idx, kv_idx):
        return score + torch.abs(q_idx - kv_idx)

    def floating(score, b, h, q_idx, kv_idx):
        return score * 0.5

    with pytest.raises(InputError) as err:
        attnviz.figure(bias=tensor_only)
    assert "tensor_only(score, 0, 0, 0, 0) raised TypeError" in str(err.value)
    assert "but not torch functions: rewrite that part, or give the bias as matrix=ROW;ROW;..." in str(err.value)
    with pytest.raises(InputError) as err:
        attnviz.figure(bias=floating)
    assert str(err.value).startswith("bias: floating(score, 0, 0, 0, 0) returned the float 0.5; floats are not exact")


@pytest.mark.parametrize("text, value", [
    ("4^(-1/4)", surd(0, Fraction(1, 2), 2)),  # √2/2: 4 is 2^2, so 4^(-1/4) is 2^(-1/2)
    ("4^(-3/4)", surd(0, Fraction(1, 4), 2)),
    ("16^(-1/4)", Fraction(1, 2)), ("8^(-1/3)", Fraction(1, 2)), ("64^(-1/6)", Fraction(1, 2)),
    ("9^(-1/4)", surd(0, Fraction(1, 3), 3)), ("8^(1/2)", surd(0, 2, 2)), ("12^(-1/2)", surd(0, Fraction(1, 6), 3)),
    ("1^(1/3)", Fraction(1)), ("2^(-1/2)", surd(0, Fraction(1, 2), 2)), ("2^-3", Fraction(1, 8)),
])
def test_powers_whose_value_is_a_surd_are_exact(text, value):
    slope = parse_slope(text)
    assert slope == value
    base, exponent = text.split("^")
    approx = float(slope) if isinstance(slope, Fraction) else float(slope.a) + float(slope.b) * math.sqrt(slope.r)
    assert approx == pytest.approx(float(base) ** float(Fraction(exponent.strip("()"))), rel=1e-12)


def test_the_root_of_four_is_drawn_as_root_two_over_two():
    fig = attnviz.figure([[1, 0], [0, 1]], [[1, 0], [0, 1]], bias="alibi=4^(-1/4)", show="logits")
    assert fig.words.grid_caption == "logit L_ij=S_ij+√2/2·(j-i), S_ij=Qi·Kj, with causal mask"
    assert fig.attention.logits[1][0] == Surd(0, Fraction(-1, 2), 2)


ACCEPTED = ("a slope is an exact number (1/2, 0.25), a power whose value is a number or a multiple of a square "
            "root (2^-3, 2^(-1/2), 4^(-1/4) = √2/2; base and exponent of up to 3 digits), or head:H/N (every "
            "head's slope is exact for up to 16 heads)")


@pytest.mark.parametrize("slope, message", [
    ("2^(-1/3)", "2^(-1/3) is a cube root; logits stay exact with square roots only (a + b·√r): " + ACCEPTED),
    ("4^(1/6)", "4^(1/6) is a cube root"),  # 2^(1/3)
    ("8^(-1/4)", "8^(-1/4) is a fourth root"),  # 2^(-3/4)
    ("x", "'x' is not a slope: " + ACCEPTED),
    ("1000^(-1/2)", "'1000^(-1/2)' is not a slope: " + ACCEPTED),
    ("2^^3", "'2^^3' is not a slope"),
    ("1/0", "'1/0' divides by zero"),
])
def test_slope_messages_say_what_is_accepted(slope, message):
    result = run_cli("render", "--bias", f"alibi={slope}", "-o", "-")
    assert result.code == 2 and result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"attnviz: error: --bias 'alibi={slope}': {message}"), result.stderr


def test_an_unknown_bias_lists_the_slopes():
    result = run_cli("render", "--bias", "alibi:1", "-o", "-")
    assert result.code == 2 and result.stderr == (
        "attnviz: error: --bias 'alibi:1': unknown bias 'alibi:1'; biases are alibi=M (a slope like 1/2, 2^-3, "
        "2^(-1/2) or head:H/N), matrix=ROW;ROW;... (rows of exact numbers) and t5=NUM_BUCKETS,MAX_DISTANCE"
        "[,values=B0,B1,...] (T5's relative-position buckets)\n")
