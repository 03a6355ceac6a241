"""One mask family as text: `window=3,symmetric`, `segments=1,1,2`, `matrix=10;11`, read into a
`MaskOption` that is not yet bound to a grid (`mask_families` binds it).

The families, their forms and their limits are here; `masks` joins them with `&`, `|` and `~`.
"""

from __future__ import annotations

import difflib
import re

from ..numbers.arrays import is_tensor
from ..numbers.exact import InputError
from ..records import dataclass, field

TYPE_CHECKING = False  # a type checker takes it as True
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    Options = dict[str, object]
    Parser = Callable[[str, str], tuple[object, Options]]

__all__ = ["ALIGNMENTS", "FAMILIES", "MAX_PARAMETER", "MaskOption", "parse_mask", "boolean_matrix"]

#: Where the causal diagonal sits when keys outnumber queries.
ALIGNMENTS = ("top-left", "bottom-right")
#: Each family's form, in the words of error messages and docs.
FAMILIES = ("causal", "none", "full", "window=W[,symmetric][,dilation=D]", "global=J,J,...",
            "prefix=P[,P,...][,documents=ID,...]", "chunk=C[,offset=O]", "segments=ID,ID,...", "documents=ID,ID,...",
            "padding=J,J,...", "keys=J,J,...", "random=R,seed=S", "matrix=ROW;ROW;...", "sink=S")
MAX_PARAMETER = 10**6  # window, prefix and chunk sizes beyond any grid are all the same mask


@dataclass(frozen=True)
class MaskOption:
    """One parsed family, not yet bound to a grid: `kind` is a family name, `value` its main value,
    `options` its named extras as sorted (name, value) pairs: (("dilation", 2), ("symmetric", True))."""

    kind: str
    value: object  # int, tuple of ints, tuple of rows of bools, or None
    text: str  # as given, for error messages
    options: tuple[tuple[str, object], ...] = field(default=(), repr=False)

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
    if kind in ("causal", "none"):
        if has_value:
            raise InputError(f"'{kind}' takes no value", where)
        return MaskOption(kind, None, text)
    if kind not in _PARSERS:
        names = ["causal", "none", "full", *_PARSERS]
        close = [_OTHER_NAMES[kind]] if kind in _OTHER_NAMES else difflib.get_close_matches(kind, names, n=1,
                                                                                              cutoff=0.6)
        hint = f"did you mean '{close[0]}='? " if close and close[0] in _PARSERS else \
            f"did you mean '{close[0]}'? " if close else ""
        raise InputError(f"unknown mask {kind!r}; {hint}masks are {', '.join(FAMILIES)}", where)
    if not has_value or not value:
        form = next(f for f in FAMILIES if f.startswith(kind + "="))
        raise InputError(f"'{kind}' needs a value: {form}", where)
    main, options = _PARSERS[kind](value, where)
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
    out: Options = {}
    if "symmetric" in options:
        out["symmetric"] = True
    if "dilation" in options:
        dilation = _bounded(_joined(options["dilation"]), where, 1, "a dilation")
        if dilation > 1:
            out["dilation"] = dilation
    return _bounded(main, where, 1, "a size"), out


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
    out: Options = {}
    if "offset" in options:
        offset = _bounded(_joined(options["offset"]), where, 0, "an offset")
        if offset:
            out["offset"] = offset
    return _bounded(main, where, 1, "a size"), out


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
    """A numpy or torch boolean matrix (True: kept, as FlexAttention's create_mask gives) as `matrix=`."""
    dtype = str(getattr(value, "dtype", "")).removeprefix("torch.")
    shape = tuple(getattr(value, "shape", ()))
    if dtype != "bool":
        raise InputError(f"a {dtype} array as a mask: give a boolean matrix (True keeps a cell), e.g. "
                         "create_mask(...)[0, 0] or an array of 0s and 1s cast with .astype(bool)", where)
    if len(shape) != 2:
        raise InputError(f"a boolean array of shape {shape} as a mask: give one (queries, keys) matrix, e.g. "
                         "mask[0, 0] of a (batch, heads, queries, keys) mask", where)
    source: Any = value.detach().cpu() if is_tensor(value) else value  # type: ignore[attr-defined]
    rows = tuple(tuple(bool(x) for x in row) for row in source.tolist())
    text = ";".join("".join("1" if x else "0" for x in row) for row in rows)
    return MaskOption("matrix", rows, f"matrix={text}")


_PARSERS: dict[str, Parser] = {"window": _window, "global": _positions, "prefix": _prefix, "chunk": _chunk,
                               "segments": _segments, "documents": _segments, "padding": _positions,
                               "keys": _positions, "random": _random,
                               "matrix": _matrix, "sink": _sink}
