"""Caption forms against hand-worked rows; decimal weights against exact bounds; value outputs."""

from fractions import Fraction
from math import isqrt

import pytest
from hypothesis import given
from hypothesis import strategies as st

import attnviz
from attnviz.engine.attention import softmax_weights
from attnviz.numbers.exact import InputError
from attnviz.words.notation import normalizer_line, output_line, weight_terms, weights_line
from attnviz.numbers.rounding import _rational_output, round_fraction, rounded_output, rounded_weights
from attnviz.numbers.surds import Surd, surd
from conftest import svg_text
from test_layout import assert_clean

F = Fraction
SEED = dict(q=[[1, 0], [0, 1], [1, 1]], k=[[1, 0], [0, 1], [1, 1]])


# Exact bounds for e^x, independent of mpmath: Taylor series with a bounded remainder, in Fractions.

def exp_bounds(x, digits=70):
    """lo <= e^x <= hi for a rational x: the Taylor series in fixed point (lower terms rounded down,
    upper terms rounded up), plus a bound on the tail: sum_{n>=N} x^n/n! <= x^N/N!·e^x <= x^N/N!·3^(x+1)."""
    if x < 0:
        lo, hi = exp_bounds(-x, digits)
        return 1 / hi, 1 / lo
    p, q, one = x.numerator, x.denominator, 10**digits
    lo = hi = 0
    term_lo = term_hi = one
    n = 0
    while term_hi > 1 or n <= 2 * x:
        lo, hi = lo + term_lo, hi + term_hi
        n += 1
        term_lo = term_lo * p // (q * n)
        term_hi = -(-term_hi * p // (q * n))
    return F(lo, one), F(hi + term_hi * 3 ** (int(x) + 1), one)


def value_bounds(x, digits=45):
    """lo <= x <= hi for a Fraction or a Surd (√r bounded by integer square roots)."""
    if not isinstance(x, Surd):
        return x, x
    root_lo = F(isqrt(x.r * 10 ** (2 * digits)), 10**digits)
    ends = sorted([x.a + x.b * root_lo, x.a + x.b * (root_lo + F(1, 10**digits))])
    return ends[0], ends[1]


def weight_bounds(exponents, t):
    """Bounds of e^x_t / Σ e^x_u = 1 / Σ e^(x_u - x_t)."""
    lo_sum = hi_sum = F(0)
    for x in exponents:
        lo_x, hi_x = value_bounds(x - exponents[t])
        lo_sum += exp_bounds(lo_x)[0]
        hi_sum += exp_bounds(hi_x)[1]
    return 1 / hi_sum, 1 / lo_sum


def assert_correctly_rounded(text, lo, hi, places):
    """Every printed digit is right: the exact value lies within half a unit of the last place."""
    value = F(text.lstrip("≈"))
    half = F(1, 2 * 10**places)
    assert value - half < lo and hi < value + half, (text, float(lo), float(hi))
    assert len(text.lstrip("≈-").partition(".")[2]) == places


@st.composite
def row_exponents(draw):
    """2 to 5 exponents, not all equal, rational or a + b·√r with one r per row (as in a figure)."""
    r = draw(st.sampled_from([2, 3, 5, 6]))
    exponent = st.one_of(st.fractions(-6, 6, max_denominator=7),
                         st.builds(lambda a, b: surd(a, b, r), st.fractions(-3, 3, max_denominator=4),
                                   st.fractions(-2, 2, max_denominator=4)))
    return draw(st.lists(exponent, min_size=2, max_size=5).filter(lambda xs: len(set(xs)) > 1))


@given(row_exponents(), st.sampled_from([1, 3, 6, 25]))
def test_decimal_weights_are_correctly_rounded(exponents, places):
    weights = softmax_weights(exponents)
    for t, (text, approximate) in enumerate(rounded_weights(weights, places)):
        assert approximate
        assert_correctly_rounded(text, *weight_bounds(exponents, t), places)


@given(st.lists(st.fractions(-4, 4, max_denominator=5), min_size=2, max_size=4).filter(lambda xs: len(set(xs)) > 1),
       st.lists(st.integers(-3, 3), min_size=4, max_size=4), st.sampled_from([2, 4, 20]))
def test_decimal_outputs_are_correctly_rounded(exponents, column, places):
    column = column[:len(exponents)]
    texts, approximate = rounded_output(softmax_weights(exponents), [(v,) for v in column], places)
    assert approximate
    lo = hi = F(0)
    for t, v in enumerate(column):
        w_lo, w_hi = weight_bounds(exponents, t)
        lo += min(v * w_lo, v * w_hi)
        hi += max(v * w_lo, v * w_hi)
    assert_correctly_rounded(texts[0], lo, hi, places)


def test_rational_outputs_are_detected_and_rounded_exactly():
    # e^1·3 + e^1·5 + e^2·4 over 2e^1 + e^2: every exponent group has mean 4, so the output is exactly 4.
    assert _rational_output([F(1), F(1), F(2)], [3, 5, 4]) == 4
    assert _rational_output([F(1), F(2)], [3, 4]) is None
    texts, approximate = rounded_output(softmax_weights([F(1), F(1), F(2)]), [(3,), (5,), (4,)], 3)
    assert texts == ["4.000"] and approximate


@pytest.mark.parametrize("value, places, text, approximate", [
    (F(1), 3, "1", False), (F(1, 2), 3, "0.5", False), (F(1, 3), 3, "0.333", True), (F(2, 3), 1, "0.7", True),
    (F(1, 8), 2, "0.12", True), (F(3, 8), 2, "0.38", True),  # exact ties go to the even digit
    (F(-1, 4), 1, "-0.2", True), (F(1, 4), 2, "0.25", False),
])
def test_round_fraction(value, places, text, approximate):
    assert round_fraction(value, places) == (text, approximate)


def test_hand_worked_decimal_rows():
    # row 2 of the seed: e^0/(e^0+e^1) = 1/(1+e) = 0.268941..., e/(1+e) = 0.731058...
    assert rounded_weights(softmax_weights([F(0), F(1)]), 3) == [("0.269", True), ("0.731", True)]
    # row 3: e/(2e+e²) = 1/(2+e) = 0.211941..., e/(2+e) = 0.576116...
    assert rounded_weights(softmax_weights([F(1), F(1), F(2)]), 4) == [("0.2119", True)] * 2 + [("0.5761", True)]
    # 1/(1+e^√2) = 0.195570...
    assert rounded_weights(softmax_weights([F(0), surd(0, 1, 2)]), 5)[0] == ("0.19557", True)
    assert rounded_weights(softmax_weights([F(2)] * 3), 3) == [("0.333", True)] * 3
    assert rounded_weights(softmax_weights([F(2)] * 4), 3) == [("0.25", False)] * 4


def test_decimal_figure_marks_every_rounded_weight_and_says_so():
    fig = attnviz.figure(**SEED, weights="decimal=3")
    assert [r.weights for r in fig.words.softmax_rows] == [
        "weights 1", "weights ≈0.269, ≈0.731", "weights ≈0.212, ≈0.212, ≈0.576"]
    assert fig.words.badge == "exact scores, exact causal mask, rounded softmax"
    assert fig.words.footer == "softmax weights marked ≈ are rounded to 3 decimals, not exact"
    assert fig.words.cells[2][2].text == "2"  # scores stay exact
    assert_clean(fig.layout())


def test_weights_option_is_checked():
    for bad, message in [("decimal=0", "decimal places must be 1 to 30, got 0"),
                         ("decimals=3", "expected \"named\" or \"decimal=N\""), (3, "expected \"named\"")]:
        with pytest.raises(InputError) as err:
            attnviz.figure(weights=bad)
        assert message in str(err.value) and str(err.value).startswith("weights: ")


@pytest.mark.parametrize("scores, form, terms", [
    ([0, 1], "expanded", ["e^0/(e^0+e^1)", "e^1/(e^0+e^1)"]),
    ([1, 1, 2], "grouped", ["e^1/(2e^1+e^2)", "e^1/(2e^1+e^2)", "e^2/(2e^1+e^2)"]),
    ([2, 0, 2, 2], "grouped", ["e^2/(3e^2+e^0)", "e^0/(3e^2+e^0)", "e^2/(3e^2+e^0)", "e^2/(3e^2+e^0)"]),
    ([0, 1], "grouped", ["e^0/(e^0+e^1)", "e^1/(e^0+e^1)"]),
    ([1, 1, 2], "normalizer", ["e^1/Z_3", "e^1/Z_3", "e^2/Z_3"]),
    ([5, 5], "normalizer", ["1/2", "1/2"]),  # pinned rows need no normalizer
    ([F(-1, 2), 1], "grouped", ["e^(-1/2)/(e^(-1/2)+e^1)", "e^1/(e^(-1/2)+e^1)"]),
])
def test_caption_forms_hand_worked(scores, form, terms):
    assert weight_terms(softmax_weights([F(s) for s in scores]), form, row=3) == terms


def test_normalizer_rows_define_z_once():
    fig = attnviz.figure(**SEED, softmax="normalizer")
    rows = fig.words.softmax_rows
    assert [(r.scores, r.weights) for r in rows] == [
        ("row 1: scores [1]", "weights 1"),
        ("row 2: scores [0,1]; Z_2=e^0+e^1", "weights e^0/Z_2, e^1/Z_2"),
        ("row 3: scores [1,1,2]; Z_3=e^1+e^1+e^2", "weights e^1/Z_3, e^1/Z_3, e^2/Z_3"),
    ]
    assert normalizer_line(softmax_weights([F(3)]), 1) == ""
    assert weights_line(softmax_weights([]), "normalizer", row=1) == "weights undefined (every key masked)"


def test_normalizer_text_grows_as_n_squared():
    n = 24
    q = [[i, 1] for i in range(n)]
    expanded = attnviz.figure(q, q, mask="none")
    normal = attnviz.figure(q, q, mask="none", softmax="normalizer")
    size = lambda fig: sum(len(r.scores) + len(r.weights) for r in fig.words.softmax_rows)  # noqa: E731
    assert size(normal) * 5 < size(expanded)
    assert_clean(normal.layout())


def test_grouped_figure():
    text = svg_text(attnviz.figure(**SEED, softmax="grouped").svg())
    assert "weights e^1/(2e^1+e^2), e^1/(2e^1+e^2), e^2/(2e^1+e^2)" in text


def test_bad_softmax_and_show():
    with pytest.raises(InputError, match="softmax: expected expanded, normalizer or grouped; got 'short'"):
        attnviz.figure(softmax="short")
    with pytest.raises(InputError, match="show: expected scores, logits or bias; got 'weights'"):
        attnviz.figure(show="weights")


def test_value_outputs_named_and_pinned():
    fig = attnviz.figure([[1], [1], [1]], [[0], [2], [2]], v=[[1, 0], [0, 1], [1, 1]])
    # row 1 single key; row 2 scores [0,2] named; row 3 [0,2,2] named
    assert [r.text for r in fig.words.output_rows] == [
        "O1 = w11·V1 = (1,0)", "O2 = w21·V1 + w22·V2", "O3 = w31·V1 + w32·V2 + w33·V3"]
    assert fig.words.more_vectors == ("V1=(1,0); V2=(0,1); V3=(1,1)",)
    uniform = attnviz.figure([[0], [0], [0]], [[1], [2], [3]], v=[[1, 0], [0, 1], [1, 1]])
    assert uniform.words.output_rows[2].text == "O3 = w31·V1 + w32·V2 + w33·V3 = (2/3,2/3)"
    assert uniform.attention.output(1) == (F(1, 2), F(1, 2))
    assert uniform.words.outputs_heading == "outputs: O_i is the sum of w_ij·V_j over the unmasked keys j of row i"
    assert_clean(uniform.layout())


def test_value_outputs_with_masks_and_decimals():
    fig = attnviz.figure(**SEED, mask="padding=2", v=[[1], [5], [3]], weights="decimal=2", highlight=["softmax=3"])
    assert [r.text for r in fig.words.output_rows] == [
        "O1 = w11·V1 = (1)", "O2 = w21·V1 = (1)", "O3 = w31·V1 + w33·V3 ≈ (2.46)"]  # (1 + 3e)/(1 + e) = 2.462...
    assert "O3 = w31·V1 + w33·V3 ≈ (2.46)" in svg_text(fig.svg())
    assert output_line(1, []) == "O1 undefined (every key masked)"
    assert output_line(12, [3, 11], wide=True) == "O12 = w12,3·V3 + w12,11·V11"


def test_outputs_layout_and_anatomy():
    root_svg = attnviz.figure(**SEED, v=[[1, 0], [0, 1], [1, 1]]).svg()
    assert root_svg.count('class="attnviz-output-row"') == 3
    assert 'class="attnviz-outputs-heading-text"' in root_svg and 'class="attnviz-output-text"' in root_svg


def test_seed_figure_unchanged_by_new_options(seed_line):
    fig = attnviz.figure(highlight=[(3, 3)], softmax="expanded", weights="named", show="scores", mask="causal")
    assert svg_text(fig.svg()) == seed_line


def test_rounding_gives_up_with_a_clear_error_at_the_precision_cap(monkeypatch):
    from attnviz.numbers import rounding

    monkeypatch.setattr(rounding, "MAX_BITS", 8)
    with pytest.raises(InputError) as err:
        attnviz.figure(**SEED, weights="decimal=3")
    assert str(err.value) == ("weights: cannot decide the rounding to 3 decimals within 8 bits of precision; "
                              "use fewer decimals")


@given(st.integers(1, 7), st.integers(1, 7), st.data())
def test_any_mix_of_options_lays_out_cleanly(n_q, n_k, data):
    d = data.draw(st.integers(1, 3))
    vec = st.lists(st.one_of(st.integers(-4, 4), st.fractions(-2, 2, max_denominator=3)), min_size=d, max_size=d)
    q = data.draw(st.lists(vec, min_size=n_q, max_size=n_q))
    k = data.draw(st.lists(vec, min_size=n_k, max_size=n_k))
    options = dict(
        mask=data.draw(st.sampled_from(["causal", "none", "window=2", "prefix=2", "chunk=2", ["none", "padding=1"]])),
        align=data.draw(st.sampled_from(["top-left", "bottom-right"])),
        scale=data.draw(st.sampled_from([None, "sqrt", "1/2"])),
        bias=data.draw(st.sampled_from([None, "alibi=1/2", "alibi=2^-3"])),
        softmax=data.draw(st.sampled_from(["expanded", "normalizer", "grouped"])),
        weights=data.draw(st.sampled_from(["named", "decimal=2"])),
        show=data.draw(st.sampled_from(["scores", "logits"])),
        v=data.draw(st.one_of(st.none(), st.lists(st.lists(st.integers(-2, 2), min_size=2, max_size=2),
                                                  min_size=n_k, max_size=n_k))),
    )
    fig = attnviz.figure(q, k, highlight=["softmax", "mask"], **options)
    assert_clean(fig.layout())
    words = fig.words
    transformed = options["scale"] is not None or options["bias"] is not None
    for i, row in enumerate(words.softmax_rows):
        kept = fig.attention.kept_logits(i)
        assert row.scores.startswith(f"row {i + 1}: {'logits' if transformed else 'scores'} [")
        if not kept:
            assert row.weights == "weights undefined (every key masked)"
        elif options["weights"] == "decimal=2" and len(set(kept)) > 1:
            assert row.weights.count("≈") == len(kept)
    if options["v"] is not None:
        assert len(words.output_rows) == n_q
    assert ("rounded" in words.footer) == (options["weights"] != "named")


def _long_exact_figure(softmax):
    """64 tokens whose scores are 80-digit fractions: every input within its limits."""
    q = [[Fraction(10**39 + 2 * i + 1, 10**39 - 2 * i - 3)] for i in range(64)]
    return attnviz.figure(q, q, mask="none", softmax=softmax)


def test_a_row_too_long_to_write_out_names_the_form_that_fits():
    with pytest.raises(InputError) as err:
        _long_exact_figure("expanded")
    assert err.value.where == "softmax"
    assert err.value.what.startswith("row 1's weights would be ")
    assert err.value.what.endswith("characters written out, past the limit of 200,000 per row: this form repeats "
                                   "the row's sum in every weight; the normalizer form writes it once "
                                   "(--softmax normalizer)")
    words = _long_exact_figure("normalizer").words  # the same numbers, each written once per row
    longest = max(len(row.scores) + len(row.weights) for row in words.softmax_rows)
    assert 20_000 < longest < 40_000


def test_a_sum_too_long_for_any_form_is_refused():
    weights = softmax_weights([Fraction(10**3500 + j, 7) for j in range(64)])  # about 3,500 characters each
    with pytest.raises(InputError) as err:
        normalizer_line(weights, 5)
    assert str(err.value) == ("q/k: row 5's softmax sum alone is 224,466 characters, past the limit of 200,000 "
                              "per row; use fewer tokens or shorter numbers")
