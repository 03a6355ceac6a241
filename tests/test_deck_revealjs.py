"""reveal.js decks stepped through in Chromium at 1,280×720: nothing fades at a step, nothing runs off
the slide, the background follows the theme and --embed-font carries the slides' fonts."""

import re

import pytest
from test_deck_pptx import DECKS, make_deck

from attnviz.publish.deck.formats import write_deck
from attnviz.publish.deck.highlights import from_highlights

# The effective opacity and visibility of every drawn text of the current slide (the notes aside)
TEXTS_JS = """
() => [...Reveal.getCurrentSlide().querySelectorAll('h1, h2, p, math, svg text')]
  .filter(el => !el.closest('aside'))
  .map(el => {
    let opacity = 1;
    for (let e = el; e && e !== document.body; e = e.parentElement) opacity *= parseFloat(getComputedStyle(e).opacity);
    return {text: el.textContent.slice(0, 40), opacity, visible: getComputedStyle(el).visibility === 'visible',
            size: el.closest('svg') ? 99 : Math.min(...[el, ...el.querySelectorAll('*')]
              .filter(e => e.childNodes.length && [...e.childNodes].some(c => c.nodeType === 3 && c.data.trim()))
              .map(e => parseFloat(getComputedStyle(e).fontSize)), 99)};
  })
"""
# Every element of the current slide whose box leaves the 1,280×720 slide, and text boxes that overflow
OVERFLOW_JS = """
() => {
  const out = [];
  for (const el of Reveal.getCurrentSlide().querySelectorAll('*')) {
    if (el.closest('aside') || el.closest('svg') && el.tagName !== 'svg') continue;
    const r = el.getBoundingClientRect();
    if (r.width && (r.left < -0.5 || r.top < -0.5 || r.right > 1280.5 || r.bottom > 720.5))
      out.push([el.tagName, el.textContent.slice(0, 40), r.left, r.top, r.right, r.bottom]);
    const box = el.classList.contains('attnviz-box');
    if (box && (el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1))
      out.push([el.tagName, 'overflows its box', el.scrollWidth, el.clientWidth, el.scrollHeight, el.clientHeight]);
  }
  for (const math of Reveal.getCurrentSlide().querySelectorAll('.attnviz-text math')) {
    const box = math.closest('.attnviz-text').getBoundingClientRect(), r = math.getBoundingClientRect();
    if (r.right > box.right + 0.5) out.push(['math', 'wider than the text box', r.right, box.right]);
  }
  for (const math of Reveal.getCurrentSlide().querySelectorAll('.attnviz-box math')) {  // MathML clipped by its box
    if (math.closest('aside')) continue;
    const box = math.closest('.attnviz-box').getBoundingClientRect(), r = math.getBoundingClientRect();
    if (r.bottom > box.bottom + 0.5 || r.top < box.top - 0.5)
      out.push(['math', 'clipped by its box', r.top, r.bottom, box.top, box.bottom]);
  }
  return out;
}
"""


def open_deck(browser, folder, **options):
    context = browser.new_context(viewport={"width": 1280, "height": 720}, **options)
    page = context.new_page()
    failed = []
    page.on("requestfailed", lambda request: failed.append(request.url))
    page.goto((folder / "index.html").as_uri())
    page.wait_for_function("() => window.Reveal && Reveal.isReady()")
    return context, page, failed


@pytest.mark.parametrize("name", DECKS)
def test_every_step_shows_at_once_and_stays_on_the_slide(browser, tmp_path, name):
    deck = make_deck(name)
    write_deck(deck, "revealjs", tmp_path / "deck")
    context, page, failed = open_deck(browser, tmp_path / "deck")
    for n, slide in enumerate(deck.slides):
        page.evaluate(f"() => Reveal.slide({n})" if n == 0 else "() => Reveal.next()")
        page.wait_for_timeout(80)  # 80 ms into the step: what a presenter sees as they click
        assert page.evaluate("() => Reveal.getIndices().h") == n
        texts = page.evaluate(TEXTS_JS)
        assert texts and all(t["opacity"] == 1 and t["visible"] for t in texts), [t for t in texts if t["opacity"] < 1]
        assert min(t["size"] for t in texts) >= 18.66, [t for t in texts if t["size"] < 18.66]  # 14 pt at 1,280 px
        page.wait_for_timeout(450)  # and once auto-animate is over
        assert page.evaluate(OVERFLOW_JS) == [], (n, slide.heading)
        heading = page.evaluate("() => Reveal.getCurrentSlide().querySelector('h2').textContent")
        assert heading == slide.heading or heading.endswith("…")
    assert failed == []
    context.close()


def luminance(css_colour):
    r, g, b = map(int, re.findall(r"\d+", css_colour)[:3])
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255


@pytest.mark.parametrize("theme, scheme, dark", [("light", "light", False), ("dark", "light", True),
                                                 ("auto", "dark", True), ("auto", "light", False)])
def test_the_slide_background_follows_the_theme(browser, tmp_path, theme, scheme, dark):
    write_deck(make_deck("seed", theme), "revealjs", tmp_path / "deck")
    context, page, _ = open_deck(browser, tmp_path / "deck", color_scheme=scheme)
    page.evaluate("() => Reveal.slide(3)")
    background = page.evaluate("() => getComputedStyle(document.querySelector('.reveal-viewport')).backgroundColor")
    heading = page.evaluate("() => getComputedStyle(Reveal.getCurrentSlide().querySelector('h2')).color")
    assert (luminance(background) < 0.2) == dark and (luminance(heading) > 0.8) == dark
    context.close()


def test_embed_font_carries_the_slides_and_the_figures_fonts(browser, tmp_path):
    import attnviz
    from attnviz.publish.deck import model as decks

    write_deck(decks.from_walkthrough(attnviz.figure(frame="slide", embed_font=True)), "revealjs", tmp_path / "deck")
    html = (tmp_path / "deck" / "index.html").read_text(encoding="utf-8")
    assert html.count('font-family: "attnviz-deck"') == 3 and "url(data:font/woff;base64," in html
    assert html.count("@font-face") > 3  # the figures' own, each in its <svg>'s style
    context, page, failed = open_deck(browser, tmp_path / "deck")
    page.evaluate("() => Reveal.slide(1)")
    page.evaluate("() => document.fonts.ready")
    assert page.evaluate("() => document.fonts.check('24px attnviz-deck')")
    assert page.evaluate("() => getComputedStyle(Reveal.getCurrentSlide().querySelector('p')).fontFamily")\
        .startswith("attnviz-deck")
    assert failed == []
    context.close()


def test_a_one_cell_highlight_at_512_tokens_is_ringed_on_the_slide(browser, tmp_path):
    import attnviz

    deck = from_highlights(attnviz.figure(view="mask", n=512, highlight=[(300, 200)], frame="slide"))
    write_deck(deck, "revealjs", tmp_path / "deck")
    context, page, _ = open_deck(browser, tmp_path / "deck")
    page.evaluate("() => Reveal.slide(0)")
    cell, ring = page.evaluate("""() => ['g.attnviz-computed > rect.attnviz-computed',
                                        'g.attnviz-highlight-ring'].map(s => {
        const r = Reveal.getCurrentSlide().querySelector(s).getBoundingClientRect(); return [r.width, r.height]; })""")
    assert max(cell) < 2 and min(ring) >= 16  # a cell under 2 px; its ring 16 px or more on the 1,280-px slide
    context.close()
