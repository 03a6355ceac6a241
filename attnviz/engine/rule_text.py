"""How a combination's rules and names are joined: in parentheses where "and"/"or" would make them
ambiguous."""

from __future__ import annotations

__all__ = ["grouped", "grouped_name", "one_group"]


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
