"""The budget's estimate of a figure's SVG (`words.budget.figure_chars`, per cell and per text) is an upper
bound: for figures of many sizes, labels, masks and views it is at least the SVG actually written."""

import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attnviz
from attnviz.words.budget import drawable_chars, figure_chars


def rand_vectors(rng, n, d, fractions=False):
    if fractions:
        return [[Fraction(rng.randint(-99, 99), rng.randint(1, 9)) for _ in range(d)] for _ in range(n)]
    return [[rng.randint(-999, 999) for _ in range(d)] for _ in range(n)]


def assert_bound(fig):
    actual = len(fig.svg())
    estimate = figure_chars(fig.words, fig.embed_font)
    assert estimate >= actual, f"estimate {estimate:,} < actual {actual:,}"
    assert drawable_chars(fig) == estimate
    return estimate, actual


FULL = [
    dict(n=1, d=1), dict(n=2, d=3), dict(n=3, d=2, mask="none"), dict(n=5, d=4, mask="window=2"),
    dict(n=8, d=2, mask="chunk=3", softmax="normalizer"), dict(n=8, d=2, softmax="grouped"),
    dict(n=12, d=3, mask="prefix=4", weights="decimal=3"), dict(n=16, d=2, fractions=True),
    dict(n=6, d=2, v=True), dict(n=6, d=2, v=True, weights="decimal=2"),
    dict(n=7, d=2, scale="sqrt"), dict(n=7, d=2, bias="alibi=1/2", show="logits"),
    dict(n=9, d=2, bias="alibi=1", scale="1/3"), dict(n=10, d=2, view="scores"),
    dict(n=24, d=2, mask="padding=3"), dict(n=32, d=1), dict(n=64, d=1, view="scores"),
    dict(n=40, d=2, elide=True), dict(n=200, d=2, elide=True, highlight=["100,50"]),
    dict(n=5, d=2, tokens=["the", "quick", "brown", "fox", "jumps"]),
    dict(n=5, d=2, tokens=["an extremely long token label number " + str(i) for i in range(5)]),
    dict(n=4, d=2, q_tokens=["a", "b", "c", "d"], k_tokens=["w" * 30, "x", "y", "z"], mask="none"),
    dict(n=6, d=2, title="A title that goes on " * 5, subtitle="and a subtitle " * 8),
    dict(n=6, d=2, highlight=["3,2", "row=4", "softmax=5"], index_base=0),
    dict(n=4, d=2, embed_font=True), dict(n=6, d=2, theme="dark"),
    dict(n=5, d=2, tokens=["<&>", "\"q\"", "'", "é", "日本"]),
]


@pytest.mark.parametrize("case", FULL, ids=lambda c: ",".join(f"{k}={v}"[:24] for k, v in c.items()))
def test_the_estimate_bounds_a_full_or_scores_figure(case):
    case = dict(case)
    rng = random.Random(hash(tuple(sorted(map(str, case.items())))) & 0xFFFF)
    n, d, fractions = case.pop("n"), case.pop("d"), case.pop("fractions", False)
    q, k = rand_vectors(rng, n, d, fractions), rand_vectors(rng, n, d, fractions)
    if case.pop("v", False):
        case["v"] = rand_vectors(rng, n, 2)
    assert_bound(attnviz.figure(q, k, **case))


@pytest.mark.parametrize("n", [1, 2, 7, 8, 9, 64, 300, 1024])
@pytest.mark.parametrize("mask", ["causal", "none", "window=3", "chunk=5", "padding=1"])
def test_the_estimate_bounds_a_mask_map(n, mask):
    assert_bound(attnviz.figure(view="mask", n=n, mask=mask))


def test_the_estimate_bounds_a_labelled_map_and_a_decode_shape():
    assert_bound(attnviz.figure(view="mask", tokens=[f"token number {i}" for i in range(12)], mask="window=4"))
    assert_bound(attnviz.figure(view="mask", shape="4x40", align="bottom-right", highlight=["2,3", "row=4"]))


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 24), d=st.integers(1, 4), seed=st.integers(0, 10**6),
       mask=st.sampled_from(["causal", "none", "window=2", "chunk=3", "prefix=2"]),
       view=st.sampled_from(["full", "scores"]), softmax=st.sampled_from(["expanded", "normalizer", "grouped"]),
       label=st.integers(0, 40))
def test_the_estimate_bounds_random_figures(n, d, seed, mask, view, softmax, label):
    rng = random.Random(seed)
    q, k = rand_vectors(rng, n, d, seed % 2 == 0), rand_vectors(rng, n, d)
    tokens = ["t" * label + str(i) for i in range(n)] if label else None
    assert_bound(attnviz.figure(q, k, mask=mask, view=view, softmax=softmax, tokens=tokens))


def test_the_estimate_bounds_composed_panels_and_heads():
    a = attnviz.figure(view="mask", n=16)
    b = attnviz.figure([[1, 2], [3, 4], [5, 6]], [[1, 0], [0, 1], [1, 1]])
    both = attnviz.compose(a, b, title="two")
    assert drawable_chars(both) >= len(both.svg())
    heads = attnviz.figure(q_heads=[[[1, 0], [0, 1]], [[2, 1], [1, 2]]], k_heads=[[[1, 1], [0, 1]]])
    assert drawable_chars(heads) >= len(heads.svg())


def test_the_per_cell_estimate_covers_each_added_cell():
    """Growing a grid by a row and a column adds at least as much to the estimate as to the SVG."""
    rng = random.Random(5)
    previous = None
    for n in range(2, 20, 3):
        q, k = rand_vectors(rng, n, 2), rand_vectors(rng, n, 2)
        pair = assert_bound(attnviz.figure(q, k, mask="none", view="scores"))
        if previous:
            assert pair[0] - previous[0] >= pair[1] - previous[1]
        previous = pair


def _walks():
    from attnviz.publish.walkthrough.decode import decode_walkthrough
    from attnviz.publish.walkthrough.flash import flash_walkthrough
    from attnviz.publish.walkthrough.scores import walkthrough

    rng = random.Random(11)
    q, k = rand_vectors(rng, 5, 2), rand_vectors(rng, 5, 2)
    v = rand_vectors(rng, 5, 2)
    return {
        "scores": walkthrough(attnviz.figure(q[:3], k[:3], v=v[:3])),
        "flash": flash_walkthrough(attnviz.figure(q, k, mask="none"), (2, 2)),
        "decode": decode_walkthrough(attnviz.figure(q, k, mask="window=2"), 2),
    }


@pytest.mark.parametrize("kind", ["scores", "flash", "decode"])
def test_every_step_svg_and_the_whole_page_are_within_the_estimates(kind, tmp_path, monkeypatch):
    """Each step's SVG is within its figure's estimate, and the page's estimate (index.html and every step)
    is at least what `page_files` writes: with the page budget set one below the real size it refuses."""
    import attnviz.words.budget as budget
    from attnviz.numbers.exact import InputError
    from attnviz.publish.page import page_files

    document, figures = _walks()[kind]
    for figure in figures:
        assert drawable_chars(figure) >= len(figure.svg())
    actual = sum(len(text) for text in page_files(document, figures, tmp_path).values())
    monkeypatch.setattr(budget, "PAGE_CHARS", actual - 1)
    with pytest.raises(InputError, match="past the budget"):
        page_files(document, figures, tmp_path)
