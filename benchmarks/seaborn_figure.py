"""The figure a user would make without attnviz: matplotlib + seaborn, saved as SVG.

`draw()` is what the benchmark times in process. Run as a script, this file is the
"tiny seaborn script" of the whole-process comparison: it renders the seed figure
(Q = K = (1,0); (0,1); (1,1), causal mask) to the SVG file named on the command line.
It does not import attnviz: a user without attnviz would not have it.
"""

import io
import sys
import textwrap

import matplotlib

matplotlib.use("Agg")  # before pyplot: no GUI, as in a docs build
# Text as <text> elements, as attnviz writes it. The default ("path", one glyph outline per
# character) is about 4x slower and 10x bigger at 64 tokens; "none" is the stronger baseline.
matplotlib.rcParams["svg.fonttype"] = "none"

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import seaborn as sns  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

CELL_IN = 0.6  # heatmap cell side, inches
LINE_IN = 0.17  # caption line height at 9 pt, inches
CHAR_IN = 9 * 0.6 / 72  # monospace advance at 9 pt, inches
ROW_GAP_IN = 0.16  # space above each softmax caption, inches


def draw(scores, kept, annot, captions, title, subtitle, highlight=()):
    """The annotated causal heatmap with softmax captions, as SVG bytes.

    scores: n x n numbers; kept: n x n bools (False = masked); annot: n x n str
    (the exact score text, "masked" where masked); captions: one (scores_line,
    weights_line) pair per row; highlight: 1-based (i, j) cells to outline.
    """
    n = len(scores)
    width = max(9.0, 1.5 + n * CELL_IN)
    # Wrap the weights lines at the figure width, as attnviz wraps them (at ", ").
    wrap_chars = int((width - 0.8) / CHAR_IN)
    texts = [s + "\n" + textwrap.fill(w, wrap_chars, subsequent_indent=" " * 8, break_long_words=False,
                                      break_on_hyphens=False) for s, w in captions]
    top, grid, below = 1.3, n * CELL_IN, 0.7
    steps = [ROW_GAP_IN + LINE_IN * (t.count("\n") + 1) for t in texts]
    height = top + grid + below + sum(steps) + 0.3

    fig = plt.figure(figsize=(width, height))
    ax = fig.add_axes([1.0 / width, 1 - (top + grid) / height, grid / width, grid / height])
    labels = dict(xticklabels=[f"K{j}" for j in range(1, n + 1)], yticklabels=[f"Q{i}" for i in range(1, n + 1)])
    masked = ~np.asarray(kept)
    # seaborn leaves masked cells unannotated, so the "masked" cells are a second, grey layer.
    sns.heatmap(np.asarray(scores, dtype=float), mask=masked, annot=annot, fmt="", cmap="Blues",
                cbar=False, linewidths=1, ax=ax, **labels)
    sns.heatmap(np.zeros((n, n)), mask=~masked, annot=annot, fmt="", cmap="Greys", vmin=0, vmax=4,
                cbar=False, linewidths=1, annot_kws={"style": "italic", "size": 8}, ax=ax, **labels)
    for i, j in highlight:  # "computed this step", as attnviz outlines it
        ax.add_patch(Rectangle((j - 1, i - 1), 1, 1, fill=False, edgecolor="#92400e", linewidth=3))
    ax.set_title("score S_ij=Qi·Kj with causal mask", loc="left", weight="bold")

    def text_at(y_in, text, **style):  # y in inches from the top, like the layout above
        fig.text(0.4 / width, 1 - y_in / height, text, va="top", **style)

    text_at(0.3, title, size=18, weight="bold")
    text_at(0.75, subtitle, size=11)
    y = top + grid + below - 0.2
    text_at(y, "row softmax over unmasked scores", size=11, weight="bold")
    for text, step in zip(texts, steps):
        y += ROW_GAP_IN
        text_at(y, text, size=9, family="monospace")
        y += step - ROW_GAP_IN

    out = io.BytesIO()
    fig.savefig(out, format="svg")
    plt.close(fig)
    return out.getvalue()


def seed_inputs():
    """The seed figure's inputs, computed the way a user would: numpy for scores, f-strings for text."""
    q = k = np.array([[1, 0], [0, 1], [1, 1]])
    scores = q @ k.T
    kept = np.tril(np.ones_like(scores, dtype=bool))
    annot = np.where(kept, scores.astype(str), "masked")
    captions = []
    for i in range(len(q)):
        row = scores[i, kept[i]]
        denominator = "+".join(f"e^{s}" for s in row)
        weights = "1" if len(row) == 1 else ", ".join(f"e^{s}/({denominator})" for s in row)
        captions.append((f"row {i + 1}: scores [{','.join(map(str, row))}]", f"weights {weights}"))
    title, subtitle = "Attention honesty boundary", "Exact score and mask structure with named softmax."
    return scores, kept, annot, captions, title, subtitle, [(3, 3)]


if __name__ == "__main__":
    with open(sys.argv[1], "wb") as f:
        f.write(draw(*seed_inputs()))
