"""A decode step's KV cache strip and its evicted and future keys, read back from the SVG and checked against
a ring buffer simulated here (Mistral's rolling buffer: token k written to slot (k−1) mod W)."""

import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attnviz
from attnviz.engine.decode import cache_slots, decode_steps

SVG = "{http://www.w3.org/2000/svg}"


def simulate(n, prompt, mask):
    """(slots per step or None for a growing cache, [(t, {slot: key}), ...]) by writing each token into a buffer:
    a window of W overwrites slot (k−1) mod W; a chunk of C empties the buffer when a chunk starts; causal grows."""
    family, _, value = mask.partition("=")
    size = int(value) if value else None
    buffer, out = {}, []
    for k in range(1, n + 1):
        if family == "chunk" and (k - 1) % size == 0:
            buffer = {}  # a new chunk: the previous chunk's keys are no longer reached
        slot = (k - 1) % size if size else k - 1
        buffer[slot] = k
        if k >= prompt:
            out.append((k, dict(buffer)))
    return (size if size and n > size else None), out  # a buffer never full evicts nothing: it grows


def drawn(svg):
    root = ET.fromstring(svg)
    caches = [g for g in root.iter(f"{SVG}g") if "attnviz-cache" in (g.get("class") or "").split()]
    assert len(caches) == 1
    slots = {}
    for rect in caches[0].iter(f"{SVG}rect"):
        assert "attnviz-slot" in rect.get("class").split()
        slots[int(rect.get("data-slot"))] = int(rect.get("data-k")) if rect.get("data-k") else None
    marks = {"evicted": set(), "future": set()}
    for rect in root.iter(f"{SVG}rect"):
        cls = rect.get("class")
        if cls in ("attnviz-evicted", "attnviz-future"):
            marks[cls.removeprefix("attnviz-")].add(int(rect.get("data-k")))
    legend = {g.get("data-legend") for g in root.iter(f"{SVG}g") if g.get("data-legend")}
    return int(caches[0].get("data-t")), slots, marks, legend


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 9), st.data())
def test_every_decode_step_draws_the_simulated_ring_buffer(n, data):
    prompt = data.draw(st.integers(1, n - 1))
    mask = data.draw(st.sampled_from(["causal", "window=2", "window=3", "window=4", "chunk=2", "chunk=3"]))
    q = [[1, j % 2] for j in range(n)]
    steps = attnviz.walkthrough(attnviz.figure(q, q, mask=mask), decode=prompt)
    size, expected = simulate(n, prompt, mask)
    assert len(steps) == len(expected)
    assert len({(step.layout().width, step.layout().height) for step in steps}) == 1  # slides do not jump
    for step, (t, held) in zip(steps, expected):
        drawn_t, slots, marks, legend = drawn(step.svg())
        assert drawn_t == t
        if size is None:  # a growing strip: key k in slot k−1
            assert slots == {k - 1: k for k in range(1, t + 1)}
        else:
            assert slots == {s: held.get(s) for s in range(size)}
        assert {k for k in slots.values() if k} == set(held.values())
        assert marks["evicted"] == set(range(1, t + 1)) - set(held.values())
        assert marks["future"] == set(range(t + 1, n + 1))
        assert legend >= {"evicted", "future"}


def test_mistral_rolling_buffer_after_token_5_of_a_window_of_3():
    q = [[1, 0], [0, 1], [1, 1], [1, 0], [0, 1], [1, 1]]
    steps = attnviz.walkthrough(attnviz.figure(q, q, mask="window=3"), decode=2)
    t, slots, marks, _ = drawn(steps[3].svg())
    assert (t, slots, marks) == (5, {0: 4, 1: 5, 2: 3}, {"evicted": {1, 2}, "future": {6}})
    assert 'class="attnviz-slot attnviz-slot-new" data-slot="1" data-k="5"' in steps[3].svg()


def test_cache_slots_against_the_engine_steps():
    fig = attnviz.figure([[1]] * 7, [[1]] * 7, mask="window=3")
    prefill, steps = decode_steps(fig.attention, 3)
    size, states = cache_slots(fig.attention, 3)
    assert sorted(states[0][1].values()) == list(prefill)
    assert size == 3
    assert [t for t, _ in states] == [3, 4, 5, 6, 7]
    for (_, held), step in zip(states[1:], steps):
        assert sorted(held.values()) == list(step.after)
        assert all(s == (k - 1) % 3 for s, k in held.items())


@pytest.mark.parametrize("theme", ["light", "dark", "print", "contrast"])
def test_the_strip_paints_in_every_theme_and_backend(theme):
    q = [[1, 0], [0, 1], [1, 1], [1, 0]]
    fig = attnviz.figure(q, q, mask="window=2", theme=theme)
    step = attnviz.walkthrough(fig, decode=2)[1]
    assert step.png(scale=1)[:8] == b"\x89PNG\r\n\x1a\n"
    from attnviz.render.tikz import tikz_items

    assert any("K3" in line for line in tikz_items(step.layout()))


def test_a_slots_token_label_is_the_users_text_in_every_backend():
    tokens = [r"\input{/etc/hostname}", "a_{b}", "<&>", "x"]
    q = [[1, 0], [0, 1], [1, 1], [1, 0]]
    step = attnviz.walkthrough(attnviz.figure(q, q, tokens=tokens, mask="window=2"), decode=2)[2]
    svg = step.svg()
    _, slots, _, _ = drawn(svg)
    assert slots == {0: 3, 1: 4}
    assert "&lt;&amp;&gt;" in svg and "<&>" not in svg
    from attnviz.render.tikz import tikz_items

    tikz = "\n".join(tikz_items(step.layout()))
    assert r"\input{/etc/hostname}" not in tikz and "textbackslash" in tikz
