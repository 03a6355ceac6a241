"""The one table of mask families, `MASK_FAMILIES`: each family's form, its parser (text such as `window=3,symmetric`
into a `MaskOption`, not yet bound to a grid), its binder (in `mask_families`), its words in `--help`, its rows in
docs/reference.rst and whether tests hold it to FlexAttention. A new family is one entry plus its parser and binder;
tests/test_mask_table.py holds every reader to the table. `masks` joins families with `&`, `|` and `~`.
"""

from __future__ import annotations

import difflib
import re

from . import mask_families as bind
from . import tree_mask
from ..numbers.exact import InputError
from ..records import dataclass, field

TYPE_CHECKING = False  # a type checker takes it as True
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from .mask_families import Bound, Grid

    Options = dict[str, object]
    Parser = Callable[[str, str], tuple[object, Options]]
    Binder = Callable[["MaskOption", Grid], Bound]

__all__ = ["ALIGNMENTS", "FAMILIES", "FAMILY_HELP", "MASK_FAMILIES", "MAX_PARAMETER", "Family", "MaskOption",
           "parse_mask", "boolean_matrix"]

#: Where the causal diagonal sits when keys outnumber queries.
ALIGNMENTS = ("top-left", "bottom-right")
MAX_PARAMETER = 10**6  # window, prefix and chunk sizes beyond any grid are all the same mask


@dataclass(frozen=True)
class MaskOption:
    """One parsed family, not yet bound to a grid: `kind` is a family name, `value` its main value,
    `options` its named extras as sorted (name, value) pairs: (("dilation", 2), ("symmetric", True))."""

    kind: str
    value: Any  # by kind, as its parser made it: an int, a tuple of ints, a tuple of rows of bools, or None
    text: str  # as given, for error messages
    options: tuple[tuple[str, Any], ...] = field(default=(), repr=False)

    @property
    def key(self) -> tuple[str, object, tuple[tuple[str, object], ...]]:
        """What makes two options the same rule: " Causal " and "causal" are one."""
        return self.kind, self.value, self.options


def parse_mask(text: object) -> MaskOption:
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
    if kind not in MASK_FAMILIES:  # the nearest family, or what another library calls it
        close = _OTHER_NAMES.get(kind) or "".join(difflib.get_close_matches(kind, ["full", *MASK_FAMILIES], 1, 0.6))
        takes = "=" if close in MASK_FAMILIES and MASK_FAMILIES[close].parse else ""
        hint = f"did you mean '{close}{takes}'? " if close else ""
        raise InputError(f"unknown mask {kind!r}; {hint}masks are {', '.join(FAMILIES)}", where)
    parse = MASK_FAMILIES[kind].parse
    if parse is None:
        if has_value:
            raise InputError(f"'{kind}' takes no value", where)
        return MaskOption(kind, None, text)
    if not has_value or not value:
        raise InputError(f"'{kind}' needs a value: {MASK_FAMILIES[kind].form}", where)
    main, options = parse(value, where)
    return MaskOption(kind, main, text, tuple(sorted(options.items())))


#: What other libraries and papers call a family: `sliding=3` suggests `window=`.
_OTHER_NAMES = {"sliding": "window", "sliding_window": "window", "sliding-window": "window", "swa": "window",
                "local": "window", "bidirectional": "none", "prefix_lm": "prefix", "prefixlm": "prefix",
                "prefix-lm": "prefix", "chunked": "chunk", "block": "chunk", "document": "segments",
                "packed": "segments", "pad": "padding", "explicit": "matrix"}


def _integer(text: str, where: str, what: str) -> int:
    text = text.strip()
    if not re.fullmatch(r"[+-]?\d{1,7}", text):
        raise InputError(f"{text!r} is not {what}", where)
    return int(text)


def _bounded(text: str, where: str, low: int, what: str) -> int:
    value = _integer(text, where, "a whole number of positions")
    if not low <= value <= MAX_PARAMETER:
        raise InputError(f"needs {what} from {low} to {MAX_PARAMETER}, got {value}", where)
    return value


def _with_options(text: str, where: str, allowed: dict[str, str]) -> tuple[str, dict[str, list[str] | bool]]:
    """Split "3,symmetric,dilation=2" into its main value "3" and {"symmetric": True, "dilation": "2"};
    a named option's value runs to the next name ("documents=1,1,2")."""
    first, *rest = text.split(",")
    main = [first]
    options: dict[str, list[str] | bool] = {}
    current: list[str] | None = None
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
            current = [value] if has_value else None
            options[name] = True if current is None else current
        elif current is not None:
            current.append(part)
        else:
            main.append(part)
    return ",".join(main), options


def _joined(value: list[str] | bool) -> str:
    """A named option's value as one text again ("1,1,2")."""
    assert isinstance(value, list)  # `_with_options` checked that the option takes a value
    return ",".join(value)


def _window(text: str, where: str) -> tuple[object, Options]:
    main, options = _with_options(text, where, {"symmetric": "", "dilation": "D"})
    out: Options = {"symmetric": True} if "symmetric" in options else {}
    dilation = _bounded(_joined(options["dilation"]), where, 1, "a dilation") if "dilation" in options else 1
    return _bounded(main, where, 1, "a size"), {**out, "dilation": dilation} if dilation > 1 else out


def _prefix(text: str, where: str) -> tuple[object, Options]:
    main, options = _with_options(text, where, {"documents": "ID,ID,..."})
    out: Options = {"documents": _segments(_joined(options["documents"]), where)[0]} if "documents" in options else {}
    lengths = tuple(_bounded(part, where, 0, "a prefix length") for part in main.split(","))
    if len(lengths) > 1 and not out:
        raise InputError("several prefix lengths are one per document: give documents=ID,ID,... too", where)
    if len(lengths) > 1:  # one length per document, in the order the documents first appear
        out["lengths"] = lengths
    return lengths[0], out


def _chunk(text: str, where: str) -> tuple[object, Options]:
    main, options = _with_options(text, where, {"offset": "O"})
    offset = _bounded(_joined(options["offset"]), where, 0, "an offset") if "offset" in options else 0
    return _bounded(main, where, 1, "a size"), {"offset": offset} if offset else {}


def _sink(text: str, where: str) -> tuple[object, Options]:
    """`sink=S`: the number of sink keys, the first S positions."""
    main, _ = _with_options(text, where, {})
    return _bounded(main, where, 1, "a number of sink keys"), {}


def _segments(text: str, where: str) -> tuple[tuple[int, ...], Options]:
    return tuple(_integer(part, where, "a segment id (an integer)") for part in text.split(",")), {}


def _positions(text: str, where: str) -> tuple[object, Options]:
    positions = tuple(_integer(part, where, "a position (1, 2, ...)") for part in text.split(","))
    return tuple(sorted(set(positions))), {}


def _random(text: str, where: str) -> tuple[object, Options]:
    main, options = _with_options(text, where, {"seed": "S"})
    seed = _bounded(_joined(options["seed"]), where, 0, "a seed") if "seed" in options else 0
    return _bounded(main, where, 1, "a number of keys per row"), {"seed": seed}


def _matrix(text: str, where: str) -> tuple[object, Options]:
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


def boolean_matrix(value: object, where: str) -> MaskOption:
    """A numpy or torch mask (boolean, True: kept, as FlexAttention's create_mask gives; or additive, 0 / -inf) as
    `matrix=` (`mask_arrays` reads it)."""
    from .mask_arrays import mask_rows  # only an array mask needs it

    rows = mask_rows(value, where)
    text = ";".join("".join("1" if x else "0" for x in row) for row in rows)
    return MaskOption("matrix", rows, f"matrix={text}")


@dataclass(frozen=True)
class Family:
    """One mask family: everything that lists it reads it from here."""

    form: str  # as --help, error messages and docs write it: "window=W[,symmetric][,dilation=D]"
    parse: Parser | None  # its value's text -> (main value, named options); None: it takes no value
    bind: Binder  # the parsed family on one grid
    gloss: str  # --help's words after the form: "(key columns)"
    rows: tuple[tuple[str, str, str], ...]  # docs/reference.rst's rows: (written, name in figure, keeps)
    flex: bool = True  # tests/test_mask_parity.py holds it cell for cell against FlexAttention's create_mask


#: Every mask family, in the order --help, error messages and docs/reference.rst list them.
MASK_FAMILIES: dict[str, Family] = {
    "causal": Family("causal", None, bind.causal, "(default)", (("``causal`` (default)", "causal", "``j<=i``"),)),
    "none": Family("none", None, bind.full, "(or full)", (("``none`` or ``full``", "bidirectional", "every cell"),)),
    "window": Family("window=W[,symmetric][,dilation=D]", _window, bind.window, "", (
        ("``window=W``", "sliding-window", "``i-W<j<=i``: W keys per query, itself included"),
        ("``window=W,symmetric``", "symmetric sliding-window", "``|i-j|<W``"),
        ("``window=W,dilation=D``", "dilated sliding-window", "``i-W·D<j<=i, (i-j) mod D = 0``"))),
    "global": Family("global=J,J,...", _positions, bind.global_tokens, "",
                     (("``global=1,8``", "global", "``i in {1,8} or j in {1,8}``"),)),
    "prefix": Family("prefix=P[,P,...][,documents=ID,...]", _prefix, bind.prefix, "", (
        ("``prefix=P``", "prefix-LM", "``j<=i``, or ``i<=P and j<=P``"),
        ("``prefix=P,documents=1,1,2``", "prefix-LM per document", "the same within each document"))),
    "chunk": Family("chunk=C[,offset=O]", _chunk, bind.chunk, "",
                    (("``chunk=C[,offset=O]``", "chunked", "``j<=i`` within blocks of C positions"),)),
    "segments": Family("segments=ID,ID,...", _segments, bind.segments, "(causal)",
                       (("``segments=1,1,2,2,2``", "document", "``j<=i`` within the same segment id"),)),
    "documents": Family("documents=ID,ID,...", _segments, bind.segments, "(bidirectional)",
                        (("``documents=1,1,2,2,2``", "bidirectional document", "i and j in the same segment id"),)),
    "padding": Family("padding=J,J,...", _positions, bind.padding, "",
                      (("``padding=4,5``", "padding", "every key except 4 and 5 (with ``causal``)"),)),
    "keys": Family("keys=J,J,...", _positions, bind.keys, "(key columns)",
                   (("``keys=1,5``", "key columns", "``j in {1,5}`` (summary tokens, any row)"),)),
    "random": Family("random=R,seed=S", _random, bind.random_columns, "(R keys a row)",
                     (("``random=R,seed=S``", "random", "R keys a row, drawn as below"),), flex=False),
    "sink": Family("sink=S", _sink, bind.sink, "(the first S keys)",
                   (("``sink=S``", "sink", "``j<=S``: the first S keys, for every query"),)),
    "matrix": Family("matrix=ROW;ROW;...", _matrix, bind.matrix, "(rows of 0/1)",
                     (("``matrix=100;110;111``", "explicit", "the cells marked 1"),)),
    "tree": Family("tree=PARENT,PARENT,...[,prompt=P]", tree_mask.parse_tree, tree_mask.tree,
                   "(a token tree: each its parent, -1 the prompt)",
                   (("``tree=-1,0,0,1,prompt=3``", "tree", "prompt causal; prompt + ancestors + itself"),)),
}
#: Each family's form, in the words of error messages.
FAMILIES = tuple(family.form for family in MASK_FAMILIES.values())
#: The families as --mask's help lists them.
FAMILY_HELP = ", ".join(f"{family.form} {family.gloss}".strip() for family in MASK_FAMILIES.values())
