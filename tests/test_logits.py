"""Scaled and biased logits against exact arithmetic; the a + b·√r type on its own."""

from fractions import Fraction
from math import isqrt

import pytest
from hypothesis import given
from hypothesis import strategies as st

import attnviz
from attnviz.numbers.exact import InputError
from attnviz.engine.logits import parse_slope, resolve_biases, resolve_scale
from attnviz.words.notation import exponential, format_exact
from attnviz.numbers.surds import Surd, inverse_sqrt, sign, squarefree_split, surd
from conftest import svg_text
from test_layout import assert_clean

F = Fraction
fractions = st.fractions(min_value=-20, max_value=20, max_denominator=30)
radicands = st.integers(2, 70)


def is_squarefree(n):
    return all(n % (p * p) for p in range(2, isqrt(n) + 1))


@given(st.integers(1, 5000))
def test_squarefree_split(d):
    f, r = squarefree_split(d)
    assert f * f * r == d and is_squarefree(r)


@given(fractions, fractions, radicands)
def test_surd_is_rational_only_when_it_must_be(a, b, r):
    x = surd(a, b, r)
    f, core = squarefree_split(r)
    if b == 0 or core == 1:
        assert type(x) is F and x == a + b * f
    else:
        assert isinstance(x, Surd) and x.r == core and (x.a, x.b) == (a, b * f)


@given(fractions, fractions, fractions, fractions, st.sampled_from([2, 3, 5, 6, 7]))
def test_surd_arithmetic_and_sign_are_exact(a, b, c, d, r):
    x, y = surd(a, b, r), surd(c, d, r)
    s = x + y
    assert s == surd(a + c, b + d, r) and x - y == surd(a - c, b - d, r)
    assert x * y == surd(a * c + b * d * r, a * d + b * c, r)
    assert x * 3 == surd(3 * a, 3 * b, r) and -x == surd(-a, -b, r)
    # sign(a + b√r) by squares, checked against bounds of √r at 40 decimal digits
    lo = F(isqrt(r * 10**80), 10**40)
    hi = lo + F(1, 10**40)
    low, high = sorted([a + b * lo, a + b * hi])
    if low > 0:
        assert sign(x) == 1
    elif high < 0:
        assert sign(x) == -1
    elif b == 0 and a == 0:
        assert sign(x) == 0


@pytest.mark.parametrize("x, text", [
    (surd(0, 1, 2), "√2"), (surd(0, -1, 2), "-√2"), (surd(0, F(1, 3), 3), "√3/3"), (surd(0, F(-2, 3), 3), "-2√3/3"),
    (surd(F(1, 2), F(3, 2), 2), "1/2+3√2/2"), (surd(-1, -1, 5), "-1-√5"), (F(-7, 2), "-7/2"), (surd(0, 2, 8), "4√2"),
])
def test_format_exact(x, text):
    assert format_exact(x) == text


def test_exponentials_of_irrational_exponents():
    assert exponential(surd(0, 1, 2)) == "e^(√2)"  # 2/√2
    assert exponential(inverse_sqrt(3)) == "e^(√3/3)"  # 1/√3, denominator rationalised


@st.composite
def qk(draw, max_n=6, max_d=6):
    d = draw(st.integers(1, max_d))
    vec = st.lists(st.one_of(st.integers(-5, 5), st.fractions(-3, 3, max_denominator=5)), min_size=d, max_size=d)
    return (draw(st.lists(vec, min_size=1, max_size=max_n)), draw(st.lists(vec, min_size=1, max_size=max_n)))


@given(qk(), st.sampled_from(["top-left", "bottom-right"]), st.one_of(st.none(), fractions))
def test_sqrt_scale_and_alibi_against_exact_arithmetic(vectors, align, slope):
    q, k = vectors
    d = len(q[0])
    bias = None if slope is None else f"alibi={slope}"
    att = attnviz.figure(q, k, scale="sqrt", bias=bias, align=align).attention
    offset = len(k) - len(q) if align == "bottom-right" else 0
    for i in range(len(q)):
        for j in range(len(k)):
            s = att.scores[i][j]
            b = 0 if slope is None else slope * ((j + 1) - (i + 1 + offset))
            scaled = att.logits[i][j] - b  # S/√d exactly: its square times d is S², with S's sign
            assert scaled * scaled * d == s * s and sign(scaled) == sign(s)
            assert type(att.logits[i][j]) is F or isinstance(att.logits[i][j], Surd)
            if isqrt(d) ** 2 == d:
                assert att.logits[i][j] == s / isqrt(d) + b


@given(qk(), fractions.filter(lambda x: x > 0))
def test_rational_scale_and_bias_matrix(vectors, factor):
    q, k = vectors
    rows = [[F(i - 2 * j, 3) for j in range(len(k))] for i in range(len(q))]
    text = "matrix=" + ";".join(",".join(map(str, row)) for row in rows)
    att = attnviz.figure(q, k, scale=str(factor), bias=text, mask="none").attention
    for i in range(len(q)):
        for j in range(len(k)):
            expected = att.scores[i][j] if factor == 1 else factor * att.scores[i][j]
            assert att.logits[i][j] == expected + rows[i][j]
            assert type(att.logits[i][j]) is F


def test_weights_use_the_logits():
    fig = attnviz.figure([[1, 1]] * 2, [[1, 0], [0, 1]], scale="sqrt")  # d=2: S/√2
    assert fig.words.softmax_rows[1].scores == "row 2: logits [√2/2,√2/2]"
    assert fig.words.softmax_rows[1].weights == "weights 1/2, 1/2"  # equal logits pin the row
    fig = attnviz.figure([[2, 0]] * 2, [[1, 0], [0, 1]], scale="sqrt")
    assert fig.words.softmax_rows[1].weights == "weights e^(√2)/(e^(√2)+e^0), e^0/(e^(√2)+e^0)"  # 2/√2 = √2


def test_perfect_square_dimension_stays_rational():
    fig = attnviz.figure([[1, 1, 1, 1]], [[1, 0, 1, 1]], scale="sqrt")
    assert fig.attention.logits[0][0] == F(3, 2)
    assert fig.words.grid_caption == "score S_ij=Qi·Kj with causal mask; logits L_ij=S_ij/√4"


def test_captions_say_scores_or_logits():
    q = [[1, 0, 1], [0, 2, 1]]
    plain = attnviz.figure(q, q)
    assert plain.words.softmax_heading == "row softmax over unmasked scores"
    scaled = attnviz.figure(q, q, scale="sqrt", bias="alibi=1/2")
    assert scaled.words.grid_caption == "score S_ij=Qi·Kj with causal mask; logits L_ij=S_ij/√3+1/2·(j-i)"
    assert scaled.words.softmax_heading == "row softmax over unmasked logits L_ij=S_ij/√3+1/2·(j-i)"
    assert [c.text for c in scaled.words.cells[1]] == ["1", "5"]  # raw S by default
    shown = attnviz.figure(q, q, scale="sqrt", bias="alibi=1/2", show="logits")
    assert shown.words.grid_caption == "logit L_ij=S_ij/√3+1/2·(j-i), S_ij=Qi·Kj, with causal mask"
    assert [c.text for c in shown.words.cells[1]] == ["-1/2+√3/3", "5√3/3"]
    assert shown.words.softmax_rows[1].scores == "row 2: logits [-1/2+√3/3,5√3/3]"
    text = svg_text(shown.svg())
    assert "5√3/3" in text and "e^(-1/2+√3/3)/(e^(-1/2+√3/3)+e^(5√3/3))" in text
    assert_clean(shown.layout())


@pytest.mark.parametrize("bias, n_q, n_k, align, text, values", [
    ("alibi=1/2", 3, 3, "top-left", "+1/2·(j-i)", [[0, F(1, 2)], [F(-1, 2), 0]]),
    ("alibi=2^-3", 2, 2, "top-left", "+1/8·(j-i)", [[0, F(1, 8)], [F(-1, 8), 0]]),
    ("alibi=1", 2, 2, "top-left", "+(j-i)", [[0, 1], [-1, 0]]),
    ("alibi=-1", 2, 2, "top-left", "-(j-i)", [[0, -1], [1, 0]]),
    ("alibi=0", 2, 2, "top-left", "+0·(j-i)", [[0, 0], [0, 0]]),
    ("alibi=-0.0", 2, 2, "top-left", "+0·(j-i)", [[0, 0], [0, 0]]),
    ("alibi=1/4", 2, 4, "bottom-right", "+1/4·(j-i-2)", [[F(-1, 2), F(-1, 4)], [F(-3, 4), F(-1, 2)]]),
    ("matrix=0,1;2,3", 2, 2, "top-left", "+B_ij", [[0, 1], [2, 3]]),
])
def test_bias_texts_and_values(bias, n_q, n_k, align, text, values):
    (b,) = resolve_biases(bias, n_q, n_k, align)
    assert b.text == text
    assert [[b.value(i, j) for j in range(2)] for i in range(2)] == values


@pytest.mark.parametrize("scale, heading", [
    (None, "L_ij=S_ij+0·(j-i)"), ("sqrt", "L_ij=S_ij/√2+0·(j-i)"), ("1/2", "L_ij=1/2·S_ij+0·(j-i)")])
def test_a_zero_slope_is_written_as_a_term(scale, heading):
    fig = attnviz.figure(scale=scale, bias="alibi=0", show="logits")
    assert fig.words.softmax_heading == f"row softmax over unmasked logits {heading}"


def test_bias_matrix_is_shown_beside_the_vectors():
    fig = attnviz.figure([[1], [1]], [[1], [1]], bias="matrix=0,-9;1/2,0")
    assert fig.words.more_vectors == ("B1=(0,-9); B2=(1/2,0)",)
    assert "B1=(0,-9); B2=(1/2,0)" in svg_text(fig.svg())


def test_callable_bias():
    def distance(q_idx, kv_idx):
        return Fraction(kv_idx - q_idx, 4)

    fig = attnviz.figure([[1], [1]], [[1], [1]], bias=distance)
    assert fig.attention.logits == ((1, F(5, 4)), (F(3, 4), 1))
    assert fig.words.softmax_heading == "row softmax over unmasked logits L_ij=S_ij+distance(i-1,j-1)"


@pytest.mark.parametrize("kwargs, message", [
    (dict(scale="-1"), "scale: a scale factor must be positive, got -1"),
    (dict(scale="root"), "scale: expected \"sqrt\" or an exact number like 1/8; 'root' is not a number"),
    (dict(bias="alibi"), "bias 'alibi': 'alibi' needs a value: alibi=M"),
    (dict(bias="alibi=x"), "bias 'alibi=x': 'x' is not a slope: a slope is an exact number (1/2, 0.25)"),
    (dict(bias="rope=1"), "bias 'rope=1': unknown bias 'rope'"),
    (dict(bias="matrix=1,2;3"), "bias 'matrix=1,2;3': 2 rows for a 3×3 grid; give 3 rows of 3"),
    (dict(bias="matrix=0,0,0;0,0;0,0,0"), "bias 'matrix=0,0,0;0,0;0,0,0': row 2 has 2 entries for a 3×3 grid"),
    (dict(bias="matrix=1,2,3;x,1,1;1,1,1"), "bias 'matrix=1,2,3;x,1,1;1,1,1': row 2: 'x' is not a number"),
    (dict(bias=lambda q, k: "a"), "bias: bias(0, 0) returned 'a' is not a number"),
    (dict(bias=3), "bias: expected a bias like \"alibi=1/2\""),
])
def test_bad_scale_and_bias(kwargs, message):
    with pytest.raises(InputError) as err:
        attnviz.figure(**kwargs)
    assert message in str(err.value)


def test_scale_of_one_changes_nothing_and_slopes_parse():
    assert resolve_scale("1", 4) is None and resolve_scale(None, 4) is None
    assert resolve_scale("sqrt", 8).factor == surd(0, F(1, 4), 2)  # 1/√8 = √2/4
    assert parse_slope("2^-8") == F(1, 256) and parse_slope("0.5") == F(1, 2) and parse_slope("2^(-1)") == F(1, 2)


def test_walkthrough_of_a_scaled_figure_says_logits_and_typesets_radicals():
    from attnviz.publish.walkthrough.scores import walkthrough

    document, figures = walkthrough(attnviz.figure(scale="sqrt", bias="alibi=1/2"))
    row2 = next(s for s in document.sections if s.heading == "Softmax of row 2")
    assert row2.paragraphs == ("Row 2's unmasked logits are [-1/2,√2/2]. Softmax is named, not decimalized: "
                               "weights e^(-1/2)/(e^(-1/2)+e^(√2/2)), e^(√2/2)/(e^(-1/2)+e^(√2/2)).",)
    assert r"\frac{e^{{\frac{\sqrt{2}}{2}}}}{e^{-1/2}+e^{{\frac{\sqrt{2}}{2}}}}" in row2.formula
    assert len(figures) == len(document.sections)
