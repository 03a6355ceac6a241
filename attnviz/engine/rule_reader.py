"""A rule in attnviz's own rule language read back as keep(i, j), so that a caption given by the user can be checked.

The language is the one the families' rules are written in (`mask_families`): positions `i` (the query) and `j`
(the key) counted in the figure's index base, whole numbers, `+`, `-`, `*` (or `·`), `mod`, `|x|`; comparisons,
chained (`i-3<j<=i`; `<`, `<=`, `>`, `>=`, `=`, `!=`, and `≤`, `≥`, `≠`); `x in {1,3..5}` and `x not in {..}`;
`i and j in {..}`; `every cell`; `not`, `and` (or `,`), `or` (or `, or`), parentheses. A final ", aligned
top-left|bottom-right" or ", i the query's label" only says how i was counted and is read as words.

`read_rule(text)` gives a `Rule` (keep(i, j) on positions) or None when the text is not in the language: such a
rule is the user's words, drawn as given and never checked.

>>> rule = read_rule("j=1, or i-2<j<=i")
>>> [j for j in range(1, 7) if rule.keeps(5, j)]
[1, 4, 5]
>>> read_rule("a tree of drafts") is None
True
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # a type checker takes it as True
if TYPE_CHECKING:
    from collections.abc import Callable

    Value = Callable[[int, int], int]
    Test = Callable[[int, int], bool]
    Members = Callable[[int, int, int], bool]  # (value, i, j) -> whether the value is in the set

__all__ = ["Rule", "read_rule"]

MAX_RULE = 300  # characters: a caption's rule (as `text_check.MAX_TITLE`)
MAX_NUMBER = 10**9
MAX_RUN = 10**6  # numbers in one run of a set, `{1..N}`
_TOKEN = re.compile(r"\s*(every cell|not in|<=|>=|!=|==|≤|≥|≠|\.\.|[<>=+\-*·|(){},]|mod\b|and\b|or\b|not\b|in\b"
                    r"|[ij]\b|\d+)")
_WORDS = re.compile(r"(, aligned (top-left|bottom-right))?(, i the query's label)?\s*$")
_COMPARE: dict[str, Callable[[int, int], bool]] = {
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, "≤": lambda a, b: a <= b, ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b, "≥": lambda a, b: a >= b, "=": lambda a, b: a == b, "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b, "≠": lambda a, b: a != b}


class Rule:
    """A rule read from its text: `keeps(i, j)` with i and j counted as the rule counts them."""

    __slots__ = ("keeps", "text")

    def __init__(self, text: str, keeps: Test) -> None:
        self.text, self.keeps = text, keeps


class _NotARule(Exception):
    """The text is not in the rule language."""


def read_rule(text: str) -> Rule | None:
    """The rule `text` says, or None when it is not written in attnviz's rule language."""
    if len(text) > MAX_RULE:
        return None
    body = _WORDS.sub("", text)
    try:
        reader = _Reader(_tokens(body))
        test = reader.disjunction()
        if reader.position != len(reader.tokens):
            return None
    except (_NotARule, RecursionError):
        return None
    return Rule(text, test)


def _tokens(text: str) -> list[str]:
    tokens, position = [], 0
    while text[position:].strip():
        match = _TOKEN.match(text, position)
        if match is None:
            raise _NotARule
        tokens.append(match[1].replace("·", "*"))
        position = match.end()
    return tokens


class _Reader:
    """A recursive-descent reader: tests (`or`, `and`, `not`, comparisons) over values (sums, products)."""

    def __init__(self, tokens: list[str]) -> None:
        self.tokens, self.position = tokens, 0

    def peek(self, ahead: int = 0) -> str:
        at = self.position + ahead
        return self.tokens[at] if at < len(self.tokens) else ""

    def take(self, *expected: str) -> str:
        token = self.peek()
        if not token or (expected and token not in expected):
            raise _NotARule
        self.position += 1
        return token

    def disjunction(self) -> Test:
        parts = [self.conjunction()]
        while self.peek() == "or" or (self.peek() == "," and self.peek(1) == "or"):
            self.position += 2 if self.peek() == "," else 1
            parts.append(self.conjunction())
        return parts[0] if len(parts) == 1 else (lambda i, j: any(p(i, j) for p in parts))

    def conjunction(self) -> Test:
        parts = [self.negation()]
        while self.peek() == "and" or (self.peek() == "," and self.peek(1) != "or"):
            self.take()
            parts.append(self.negation())
        return parts[0] if len(parts) == 1 else (lambda i, j: all(p(i, j) for p in parts))

    def negation(self) -> Test:
        if self.peek() == "not":
            self.take()
            inner = self.negation()
            return lambda i, j: not inner(i, j)
        if self.peek() == "every cell":
            self.take()
            return lambda i, j: True
        if self.peek() in ("i", "j") and self.peek(1) == "and" and self.peek(2) in ("i", "j") and self.peek(3) == "in":
            first, _, second, _ = (self.take() for _ in range(4))
            members = self.members()
            return lambda i, j: members(_at(first, i, j), i, j) and members(_at(second, i, j), i, j)
        start = self.position
        try:
            return self.comparison()
        except _NotARule:
            self.position = start
        self.take("(")
        inner = self.disjunction()
        self.take(")")
        return inner

    def comparison(self) -> Test:
        left = self.sum()
        if self.peek() in ("in", "not in"):
            negated = self.take() == "not in"
            members = self.members()
            return lambda i, j: members(left(i, j), i, j) != negated
        tests: list[tuple[Callable[[int, int], bool], Value, Value]] = []
        while self.peek() in _COMPARE:
            compare, right = _COMPARE[self.take()], self.sum()
            tests.append((compare, left, right))
            left = right
        if not tests:
            raise _NotARule
        return lambda i, j: all(compare(a(i, j), b(i, j)) for compare, a, b in tests)

    def members(self) -> Members:
        """`{1,3..5,i-1}`: numbers, runs of numbers and positions; whether a value is one of them."""
        self.take("{")
        fixed: set[int] = set()
        moving: list[Value] = []
        while self.peek() != "}":
            if self.peek(1) == "..":
                first, _, last = self.number(), self.take(), self.number()
                if last - first > MAX_RUN:
                    raise _NotARule
                fixed.update(range(first, last + 1))
            else:
                moving.append(self.sum())
            if self.peek() != "}":
                self.take(",")
        self.take("}")
        return lambda x, i, j: x in fixed or any(x == value(i, j) for value in moving)

    def number(self) -> int:
        sign = -1 if self.peek() == "-" and self.take() else 1
        token = self.take()
        if not token.isdigit() or int(token) > MAX_NUMBER:
            raise _NotARule
        return sign * int(token)

    def sum(self) -> Value:
        value = self.product()
        while self.peek() in ("+", "-"):
            sign, term = (1 if self.take() == "+" else -1), self.product()
            value = _added(value, term, sign)
        return value

    def product(self) -> Value:
        value = self.factor()
        while self.peek() in ("*", "mod"):
            op, right = self.take(), self.factor()
            value = _multiplied(value, right) if op == "*" else _modulo(value, right)
        return value

    def factor(self) -> Value:
        token = self.take()
        if token == "-":
            inner = self.factor()
            return lambda i, j: -inner(i, j)
        if token in ("i", "j"):
            return (lambda i, j: i) if token == "i" else (lambda i, j: j)
        if token.isdigit() and int(token) <= MAX_NUMBER:
            constant = int(token)
            return lambda i, j: constant
        if token in ("(", "|"):
            inner = self.sum()
            self.take(")" if token == "(" else "|")
            return (lambda i, j: abs(inner(i, j))) if token == "|" else inner
        raise _NotARule


def _at(name: str, i: int, j: int) -> int:
    return i if name == "i" else j


def _added(a: Value, b: Value, sign: int) -> Value:
    return lambda i, j: a(i, j) + sign * b(i, j)


def _multiplied(a: Value, b: Value) -> Value:
    return lambda i, j: a(i, j) * b(i, j)


def _modulo(a: Value, b: Value) -> Value:
    def value(i: int, j: int) -> int:
        divisor = b(i, j)
        return a(i, j) % divisor if divisor else a(i, j)
    return value
