"""The exact engine against brute force, and the named softmax against hand-worked rows."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from attnviz.engine.attention import CAUSAL, attend, softmax_weights
from attnviz.numbers.exact import InputError
from attnviz.words.notation import exponential, scores_line, vector_line, weights_line

F = Fraction
entries = st.one_of(st.integers(-9, 9), st.fractions(min_value=-5, max_value=5, max_denominator=12))


@st.composite
def qk(draw, max_n=12, max_d=6):
    d = draw(st.integers(1, max_d))
    n_q, n_k = draw(st.integers(1, max_n)), draw(st.integers(1, max_n))
    vec = st.lists(entries, min_size=d, max_size=d)
    return draw(st.lists(vec, min_size=n_q, max_size=n_q)), draw(st.lists(vec, min_size=n_k, max_size=n_k))


@given(qk())
def test_scores_and_causal_mask_match_brute_force(vectors):
    q, k = vectors
    att = attend(q, k)
    for i in range(len(q)):
        for j in range(len(k)):
            brute = F(0)
            for a, b in zip(q[i], k[j]):
                brute += F(a) * F(b)
            assert att.scores[i][j] == brute
            assert type(att.scores[i][j]) is F
            assert att.kept[i][j] == (j + 1 <= i + 1)
        assert att.kept_scores(i) == tuple(att.scores[i][j] for j in range(len(k)) if j <= i)


@given(qk(max_n=8, max_d=4))
def test_softmax_rows_pin_only_what_is_exact(vectors):
    att = attend(*vectors)
    for i in range(len(vectors[0])):
        kept = att.kept_scores(i)
        w = att.weights(i)
        if not kept:
            assert w.kind == "undefined"
        elif len(set(kept)) == 1:
            assert w.kind == "pinned" and w.values == (F(1, len(kept)),) * len(kept) and sum(w.values) == 1
        else:
            assert w.kind == "named" and w.exponents == kept


def test_decimal_and_fraction_inputs_reduce():
    att = attend([["0.5", "1.25"]], [[2, 2]])
    assert att.scores[0][0] == F(7, 2)


def test_seed_numbers():
    att = attend([(1, 0), (0, 1), (1, 1)], [(1, 0), (0, 1), (1, 1)])
    assert att.scores == ((1, 0, 1), (0, 1, 1), (1, 1, 2))
    assert att.kept == ((True, False, False), (True, True, False), (True, True, True))
    assert att.mask is CAUSAL and att.all_integer


@pytest.mark.parametrize("x, text", [
    (F(2), "e^2"), (F(0), "e^0"), (F(-1), "e^(-1)"), (F(1, 2), "e^(1/2)"), (F(-7, 3), "e^(-7/3)"), (F(10), "e^10"),
])
def test_exponential(x, text):
    assert exponential(x) == text


@pytest.mark.parametrize("scores, line", [
    ([1], "weights 1"),
    ([0, 1], "weights e^0/(e^0+e^1), e^1/(e^0+e^1)"),
    ([1, 1, 2], "weights e^1/(e^1+e^1+e^2), e^1/(e^1+e^1+e^2), e^2/(e^1+e^1+e^2)"),
    ([-1, F(1, 2)], "weights e^(-1)/(e^(-1)+e^(1/2)), e^(1/2)/(e^(-1)+e^(1/2))"),
    ([F(-3, 2), 0], "weights e^(-3/2)/(e^(-3/2)+e^0), e^0/(e^(-3/2)+e^0)"),
    ([5, 5], "weights 1/2, 1/2"),
    ([F(-1, 3)] * 3, "weights 1/3, 1/3, 1/3"),
    ([F(7, 2)], "weights 1"),
    ([], "weights undefined (every key masked)"),
])
def test_weights_lines_hand_worked(scores, line):
    assert weights_line(softmax_weights([F(s) for s in scores])) == line


def test_scores_and_vector_lines():
    assert scores_line(3, [F(1), F(-1, 2), F(2)]) == "row 3: scores [1,-1/2,2]"
    assert vector_line("Q", [(F(1), F(0)), (F(1, 2), F(-3))]) == "Q1=(1,0); Q2=(1/2,-3)"


@pytest.mark.parametrize("q, k, message", [
    ([[1, 2], [3]], [[1, 2]], "q: vector 2 has 1 entries but vector 1 has 2"),
    ([[1, 2]], [[1, 2, 3]], "q vectors have 2 entries but k vectors have 3"),
    ([], [[1]], "q: no vectors given"),
    ([[]], [[1]], "q: vector 1 is empty"),
    ([[1]], "1,2", "k: expected a list of vectors, got a string"),
    ([["a"]], [[1]], "q: vector 1: 'a' is not a number"),
    ([[float("nan")]], [[1]], "q: vector 1: nan is not a finite number"),
    ([[1]] * 65, [[1]], "q: 65 vectors; the limit is 64"),
])
def test_bad_vectors_are_refused_with_where_and_what(q, k, message):
    with pytest.raises(InputError) as err:
        attend(q, k)
    assert message in str(err.value)


@given(qk())
def test_score_matrix_equals_the_plain_dot_product(vectors):
    from attnviz.engine.attention import dot, exact_vectors, score_matrix

    q, k = exact_vectors(vectors[0], "q"), exact_vectors(vectors[1], "k")
    assert score_matrix(q, k) == tuple(tuple(dot(qi, kj) for kj in k) for qi in q)
