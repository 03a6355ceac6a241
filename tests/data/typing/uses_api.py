"""A user's script that calls attnviz as documented: mypy --strict finds nothing wrong with it."""

from fractions import Fraction
from pathlib import Path

import numpy as np
from sphinx.application import Sphinx

import attnviz
from attnviz.cli.commands import main
from attnviz.errors import InputError
from attnviz.engine.attention import Attention
from attnviz.engine.mask_cells import MaskCells
from attnviz.engine.tiled_softmax import FlashStep
from attnviz.integrations.sphinx import setup as attnviz_sphinx_setup
from attnviz.typing import MaskSpec, Vectors


def keep_recent(q_idx: int, kv_idx: int) -> bool:
    return 0 <= q_idx - kv_idx < 2


def bias(q_idx: int, kv_idx: int) -> Fraction:
    return Fraction(kv_idx - q_idx, 2)


q: Vectors = [[1, 0], ["1/2", Fraction(3, 4)], [0.5, 2]]
masks: MaskSpec = ["causal", keep_recent]
fig: attnviz.Figure = attnviz.figure(q, np.array([[1, 0], [0, 1], [1, 1]]), mask=masks, bias=bias,
                                     highlight=[(2, 2), "softmax=1"], scale="sqrt", softmax="grouped",
                                     tokens=["the", "cat", "sat"], theme="dark", index_base=0)
svg: str = fig.svg()
png: bytes = fig.png(scale=2)
saved: Path = fig.save(Path("out") / "fig.svg", format="svg")
assert isinstance(fig.attention, Attention)  # a mask map's is its MaskCells (kept, runs)
row = fig.attention.scores[2]
assert row is not None  # None only for a row an elided figure leaves out
score: Fraction = row[2]
weights = fig.attention.weights(2)
named: bool = weights.kind == "named" and len(weights.exponents) == 3
mask_map = attnviz.figure(view="mask", n=16, mask="window=4")
assert isinstance(mask_map.attention, MaskCells)
kept: bool = mask_map.attention.kept[3][0] or bool(mask_map.attention.runs(3))
both = attnviz.compose(fig, mask_map, arrange="column", title="Two")
text: str = both.svg(id_prefix="both")
steps: tuple[FlashStep, ...] = attnviz.flash([[1, 0], [0, 1]], [[1, 0], [0, 1]], block=(1, 1), order="fa1")
try:
    attnviz.figure([[1]], [[1], [2]], mask="window=x")
except InputError as err:
    where: str | None = err.where
    print(err.what, where)


def conf_setup(app: Sphinx) -> bool:
    """A docs site's conf.py that sets attnviz's Sphinx extension up itself."""
    return attnviz_sphinx_setup(app).get("parallel_read_safe", False)


status: int = main(["render", "-o", "out/seed.svg"])
sliding: attnviz.Mask = attnviz.Mask("window=3") & ~attnviz.Mask("global=1") | keep_recent
runs: tuple[tuple[int, int], ...] = sliding.bind(8, 8, index_base=0).runs(0)
masked_map = attnviz.figure(view="mask", n=8, mask=sliding)
heads = attnviz.figure(q_heads=[[[1, 0], [0, 1]], [[1, 1], [0, 1]]], k_heads=[[[1, 0], [0, 1]]])
heads_svg: str = heads.svg()
