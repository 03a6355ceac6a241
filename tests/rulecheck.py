"""Reads a mask's printed rule back as a predicate, so tests can hold the text to the cells it names.

The rule's words are turned into a Python expression over the figure's positions i and j (in the
figure's index base) and evaluated; nothing here imports attnviz, so a rule that reads right but
keeps different cells fails. Understood: comparisons (chains, `|x|`, `mod`), `in {..}`,
`not in {..}`, "i and j in {..}", "i and j in the same block of C positions[, blocks starting at
position S]", "i and j in the same segment of (ids)", "(i,j) marked 1 in [rows]", "(i,j) where
f(i-1,j-1) is true", "every cell", "j in R random keys of row i (seed S)" (drawn again by
`floyd_keys`, the generator docs/reference.rst documents, written here from that text), `and`, `or`,
`not`, `,` (and), `, or`, parentheses,
"j on i's path in the tree of parents (-1,0,0,1) from position F", and a final ", aligned
top-left|bottom-right" and ", i the query's label".
"""

import re

AT = r"([ij](?:[+-]\d+)?)"  # a position in a rule: i, j, i+3, i-2
_PHRASES = [
    (re.compile(AT + r" and " + AT + r" in the same block of (\d+) positions?"
                r"(?:, blocks starting at position (-?\d+))?"),
     lambda m: f"_block({m[1]}, {m[2]}, {m[3]}, {m[4] if m[4] is not None else 'base'})"),
    (re.compile(AT + r" and " + AT + r" in the same segment of \(([^)]*)\)"),
     lambda m: f"_segment({m[1]}, {m[2]}, [{_expand(m[3])}])"),
    (re.compile(AT + r" and " + AT + r" in \{([^}]*)\}"),
     lambda m: f"({m[1]} in {{{_members(m[3])}}} and {m[2]} in {{{_members(m[3])}}})"),
    (re.compile(AT + r" not in \{([^}]*)\}"), lambda m: f"({m[1]} not in {{{_members(m[2])}}})"),
    (re.compile(AT + r" in \{([^}]*)\}"), lambda m: f"({m[1]} in {{{_members(m[2])}}})"),
    (re.compile(r"\(i,j\) marked 1 in \[([01; ]*)\]"), lambda m: f"_matrix({m[1]!r})"),
    (re.compile(r"\(i,j\) where (\w+)\((i(?:-1)?),(j(?:-1)?)\) is true(?:: \"[^\"]*\")?"),
     lambda m: f"_call({m[1]!r}, {m[2]}, {m[3]})"),
    (re.compile(r"j in (\d+) random keys? of row " + AT + r" \(seed (\d+)\)"),
     lambda m: f"_random({m[1]}, {m[2]}, {m[3]})"),
    (re.compile(r"j on " + AT + r"'s path in the tree of parents \(([-\d,]*)\) from position (-?\d+)"),
     lambda m: f"_path({m[1]}, j, [{m[2]}], {m[3]})"),
    (re.compile(r"every cell"), lambda m: "True"),
]

MASK64 = 2**64 - 1


def floyd_keys(count, n_k, seed, position):
    """The 0-based keys `random=count,seed=seed` keeps in the row of the query at key `position`: Floyd's
    sampling of distinct keys of n_k, each pick below its bound by rejection, from SplitMix64 started at
    seed·2³² + position (mod 2⁶⁴); every key when count >= n_k."""
    if count >= n_k:
        return set(range(n_k))
    state, chosen = (seed * 2**32 + position) & MASK64, set()
    for top in range(n_k - count, n_k):
        while True:
            state = (state + 0x9E3779B97F4A7C15) & MASK64
            z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
            z ^= z >> 31
            if z < 2**64 - 2**64 % (top + 1):
                break
        pick = z % (top + 1)
        chosen.add(top if pick in chosen else pick)
    return chosen


def _expand(ids):
    """Segment ids with runs written out: "0×3, 1" -> "0, 0, 0, 1"."""
    out = []
    for part in ids.split(", "):
        value, _, count = part.partition("×")
        out.extend([value] * int(count or 1))
    return ", ".join(out)


def _members(text):
    """A set's members with ranges written out: "1..3,7" -> "1,2,3,7"."""
    out = []
    for part in filter(None, text.split(",")):
        first, _, last = part.partition("..")
        out.extend(map(str, range(int(first), int(last or first) + 1)))
    return ",".join(out)


def to_python(rule):
    """The rule as a Python expression in i, j and the helpers below."""
    text = re.sub(r"(, aligned (top-left|bottom-right))?(, i the query's label)?$", "", rule)
    held = []

    def hold(replacement):
        held.append(replacement)
        return f"__{len(held) - 1}__"

    for pattern, replace in _PHRASES:
        text = pattern.sub(lambda m, replace=replace: hold(replace(m)), text)
    text = re.sub(r"\|([^|]+)\|", r"abs(\1)", text)
    text = text.replace(" mod ", " % ")
    text = re.sub(r"(?<![<>=!])=(?!=)", "==", text)
    text = text.replace(", or ", " or ").replace(", ", " and ")
    for n in reversed(range(len(held))):
        text = text.replace(f"__{n}__", held[n])
    return text


def predicate(rule, base, functions=None, n_k=None):
    """keep(i, j) on 0-based cells, as the rule's text says, with positions counted from `base` (`n_k`: the
    keys a random rule draws from)."""
    expression = compile(to_python(rule), "<rule>", "eval")
    functions = functions or {}

    def keep(i0, j0):
        i, j = i0 + base, j0 + base

        def block(x, y, size, start):
            return (x - start) // size == (y - start) // size

        def segment(x, y, ids):
            return 0 <= x - base < len(ids) and 0 <= y - base < len(ids) and ids[x - base] == ids[y - base]

        def matrix(rows):
            return [r.strip() for r in rows.split(";")][i - base][j - base] == "1"

        def call(name, a, b):
            return bool(functions[name](a, b))

        def path(x, y, parents, first):  # y is x or one of its ancestors in the tree (tree tokens from `first`)
            t = x - first
            if not 0 <= t < len(parents):
                return False
            while t >= 0:
                if y - first == t:
                    return True
                t = parents[t]
            return False

        def random(count, position, seed):
            return j - base in floyd_keys(count, n_k, seed, position - base)

        return bool(eval(expression, {"__builtins__": {"abs": abs}},  # noqa: S307 - our own rule text
                         {"i": i, "j": j, "base": base, "_block": block, "_segment": segment, "_matrix": matrix,
                          "_call": call, "_random": random, "_path": path}))

    return keep
