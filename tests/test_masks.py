"""Every mask family against its brute-force definition, alone and combined, square and not."""

from fractions import Fraction

import numpy
import pytest
from hypothesis import given
from hypothesis import strategies as st

import attnviz
import attnviz.numbers.exact
from attnviz.engine.attention import CAUSAL, BoundMask as Mask, attend
from attnviz.numbers.exact import InputError
from attnviz.engine.masks import parse_mask, resolve
from conftest import svg_text
from test_layout import assert_clean


def brute(kind, value, i, j, n_q, n_k, align):
    """The families' definitions on 1-based positions, written out as plainly as possible."""
    p = i + (n_k - n_q if align == "bottom-right" else 0)  # the query's key position
    causal = j <= p
    if kind == "causal":
        return causal
    if kind == "none":
        return True
    if kind == "window":
        return p - value < j <= p
    if kind == "prefix":
        return causal or (p <= value and j <= value)
    if kind == "chunk":
        return causal and -(-p // value) == -(-j // value)  # ceil(p/C) == ceil(j/C)
    if kind == "segments":
        return causal and value[p - 1] == value[j - 1]
    if kind == "padding":
        return j not in value
    if kind == "matrix":
        return value[i - 1][j - 1]
    raise AssertionError(kind)


@st.composite
def grid_and_masks(draw, square=False):
    """A grid shape, an alignment and 1 to 3 mask options (text and parsed kind/value)."""
    n_k = draw(st.integers(1, 9))
    n_q = n_k if square else draw(st.integers(1, 9))
    align = draw(st.sampled_from(["top-left", "bottom-right"]))
    offset = n_k - n_q if align == "bottom-right" else 0
    kinds = ["causal", "none", "window", "prefix", "chunk", "padding", "matrix"]
    if n_q + offset <= n_k:  # segment ids exist for every query's position
        kinds.append("segments")
    options = []
    for kind in draw(st.lists(st.sampled_from(kinds), min_size=1, max_size=3)):
        if kind in ("causal", "none"):
            options.append((kind, None, kind))
        elif kind in ("window", "chunk"):
            w = draw(st.integers(1, 10))
            options.append((kind, w, f"{kind}={w}"))
        elif kind == "prefix":
            w = draw(st.integers(0, 10))
            options.append((kind, w, f"prefix={w}"))
        elif kind == "segments":
            ids = draw(st.lists(st.integers(0, 3), min_size=n_k, max_size=n_k))
            options.append((kind, ids, "segments=" + ",".join(map(str, ids))))
        elif kind == "padding":
            pads = draw(st.sets(st.integers(1, n_k), min_size=1))
            options.append((kind, pads, "padding=" + ",".join(map(str, sorted(pads)))))
        else:
            rows = draw(st.lists(st.lists(st.booleans(), min_size=n_k, max_size=n_k), min_size=n_q, max_size=n_q))
            text = ";".join("".join("1" if x else "0" for x in row) for row in rows)
            options.append((kind, rows, f"matrix={text}"))
    return n_q, n_k, align, options


def expected_keep(options, i, j, n_q, n_k, align):
    kinds = {kind for kind, _, _ in options}
    keep = all(brute(kind, value, i, j, n_q, n_k, align) for kind, value, _ in options)
    if kinds == {"padding"}:  # padding alone comes with causal
        keep = keep and brute("causal", None, i, j, n_q, n_k, align)
    return keep


@given(grid_and_masks())
def test_every_family_and_combination_matches_brute_force(case):
    n_q, n_k, align, options = case
    mask = resolve([text for _, _, text in options], n_q, n_k, align)
    for i in range(1, n_q + 1):
        for j in range(1, n_k + 1):
            assert mask.keep(i - 1, j - 1) == expected_keep(options, i, j, n_q, n_k, align), (i, j, mask)


@given(grid_and_masks(), st.data())
def test_figures_draw_the_mask_and_name_it(case, data):
    n_q, n_k, align, options = case
    q = data.draw(st.lists(st.lists(st.integers(-3, 3), min_size=2, max_size=2), min_size=n_q, max_size=n_q))
    k = data.draw(st.lists(st.lists(st.integers(-3, 3), min_size=2, max_size=2), min_size=n_k, max_size=n_k))
    fig = attnviz.figure(q, k, mask=[text for _, _, text in options], align=align)
    words = fig.words
    for i, row in enumerate(words.cells, 1):
        kept = [c.k for c in row if not c.masked]
        for cell in row:
            assert cell.masked == (not expected_keep(options, i, cell.k, n_q, n_k, align))
            if not cell.masked:
                assert cell.text == attnviz.numbers.exact.format_number(sum(Fraction(a) * b for a, b in zip(q[i - 1],
                                                                                               k[cell.k - 1])))
        softmax = words.softmax_rows[i - 1]
        if not kept:
            assert softmax.weights == "weights undefined (every key masked)"
        else:
            assert softmax.scores.count(",") == len(kept) - 1
    name = fig.attention.mask.name
    assert words.badge == f"exact scores, exact {name} mask, named softmax"
    assert words.note.endswith(f"{name} mask keeps {fig.attention.mask.rule}")
    assert words.grid_caption == f"score S_ij=Qi·Kj with {name} mask"
    assert_clean(fig.layout())


@pytest.mark.parametrize("masks, n, name, rule", [
    (None, 3, "causal", "j<=i"),
    ("causal", 3, "causal", "j<=i"),
    ("none", 3, "bidirectional", "every cell"),
    ("window=3", 5, "sliding-window", "i-3<j<=i"),
    ("prefix=2", 5, "prefix-LM", "j<=i, or i<=2 and j<=2"),
    ("chunk=2", 5, "chunked", "j<=i, i and j in the same block of 2 positions"),
    ("chunk=1", 5, "chunked", "j<=i, i and j in the same block of 1 position"),
    ("segments=1,1,2,2,2", 5, "document", "j<=i, i and j in the same segment of (1, 1, 2, 2, 2)"),
    ("padding=4,5", 5, "causal + padding", "j<=i and j not in {4,5}"),
    (["none", "padding=5,4"], 5, "padding", "j not in {4,5}"),
    ("matrix=100;110;111", 3, "explicit", "(i,j) marked 1 in [100; 110; 111]"),
    ("matrix=1,0;0,1", 2, "explicit", "(i,j) marked 1 in [10; 01]"),
    (["window=3", "padding=5"], 5, "sliding-window + padding", "i-3<j<=i and j not in {5}"),
    (["causal", "window=2"], 4, "sliding-window", "i-2<j<=i"),  # causal adds nothing to a window
    (["prefix=2", "padding=1"], 4, "prefix-LM + padding", "(j<=i, or i<=2 and j<=2) and j not in {1}"),
    (["chunk=2", "segments=1,1,1,2"], 4, "chunked + document",
     "(j<=i, i and j in the same block of 2 positions) and (j<=i, i and j in the same segment of (1, 1, 1, 2))"),
])
def test_names_and_rules(masks, n, name, rule):
    mask = resolve(masks, n, n)
    assert (mask.name, mask.rule) == (name, rule)


@pytest.mark.parametrize("masks, align, rule", [
    ("causal", "top-left", "j<=i, aligned top-left"),
    ("causal", "bottom-right", "j<=i+3, aligned bottom-right"),
    ("window=2", "bottom-right", "i+1<j<=i+3, aligned bottom-right"),
    ("prefix=2", "bottom-right", "j<=i+3, or i+3<=2 and j<=2, aligned bottom-right"),
    ("none", "bottom-right", "every cell"),  # alignment only matters to rules on positions
    ("padding=1", "bottom-right", "j<=i+3 and j not in {1}, aligned bottom-right"),
])
def test_non_square_rules_state_the_alignment(masks, align, rule):
    assert resolve(masks, 2, 5, align).rule == rule


def test_bottom_right_lets_the_last_query_see_every_key():
    fig = attnviz.figure([[1], [2]], [[1], [1], [1], [1], [1]], align="bottom-right")
    assert fig.attention.kept == ((True, True, True, True, False), (True,) * 5)
    top_left = attnviz.figure([[1], [2]], [[1], [1], [1], [1], [1]])
    assert top_left.attention.kept == ((True, False, False, False, False), (True, True, False, False, False))
    assert "causal mask keeps j<=i+3, aligned bottom-right" in svg_text(fig.svg())
    assert_clean(fig.layout())


def test_more_queries_than_keys_bottom_right_leaves_rows_undefined():
    fig = attnviz.figure([[1]] * 4, [[1]] * 2, align="bottom-right")
    assert fig.words.note.endswith("causal mask keeps j<=i-2, aligned bottom-right")
    weights = [row.weights for row in fig.words.softmax_rows]
    assert weights == ["weights undefined (every key masked)"] * 2 + ["weights 1", "weights 1/2, 1/2"]
    assert_clean(fig.layout())


def test_seed_mask_is_unchanged():
    mask = resolve(None, 3, 3)
    assert (mask.name, mask.rule) == ("causal", "j<=i")
    assert attend([[1]], [[1]]).mask is CAUSAL


def flex_sliding(b, h, q_idx, kv_idx):  # FlexAttention's mask_mod signature, pasted as is
    return (q_idx >= kv_idx) & (q_idx - kv_idx <= 1)


def test_callable_masks_two_and_four_arguments():
    def dilated(q_idx, kv_idx):
        return kv_idx <= q_idx and (q_idx - kv_idx) % 2 == 0

    fig = attnviz.figure([[1]] * 4, [[1]] * 4, mask=dilated)
    assert fig.words.note.endswith("custom mask keeps (i,j) where dilated(i-1,j-1) is true")
    assert [[not c.masked for c in row] for row in fig.words.cells] == [
        [i >= j and (i - j) % 2 == 0 for j in range(4)] for i in range(4)]
    flex = attnviz.figure([[1]] * 4, [[1]] * 4, mask=flex_sliding)
    window = resolve("window=2", 4, 4)
    assert flex.attention.kept == tuple(tuple(window.keep(i, j) for j in range(4)) for i in range(4))
    assert flex.words.note.endswith("custom mask keeps (i,j) where flex_sliding(i-1,j-1) is true")
    lam = attnviz.figure([[1]] * 3, [[1]] * 3, mask=[lambda q, k: k != 0, "none"])
    assert lam.words.note.endswith("custom mask keeps (i,j) where keep(i-1,j-1) is true")
    assert lam.attention.kept[0] == (False, True, True)


def test_callable_mask_combines_with_named_masks():
    fig = attnviz.figure([[1]] * 3, [[1]] * 3, mask=["causal", lambda q, k: k != 1])
    assert fig.attention.mask.name == "causal + custom"
    assert fig.attention.mask.rule == "j<=i and (i,j) where keep(i-1,j-1) is true"
    assert fig.attention.kept == ((True, False, False), (True, False, False), (True, False, True))


@pytest.mark.parametrize("answer", [bool, int, numpy.bool_, numpy.array])
def test_a_mask_function_may_answer_with_any_truth_value(answer):
    """Python and numpy truth values, 0/1 and one-element arrays (what a pasted mask_mod returns) all work."""
    fig = attnviz.figure([[1]] * 3, [[1]] * 3, mask=lambda q, k: answer(q >= k))
    assert fig.attention.kept == ((True, False, False), (True, True, False), (True, True, True))


def test_a_rule_given_twice_is_named_once():
    fig = attnviz.figure(mask=["causal", " Causal ", "window=2", "window=2"])
    assert (fig.attention.mask.name, fig.attention.mask.rule) == ("sliding-window", "i-2<j<=i")
    both = attnviz.figure(mask=["window=2", "window=3"]).attention.mask
    assert both.name == "sliding-window + sliding-window" and both.rule == "i-2<j<=i and i-3<j<=i"


def test_a_mask_object_is_used_as_given():
    mask = Mask("diagonal", "j=i", lambda i, j: i == j)
    fig = attnviz.figure([[1]] * 2, [[1]] * 2, mask=mask)
    assert fig.words.note.endswith("diagonal mask keeps j=i")


@pytest.mark.parametrize("mask, message", [
    ("windw=3", "mask 'windw=3': unknown mask 'windw'; did you mean 'window='?"),
    ("sliding=3", "mask 'sliding=3': unknown mask 'sliding'; did you mean 'window='?"),
    ("bidirectional", "mask 'bidirectional': unknown mask 'bidirectional'; did you mean 'none'?"),
    ("window", "mask 'window': 'window' needs a value: window=W"),
    ("window=0", "needs a size from 1 to 1000000, got 0"),
    ("window=x", "'x' is not a whole number of positions"),
    ("causal=1", "'causal' takes no value"),
    ("padding=0", "key positions start at 1, got 0"),
    ("padding=4", "key position 4 is outside the grid (keys 1..3)"),
    ("segments=1,2", "2 segment ids for 3 key positions; give one per key"),
    ("segments=1,a,2", "'a' is not a segment id"),
    ("matrix=10;11", "mask 'matrix=10;11': 2 rows for a 3×3 grid; give 3 rows of 3"),
    ("matrix=100;11;111", "mask 'matrix=100;11;111': row 2 has 2 entries for a 3×3 grid; give 3 rows of 3"),
    ("matrix=102;110;111", "row 1 is '102'"),
    (3, "mask: expected a mask like \"window=3\" or a function keep(q_idx, kv_idx), got int"),
    (lambda x: True, "mask: a mask function takes (q_idx, kv_idx) or FlexAttention's (b, h, q_idx, kv_idx)"),
    (lambda q, k: None, "keep(0, 0) returned None; it must return True or False"),
    (lambda q, k: "no", "keep(0, 0) returned 'no'; it must return True or False"),
    (lambda q, k: 0.5, "keep(0, 0) returned 0.5; it must return True or False"),
    (lambda q, k: 2, "keep(0, 0) returned 2; it must return True or False"),
    (lambda q, k: type("Odd", (), {"item": 5})(), "keep(0, 0) returned Odd; it must return True or False"),
    (lambda q, k: numpy.array([True, False]), "keep(0, 0) returned an array of shape (2,); it must return True"),
    (lambda q, k: 1 / 0, "keep(0, 0) raised ZeroDivisionError: division by zero"),
])
def test_bad_masks_are_refused_with_where_and_what(mask, message):
    with pytest.raises(InputError) as err:
        attnviz.figure(mask=mask)
    assert message in str(err.value)


def test_bad_alignment():
    with pytest.raises(InputError) as err:
        attnviz.figure(align="top")
    assert str(err.value) == "align: expected top-left or bottom-right, got 'top'"


def test_segments_need_a_position_for_every_query():
    with pytest.raises(InputError) as err:
        attnviz.figure([[1]] * 3, [[1]] * 2, mask="segments=1,1")
    assert "query 3 sits at key position 3, past the 2 segment ids" in str(err.value)


def test_parse_mask_values():
    assert parse_mask("padding=5,4,4").value == (4, 5)
    assert parse_mask(" Window = 3 ").kind == "window"
    assert parse_mask("segments=-1,0,7").value == (-1, 0, 7)


def test_highlight_mask_marks_every_masked_cell_of_any_family():
    fig = attnviz.figure([[1]] * 3, [[1]] * 3, mask="window=1", highlight=["mask"])
    assert fig.highlight.cells == {(2, 1), (3, 1), (3, 2), (1, 2), (1, 3), (2, 3)}
