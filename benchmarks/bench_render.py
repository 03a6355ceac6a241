"""attnviz against matplotlib+seaborn, side by side: time per figure in process, and the
whole-process time of one command that writes the seed figure.

Run with the venv's Python (`make bench`, or `.venv/bin/python benchmarks/bench_render.py`).
"""

import compileall
import gc
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import attnviz
import matplotlib
import numpy as np
import seaborn
import seaborn_figure  # this folder: the seaborn figure, also run as the seaborn script below

HERE = Path(__file__).resolve().parent
SEED = ((1, 0), (0, 1), (1, 1))
SIZES = (3, 16, 64)
RATIO_TARGET, RATIO_SIZES = 30, (3, 64)  # in process: seaborn ms / attnviz ms at these n
COMMAND_TARGET_MS = 120  # `attnviz render` of the default figure, as a whole process
MIN_RUNS, BUDGET_S, MAX_RUNS = 3, 2.0, 100  # per in-process measurement
COMMAND_RUNS = 10


def vectors(n, a, b, dim=4):
    """n deterministic vectors of small integers (-2..2)."""
    return [[(a * i + b * t) % 5 - 2 for t in range(dim)] for i in range(n)]


def inputs(n):
    """(q, k) for n tokens; n=3 is the seed figure's Q = K."""
    if n == 3:
        return SEED, SEED
    return vectors(n, 3, 1), vectors(n, 2, 3)


def seaborn_args(fig, n):
    """seaborn_figure.draw's arguments, with every text taken from the attnviz figure.

    Built outside the timed code: seaborn gets its strings for free, which favours it.
    """
    words = fig.words
    return (np.array(fig.attention.scores, dtype=float), np.array(fig.attention.kept),
            np.array([[cell.text for cell in row] for row in words.cells]),
            [(row.scores, row.weights) for row in words.softmax_rows],
            words.title, words.subtitle, [(n, n)])


def median_ms(fn):
    """Median wall time of fn() in ms, the number of runs (at least MIN_RUNS, about BUDGET_S in all)
    and the first run's result."""
    times, first, start = [], None, time.perf_counter()
    while len(times) < MIN_RUNS or (time.perf_counter() - start < BUDGET_S and len(times) < MAX_RUNS):
        gc.collect()  # every run starts from a clean heap, not the last run's garbage
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
        first = result if first is None else first
    return statistics.median(times) * 1000, len(times), first


def in_process():
    """One row per n: attnviz and seaborn ms/figure, and their SVG sizes."""
    # Warm up both (imports, font lookups, caches) so the first timed size pays no start-up.
    attnviz.figure(SEED, SEED).svg()
    seaborn_figure.draw(*seaborn_args(attnviz.figure(SEED, SEED), 3))
    rows = []
    for n in SIZES:
        q, k = inputs(n)
        fig = attnviz.figure(q, k, highlight=[(n, n)])
        args = seaborn_args(fig, n)
        a_ms, a_runs, a_svg = median_ms(lambda q=q, k=k, n=n: attnviz.figure(q, k, highlight=[(n, n)]).svg())
        s_ms, s_runs, s_svg = median_ms(lambda args=args: seaborn_figure.draw(*args))
        # Same figure: the last caption's text is in the seaborn SVG too.
        assert fig.words.softmax_rows[-1].scores.encode() in s_svg
        rows.append((n, a_ms, s_ms, len(a_svg.encode()), len(s_svg), a_runs, s_runs))
    return rows


def print_table(rows):
    print(f"{'n':>3} {'attnviz ms/fig':>15} {'seaborn ms/fig':>15} {'ratio s/a':>10} "
          f"{'attnviz SVG B':>14} {'seaborn SVG B':>14} {'runs a/s':>9}")
    for n, a_ms, s_ms, a_bytes, s_bytes, a_runs, s_runs in rows:
        print(f"{n:>3} {a_ms:>15.2f} {s_ms:>15.1f} {s_ms / a_ms:>9.1f}x "
              f"{a_bytes:>14,} {s_bytes:>14,} {f'{a_runs}/{s_runs}':>9}")


def attnviz_command(out):
    """The console script users run, if the venv has it; else `python -m attnviz`."""
    script = Path(sys.executable).parent / "attnviz"
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script), "render", "-o", out], f"{script} render -o FILE"
    return [sys.executable, "-m", "attnviz", "render", "-o", out], "python -m attnviz render -o FILE"


def command_ms(cmd):
    """Median wall time of a whole process in ms, after one untimed run (file cache, font cache)."""
    subprocess.run(cmd, check=True, capture_output=True)
    times = []
    for _ in range(COMMAND_RUNS):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000


def whole_process():
    # PYTHONDONTWRITEBYTECODE may be set, so imports would never cache attnviz's bytecode:
    # compile it once, as an installed package would be.
    compileall.compile_dir(Path(attnviz.__file__).parent, quiet=1)
    with tempfile.TemporaryDirectory() as tmp:
        a_cmd, a_name = attnviz_command(str(Path(tmp, "attnviz.svg")))
        s_cmd = [sys.executable, str(HERE / "seaborn_figure.py"), str(Path(tmp, "seaborn.svg"))]
        a_ms, s_ms = command_ms(a_cmd), command_ms(s_cmd)
    return a_ms, s_ms, a_name


def verdict(ok):
    return "PASS" if ok else "MISS"


def main():
    print(f"Python {platform.python_version()} ({sys.executable}); attnviz {attnviz.__version__}, "
          f"matplotlib {matplotlib.__version__}, seaborn {seaborn.__version__}; "
          f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}")
    print("Measured: wall time per figure, vectors -> SVG text in memory (attnviz: figure(q, k, highlight=[(n, n)])"
          ".svg(); seaborn: annotated causal heatmap + softmax captions + titles, savefig(BytesIO, 'svg'), Agg, "
          "svg.fonttype=none), median of runs after a warm-up; then whole processes writing the seed figure.")
    print()
    rows = in_process()
    print_table(rows)
    print()
    a_ms, s_ms, a_name = whole_process()
    print(f"Whole process, median of {COMMAND_RUNS} (after 1 warm-up):")
    print(f"  attnviz  {a_ms:7.1f} ms   {a_name}")
    print(f"  seaborn  {s_ms:7.1f} ms   python benchmarks/seaborn_figure.py FILE")
    print(f"  ratio    {s_ms / a_ms:7.1f}x  (seaborn/attnviz)")
    print()
    print("Targets:")
    ratios = {n: s / a for n, a, s, *_ in rows}
    for n in RATIO_SIZES:
        print(f"  in process >= {RATIO_TARGET}x faster than seaborn at n={n}: {ratios[n]:.2f}x  "
              f"{verdict(ratios[n] >= RATIO_TARGET)}")
    print(f"  attnviz render (default figure) < {COMMAND_TARGET_MS} ms whole process: {a_ms:.1f} ms  "
          f"{verdict(a_ms < COMMAND_TARGET_MS)}")


if __name__ == "__main__":
    main()
