"""Softmax forms (issue 34): what a sink, the quiet softmax, sigmoid attention, soft-capping and differential
attention cost, side by side with the same figure drawn with the plain softmax, in one run.

In process, n = 3 (the seed) and 16 tokens (d = 4), normalizer captions: the median CPU time from vectors to SVG
text, `figure(q, k, softmax="normalizer", **form).svg()`, against the same call without the form; differential
attention (two heads and their difference) against the same three panels drawn plainly (the two heads' figures and
a score grid, composed); its ratio to the two heads alone is printed too. Target: every form within 1.3x of its
plain figure.

Run with the venv's Python (`make bench`, or `.venv/bin/python benchmarks/bench_forms.py`).
"""

import gc
import statistics
import time

import attnviz

SIZES = (3, 16)
MIN_RUNS, BUDGET_S = 7, 1.5
TARGET = 1.3
FORMS = {"sink s": {"sink": "s"}, "sink -1/2": {"sink": "-1/2"}, "quiet": {"sink": 0},
         "sigmoid -ln(n)": {"sigmoid": "-ln(n)"}, "softcap 50": {"softcap": 50}}


def vectors(n, a, b, dim=4):
    return [[(a * i + b * c) % 5 - 2 for c in range(dim)] for i in range(n)]


def cpu_ms(fn):
    """Median CPU time of fn() in ms over at least MIN_RUNS runs (about BUDGET_S in all)."""
    times, start = [], time.perf_counter()
    while len(times) < MIN_RUNS or time.perf_counter() - start < BUDGET_S:
        gc.collect()
        t = time.process_time()
        fn()
        times.append((time.process_time() - t) * 1000)
        if len(times) >= 60:
            break
    return statistics.median(times)


def measure(n):
    """[(name, form ms, plain ms)] at n tokens."""
    q, k, q2 = vectors(n, 3, 1), vectors(n, 2, 3), vectors(n, 1, 2)
    plain = cpu_ms(lambda: attnviz.figure(q, k, softmax="normalizer").svg())
    results = [(f"{name}, n={n}", cpu_ms(lambda form=form: attnviz.figure(q, k, softmax="normalizer", **form).svg()),
                plain) for name, form in FORMS.items()]
    heads = {"q_heads": [q, q2], "k_heads": [k], "softmax": "normalizer"}
    diff = cpu_ms(lambda: attnviz.figure(differential="1/2", **heads).svg())
    three = cpu_ms(lambda: attnviz.compose(attnviz.figure(q, k, softmax="normalizer"),
                                           attnviz.figure(q2, k, softmax="normalizer"),
                                           attnviz.figure(q, k, view="scores")).svg())
    two = cpu_ms(lambda: attnviz.figure(**heads).svg())
    print(f"(differential, n={n}: {diff / two:.2f}x the two heads alone, which draw two panels of its three)")
    return results + [(f"differential 1/2, n={n}", diff, three)]


def main():
    results = [row for n in SIZES for row in measure(n)]
    print(f"{'figure':44} {'form ms':>9} {'plain ms':>9} {'ratio':>7}  target {TARGET}x")
    ok = True
    for name, ms, plain in results:
        ratio = ms / plain
        ok &= ratio <= TARGET
        print(f"{name:44} {ms:9.1f} {plain:9.1f} {ratio:6.2f}x  {'PASS' if ratio <= TARGET else 'MISS'}")
    print("forms:", "PASS" if ok else "MISS")


if __name__ == "__main__":
    main()
