"""Mask families: the masks real models use, read from text and bound to a grid's shape.

Each family is a rule on 1-based positions, written in the figure exactly as it is applied:

    causal           keep j<=i
    none             keep every cell (bidirectional)
    window=W         keep i-W<j<=i          (W keys per query, itself included)
    prefix=P         keep j<=i, or i<=P and j<=P
    chunk=C          keep j<=i when i and j are in the same block of C positions
    segments=1,1,2   keep j<=i when i and j have the same segment id (packed documents)
    padding=4,5      mask those key positions (with causal, unless `none` is given too)
    matrix=10;11     keep the cells marked 1

Several masks combine by intersection: a cell is kept only when every one keeps it. A Python
callable `keep(q_idx, kv_idx) -> bool` (0-based, like FlexAttention's mask_mod; the 4-argument
`mask_mod(b, h, q_idx, kv_idx)` works too) is a custom mask.

When keys outnumber queries (decoding with a cache), `align` places the causal diagonal:
"top-left" (PyTorch's `is_causal`) puts query i at key position i; "bottom-right" puts it at
i + n_k - n_q, so the last query sees every key. The rule's text then says `i+3` where it applies.
"""

import contextlib
import difflib
import numbers
import re
from dataclasses import dataclass

from .engine import CAUSAL, Mask, check_matrix_shape
from .exact import InputError

__all__ = ["ALIGNMENTS", "FAMILIES", "MaskOption", "parse_mask", "resolve", "intersect", "custom", "query_position"]

ALIGNMENTS = ("top-left", "bottom-right")
#: Each family's form, in the words of error messages and docs.
FAMILIES = ("causal", "none", "window=W", "prefix=P", "chunk=C", "segments=ID,ID,...", "padding=J,J,...",
            "matrix=ROW;ROW;...")
MAX_PARAMETER = 10**6  # window, prefix and chunk sizes beyond any grid are all the same mask

# Families whose rule already includes causality: "causal" beside them changes nothing.
_CAUSAL_FAMILIES = ("window", "chunk", "segments")
# Families whose rule uses the query's position, so the alignment of a non-square grid matters.
_POSITIONAL = ("causal", "window", "prefix", "chunk", "segments")


@dataclass(frozen=True)
class MaskOption:
    """One parsed `--mask` value, not yet bound to a grid: `kind` is a family name."""

    kind: str
    value: object  # int, tuple of ints, tuple of rows of bools, or None
    text: str  # as given, for error messages


def parse_mask(text):
    """Read one mask option: "causal", "none", "window=3", "segments=1,1,2", ...

    >>> parse_mask("window=3")
    MaskOption(kind='window', value=3, text='window=3')
    >>> parse_mask("matrix=10;11").value
    ((True, False), (True, True))
    """
    where = f"mask {text!r}"
    if not isinstance(text, str):
        raise InputError(f"expected a mask like \"window=3\" or a function keep(q_idx, kv_idx), got "
                         f"{type(text).__name__}", "mask")
    kind, has_value, value = (part.strip() for part in text.partition("="))
    kind = kind.lower()
    parsers = {"window": _size, "prefix": _prefix, "chunk": _size, "segments": _segments, "padding": _positions,
               "matrix": _matrix}
    if kind in ("causal", "none"):
        if has_value:
            raise InputError(f"'{kind}' takes no value", where)
        return MaskOption(kind, None, text)
    if kind not in parsers:
        names = ["causal", "none", *parsers]
        close = difflib.get_close_matches(kind, names, n=1, cutoff=0.6)
        hint = f"did you mean '{close[0]}'? " if close else ""
        raise InputError(f"unknown mask {kind!r}; {hint}masks are {', '.join(FAMILIES)}", where)
    if not has_value or not value:
        form = next(f for f in FAMILIES if f.startswith(kind + "="))
        raise InputError(f"'{kind}' needs a value: {form}", where)
    return MaskOption(kind, parsers[kind](value, where), text)


def _integer(text, where, what):
    text = text.strip()
    if not re.fullmatch(r"[+-]?\d{1,7}", text):
        raise InputError(f"{text!r} is not {what}", where)
    return int(text)


def _size(text, where):
    value = _integer(text, where, "a whole number of positions")
    if not 1 <= value <= MAX_PARAMETER:
        raise InputError(f"needs a size from 1 to {MAX_PARAMETER}, got {value}", where)
    return value


def _prefix(text, where):
    value = _integer(text, where, "a whole number of positions")
    if not 0 <= value <= MAX_PARAMETER:
        raise InputError(f"needs a prefix length from 0 to {MAX_PARAMETER}, got {value}", where)
    return value


def _segments(text, where):
    return tuple(_integer(part, where, "a segment id (an integer)") for part in text.split(","))


def _positions(text, where):
    positions = tuple(_integer(part, where, "a key position (1, 2, ...)") for part in text.split(","))
    if bad := [p for p in positions if p < 1]:
        raise InputError(f"key positions start at 1, got {bad[0]}", where)
    return tuple(sorted(set(positions)))


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
    return tuple(out)


def resolve(mask, n_q, n_k, align="top-left"):
    """Any accepted mask (a name, a MaskOption, a Mask, a callable, or a list of them) as one `Mask`
    bound to an n_q×n_k grid."""
    if align not in ALIGNMENTS:
        raise InputError(f"expected {' or '.join(ALIGNMENTS)}, got {align!r}", "align")
    items = list(mask) if isinstance(mask, (list, tuple)) else [mask]
    if not items:
        items = ["causal"]
    options = []
    for item in items:
        if item is None or item is CAUSAL:
            item = "causal"
        if isinstance(item, str):
            item = parse_mask(item)
        elif not isinstance(item, (MaskOption, Mask)):
            item = custom(item)
        options.append(item)
    # The same rule given twice is one rule: "causal + causal" would name two.
    options = list({(o.kind, o.value) if isinstance(o, MaskOption) else id(o): o for o in options}.values())
    kinds = {o.kind if isinstance(o, MaskOption) else "custom" for o in options}
    if kinds == {"padding"}:
        options.insert(0, MaskOption("causal", None, "causal"))  # padding alone is causal + padding
    if len(options) > 1:
        options = [o for o in options if not (isinstance(o, MaskOption) and o.kind == "none")]
    if kinds & set(_CAUSAL_FAMILIES):
        options = [o for o in options if not (isinstance(o, MaskOption) and o.kind == "causal")]
    offset = n_k - n_q if align == "bottom-right" else 0
    parts = [o if isinstance(o, Mask) else _bind(o, n_q, n_k, offset) for o in options]
    combined = parts[0] if len(parts) == 1 else intersect(parts)
    positional = any(isinstance(o, MaskOption) and o.kind in _POSITIONAL for o in options)
    if positional and n_q != n_k:
        combined = Mask(combined.name, f"{combined.rule}, aligned {align}", combined.keep)
    return combined


def intersect(masks):
    """The mask that keeps a cell only when every one of `masks` keeps it."""
    masks = tuple(masks)
    name = " + ".join(m.name for m in masks)
    rule = " and ".join(_grouped(m.rule) for m in masks)
    return Mask(name, rule, lambda i, j: all(m.keep(i, j) for m in masks))


def _grouped(rule):
    """A rule in parentheses when joining it with "and" would make it ambiguous."""
    return f"({rule})" if any(word in rule for word in (", ", " or ", " and ")) else rule


def query_position(offset, shift=0):
    """The query's key position as text: "i", "i+3", "i-2"."""
    c = offset + shift
    return "i" if c == 0 else f"i+{c}" if c > 0 else f"i-{-c}"


def _bind(option, n_q, n_k, offset):
    """A MaskOption on an n_q×n_k grid, query i at key position i+offset. keep() is 0-based."""
    kind, value, where = option.kind, option.value, f"mask {option.text!r}"
    p = query_position(offset)
    if kind == "causal":
        return Mask("causal", f"j<={p}", lambda i, j: j <= i + offset)
    if kind == "none":
        return Mask("bidirectional", "every cell", lambda i, j: True)
    if kind == "window":
        return Mask("sliding-window", f"{query_position(offset, -value)}<j<={p}",
                    lambda i, j: i + offset - value < j <= i + offset)
    if kind == "prefix":
        return Mask("prefix-LM", f"j<={p}, or {p}<={value} and j<={value}",
                    lambda i, j: j <= i + offset or (i + offset < value and j < value))
    if kind == "chunk":
        return Mask("chunked", f"j<={p}, {p} and j in the same block of {value} position{'s' * (value > 1)}",
                    lambda i, j: j <= i + offset and (i + offset) // value == j // value)
    if kind == "segments":
        if len(value) != n_k:
            raise InputError(f"{len(value)} segment ids for {n_k} key positions; give one per key", where)
        if offset + n_q > n_k:
            raise InputError(f"query {n_q} sits at key position {n_q + offset}, past the {n_k} segment ids; "
                             "give at least as many keys as queries", where)
        ids = ", ".join(map(str, value))
        return Mask("document", f"j<={p}, {p} and j in the same segment of ({ids})",
                    lambda i, j: j <= i + offset and value[i + offset] == value[j])
    if kind == "padding":
        if value[-1] > n_k:
            raise InputError(f"key position {value[-1]} is outside the grid (keys 1..{n_k})", where)
        return Mask("padding", f"j not in {{{','.join(map(str, value))}}}", lambda i, j: j + 1 not in value)
    if kind == "matrix":
        check_matrix_shape(value, n_q, n_k, where)
        rows = "; ".join("".join("1" if x else "0" for x in row) for row in value)
        return Mask("explicit", f"(i,j) marked 1 in [{rows}]", lambda i, j: value[i][j])
    raise AssertionError(kind)


def custom(function, name="custom"):
    """A Mask from a Python callable: keep(q_idx, kv_idx), or FlexAttention's mask_mod(b, h, q_idx, kv_idx)."""
    if not callable(function):
        raise InputError(f"expected a mask like \"window=3\" or a function keep(q_idx, kv_idx), got "
                         f"{type(function).__name__}", "mask")
    arity = _arity(function)
    label = getattr(function, "__name__", "keep")
    label = "keep" if not label.isidentifier() else label  # "<lambda>"

    def keep(i, j):
        try:
            result = function(i, j) if arity == 2 else function(0, 0, i, j)
        except Exception as err:  # noqa: BLE001 - the user's code: report it as their input's problem
            raise InputError(f"{label}({i}, {j}) raised {type(err).__name__}: {err}", "mask") from None
        return _truth(result, f"{label}({i}, {j})")

    return Mask(name, f"(i,j) where {label}(i-1,j-1) is true", keep)


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
    import inspect

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
