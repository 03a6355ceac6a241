"""A mask bound to a grid (`BoundMask`) and the causal mask every figure starts from (`CAUSAL`).

This module sits below both the attention arithmetic (`attention`) and the mask expressions (`masks`): the arithmetic
needs a bound mask's cells, the expressions build bound masks.

A bound mask's `&`, `|` and `~` give an `attnviz.Mask` expression, which lives above this module. Rather than import it
from here (a cycle), the expression is made by a function the engine package registers (`express_with`, in
`attnviz/engine/__init__.py`): the package is imported before any of its modules, so the function is always there, and
it imports `masks` only when a mask is first combined, so a plain `attnviz render` never loads the mask grammar.
"""

from __future__ import annotations

from .runs import complement_runs, intersect_runs, scan_runs, union_runs
from ..records import dataclass, field

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable

    from .masks import Mask as Expression
    from .runs import Runs
    from ..typing import MaskItem

__all__ = ["BoundMask", "CAUSAL", "express_with"]

#: The function that turns a bound mask into an `attnviz.Mask` expression (see the module's docstring).
_EXPRESS: list[Callable[[BoundMask], Expression]] = []


def express_with(express: Callable[[BoundMask], Expression]) -> None:
    """Register how a bound mask becomes an `attnviz.Mask` expression, for its `&`, `|` and `~`."""
    _EXPRESS[:] = [express]


@dataclass(frozen=True)
class BoundMask:
    """Which cells are kept. `keep(i, j)` takes 0-based query and key positions.

    A mask built by `masks.resolve` also knows its grid: `runs(i)` gives row i's kept keys as
    half-open 0-based ranges, and `rule_text(base)` its rule in either index base. `&`, `|`
    and `~` combine it with other masks (see `attnviz.Mask`).
    """

    name: str  # as written in the figure: "causal"
    rule: str  # as written in the figure: "j<=i" (in the figure's index base, 1 unless chosen)
    keep: Callable[[int, int], object]  # (i, j) -> a truth value
    rule_at: Callable[[int], str] | None = field(default=None, repr=False)  # base -> the rule in that base
    row_runs: Callable[[int], Runs] | None = field(default=None, repr=False)  # i -> its runs
    shape: tuple[int, int] | None = None  # (n_q, n_k), when bound to a grid
    # A union's parts in order, (name, i -> runs): `--color-by part` colours each run by the first part keeping it.
    parts: tuple[tuple[str, Callable[[int], Runs]], ...] = field(default=(), repr=False)
    # What computed the cells, when not a rule of positions (MoBA's and NSA's selections): the badge says it.
    computed: str | None = field(default=None, repr=False)
    # The selection that computed them, as `sparse=` names it ("moba=2,2"): a walkthrough shows it first.
    sparse: str | None = field(default=None, repr=False)
    # The rule is the user's words, not read or checked: the figure marks it as given and claims no exact mask.
    given: bool = field(default=False, repr=False)

    def rule_text(self, base: int = 1) -> str:
        """The rule with positions counted from `base` (0 or 1)."""
        return self.rule if self.rule_at is None else self.rule_at(base)

    def runs(self, i: int, n_k: int | None = None) -> Runs:
        """Row i's kept keys as ((start, stop), ...), half-open, 0-based, in order."""
        if self.row_runs is not None:
            runs = self.row_runs(i)
            if n_k is not None:  # CAUSAL knows no grid: clip its runs to the keys there are
                runs = tuple((start, min(stop, n_k)) for start, stop in runs if start < n_k)
            return runs
        if n_k is None:
            assert self.shape is not None  # a mask that knows no grid gives its runs by row_runs
            n_k = self.shape[1]
        return scan_runs(lambda j: self.keep(i, j), n_k)

    def part_runs(self, i: int) -> tuple[tuple[int, int, int], ...]:
        """Row i's kept keys as (start, stop, part): each run cut where the first part of the union that keeps
        it changes (part 0 for a mask that is not a union). Half-open, 0-based, in order.

        >>> from attnviz.engine.masks import resolve
        >>> resolve("window=2 | keys=1", 4, 4).part_runs(3)
        ((0, 1, 1), (2, 4, 0))
        """
        if not self.parts:
            return tuple((a, b, 0) for a, b in self.runs(i))
        pieces: list[tuple[int, int, int]] = []
        covered: Runs = ()
        for n, (_, runs) in enumerate(self.parts):
            own = runs(i)
            end = max([b for _, b in own + covered], default=0)
            # what this part keeps that no earlier part did
            pieces += [(a, b, n) for a, b in intersect_runs(own, complement_runs(covered, end))]
            covered = union_runs(covered, own)
        return tuple(sorted(pieces))

    def expression(self) -> Expression:
        """This mask as an `attnviz.Mask` expression, to combine with others."""
        assert _EXPRESS, "attnviz.engine registers the expression type when it is imported"
        return _EXPRESS[0](self)

    def __and__(self, other: MaskItem) -> Expression:
        return self.expression() & other

    def __or__(self, other: MaskItem) -> Expression:
        return self.expression() | other

    def __invert__(self) -> Expression:
        return ~self.expression()

    def __repr__(self) -> str:
        return f"BoundMask({self.name!r}, {self.rule!r})"


CAUSAL = BoundMask("causal", "j<=i", lambda i, j: j <= i, row_runs=lambda i: ((0, i + 1),))
