"""`walkthrough --decode P`: KV-cache decoding, every row against the full figure's, by brute force."""

import xml.etree.ElementTree as ET
from fractions import Fraction

import pytest
from clirun import run_cli
from conftest import SVG_NS
from hypothesis import given
from hypothesis import strategies as st
from pagetext import body_text, computed
from test_flash import assert_walkthrough_refused
from test_walkthrough import cell_states, softmax_states

import attnviz
from attnviz.publish.walkthrough.decode import decode_steps, decode_walkthrough

NUMBERS = st.one_of(st.integers(-3, 3), st.fractions(Fraction(-3), Fraction(3), max_denominator=4))
MASKS = {"causal": lambda i, j: j <= i, "window=2": lambda i, j: i - 2 < j <= i,
         "window=3": lambda i, j: i - 3 < j <= i, "chunk=2": lambda i, j: j <= i and (i - 1) // 2 == (j - 1) // 2,
         "chunk=3": lambda i, j: j <= i and (i - 1) // 3 == (j - 1) // 3}


@st.composite
def problems(draw):
    n, d = draw(st.integers(2, 8)), draw(st.integers(1, 3))
    q = [[draw(NUMBERS) for _ in range(d)] for _ in range(n)]
    k = [[draw(NUMBERS) for _ in range(d)] for _ in range(n)]
    return q, k, draw(st.integers(1, n - 1)), draw(st.sampled_from(sorted(MASKS)))


@given(problems())
def test_every_decode_row_equals_the_full_figures_row(problem):
    q, k, prompt, mask = problem
    n, keep = len(q), MASKS[mask]
    fig = attnviz.figure(q, k, mask=mask)
    prefill_cache, steps = decode_steps(fig.attention, prompt)
    assert prefill_cache == tuple(j for j in range(1, prompt + 1) if keep(prompt, j))
    assert [step.t for step in steps] == list(range(prompt + 1, n + 1))
    cache = prefill_cache
    for step in steps:
        t = step.t
        attended = tuple(j for j in range(1, n + 1) if keep(t, j))  # the full figure's row t, by the rule
        assert step.before == cache and step.after == step.attended == attended
        assert step.evicted == tuple(j for j in cache if j not in attended)
        assert set(attended) - set(cache) == {t}  # only the new key is new: the rest was cached
        brute = tuple(sum((Fraction(a) * Fraction(b) for a, b in zip(q[t - 1], k[j - 1])), Fraction(0))
                      for j in attended)
        assert step.scores == brute == fig.attention.kept_scores(t - 1)
        cache = step.after
    # The step's sentence and its figure's highlighted row are the full figure's row.
    document, figures = decode_walkthrough(fig, prompt)
    for step, section, figure in zip(steps, document.sections[1:], figures[1:]):
        words = fig.words.softmax_rows[step.t - 1].weights.removeprefix("weights ")
        assert words.split(", ")[0] in section.paragraphs[0]
        cells, rows = computed(ET.fromstring(figure.svg()))
        assert rows == [step.t]
        assert cells == {(step.t, j): fig.words.cells[step.t - 1][j - 1].text for j in step.attended}


def test_prefill_then_one_step_per_token(tmp_path):
    result = run_cli("walkthrough", "--q", "1,0;0,1;1,1;2,-1;1/2,1;1,2", "--k", "1,0;0,1;1,1;1,2;-1,1;0,1",
                     "--mask", "window=3", "--decode", "3", "-o", str(tmp_path))
    assert result.code == 0, result.stderr
    paths = sorted((tmp_path / "steps").iterdir())
    assert [p.name for p in paths] == ["01-prefill-the-prompt-s-3-tokens.svg", "02-decode-step-1-token-4.svg",
                                       "03-decode-step-2-token-5.svg", "04-decode-step-3-token-6.svg"]
    roots = [ET.fromstring(p.read_text(encoding="utf-8")) for p in paths]
    assert len({(r.get("width"), r.get("height")) for r in roots}) == 1  # slides do not jump
    prefill = cell_states(roots[0])
    assert all(prefill[(i, j)][0] == "pending" for i in (4, 5, 6) for j in range(1, 7))
    assert set(computed(roots[0])[0]) == {(i, j) for i in (1, 2, 3) for j in range(1, i + 1)}
    third = cell_states(roots[2])
    assert third[(5, 2)][0] == "masked" and third[(5, 3)] == ("score", "3/2")  # K2 evicted, K3 kept
    assert [row for row, (state, _) in sorted(softmax_states(roots[2]).items()) if state == "pending"] == [6]
    text = body_text((tmp_path / "index.html").read_text(encoding="utf-8"))
    assert ("Token 5's key K5 and value V5 are appended to the cache: before, it held K2–K4 (3 keys); after, "
            "K3–K5 (3 keys); appending evicts K2, which the sliding-window mask (i-3<j<=i) no longer reaches. "
            "Query 5 attends to keys 3–5: 2 cached + 1 new.") in text
    assert "This row equals row 5 of the full 6×6 sliding-window figure." in text
    assert "The cache holds K1–K3 and V1–V3 (3 keys)." in text
    subtitles = [root.find(f"{SVG_NS}desc").text for root in roots]  # the figure states its cache too
    assert subtitles == ["KV cache after the prompt: K1–K3 (3 keys).",
                         "KV cache after token 4: K2–K4 (3 keys); K1 evicted.",
                         "KV cache after token 5: K3–K5 (3 keys); K2 evicted.",
                         "KV cache after token 6: K4–K6 (3 keys); K3 evicted."]


def test_causal_counts_are_explicit(tmp_path):
    result = run_cli("walkthrough", "--q", "1;2;3;4;5;6", "--k", "1;1;1;1;1;1", "--decode", "5", "-o", str(tmp_path))
    assert result.code == 0, result.stderr
    text = body_text((tmp_path / "index.html").read_text(encoding="utf-8"))
    assert "before, it held K1–K5 (5 keys); after, K1–K6 (6 keys). Query 6 attends to keys 1–6: 5 cached + 1 new." \
        in text
    assert "Row 6's unmasked scores are all equal, [6,6,6,6,6,6], so each weight is exactly 1/6." in text


def test_chunk_boundary_empties_the_cache(tmp_path):
    result = run_cli("walkthrough", "--q", "1;2;3;4", "--k", "1;1;2;1", "--mask", "chunk=2", "--decode", "2",
                     "-o", str(tmp_path))
    assert result.code == 0, result.stderr
    text = body_text((tmp_path / "index.html").read_text(encoding="utf-8"))
    assert "after, K3 (1 key); appending evicts K1–K2" in text and "Query 3 attends to key 3: 0 cached + 1 new" in text


@pytest.mark.parametrize("args, message", [
    (["--decode", "3"], "attnviz: error: --decode: a prompt of 3 leaves no token to generate"),
    (["--decode", "0"], "attnviz: error: --decode: expected a whole number of prompt tokens, at least 1, got 0"),
    (["--decode", "x"], "attnviz: error: --decode: expected a whole number of prompt tokens"),
    (["--decode", "1", "--mask", "none"], "attnviz: error: --decode: under the bidirectional mask (every cell) "
                                          "query 1 attends to key 3, which is not generated yet when token 1 is "
                                          "decoded: decode with causal, window=W or chunk=C"),
    (["--decode", "2", "--mask", "padding=3"], "attnviz: error: --decode: under the causal + padding mask (j<=i and "
                                               "j not in {3}) query 3 attends to keys K1–K2, not to itself and its "
                                               "cache (K1–K2)"),
    (["--decode", "1", "--q", "1;2", "--k", "1;1;1"], "attnviz: error: --decode: decoding reads one token per query"),
])
def test_bad_decode_input_is_one_line(args, message, tmp_path):
    assert_walkthrough_refused(args, message, tmp_path)


def test_a_64_token_decode_generates_at_most_13_tokens():
    """The README's capacity: 14 steps (the prefill and 13 tokens) of 64×64 cells fit in 60,000; 15 do not."""
    vectors = [[i % 5 + 1] for i in range(64)]
    fig = attnviz.figure(vectors, vectors, mask="causal")
    document, figures = decode_walkthrough(fig, 51)
    assert len(document.sections) == len(figures) == 14
    assert [f.highlight.softmax_rows for f in figures[1:]] == [frozenset({t}) for t in range(52, 65)]
    with pytest.raises(attnviz.InputError) as refused:
        decode_walkthrough(fig, 50)
    assert str(refused.value) == ("decode: 15 steps of 4,096 cells each (the prefill and 14 decoded tokens) would "
                                  "draw 61,440 cells; the limit is 60,000: use fewer tokens")
