"""Masks as real models write them: families, an algebra over them, and pasted mask functions.

Each family is a rule on positions, written in the figure exactly as it is applied (here with the
figure's default 1-based positions; `Mask.rule_text(0)` writes the same rule 0-based):

    causal                 keep j<=i
    none (or full)         keep every cell (bidirectional)
    window=W               keep i-W<j<=i          (W keys per query, itself included; Hugging Face's)
    window=W,symmetric     keep |i-j|<W           (W-1 keys each side, and itself)
    window=W,dilation=D    keep i-W·D<j<=i, (i-j) mod D = 0   (W keys, D apart; with symmetric too)
    global=1,8             keep i in {1,8} or j in {1,8}   (global tokens: Longformer, BigBird)
    prefix=P               keep j<=i, or i<=P and j<=P
    prefix=P,documents=ID,...  the same within each document, its first P positions the prefix
    chunk=C[,offset=O]     keep j<=i when i and j are in the same block of C positions (blocks
                           start O positions later: Hugging Face's left padding)
    segments=ID,...        keep j<=i when i and j have the same segment id (packed documents, causal)
    documents=ID,...       keep i and j with the same segment id (block-diagonal, bidirectional)
    padding=4,5            mask those key positions (with causal, unless `none` is given too)
    matrix=10;11           keep the cells marked 1

Masks combine: `a & b` keeps a cell both keep, `a | b` one that either keeps, `~a` (or `!a`) one
that `a` does not; parentheses group, `~` binds tightest, then `&`, then `|`. Several masks given
as a list (or several --mask flags) are intersected. `none` is the all-keep mask: `none & a` is
`a`, `none | a` keeps every cell, `~none` keeps none. In a spec, a table says the same:
`{all = [...]}`, `{any = [...]}`, `{not = ...}`, nestable. In Python, `Mask` objects combine with
`&`, `|` and `~`.

A Python callable `keep(q_idx, kv_idx) -> bool` (0-based) or FlexAttention's `mask_mod(b, h,
q_idx, kv_idx)` is a custom mask. When torch is importable it is evaluated as FlexAttention
evaluates it (`create_mask`: integer tensors, the whole grid at once), so functions built with
`and_masks`/`or_masks`, `torch.abs` or tensor indexing work as pasted; a function that only
works on plain ints (Python `and`, `if`) is then called cell by cell with ints, as it is when
torch is absent.

When keys outnumber queries (decoding with a cache), `align` places the causal diagonal:
"top-left" (PyTorch's `is_causal`) puts query i at key position i; "bottom-right" puts it at
i + n_k - n_q, so the last query sees every key. The rule's text then says `i+3` where it applies.
"""

from __future__ import annotations

import contextlib
import difflib
import inspect
import numbers
import re
import warnings

from . import attention as engine
from .attention import CAUSAL, check_matrix_shape
from ..numbers.exact import InputError
from ..records import dataclass, field, replace

TYPE_CHECKING = False  # a type checker takes it as True
if TYPE_CHECKING:
    from ..typing import Align, IndexBase, MaskItem

__all__ = ["ALIGNMENTS", "FAMILIES", "Mask", "MaskOption", "parse_mask", "parse_expression", "resolve", "custom",
           "query_position", "scan_runs"]

ALIGNMENTS = ("top-left", "bottom-right")
#: Each family's form, in the words of error messages and docs.
FAMILIES = ("causal", "none", "full", "window=W[,symmetric][,dilation=D]", "global=J,J,...",
            "prefix=P[,documents=ID,...]", "chunk=C[,offset=O]", "segments=ID,ID,...", "documents=ID,ID,...",
            "padding=J,J,...", "matrix=ROW;ROW;...")
MAX_PARAMETER = 10**6  # window, prefix and chunk sizes beyond any grid are all the same mask
MAX_TERMS = 64  # masks in one combination
MAX_DEPTH = 16  # nesting of parentheses or tables
MAX_TEXT = 100_000  # characters in one mask expression
MAX_LISTED_IDS = 16  # longer lists of ids and positions are written with runs: 0×256, {1..64}
_OPERATORS = "&|~!()"


@dataclass(frozen=True)
class MaskOption:
    """One parsed family, not yet bound to a grid: `kind` is a family name, `value` its main value,
    `options` its named extras as sorted (name, value) pairs: (("dilation", 2), ("symmetric", True))."""

    kind: str
    value: object  # int, tuple of ints, tuple of rows of bools, or None
    text: str  # as given, for error messages
    options: tuple = field(default=(), repr=False)

    @property
    def key(self):
        """What makes two options the same rule: " Causal " and "causal" are one."""
        return self.kind, self.value, self.options


def parse_mask(text):
    """Read one family: "causal", "none", "window=3", "window=3,symmetric", "segments=1,1,2", ...

    >>> parse_mask("window=3")
    MaskOption(kind='window', value=3, text='window=3')
    >>> parse_mask("matrix=10;11").value
    ((True, False), (True, True))
    >>> parse_mask("chunk=4, offset=2").options
    (('offset', 2),)
    """
    where = f"mask {text!r}"
    if not isinstance(text, str):
        raise InputError(f"expected a mask like \"window=3\" or a function keep(q_idx, kv_idx), got "
                         f"{type(text).__name__}", "mask")
    kind, has_value, value = (part.strip() for part in text.partition("="))
    kind = kind.lower()
    if kind == "full":
        kind = "none"  # one all-keep mask, two names
    if kind in ("causal", "none"):
        if has_value:
            raise InputError(f"'{kind}' takes no value", where)
        return MaskOption(kind, None, text)
    if kind not in _PARSERS:
        names = ["causal", "none", "full", *_PARSERS]
        close = difflib.get_close_matches(kind, names, n=1, cutoff=0.6)
        hint = f"did you mean '{close[0]}'? " if close else ""
        raise InputError(f"unknown mask {kind!r}; {hint}masks are {', '.join(FAMILIES)}", where)
    if not has_value or not value:
        form = next(f for f in FAMILIES if f.startswith(kind + "="))
        raise InputError(f"'{kind}' needs a value: {form}", where)
    main, options = _PARSERS[kind](value, where)
    return MaskOption(kind, main, text, tuple(sorted(options.items())))


def _integer(text, where, what):
    text = text.strip()
    if not re.fullmatch(r"[+-]?\d{1,7}", text):
        raise InputError(f"{text!r} is not {what}", where)
    return int(text)


def _bounded(text, where, low, what):
    value = _integer(text, where, "a whole number of positions")
    if not low <= value <= MAX_PARAMETER:
        raise InputError(f"needs {what} from {low} to {MAX_PARAMETER}, got {value}", where)
    return value


def _with_options(text, where, allowed):
    """Split "3,symmetric,dilation=2" into its main value "3" and {"symmetric": True, "dilation": "2"};
    a named option's value runs to the next name ("documents=1,1,2")."""
    first, *rest = text.split(",")
    main, options, current = [first], {}, None
    for part in rest:
        name, has_value, value = (p.strip() for p in part.partition("="))
        if has_value or re.fullmatch(r"[a-z]+", name.lower()):
            name = name.lower()
            if name not in allowed:
                known = ", ".join(f"{n}={v}" if v else n for n, v in allowed.items())
                raise InputError(f"unknown option {name!r}; the options here are {known}", where)
            if name in options:
                raise InputError(f"{name!r} is given twice", where)
            if bool(allowed[name]) != bool(has_value):
                raise InputError(f"{name!r} " + (f"needs a value: {name}={allowed[name]}" if allowed[name]
                                                 else "takes no value"), where)
            options[name] = [value] if has_value else True
            current = options[name] if has_value else None
        elif current is not None:
            current.append(part)
        else:
            main.append(part)
    return ",".join(main), options


def _window(text, where):
    main, options = _with_options(text, where, {"symmetric": "", "dilation": "D"})
    out = {}
    if "symmetric" in options:
        out["symmetric"] = True
    if "dilation" in options:
        dilation = _bounded(",".join(options["dilation"]), where, 1, "a dilation")
        if dilation > 1:
            out["dilation"] = dilation
    return _bounded(main, where, 1, "a size"), out


def _prefix(text, where):
    main, options = _with_options(text, where, {"documents": "ID,ID,..."})
    out = {"documents": _segments(",".join(options["documents"]), where)[0]} if "documents" in options else {}
    return _bounded(main, where, 0, "a prefix length"), out


def _chunk(text, where):
    main, options = _with_options(text, where, {"offset": "O"})
    out = {}
    if "offset" in options:
        offset = _bounded(",".join(options["offset"]), where, 0, "an offset")
        if offset:
            out["offset"] = offset
    return _bounded(main, where, 1, "a size"), out


def _size(text, where):
    return _bounded(text, where, 1, "a size"), {}


def _segments(text, where):
    return tuple(_integer(part, where, "a segment id (an integer)") for part in text.split(",")), {}


def _positions(text, where):
    positions = tuple(_integer(part, where, "a position (1, 2, ...)") for part in text.split(","))
    return tuple(sorted(set(positions))), {}


def _matrix(text, where):
    rows = [row.strip() for row in text.split(";")]
    if len(rows) > 1 and rows[-1] == "":
        rows.pop()
    out = []
    for n, row in enumerate(rows, 1):
        entries = [e.strip() for e in row.split(",")] if "," in row else list(row.replace(" ", ""))
        if not entries or any(e not in ("0", "1") for e in entries):
            raise InputError(f"row {n} is {row!r}; rows are 0s and 1s like 110 or 1,1,0, separated by ';'", where)
        out.append(tuple(e == "1" for e in entries))
    return tuple(out), {}


_PARSERS = {"window": _window, "global": _positions, "prefix": _prefix, "chunk": _chunk, "segments": _segments,
            "documents": _segments, "padding": _positions, "matrix": _matrix}


# ---------------------------------------------------------------------------------------------
# Expressions: a tree of families, functions and fixed masks under all / any / not.

@dataclass(frozen=True)
class _Function:
    """A pasted mask function, its arity (2 or 4) and how the figure names it."""

    function: object
    arity: int
    label: str  # the function's name, as the rule writes it
    name: str  # the mask's name in the figure: "custom" unless given
    rule: str = None  # the rule as given (rule=), shown instead of the call
    words: str = None  # the docstring's first line, quoted after the call


class Mask:
    """A mask before it meets a grid: a family, a pasted function, or a combination of masks.

    >>> m = Mask("window=3,symmetric") | Mask("global=1")
    >>> m
    Mask('window=3,symmetric | global=1')
    >>> (~m & Mask("causal")).text
    '~(window=3,symmetric | global=1) & causal'

    `Mask(function, name=..., rule=...)` names a pasted function and the rule it keeps.
    `bind(n_q, n_k)` gives the `engine.BoundMask` of one grid (what `figure()` does with it).
    """

    __slots__ = ("_op", "_parts")

    def __init__(self, spec: MaskItem = "causal", *, name: str | None = None, rule: str | None = None) -> None:
        if isinstance(spec, Mask):
            op, parts = spec._op, spec._parts
        elif callable(spec) and not isinstance(spec, engine.BoundMask):
            op, parts = "function", (_function(spec, name, rule),)
        else:
            if name is not None or rule is not None:
                raise InputError("name= and rule= name a mask function; a family names itself", "mask")
            node = _from_value(spec, "mask", 0)
            op, parts = node._op, node._parts
        object.__setattr__(self, "_op", op)
        object.__setattr__(self, "_parts", parts)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Mask is immutable")

    @classmethod
    def _make(cls, op, parts):
        mask = cls.__new__(cls)
        object.__setattr__(mask, "_op", op)
        object.__setattr__(mask, "_parts", tuple(parts))
        return mask

    def _combined(self, op, other):
        other = other if isinstance(other, Mask) else Mask(other)
        parts = []
        for m in (self, other):
            parts.extend(m._parts if m._op == op else (m,))
        if len(parts) > MAX_TERMS:
            raise InputError(f"{len(parts)} masks in one combination; the limit is {MAX_TERMS}", "mask")
        return Mask._make(op, parts)

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
        if self._op == "family":
            return self._parts[0].text.strip()
        if self._op == "function":
            return self._parts[0].label
        if self._op == "fixed":
            return self._parts[0].name
        if self._op == "not":
            inner = self._parts[0]
            return "~" + (inner.text if inner._op in ("family", "function", "fixed") else f"({inner.text})")
        joiner = " & " if self._op == "all" else " | "
        return joiner.join(p.text if p._op not in ("all", "any") else f"({p.text})" for p in self._parts)

    def __repr__(self) -> str:
        return f"Mask({self.text!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mask) and (self._op, self._parts) == (other._op, other._parts)

    def __hash__(self) -> int:
        return hash((self._op, self._parts))

    def bind(self, n_q: int, n_k: int, align: Align = "top-left", index_base: IndexBase = 1) -> engine.BoundMask:
        """This mask on an n_q×n_k grid, as an `engine.BoundMask`."""
        bound: engine.BoundMask = resolve(self, n_q, n_k, align, index_base)
        return bound


def _function(function, name=None, rule=None):
    for what, text in (("name", name), ("rule", rule)):
        if text is not None and (not isinstance(text, str) or not text.strip()):
            raise InputError(f"{what}= must be a non-empty string", "mask")
    label = getattr(function, "__name__", "keep")
    label = label if isinstance(label, str) and label.isidentifier() else "keep"  # "<lambda>"
    doc = inspect.getdoc(function) if inspect.isfunction(function) else None
    words = " ".join(doc.strip().split("\n\n")[0].split())[:120] if doc and doc.strip() else None
    return _Function(function, _arity(function), label, name or "custom", rule, words)


def custom(function, name=None, rule=None):
    """A Mask from a Python callable: keep(q_idx, kv_idx), or FlexAttention's mask_mod(b, h, q_idx, kv_idx)."""
    if not callable(function):
        raise InputError(f"expected a mask like \"window=3\" or a function keep(q_idx, kv_idx), got "
                         f"{type(function).__name__}", "mask")
    return Mask(function, name=name, rule=rule)


def _from_value(value, where, depth):
    """A Mask from any accepted value: text in the grammar, a table, a list, a function, a Mask."""
    if depth > MAX_DEPTH:
        raise InputError(f"masks nest deeper than {MAX_DEPTH} levels", where)
    if isinstance(value, Mask):
        return value
    if value is None or value is CAUSAL:
        return Mask._make("family", (parse_mask("causal"),))
    if isinstance(value, engine.BoundMask):
        return Mask._make("fixed", (value,))
    if isinstance(value, MaskOption):
        return Mask._make("family", (value,))
    if isinstance(value, str):
        return parse_expression(value)
    if isinstance(value, dict):
        return _from_table(value, where, depth)
    if isinstance(value, (list, tuple)):
        if not value:
            return Mask._make("family", (parse_mask("causal"),))
        return _joined("all", [_from_value(v, f"{where}[{n}]", depth + 1) for n, v in enumerate(value, 1)], where)
    if callable(value):
        return Mask(value)
    raise InputError(f"expected a mask like \"window=3\" or a function keep(q_idx, kv_idx), got "
                     f"{type(value).__name__}", "mask")


def _joined(op, masks, where):
    if len(masks) == 1:
        return masks[0]
    out = masks[0]
    for m in masks[1:]:
        out = out._combined(op, m)
    return out


def _from_table(table, where, depth):
    """`{all = [...]}`, `{any = [...]}` or `{not = ...}`, as a spec writes a combination."""
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
    return _joined(op, [_from_value(v, f"{inner}[{n}]", depth + 1) for n, v in enumerate(value, 1)], inner)


def parse_expression(text):
    """Read a mask in the command line's grammar: families joined by `&`, `|`, `~` (or `!`), and
    parentheses.

    >>> parse_expression("window=3 | global=1,8")
    Mask('window=3 | global=1,8')
    >>> parse_expression("causal & !(segments=1,1,2)").text
    'causal & ~segments=1,1,2'
    """
    if len(text) > MAX_TEXT:
        raise InputError(f"{len(text)} characters; the limit is {MAX_TEXT}", "mask")
    if not any(op in text for op in _OPERATORS):
        return Mask._make("family", (parse_mask(text),))
    where = f"mask {text!r}"
    tokens = []  # (kind, text, character position)
    for match in re.finditer(r"[&|~!()]|[^&|~!()]+", text):
        if match[0] in _OPERATORS:
            tokens.append((match[0].replace("!", "~"), match[0], match.start() + 1))
        elif match[0].strip():
            tokens.append(("atom", match[0].strip(), match.start() + 1))
    if sum(kind == "atom" for kind, _, _ in tokens) > MAX_TERMS:
        raise InputError(f"more than {MAX_TERMS} masks in one expression", where)
    position = 0

    def peek():
        return tokens[position][0] if position < len(tokens) else "end"

    def expected(what):
        found = f"{tokens[position][1]!r} at character {tokens[position][2]}" if position < len(tokens) else "the end"
        raise InputError(f"expected {what}, found {found}", where)

    def union(depth):
        parts = [intersection(depth)]
        while peek() == "|":
            take()
            parts.append(intersection(depth))
        return _joined("any", parts, where)

    def intersection(depth):
        parts = [complement(depth)]
        while peek() == "&":
            take()
            parts.append(complement(depth))
        return _joined("all", parts, where)

    def complement(depth):
        if depth > MAX_DEPTH:
            raise InputError(f"masks nest deeper than {MAX_DEPTH} levels", where)
        kind = peek()
        if kind == "~":
            take()
            return ~complement(depth + 1)
        if kind == "(":
            take()
            inner = union(depth + 1)
            if peek() != ")":
                expected("')'")
            take()
            return inner
        if kind == "atom":
            return Mask._make("family", (parse_mask(take()),))
        expected("a mask such as causal or window=3")

    def take():
        nonlocal position
        position += 1
        return tokens[position - 1][1]

    mask = union(0)
    if position != len(tokens):
        expected("'&', '|' or the end")
    return mask


# ---------------------------------------------------------------------------------------------
# Runs: a row's kept keys as sorted, disjoint, half-open ranges (start, stop), 0-based.

def scan_runs(keep, n_k):
    """Runs of the keys j in range(n_k) where keep(j) is true.

    >>> scan_runs(lambda j: j in (0, 1, 3), 5)
    ((0, 2), (3, 4))
    """
    runs, start = [], None
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


def _clip(start, stop, n_k):
    start, stop = max(start, 0), min(stop, n_k)
    return ((start, stop),) if start < stop else ()


def _positions_runs(positions, n_k):
    """Sorted 0-based positions as runs, those outside 0..n_k-1 left out."""
    runs = []
    for p in positions:
        if 0 <= p < n_k:
            if runs and runs[-1][1] == p:
                runs[-1] = (runs[-1][0], p + 1)
            else:
                runs.append((p, p + 1))
    return tuple(runs)


def _intersect_runs(a, b):
    out, x, y = [], 0, 0
    while x < len(a) and y < len(b):
        start, stop = max(a[x][0], b[y][0]), min(a[x][1], b[y][1])
        if start < stop:
            out.append((start, stop))
        if a[x][1] < b[y][1]:
            x += 1
        else:
            y += 1
    return tuple(out)


def _union_runs(a, b):
    out = []
    for start, stop in sorted(a + b):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], stop))
        else:
            out.append((start, stop))
    return tuple(out)


def _complement_runs(a, n_k):
    out, at = [], 0
    for start, stop in a:
        if at < start:
            out.append((at, start))
        at = stop
    if at < n_k:
        out.append((at, n_k))
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# Binding: a Mask on one grid.

@dataclass(frozen=True)
class _Bound:
    name: str
    rule: object  # callable base -> text
    keep: object  # callable (i, j) -> bool, 0-based
    runs: object  # callable i -> runs
    positional: bool = False  # uses the query's position, so the alignment matters


@dataclass(frozen=True)
class _Grid:
    n_q: int
    n_k: int
    offset: int  # query i sits at key position i + offset
    base: int  # the index base positions are given and written in


def resolve(mask, n_q, n_k, align="top-left", index_base=1):
    """Any accepted mask (text, a table, a `Mask`, an `engine.BoundMask`, a callable, or a list of them)
    as one `engine.BoundMask` bound to an n_q×n_k grid. Positions in the mask (padding, global) and in
    its rule are counted from `index_base`."""
    if align not in ALIGNMENTS:
        raise InputError(f"expected {' or '.join(ALIGNMENTS)}, got {align!r}", "align")
    if index_base not in (0, 1):
        raise InputError(f"expected 0 or 1, got {index_base!r}", "index_base")
    expression = _from_value(mask, "mask", 0)
    if expression._op == "fixed":  # a bound mask is used as given
        return replace(expression._parts[0], shape=(n_q, n_k))
    if _only_padding(expression):  # padding alone is causal + padding, as a decoder pads
        expression = Mask("causal") & expression
    grid = _Grid(n_q, n_k, n_k - n_q if align == "bottom-right" else 0, index_base)
    bound = _bind(expression, grid)
    rule = bound.rule
    if bound.positional and n_q != n_k:
        rule = _aligned(bound.rule, align)
    return engine.BoundMask(bound.name, rule(index_base), bound.keep, rule_at=rule, row_runs=bound.runs,
                       shape=(n_q, n_k))


def _only_padding(mask):
    """True for a padding family, or an intersection of nothing else."""
    leaves = mask._parts if mask._op == "all" else (mask,)
    return all(leaf._op == "family" and leaf._parts[0].kind == "padding" for leaf in leaves)


def _aligned(rule, align):
    return lambda base: f"{rule(base)}, aligned {align}"


def _bind(mask, grid):
    if mask._op == "family":
        return _bind_family(mask._parts[0], grid)
    if mask._op == "function":
        return _bind_function(mask._parts[0], grid)
    if mask._op == "fixed":
        fixed = mask._parts[0]
        return _Bound(fixed.name, fixed.rule_text, fixed.keep,
                      lambda i: fixed.runs(i, grid.n_k))
    if mask._op == "not":
        inner = _bind(mask._parts[0], grid)
        name = _grouped_name(_grouped_name(inner.name, " + "), " or ")
        return _Bound(f"not {name}", lambda base: f"not ({inner.rule(base)})",
                      lambda i, j: not inner.keep(i, j), lambda i: _complement_runs(inner.runs(i), grid.n_k),
                      inner.positional)
    parts = _simplified(mask, grid)
    bound = [_bind(p, grid) for p in parts]
    if len(bound) == 1:
        return bound[0]
    keeps, runs = [b.keep for b in bound], [b.runs for b in bound]
    positional = any(b.positional for b in bound)
    if mask._op == "all":
        def all_runs(i):
            out = runs[0](i)
            for r in runs[1:]:
                out = _intersect_runs(out, r(i))
            return out

        return _Bound(" + ".join(_grouped_name(b.name, " or ") for b in bound),
                      lambda base: " and ".join(_grouped(b.rule(base)) for b in bound),
                      lambda i, j: all(k(i, j) for k in keeps), all_runs, positional)

    def any_runs(i):
        out = ()
        for r in runs:
            out = _union_runs(out, r(i))
        return out

    return _Bound(" or ".join(_grouped_name(b.name, " + ") for b in bound),
                  lambda base: " or ".join(_grouped(b.rule(base)) for b in bound),
                  lambda i, j: any(k(i, j) for k in keeps), any_runs, positional)


def _simplified(mask, grid):
    """A combination's parts without repeats; in an intersection, without `none` (it keeps every
    cell) and without `causal` beside a family whose rule already includes it."""
    parts, seen = [], set()
    for p in mask._parts:
        key = (p._op, p._parts[0].key) if p._op == "family" else p
        if key not in seen:
            seen.add(key)
            parts.append(p)
    if mask._op == "all":
        def family(p, *kinds):
            return p._op == "family" and p._parts[0].kind in kinds

        if len(parts) > 1:
            parts = [p for p in parts if not family(p, "none")] or parts[:1]
        if any(_includes_causal(p) for p in parts):
            parts = [p for p in parts if not family(p, "causal")]
    return parts


def _includes_causal(mask):
    """True for a family whose rule includes j<=i (a causal window, chunk, segments)."""
    if mask._op != "family":
        return False
    option = mask._parts[0]
    return option.kind in ("chunk", "segments") or (option.kind == "window" and "symmetric" not in dict(option.options))


def _grouped(rule):
    """A rule in parentheses when joining it with "and"/"or" would make it ambiguous."""
    if rule.startswith("not (") and _one_group(rule[4:]):
        return rule
    return f"({rule})" if any(word in rule for word in (", ", " or ", " and ")) else rule


def _one_group(text):
    """True when `text` is one parenthesised group: "(a) or (b)" is two."""
    depth = 0
    for n, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0:
            return n == len(text) - 1
    return False


def _grouped_name(name, joiner):
    return f"({name})" if joiner in name else name


def query_position(offset, shift=0):
    """The query's key position as text: "i", "i+3", "i-2"."""
    c = offset + shift
    return "i" if c == 0 else f"i+{c}" if c > 0 else f"i-{-c}"


def _set_text(positions, base):
    """Sorted 0-based positions as a set in `base`; a long set writes its runs as ranges, {1..64,257..320}.

    >>> _set_text((0, 3), 1), _set_text(tuple(range(20)) + (30,), 0)
    ('{1,4}', '{0..19,30}')
    """
    shown = [p + base for p in positions]
    if len(shown) <= MAX_LISTED_IDS:
        return "{" + ",".join(map(str, shown)) + "}"
    parts, start = [], 0
    for n in range(1, len(shown) + 1):
        if n == len(shown) or shown[n] != shown[n - 1] + 1:
            first, last = shown[start], shown[n - 1]
            parts.append(f"{first}..{last}" if last - first >= 2 else ",".join(map(str, range(first, last + 1))))
            start = n
    return "{" + ",".join(parts) + "}"


def _bind_family(option, grid):
    """A family on the grid, query i at key position i+offset. keep() and runs() are 0-based."""
    kind, value, opts, where = option.kind, option.value, dict(option.options), f"mask {option.text!r}"
    n_k, offset = grid.n_k, grid.offset
    p = query_position(offset)
    if kind == "causal":
        return _Bound("causal", lambda base: f"j<={p}", lambda i, j: j <= i + offset,
                      lambda i: _clip(0, i + offset + 1, n_k), True)
    if kind == "none":
        return _Bound("bidirectional", lambda base: "every cell", lambda i, j: True, lambda i: _clip(0, n_k, n_k))
    if kind == "window":
        return _window_mask(value, opts.get("dilation", 1), "symmetric" in opts, grid)
    if kind == "global":
        positions = _zero_based(value, grid, where, max(n_k, grid.n_q + offset))
        chosen = frozenset(positions)

        def rule(base):
            shown = _set_text(positions, base)
            return f"{p} in {shown} or j in {shown}"

        own = _positions_runs(positions, n_k)
        return _Bound("global", rule, lambda i, j: i + offset in chosen or j in chosen,
                      lambda i: _clip(0, n_k, n_k) if i + offset in chosen else own, True)
    if kind == "prefix" and "documents" in opts:
        return _document_prefix(value, opts["documents"], grid, where)
    if kind == "prefix":
        return _Bound("prefix-LM", lambda base: f"j<={p}, or {p}<={value - 1 + base} and j<={value - 1 + base}",
                      lambda i, j: j <= i + offset or (i + offset < value and j < value),
                      lambda i: _clip(0, max(i + offset + 1, value if i + offset < value else 0), n_k), True)
    if kind == "chunk":
        size, start = value, opts.get("offset", 0) % value
        plural = "s" * (value > 1)

        def rule(base):
            starts = f", blocks starting at position {start + base}" if start else ""
            return f"j<={p}, {p} and j in the same block of {size} position{plural}{starts}"

        def runs(i):
            q = i + offset
            return _clip((q - start) // size * size + start, q + 1, n_k)

        def keep(i, j):
            return j <= i + offset and (i + offset - start) // size == (j - start) // size

        return _Bound("chunked", rule, keep, runs, True)
    if kind in ("segments", "documents"):
        query_ids, same = _documents(value, grid, where)
        shown = _ids_text(value)
        if kind == "documents":
            return _Bound("bidirectional document", lambda base: f"{p} and j in the same segment of ({shown})",
                          lambda i, j: query_ids[i] == value[j], lambda i: same[query_ids[i]], True)
        return _Bound("document", lambda base: f"j<={p}, {p} and j in the same segment of ({shown})",
                      lambda i, j: j <= i + offset and query_ids[i] == value[j],
                      lambda i: _intersect_runs(same[query_ids[i]], _clip(0, i + offset + 1, n_k)), True)
    if kind == "padding":
        positions = _zero_based(value, grid, where, n_k, "key position", "keys")
        padded = frozenset(positions)
        kept = _complement_runs(_positions_runs(positions, n_k), n_k)
        return _Bound("padding", lambda base: f"j not in {_set_text(positions, base)}", lambda i, j: j not in padded,
                      lambda i: kept)
    if kind == "matrix":
        check_matrix_shape(value, grid.n_q, n_k, where)
        rows = "; ".join("".join("1" if x else "0" for x in row) for row in value)
        row_runs = [scan_runs(row.__getitem__, n_k) for row in value]
        return _Bound("explicit", lambda base: f"(i,j) marked 1 in [{rows}]", lambda i, j: value[i][j],
                      row_runs.__getitem__)
    raise AssertionError(kind)


def _zero_based(positions, grid, where, limit, what="position", span="positions"):
    """Positions as typed (in the figure's index base) made 0-based, each checked to be on the grid."""
    out = tuple(x - grid.base for x in positions)
    if out and out[0] < 0:
        raise InputError(f"{what}s start at {grid.base}, got {positions[0]}", where)
    if out and out[-1] >= limit:
        raise InputError(f"{what} {positions[-1]} is outside the grid ({span} {grid.base}..{limit - 1 + grid.base})",
                         where)
    return out


def _window_mask(width, dilation, symmetric, grid):
    n_k, offset = grid.n_k, grid.offset
    p, span = query_position(offset), width * dilation
    if symmetric:
        name, text = "symmetric sliding-window", f"|{p}-j|<{span}"

        def distance_ok(d):
            return -span < d < span
    else:
        name, text = "sliding-window", f"{query_position(offset, -span)}<j<={p}"

        def distance_ok(d):
            return 0 <= d < span
    if dilation == 1:
        def runs(i):
            q = i + offset
            return _clip(q - span + 1, q + span if symmetric else q + 1, n_k)

        return _Bound(name, lambda base: text, lambda i, j: distance_ok(i + offset - j), runs, True)

    def dilated_runs(i):
        q = i + offset
        low = max(-(width - 1) if symmetric else 0, -((n_k - 1 - q) // dilation))
        high = min(width - 1, q // dilation)
        return tuple((q - k * dilation, q - k * dilation + 1) for k in range(high, low - 1, -1))

    return _Bound(f"dilated {name}", lambda base: f"{text}, ({p}-j) mod {dilation} = 0",
                  lambda i, j: distance_ok(i + offset - j) and (i + offset - j) % dilation == 0, dilated_runs, True)


def _ids_text(ids):
    """Segment ids as a rule writes them: each one, or for a long list, a run of one id as `id×count`
    (1,024 packed tokens in four documents read `(0×256, 1×256, 2×256, 3×256)`).

    >>> _ids_text((1, 1, 2)), _ids_text((0,) * 20 + (1, 2))
    ('1, 1, 2', '0×20, 1, 2')
    """
    if len(ids) <= MAX_LISTED_IDS:
        return ", ".join(map(str, ids))
    parts, start = [], 0
    for n in range(1, len(ids) + 1):
        if n == len(ids) or ids[n] != ids[start]:
            count = n - start
            parts.extend([f"{ids[start]}×{count}"] if count >= 3 else [str(ids[start])] * count)
            start = n
    return ", ".join(parts)


def _documents(ids, grid, where):
    """Each query's segment id (None for a query before the first key: it is in no document) and,
    for each id, the runs of the keys that carry it."""
    if len(ids) != grid.n_k:
        raise InputError(f"{len(ids)} segment ids for {grid.n_k} key positions; give one per key", where)
    if grid.offset + grid.n_q > grid.n_k:
        raise InputError(f"query {grid.n_q} sits at key position {grid.n_q + grid.offset}, past the {grid.n_k} "
                         "segment ids; give at least as many keys as queries", where)
    same = {d: _positions_runs([j for j, x in enumerate(ids) if x == d], grid.n_k) for d in set(ids)}
    same[None] = ()
    query_ids = tuple(ids[i + grid.offset] if i + grid.offset >= 0 else None for i in range(grid.n_q))
    return query_ids, same


def _document_prefix(length, ids, grid, where):
    """Prefix-LM within each document: a document's first `length` positions see each other."""
    query_ids, same = _documents(ids, grid, where)
    seen, prefix = {}, []
    for j, d in enumerate(ids):
        seen[d] = seen.get(d, 0) + 1
        if seen[d] <= length:
            prefix.append(j)
    in_prefix, prefix_runs = frozenset(prefix), _positions_runs(prefix, grid.n_k)
    p, offset, shown = query_position(grid.offset), grid.offset, _ids_text(ids)

    def keep(i, j):
        q = i + offset
        return query_ids[i] == ids[j] and (j <= q or (q in in_prefix and j in in_prefix))

    def runs(i):
        q = i + offset
        visible = _clip(0, q + 1, grid.n_k)
        if q in in_prefix:
            visible = _union_runs(visible, prefix_runs)
        return _intersect_runs(same[query_ids[i]], visible)

    return _Bound("prefix-LM per document",
                  lambda base: f"{p} and j in the same segment of ({shown}) and "
                               f"(j<={p}, or {p} and j in {_set_text(prefix, base)})", keep, runs, True)


# ---------------------------------------------------------------------------------------------
# Pasted functions, evaluated over the whole grid once.

def _bind_function(fn, grid):
    n_k = grid.n_k
    rows = _evaluate(fn, grid.n_q, n_k)
    row_runs = [scan_runs(row.__getitem__, n_k) for row in rows]

    def rule(base):
        if fn.rule is not None:
            return fn.rule
        shift = "-1" if base == 1 else ""
        call = f"(i,j) where {fn.label}(i{shift},j{shift}) is true"
        return f'{call}: "{fn.words}"' if fn.words else call

    return _Bound(fn.name, rule, lambda i, j: rows[i][j], row_runs.__getitem__)


def _evaluate(fn, n_q, n_k):
    """Every cell's answer, as rows of bools: with torch as FlexAttention computes it, else with ints."""
    torch_rows = _evaluate_with_torch(fn, n_q, n_k)
    if torch_rows is not None:
        return torch_rows
    call = fn.function if fn.arity == 2 else (lambda i, j: fn.function(0, 0, i, j))
    rows = []
    for i in range(n_q):
        row = []
        for j in range(n_k):
            try:
                result = call(i, j)
            except Exception as err:  # noqa: BLE001 - the user's code: report it as their input's problem
                raise InputError(f"{fn.label}({i}, {j}) raised {type(err).__name__}: {err}" + _needs_torch(err),
                                 "mask") from None
            row.append(_truth(result, f"{fn.label}({i}, {j})"))
        rows.append(tuple(row))
    return tuple(rows)


def _needs_torch(err):
    """A hint when a function failed on plain ints because it expects torch tensors."""
    text = str(err)
    if ("'int' object" in text or "must be Tensor" in text or "torch" in text) and not _torch_available():
        return "; it expects torch tensors: install torch to evaluate it as FlexAttention does"
    return ""


def _torch_available():
    import importlib.util

    return importlib.util.find_spec("torch") is not None


def _evaluate_with_torch(fn, n_q, n_k):
    """FlexAttention's own evaluation (`create_mask`, vmapped over the grid), or None when torch is
    absent or the function needs plain ints (Python `and`, `if` on a value)."""
    if not _torch_available():
        return None
    import torch
    from torch.nn.attention.flex_attention import create_mask

    function = fn.function
    mask_mod = function if fn.arity == 4 else (lambda b, h, q_idx, kv_idx: function(q_idx, kv_idx))
    try:
        with warnings.catch_warnings():  # a function that is not vmappable may warn on its way to failing
            warnings.simplefilter("ignore")
            grid = create_mask(mask_mod, 1, 1, n_q, n_k, device="cpu")[0, 0]
    except Exception:  # noqa: BLE001 - not vmappable: evaluated cell by cell with ints instead
        return None
    if not isinstance(grid, torch.Tensor) or tuple(grid.shape) != (n_q, n_k):
        return None
    if grid.dtype != torch.bool:
        if grid.dtype.is_floating_point or grid.dtype.is_complex or not bool(((grid == 0) | (grid == 1)).all()):
            return None  # not a truth value: the cell-by-cell path says which cell and what it returned
        grid = grid.bool()
    return tuple(tuple(row) for row in grid.tolist())


def _truth(result, call):
    """A mask function's answer as a bool. Only a truth value counts (True/False, 0/1, or a one-element
    array or tensor of one): a truthy string such as "no" must not silently keep a cell."""
    value = result
    if callable(getattr(result, "item", None)):  # numpy scalars and arrays, torch tensors
        with contextlib.suppress(ValueError, RuntimeError):  # several values: reported below with the shape
            value = result.item()
    if isinstance(value, numbers.Integral) and value in (0, 1):
        return bool(value)
    shape = getattr(result, "shape", None)
    what = f"an array of shape {tuple(shape)}" if shape else repr(result) if len(repr(result)) <= 40 else \
        type(result).__name__
    raise InputError(f"{call} returned {what}; it must return True or False", "mask")


def _arity(function):
    try:
        params = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return 2
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                  and p.default is p.empty]
    if any(p.kind == p.VAR_POSITIONAL for p in params) or len(positional) == 2:
        return 2
    if len(positional) == 4:
        return 4
    raise InputError(f"a mask function takes (q_idx, kv_idx) or FlexAttention's (b, h, q_idx, kv_idx); "
                     f"this one takes {len(positional)} arguments", "mask")
