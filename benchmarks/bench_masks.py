"""Masks at 1,024 tokens: binding a mask to the grid and listing every row's kept runs (what a
mask view draws), for families, combinations and a pasted FlexAttention mask_mod.

Run with the venv's Python: `.venv/bin/python benchmarks/bench_masks.py` (torch from the test extra).
"""

import statistics
import time

from attnviz.engine.masks import resolve

N = 1024
RUNS = 5


def timed(function):
    """Median seconds of RUNS calls, after one warm-up call."""
    function()
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def every_row(text):
    mask = resolve(text, N, N)
    return [mask.runs(i) for i in range(N)]


def main():
    documents = ",".join(str(i // 256) for i in range(N))
    cases = {
        "causal": "causal",
        "longformer: window=128,symmetric | global=1,512": "window=128,symmetric | global=1,512",
        "prefix=64 per document (4 documents)": f"prefix=64,documents={documents}",
        "chunk=64,offset=3 & padding=1,2,3": "chunk=64,offset=3 & padding=1,2,3",
        "(window=32,dilation=4 | global=1) & ~documents": f"(window=32,dilation=4 | global=1) & ~documents={documents}",
    }
    print(f"{N} tokens, median of {RUNS} (after a warm-up)")
    for name, text in cases.items():
        print(f"  {name:55s} bind + runs of every row: {1000 * timed(lambda text=text: every_row(text)):8.1f} ms")
    try:
        import torch
    except ImportError:
        print("  (torch absent: the mask_mod cases are skipped)")
        return
    ids = torch.arange(N) // 256

    def document_causal(b, h, q_idx, kv_idx):
        return (ids[q_idx] == ids[kv_idx]) & (q_idx >= kv_idx)

    def int_only(q_idx, kv_idx):
        return kv_idx <= q_idx and (q_idx - kv_idx) % 2 == 0

    start = time.perf_counter()
    every_row(document_causal)
    first = 1000 * (time.perf_counter() - start)
    print(f"  {'first mask_mod (imports torch, warms FlexAttention up)':55s} {first:8.1f} ms")
    print(f"  {'mask_mod via create_mask (tensor indexing)':55s} bind + runs of every row: "
          f"{1000 * timed(lambda: every_row(document_causal)):8.1f} ms")
    print(f"  {'int-only function, cell by cell':55s} bind + runs of every row: "
          f"{1000 * timed(lambda: every_row(int_only)):8.1f} ms")


if __name__ == "__main__":
    main()
