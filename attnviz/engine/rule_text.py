"""How a combination's rules and names are joined: in parentheses where "and"/"or" would make them ambiguous."""

from __future__ import annotations

__all__ = ["grouped", "grouped_name", "one_group", "aligned", "labelled", "number_ranges"]

TYPE_CHECKING = False  # a type checker takes it as True
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence


def grouped(rule: str) -> str:
    """A rule in parentheses when joining it with "and"/"or" would make it ambiguous."""
    if rule.startswith("not (") and one_group(rule[4:]):
        return rule
    return f"({rule})" if any(word in rule for word in (", ", " or ", " and ")) else rule


def one_group(text: str) -> bool:
    """True when `text` is one parenthesised group: "(a) or (b)" is two."""
    depth = 0
    for n, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0:
            return n == len(text) - 1
    return False


def grouped_name(name: str, joiner: str) -> str:
    """A mask's name in parentheses when it already holds `joiner` (" or ", " + ")."""
    return f"({name})" if joiner in name else name


def aligned(rule: Callable[[int], str], align: str) -> Callable[[int], str]:
    """A positional rule that says where the diagonal sits when keys outnumber queries."""
    return lambda base: f"{rule(base)}, aligned {align}"


def labelled(rule: Callable[[int], str]) -> Callable[[int], str]:
    """A positional rule whose i is the query's label (queries labelled with their positions)."""
    return lambda base: f"{rule(base)}, i the query's label"


def number_ranges(numbers: Sequence[int], dash: str, sep: str) -> list[str]:
    """Sorted numbers as the parts a rule or title lists: a run of three or more as `first{dash}last`, shorter
    runs number by number (joined by `sep`).

    >>> number_ranges([1, 2, 3, 5, 6, 9], "..", ","), number_ranges([0, 1, 2, 3, 4, 6], "–", ", ")
    (['1..3', '5,6', '9'], ['0–4', '6'])
    """
    parts: list[str] = []
    start = 0
    for n in range(1, len(numbers) + 1):
        if n == len(numbers) or numbers[n] != numbers[n - 1] + 1:
            first, last = numbers[start], numbers[n - 1]
            parts.append(f"{first}{dash}{last}" if last - first >= 2 else sep.join(map(str, range(first, last + 1))))
            start = n
    return parts
