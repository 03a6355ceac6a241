"""A caption the user gives a mask (`--mask-name`, `--mask-rule`), held to the cells drawn.

A rule written in attnviz's rule language (`rule_reader`) is evaluated on every cell of the grid: a rule that keeps a
cell the mask masks (or the other way round) is refused, naming the first such cell. A rule that is not in the language
is the user's words: drawn as given (`Bound.given`), never under the badge's "exact ... mask". A name that names a
family attnviz knows ("causal", "sliding window", "window=3") must keep that family's cells on the grid.
"""

from __future__ import annotations

from .mask_families import Bound, Grid
from .rule_reader import read_rule
from ..numbers.exact import InputError
from ..records import replace

TYPE_CHECKING = False  # a type checker takes it as True
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

__all__ = ["GIVEN", "checked_caption", "family_texts"]

#: What a rule that attnviz could not read is followed by, wherever the figure writes it.
GIVEN = " (as given, not checked)"

#: Families known by name, and the masks each name can mean on a grid of n_k keys (a size the name leaves open is
#: tried from 1 to n_k).
_BY_NAME: dict[str, Callable[[int], Iterator[str]]] = {
    "causal": lambda n: iter(("causal",)),
    "bidirectional": lambda n: iter(("none",)),
    "full": lambda n: iter(("none",)),
    "none": lambda n: iter(("none",)),
    "sliding window": lambda n: (f"window={w}" for w in range(1, n + 1)),
    "window": lambda n: (f"window={w}" for w in range(1, n + 1)),
    "symmetric sliding window": lambda n: (f"window={w},symmetric" for w in range(1, n + 1)),
    "chunked": lambda n: (f"chunk={c}" for c in range(1, n + 1)),
    "prefix lm": lambda n: (f"prefix={p}" for p in range(1, n + 1)),
    "sink": lambda n: (f"sink={s}" for s in range(1, n + 1)),
}


def family_texts(name: str, n_k: int) -> Iterator[str] | None:
    """The masks a name of a known family can mean on n_k keys (in the mask grammar), or None for any other name.
    A name with "=" is tried as the grammar's text itself."""
    key = " ".join(name.lower().replace("-", " ").replace("_", " ").split())
    key = key.removesuffix(" attention").removesuffix(" mask")
    if key in _BY_NAME:
        return _BY_NAME[key](n_k)
    return iter((name,)) if "=" in name else None  # a family with its size ("window=3"), if the grammar reads it


def checked_caption(inner: Bound, name: str | None, rule: str | None, grid: Grid,
                    bind: Callable[[str], Bound]) -> Bound:
    """`inner` under the user's name and rule: each checked against its cells, or the rule marked as given.
    `bind` binds a mask's text to the same grid (for the family a name names)."""
    if name is not None:
        _check_name(inner, name, grid, bind)
    named = replace(inner, name=name or inner.name)
    if rule is None:
        return named
    read = read_rule(rule)
    if read is None:
        return replace(named, rule=lambda base: rule + GIVEN, given=True)
    cell = _first_difference(inner, read.keeps, grid)
    if cell is not None:
        (i, j), kept = cell
        said, drawn = ("keeps", "masks") if not kept else ("masks", "keeps")
        raise InputError(f"the rule {rule!r} {said} query {i + grid.base + grid.shift}, key {j + grid.base}, "
                         f"but the mask {drawn} it; give the rule the cells keep, or leave the rule out",
                         "mask_rule")
    return replace(named, rule=lambda base: rule)


def _first_difference(inner: Bound, keeps: Callable[[int, int], bool],
                      grid: Grid) -> tuple[tuple[int, int], bool] | None:
    """The first cell (row by row) where the rule and the mask disagree, and whether the mask keeps it."""
    for i in range(grid.n_q):
        kept = _kept_keys(inner, i)
        for j in range(grid.n_k):
            if keeps(i + grid.base + grid.shift, j + grid.base) != (j in kept):
                return (i, j), j in kept
    return None


def _kept_keys(bound: Bound, i: int) -> set[int]:
    return {j for a, b in bound.runs(i) for j in range(a, b)}


def _normal(runs: tuple[tuple[int, int], ...]) -> list[tuple[int, int]]:
    """Runs without empty ones, touching ones joined: one form for one set of keys."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(r for r in runs if r[0] < r[1]):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(b, out[-1][1]))
        else:
            out.append((a, b))
    return out


def _check_name(inner: Bound, name: str, grid: Grid, bind: Callable[[str], Bound]) -> None:
    """Refuses a name of a known family whose cells differ from the mask drawn."""
    texts = family_texts(name, grid.n_k)
    if texts is None:
        return
    drawn = [_normal(inner.runs(i)) for i in range(grid.n_q)]
    tried = []
    for text in texts:
        try:
            family = bind(text)
        except InputError:  # "a=b" is a name, not a mask attnviz reads
            return
        tried.append(text)
        if all(_normal(family.runs(i)) == drawn[i] for i in range(grid.n_q)):
            return
    shown = tried[0] if len(tried) == 1 else f"{tried[0]} .. {tried[-1]}"
    raise InputError(f"{name!r} names a mask attnviz knows ({shown}), but the cells drawn are not that mask; "
                     "name the mask something else, or draw that mask", "mask_name")
