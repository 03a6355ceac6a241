"""Walkthroughs over MoBA's and NSA's masks (`attnviz walkthrough --sparse ...`, issue 35): the selection's own first
step (the gate with its chosen blocks, NSA's branches, beside the mask they select), then every score the selected
mask keeps, the mask, each row's softmax. Checked against the tests' own numpy references of the selections
(tests/test_moba.py, tests/test_nsa.py) and brute force: every cell of every step's SVG is a score q_i·k_j of a
cell the reference keeps, each weight its row's softmax over the reference's keys; the steps' words name the
selection; a frame the steps do not fit is refused in one line naming frames that do (each tried here); decks
build in all six formats."""

import html
import math
import re
from fractions import Fraction

import numpy as np
import pytest
from clirun import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st
from test_model_floor import maps_in_inches
from test_moba import reference_moba_mask
from test_nsa import reference_nsa

import attnviz

M6 = [[1, 0], [0, 1], [1, 1], [2, 0], [0, 2], [1, -1]]  # (a tie at query 5's cut: torch.topk's order decides)
Q8 = [[1, 0], [0, 1], [1, 1], [2, 0], [0, 2], [1, -1], [3, 1], [0, 1]]
Q12 = [[1, 0], [0, 1], [1, 1], [2, 0], [0, 2], [1, -1], [3, 1], [0, 1], [1, 2], [2, 1], [-1, 1], [1, 3]]
CELL = re.compile(r'<g class="attnviz-cell ([^"]*)" data-q="(\d+)" data-k="(\d+)"(?: data-value="([^"]*)")?'
                  r'(?: data-weight="([^"]*)")?')


def map_keys(svg):
    """Each map's keys, in the order `maps_in_inches` measures them."""
    return [int(k) for k in re.findall(r'<g class="attnviz-map" data-shape="\d+x(\d+)"', svg)]


def text(vectors):
    return "; ".join(",".join(map(str, row)) for row in vectors)


def cells(svg):
    """{(q, k): (classes, value, weight)} of a step's score grid (1-based, as the SVG writes them)."""
    return {(int(q), int(k)): (classes.split(), value, weight) for classes, q, k, value, weight in CELL.findall(svg)}


def weight_of(expression):
    """A data-weight, `exp(2)/(exp(0)+exp(2))` or `1`, as a float."""
    return float(eval(expression.replace("exp", "math.exp"), {"math": math}))  # noqa: S307 - the test's own SVG


def check_steps(steps, q, expected):
    """Every step's cells against brute force over the reference's mask `expected` (numpy bool, 0-based)."""
    q = np.asarray(q)
    scores = q @ q.T
    n = len(q)
    kept = [(i + 1, j + 1) for i in range(n) for j in range(n) if expected[i, j]]
    computed = []
    for step in steps[1:]:
        for (i, j), (classes, value, _) in cells(step.svg()).items():
            if "attnviz-score" in classes:
                assert expected[i - 1, j - 1], (i, j)
                assert int(value) == scores[i - 1, j - 1], (i, j)
                if "attnviz-computed" in classes:
                    computed.append((i, j))
            elif "attnviz-masked" in classes:
                assert not expected[i - 1, j - 1], (i, j)
    assert computed == kept  # one step per kept score, row by row, none of a cell the reference drops
    last = cells(steps[-1].svg())
    for i in range(1, n + 1):  # the finished figure's weights: each row's softmax over the reference's keys
        row = [j for j in range(1, n + 1) if expected[i - 1, j - 1]]
        if not row:
            continue
        exps = np.exp(scores[i - 1, [j - 1 for j in row]].astype(float))
        for j, w in zip(row, exps / exps.sum()):
            assert weight_of(last[(i, j)][2]) == pytest.approx(w), (i, j)


def test_moba_walkthrough_walks_the_reference_selection():
    steps = attnviz.walkthrough(attnviz.figure(M6, M6, sparse="moba=2,2"))
    check_steps(steps, M6, reference_moba_mask(M6, M6, 2, 2))
    assert steps.headings[0] == "MoBA selection from Q and K"
    first = html.unescape(steps[0].svg())
    assert "MoBA gate q_i·mean(K_b), top 2 marked" in first and "the mask: the chosen blocks' keys" in first
    # the gate panel marks the blocks the reference reads: gate scores are q·mean(K_b), block b read by query i
    expected = reference_moba_mask(M6, M6, 2, 2)
    chosen = {(i + 1, b + 1) for i in range(6) for b in range(3) if expected[i, 2 * b] or expected[i, 2 * b + 1]}
    gate = cells(first)
    assert {cell for cell, (classes, _, _) in gate.items() if "attnviz-computed" in classes} == chosen
    means = np.asarray(M6, dtype=float).reshape(3, 2, 2).mean(axis=1)  # mean(K_b), blocks of 2 keys
    for (i, b), (classes, value, _) in gate.items():
        if "attnviz-score" in classes:  # each block not after the query's own: q_i·mean(K_b), exact
            assert float(Fraction(value)) == np.dot(M6[i - 1], means[b - 1])
    intro, sections = steps.document.intro[0], steps.document.sections
    assert "MoBA selection computed from Q and K, block 2, top 2" in intro
    assert "query 5 reads b3 (its own) and b1 (gate 1), passing b2 (gate 1), a tie" in sections[0].paragraphs[1]
    for section in sections[1:18]:  # each score says which selection kept its key
        assert "the MoBA selection computed from Q and K, block 2, top 2 keeps it" in section.paragraphs[0]
    mask = next(section for section in sections if section.heading == "The MoBA mask")
    assert "(the MoBA selection computed from Q and K, block 2, top 2)" in mask.paragraphs[0]


@settings(max_examples=8, deadline=None)
@given(st.integers(2, 6).flatmap(lambda n: st.tuples(
    st.lists(st.lists(st.integers(-2, 2), min_size=2, max_size=2), min_size=n, max_size=n),
    st.sampled_from([1, 2, 4]), st.integers(1, 3))))
def test_moba_walkthrough_cells_are_brute_force(problem):
    q, block, top = problem
    steps = attnviz.walkthrough(attnviz.figure(q, q, sparse=f"moba={block},{top}"))
    check_steps(steps, q, reference_moba_mask(q, q, block, top))


def test_nsa_walkthrough_walks_the_reference_union():
    steps = attnviz.walkthrough(attnviz.figure(Q8, Q8, sparse="nsa=2,2,2,3,2"))
    maps, gap = reference_nsa(Q8, Q8, 2, 2, 2, 3, 2)
    assert gap > 1e-9  # no tie the floats could get wrong
    check_steps(steps, Q8, maps["union"])
    assert steps.headings[0] == "NSA branches from Q and K"
    first = html.unescape(steps[0].svg())
    for words in ("gate g_cmp", "gate g_slc", "gate g_win", "union of the branches"):
        assert words in first
    phrase = "NSA branches computed from Q and K, l=2, d=2, l'=2, n=3, w=2"
    assert phrase in steps.document.intro[0]
    score = steps.document.sections[1].paragraphs[0]
    assert "Key 1 is in query 1's" in score and f"the {phrase} keeps it" in score
    # which branches a step names: the reference's
    for section in steps.document.sections[1:]:
        found = re.search(r"Key (\d+) is in query (\d+)'s (.*?): the", str(section.paragraphs[0]))
        if found:
            j, i = int(found[1]) - 1, int(found[2]) - 1
            named = {key for key, words in (("cmp", "compressed blocks"), ("slc", "selected blocks"),
                                            ("win", "sliding window")) if words in found[3]}
            assert named == {key for key in ("cmp", "slc", "win") if maps[key][i, j]}


def test_command_writes_the_selection_first(tmp_path):
    result = run_cli("walkthrough", "--q", text(M6), "--k", text(M6), "--sparse", "moba=2,2", "-o", str(tmp_path))
    assert result.code == 0, result.stderr
    names = sorted(path.name for path in (tmp_path / "steps").iterdir())
    assert names[0] == "01-moba-selection-from-q-and-k.svg" and names[1] == "02-score-of-q1-and-k1.svg"
    page = (tmp_path / "index.html").read_text()
    assert "MoBA selection computed from Q and K, block 2, top 2" in page


@pytest.mark.parametrize("frame", ["slide", "slide-4:3", "column"])
@pytest.mark.parametrize(("mask", "name"), [(("--sparse", "nsa=4,2,2,3,2,local=1"), "NSA walkthrough's"),
                                            (("--mask", "causal"), "walkthrough's")])
def test_a_frame_the_steps_do_not_fit_names_frames_that_do(tmp_path, frame, mask, name):
    argv = ["--q", text(Q12), "--k", text(Q12), *mask]
    result = run_cli("walkthrough", *argv, "--frame", frame, "-o", str(tmp_path / "refused"))
    assert result.code == 2 and result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"attnviz: error: --frame: the {name} steps do not fit")
    assert "--view" not in result.stderr  # (a figure's own ways out are not a walkthrough's)
    ways = re.findall(r"--frame ([\w:-]+)", result.stderr.split("; try ")[1])
    assert ways
    for way in ways:  # every way out named works
        done = run_cli("walkthrough", *argv, "--frame", way, "-o", str(tmp_path / way))
        assert done.code == 0, (way, done.stderr)


@pytest.mark.parametrize("frame", ["slide", "slide-4:3", "column", "column-wide"])
@pytest.mark.parametrize(("vectors", "spec"), [(M6, "moba=2,2"), (Q8, "nsa=2,2,2,3,2")])
def test_the_selection_step_fits_every_frame_whole_at_the_map_floor(tmp_path, frame, vectors, spec):
    result = run_cli("walkthrough", "--q", text(vectors), "--k", text(vectors), "--sparse", spec, "--frame", frame,
                     "-o", str(tmp_path))
    assert result.code == 0, result.stderr
    first = next((tmp_path / "steps").glob("01-*.svg")).read_text()
    texts = re.findall(r"<(?:text|tspan)[^>]*>([^<]+)<", first)
    assert texts and not any("…" in t for t in texts)  # no title cut (the rules, left out where cramped, are said)
    inches = maps_in_inches(first)
    assert inches and min(w / n for w, n in zip(inches, map_keys(first))) >= 0.098, inches


@pytest.mark.parametrize("fmt", ["beamer", "tikz", "revealjs", "pptx", "pdf", "svg-animated"])
@pytest.mark.parametrize(("vectors", "spec"), [(M6, "moba=2,2"), (Q8, "nsa=2,2,2,3,2")])
def test_decks_build_in_every_format(tmp_path, fmt, vectors, spec):
    out = tmp_path / f"deck-{fmt}"
    result = run_cli("slides", "--walkthrough", "--q", text(vectors), "--k", text(vectors), "--sparse", spec,
                     "-f", fmt, "-o", str(out))
    assert result.code == 0, result.stderr
    assert out.exists()
