"""Masks as real models write them: families, an algebra over them, and pasted mask functions.

Each family is a rule on positions, written in the figure exactly as it is applied (`causal` keeps j<=i, `window=W`
keeps i-W<j<=i, ...; `Mask.rule_text(0)` writes the same rule 0-based). The families are the entries of
`mask_grammar.MASK_FAMILIES`, the one table that `--help` and docs/reference.rst list; `random=R,seed=S` draws R keys a
row by SplitMix64 from seed·2³² + the query's position (Floyd's sampling, rejection below each bound), the same cells
everywhere.

Masks combine: `a & b` keeps a cell both keep, `a | b` one that either keeps, `~a` (or `!a`) one that `a` does not;
parentheses group, `~` binds tightest, then `&`, then `|`. Several masks given as a list (or several --mask flags) are
intersected. `none` is the all-keep mask: `none & a` is `a`, `none | a` keeps every cell, `~none` keeps none. In a spec,
a table says the same: `{all = [...]}`, `{any = [...]}`, `{not = ...}`, nestable. In Python, `Mask` objects combine with
`&`, `|` and `~`.

A Python callable `keep(q_idx, kv_idx) -> bool` (0-based) or FlexAttention's `mask_mod(b, h, q_idx, kv_idx)` is a custom
mask. When torch is importable it is evaluated as FlexAttention evaluates it (`create_mask`: integer tensors, the whole
grid at once), so functions built with `and_masks`/`or_masks`, `torch.abs` or tensor indexing work as pasted; a function
that only works on plain ints (Python `and`, `if`) is then called cell by cell with ints, as it is when torch is absent.

When keys outnumber queries (decoding with a cache), `align` places the causal diagonal: "top-left" (PyTorch's
`is_causal`) puts query i at key position i; "bottom-right" puts it at i + n_k - n_q, so the last query sees every key.
The rule's text then says `i+3` where it applies.

The modules below this one each hold one seam: `mask_grammar` lists and reads the families, `mask_families` binds each
to a grid, `mask_functions` evaluates pasted functions and `runs` is the rows' algebra.
"""

from __future__ import annotations

import re

from .bound_mask import CAUSAL, BoundMask
from .caption_check import checked_caption
from .mask_families import Bound, Grid, query_position
from .mask_functions import PastedFunction, bind_function, pasted_function, torch_combination
from .mask_grammar import ALIGNMENTS, FAMILIES, MASK_FAMILIES, MaskOption, boolean_matrix, parse_mask
from .runs import complement_runs, intersect_runs, scan_runs, union_runs
from .rule_text import aligned, grouped, grouped_name, labelled
from .text_check import MAX_LABEL, MAX_TITLE, check_text
from ..numbers.arrays import is_array, is_tensor
from ..numbers.exact import InputError
from ..records import dataclass, replace

TYPE_CHECKING = False  # a type checker takes it as True
if TYPE_CHECKING:
    from collections.abc import Callable, Hashable, Iterable
    from typing import TypeAlias

    from .runs import Runs
    from ..typing import Align, IndexBase, MaskItem, MaskSpec

    #: A node's parts: one leaf (a family, a pasted function, a bound mask) or the masks it joins.
    Part: TypeAlias = "MaskOption | PastedFunction | BoundMask | Naming | Mask"

__all__ = ["ALIGNMENTS", "FAMILIES", "Mask", "MaskOption", "parse_mask", "parse_expression", "resolve", "custom",
           "query_position", "scan_runs"]

MAX_TERMS = 64  # masks in one combination
MAX_DEPTH = 16  # nesting of parentheses or tables
MAX_TEXT = 100_000  # characters in one mask expression
_OPERATORS = "&|~!()"
_LEAVES = ("family", "function", "fixed", "named")


class Mask:
    """A mask before it meets a grid: a family, a pasted function, or a combination of masks.

    >>> m = Mask("window=3,symmetric") | Mask("global=1")
    >>> m
    Mask('window=3,symmetric | global=1')
    >>> (~m & Mask("causal")).text
    '~(window=3,symmetric | global=1) & causal'

    `Mask(function, name=..., rule=...)` names a pasted function and the rule it keeps; `Mask("matrix=10;11",
    name=..., rule=...)` names any other mask (the caption then says the name and rule as given).
    `bind(n_q, n_k)` gives the `engine.BoundMask` of one grid (what `figure()` does with it).
    """

    __slots__ = ("_op", "_parts")
    _op: str  # "family", "function", "fixed", "named" (a leaf), or "all", "any", "not"
    _parts: tuple[Part, ...]

    def __init__(self, spec: MaskSpec = "causal", *, name: str | None = None, rule: str | None = None) -> None:
        if isinstance(spec, Mask):
            op, parts = spec._op, spec._parts
        elif callable(spec) and not isinstance(spec, BoundMask) and name is None and rule is None and \
                (combined := torch_combination(spec)) is not None:  # and_masks(a, b): captioned from a and b
            node = _joined(combined[0], [_part(part) for part in combined[1]])
            op, parts = node._op, node._parts
        elif callable(spec) and not isinstance(spec, BoundMask):
            op, parts = "function", (pasted_function(spec, name, rule),)
        else:
            node = _from_value(spec, "mask", 0)
            node = _named(node, name, rule) if name is not None or rule is not None else node
            op, parts = node._op, node._parts
        object.__setattr__(self, "_op", op)
        object.__setattr__(self, "_parts", parts)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Mask is immutable")

    @classmethod
    def _make(cls, op: str, parts: Iterable[Part]) -> Mask:
        mask = cls.__new__(cls)
        object.__setattr__(mask, "_op", op)
        object.__setattr__(mask, "_parts", tuple(parts))
        return mask

    def _combined(self, op: str, other: MaskItem) -> Mask:
        other = other if isinstance(other, Mask) else Mask(other)
        parts: list[Part] = []
        for m in (self, other):
            parts.extend(m._parts if m._op == op else (m,))
        if len(parts) > MAX_TERMS:
            raise InputError(f"{len(parts)} masks in one combination; the limit is {MAX_TERMS}", "mask")
        return Mask._make(op, parts)

    def _masks(self) -> tuple[Mask, ...]:
        """The masks a combination ("all", "any", "not") joins."""
        masks = tuple(p for p in self._parts if isinstance(p, Mask))
        assert len(masks) == len(self._parts)
        return masks

    def __and__(self, other: MaskItem) -> Mask:
        return self._combined("all", other)

    def __or__(self, other: MaskItem) -> Mask:
        return self._combined("any", other)

    def __rand__(self, other: MaskItem) -> Mask:
        return Mask(other)._combined("all", self)

    def __ror__(self, other: MaskItem) -> Mask:
        return Mask(other)._combined("any", self)

    def __invert__(self) -> Mask:
        return Mask._make("not", (self,))

    @property
    def text(self) -> str:
        """The mask in the command line's grammar."""
        leaf = self._parts[0]
        if isinstance(leaf, MaskOption):
            return leaf.text.strip()
        if isinstance(leaf, PastedFunction):
            return leaf.label
        if isinstance(leaf, BoundMask):
            return leaf.name
        if isinstance(leaf, Naming):
            inner = self._parts[1]
            assert isinstance(inner, Mask)
            return inner.text
        if self._op == "not":
            inner = self._masks()[0]
            return "~" + (inner.text if inner._op in _LEAVES else f"({inner.text})")
        joiner = " & " if self._op == "all" else " | "
        return joiner.join(p.text if p._op not in ("all", "any") else f"({p.text})" for p in self._masks())

    def __repr__(self) -> str:
        return f"Mask({self.text!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mask) and (self._op, self._parts) == (other._op, other._parts)

    def __hash__(self) -> int:
        return hash((self._op, self._parts))

    def bind(self, n_q: int, n_k: int, align: Align = "top-left", index_base: IndexBase = 1) -> BoundMask:
        """This mask on an n_q×n_k grid, as an `engine.BoundMask`."""
        return resolve(self, n_q, n_k, align, index_base)


@dataclass(frozen=True)
class Naming:
    """A name and rule given for a mask (`--mask-name`, `--mask-rule`, a spec's `[mask]` table): the figure's
    caption says them in place of the mask's own."""

    name: str | None
    rule: str | None


def _named(mask: Mask, name: object, rule: object) -> Mask:
    """`mask` with the caption's name and rule given by the user (checked as user text)."""
    for what, text, limit in (("name", name, MAX_LABEL), ("rule", rule, MAX_TITLE)):
        if text is not None and (not isinstance(text, str) or not text.strip()):
            raise InputError(f"a mask's {what} must be a non-empty string", "mask")
        if isinstance(text, str):
            check_text(text, f"mask: {what}", limit)
    assert name is None or isinstance(name, str)
    assert rule is None or isinstance(rule, str)
    if mask._op == "function":  # a pasted function carries its own name and rule
        fn = mask._parts[0]
        assert isinstance(fn, PastedFunction)
        return Mask._make("function", (replace(fn, name=name or fn.name, rule=rule or fn.rule),))
    return Mask._make("named", (Naming(name, rule), mask))


def _part(function: Callable[..., object]) -> Mask:
    """A part of a torch-combined mask, named by its function's name (`causal`, not "custom")."""
    label = getattr(function, "__name__", "")
    named = isinstance(label, str) and label.isidentifier() and torch_combination(function) is None
    return Mask(function, name=label if named else None)


def custom(function: Callable[..., object], name: str | None = None, rule: str | None = None) -> Mask:
    """A Mask from a Python callable: keep(q_idx, kv_idx), or FlexAttention's mask_mod(b, h, q_idx, kv_idx)."""
    if not callable(function):
        raise InputError(f"expected a mask like \"window=3\" or a function keep(q_idx, kv_idx), got "
                         f"{type(function).__name__}", "mask")
    return Mask(function, name=name, rule=rule)


def _from_value(value: object, where: str, depth: int) -> Mask:
    """A Mask from any accepted value: text in the grammar, a table, a list, a function, a Mask."""
    if depth > MAX_DEPTH:
        raise InputError(f"masks nest deeper than {MAX_DEPTH} levels", where)
    if value is None or value is CAUSAL or (isinstance(value, (list, tuple)) and not value):
        value = parse_mask("causal")
    if isinstance(value, (Mask, BoundMask, MaskOption)):  # a bound mask is callable, so before functions
        return value if isinstance(value, Mask) else Mask._make("family" if isinstance(value, MaskOption) else "fixed",
                                                                (value,))
    if isinstance(value, str):
        return parse_expression(value)
    if isinstance(value, dict):
        return _from_table(value, where, depth)
    if is_array(value) or is_tensor(value):
        return Mask._make("family", (boolean_matrix(value, where),))
    if isinstance(value, (list, tuple)):
        return _joined("all", [_from_value(v, f"{where}[{n}]", depth + 1) for n, v in enumerate(value, 1)])
    if callable(value):
        return Mask(value)
    raise InputError(f"expected a mask like \"window=3\" or a function keep(q_idx, kv_idx), got "
                     f"{type(value).__name__}", "mask")


def _joined(op: str, masks: list[Mask]) -> Mask:
    out = masks[0]
    for m in masks[1:]:
        out = out._combined(op, m)
    return out


def _from_table(table: dict[object, object], where: str, depth: int) -> Mask:
    """`{all = [...]}`, `{any = [...]}` or `{not = ...}`, as a spec writes a combination; or a named mask,
    `{matrix = "10;11", name = "...", rule = "..."}` (or `mask = "..."` in place of `matrix`)."""
    if {"name", "rule", "matrix", "mask"} >= set(map(str, table)) and ("matrix" in table) != ("mask" in table):
        return _named_table(table, where, depth)
    if len(table) != 1 or next(iter(table)) not in ("all", "any", "not"):
        keys = ", ".join(map(str, table)) or "none"
        raise InputError(f"a mask table has one key, all, any or not (got {keys}), e.g. "
                         "{any = [\"window=3\", \"global=1\"]}", where)
    (op, value), = table.items()
    inner = f"{where}.{op}"
    if op == "not":
        return ~_from_value(value, inner, depth + 1)
    if not isinstance(value, (list, tuple)) or not value:
        raise InputError(f"expected a list of masks, got {type(value).__name__ if value != [] else 'an empty list'}",
                         inner)
    return _joined(str(op), [_from_value(v, f"{inner}[{n}]", depth + 1) for n, v in enumerate(value, 1)])


def parse_expression(text: str) -> Mask:
    """Read a mask in the command line's grammar: families joined by `&`, `|`, `~` (or `!`), and parentheses.

    >>> parse_expression("window=3 | global=1,8")
    Mask('window=3 | global=1,8')
    >>> parse_expression("causal & !(segments=1,1,2)").text
    'causal & ~segments=1,1,2'
    """
    if len(text) > MAX_TEXT:
        raise InputError(f"{len(text)} characters; the limit is {MAX_TEXT}", "mask")
    if not any(op in text for op in _OPERATORS):
        return Mask._make("family", (parse_mask(text),))
    reader = _Reader(text)
    mask = reader.joined(0, 0)
    if reader.position != len(reader.tokens):
        raise reader.expected("'&', '|' or the end")
    return mask


#: The binary operators, loosest first: `|` joins intersections, `&` joins complements.
_BINARY = (("|", "any"), ("&", "all"))


class _Reader:
    """A recursive-descent reader of one expression's tokens: (kind, text, character position)."""

    def __init__(self, text: str) -> None:
        self.where, self.position = f"mask {text!r}", 0
        self.tokens = [(m[0].replace("!", "~") if m[0] in _OPERATORS else "atom", m[0].strip(), m.start() + 1)
                       for m in re.finditer(r"[&|~!()]|[^&|~!()]+", text) if m[0].strip()]
        if sum(kind == "atom" for kind, _, _ in self.tokens) > MAX_TERMS:
            raise InputError(f"more than {MAX_TERMS} masks in one expression", self.where)

    def peek(self) -> str:
        return self.tokens[self.position][0] if self.position < len(self.tokens) else "end"

    def take(self) -> str:
        self.position += 1
        return self.tokens[self.position - 1][1]

    def expected(self, what: str) -> InputError:
        found = f"{self.tokens[self.position][1]!r} at character {self.tokens[self.position][2]}" \
            if self.position < len(self.tokens) else "the end"
        return InputError(f"expected {what}, found {found}", self.where)

    def joined(self, level: int, depth: int) -> Mask:
        """Operands of the level's operator (the next level's, or complements past the last) joined by it."""
        if level == len(_BINARY):
            return self.complement(depth)
        symbol, op = _BINARY[level]
        parts = [self.joined(level + 1, depth)]
        while self.peek() == symbol:
            self.take()
            parts.append(self.joined(level + 1, depth))
        return _joined(op, parts)

    def complement(self, depth: int) -> Mask:
        if depth > MAX_DEPTH:
            raise InputError(f"masks nest deeper than {MAX_DEPTH} levels", self.where)
        kind = self.peek()
        if kind not in ("~", "(", "atom"):
            raise self.expected("a mask such as causal or window=3")
        text = self.take()
        if kind == "atom":
            return Mask._make("family", (parse_mask(text),))
        if kind == "~":
            return ~self.complement(depth + 1)
        inner = self.joined(0, depth + 1)
        if self.peek() != ")":
            raise self.expected("')'")
        self.take()
        return inner


# ---------------------------------------------------------------------------------------------
# Binding: a Mask on one grid.

def resolve(mask: object, n_q: int, n_k: int, align: str = "top-left", index_base: int = 1,
            q_first: int | None = None) -> BoundMask:
    """Any accepted mask (text, a table, a `Mask`, an `engine.BoundMask`, a callable, or a list of them)
    as one `engine.BoundMask` bound to an n_q×n_k grid. Positions in the mask (padding, global) and in
    its rule are counted from `index_base`; `q_first`: queries labelled with their positions from it."""
    if align not in ALIGNMENTS:
        raise InputError(f"expected {' or '.join(ALIGNMENTS)}, got {align!r}", "align")
    if index_base not in (0, 1):
        raise InputError(f"expected 0 or 1, got {index_base!r}", "index_base")
    expression = _from_value(mask, "mask", 0)
    fixed = expression._parts[0]
    if isinstance(fixed, BoundMask):  # a bound mask is used as given
        return replace(fixed, shape=(n_q, n_k))
    if _only_padding(expression):  # padding alone is causal + padding, as a decoder pads
        expression = Mask("causal") & expression
    shift = 0 if q_first is None else q_first - index_base  # the rule's i is then the query's label
    grid = Grid(n_q, n_k, n_k - n_q if align == "bottom-right" else 0, index_base, shift)
    bound = _bind(expression, grid)
    rule = bound.rule
    rule = aligned(bound.rule, align) if bound.positional and n_q != n_k else rule
    rule = labelled(rule) if bound.positional and shift else rule
    return BoundMask(bound.name, rule(index_base), bound.keep, rule_at=rule, row_runs=bound.runs, shape=(n_q, n_k),
                     parts=bound.parts, given=bound.given)


def _only_padding(mask: Mask) -> bool:
    """True for a padding family, or an intersection of nothing else."""
    leaves = mask._masks() if mask._op == "all" else (mask,)
    return all(_family(leaf, "padding") for leaf in leaves)


def _named_table(table: dict[object, object], where: str, depth: int) -> Mask:
    """A spec's `[mask]` table: `matrix` (text "10;11" or rows of 0/1) or `mask`, with a `name` and `rule`."""
    if "matrix" in table:
        rows = table["matrix"]
        if isinstance(rows, (list, tuple)):
            rows = ";".join(row if isinstance(row, str) else ",".join(str(int(x)) if isinstance(x, bool) else str(x)
                                                                      for x in _row(row, where)) for row in rows)
        if not isinstance(rows, str):
            raise InputError(f"expected rows of 0/1 (\"10;11\" or [[1, 0], [1, 1]]), got {type(rows).__name__}",
                             f"{where}.matrix")
        inner = Mask._make("family", (parse_mask("matrix=" + rows),))
    else:
        inner = _from_value(table["mask"], f"{where}.mask", depth + 1)
    return _named(inner, table.get("name"), table.get("rule"))


def _row(row: object, where: str) -> list[object]:
    if not isinstance(row, (list, tuple)):
        raise InputError(f"expected a row of 0/1, got {type(row).__name__}", f"{where}.matrix")
    return list(row)


def _bind(mask: Mask, grid: Grid) -> Bound:
    leaf = mask._parts[0]
    if isinstance(leaf, Naming):
        return _bind_named(mask, leaf, grid)
    if isinstance(leaf, MaskOption):  # a family, by its binder in the table
        return MASK_FAMILIES[leaf.kind].bind(leaf, grid)
    if isinstance(leaf, PastedFunction):  # the rule given with it is held to its cells
        pasted = bind_function(replace(leaf, rule=None), grid)
        return pasted if leaf.rule is None else checked_caption(pasted, None, leaf.rule, grid, _binder(grid))
    if isinstance(leaf, BoundMask):
        fixed = leaf
        return Bound(fixed.name, fixed.rule_text, fixed.keep, lambda i: fixed.runs(i, grid.n_k))
    if mask._op == "not":
        return _bind_not(_bind(mask._masks()[0], grid), grid)
    bound = [_bind(p, grid) for p in _simplified(mask)]
    return bound[0] if len(bound) == 1 else _bind_joined(bound, mask._op)


def _bind_named(mask: Mask, leaf: Naming, grid: Grid) -> Bound:
    """A mask with the caption's name and rule given by the user."""
    inner_mask = mask._parts[1]
    assert isinstance(inner_mask, Mask)
    return checked_caption(_bind(inner_mask, grid), leaf.name, leaf.rule, grid, _binder(grid))


def _binder(grid: Grid) -> Callable[[str], Bound]:
    """Binds a mask's text to `grid` (the family a caption's name names)."""
    return lambda text: _bind(parse_expression(text), grid)


def _bind_not(inner: Bound, grid: Grid) -> Bound:
    name = grouped_name(grouped_name(inner.name, " + "), " or ")
    return Bound(f"not {name}", lambda base: f"not ({inner.rule(base)})", lambda i, j: not inner.keep(i, j),
                 lambda i: complement_runs(inner.runs(i), grid.n_k), inner.positional, given=inner.given)


def _bind_joined(bound: list[Bound], op: str) -> Bound:
    """An intersection ("all") or union ("any") of bound masks; a union keeps its parts' runs for the legend."""
    keeps, runs, union = [b.keep for b in bound], [b.runs for b in bound], op == "any"
    words, inner = (" or ", " + ") if union else (" and ", " or ")

    def joined_runs(i: int) -> Runs:
        out = runs[0](i)
        for r in runs[1:]:
            out = union_runs(out, r(i)) if union else intersect_runs(out, r(i))
        return out

    return Bound((" or " if union else " + ").join(grouped_name(b.name, inner) for b in bound),
                 lambda base: words.join(grouped(b.rule(base)) for b in bound),
                 lambda i, j: (any if union else all)(k(i, j) for k in keeps), joined_runs,
                 any(b.positional for b in bound), tuple((b.name, b.runs) for b in bound) if union else (),
                 any(b.given for b in bound))


def _family(mask: Mask, *kinds: str) -> MaskOption | None:
    """`mask`'s family when it is one family of these kinds."""
    leaf = mask._parts[0]
    return leaf if isinstance(leaf, MaskOption) and leaf.kind in kinds else None


def _simplified(mask: Mask) -> list[Mask]:
    """A combination's parts without repeats; in an intersection, without `none` (it keeps every
    cell) and without `causal` beside a family whose rule already includes it."""
    parts: list[Mask] = []
    seen: set[Hashable] = set()
    for p in mask._masks():
        leaf = p._parts[0]
        key: Hashable = (p._op, leaf.key) if isinstance(leaf, MaskOption) else p
        if key not in seen:
            seen.add(key)
            parts.append(p)
    if mask._op == "all":
        if len(parts) > 1:
            parts = [p for p in parts if not _family(p, "none")] or parts[:1]
        if any(_includes_causal(p) for p in parts):
            parts = [p for p in parts if not _family(p, "causal")]
    return parts


def _includes_causal(mask: Mask) -> bool:
    """True for a family whose rule includes j<=i (a causal window, chunk, segments)."""
    window = _family(mask, "window")
    return bool(_family(mask, "chunk", "segments")) or (window is not None and "symmetric" not in dict(window.options))
