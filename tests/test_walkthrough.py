"""`attnviz walkthrough`: every step behind a figure, from the vectors alone."""

import xml.etree.ElementTree as ET
from fractions import Fraction

import pytest
from clirun import run_cli
from conftest import SVG_NS
from hypothesis import given
from hypothesis import strategies as st
from pagetext import body_text, computed, inline_figures, read_page

import attnviz
from attnviz.engine.attention import BoundMask as Mask
from attnviz.numbers.exact import format_number
from attnviz.publish.mathml import tex_to_mathml
from attnviz.publish.walkthrough.scores import MAX_STEPS, plan, walkthrough

# Unseen: rational, negative, 4 queries and 4 keys of dimension 3.
Q = [[1, "-1/2", 0], ["3/4", 2, -1], [0, 0, 5], ["-2", "1/3", "0.5"]]
K = [[2, 2, 2], [-1, "1/4", 0], ["1/2", -3, 1], [0, 1, "-2/3"]]


def exact_score(i, j):
    return sum((Fraction(a) * Fraction(b) for a, b in zip(Q[i - 1], K[j - 1])), Fraction(0))


def cell_states(root):
    """{(i, j): (state, text)} with state "pending", "masked" or "score"."""
    out = {}
    for g in root.iter(f"{SVG_NS}g"):
        classes = g.get("class", "").split()
        if "attnviz-cell" in classes:
            state = next(c for c in ("attnviz-pending", "attnviz-masked", "attnviz-score") if c in classes)
            out[(int(g.get("data-q")), int(g.get("data-k")))] = (state[8:], "".join(g.itertext()))
    return out


def softmax_states(root):
    return {int(g.get("data-q")): ("pending" if "attnviz-pending" in g.get("class") else "shown", "".join(g.itertext()))
            for g in root.iter(f"{SVG_NS}g") if "attnviz-softmax-row" in g.get("class", "").split()}


@pytest.fixture(scope="module")
def unseen(tmp_path_factory):
    out = tmp_path_factory.mktemp("walk")
    q = "; ".join(",".join(map(str, v)) for v in Q)
    k = "; ".join(",".join(map(str, v)) for v in K)
    result = run_cli("walkthrough", "--q", q, "--k", k, "-o", str(out))
    assert result.code == 0, result.stderr
    return out


def test_seed_plan_is_scores_then_mask_then_softmax():
    assert plan(attnviz.figure().attention) == [
        ("score", 1, 1), ("score", 2, 1), ("score", 2, 2), ("score", 3, 1), ("score", 3, 2), ("score", 3, 3),
        ("mask",), ("softmax", 1), ("softmax", 2), ("softmax", 3)]


def test_seed_sentences_state_exactly_what_was_computed():
    document, _ = walkthrough(attnviz.figure())
    sections = document.sections
    assert "S_{3,2} = Q3·K2 = 1·0 + 1·1 = 1." in sections[4].paragraphs[0]
    assert sections[4].formula == r"S_{3,2} = Q_{3} \cdot K_{2} = 1 \cdot 0 + 1 \cdot 1 = 1"
    assert sections[6].paragraphs[0] == ("The causal mask keeps j<=i: S_{1,2}, S_{1,3} and S_{2,3} are masked, "
                                         "so they take no part in the softmax.")
    assert sections[7].paragraphs[0] == "Row 1 has one unmasked score, [1], so its weight is exactly 1."
    assert sections[9].paragraphs[0].endswith("weights e^1/(e^1+e^1+e^2), e^1/(e^1+e^1+e^2), e^2/(e^1+e^1+e^2).")
    assert sections[9].formula.startswith(r"\operatorname{softmax}(1, 1, 2) = \left(\frac{e^{1}}{e^{1}+e^{1}+e^{2}}")


def test_unseen_vectors_one_step_per_score_then_mask_then_rows(unseen):
    steps = sorted((unseen / "steps").iterdir())
    assert len(steps) == 10 + 1 + 4  # kept cells of a 4x4 causal grid, the mask, four softmax rows
    assert [p.name[:3] for p in steps] == [f"{n:02d}-" for n in range(1, 16)]
    roots = [ET.fromstring(p.read_text(encoding="utf-8")) for p in steps]
    assert len({(r.get("width"), r.get("height")) for r in roots}) == 1  # slides do not jump
    kept = [(i, j) for i in range(1, 5) for j in range(1, i + 1)]
    final_rows = softmax_states(roots[-1])
    for n, root in enumerate(roots):
        cells, rows = computed(root), softmax_states(root)
        states = cell_states(root)
        if n < 10:  # a score: that cell highlighted, holding the exact value; later cells empty
            i, j = kept[n]
            assert cells == ({(i, j): format_number(exact_score(i, j))}, [])
            for cell in kept:
                done = kept.index(cell) <= n
                expected = ("score", format_number(exact_score(*cell))) if done else ("pending", "")
                assert states[cell] == expected
            assert all(states[(i, j)] == ("pending", "") for i in range(1, 5) for j in range(i + 1, 5))
            assert all(state == ("pending", "") for state in rows.values())
        elif n == 10:  # the mask: every masked cell highlighted
            masked = {(i, j): "masked" for i in range(1, 5) for j in range(i + 1, 5)}
            assert cells == (masked, [])
            assert all(state == ("pending", "") for state in rows.values())
        else:  # row r's softmax, named exactly as in the finished figure; later rows empty
            r = n - 10
            assert cells == ({}, [r])
            assert rows[r] == final_rows[r] and rows[r][1].startswith(f"row {r}: scores [")
            assert all(rows[x][0] == "pending" for x in range(r + 1, 5))


def test_unseen_walkthrough_page(unseen):
    html = (unseen / "index.html").read_text(encoding="utf-8")
    figures = inline_figures(html)
    assert len(figures) == 15
    assert computed(figures[1]) == ({(2, 1): format_number(exact_score(2, 1))}, [])
    ids = [attrs["id"] for _, attrs in read_page(html).tags if "id" in attrs]
    assert len(ids) == len(set(ids))
    text = body_text(html)
    assert "From the vectors alone, one step at a time: the 10 scores S_ij = Qi·Kj" in text
    # 3/4·2 + 2·2 + (-1)·2 = 7/2
    assert "S_{2,1} = Q2·K1 = (3/4)·2 + 2·2 + (-1)·2 = 7/2." in text
    assert "\\frac{7}{2}" in html  # the formula's TeX, kept as its annotation


@given(st.integers(1, 5), st.integers(1, 3), st.data())
def test_every_step_for_random_vectors(n, d, data):
    vec = st.lists(st.one_of(st.integers(-5, 5), st.fractions(-3, 3, max_denominator=5)), min_size=d, max_size=d)
    q = data.draw(st.lists(vec, min_size=n, max_size=n))
    k = data.draw(st.lists(vec, min_size=n, max_size=n))
    fig = attnviz.figure(q, k)
    document, figures = walkthrough(fig)
    assert len(figures) == n * (n + 1) // 2 + (n > 1) + n
    for section, step in zip(document.sections, figures):
        cells = [c for row in step.words.cells for c in row]
        lit = [c for c in cells if c.computed]
        if section.highlight and isinstance(section.highlight[0], tuple):
            (i, j), = section.highlight
            assert [(c.q, c.k) for c in lit] == [(i, j)] and not lit[0].pending
            value = sum((Fraction(a) * Fraction(b) for a, b in zip(q[i - 1], k[j - 1])), Fraction(0))
            assert lit[0].text == format_number(value) and f"= {format_number(value)}." in section.paragraphs[0]
        assert not any(c.computed and c.pending for c in cells)


def test_a_mask_that_masks_nothing_has_no_mask_step_and_an_empty_row_is_undefined():
    everything = Mask("full", "all j", lambda i, j: True)
    document, _ = walkthrough(attnviz.figure([[1], [2]], [[3], [4]], mask=everything))
    assert [s.heading for s in document.sections] == [
        "Score of Q1 and K1", "Score of Q1 and K2", "Score of Q2 and K1", "Score of Q2 and K2",
        "Softmax of row 1", "Softmax of row 2"]
    strict = Mask("strict", "j<i", lambda i, j: j < i)
    document, figures = walkthrough(attnviz.figure([[1], [2]], [[3], [4]], mask=strict))
    assert document.sections[2].paragraphs[0].startswith("Row 1 has no unmasked score")
    assert document.sections[2].formula is None


def test_long_rows_share_one_fraction_in_their_formula():
    document, _ = walkthrough(attnviz.figure([[1], [1], [1], [1]], [[1], [2], [3], ["-1/2"]]))
    assert document.sections[-2].formula.startswith(r"\operatorname{softmax}(1, 2, 3) = \left(\frac{e^{1}}")
    shared = (r"\operatorname{softmax}(s)_t = \frac{e^{s_t}}{e^{1}+e^{2}+e^{3}+e^{-1/2}},"
              r"\quad s = (1, 2, 3, {-\frac{1}{2}})")
    assert document.sections[-1].formula == shared


def test_too_many_steps_are_refused(tmp_path):
    n = 14  # 105 scores alone
    result = run_cli("walkthrough", "--q", "; ".join(["1"] * n), "--k", "; ".join(["1"] * n), "-o", str(tmp_path / "w"))
    assert result.code == 2 and not (tmp_path / "w").exists()
    assert result.stderr == (f"attnviz: error: walkthrough: {n * (n + 1) // 2 + 1 + n} steps ({n * (n + 1) // 2} "
                             f"scores, the mask and {n} softmax rows); the limit is {MAX_STEPS}: use fewer tokens\n")


def test_highlight_is_refused(tmp_path):
    result = run_cli("walkthrough", "--highlight", "1,1", "-o", str(tmp_path / "w"))
    assert result.code == 2 and result.stderr.startswith("attnviz: error: unrecognized arguments: --highlight")
    assert not (tmp_path / "w").exists()


def test_walkthrough_of_a_documents_figure(tmp_path):
    spec = tmp_path / "d.toml"
    spec.write_text(run_cli("page", "--print-spec").stdout, encoding="utf-8")
    assert run_cli("walkthrough", str(spec), "-o", str(tmp_path / "a")).code == 0
    assert run_cli("walkthrough", "-o", str(tmp_path / "b")).code == 0
    assert (tmp_path / "a" / "index.html").read_bytes() == (tmp_path / "b" / "index.html").read_bytes()
    assert len(list((tmp_path / "a" / "steps").iterdir())) == 10


def output_states(root):
    """{i: (state, text)} of the outputs panel, state "pending", "computed" or "shown"."""
    out = {}
    for g in root.iter(f"{SVG_NS}g"):
        classes = g.get("class", "").split()
        if "attnviz-output-row" in classes:
            state = "pending" if "attnviz-pending" in classes else "computed" if "attnviz-computed" in classes \
                else "shown"
            out[int(g.get("data-q"))] = (state, "".join(g.itertext()))
    return out


SEED_QK = ([[1, 0], [0, 1], [1, 1]], [[1, 0], [0, 1], [1, 1]])


def test_value_vectors_add_one_output_step_per_row_after_the_softmax():
    fig = attnviz.figure(*SEED_QK, v=[[1], [2], [3]])
    assert plan(fig.attention)[-4:] == [("softmax", 3), ("output", 1), ("output", 2), ("output", 3)]
    document, figures = walkthrough(fig)
    assert len(figures) == 6 + 1 + 3 + 3
    assert [s.heading for s in document.sections[-3:]] == ["Output of row 1", "Output of row 2", "Output of row 3"]
    assert [s.highlight for s in document.sections[-3:]] == [("output=1",), ("output=2",), ("output=3",)]
    assert document.intro[0].endswith("then each row's named softmax; then each row's output O_i = Σ_j w_ij·V_j. "
                                      "What is not yet computed is empty.")


def test_outputs_are_empty_until_their_step(tmp_path):
    out = tmp_path / "w"
    result = run_cli("walkthrough", "--q", "1,0;0,1;1,1", "--k", "1,0;0,1;1,1", "--v", "1;2;3",
                     "--weights", "decimal=3", "-o", str(out))
    assert result.code == 0, result.stderr
    steps = sorted((out / "steps").iterdir())
    assert [p.name for p in steps[-3:]] == ["11-output-of-row-1.svg", "12-output-of-row-2.svg",
                                            "13-output-of-row-3.svg"]
    roots = [ET.fromstring(p.read_text(encoding="utf-8")) for p in steps]
    final = ["O1 = w11·V1 = (1)", "O2 = w21·V1 + w22·V2 ≈ (1.731)", "O3 = w31·V1 + w32·V2 + w33·V3 ≈ (2.364)"]
    for n, root in enumerate(roots):
        states = output_states(root)
        done = n - 9  # outputs 1..done are computed by the end of step n (0-based; step 10 is output 1)
        for i in (1, 2, 3):
            if i > done:  # not yet: empty, drawn like a pending softmax row (dotted outline, no text)
                assert states[i] == ("pending", "")
                group = next(g for g in root.iter(f"{SVG_NS}g") if g.get("class", "").startswith("attnviz-output-row")
                             and g.get("data-q") == str(i))
                rect, = group.iter(f"{SVG_NS}rect")
                assert (rect.get("class"), rect.get("stroke-dasharray")) == ("attnviz-output-pending", "2 3")
            else:
                assert states[i] == ("computed" if i == done else "shown", final[i - 1])
    assert "1.731" not in "".join(roots[0].itertext())  # the defect: step 1 showed every output
    assert computed(roots[11]) == ({}, [])  # an output step highlights no cell and no softmax row


def test_output_step_of_a_pinned_row_states_its_exact_sum():
    # Row 3's scores are all 0: uniform weights 1/3, so O_3 = (1 + 2 + 3)/3 = 2 exactly.
    fig = attnviz.figure([[1, 0], [0, 0], [0, 0]], [[1, 0], [0, 1], [1, 1]], v=[[1], [2], [3]])
    document, figures = walkthrough(fig)
    row3 = document.sections[-1]
    assert row3.paragraphs[0] == ("Row 3's weights are pinned, each exactly 1/3, so its output is exact: "
                                  "O_3 = w_{31}·V_1 + w_{32}·V_2 + w_{33}·V_3 = 1/3·(1) + 1/3·(2) + 1/3·(3) = (2).")
    assert row3.formula == (r"O_{3} = w_{31} \cdot V_{1} + w_{32} \cdot V_{2} + w_{33} \cdot V_{3} = "
                            r"\frac{1}{3} \cdot \left(1\right) + \frac{1}{3} \cdot \left(2\right) + "
                            r"\frac{1}{3} \cdot \left(3\right) = \left(2\right)")
    assert figures[-1].words.output_rows[2].text == "O3 = w31·V1 + w32·V2 + w33·V3 = (2)"
    assert document.sections[-3].paragraphs[0] == ("Row 1's weights are pinned, exactly 1, so its output is exact: "
                                                   "O_1 = w_{11}·V_1 = 1·(1) = (1).")


def test_output_step_of_a_named_row_says_what_the_figure_shows():
    v = [[1], [2], [3]]
    document, figures = walkthrough(attnviz.figure(*SEED_QK, v=v, weights="decimal=3"))
    row2 = document.sections[-2]
    assert row2.paragraphs[0] == ("Row 2's output is its weights times the value vectors: "
                                  "O_2 = w_{21}·V_1 + w_{22}·V_2 ≈ (1.731). The weights are named, so the figure "
                                  "shows the output rounded, marked ≈.")
    assert row2.formula == r"O_{2} = w_{21} \cdot V_{1} + w_{22} \cdot V_{2} \approx (1.731)"
    assert figures[-2].words.output_rows[1].text.endswith("≈ (1.731)")
    named = walkthrough(attnviz.figure(*SEED_QK, v=v))[0].sections[-2]
    assert named.paragraphs[0] == ("Row 2's output is its weights times the value vectors: "
                                   "O_2 = w_{21}·V_1 + w_{22}·V_2. The weights are named, so the output stays named: "
                                   "no decimal is pinned.")
    assert named.formula == r"O_{2} = w_{21} \cdot V_{1} + w_{22} \cdot V_{2}"


def test_an_output_with_every_key_masked_is_undefined():
    strict = Mask("strict", "j<i", lambda i, j: j < i)
    document, _ = walkthrough(attnviz.figure([[1], [2]], [[3], [4]], mask=strict, v=[[1], [2]]))
    assert document.sections[-2].paragraphs[0].startswith("Row 1 has no unmasked key, so its output is undefined")
    assert document.sections[-2].formula is None


def score_cells(figures):
    """{(i, j): the text of the cell each score step computes}."""
    return {(c.q, c.k): c.text for f in figures for row in f.words.cells for c in row if c.computed and not c.masked}


def test_under_show_logits_each_score_step_states_the_logit_its_cell_shows():
    document, figures = walkthrough(attnviz.figure([[1, 0], [1, 1]], [[1, 0], [1, 2]], scale="sqrt", show="logits"))
    first = document.sections[0]
    assert first.paragraphs[0] == ("The score of query 1 and key 1 is their dot product, and the cell shows its "
                                   "logit: S_{1,1} = Q1·K1 = 1·1 + 0·0 = 1; L_{1,1} = S_{1,1}/√2 = 1/√2 = √2/2.")
    assert first.formula == (r"S_{1,1} = Q_{1} \cdot K_{1} = 1 \cdot 1 + 0 \cdot 0 = 1,\quad "
                             r"L_{1,1} = S_{1,1}/\sqrt{2} = 1/\sqrt{2} = {\frac{\sqrt{2}}{2}}")
    assert figures[0].words.grid_caption.startswith("logit L_ij=S_ij/√2,")
    assert score_cells(figures) == {(1, 1): "√2/2", (2, 1): "√2/2", (2, 2): "3√2/2"}
    for section, (i, j) in zip(document.sections, [(1, 1), (2, 1), (2, 2)]):
        assert section.paragraphs[0].endswith(f" = {score_cells(figures)[(i, j)]}.")


def test_under_show_logits_a_bias_is_put_in_with_the_cell_positions():
    fig = attnviz.figure([[1, 0], [1, 1]], [[1, 0], [1, 2]], scale=2, bias=["alibi=1/2", "matrix=0,-1;1/2,-3/2"],
                         mask="none", show="logits")
    document, figures = walkthrough(fig)
    assert fig.words.grid_caption.startswith("logit L_ij=2·S_ij+1/2·(j-i)+B_ij,")
    assert document.sections[2].paragraphs[0].endswith(
        "S_{2,1} = Q2·K1 = 1·1 + 1·0 = 1; L_{2,1} = 2·S_{2,1}+1/2·(j-i)+B_{2,1} = 2·1+1/2·(1-2)+1/2 = 2.")
    assert document.sections[2].formula.endswith(
        r"L_{2,1} = 2 \cdot S_{2,1}+1/2 \cdot (j-i)+B_{2,1} = 2 \cdot 1+1/2 \cdot (1-2)+1/2 = 2")
    assert document.sections[1].paragraphs[0].endswith(
        "L_{1,2} = 2·S_{1,2}+1/2·(j-i)+B_{1,2} = 2·1+1/2·(2-1)-1 = 3/2.")
    cells = score_cells(figures)
    assert cells == {(1, 1): "2", (1, 2): "3/2", (2, 1): "2", (2, 2): "9/2"}  # 2·3+0-3/2
    for section, cell in zip(document.sections, [(1, 1), (1, 2), (2, 1), (2, 2)]):
        assert section.paragraphs[0].endswith(f" = {cells[cell]}.")


def test_a_bias_function_is_named_with_its_cell_and_stays_one_name_in_tex():
    def my_bias(q_idx, kv_idx):
        return q_idx - kv_idx

    fig = attnviz.figure([[1, 0], [1, 1]], [[1, 0], [1, 2]], bias=[my_bias, "alibi=1/4"], align="bottom-right",
                         show="logits")
    document, _ = walkthrough(fig)
    assert document.sections[1].paragraphs[0].endswith(
        "L_{2,1} = S_{2,1}+my_bias(1,0)+1/4·(j-i) = 1+1+1/4·(1-2) = 7/4.")
    mathml = tex_to_mathml(document.sections[1].formula)
    assert "<mi>m</mi><mi>y</mi><mi>_</mi><mi>b</mi>" in mathml  # an underscore, not a subscript "y_b"


def test_when_the_grid_shows_scores_a_score_step_states_the_score_alone():
    document, _ = walkthrough(attnviz.figure([[1, 0], [1, 1]], [[1, 0], [1, 2]], scale="sqrt"))
    assert document.sections[0].paragraphs[0] == ("The score of query 1 and key 1 is their dot product: "
                                                  "S_{1,1} = Q1·K1 = 1·1 + 0·0 = 1.")


def test_the_step_limit_counts_the_outputs(tmp_path):
    n = 12  # 78 scores, the mask and 12 softmax rows fit; 12 outputs more do not
    vectors = "; ".join(["1"] * n)
    assert len(plan(attnviz.figure([[1]] * n, [[1]] * n).attention)) == 91 <= MAX_STEPS
    result = run_cli("walkthrough", "--q", vectors, "--k", vectors, "--v", vectors, "-o", str(tmp_path / "w"))
    assert result.code == 2 and not (tmp_path / "w").exists()
    assert result.stderr == ("attnviz: error: walkthrough: 103 steps (78 scores, the mask, 12 softmax rows and "
                             f"12 outputs); the limit is {MAX_STEPS}: use fewer tokens\n")
    assert len(plan(attnviz.figure([[1]] * 11, [[1]] * 11, v=[[1]] * 11).attention)) == 89


@pytest.mark.parametrize("form, sentence, formula", [
    ("grouped", "weights e^1/(2e^1+e^2), e^1/(2e^1+e^2), e^2/(2e^1+e^2).",
     r"\frac{e^{2}}{2e^{1}+e^{2}}\right)"),
    ("normalizer", "weights e^1/Z_3, e^1/Z_3, e^2/Z_3, where Z_3=e^1+e^1+e^2.",
     r"\frac{e^{2}}{Z_{3}}\right),\quad Z_{3} = e^{1}+e^{1}+e^{2}"),
])
def test_softmax_steps_write_the_weights_as_the_figure_does(form, sentence, formula):
    document, figures = walkthrough(attnviz.figure(softmax=form))
    last = document.sections[-1]
    assert last.paragraphs[0].endswith(sentence) and last.formula.endswith(formula)
    assert figures[-1].words.softmax_rows[2].weights == sentence.removesuffix(".").split(", where")[0]


def test_a_pinned_row_under_decimals_says_the_figure_rounds_it():
    fig = attnviz.figure([[1, 0], [0, 1], [1, 1]], [[1, 0], [0, 1], ["1/2", "0.5"]], mask="none", weights="decimal=3")
    document, _ = walkthrough(fig)
    assert document.sections[-1].paragraphs[0] == (
        "Row 3's unmasked scores are all equal, [1,1,1], so each weight is exactly 1/3. The figure shows them "
        "rounded, each marked ≈: ≈0.333, ≈0.333, ≈0.333.")


@pytest.mark.parametrize("fig, intro", [
    (attnviz.figure([[1]], [[1]]), "one step at a time: the score S_11 = Q1·K1; then each row's named softmax."),
    (attnviz.figure(mask="padding=1,2,3"), "one step at a time: the causal + padding mask (j<=i and j not in "
                                           "{1,2,3}), which keeps no score; then each row's named softmax."),
])
def test_the_intro_counts_what_there_is(fig, intro):
    document, _ = walkthrough(fig)
    assert intro in document.intro[0]


def test_a_bias_function_that_returns_nothing_is_told_what_to_return():
    with pytest.raises(attnviz.InputError) as err:
        attnviz.figure(bias=lambda q_idx, kv_idx: None)
    assert str(err.value) == "bias: bias(0, 0) returned None; it must return a number"  # a lambda is "bias"
