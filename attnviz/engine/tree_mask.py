"""Tree attention (`--mask tree=PARENTS[,prompt=P]`), as speculative decoding verifies a token tree (Medusa, SpecInfer,
EAGLE): the prompt's P tokens come first, causal; then the tree's tokens, each given its parent's index in the tree
(0-based, as Medusa's and EAGLE's code write them; -1 for a token attached to the prompt). A tree token keeps the
whole prompt, its ancestors and itself; a parent comes before its children.

The same cells as FlexAttention's `create_mask` with an ancestor-table `mask_mod` (tests/test_tree_mask.py).
"""

from __future__ import annotations

import re

from ..numbers.exact import InputError
from .mask_families import Bound, query_position
from .runs import clip, positions_runs, union_runs

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from .mask_families import Grid
    from .mask_grammar import MaskOption
    from .runs import Runs

__all__ = ["MAX_TREE", "parse_tree", "tree", "ancestors", "depths"]

MAX_TREE = 1024  # tree tokens: a mask map's side


def parse_tree(text: str, where: str) -> tuple[object, dict[str, object]]:
    """`-1,0,0,1,prompt=3` -> ((-1, 0, 0, 1), {"prompt": 3}): each tree token's parent, the prompt's length.

    >>> parse_tree("-1,0,0,1,1,prompt=3", "mask")
    ((-1, 0, 0, 1, 1), {'prompt': 3})
    """
    parts = [part.strip() for part in text.split(",")]
    prompt = 0
    parents: list[int] = []
    for part in parts:
        name, has_value, value = (p.strip() for p in part.partition("="))
        if has_value:
            if name.lower() != "prompt":
                raise InputError(f"unknown option {name!r}; the option here is prompt=P", where)
            if not re.fullmatch(r"\d{1,7}", value):
                raise InputError(f"prompt={value!r}: give the prompt's length, a whole number", where)
            prompt = int(value)
            continue
        if not re.fullmatch(r"-?\d{1,7}", part):
            raise InputError(f"{part!r} is not a parent index (a tree token's index from 0, or -1 for the prompt)",
                             where)
        parents.append(int(part))
    if not parents or len(parents) > MAX_TREE:
        raise InputError(f"give 1 to {MAX_TREE} parents, one per tree token", where)
    for t, parent in enumerate(parents):
        if not -1 <= parent < t:
            raise InputError(f"tree token {t}'s parent is {parent}: a parent is an earlier tree token (0 to {t - 1}) "
                             "or -1 (the prompt)", where)
    return tuple(parents), {"prompt": prompt} if prompt else {}


def ancestors(parents: tuple[int, ...]) -> tuple[frozenset[int], ...]:
    """Each tree token's ancestors and itself (0-based tree indices).

    >>> [sorted(a) for a in ancestors((-1, 0, 0, 1))]
    [[0], [0, 1], [0, 2], [0, 1, 3]]
    """
    out: list[frozenset[int]] = []
    for t, parent in enumerate(parents):
        out.append(frozenset({t}) | (out[parent] if parent >= 0 else frozenset()))
    return tuple(out)


def depths(parents: tuple[int, ...]) -> tuple[int, ...]:
    """Each tree token's depth: 1 for one attached to the prompt."""
    return tuple(len(chain) for chain in ancestors(parents))


def tree(option: MaskOption, grid: Grid) -> Bound:
    """The tree's mask on one grid: key positions are the prompt's P, then the tree's tokens."""
    parents: tuple[int, ...] = option.value
    prompt = dict(option.options).get("prompt", 0)
    where = f"mask {option.text!r}"
    if prompt + len(parents) != grid.n_k:
        raise InputError(f"a prompt of {prompt} and {len(parents)} tree tokens are {prompt + len(parents)} key "
                         f"positions, but the grid has {grid.n_k} keys; give prompt=P so that they match", where)
    chains = ancestors(parents)
    n_k, offset, p = grid.n_k, grid.offset, query_position(grid.offset - grid.shift)
    chain_runs = [positions_runs(sorted(prompt + a for a in chain), n_k) for chain in chains]
    prompt_runs = clip(0, prompt, n_k)

    def keep(i: int, j: int) -> bool:
        q = i + offset
        if q < prompt:
            return 0 <= j <= q
        return j < prompt or (0 <= q - prompt < len(chains) and j - prompt in chains[q - prompt])

    def runs(i: int) -> Runs:
        q = i + offset
        if q < prompt:
            return clip(0, q + 1, n_k)
        return union_runs(prompt_runs, chain_runs[q - prompt]) if q - prompt < len(chains) else prompt_runs

    shown = ",".join(map(str, parents))

    def rule(base: int) -> str:
        path = f"j on {p}'s path in the tree of parents ({shown}) from position {prompt + base}"
        return f"j<={p}, j<={prompt - 1 + base}, or {path}" if prompt else path

    return Bound("tree", rule, keep, runs, True)
