"""Which k entries `torch.topk(x, k, largest=True)` picks on the CPU, ties included: the same comparisons, in the
same order, as the standard library calls torch makes (ATen's `topk_impl_loop`: `std::partial_sort` when
k·64 <= n, else `std::nth_element`, both with the comparator `x > y`, as GNU libstdc++ implements them).

With distinct values the answer is the k largest, whatever the algorithm. With ties at the cut, the chosen ones are
those libstdc++'s introselect (or heap select) leaves in front, which is neither "lowest index first" nor "highest":
`torch.topk(torch.zeros(4), 2)` picks indices 2 and 3. MoBA's reference code (`moba_naive`) selects its blocks with
`torch.topk`, so attnviz replays it; tests/test_moba.py checks the replay against torch itself.
"""

from __future__ import annotations

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import TypeVar

    T = TypeVar("T")

__all__ = ["topk_indices"]


def topk_indices(values: Sequence[T], k: int, greater: Callable[[T, T], bool]) -> frozenset[int]:
    """The 0-based indices `torch.topk(values, k)` returns on the CPU (as a set: `sorted` only orders them),
    `greater(x, y)` being x > y exactly."""
    n = len(values)
    queue = [(value, index) for index, value in enumerate(values)]

    def comp(x: tuple[T, int], y: tuple[T, int]) -> bool:
        return greater(x[0], y[0])

    if k * 64 <= n:
        _heap_select(queue, 0, k, n, comp)
    elif 0 < k <= n:
        _introselect(queue, 0, k - 1, n, 2 * ((n).bit_length() - 1), comp)
    return frozenset(index for _, index in queue[:k])


def _introselect(a: list[tuple[T, int]], first: int, nth: int, last: int, depth: int,
                 comp: Callable[[tuple[T, int], tuple[T, int]], bool]) -> None:
    """libstdc++'s `std::__introselect` (nth_element)."""
    while last - first > 3:
        if depth == 0:
            _heap_select(a, first, nth + 1, last, comp)
            a[first], a[nth] = a[nth], a[first]
            return
        depth -= 1
        cut = _partition_pivot(a, first, last, comp)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(a, first, last, comp)


def _partition_pivot(a: list[tuple[T, int]], first: int, last: int,
                     comp: Callable[[tuple[T, int], tuple[T, int]], bool]) -> int:
    """`std::__unguarded_partition_pivot`: the median of three moved to `first`, then Hoare's partition."""
    mid = first + (last - first) // 2
    _median_to_first(a, first, first + 1, mid, last - 1, comp)
    lo, hi, pivot = first + 1, last, first
    while True:
        while comp(a[lo], a[pivot]):
            lo += 1
        hi -= 1
        while comp(a[pivot], a[hi]):
            hi -= 1
        if not lo < hi:
            return lo
        a[lo], a[hi] = a[hi], a[lo]
        lo += 1


def _median_to_first(a: list[tuple[T, int]], result: int, x: int, y: int, z: int,
                     comp: Callable[[tuple[T, int], tuple[T, int]], bool]) -> None:
    """`std::__move_median_to_first`."""
    if comp(a[x], a[y]):
        pick = y if comp(a[y], a[z]) else z if comp(a[x], a[z]) else x
    else:
        pick = x if comp(a[x], a[z]) else z if comp(a[y], a[z]) else y
    a[result], a[pick] = a[pick], a[result]


def _insertion_sort(a: list[tuple[T, int]], first: int, last: int,
                    comp: Callable[[tuple[T, int], tuple[T, int]], bool]) -> None:
    """`std::__insertion_sort`."""
    for i in range(first + 1, last):
        value = a[i]
        if comp(value, a[first]):
            a[first + 1:i + 1] = a[first:i]
            a[first] = value
            continue
        j = i
        while comp(value, a[j - 1]):
            a[j] = a[j - 1]
            j -= 1
        a[j] = value


def _heap_select(a: list[tuple[T, int]], first: int, middle: int, last: int,
                 comp: Callable[[tuple[T, int], tuple[T, int]], bool]) -> None:
    """`std::__heap_select`: a heap of the first middle−first, each later entry that beats its top swapped in."""
    length = middle - first
    for parent in range((length - 2) // 2, -1, -1):  # std::__make_heap
        _adjust_heap(a, first, parent, length, a[first + parent], comp)
    for i in range(middle, last):
        if comp(a[i], a[first]):  # std::__pop_heap(first, middle, i)
            value = a[i]
            a[i] = a[first]
            _adjust_heap(a, first, 0, length, value, comp)


def _adjust_heap(a: list[tuple[T, int]], first: int, hole: int, length: int, value: tuple[T, int],
                 comp: Callable[[tuple[T, int], tuple[T, int]], bool]) -> None:
    """`std::__adjust_heap` then `std::__push_heap`."""
    top, child = hole, hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if comp(a[first + child], a[first + child - 1]):
            child -= 1
        a[first + hole] = a[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        a[first + hole] = a[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and comp(a[first + parent], value):
        a[first + hole] = a[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[first + hole] = value
