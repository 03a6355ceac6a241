"""How a combination's rules and names are joined: in parentheses where "and"/"or" would make them
ambiguous."""

from __future__ import annotations

__all__ = ["grouped", "grouped_name", "one_group", "aligned", "labelled"]

TYPE_CHECKING = False  # a type checker takes it as True
if TYPE_CHECKING:
    from collections.abc import Callable


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
