"""A FlashAttention step's drawing (its tiles over the grid, each row's m_i, ℓ_i and rescale beside it), read
back from the SVG and checked after every tile against an online softmax written here, exactly."""

import base64
import re
import xml.etree.ElementTree as ET
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attnviz
from attnviz.engine.tiled_softmax import FlashStep

SVG = "{http://www.w3.org/2000/svg}"
MASKS = {"causal": lambda i, j: j <= i, "none": lambda i, j: True, "window=2": lambda i, j: i - 2 < j <= i,
         "chunk=2": lambda i, j: (i - 1) // 2 == (j - 1) // 2 and j <= i}


def online_softmax(q, k, block, order, keep):
    """The tiled loop, independently: yields (tile, skipped, state) after every tile, where state is
    i -> (m_i, Counter of ℓ_i's exponents, rescale exponent or None), rows never seen left out."""
    n_q, n_k = len(q), len(k)
    s = [[sum(Fraction(a) * Fraction(b) for a, b in zip(qi, kj)) for kj in k] for qi in q]
    br, bc = block
    rows = [range(r, min(r + br, n_q + 1)) for r in range(1, n_q + 1, br)]
    cols = [range(c, min(c + bc, n_k + 1)) for c in range(1, n_k + 1, bc)]
    tiles = [(r, c) for r in rows for c in cols] if order == "fa2" else [(r, c) for c in cols for r in rows]
    m, ell = {}, {}
    for r, c in tiles:
        kept = [(i, j) for i in r for j in c if keep(i, j)]
        rescale = {}
        for i in r:
            new = [s[i - 1][j - 1] for j in c if keep(i, j)]
            if not new:
                continue
            m_new = max([m[i], *new]) if i in m else max(new)
            if i in m:  # every old term e^(x) becomes e^(x + m_old − m_new)
                rescale[i] = m[i] - m_new
                ell[i] = Counter({x + m[i] - m_new: n for x, n in ell[i].items()})
            else:
                ell[i] = Counter()
            ell[i].update(x - m_new for x in new)
            m[i] = m_new
        yield (r, c), not kept, {i: (m[i], Counter(ell[i]), rescale.get(i)) for i in m}


def _terms(text):
    """ℓ_i's text `e^(-1)+2e^0` as a Counter of exponents; `0` is no term."""
    if text == "0":
        return Counter()
    terms = Counter()
    for count, exponent in re.findall(r"(\d*)e\^\(?([^()+]+)\)?", text):
        terms[Fraction(exponent)] += int(count or 1)
    return terms


def drawn(svg):
    root = ET.fromstring(svg)
    tiles = [(el.get("data-rows"), el.get("data-keys"), el.get("class").split()) for el in root.iter(f"{SVG}rect")
             if "attnviz-tile" in (el.get("class") or "").split()]
    states = {}
    for g in root.iter(f"{SVG}g"):
        if "attnviz-state" in (g.get("class") or "").split():
            lines = ["".join(t.itertext()) for t in g.iter(f"{SVG}text")]
            states[int(g.get("data-q"))] = (g.get("data-m"), lines, g.get("data-rescale"))
    return tiles, states


@st.composite
def problems(draw):
    n = draw(st.integers(1, 6))
    d = draw(st.integers(1, 2))
    vectors = st.lists(st.lists(st.integers(-2, 3), min_size=d, max_size=d), min_size=n, max_size=n)
    return (draw(vectors), draw(vectors), (draw(st.integers(1, 4)), draw(st.integers(1, 4))),
            draw(st.sampled_from(["fa2", "fa1"])), draw(st.sampled_from(sorted(MASKS))))


@settings(max_examples=40, deadline=None)
@given(problems())
def test_every_step_draws_the_online_softmax_state_after_its_tile(problem):
    q, k, block, order, mask = problem
    keep = MASKS[mask]
    steps = attnviz.walkthrough(attnviz.figure(q, k, mask=mask), flash=block, flash_order=order)
    walk = list(online_softmax(q, k, block, order, keep))
    computed = [(tile, state) for tile, skipped, state in walk if not skipped]
    assert len(steps) == len(computed) + 1  # the last step: the final state, no tile current
    assert len({(step.layout().width, step.layout().height) for step in steps}) == 1  # slides do not jump
    for n, step in enumerate(steps):
        tiles, states = drawn(step.svg())
        assert [(f"{r[0]}-{r[-1]}", f"{c[0]}-{c[-1]}") for (r, c), _, _ in walk] == [t[:2] for t in tiles_in_order(
            tiles, walk)]
        for (r, c), skipped, _ in walk:
            classes = next(t[2] for t in tiles if t[:2] == (f"{r[0]}-{r[-1]}", f"{c[0]}-{c[-1]}"))
            assert ("attnviz-tile-skipped" in classes) == skipped
            current = n < len(computed) and computed[n][0] == (r, c)
            assert ("attnviz-tile-current" in classes) == current
        state = computed[n][1] if n < len(computed) else (computed[-1][1] if computed else {})
        assert sorted(states) == list(range(1, len(q) + 1))
        for i, (m_attr, lines, rescale_attr) in states.items():
            if i not in state:
                assert m_attr == "-inf" and lines == [f"m{i} = −∞", f"ℓ{i} = 0"]
                continue
            m, ell, rescale = state[i]
            assert Fraction(m_attr) == m
            assert lines[0].startswith(f"m{i} = {m_attr}")
            assert lines[1].startswith(f"ℓ{i} = ")
            assert _terms(lines[1].removeprefix(f"ℓ{i} = ")) == ell  # the normaliser, as a multiset of terms
            in_tile = n < len(computed) and i in computed[n][0][0]
            if in_tile and rescale is not None:
                assert Fraction(rescale_attr) == rescale
                factor = "1" if rescale == 0 else (f"e^{rescale}" if rescale > 0 and rescale.denominator == 1
                                                   else f"e^({attnviz_number(rescale)})")
                assert lines[0].endswith(f" = {factor}")
            else:
                assert rescale_attr is None


def tiles_in_order(tiles, walk):
    """The drawn tiles in the loop's order (the current one is drawn last, on top)."""
    by_place = {t[:2]: t for t in tiles}
    assert len(by_place) == len(tiles) == len(walk)
    return [by_place[(f"{r[0]}-{r[-1]}", f"{c[0]}-{c[-1]}")] for (r, c), _, _ in walk]


def attnviz_number(x):
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def test_the_seed_step_reads_as_the_paper_draws_it():
    steps = attnviz.walkthrough(attnviz.figure(), flash=(2, 2))
    tiles, states = drawn(steps[2].svg())
    assert ("3-3", "3-3", ["attnviz-tile", "attnviz-tile-current"]) in tiles
    assert ("1-2", "3-3", ["attnviz-tile", "attnviz-tile-skipped"]) in tiles
    assert states[3] == ("2", ["m3 = 2, rescale e^(1-2) = e^(-1)", "ℓ3 = e^(-1)+e^(-1)+e^0"], "-1")
    assert states[1] == ("1", ["m1 = 1", "ℓ1 = e^0"], None)
    first = drawn(steps[0].svg())[1]
    assert first[3] == ("-inf", ["m3 = −∞", "ℓ3 = 0"], None)


def test_grouped_softmax_names_the_normaliser_grouped():
    steps = attnviz.walkthrough(attnviz.figure(softmax="grouped"), flash=(2, 2))
    assert drawn(steps[2].svg())[1][3][1][1] == "ℓ3 = 2e^(-1)+e^0"


def test_flash_steps_repr_and_display_as_their_figures():
    steps = attnviz.flash([[1, 0], [0, 1], [1, 1]], [[1, 0], [0, 1], [1, 1]], block=(2, 2))
    assert all(isinstance(step, FlashStep) for step in steps)
    assert repr(steps[2]) == "<FlashStep 3: queries 3..3 × keys 3..3; m3 = 2, ℓ3 = e^(-1)+e^(-1)+e^0, rescale e^(-1)>"
    assert "Fraction" not in repr(steps)
    svg = base64.b64decode(steps[2]._repr_mimebundle_()["text/html"].split("base64,")[1].split('"')[0]).decode()
    assert svg.startswith("<svg") and svg.count("attnviz-tile-current") == 1
    assert steps[0].figure() is not steps[1].figure()
    assert steps[2].m[3] == 2  # the engine's fields are still there


def test_walkthrough_api_returns_drawable_steps():
    fig = attnviz.figure()
    for kwargs, count in (({}, 10), ({"flash": (2, 2)}, 4), ({"decode": 1}, 3)):
        steps = attnviz.walkthrough(fig, **kwargs)
        assert isinstance(steps, attnviz.Walkthrough) and len(steps) == count == len(steps.headings)
        assert all(step.svg().startswith("<svg") and step.display_svg().startswith("<svg") for step in steps)
        assert steps._repr_html_().count('<div class="attnviz-figure"><img ') == count
    heads = attnviz.figure(q_heads=[[[1, 0], [0, 1]]] * 2, k_heads=[[[1, 0], [0, 1]]])
    assert len(attnviz.walkthrough(heads)) == 2


@pytest.mark.parametrize("kwargs, message", [
    ({"flash": (2, 2), "decode": 1}, "choose one walkthrough"),
    ({"flash": (0, 2)}, "block sizes must be at least 1"),
    ({"decode": "2"}, "expected a prompt length"),
])
def test_walkthrough_api_refuses_bad_input_in_one_line(kwargs, message):
    with pytest.raises(attnviz.InputError, match=message):
        attnviz.walkthrough(attnviz.figure(), **kwargs)


def test_scores_view_walks_flash_and_decode_compactly():
    fig = attnviz.figure(view="scores")
    for kwargs in ({"flash": (2, 2)}, {"decode": 1}):
        steps = attnviz.walkthrough(fig, **kwargs)
        assert "attnviz-softmax-row" not in steps[0].svg()
    with pytest.raises(attnviz.InputError, match="steps through one full figure"):
        attnviz.walkthrough(fig)


def test_scaled_logits_name_the_state_with_surds():
    steps = attnviz.walkthrough(attnviz.figure([[1, 0], [1, 1]], [[1, 0], [0, 1]], scale="sqrt", mask="none"),
                                flash=(1, 1))
    _, states = drawn(steps[1].svg())  # row 1 after keys 1 and 2: logits √2/2 and 0
    assert states[1][0] == "√2/2"
    assert states[1][1] == ["m1 = √2/2, rescale e^(√2/2-√2/2) = 1", "ℓ1 = e^0+e^(-√2/2)"]


def test_flash_and_decode_walkthroughs_take_the_scores_view_on_the_command_line(tmp_path):
    from clirun import run_cli

    for flags in (["--flash", "2,2", "--flash-order", "fa1"], ["--decode", "2"]):
        out = tmp_path / flags[0].strip("-")
        result = run_cli("walkthrough", "--view", "scores", *flags, "-o", str(out))
        assert result.code == 0, result.stderr
        svgs = [p.read_text(encoding="utf-8") for p in sorted((out / "steps").iterdir())]
        assert svgs and not any("attnviz-softmax-row" in svg for svg in svgs)
        assert all(("<g class=\"attnviz-state" in svg) != ("<g class=\"attnviz-cache" in svg) for svg in svgs)
    result = run_cli("walkthrough", "--view", "mask", "--flash", "2,2", "-o", str(tmp_path / "mask"))
    assert result.code == 2 and result.stderr.count("\n") == 1 and "drop --view mask" in result.stderr
