"""The mask view, the score table and composed panels: cells against the engine, anatomy, alignment."""

import re
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attnviz
import attnviz.words.budget
import attnviz.words.notation
import attnviz.figures.composite
import attnviz.figures.from_arguments
from attnviz.numbers.exact import InputError

from clirun import run_cli

SVG = "{http://www.w3.org/2000/svg}"
FAMILIES = ["causal", "none", "window={w}", "prefix={w}", "chunk={w}", "padding={w}"]


def kept_from_svg(svg):
    """{(i, j)} of the cells a map draws kept, read back from its rows' data-k runs (1-based)."""
    root = ET.fromstring(svg)
    kept = set()
    for row in root.iter(f"{SVG}g"):
        if row.get("class") != "attnviz-row":
            continue
        i = int(row.get("data-q"))
        for rect in row:
            assert rect.get("class") == "attnviz-kept"
            a, b = map(int, rect.get("data-k").split("-"))
            assert a <= b
            kept.update((i, j) for j in range(a, b + 1))
    return kept


def rule_keeps(mask_text, i, j, n_q, n_k, align="top-left"):
    """Whether cell (i, j) (1-based) is kept, from each mask's definition written out again here (not attnviz's):
    causal j<=i (shifted by n_k-n_q when aligned bottom-right), window=W i-W<j<=i, prefix=P j<=i or both
    i, j <= P, chunk=C j<=i within the same block of C, padding=P causal with key P masked."""
    name, _, arg = mask_text.partition("=")
    if align == "bottom-right":
        i = i + n_k - n_q
    if name == "none":
        return True
    if name == "causal":
        return j <= i
    w = int(arg)
    if name == "window":
        return i - w < j <= i
    if name == "prefix":
        return j <= i or (i <= w and j <= w)
    if name == "chunk":
        return j <= i and (i - 1) // w == (j - 1) // w
    if name == "padding":
        return j <= i and j != w
    raise AssertionError(f"no brute force for {mask_text}")


def brute_kept(mask_text, n_q, n_k, align="top-left"):
    """{(i, j)} kept, 1-based, by looping over every cell: an independent brute force."""
    kept = set()
    for i in range(1, n_q + 1):
        for j in range(1, n_k + 1):
            if rule_keeps(mask_text, i, j, n_q, n_k, align):
                kept.add((i, j))
    return kept


def test_the_brute_force_itself_on_hand_drawn_grids():
    """The brute force against 6x6 grids drawn by hand (so a shared mistake cannot hide in both)."""
    drawn = {"causal": "1.....;11....;111...;1111..;11111.;111111",
             "window=3": "1.....;11....;111...;.111..;..111.;...111",
             "prefix=3": "111...;111...;111...;1111..;11111.;111111",
             "chunk=3": "1.....;11....;111...;...1..;...11.;...111",
             "padding=3": "1.....;11....;11....;11.1..;11.11.;11.111"}
    for mask, grid in drawn.items():
        cells = {(i + 1, j + 1) for i, row in enumerate(grid.split(";")) for j, c in enumerate(row) if c == "1"}
        assert brute_kept(mask, 6, 6) == cells, mask
        assert kept_from_svg(attnviz.figure(view="mask", n=6, mask=mask).svg()) == cells, mask


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 64), family=st.sampled_from(FAMILIES), w=st.integers(1, 70))
def test_map_runs_cover_exactly_the_kept_cells(n, family, w):
    text = family.format(w=min(w, n) if family.startswith("padding") else w)
    svg = attnviz.figure(view="mask", n=n, mask=text).svg()
    assert kept_from_svg(svg) == brute_kept(text, n, n)


@pytest.mark.parametrize("n", [512, 1024])
@pytest.mark.parametrize("mask", ["causal", "window=128", "chunk=100"])
def test_large_maps_match_the_engine_and_stay_small(n, mask):
    svg = attnviz.figure(view="mask", n=n, mask=mask).svg()
    assert kept_from_svg(svg) == brute_kept(mask, n, n)
    rows = re.findall(r'<rect class="attnviz-kept" data-k', svg)
    assert len(rows) == n  # one run a row for these masks: n rectangles, not n²/2
    if mask == "causal" and n == 1024:
        assert len(svg.encode()) < 150_000


def test_a_decode_shape_needs_no_vectors():
    fig = attnviz.figure(view="mask", shape="4x12", align="bottom-right")
    assert kept_from_svg(fig.svg()) == brute_kept("causal", 4, 12, "bottom-right")
    assert "causal mask keeps j&lt;=i+8, aligned bottom-right" in fig.svg()


def test_one_run_per_row_of_consecutive_keys():
    svg = attnviz.figure(view="mask", n=6, mask="padding=3").svg()
    assert re.findall(r'data-q="6"><rect class="attnviz-kept" data-k="([0-9-]+)"[^>]*/><rect class="attnviz-kept" '
                      r'data-k="([0-9-]+)"', svg) == [("1-2", "4-6")]


def test_a_fully_masked_row_is_marked_and_named():
    fig = attnviz.figure(view="mask", n=4, mask="matrix=1000;0000;1110;1111")
    svg = fig.svg()
    assert svg.count('class="attnviz-map-empty-row" data-q') == 1
    assert 'data-q="2"' in re.search(r'<rect class="attnviz-map-empty-row"[^>]*>', svg)[0]
    assert "row with no kept key" in svg
    assert "1 row with no kept key" in fig.description()


def test_highlight_marks_cells_in_the_map():
    svg = attnviz.figure(view="mask", n=8, highlight=["8,3", "row=2"]).svg()
    computed = re.findall(r'<rect class="attnviz-computed" data-q="(\d+)" data-k="([0-9-]+)"', svg)
    assert computed == [("2", "1-8"), ("8", "3-3")]
    assert "computed this step" in svg


@pytest.mark.parametrize("target", ["softmax=2", "output"])
def test_the_map_has_no_captions_to_highlight(target):
    with pytest.raises(InputError, match="no softmax captions"):
        attnviz.figure(view="mask", n=4, highlight=target)


def test_ticks_thin_out_and_keep_the_last():
    svg = attnviz.figure(view="mask", n=512).svg()
    ticks = re.findall(r'class="attnviz-tick-text"[^>]*>(\d+)<', svg)
    rows = ticks[len(ticks) // 2:]
    assert rows[-1] == "512"
    steps = {int(b) - int(a) for a, b in zip(rows[:-2], rows[1:-1])}
    # regular from the first tick (the first multiple, not 1 then a gap: issue 38's "1, 4, 6, 8")
    assert len(steps) == 1 and int(rows[0]) in steps and steps.pop() in (8, 16, 32, 64)
    assert re.findall(r'class="attnviz-tick-text"[^>]*>(\d+)<',
                      attnviz.figure(view="mask", n=8, frame="column").svg())[:4] in (
        ["1", "2", "3", "4"], ["2", "4", "6", "8"])
    small = re.findall(r'class="attnviz-tick-text"[^>]*>(\d+)<', attnviz.figure(view="mask", n=8).svg())
    assert small == [str(j) for j in range(1, 9)] * 2  # every tick while they fit


def test_scores_view_has_no_captions():
    svg = attnviz.figure(view="scores").svg()
    assert "attnviz-softmax-row" not in svg and "named softmax" not in svg
    assert svg.count('class="attnviz-cell attnviz-score') == 6


def test_mask_view_refuses_what_it_cannot_draw():
    with pytest.raises(InputError, match="not scores or logits"):
        attnviz.figure(view="mask", n=4, scale="sqrt")
    with pytest.raises(InputError, match="at most 1,024"):
        attnviz.figure(view="mask", n=1025)
    with pytest.raises(InputError, match="only the mask view takes n"):
        attnviz.figure(n=4)
    with pytest.raises(InputError, match="expected full, scores, mask or heads"):
        attnviz.figure(view="heat")


def test_panels_share_cell_size_align_grids_and_keep_ids_unique():
    a = attnviz.figure(view="mask", n=16, title="causal")
    b = attnviz.figure(view="mask", n=16, mask="window=4", title="a much longer title that wraps onto two lines "
                       "because it is long, longer than the map is wide, and it keeps going")
    both = attnviz.compose(a, b, title="Two masks")
    svg = both.svg()
    root = ET.fromstring(svg)
    maps = [g for g in root.iter(f"{SVG}g") if g.get("class") == "attnviz-map"]
    grounds = [next(r for r in g if r.get("class") == "attnviz-map-masked") for g in maps]
    assert len(grounds) == 2
    assert grounds[0].get("y") == grounds[1].get("y")  # grid tops aligned
    assert grounds[0].get("width") == grounds[1].get("width")  # same cell size
    ids = [el.get("id") for el in root.iter() if el.get("id")]
    assert len(ids) == len(set(ids))
    assert svg.count('class="attnviz-legend"') == 1
    assert kept_from_svg(svg) == brute_kept("causal", 16, 16) | brute_kept("window=4", 16, 16)


def test_panels_of_full_figures_share_their_cell_width():
    wide = attnviz.figure(q=[[100000, 1], [2, 3]], k=[[1, 0], [0, 1]], view="scores")
    narrow = attnviz.figure(q=[[1, 0], [0, 1]], k=[[1, 0], [0, 1]], view="scores")
    layout = attnviz.compose(wide, narrow).layout()
    widths = {item.children[0].w for panel in layout.items for item in panel.children
              if getattr(item, "classes", ())[:1] == ("attnviz-cell",)}
    assert len(widths) == 1


def test_compose_refuses_what_is_not_a_figure():
    with pytest.raises(InputError, match="panel 2 is str"):
        attnviz.compose(attnviz.figure(), "fig")
    with pytest.raises(InputError, match="grid:C"):
        attnviz.compose(attnviz.figure(), attnviz.figure(), arrange="diagonal")


def test_cli_mask_map_without_vectors(tmp_path):
    out = tmp_path / "w.svg"
    result = run_cli("render", "--view", "mask", "--n", "512", "--mask", "window=128", "-o", str(out))
    assert result.code == 0, result.stderr
    assert kept_from_svg(out.read_text()) == brute_kept("window=128", 512, 512)


def test_cli_panels_from_files(tmp_path):
    (tmp_path / "a.toml").write_text('title = "causal"\n')
    (tmp_path / "b.toml").write_text('title = "window"\nmask = "window=3"\n')
    result = run_cli("render", "--view", "mask", "--n", "8", "--panel", str(tmp_path / "a.toml"), "--panel",
                     str(tmp_path / "b.toml"), "--arrange", "column", "-o", "-")
    assert result.code == 0, result.stderr
    assert result.stdout.count('class="attnviz-panel"') == 2


def test_spec_panels_take_the_other_keys_as_defaults(tmp_path):
    spec = tmp_path / "three.toml"
    spec.write_text('view = "mask"\nn = 6\narrange = "grid:2"\n[[panel]]\n[[panel]]\nmask = "window=2"\n'
                    '[[panel]]\nview = "scores"\nq = [[1]]\nk = [[1]]\n')
    result = run_cli("render", str(spec), "-o", "-")
    assert result.code == 0, result.stderr
    assert result.stdout.count('class="attnviz-panel"') == 3
    assert result.stdout.count('class="attnviz-map"') == 2


@pytest.mark.parametrize("args, message", [
    (["--view", "mask", "--n", "2000"], "--n: 2000 tokens; a mask map shows at most 1,024 a side"),
    (["--view", "mask", "--shape", "4by12"], "--shape: expected QUERIESxKEYS like 4x12"),
    (["--view", "mask", "--n", "4", "--q", "1", "--k", "1"], "--n: give n or vectors (q, k), not both"),
    (["--arrange", "row"], "--arrange: arrange places panels"),
    (["--view", "mask", "--n", "abc"], "argument --n: expected a whole number, got 'abc'"),
    (["--index-base", "x"], "argument --index-base: expected a whole number, got 'x'"),
])
def test_cli_view_errors_are_one_line(args, message):
    result = run_cli("render", *args, "-o", "-")
    assert result.code == 2
    assert result.stderr == f"attnviz: error: {message}" + result.stderr[len(f"attnviz: error: {message}"):]
    assert result.stderr.count("\n") == 1


def _grid_values(fig):
    """{(i, j): text} of every drawn cell, read from the SVG (1-based, as data-q/data-k say)."""
    root = ET.fromstring(fig.svg())
    out = {}
    for g in root.iter(f"{SVG}g"):
        if "attnviz-cell" in (g.get("class") or "").split():
            out[int(g.get("data-q")), int(g.get("data-k"))] = "".join(g.itertext())
    return out


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 40), d=st.integers(1, 3), seed=st.integers(0, 10**6), row=st.integers(1, 40),
       col=st.integers(1, 40), mask=st.sampled_from(["causal", "window=3", "none"]))
def test_an_elided_figure_shows_the_unelided_values(n, d, seed, row, col, mask):
    import random

    rng = random.Random(seed)
    q = [[rng.randint(-4, 4) for _ in range(d)] for _ in range(n)]
    k = [[rng.randint(-4, 4) for _ in range(d)] for _ in range(n)]
    target = (min(row, n), min(col, n))
    whole = attnviz.figure(q, k, mask=mask, highlight=[target])
    elided = attnviz.figure(q, k, mask=mask, highlight=[target], elide=True)
    shown = _grid_values(elided)
    assert shown.items() <= _grid_values(whole).items()
    assert target in shown  # a highlighted cell is always among those shown
    whole_rows = {r.q: r for r in whole.words.softmax_rows}
    for r in elided.words.softmax_rows:  # a shown row's caption is the whole row's, its terms elided
        if "more …" not in r.scores + r.weights:
            assert (r.scores, r.weights) == (whole_rows[r.q].scores, whole_rows[r.q].weights)
    if n <= 8:  # an axis of 8 or fewer is drawn whole: the same figure, byte for byte
        assert elided.svg() == whole.svg()
        assert len(shown) == n * n


def test_an_elided_1024_token_figure_says_what_it_leaves_out():
    import random

    rng = random.Random(3)
    q = [[rng.randint(-3, 3) for _ in range(4)] for _ in range(1024)]
    k = [[rng.randint(-3, 3) for _ in range(4)] for _ in range(1024)]
    fig = attnviz.figure(q, k, elide=True, highlight=["500,20"])
    svg = fig.svg()
    assert len(svg.encode()) < 300_000
    assert "rows 5–499, 501–1022 and keys 5–19, 21–1022 not shown" in svg
    assert fig.description().endswith("rows 5–499, 501–1022 and keys 5–19, 21–1022 not shown")
    assert "523776 cells masked" in fig.description()  # the whole grid's count, not the shown rows'
    row = next(r for r in fig.words.softmax_rows if r.q == 1024)
    assert "… 1,019 more …" in row.scores and len(row.weights) < 400
    exact = sum(a * b for a, b in zip(q[499], k[19]))
    assert _grid_values(fig)[500, 20] == str(exact)


def test_without_elision_the_full_view_keeps_its_limit():
    with pytest.raises(InputError, match=r"65 vectors; the limit is 64 \(up to 1,024 with elision"):
        attnviz.figure([[1]] * 65, [[1]] * 65)


def test_index_base_0_counts_labels_captions_and_targets_from_0():
    fig = attnviz.figure(index_base=0, highlight=["2,2", "softmax=0"], v=[[1], [2], [3]])
    svg = fig.svg()
    assert ">Q0<" in svg and ">K2<" in svg and "Q0=(1,0); Q1=(0,1); Q2=(1,1)" in svg
    assert "row 0: scores [1]" in svg and "O2 = w20·V0 + w21·V1 + w22·V2" in svg
    assert re.search(r'data-q="3" data-k="3" [^>]*aria-label="Q2 K2 score 2, computed this step"', svg)
    assert "cell (2,2) computed this step; softmax of row 0 computed this step" in fig.description()
    one = attnviz.figure(highlight=["3,3", "softmax=1"], v=[[1], [2], [3]])
    assert fig.attention.scores == one.attention.scores and fig.highlight == one.highlight
    with pytest.raises(InputError, match=r"row 3 is outside the grid \(rows 0..2\)"):
        attnviz.figure(index_base=0, highlight=["3,3"])
    with pytest.raises(InputError, match="expected 0 or 1"):
        attnviz.figure(index_base=2)


def test_index_base_0_in_the_mask_map():
    svg = attnviz.figure(view="mask", n=4, index_base=0, highlight="3,0").svg()
    assert re.findall(r'class="attnviz-tick-text"[^>]*>(\d+)<', svg) == ["0", "1", "2", "3"] * 2
    assert 'data-q="4" data-k="1-1"' in svg  # data stays 1-based


def test_repeated_labels_name_rows_by_position():
    fig = attnviz.figure([[1], [2], [3]], [[1], [1], [1]], tokens=[".", "sat", "."])
    assert [r.scores.split(":")[0] for r in fig.words.softmax_rows] == ["row 1 (.)", "row 2 (sat)", "row 3 (.)"]
    assert fig.words.q_line == "Q1(.)=(1); Q2(sat)=(2); Q3(.)=(3)"
    assert fig.words.k_line == "K1(.)=(1); K2(sat)=(1); K3(.)=(1)"
    plain = attnviz.figure([[1], [2]], [[1], [1]], tokens=["a", "b"])
    assert plain.words.softmax_rows[0].scores.startswith("row a:")


def test_the_walkthrough_refuses_what_it_cannot_step_through(tmp_path):
    twelve = ";".join(["1,0"] * 12)
    for args, message in [(["--view", "mask"], "steps through one full figure"),
                          (["--index-base", "0"], "count from 1"),
                          (["--elide", "--q", twelve, "--k", twelve], "drop --elide")]:
        result = run_cli("walkthrough", *args, "-o", str(tmp_path / "walk"))
        assert result.code == 2 and message in result.stderr, result.stderr
    assert not (tmp_path / "walk").exists()


@pytest.mark.parametrize("bias", ["alibi=1/2", "matrix=0,0,0;-1,0,0;-2,-1/3,0", ["alibi=1", "alibi=1/4"]])
def test_show_bias_draws_the_exact_bias_matrix_beside_the_scores(bias):
    q = k = [[1, 0], [0, 1], [1, 1]]
    fig = attnviz.figures.from_arguments.build({"q": q, "k": k, "bias": bias, "show": "bias"})
    assert fig.svg() == attnviz.compose(attnviz.figure(q, k, bias=bias, title=""),
                                        attnviz.figure(q, k, bias=bias).bias_panel(),
                                        title="Causal attention, 3 tokens").svg()
    assert isinstance(fig, attnviz.figures.composite.Composite) and len(fig.panels) == 2
    scores, panel = fig.panels
    attention = scores.attention
    slope = attention.biases[0].slope if len(attention.biases) == 1 else None  # ALiBi: cells are j-i, times m
    for row in panel.words.cells:
        for cell in row:
            i, j = cell.q - 1, cell.k - 1
            if attention.kept[i][j] and slope is not None:  # m·(j-i) = L_ij - S_ij, exactly
                assert cell.text == str(j - i) and slope * (j - i) == attention.logits[i][j] - attention.scores[i][j]
            elif attention.kept[i][j]:  # B_ij = L_ij - S_ij, exactly
                assert cell.text == attnviz.words.notation.format_exact(attention.logits[i][j] - attention.scores[i][j])
            else:
                assert cell.text == "masked"
    layout = fig.layout()
    tops = [min(c.children[0].y for c in p.children if getattr(c, "classes", ("",))[0] == "attnviz-cell")
            for p in layout.items if getattr(p, "classes", ())[:1] == ("attnviz-panel",)]
    assert len(tops) == 2 and tops[0] == tops[1]  # the two grids line up


def test_show_bias_needs_a_bias():
    with pytest.raises(InputError, match="fig.bias_panel()"):
        attnviz.figure(bias="alibi=1", show="bias")
    with pytest.raises(InputError, match="no bias to draw"):
        attnviz.figure().bias_panel()
    with pytest.raises(InputError, match="give a bias too"):
        attnviz.figures.from_arguments.build({"show": "bias"})


def test_panels_that_each_fit_can_still_be_too_many_together(monkeypatch):
    import attnviz.words.budget

    maps = [attnviz.figure(view="mask", n=64) for _ in range(3)]
    one = attnviz.words.budget.figure_chars(maps[0].words)
    monkeypatch.setattr(attnviz.words.budget, "FIGURE_CHARS", int(one * 2.5))  # each fits, three do not
    maps[0].layout()
    with pytest.raises(InputError, match="past the budget"):
        attnviz.compose(*maps).svg()


def test_a_page_section_may_show_panels(tmp_path):
    spec = tmp_path / "page.toml"
    spec.write_text('heading = "Masks side by side"\n[figure]\nview = "mask"\nn = 12\n[[figure.panel]]\n'
                    'title = "causal"\n[[figure.panel]]\ntitle = "window"\nmask = "window=3"\n'
                    '[[sections]]\nheading = "Two masks"\nhighlight = ["12,10"]\n')
    result = run_cli("page", str(spec), "-o", str(tmp_path / "out"))
    assert result.code == 0, result.stderr
    step = (tmp_path / "out" / "steps" / "01-two-masks.svg").read_text()
    assert step.count('class="attnviz-panel"') == 2
    assert step.count('<rect class="attnviz-computed" data-q="12" data-k="10-10"') == 2  # every panel's highlight
    alone = run_cli("render", str(spec), "--step", "1", "-o", "-")
    assert alone.stdout == step


@pytest.mark.parametrize(("n", "step", "base", "labels"), [(8, 2, 1, [2, 4, 6, 8]), (16, 4, 1, [4, 8, 12, 16]),
                                                         (8, 2, 0, [0, 2, 4, 7]), (8, 1, 1, list(range(1, 9)))])
def test_ticks_are_regular_from_the_first(n, step, base, labels):
    """A first multiple closer to the first index than a step takes its place: 2, 4, 6, 8, never 1, 4, 6, 8."""
    from attnviz.layout.mask_map import _ticks

    assert [p + base for p in _ticks([str(p) for p in range(n)], step, True, base)] == labels
