"""The animated SVG deck: --step-seconds sets each step's time (checked in Chromium), --embed-font travels
with every nested figure, and a bad time is one line."""

import re

import pytest
from clirun import run_cli

import attnviz
from attnviz.publish.deck import model as decks
from attnviz.publish.deck.formats import animated_svg


def visible_figures(page):
    return page.evaluate("() => [...document.querySelectorAll('svg.attnviz')]"
                         ".filter(svg => getComputedStyle(svg.parentElement).visibility === 'visible')"
                         ".map(svg => svg.id)")


def test_step_seconds_times_every_step_in_chromium(tmp_path, browser):
    out = tmp_path / "deck.svg"
    result = run_cli("slides", "--step-seconds", "1.5", "-o", str(out))
    assert result.code == 0, result.stderr
    svg = out.read_text(encoding="utf-8")
    deck = decks.from_walkthrough(attnviz.figure())  # the intro and 10 steps
    slots = [slide for slide in deck.slides if slide.kind != "continued"]  # a step's continuation: its one slot
    cycle = f"{len(slots) * 1.5:g}s"
    assert f"animation: attnviz-steps {cycle} step-end infinite" in svg and "animation-delay: 1.5s" in svg
    page = browser.new_page()
    page.goto(out.as_uri())
    page.evaluate("() => document.getAnimations().forEach(a => a.pause())")
    for n in (0, 1, 3, 9):  # 0.75 s into each step's 1.5 s: that step alone
        page.evaluate(f"() => document.getAnimations().forEach(a => a.currentTime = {n * 1500 + 750})")
        if n == 0:  # the intro's own slot: the deck's title card, not step 1 held twice as long
            assert visible_figures(page) == [] and page.evaluate(
                "() => [...document.querySelectorAll('.attnviz-step-1 text')].map(t => t.textContent).join(' ')"
            ).startswith(deck.title)
        else:
            assert visible_figures(page) == [slots[n].figure.id_prefix]
    page.close()


@pytest.mark.parametrize("seconds", ["0", "-1", "abc", "601", "inf"])
def test_a_bad_step_time_is_one_line(tmp_path, seconds):
    result = run_cli("slides", "--step-seconds", seconds, "-o", str(tmp_path / "deck.svg"))
    assert result.code == 2 and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "--step-seconds" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "deck.svg").exists()


def test_embed_font_travels_with_every_step():
    deck = decks.from_walkthrough(attnviz.figure(embed_font=True))
    svg = animated_svg(deck)
    for slide in deck.slides[1:]:  # (the intro's slot is the title card)
        prefix = slide.figure.id_prefix
        assert re.search(rf'@font-face {{ font-family: "{prefix}-sans"; .*?src: url\(data:font/woff;base64,', svg)
    assert "@font-face" not in animated_svg(decks.from_walkthrough(attnviz.figure()))
