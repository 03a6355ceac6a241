"""The gallery: figures that stress the layout, drawn in every theme by the browser tests.

`python tests/browser_gallery.py [OUT]` writes each as SVG, PNG and PDF (default out/looks/) to look at.
"""

import sys
from pathlib import Path

import attnviz
from attnviz.figures.from_arguments import build as build_panels
from attnviz.render.themes import THEME_NAMES
from attnviz.publish.walkthrough.scores import walkthrough


def _grid(n):
    """n tokens, 2-d integer vectors with varied (and negative) scores."""
    q = [[(i * 3) % 5 - 2, (i * 7) % 4 - 1] for i in range(n)]
    k = [[(j * 2) % 3 - 1, (j * 5) % 7 - 3] for j in range(n)]
    return q, k


LONG_TOKENS = ["<|endoftext|>", "internationalization", "naïve café", "Ελληνικά", "Здравствуйте", "x", "W" * 14,
               "a—b…c"]

GALLERY = {
    "seed": lambda theme, frame="doc": attnviz.figure(highlight=[(3, 3)], theme=theme, frame=frame),
    "negative-fractions": lambda theme, frame="doc": attnviz.figure(
        [[-1, "1/2"], ["0.25", 3], [2, "-7/3"], [0, "-0.5"], ["-13/11", "5/8"]],
        [[1, 1], [-2, "3/4"], ["1.5", 0], [4, "-1/3"], ["-9/7", "-2/5"]],
        highlight=["softmax=4", "4,2", "mask"], title="Negative and fractional scores",
        subtitle="Exact rationals: every score is written as a reduced fraction.", theme=theme, frame=frame),
    "long-labels": lambda theme, frame="doc": attnviz.figure(
        *_grid(len(LONG_TOKENS)), tokens=LONG_TOKENS, highlight=["row=3", "softmax=2"],
        title="Token labels of every length, in several scripts, with a title long enough that it has to wrap "
              "onto a second line rather than run off the canvas",
        subtitle="Headers, vector lines and softmax rows carry the tokens verbatim.", theme=theme, frame=frame),
    # Tokenizer output keeps its whitespace: a leading space, a run of spaces, a newline, a tab.
    "whitespace-labels": lambda theme, frame="doc": attnviz.figure(
        *_grid(5), tokens=[" the", "a   b", "\n", "\t", "end "], highlight=["softmax=3"], theme=theme,
        frame=frame),
    # Other engineers' figure kinds: mask families with grouped softmax, an outputs panel with
    # scaled and biased logits, decimal weights, and a walkthrough step with pending cells.
    "window-padding": lambda theme, frame="doc": attnviz.figure(
        [[1, 0], [0, 1], [1, 1], [2, -1], ["1/2", 1]], [[1, 0], [0, 1], [1, 1], [2, -1], ["1/2", 1]],
        mask=["window=3", "padding=2"], highlight=["mask", "softmax=5"], softmax="grouped", theme=theme,
        frame=frame),
    "decode-values": lambda theme, frame="doc": attnviz.figure(
        [[1, 1, 0], [0, 1, 1]], [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]], align="bottom-right",
        scale="sqrt", bias="alibi=1/4", softmax="normalizer", v=[[1], [2], [3], [4]], highlight=["row=2"],
        weights="decimal=3", theme=theme, frame=frame),
    "walkthrough-step": lambda theme, frame="doc": walkthrough(attnviz.figure(theme=theme, frame=frame))[1][4],
    # Mechanics (issue 22): a FlashAttention step with its tiles and state, a rolling-buffer decode step over long
    # tokens, the GQA schematic.
    "flash-state": lambda theme, frame="doc": attnviz.walkthrough(attnviz.figure(
        *_grid(6), mask="window=3", theme=theme, frame=frame), flash=(2, 3), flash_order="fa1")[3],
    "decode-rolling": lambda theme, frame="doc": attnviz.walkthrough(attnviz.figure(
        *_grid(6), tokens=LONG_TOKENS[:6], mask="window=3", theme=theme, frame=frame), decode=2)[3],
    "heads-schematic": lambda theme, frame="doc": attnviz.figure(q_heads=[[[1]]] * 8, k_heads=[[[1]]] * 2,
                                                                 view="heads", theme=theme, frame=frame),
    "grid-16": lambda theme, frame="doc": attnviz.figure(*_grid(16), highlight=[(16, 16), "softmax=16"],
                                                         theme=theme, frame=frame),
    "grid-32": lambda theme, frame="doc": attnviz.figure(*_grid(32), highlight=[(32, 1), "softmax=32"],
                                                         theme=theme, frame=frame),
    # Views and panels: mask maps from 8 to 1,024 tokens (long and right-to-left labels at 8), three panels,
    # a score table beside its bias matrix, and an elided 1,024-token figure.
    "map-8-labels": lambda theme, frame="doc": attnviz.figure(
        view="mask", tokens=LONG_TOKENS[:6] + ["שלום", "مرحبا"], mask="window=3", highlight=["row=8"], theme=theme,
        frame=frame),
    "map-64": lambda theme, frame="doc": attnviz.figure(view="mask", n=64, mask="chunk=16", highlight="64,50",
                                                        theme=theme, frame=frame),
    "map-512": lambda theme, frame="doc": attnviz.figure(view="mask", n=512, mask="window=128", theme=theme,
                                                         frame=frame),
    "map-1024": lambda theme, frame="doc": attnviz.figure(view="mask", n=1024, x_title="key position j (of 1,024)",
                                                          y_title="query position i", theme=theme, frame=frame),
    "panels-three": lambda theme, frame="doc": attnviz.compose(
        attnviz.figure(view="mask", n=16, title="causal", theme=theme, frame=frame),
        attnviz.figure(view="mask", n=16, mask="prefix=6", title="prefix-LM", theme=theme, frame=frame),
        attnviz.figure(view="mask", n=16, mask="padding=3,15,16", highlight="mask", title="padding, every "
                       "masked cell highlighted, a long panel title that wraps", theme=theme, frame=frame),
        title="Three masks side by side, one legend", theme=theme, frame=frame),
    "bias-panel": lambda theme, frame="doc": build_panels({"q": _grid(5)[0], "k": _grid(5)[1], "bias": "alibi=1/4",
                                                      "show": "bias", "highlight": "5,5", "theme": theme,
                                                          "frame": frame}),
    "elided-1024": lambda theme, frame="doc": attnviz.figure(
        *_grid(1024), elide=True, tokens=[f"t{i}" for i in range(1024)], highlight=["700,3", "softmax=700"],
        softmax="normalizer", theme=theme, frame=frame),
}


def figures(themes=THEME_NAMES, names=None, frame="doc"):
    """(name, theme, Figure) for every gallery figure in every theme, made for `frame` (layout.frames)."""
    return [(name, theme, GALLERY[name](theme, frame)) for name in (names or GALLERY) for theme in themes]


def main(out="out/looks"):
    out = Path(out)
    for name, theme, fig in figures():
        stem = out / f"{name}-{theme}"
        fig.save(stem.with_suffix(".svg"))
        fig.save(stem.with_suffix(".pdf"))
        # The 32x32 figure is tall: one pixel per unit keeps its PNG within Cairo's limits.
        fig.save(stem.with_suffix(".png"), scale=1 if name == "grid-32" else 2)
        print(stem)


if __name__ == "__main__":
    main(*sys.argv[1:])
