"""Every `attnviz slides` format for the 10-step seed deck and a 91-step deck (12 tokens, causal),
side by side, with the ratio: a deck's cost must grow with its steps (at most 15x for 9.1x the steps).

Run with the venv's Python (`make bench`, or `.venv/bin/python benchmarks/bench_slides.py`).
In process, from the vectors to the deck's files in memory (`deck_files`); the Beamer row also
compiles the file with pdflatex (one run), since that is where a deck's time used to go.
"""

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import attnviz
from attnviz.publish.deck import model as decks
from attnviz.publish.deck.formats import DEFAULT_PATHS, FORMATS, deck_files

TWELVE = [[1, 0], [0, 1], [1, 1], [2, 1], [1, 2], [0, 2], [2, 0], [1, -1], [-1, 1], [3, 1], [1, 3], [2, 2]]
MAX_RATIO = 15


def seconds(format, fig, folder):
    """CPU seconds (this process and pdflatex's) to write the deck of `fig` in `format`."""
    path = f"{folder}/{DEFAULT_PATHS[format].removeprefix('out/')}"
    start = time.process_time()
    deck = decks.from_walkthrough(fig)
    files = deck_files(deck, format, path)
    spent = time.process_time() - start
    if format == "beamer" and shutil.which("pdflatex"):
        tex = Path(path)
        tex.parent.mkdir(parents=True, exist_ok=True)
        tex.write_text(files[path], encoding="utf-8")
        before = _children()
        subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", tex.name], cwd=tex.parent,
                       stdout=subprocess.DEVNULL, check=True)
        spent += _children() - before
    return spent, len([s for s in deck.slides if s.kind == "step"])


def _children():
    import os

    times = os.times()
    return times.children_user + times.children_system


def main():
    small, big = attnviz.figure(), attnviz.figure(q=TWELVE, k=TWELVE)
    deck_files(decks.from_walkthrough(small), "pdf", "warm-up.pdf")  # imports, fonts
    print(f"{'format':14} {'10 steps':>10} {'91 steps':>10} {'ratio':>7}  (CPU seconds; beamer includes pdflatex)")
    worst = 0.0
    with tempfile.TemporaryDirectory() as folder:
        for format in FORMATS:
            (a, n_a), (b, n_b) = seconds(format, small, f"{folder}/a"), seconds(format, big, f"{folder}/b")
            ratio = b / a
            worst = max(worst, ratio)
            verdict = "PASS" if ratio <= MAX_RATIO else "MISS"
            print(f"{format:14} {a:9.2f}s {b:9.2f}s {ratio:6.1f}x  {verdict} ({n_a} and {n_b} steps)")
    return 0 if worst <= MAX_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
