"""The mask view and elision, side by side with what a user would draw instead, in one run.

1. The mask map, in process, at n = 64, 512 and 1,024: attnviz `figure(view="mask", n=n,
   mask=...).svg()` against seaborn's `heatmap` of the same boolean mask (the engine's `kept`,
   computed outside the timed code) saved as SVG, with axis titles and a title; both SVG sizes.
   Causal and a sliding window of n/4 (causal alone at 1,024, where seaborn takes about a minute a
   figure): attnviz's cost follows the runs it draws (one a row here), not the n² cells; seaborn
   draws every cell.
2. An elided 1,024-token full figure (d = 4, normalizer captions): time and SVG size.

Targets (issue 10): at n = 512 at least 20x faster than seaborn and under 100 ms; a causal
1,024-token map under 150 KB; the elided 1,024-token figure under 1 s and 300 KB.

Run with the venv's Python (`make bench`, or `.venv/bin/python benchmarks/bench_views.py`).
"""

import gc
import io
import os
import statistics
import time

import attnviz
import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import seaborn  # noqa: E402

from attnviz.engine.masks import resolve  # noqa: E402

SIZES = (64, 512, 1024)
MIN_RUNS, BUDGET_S = 3, 2.0


def median_ms(fn, min_runs=MIN_RUNS):
    """Median wall time of fn() in ms over at least `min_runs` runs (and about BUDGET_S in all), and its result."""
    times, start, result = [], time.perf_counter(), None
    while len(times) < min_runs or time.perf_counter() - start < BUDGET_S:
        gc.collect()
        t = time.perf_counter()
        result = fn()
        times.append((time.perf_counter() - t) * 1000)
        if len(times) >= 50:
            break
    return statistics.median(times), result


def seaborn_map(kept, title):
    """The seaborn version of a mask map: a heatmap of kept (1) and masked (0), axis titles, a title."""
    plt.rcParams["svg.fonttype"] = "none"  # text as <text>, as attnviz writes it
    fig, ax = plt.subplots(figsize=(8, 8))
    seaborn.heatmap(kept, cmap="Greys", cbar=False, square=True, ax=ax, xticklabels="auto", yticklabels="auto")
    ax.set_xlabel("key j")
    ax.set_ylabel("query i")
    ax.set_title(title)
    out = io.StringIO()
    fig.savefig(out, format="svg")
    plt.close(fig)
    return out.getvalue()


def main():
    print(f"attnviz {attnviz.__version__}, seaborn {seaborn.__version__}, matplotlib {matplotlib.__version__}, "
          f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
    attnviz.figure(view="mask", n=8).svg()  # warm-up: imports, font tables
    seaborn_map(np.ones((4, 4)), "warm-up")
    print("\n1. Mask map, in process (median ms per figure, SVG text in memory)")
    print(f"{'n':>6} {'mask':>12} {'attnviz ms':>11} {'seaborn ms':>11} {'ratio':>7} {'attnviz KB':>11} "
          f"{'seaborn KB':>11} {'rects':>6}")
    results = {}
    for n in SIZES:
        for mask in ("causal", f"window={n // 4}") if n < 1024 else ("causal",):
            kept = np.array([[resolve(mask, n, n).keep(i, j) for j in range(n)] for i in range(n)], dtype=float)
            ours, svg = median_ms(lambda n=n, mask=mask: attnviz.figure(view="mask", n=n, mask=mask).svg())
            # seaborn takes ~1 min a figure at 1,024 tokens: one run there, three below
            theirs, their_svg = median_ms(lambda kept=kept, mask=mask: seaborn_map(kept, f"{mask} mask"),
                                          min_runs=1 if n > 512 else MIN_RUNS)
            rects = svg.count('<rect class="attnviz-kept" data-k')
            results[n, mask.split("=")[0]] = (ours, theirs, len(svg.encode()))
            print(f"{n:>6} {mask:>12} {ours:>11.1f} {theirs:>11.1f} {theirs / ours:>6.0f}x "
                  f"{len(svg.encode()) / 1000:>11.1f} {len(their_svg.encode()) / 1000:>11.1f} {rects:>6}")

    print("\n2. Elided full figure, 1,024 tokens, d = 4, normalizer captions")
    q = [[(3 * i + t) % 5 - 2 for t in range(4)] for i in range(1024)]
    k = [[(2 * i + 3 * t) % 5 - 2 for t in range(4)] for i in range(1024)]
    elided_ms, svg = median_ms(lambda: attnviz.figure(q, k, elide=True, softmax="normalizer",
                                                      highlight=["700,3"]).svg())
    print(f"   {elided_ms:.0f} ms, {len(svg.encode()) / 1000:.1f} KB")

    ours, theirs, _ = results[512, "causal"]
    checks = [
        ("n = 512 map at least 20x faster than seaborn", theirs / ours >= 20, f"{theirs / ours:.0f}x"),
        ("n = 512 map under 100 ms", ours < 100, f"{ours:.1f} ms"),
        ("causal 1,024-token map under 150 KB", results[1024, "causal"][2] < 150_000,
         f"{results[1024, 'causal'][2] / 1000:.1f} KB"),
        ("elided 1,024-token figure under 1 s", elided_ms < 1000, f"{elided_ms:.0f} ms"),
        ("elided 1,024-token figure under 300 KB", len(svg.encode()) < 300_000, f"{len(svg.encode()) / 1000:.1f} KB"),
    ]
    print("\nTargets")
    for name, ok, value in checks:
        print(f"   {'PASS' if ok else 'MISS'}  {name}: {value}")


if __name__ == "__main__":
    main()
