"""Issue 36: a caption the user gives a mask is checked against the cells drawn, or marked as given.

The reference is brute force: every cell of the matrix against the rule read by tests/rulecheck.py (which imports
nothing of attnviz)."""

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attnviz
from attnviz.engine.rule_reader import read_rule
from attnviz.numbers.exact import InputError
from clirun import run_cli
from rulecheck import predicate

Q4 = "1,0;0,1;1,1;2,1"
BAND = "matrix=1000;1100;0110;0011"  # a window of 2


def _render(tmp_path, *flags):
    out = tmp_path / "f.svg"
    result = run_cli("render", "--q", Q4, "--k", Q4, "--mask", BAND, *flags, "-o", str(out))
    return result, (out.read_text() if result.code == 0 else "")


def test_a_contradicting_rule_is_refused_in_one_line_naming_the_first_cell(tmp_path):
    result, _ = _render(tmp_path, "--mask-name", "causal", "--mask-rule", "j<=i")
    assert result.code == 2 and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    # --mask-name is read first: "causal" names a family whose cells differ
    assert result.stderr.startswith("attnviz: error: --mask-name: 'causal' names a mask attnviz knows (causal)")
    result, _ = _render(tmp_path, "--mask-rule", "j<=i")
    assert result.code == 2 and result.stderr == (
        "attnviz: error: --mask-rule: the rule 'j<=i' keeps query 3, key 1, but the mask masks it; give the rule "
        "the cells keep, or leave the rule out\n")
    result, _ = _render(tmp_path, "--mask-rule", "i-3<j<=i")  # a window of 3: masks nothing the band keeps
    assert result.code == 2 and "the rule 'i-3<j<=i' keeps query 3, key 1, but the mask masks it" in result.stderr
    result, _ = _render(tmp_path, "--mask-rule", "j=i")  # keeps less: the first kept cell it masks is (2, 1)
    assert result.code == 2 and "the rule 'j=i' masks query 2, key 1, but the mask keeps it" in result.stderr


def test_the_first_cell_counts_in_the_figures_index_base(tmp_path):
    result, _ = _render(tmp_path, "--mask-rule", "j<=i", "--index-base", "0")
    assert result.code == 2 and "keeps query 2, key 0, but the mask masks it" in result.stderr
    result, svg = _render(tmp_path, "--mask-rule", "i-2<j<=i", "--index-base", "0")
    assert result.code == 0 and "mask keeps i-2&lt;j&lt;=i<" in svg


def test_a_rule_that_holds_is_the_figures_own(tmp_path):
    result, svg = _render(tmp_path, "--mask-name", "sliding window", "--mask-rule", "i-2<j<=i")
    assert result.code == 0
    assert "exact scores, exact sliding window mask, named softmax" in svg
    assert "sliding window mask keeps i-2&lt;j&lt;=i<" in svg and "as given" not in svg


def test_an_unread_rule_is_drawn_as_given_never_under_an_exact_mask(tmp_path):
    result, svg = _render(tmp_path, "--mask-name", "banded", "--mask-rule", "a band of two, like a draft tree")
    assert result.code == 0
    assert "exact banded mask" not in svg and "exact scores, banded mask as given, named softmax" in svg
    assert "(as given, not checked)" in svg  # the note, wrapped
    fig = attnviz.figure(q=[[1]] * 4, k=[[1]] * 4, mask=BAND, mask_name="banded", mask_rule="a tree of drafts")
    assert fig.words.note.endswith("banded mask keeps a tree of drafts (as given, not checked)")
    assert fig.words.badge == "exact scores, banded mask as given, named softmax"
    assert fig.attention.mask.given and fig.attention.mask.rule == "a tree of drafts (as given, not checked)"


def test_a_family_name_must_keep_that_familys_cells(tmp_path):
    for name in ("causal", "bidirectional", "full", "chunked", "prefix-LM", "window=3", "symmetric sliding window"):
        result, _ = _render(tmp_path, "--mask-name", name)
        assert result.code == 2 and f"--mask-name: {name!r} names a mask attnviz knows" in result.stderr, name
    for name in ("sliding window", "Sliding-window attention", "window=2", "banded", "local + summary"):
        result, svg = _render(tmp_path, "--mask-name", name)
        assert result.code == 0 and f"exact scores, exact {name} mask" in svg, name
    # a pasted function's rule is held to its cells as well
    with pytest.raises(InputError, match="the rule 'j<=i' masks query 1, key 2, but the mask keeps it"):
        attnviz.figure(q=[[1]] * 3, k=[[1]] * 3, mask=attnviz.Mask(lambda q, kv: abs(q - kv) <= 1, rule="j<=i"))


#: Rules as the families write them and as users write them, each read by attnviz and by tests/rulecheck.py.
RULES = ["j<=i", "i-2<j<=i", "|i-j|<2", "j=1, or i-2<j<=i", "j in {1,3}", "j not in {2}", "i in {1,3} or j in {1,3}",
         "j<=i+1, (i+1-j) mod 2 = 0", "every cell", "j<=i and not (j in {2})", "i-3<j<=i, or i<=2 and j<=2",
         "i and j in {1..3}", "j<=3", "j >= i", "i = j", "j != i"]


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("base", [0, 1])
def test_attnvizs_reader_agrees_with_the_tests_reader(rule, base):
    ours, theirs = read_rule(rule), predicate(rule, base)
    assert ours is not None
    for i, j in itertools.product(range(6), repeat=2):
        assert ours.keeps(i + base, j + base) == theirs(i, j), (rule, i, j)


@pytest.mark.parametrize("text", ["a tree", "j<=i and the moon", "i<", "(j<=i", "j in {1,", "j<=i)", "x<y",
                                  "import os", "j<=" + "9" * 20, ""])
def test_text_outside_the_language_is_not_a_rule(text):
    assert read_rule(text) is None


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.lists(st.booleans(), min_size=4, max_size=4), min_size=4, max_size=4),
       rule=st.sampled_from(RULES[:12]))
def test_a_rule_is_taken_exactly_when_every_cell_agrees(rows, rule):
    matrix = "matrix=" + ";".join("".join("1" if x else "0" for x in row) for row in rows)
    keep = predicate(rule, 1)
    agrees = all(keep(i, j) == rows[i][j] for i in range(4) for j in range(4))
    try:
        mask = attnviz.Mask(matrix, rule=rule).bind(4, 4)
    except InputError as error:
        assert not agrees and error.where == "mask_rule"
    else:
        assert agrees and mask.rule == rule and not mask.given
