"""MoBA's selection (`sparse="moba=B,K"`) against an independent numpy reading of the paper's pseudo-code and MoBA's
reference `moba_naive` (gate = q·mean(K_block); own block +inf, future blocks -inf; top-k; tril), with torch.topk
itself choosing among ties, and the replay of torch.topk's tie order against torch."""

import re
from fractions import Fraction

import numpy as np
import pytest
import torch
from clirun import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

import attnviz
from attnviz.engine.moba import moba_selection
from attnviz.engine.topk_order import topk_indices


def reference_moba_mask(q, k, block, top):
    """The reference's steps in numpy (float64 gates: the tests' inputs are small integers, so exact), the top-k
    taken by torch.topk as the reference takes it."""
    q, k = np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64)
    n = len(k)
    n_blocks = -(-n // block)
    means = np.stack([k[b * block:(b + 1) * block].mean(axis=0) for b in range(n_blocks)])
    gate = q @ means.T
    for b in range(n_blocks):
        gate[: (b + 1) * block, b] = -np.inf
        gate[b * block:(b + 1) * block, b] = np.inf
    values, indices = torch.topk(torch.from_numpy(gate), min(top, n_blocks), dim=-1, largest=True, sorted=False)
    threshold = values.min(dim=-1).values.numpy()
    need = gate >= threshold[:, None]
    chosen = np.zeros_like(need)
    np.put_along_axis(chosen, indices.numpy(), True, axis=-1)
    need &= chosen
    tokens = np.repeat(need, block, axis=-1)[:, :n]
    return np.tril(tokens)


SMALL = st.integers(-2, 2)


@st.composite
def problems(draw):
    n = draw(st.integers(1, 12))
    d = draw(st.integers(1, 3))
    block = draw(st.sampled_from([1, 2, 4]))  # means of small integers over 1, 2 or 4 keys: exact in float64
    q = [[draw(SMALL) for _ in range(d)] for _ in range(n)]
    k = [[draw(SMALL) for _ in range(d)] for _ in range(n)]
    return q, k, block, draw(st.integers(1, 4))


@settings(max_examples=150, deadline=None)
@given(problems())
def test_moba_mask_is_the_reference_mask(problem):
    q, k, block, top = problem
    fig = attnviz.figure(q, k, sparse=f"moba={block},{top}")
    expected = reference_moba_mask(q, k, block, top)
    n = len(q)
    got = [[bool(fig.attention.mask.keep(i, j)) for j in range(n)] for i in range(n)]
    assert got == expected.tolist()


def test_gate_scores_are_exact_means():
    q = [[1, 0], [0, 1], [1, 1]]
    k = [[1, 0], [0, 1], [1, 2]]
    selection = moba_selection([[Fraction(x) for x in row] for row in q], [[Fraction(x) for x in row] for row in k],
                               2, 1)
    assert selection.means == ((Fraction(1, 2), Fraction(1, 2)), (Fraction(1), Fraction(2)))
    assert selection.gates[2] == (Fraction(1), Fraction(3))


def test_ties_follow_torch_topk_not_the_lowest_index():
    # every past block ties: torch.topk over [0, 0, 0, +inf] picks block 3 (1-based), not block 1
    q = [[0]] * 8
    k = [[1]] * 8
    fig = attnviz.figure(q, k, sparse="moba=2,2")
    row = [bool(fig.attention.mask.keep(7, j)) for j in range(8)]
    assert row == reference_moba_mask(q, k, 2, 2)[7].tolist()
    assert row == [False, False, False, False, True, True, True, True]
    assert "torch.topk" in fig.attention.mask.rule


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([0, 1, 2, float("inf"), float("-inf")]), min_size=1, max_size=140),
       st.integers(1, 6))
def test_topk_replay_is_torch_topk(values, k):
    k = min(k, len(values))
    want = set(torch.topk(torch.tensor(values, dtype=torch.float64), k, sorted=False).indices.tolist())
    assert topk_indices(values, k, lambda x, y: x > y) == want


def test_badge_and_title_say_what_was_computed():
    q = [[1, 0], [0, 1], [1, 1], [2, 0]]
    fig = attnviz.figure(q, q, sparse="moba=2,2")
    svg = fig.svg()
    assert "MoBA selection computed from Q and K, block 2, top 2" in fig.words.title
    assert "exact scores, MoBA selection computed from Q and K, block 2, top 2" in svg
    assert "exact MoBA mask" not in svg


def test_command_draws_gate_panel_and_map(tmp_path):
    vectors = "1,0;0,1;1,1;2,0;0,2;1,-1"
    for view in ("full", "mask"):
        out = tmp_path / f"{view}.svg"
        result = run_cli("render", "--q", vectors, "--k", vectors, "--sparse", "moba=2,2", "--view", view,
                         "-o", str(out))
        assert result.code == 0, result.stderr
        svg = out.read_text()
        assert "MoBA gate q_i·mean(K_b)" in svg
        assert "the mask: the chosen blocks" in svg


@pytest.mark.parametrize(("args", "message"), [
    (["--sparse", "moba=0,2"], "at least 1"),
    (["--sparse", "moba=2"], "expected moba=B,K"),
    (["--sparse", "moba=2,2", "--mask", "window=2"], "drop --mask"),
    (["--sparse", "lsh=2"], "expected moba=B,K"),
    (["--sparse", "moba=" + "1" * 5000 + ",2"], "expected moba=B,K"),
])
def test_bad_input_is_one_line(args, message):
    result = run_cli("render", "--q", "1,0;0,1", "--k", "1,0;0,1", *args, "-o", "/dev/null")
    assert result.code == 2
    assert result.stderr.startswith("attnviz: error:") and message in result.stderr
    assert result.stderr.count("\n") == 1


def test_a_long_elided_figure_draws_the_gate_as_a_map():
    vectors = ";".join(f"{i % 3},{i % 5}" for i in range(100))
    result = run_cli("render", "--q", vectors, "--k", vectors, "--elide", "--sparse", "moba=4,2", "-o", "-")
    assert result.code == 0, result.stderr
    assert "MoBA's blocks, top 2 by gate" in result.stdout and "100 queries × 25 keys" in result.stdout


def _panel_titles(svg):
    import re

    return [re.sub(r"<[^>]+>", "|", body) for body in re.findall(
        r'<text class="attnviz-panel-title-text"[^>]*>(.*?)</text>', svg)]


M6 = "1,0; 0,1; 1,1; 2,0; 0,2; 0,0"


@pytest.mark.parametrize("view, frame", [(view, frame) for view in ("full", "mask") for frame in
                                         ("slide", "slide-4:3", "column", "doc:600")
                                         if (view, frame) != ("full", "slide-4:3")])  # (that one is refused)
def test_the_gate_panels_title_is_typeset_where_the_captions_are(view, frame, tmp_path):
    """In a frame that typesets attnviz's notation, the gate panel's title lowers q_i and K_b (a subscript run of
    its own) as its captions do, in the full view (the gate's scores) and the mask view (the gate as a map); the doc
    frame writes it as the words do. A user's panel title in the same frame stays as typed."""
    out = tmp_path / "moba.svg"
    flags = ["--view", "mask"] if view == "mask" else []
    assert run_cli("render", "--q", M6, "--k", M6, "--sparse", "moba=2,2", *flags, "--frame", frame,
                   "-o", str(out)).code == 0
    gate = next(title for title in _panel_titles(out.read_text()) if "mean(K" in title)
    assert "q_i" not in gate and "K_b" not in gate and ">i<" not in gate
    assert re.search(r"q\|+i\|+·mean\(K\|+b\|+\)", gate), gate
    run_cli("render", "--q", M6, "--k", M6, "--sparse", "moba=2,2", *flags, "-o", str(out))
    assert any("q_i·mean(K_b)" in title for title in _panel_titles(out.read_text()))  # the doc frame: as written
    user = attnviz.compose(attnviz.figure(view="mask", n=4, title="x_1 and e^2"),
                           attnviz.figure(view="mask", n=4, mask="window=2", title="K_b"), frame=frame)
    assert _panel_titles(user.svg()) == ["x_1 and e^2", "K_b"]
