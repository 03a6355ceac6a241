"""NSA's branches (`sparse="nsa=L,D,S,N,W"`) against an independent numpy reading of the paper (Yuan et al. 2025):
compressed blocks of l keys every d (φ = mean), p_cmp = softmax(q·K̃) over complete blocks, p_slc by Eq. 9 (each
d-piece of a selection block summing the compressed blocks that hold it), top n counting the initial and local
blocks, and a window of w keys."""

import numpy as np
import pytest
from clirun import run_cli
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import attnviz
from attnviz.numbers.exact import InputError


def reference_nsa(q, k, lc, d, ls, n_top, w, initial=1, local=2):
    q, k = np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64)
    n = len(k)
    starts = list(range(0, n - lc + 1, d))
    summaries = np.array([k[s:s + lc].mean(axis=0) for s in starts]).reshape(len(starts), k.shape[1])
    maps = {b: np.zeros((n, n), dtype=bool) for b in ("cmp", "slc", "win")}
    gaps = []
    for t in range(n):
        visible = [c for c, s in enumerate(starts) if s + lc - 1 <= t]
        p_cmp = np.zeros(len(starts))
        if visible:
            scores = summaries[visible] @ q[t]
            e = np.exp(scores - scores.max())
            p_cmp[visible] = e / e.sum()
        for c in visible:
            maps["cmp"][t, starts[c]:starts[c] + lc] = True
        n_slc = -(-n // ls)
        p_slc = np.zeros(n_slc)
        for j in range(n_slc):
            for m in range(ls // d):
                for back in range(lc // d):
                    c = (ls // d) * j + m - back
                    if 0 <= c < len(starts):
                        p_slc[j] += p_cmp[c]
        own = t // ls
        forced = {j for j in range(own + 1) if j < initial or own - local < j}
        rest = sorted((j for j in range(own + 1) if j not in forced), key=lambda j: -p_slc[j])
        room = max(0, n_top - len(forced))
        if 0 < room < len(rest):
            gaps.append(abs(p_slc[rest[room - 1]] - p_slc[rest[room]]))
        for j in forced | set(rest[:room]):
            maps["slc"][t, j * ls:min((j + 1) * ls, t + 1)] = True
        maps["win"][t, max(0, t - w + 1):t + 1] = True
    maps["union"] = maps["cmp"] | maps["slc"] | maps["win"]
    return maps, min(gaps, default=1.0)


@st.composite
def problems(draw):
    n = draw(st.integers(2, 12))
    dim = draw(st.integers(1, 3))
    d = draw(st.sampled_from([1, 2]))
    lc = d * draw(st.integers(1, 3))
    ls = d * draw(st.integers(1, 3))
    local = draw(st.integers(1, 2))
    initial = draw(st.integers(0, 1))
    n_top = initial + local + draw(st.integers(0, 2))
    w = draw(st.integers(1, 4))
    vec = st.integers(-3, 3)
    q = [[draw(vec) for _ in range(dim)] for _ in range(n)]
    k = [[draw(vec) for _ in range(dim)] for _ in range(n)]
    return q, k, (lc, d, ls, n_top, w, initial, local)




@settings(max_examples=120, deadline=None)
@given(problems())
def test_nsa_branches_are_the_reference_branches(problem):
    from attnviz.engine.nsa import nsa_selection, parse_nsa
    from fractions import Fraction

    q, k, (lc, d, ls, n_top, w, initial, local) = problem
    spec = f"{lc},{d},{ls},{n_top},{w},initial={initial},local={local}"
    expected, gap = reference_nsa(q, k, lc, d, ls, n_top, w, initial, local)
    exact = ([[Fraction(x) for x in row] for row in q], [[Fraction(x) for x in row] for row in k])
    try:
        selection = nsa_selection(*exact, parse_nsa(spec))
    except InputError as err:
        assert "exactly equal importance" in str(err)
        assert gap < 1e-9  # refused only where the reference sees a tie too
        return
    assume(gap > 1e-9)  # a float reference cannot order what is closer than its rounding
    for branch in ("cmp", "slc", "win", "union"):
        assert [list(row) for row in selection.maps[branch]] == expected[branch].tolist(), branch
    fig = attnviz.figure(q, k, sparse=f"nsa={spec}")
    n = len(q)
    assert [[bool(fig.attention.mask.keep(i, j)) for j in range(n)] for i in range(n)] == expected["union"].tolist()


def test_importance_comparison_is_certified_where_signs_do_not_decide():
    # lc = 2, d = 1, l' = 2: importances are sums of two or three exponentials with mixed differences
    from attnviz.engine.nsa import _compare

    assert _compare({0: 1, 3: 1}, {2: 2}) == 1  # 1 + e^3 > 2e^2 (21.1 > 14.8)
    assert _compare({0: 3}, {1: 1}) == 1  # 3 > e
    assert _compare({0: 2}, {1: 1}) == -1  # 2 < e
    assert _compare({1: 1, 0: 1}, {0: 1, 1: 1}) == 0


def test_tie_at_the_cut_is_refused_in_one_line():
    vectors = ";".join(["0,0"] * 8)
    result = run_cli("render", "--q", vectors, "--k", vectors, "--sparse", "nsa=2,2,2,2,1,initial=0,local=1",
                     "-o", "/dev/null")
    assert result.code == 2
    assert result.stderr.startswith("attnviz: error:") and "exactly equal importance" in result.stderr
    assert result.stderr.count("\n") == 1


def test_panels_name_the_gates_and_compression(tmp_path):
    vectors = "1,0;0,1;1,1;2,0;0,2;1,-1;3,1;0,1;1,2;2,1;-1,1;1,3"
    out = tmp_path / "nsa.svg"
    result = run_cli("render", "--q", vectors, "--k", vectors, "--sparse", "nsa=4,2,2,3,2,local=1", "--view", "mask",
                     "-o", str(out))
    assert result.code == 0, result.stderr
    svg = out.read_text()
    for words in ("gate g_cmp", "gate g_slc", "gate g_win", "φ = mean", "union of the branches",
                  "NSA branches computed from Q and K, l=4, d=2, l'=2, n=3, w=2"):
        assert words in svg, words


@pytest.mark.parametrize(("spec", "message"), [
    ("nsa=3,2,4,3,2", "must divide"),
    ("nsa=2,2,2,2,2", "at least 3"),
    ("nsa=2,2,2", "expected nsa=L,D,S,N,W"),
    ("nsa=2,2,2,3,2,far=1", "expected nsa=L,D,S,N,W"),
    ("nsa=2,2,2,3," + "9" * 5000, "expected nsa=L,D,S,N,W"),
])
def test_bad_parameters_are_one_line(spec, message):
    result = run_cli("render", "--q", "1,0;0,1", "--k", "1,0;0,1", "--sparse", spec, "-o", "/dev/null")
    assert result.code == 2 and message in result.stderr


def test_scaled_logits_select_by_the_scaled_importance():
    # with scale = "sqrt" (d = 2) the compressed scores are s/√2: surds, compared exactly or by intervals
    from attnviz.engine.nsa import nsa_selection, parse_nsa
    from attnviz.numbers.surds import inverse_sqrt
    from fractions import Fraction

    q = [[1, 0], [0, 1], [1, 1], [2, 0], [0, 2], [1, -1], [3, 1], [0, 1], [1, 2], [2, 1], [-1, 1], [1, 3]]
    spec = "4,1,2,3,2,initial=1,local=1"
    expected, gap = reference_nsa(np.array(q) / np.sqrt(2), q, 4, 1, 2, 3, 2, 1, 1)
    assert gap > 1e-9
    exact = [[Fraction(x) for x in row] for row in q]
    selection = nsa_selection(exact, exact, parse_nsa(spec), inverse_sqrt(2))
    assert [list(row) for row in selection.maps["slc"]] == expected["slc"].tolist()
    fig = attnviz.figure(q, q, sparse=f"nsa={spec}", scale="sqrt")
    n = len(q)
    assert [[bool(fig.attention.mask.keep(i, j)) for j in range(n)] for i in range(n)] == expected["union"].tolist()


def reference_fla_topk(q, k, bs, n_top):
    """fla's naive_nsa_topk (flash-linear-attention), one head, transcribed: blocks of bs keys mean-pooled, each
    query's softmax over the complete past blocks, the first, previous and own blocks forced to 1.0, torch.topk over
    the scores (ties in torch's CPU order), the allowed ones kept."""
    import torch

    q, k = np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64)
    n = len(k)
    n_blocks = -(-n // bs)
    k_cmp = np.stack([k[c * bs:(c + 1) * bs].mean(axis=0) for c in range(n_blocks)])
    chosen = []
    for t in range(n):
        visible = [(c + 1) * bs - 1 <= t for c in range(n_blocks)]
        own = t // bs
        forced = [c in (own, 0, own - 1) for c in range(n_blocks)]
        logits = np.where(visible, k_cmp @ q[t], -np.inf)
        probs = np.exp(logits - logits.max()) / np.exp(logits - logits.max()).sum() if any(visible) else (
            np.zeros(n_blocks))
        scores = np.where(forced, 1.0, np.nan_to_num(probs))
        top = torch.topk(torch.from_numpy(scores), min(n_top, n_blocks)).indices.tolist()
        chosen.append({c for c in top if visible[c] or forced[c]})
    return chosen


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 14), st.integers(1, 3), st.integers(3, 5), st.integers(1, 2), st.data())
def test_ties_are_broken_as_the_reference_topk_breaks_them(n, bs, n_top, dim, data):
    from attnviz.engine.nsa import nsa_selection, parse_nsa
    from fractions import Fraction

    vec = st.integers(-1, 1)  # few distinct values: many exact ties
    q = [[data.draw(vec) for _ in range(dim)] for _ in range(n)]
    k = [[data.draw(vec) for _ in range(dim)] for _ in range(n)]
    exact = ([[Fraction(x) for x in row] for row in q], [[Fraction(x) for x in row] for row in k])
    selection = nsa_selection(*exact, parse_nsa(f"{bs},{bs},{bs},{n_top},1"))
    assert [set(s) for s in selection.selected] == reference_fla_topk(q, k, bs, n_top)


def test_a_broken_tie_is_said():
    q = [[0, 0]] * 10
    fig = attnviz.figure(q, q, sparse="nsa=2,2,2,4,1")  # query 9: blocks 2 and 3 tie for the one free place
    assert "a tie broken by torch.topk's order" in fig.attention.mask.rule
