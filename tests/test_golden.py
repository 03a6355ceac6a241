"""Golden figures: committed SVGs a reviewer can open. `make golden` rewrites them after an
intended change (then look at them before committing)."""

import os

import pytest

import attnviz
from attnviz.publish.walkthrough.scores import walkthrough
from conftest import GOLDEN

CASES = {
    "seed": lambda: attnviz.figure(highlight=[(3, 3)]),
    "rational-4x4": lambda: attnviz.figure(
        [[-1, "1/2"], ["0.25", 3], [2, -2], [0, "-0.5"]], [[1, 1], [-2, "3/4"], ["1.5", 0], [4, 1]],
        highlight=["softmax=4", "4,2"], title="Rational vectors", subtitle="Negative and fractional scores."),
    # A walkthrough step: S_{3,2} just computed, later cells and every softmax row still empty.
    "walkthrough-step-05": lambda: walkthrough(attnviz.figure())[1][4],
    "window-padding": lambda: attnviz.figure(
        [[1, 0], [0, 1], [1, 1], [2, -1], ["1/2", 1]], [[1, 0], [0, 1], [1, 1], [2, -1], ["1/2", 1]],
        mask=["window=3", "padding=2"], highlight=["mask", "softmax=5"], softmax="grouped",
        title="Sliding window with padding", subtitle="Window of 3 keys; key 2 is padding."),
    "decode-bottom-right": lambda: attnviz.figure(
        [[1, 1, 0], [0, 1, 1]], [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]], align="bottom-right",
        scale="sqrt", bias="alibi=1/4", softmax="normalizer", v=[[1], [2], [3], [4]], highlight=["row=2"],
        title="Decoding with a cache", subtitle="Two new queries over four keys, ALiBi, S/√3."),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden(name):
    svg = CASES[name]().svg() + "\n"
    path = GOLDEN / f"{name}.svg"
    if os.environ.get("ATTNVIZ_UPDATE_GOLDEN"):
        path.write_text(svg, encoding="utf-8")
    assert svg == path.read_text(encoding="utf-8"), f"{path} differs; run `make golden` if intended"
