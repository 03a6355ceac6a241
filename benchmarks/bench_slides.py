"""A 10-step deck (the seed's walkthrough) in every `attnviz slides` format: median time to write it.

Run with the venv's Python (`make bench`, or `.venv/bin/python benchmarks/bench_slides.py`).
In process, from the vectors to the deck's files in memory (`slides.deck_files`); LaTeX
compiling is not included (the Beamer and TikZ rows are the .tex files). Target: under 2 s each.
"""

import statistics
import tempfile
import time

import attnviz
from attnviz.publish.deck import model as decks
from attnviz.publish.deck.formats import FORMATS, DEFAULT_PATHS, deck_files

TARGET_S = 2.0
RUNS = 5


def seconds(format):
    times = []
    with tempfile.TemporaryDirectory() as folder:
        path = f"{folder}/{DEFAULT_PATHS[format].removeprefix('out/')}"
        for _ in range(RUNS):
            start = time.perf_counter()
            deck = decks.from_walkthrough(attnviz.figure())
            files = deck_files(deck, format, path)
            times.append(time.perf_counter() - start)
    assert len(deck.slides) == 10
    size = sum(len(data) for data in files.values())
    return statistics.median(times), size


def main():
    deck_files(decks.from_walkthrough(attnviz.figure()), "pdf", "warm-up.pdf")  # imports, fonts
    print(f"{'format':14} {'median':>8} {'size':>9}  (10 steps, {RUNS} runs, LaTeX not compiled)")
    for format in FORMATS:
        median, size = seconds(format)
        verdict = "PASS" if median < TARGET_S else "MISS"
        print(f"{format:14} {median * 1000:6.0f} ms {size / 1024:7.0f} KB  {verdict} (< {TARGET_S:g} s)")


if __name__ == "__main__":
    main()
