"""Walkthrough steps against brute force: the flash step names its rescale factor when the running max moves;
no decode step attends to a key already evicted from the KV cache (with a checker shown to fail)."""

import dataclasses
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pagetext import computed
from test_flash import keeps, tile_order

import attnviz
import attnviz.publish.walkthrough.decode as decode_module
from attnviz.publish.walkthrough.decode import decode_steps, decode_walkthrough
from attnviz.publish.walkthrough.flash import flash_walkthrough


# --- flash: the rescale factor e^(m_old-m_new) -------------------------------------------------------------


def _num(x):
    return str(x)


def _grouped(x):
    return f"({x})" if x < 0 else str(x)


def _exp(x):
    return f"e^{x}" if x >= 0 else f"e^({x})"


def test_the_step_where_the_max_rises_names_the_factor_pinned():
    fig = attnviz.figure([[1], [2]], [[1], [3], [-1]], mask="none")
    document, _ = flash_walkthrough(fig, (1, 1))
    text = [s.paragraphs[0] for s in document.sections]
    assert ("Row 1: m_1 = max(1, 3) = 3; the maximum rises, so the old ℓ_1 is rescaled by e^(1-3) = e^(-2): "
            "ℓ_1 = e^(1-3)·(e^0) + e^(3-3) = e^(-2)+e^0.") in text[1]
    assert "the maximum stays, so the rescale factor is e^(3-3) = e^0 = 1" in text[2]
    assert "rises" not in text[2]
    assert "rescaled by e^(2-6) = e^(-4)" in text[4]
    assert r"\ell_{1} = e^{1-3}\left(e^{0}\right)" in document.sections[1].formula


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_every_flash_step_names_the_rescale_factor_when_the_max_moves(data):
    n_q, n_k, d = data.draw(st.integers(1, 5)), data.draw(st.integers(2, 6)), data.draw(st.integers(1, 2))
    q = [[data.draw(st.integers(-3, 3)) for _ in range(d)] for _ in range(n_q)]
    k = [[data.draw(st.integers(-3, 3)) for _ in range(d)] for _ in range(n_k)]
    block = (data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3)))
    order = data.draw(st.sampled_from(["fa2", "fa1"]))
    mask = data.draw(st.sampled_from(["none", "causal", "window=2"]))
    s = [[sum(a * b for a, b in zip(qi, kj)) for kj in k] for qi in q]
    document, _ = flash_walkthrough(attnviz.figure(q, k, mask=mask), block, order)
    visited = [(r, c) for r, c in tile_order(n_q, n_k, block, order)
               if any(keeps(mask, i, j) for i in r for j in c)]
    assert len(document.sections) == len(visited) + 1
    running = {}
    moved = 0
    for (rows, cols), section in zip(visited, document.sections):
        text = section.paragraphs[0]
        for i in rows:
            new = [s[i - 1][j - 1] for j in cols if keeps(mask, i, j)]
            if not new:
                continue
            if i not in running:
                running[i] = max(new)
                continue
            old, m = running[i], max(running[i], *new)
            running[i] = m
            if m != old:
                moved += 1
                assert (f"the maximum rises, so the old ℓ_{i} is rescaled by e^({_num(old)}-{_grouped(m)}) = "
                        f"{_exp(old - m)}") in text
                assert f"ℓ_{i} = e^({_num(old)}-{_grouped(m)})·(" in text
            else:
                assert f"ℓ_{i} is rescaled" not in text
                assert f"the maximum stays, so the rescale factor is e^({_num(m)}-{_grouped(m)}) = e^0 = 1" in text


# --- decode: no step attends to an evicted key -------------------------------------------------------------


def evicted_by(mask, t):
    """Keys a rolling KV cache has dropped once token t is appended, from the cache's own rule (not attnviz's):
    window=W keeps the last W keys; chunk=C drops every key before t's chunk; causal drops nothing."""
    name, _, arg = mask.partition("=")
    if name == "causal":
        return set()
    w = int(arg)
    if name == "window":
        return set(range(1, t - w + 1))
    if name == "chunk":
        return set(range(1, (t - 1) // w * w + 1))
    raise AssertionError(mask)


def check_no_evicted_key(mask, prompt, steps, document, figures):
    """Every decode step: the keys its row attends to (the step's own record, its sentence and the cells its
    figure marks computed) are cached, none already evicted; the prefill holds none either."""
    evicted = evicted_by(mask, prompt)
    assert figures and len(figures) == len(steps) + 1
    for step, section, figure in zip(steps, document.sections[1:], figures[1:]):
        t = step.t
        evicted |= evicted_by(mask, t)  # once evicted, a key never comes back
        cells, rows = computed(ET.fromstring(figure.svg()))
        assert rows == [t]
        drawn = {j for (i, j) in cells if i == t}
        assert not drawn & evicted, f"token {t}'s figure attends to evicted keys {sorted(drawn & evicted)}"
        assert not set(step.attended) & evicted, f"token {t} attends to evicted keys"
        assert set(step.attended) == drawn
        for j in sorted(evicted):
            assert f"S_{{{t},{j}}}" not in section.paragraphs[0], f"step {t}'s sentence scores evicted key {j}"
        assert t in drawn


CONFIGS = [("window=2", 8, 1), ("window=2", 8, 3), ("window=3", 9, 2), ("window=3", 9, 5), ("window=1", 5, 1),
           ("chunk=2", 8, 1), ("chunk=3", 9, 2), ("chunk=3", 10, 4), ("causal", 6, 2)]


def _fig(n, mask):
    q = [[(i * 7) % 5 - 2, (i * 3) % 4 - 1] for i in range(n)]
    k = [[(j * 5) % 7 - 3, (j * 2) % 3 - 1] for j in range(n)]
    return attnviz.figure(q, k, mask=mask)


@pytest.mark.parametrize("mask, n, prompt", CONFIGS)
def test_no_decode_step_attends_to_an_evicted_key(mask, n, prompt):
    fig = _fig(n, mask)
    _, steps = decode_steps(fig.attention, prompt)
    document, figures = decode_walkthrough(fig, prompt)
    check_no_evicted_key(mask, prompt, steps, document, figures)
    if mask != "causal":
        assert any(step.evicted for step in steps)  # the configuration really evicts


def test_the_checker_fails_on_a_step_that_attends_to_an_evicted_key(monkeypatch):
    mask, n, prompt = "window=2", 7, 2
    fig = _fig(n, mask)
    _, steps = decode_steps(fig.attention, prompt)
    document, figures = decode_walkthrough(fig, prompt)
    # A wrong step record: token 6 also attending K1, evicted long before.
    bad = list(steps)
    bad[3] = dataclasses.replace(bad[3], attended=(1, *bad[3].attended))
    with pytest.raises(AssertionError, match="token 6 attends to evicted keys"):
        check_no_evicted_key(mask, prompt, bad, document, figures)
    # A wrong walkthrough: each decode step's figure also marks key 1 computed (an evicted key).
    original = decode_module._highlight

    def with_key_1(rows, attention):
        return original(rows, attention) + tuple((i, 1) for i in rows)

    monkeypatch.setattr(decode_module, "_highlight", with_key_1)
    document, figures = decode_walkthrough(fig, prompt)
    with pytest.raises(AssertionError, match=r"token 3's figure attends to evicted keys \[1\]"):
        check_no_evicted_key(mask, prompt, steps, document, figures)
