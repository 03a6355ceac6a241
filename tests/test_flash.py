"""FlashAttention's tiled online softmax (`attnviz.flash`, `walkthrough --flash`), against brute force."""

import xml.etree.ElementTree as ET
from fractions import Fraction

import pytest
from clirun import run_cli
from hypothesis import given
from hypothesis import strategies as st
from pagetext import body_text, computed
from test_walkthrough import cell_states

import attnviz
from attnviz.numbers.surds import Surd

NUMBERS = st.one_of(st.integers(-3, 3), st.fractions(Fraction(-3), Fraction(3), max_denominator=4))


@st.composite
def problems(draw):
    n_q, n_k, d = draw(st.integers(1, 7)), draw(st.integers(1, 7)), draw(st.integers(1, 3))
    q = [[draw(NUMBERS) for _ in range(d)] for _ in range(n_q)]
    k = [[draw(NUMBERS) for _ in range(d)] for _ in range(n_k)]
    block = (draw(st.integers(1, 8)), draw(st.integers(1, 8)))
    return q, k, block, draw(st.sampled_from(["fa2", "fa1"])), draw(st.sampled_from(["causal", "none", "window=2"]))


def brute_force_logits(q, k):
    return [[sum((Fraction(a) * Fraction(b) for a, b in zip(qi, kj)), Fraction(0)) for kj in k] for qi in q]


def keeps(mask, i, j):
    """1-based, top-left aligned, written out again from the README's table."""
    return {"causal": j <= i, "none": True, "window=2": i - 2 < j <= i}[mask]


def tile_order(n_q, n_k, block, order):
    br, bc = block
    row_blocks = [list(range(r, min(r + br, n_q + 1))) for r in range(1, n_q + 1, br)]
    key_blocks = [list(range(c, min(c + bc, n_k + 1))) for c in range(1, n_k + 1, bc)]
    if order == "fa2":
        return [(r, c) for r in row_blocks for c in key_blocks]
    return [(r, c) for c in key_blocks for r in row_blocks]


@given(problems())
def test_running_state_after_every_tile_is_the_brute_force_one(problem):
    q, k, block, order, mask = problem
    n_q, n_k = len(q), len(k)
    s = brute_force_logits(q, k)
    steps = attnviz.flash(q, k, block=block, order=order, mask=mask)
    visited = [(r, c) for r, c in tile_order(n_q, n_k, block, order) if any(keeps(mask, i, j) for i in r for j in c)]
    assert [(list(step.rows), list(step.keys)) for step in steps] == visited  # skipped tiles are not steps
    seen = {i: [] for i in range(1, n_q + 1)}
    previous = {}
    for step in steps:
        for i in step.rows:
            seen[i] = sorted(seen[i] + [j for j in step.keys if keeps(mask, i, j)])
            if not seen[i]:
                assert i not in step.m and i not in step.l
                continue
            m = max(s[i - 1][j - 1] for j in seen[i])
            assert step.m[i] == m
            assert step.seen[i] == tuple(seen[i])
            assert step.l[i] == tuple(s[i - 1][j - 1] - m for j in seen[i])
            assert step.rescale[i] == (None if i not in previous else previous[i] - m)
            previous[i] = m
        assert step.scores == {(i, j): s[i - 1][j - 1] for i in step.rows for j in step.keys if keeps(mask, i, j)}
    # The final weights e^(s−m)/ℓ are the one-shot softmax's: adding m back gives the row's logits.
    figure = attnviz.figure(q, k, mask=mask)
    final = {i: (step.m[i], step.l[i]) for step in steps for i in step.m}
    for i in range(1, n_q + 1):
        weights = figure.attention.weights(i - 1)
        if weights.kind == "undefined":
            assert i not in final
            continue
        m, exps = final[i]
        assert tuple(x + m for x in exps) == weights.exponents == tuple(s[i - 1][j - 1] for j in seen[i])


@given(problems())
def test_fa1_and_fa2_end_in_the_same_state(problem):
    q, k, block, _, mask = problem
    ends = []
    for order in ("fa1", "fa2"):
        steps = attnviz.flash(q, k, block=block, order=order, mask=mask)
        ends.append({i: (step.m[i], step.l[i]) for step in steps for i in step.m})
    assert ends[0] == ends[1]


def test_scaled_logits_stay_surds():
    steps = attnviz.flash([[1, 0], [1, 1]], [[1, 0], [0, 1]], block=(1, 1), scale="sqrt")
    last = steps[-1]
    assert isinstance(last.m[2], Surd) and last.m[2] == Surd(0, Fraction(1, 2), 2)  # √2/2 = max(√2/2, √2/2)
    assert last.l[2] == (0, 0) and last.rescale[2] == 0


def test_values_give_the_accumulator_terms():
    steps = attnviz.flash([[1], [2]], [[1], [1]], v=[[5], [7]], block=(2, 1))
    assert steps[-1].o[2] == ((0, 1), (0, 2)) and steps[0].o[1] == ((0, 1),)


def test_the_documented_example():
    steps = attnviz.flash([[1, 0], [0, 1], [1, 1]], [[1, 0], [0, 1], [1, 1]], block=(2, 2))
    assert [(s.rows, s.keys) for s in steps] == [((1, 2), (1, 2)), ((3,), (1, 2)), ((3,), (3,))]
    assert steps[1].m[3] == 1 and steps[1].l[3] == (0, 0) and steps[1].rescale[3] is None
    assert steps[2].m[3] == 2 and steps[2].l[3] == (-1, -1, 0) and steps[2].rescale[3] == -1


@pytest.mark.parametrize("block, message", [
    ((0, 2), "block sizes must be at least 1"),
    ((2,), "expected two block sizes"),
    ((2, True), "expected two block sizes"),
])
def test_bad_blocks_are_refused(block, message):
    with pytest.raises(attnviz.InputError, match=message):
        attnviz.flash([[1]], [[1]], block=block)


def test_bad_order_is_refused():
    with pytest.raises(attnviz.InputError, match="expected fa2 .* or fa1"):
        attnviz.flash([[1]], [[1]], order="fa3")


# --- The walkthrough ------------------------------------------------------------------------------

Q5 = "1,0;0,1;1,1;2,-1;1/2,1"
K5 = "1,0;0,1;1,1;1,2;-1,1"


@pytest.fixture(scope="module")
def walk(tmp_path_factory):
    out = tmp_path_factory.mktemp("flash")
    result = run_cli("walkthrough", "--q", Q5, "--k", K5, "--flash", "2,2", "-o", str(out))
    assert result.code == 0, result.stderr
    return out


def test_walkthrough_has_one_step_per_kept_tile_then_the_proof(walk):
    names = [p.name for p in sorted((walk / "steps").iterdir())]
    assert names == ["01-tile-1-queries-1-2-keys-1-2.svg", "02-tile-2-queries-3-4-keys-1-2.svg",
                     "03-tile-3-queries-3-4-keys-3-4.svg", "04-tile-4-query-5-keys-1-2.svg",
                     "05-tile-5-query-5-keys-3-4.svg", "06-tile-6-query-5-key-5.svg",
                     "07-tiled-softmax-equals-the-one-shot-softmax.svg"]
    roots = [ET.fromstring(p.read_text(encoding="utf-8")) for p in sorted((walk / "steps").iterdir())]
    assert len({(r.get("width"), r.get("height")) for r in roots}) == 1  # slides do not jump
    third = cell_states(roots[2])
    tile, rows = computed(roots[2])
    assert set(tile) == {(3, 3), (3, 4), (4, 3), (4, 4)} and rows == [3, 4]  # rows 3, 4: their last tile
    assert third[(3, 4)] == ("masked", "masked")  # masked inside the tile
    assert third[(3, 5)][0] == "masked"  # a skipped tile: masked, never computed
    assert third[(5, 1)][0] == "pending"  # a later tile: empty
    assert all(state != "pending" for state, _ in cell_states(roots[-1]).values())


def test_walkthrough_states_the_running_state_exactly(walk):
    text = body_text((walk / "index.html").read_text(encoding="utf-8"))
    assert "3 of the 9 tiles are fully masked by the causal mask and skipped" in text
    assert "Each row i starts at m_i = −∞, ℓ_i = 0" in text
    assert "Skipped before this tile, fully masked: queries 1–2 × keys 3–4 and queries 1–2 × key 5." in text
    assert ("Row 3: m_3 = max(1, 2) = 2; the maximum rises, so the old ℓ_3 is rescaled by e^(1-2) = e^(-1): "
            "ℓ_3 = e^(1-2)·(e^0+e^0) + e^(2-2) = e^(-1)+e^(-1)+e^0.") in text
    assert "the maximum stays, so the rescale factor is e^(2-2) = e^0 = 1" in text
    assert ("Row 2 (m_2 = 1, keys 1, 2): e^(-1)/(e^(-1)+e^0) = e^0/(e^0+e^1), "
            "e^0/(e^(-1)+e^0) = e^1/(e^0+e^1).") in text
    html = (walk / "index.html").read_text(encoding="utf-8")
    assert html.count("<math") == 7
    assert r"\ell_{3} = e^{1-2}\left(e^{0}+e^{0}\right) + e^{2-2} = e^{-1}+e^{-1}+e^{0}" in html


def test_fa1_order_walks_key_blocks_outside(tmp_path):
    result = run_cli("walkthrough", "--q", Q5, "--k", K5, "--flash", "2,3", "--flash-order", "fa1", "-o",
                     str(tmp_path))
    assert result.code == 0, result.stderr
    names = [p.name for p in sorted((tmp_path / "steps").iterdir())]
    assert [n.split("-", 1)[1] for n in names[:4]] == ["tile-1-queries-1-2-keys-1-3.svg",
                                                      "tile-2-queries-3-4-keys-1-3.svg",
                                                      "tile-3-query-5-keys-1-3.svg",
                                                      "tile-4-queries-3-4-keys-4-5.svg"]
    assert "FlashAttention-1's order (outer loop over key blocks" in body_text(
        (tmp_path / "index.html").read_text(encoding="utf-8"))


@pytest.mark.parametrize("keys, steps", [('flash = [2, 2]\nflash_order = "fa1"\n', 4), ("decode = 2\n", 2)])
def test_walkthrough_spec_keys_work_like_the_flags(keys, steps, tmp_path):
    spec = tmp_path / "f.toml"
    spec.write_text('q = "1,0;0,1;1,1"\nk = "1,0;0,1;1,1"\n' + keys, encoding="utf-8")
    result = run_cli("walkthrough", str(spec), "-o", str(tmp_path / "out"))
    assert result.code == 0, result.stderr
    assert len(list((tmp_path / "out" / "steps").iterdir())) == steps


@pytest.mark.parametrize("args, message", [
    (["--flash", "0,2"], "attnviz: error: --flash: block sizes must be at least 1, got 0,2"),
    (["--flash", "2"], "attnviz: error: --flash: expected two block sizes Br,Bc like 2,2"),
    (["--flash", "2,x"], "attnviz: error: --flash: expected two block sizes Br,Bc like 2,2"),
    (["--flash", "2,2", "--flash-order", "fa3"], "attnviz: error: --flash-order: expected fa2"),
    (["--flash-order", "fa1"], "attnviz: error: --flash-order: orders FlashAttention's tiles"),
    (["--flash", "2,2", "--decode", "2"], "attnviz: error: --flash and --decode: choose one walkthrough"),
    (["--q", ";".join(["1"] * 14), "--k", ";".join(["1"] * 14), "--flash", "1,1"],
     "attnviz: error: --flash: 106 steps (105 tiles and the final step; use larger blocks); the limit is 100"),
    (["--q", ";".join(["1"] * 40), "--k", ";".join(["1"] * 40), "--decode", "1"],
     "attnviz: error: --decode: 40 steps of 1,600 cells each (the prefill and 39 decoded tokens) would draw 64,000 "
     "cells; the limit is 60,000: use fewer tokens"),
])
def test_bad_flash_input_is_one_line(args, message, tmp_path):
    assert_walkthrough_refused(args, message, tmp_path)


def assert_walkthrough_refused(args, message, folder):
    """`attnviz walkthrough ARGS -o FOLDER` ends in one line starting with `message`, exit 2, nothing written."""
    result = run_cli("walkthrough", *args, "-o", str(folder))
    assert result.code == 2
    assert result.stderr.startswith(message), result.stderr
    assert result.stderr.count("\n") == 1
    assert not any(folder.iterdir())


def test_render_refuses_a_walkthrough_key(tmp_path):
    spec = tmp_path / "f.toml"
    spec.write_text('q = "1"\nk = "1"\nflash = [1, 1]\n', encoding="utf-8")
    result = run_cli("render", str(spec), "-o", str(tmp_path / "x.svg"))
    assert result.code == 2
    assert "'flash' is a walkthrough key" in result.stderr


def test_flash_checks_the_digit_limit_before_summing_a_score():
    """flash() computes from the engine alone, with the engine's digit limit (engine.limits)."""
    big = [[f"1/{7 ** 300}", "1/3"], ["1/5", f"1/{11 ** 300}"]]
    with pytest.raises(attnviz.InputError, match="digits"):
        attnviz.flash(big, big)
