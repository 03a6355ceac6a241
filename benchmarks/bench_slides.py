"""Every `attnviz slides` format for the 10-step seed deck and a 91-step deck (12 tokens, causal), side by
side, with the ratio: a deck's cost must grow with its steps (at most 15x for 9.1x the steps).

Run with the venv's Python (`make bench`, or `.venv/bin/python benchmarks/bench_slides.py`). Two columns
per deck: in process (from the vectors to the deck's files in memory, `deck_files`) and end to end (the
`attnviz slides` command, plus one pdflatex run for Beamer), both in CPU seconds, so other work on the
machine does not count. The verdict is the end-to-end ratio: what a presenter waits for.
"""

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import attnviz
from attnviz.publish.deck import model as decks
from attnviz.publish.deck.formats import DEFAULT_PATHS, FORMATS, deck_files

TWELVE = "1,0; 0,1; 1,1; 2,1; 1,2; 0,2; 2,0; 1,-1; -1,1; 3,1; 1,3; 2,2"
MAX_RATIO = 15


def _vectors(text):
    return [[int(x) for x in row.split(",")] for row in text.split(";")]


def in_process(format, fig, path):
    """CPU seconds to make the deck of `fig` and its files in memory."""
    start = time.process_time()
    deck_files(decks.from_walkthrough(fig), format, path)
    return time.process_time() - start


def _children():
    times = os.times()
    return times.children_user + times.children_system


def end_to_end(format, flags, path):
    """CPU seconds of `attnviz slides` writing the deck (and of pdflatex compiling a Beamer one)."""
    before = _children()
    subprocess.run([sys.executable, "-m", "attnviz", "slides", *flags, "-f", format, "-o", path], check=True,
                   stdout=subprocess.DEVNULL)
    if format == "beamer":
        tex = Path(path)
        subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", tex.name], cwd=tex.parent,
                       stdout=subprocess.DEVNULL, check=True)
    return _children() - before


def main():
    big = ["--walkthrough", "--q", TWELVE, "--k", TWELVE]
    figures = {"small": attnviz.figure(), "big": attnviz.figure(q=_vectors(TWELVE), k=_vectors(TWELVE))}
    deck_files(decks.from_walkthrough(figures["small"]), "pdf", "warm-up.pdf")  # imports, fonts
    print(f"{'format':14} {'10 steps':>17} {'91 steps':>17} {'ratio':>13}  (CPU s: in process / end to end)")
    worst = 0.0
    with tempfile.TemporaryDirectory() as folder:
        for format in FORMATS:
            row = []
            for name, flags in (("small", []), ("big", big)):
                path = f"{folder}/{name}-{DEFAULT_PATHS[format].removeprefix('out/')}"
                Path(path).parent.mkdir(parents=True, exist_ok=True)
                row.append((in_process(format, figures[name], path), end_to_end(format, flags, path)))
            (a, a_all), (b, b_all) = row
            ratio, ratio_all = b / a, b_all / a_all
            worst = max(worst, ratio_all)
            verdict = "PASS" if ratio_all <= MAX_RATIO else "MISS"
            print(f"{format:14} {a:7.2f} / {a_all:6.2f}  {b:7.2f} / {b_all:6.2f}  {ratio:5.1f}x / {ratio_all:4.1f}x  "
                  f"{verdict}")
    return 0 if worst <= MAX_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
