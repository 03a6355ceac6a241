"""Flash-Decoding (`walkthrough --split-kv C`, `attnviz.walkthrough(fig, split_kv=C)`): every chunk's own m_c, ℓ_c
and partial output, and the combine step, against brute force (written out here from the definition) and against
the sequential FlashAttention walk; the strips as drawn; every step the same size in every frame."""

import re
import xml.etree.ElementTree as ET
from collections import Counter
from fractions import Fraction

import pytest
from clirun import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st
from test_layout import assert_clean

import attnviz
from attnviz.engine.split_kv import split_kv

SVG = "{http://www.w3.org/2000/svg}"
MASKS = {"causal": lambda i, j: j <= i, "none": lambda i, j: True, "window=2": lambda i, j: i - 2 < j <= i}


def brute_force(q, k, v, chunk, keep):
    """Per row (1-based): each chunk's (m_c, exponents s − m_c, partial output O_c), then (m, exponents s − m, O),
    from the scores s_ij = q_i·k_j and the definition: O_c = Σ e^(s−m_c)V_j / Σ e^(s−m_c), O = Σ_j e^(s−m)V_j / ℓ
    compared as exact multisets of (exponent, value) terms."""
    scores = [[sum(Fraction(a) * Fraction(b) for a, b in zip(qi, kj)) for kj in k] for qi in q]
    rows = {}
    for i in range(len(q)):
        chunks = []
        for start in range(0, len(k), chunk):
            kept = [j for j in range(start, min(start + chunk, len(k))) if keep(i, j)]
            if kept:
                m_c = max(scores[i][j] for j in kept)
                chunks.append((m_c, Counter(scores[i][j] - m_c for j in kept), [j + 1 for j in kept]))
            else:
                chunks.append(None)
        kept = [j for j in range(len(k)) if keep(i, j)]
        if kept:
            m = max(scores[i][j] for j in kept)
            rows[i + 1] = (chunks, m, Counter(scores[i][j] - m for j in kept))
        else:
            rows[i + 1] = (chunks, None, Counter())
    return rows


@st.composite
def problems(draw):
    n_q, n_k = draw(st.integers(1, 5)), draw(st.integers(1, 8))
    d = draw(st.integers(1, 2))
    numbers = st.integers(-2, 3)
    q = [[draw(numbers) for _ in range(d)] for _ in range(n_q)]
    k = [[draw(numbers) for _ in range(d)] for _ in range(n_k)]
    v = [[draw(numbers)] for _ in range(n_k)]
    mask = draw(st.sampled_from(sorted(MASKS)))
    return q, k, v, draw(st.integers(1, 4)), mask


@settings(max_examples=120, deadline=None)
@given(problems())
def test_chunks_and_combine_are_the_brute_force_ones(problem):
    q, k, v, chunk, mask = problem
    run = split_kv(q, k, v, chunk=chunk, mask=mask)
    expected = brute_force(q, k, v, chunk, MASKS[mask])
    for i, (chunks, m, ell) in expected.items():
        for state, want in zip(run.chunks, chunks):
            if want is None:
                assert i not in state.m
                continue
            assert state.m[i] == want[0]
            assert Counter(state.l[i]) == want[1]
            assert list(state.seen[i]) == want[2]
            assert [x for x, _ in state.o[i]] == list(state.l[i])  # O_c's numerator: e^(s−m_c)·V_j per kept key
        if m is None:
            assert i not in run.combined.m
            continue
        assert run.combined.m[i] == m
        assert Counter(run.combined.l[i]) == ell  # ℓ = Σ e^(s−m): the one-shot softmax's denominator, term by term
        for c, factor in run.combined.factors[i]:
            assert factor == run.chunks[c - 1].m[i] - m  # the rescale e^(m_c − m)


@settings(max_examples=60, deadline=None)
@given(problems())
def test_combined_state_is_the_sequential_flash_walks_final_state(problem):
    q, k, v, chunk, mask = problem
    run = split_kv(q, k, v, chunk=chunk, mask=mask)
    for block, order in (((len(q), chunk), "fa2"), ((1, 1), "fa1")):
        final = {}
        for step in attnviz.flash(q, k, v, block=block, order=order, mask=mask):
            final.update({i: (step.m[i], Counter(step.l[i])) for i in step.m})
        assert final == {i: (run.combined.m[i], Counter(run.combined.l[i])) for i in run.combined.m}


def strips(svg):
    """{strip heading: {row: [lines]}} and the outlined chunks' key ranges, as drawn."""
    root = ET.fromstring(svg)
    out = {}
    for g in root.iter(f"{SVG}g"):
        if "attnviz-strip" in (g.get("class") or "").split():
            rows = {int(r.get("data-q")): ["".join(t.itertext()) for t in r.iter(f"{SVG}text")]
                    for r in g.iter(f"{SVG}g") if "attnviz-state" in (r.get("class") or "").split()}
            heading = next(t for t in g.iter(f"{SVG}text") if "".join(t.itertext()).startswith(("chunk", "combined")))
            out["".join(heading.itertext())] = rows
            assert (g.get("data-k") is None) == ("attnviz-strip-combined" in g.get("class"))
    chunks = [el.get("data-keys") for el in root.iter(f"{SVG}rect")
              if "attnviz-tile" in (el.get("class") or "").split()]
    return out, chunks


def terms(text):
    counter = Counter()
    for count, exponent in re.findall(r"(\d*)e\^\(?([^()+]+)\)?", text):
        counter[Fraction(exponent)] += int(count or 1)
    return counter


def test_each_step_fills_its_strip_and_the_combine_step_names_the_rescales():
    q = k = [[1, 0], [0, 1], [1, 1], [2, 0]]
    steps = attnviz.walkthrough(attnviz.figure(q, k), split_kv=2)
    assert steps.headings == ("Chunk 1: keys 1-2", "Chunk 2: keys 3-4", "Combine the chunks",
                              "Split-KV equals the one-shot softmax")
    assert len({(s.layout().width, s.layout().height) for s in steps}) == 1  # steps stay put
    first, chunks = strips(steps[0].svg())
    assert chunks == ["3-4", "1-2"]  # every chunk outlined, this step's last (drawn on top)
    assert list(first) == ["chunk 1", "chunk 2", "combined"]
    assert first["chunk 2"] == {} and first["combined"] == {}
    assert first["chunk 1"][4] == ["m = 2", "ℓ = e^0+e^(-2)"]  # row 4's own maximum in chunk 1: 2, not 4
    second, _ = strips(steps[1].svg())
    assert second["chunk 2"][4][0] == "m = 4" and terms(second["chunk 2"][4][1]) == Counter({-2: 1, 0: 1})
    assert second["chunk 2"][1] == ["m = −∞", "ℓ = 0"]
    combined, _ = strips(steps[2].svg())
    assert combined["combined"][4] == ["m = 4", "ℓ = e^(-2)·ℓ1+ℓ2"]  # e^(m_1 − m)·ℓ_1 + e^(m_2 − m)·ℓ_2
    assert "chunk 2 (keys 3–4): row 1 m = −∞, ℓ = 0, " in steps[2].description()  # what assistive technology reads
    assert "row 4 m = 4, ℓ = e^(-2)·ℓ1+ℓ2" in steps[2].description()
    text = " ".join(steps.document.sections[2].paragraphs)
    assert ("Row 4: m = max(2, 4) = 4; ℓ = e^(2-4)·(e^0+e^(-2)) + e^(4-4)·(e^(-2)+e^0) = "
            "e^(-2)+e^(-4)+e^(-2)+e^0") in text


@pytest.mark.parametrize("frame", ["slide", "slide-4:3", "column"])
@pytest.mark.parametrize(("q", "mask"), [([[1, 1]], "none"), ([[1, 0], [0, 1], [1, 1], [2, 0]], "causal")])
def test_every_frame_draws_the_strips_at_its_floor_and_steps_stay_put(frame, q, mask):
    k = [[1, 0], [0, 1], [1, 1], [2, 0]]
    fig = attnviz.figure(q, k, mask=mask, frame=frame, view="full" if frame == "slide" else "scores")
    steps = attnviz.walkthrough(fig, split_kv=2)
    layouts = [step.layout() for step in steps]
    assert len({(layout.width, layout.height) for layout in layouts}) == 1
    for layout in layouts:
        assert_clean(layout)
    drawn, _ = strips(steps[2].svg())
    assert list(drawn) == ["chunk 1", "chunk 2", "combined"] and all(len(rows) == len(q) for rows in drawn.values())


def test_command_writes_the_walkthrough_and_refuses_two_walks(tmp_path):
    vectors = "1,0; 0,1; 1,1; 2,0"
    result = run_cli("walkthrough", "--q", vectors, "--k", vectors, "--split-kv", "2", "-o", str(tmp_path / "w"))
    assert result.code == 0, result.stderr
    assert len(list((tmp_path / "w" / "steps").glob("*.svg"))) == 4
    both = run_cli("walkthrough", "--q", vectors, "--k", vectors, "--split-kv", "2", "--flash", "2,2")
    assert both.code == 2 and "choose one walkthrough" in both.stderr and both.stderr.count("\n") == 1
    many = run_cli("walkthrough", "--q", vectors, "--k", vectors, "--split-kv", "0")
    assert many.code == 2 and many.stderr.startswith("attnviz: error:")


def test_one_query_deck_is_made(tmp_path):
    out = tmp_path / "deck.pptx"
    result = run_cli("slides", "--q", "1,1", "--k", "1,0; 0,1; 1,1; 2,0", "--mask", "none", "--split-kv", "2",
                     "-o", str(out))
    assert result.code == 0, result.stderr
    assert out.stat().st_size > 0
