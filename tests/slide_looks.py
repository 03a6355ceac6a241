"""The seed's walkthrough deck in every slide format, opened in its real tool and saved as PNGs at
slide size (1,280 px wide) in out/looks/slides/, to look at (`make looks`).

Beamer: pdflatex, then poppler's pdftoppm; pptx: LibreOffice to PDF, then pdftoppm; reveal.js
and the animated SVG: screenshots in Chromium; PDF: pdftoppm.
"""

import subprocess
import sys
from pathlib import Path

import attnviz
from attnviz.publish.deck import model as decks
from attnviz.publish.deck.formats import write_deck

WIDTH = 1280
PAGES = (2, 8, 11)  # the first score step, the mask, the last softmax (the intro is 1)


def pages_to_png(pdf, stem, pages):
    for page in pages:
        subprocess.run(["pdftoppm", "-png", "-singlefile", "-scale-to-x", str(WIDTH), "-scale-to-y", "-1",
                        "-f", str(page), "-l", str(page), str(pdf), f"{stem}-{page:02d}"], check=True)


def main(out="out/looks/slides"):
    from playwright.sync_api import sync_playwright

    from browser import launch

    out = Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    deck = decks.from_walkthrough(attnviz.figure())
    for format, name in (("beamer", "beamer.tex"), ("pptx", "deck.pptx"), ("pdf", "pages.pdf"),
                         ("svg-animated", "deck.svg"), ("revealjs", "reveal")):
        write_deck(deck, format, out / name)
    subprocess.run(["pdflatex", "-no-shell-escape", "-interaction=nonstopmode", "-halt-on-error", "beamer.tex"],
                   cwd=out, check=True, stdout=subprocess.DEVNULL)
    pages_to_png(out / "beamer.pdf", out / "beamer", PAGES)
    pages_to_png(out / "pages.pdf", out / "pdf", PAGES)
    subprocess.run(["soffice", "--headless", "--convert-to", "pdf", "--outdir", str(out / "pptx"),
                    str(out / "deck.pptx")], check=True, stdout=subprocess.DEVNULL)
    pages_to_png(out / "pptx" / "deck.pdf", out / "pptx", PAGES)
    with sync_playwright() as playwright:
        browser = launch(playwright)
        page = browser.new_page(viewport={"width": WIDTH, "height": 720})
        page.goto((out / "reveal" / "index.html").as_uri())
        page.wait_for_function("() => window.Reveal && Reveal.isReady()")
        for n in PAGES:
            page.evaluate(f"() => Reveal.slide({n - 1})")
            page.wait_for_timeout(1000)  # auto-animate settles
            page.screenshot(path=str(out / f"revealjs-{n:02d}.png"))
        page = browser.new_page(viewport={"width": WIDTH, "height": 1300}, reduced_motion="reduce")
        page.goto((out / "deck.svg").as_uri())
        page.screenshot(path=str(out / "svg-animated-last.png"))
        browser.close()
    print(out)


if __name__ == "__main__":
    main(*sys.argv[1:])
