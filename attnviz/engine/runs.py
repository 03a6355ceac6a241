"""Runs: a row's kept keys as sorted, disjoint, half-open ranges (start, stop), 0-based.

A mask bound to a grid answers `runs(i)` with these, so a figure of 1,024 keys walks a few
ranges per row rather than every cell. The algebra here is what `&`, `|` and `~` do to rows.
"""

from __future__ import annotations

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    Run = tuple[int, int]
    Runs = tuple[Run, ...]

__all__ = ["scan_runs", "clip", "positions_runs", "intersect_runs", "union_runs", "complement_runs"]


def scan_runs(keep: Callable[[int], object], n_k: int) -> Runs:
    """Runs of the keys j in range(n_k) where keep(j) is true.

    >>> scan_runs(lambda j: j in (0, 1, 3), 5)
    ((0, 2), (3, 4))
    """
    runs: list[Run] = []
    start: int | None = None
    for j in range(n_k):
        if keep(j):
            if start is None:
                start = j
        elif start is not None:
            runs.append((start, j))
            start = None
    if start is not None:
        runs.append((start, n_k))
    return tuple(runs)


def clip(start: int, stop: int, n_k: int) -> Runs:
    """The one run start..stop cut to the keys 0..n_k-1 (none when nothing is left).

    >>> clip(-2, 3, 5), clip(4, 9, 3)
    (((0, 3),), ())
    """
    start, stop = max(start, 0), min(stop, n_k)
    return ((start, stop),) if start < stop else ()


def positions_runs(positions: Iterable[int], n_k: int) -> Runs:
    """Sorted 0-based positions as runs, those outside 0..n_k-1 left out.

    >>> positions_runs([0, 1, 3, 9], 5)
    ((0, 2), (3, 4))
    """
    runs: list[Run] = []
    for p in positions:
        if 0 <= p < n_k:
            if runs and runs[-1][1] == p:
                runs[-1] = (runs[-1][0], p + 1)
            else:
                runs.append((p, p + 1))
    return tuple(runs)


def intersect_runs(a: Runs, b: Runs) -> Runs:
    """The keys both `a` and `b` keep.

    >>> intersect_runs(((0, 4),), ((2, 6),))
    ((2, 4),)
    """
    out: list[Run] = []
    x, y = 0, 0
    while x < len(a) and y < len(b):
        start, stop = max(a[x][0], b[y][0]), min(a[x][1], b[y][1])
        if start < stop:
            out.append((start, stop))
        if a[x][1] < b[y][1]:
            x += 1
        else:
            y += 1
    return tuple(out)


def union_runs(a: Runs, b: Runs) -> Runs:
    """The keys `a` or `b` keeps.

    >>> union_runs(((0, 2),), ((2, 3), (5, 6)))
    ((0, 3), (5, 6))
    """
    out: list[Run] = []
    for start, stop in sorted(a + b):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], stop))
        else:
            out.append((start, stop))
    return tuple(out)


def complement_runs(a: Runs, n_k: int) -> Runs:
    """The keys 0..n_k-1 that `a` does not keep.

    >>> complement_runs(((1, 2),), 4)
    ((0, 1), (2, 4))
    """
    out: list[Run] = []
    at = 0
    for start, stop in a:
        if at < start:
            out.append((at, start))
        at = stop
    if at < n_k:
        out.append((at, n_k))
    return tuple(out)
