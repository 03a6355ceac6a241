"""Figure specs: TOML or JSON files (or standard input) that describe one figure.

Reading is strict: unknown keys are errors that suggest the nearest known key, wrong types name the key and what was
expected, syntax errors give file, line and column. Decimals in the file are read as the exact decimal typed
(`parse_float`).

Each key maps to one `figure()` argument; `KEYS` is made from the option table (`attnviz.figures.options`), so the docs'
reference, the checks, the flags and the API cannot drift apart.
"""

from __future__ import annotations

import re
from decimal import Decimal

from ..errors import printable
from ..numbers.exact import InputError
from ..records import dataclass
from ..figures.options import SPEC_OPTIONS, WALKTHROUGH_OPTIONS

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping
    from os import PathLike
    from typing import Any, BinaryIO, TypeGuard

    #: A key's check: (value, where) -> the figure() argument, or InputError.
    Check = Callable[[Any, str], Any]

__all__ = ["KEYS", "WALKTHROUGH_KEYS", "MAX_SPEC_BYTES", "read_spec", "parse_spec", "figure_arguments", "parse_vectors",
           "check_value", "value_from_text", "TEXT_READERS", "kind_of", "with_the_seed", "COMPOSE_KEYS"]

MAX_SPEC_BYTES = 1_000_000


@dataclass(frozen=True)
class Key:
    """One spec key: what its values must be, how they are checked, and an example line."""
    expects: str  # what a value must be, in words, for error messages and docs
    check: Check  # (value, where) -> the figure() argument
    example: str  # a TOML line, for the reference


def parse_vectors(text: str, where: str | None) -> list[list[str]]:
    """`"1,0; 0,1"` -> [["1", "0"], ["0", "1"]]; numbers are read exactly by the engine."""
    rows = [row.strip() for row in text.split(";")]
    if len(rows) > 1 and rows[-1] == "":  # a trailing ";"
        rows.pop()
    for index, row in enumerate(rows, 1):
        if not row:
            raise InputError(f"vector {index} is empty (vectors are separated by ';', entries by ',')", where)
    return [[entry.strip() for entry in row.split(",")] for row in rows]


def _vectors(value: object, where: str) -> list[list[Any]] | list[list[str]]:
    if isinstance(value, str):
        return parse_vectors(value, where)
    if not isinstance(value, list):
        raise InputError(f"expected a list of vectors like [[1, 0], [0, 1]] or a string like \"1,0; 0,1\", "
                         f"got {kind_of(value)}", where)
    for index, row in enumerate(value, 1):
        if not isinstance(row, list):
            raise InputError(f"vector {index}: expected a list of numbers, got {kind_of(row)}", where)
        for entry in row:
            if isinstance(entry, bool) or not isinstance(entry, (int, Decimal, str)):
                raise InputError(f"vector {index}: expected numbers (or strings like \"1/2\"), got {kind_of(entry)}",
                                 where)
    return value


def _text(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise InputError(f"expected a string, got {kind_of(value)}", where)
    return value


def _bool(value: object, where: str) -> bool:
    if not isinstance(value, bool):
        raise InputError(f"expected true or false, got {kind_of(value)}", where)
    return value


def _strings(value: object, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise InputError(f"expected a list of strings, got {kind_of(value)}", where)
    return value


def _highlight(value: object, where: str) -> list[tuple[int, ...] | str]:
    if isinstance(value, str) or _pair(value):  # highlight = [3, 3]: one target
        value = [value]
    if not isinstance(value, list):
        raise InputError(f"expected a list of targets like [[3, 3], \"softmax=2\"], got {kind_of(value)}", where)
    for target in value:
        if not (isinstance(target, str) or _pair(target)):
            raise InputError(f"expected targets like [3, 3] or \"row=2\", \"mask\", \"softmax=2\", \"softmax\"; "
                             f"got {kind_of(target)}", where)
    return [target if isinstance(target, str) else tuple(target) for target in value]


def _pair(value: object) -> TypeGuard[list[int]]:
    return isinstance(value, list) and len(value) == 2 and all(type(x) is int for x in value)


def _masks(value: object, where: str, depth: int = 0) -> str | dict[str, Any] | list[Any]:
    """A mask: a string, a list of masks (all must keep a cell) or a table {all|any|not = ...}."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and "matrix" in value and depth < 16:  # a named matrix: rows of 0/1 (or text)
        return {key: inner if key == "matrix" and _matrix_rows(inner) else _masks(inner, f"{where}.{key}", depth + 1)
                for key, inner in value.items()}
    if isinstance(value, dict) and depth < 16:
        return {key: _masks(inner, f"{where}.{key}", depth + 1) for key, inner in value.items()}
    if isinstance(value, list) and depth < 16:
        return [_masks(inner, f"{where}[{n}]", depth + 1) for n, inner in enumerate(value, 1)]
    raise InputError(f"expected a list of strings, got {kind_of(value)}; a mask is a string like \"window=3\", "
                     "a list of masks (all must keep a cell) or a table like {any = [\"window=3\", \"global=1\"]}",
                     where)


def _matrix_rows(value: object) -> bool:
    """True for a `[mask]` table's matrix given as rows: lists of 0/1 (or true/false)."""
    return isinstance(value, list) and all(isinstance(row, list) and all(x in (0, 1) for x in row) for row in value)


def _head_masks(value: object, where: str) -> list[Any]:
    """One mask per head: a list of masks (each a string, a list or a table, as `mask` takes)."""
    if not isinstance(value, list) or not value:
        raise InputError(f"expected a list with one mask per head, got {kind_of(value)}", where)
    return [_masks(inner, f"{where}[{n}]") for n, inner in enumerate(value, 1)]


def _string_or_strings(value: object, where: str) -> str | list[str]:
    return value if isinstance(value, str) else _strings(value, where)


def _number_or_text(value: object, where: str) -> str | int | Decimal:
    if isinstance(value, bool) or not isinstance(value, (str, int, Decimal)):
        raise InputError(f"expected \"sqrt\" or an exact number like \"1/8\" or 0.125, got {kind_of(value)}", where)
    return value


def _number_or_name(value: object, where: str) -> str | int | Decimal:
    if isinstance(value, bool) or not isinstance(value, (str, int, Decimal)):
        raise InputError(f"expected an exact number like \"-1/2\" or 0.5, or a name, got {kind_of(value)}", where)
    return value


def _whole_number(value: object, where: str) -> int:
    if type(value) is not int:
        raise InputError(f"expected a whole number, got {kind_of(value)}", where)
    return value


def _shape(value: object, where: str) -> str | list[int]:
    if isinstance(value, str) or _pair(value):
        return value
    raise InputError(f"expected \"QUERIESxKEYS\" like \"4x12\" or a pair like [4, 12], got {kind_of(value)}", where)


def _head_vectors(value: object, where: str) -> list[list[list[Any]]] | list[list[list[str]]]:
    """One list of vectors per head: `[[[1, 0], [0, 1]], [[1, 1], [0, 1]]]`, or a string with heads
    separated by `|`: `"1,0; 0,1 | 1,1; 0,1"`."""
    if isinstance(value, str):
        return [parse_vectors(head, f"{where}: head {h}") for h, head in enumerate(value.split("|"), 1)]
    if not isinstance(value, list) or not value:
        raise InputError(f"expected one list of vectors per head, like [[[1, 0]], [[0, 1]]], or a string like "
                         f"\"1,0 | 0,1\", got {kind_of(value)}", where)
    return [_vectors(head, f"{where}: head {h}") for h, head in enumerate(value, 1)]


def _panels(value: object, where: str) -> list[dict[str, Any]]:
    """`[[panel]]` tables: each a figure spec of its own (no panels inside panels)."""
    if not isinstance(value, list) or not value or not all(isinstance(table, dict) for table in value):
        raise InputError(f"expected [[panel]] tables, each a figure spec, got {kind_of(value)}", where)
    from ..figures.composite import MAX_PANELS  # start-up: only specs with panels need the composite

    if len(value) > MAX_PANELS:
        raise InputError(f"{len(value)} panels; the limit is {MAX_PANELS}", where)
    panel_keys = {key: spec for key, spec in KEYS.items() if key not in COMPOSE_KEYS}
    return [figure_arguments(table, f"{where} {n}", panel_keys, required=()) for n, table in enumerate(value, 1)]


def _arrange(value: object, where: str) -> str:
    from ..figures.composite import parse_arrange  # start-up: only specs with panels need the composite

    text = _text(value, where)
    parse_arrange(text, 2)  # checked here, so the error names the key
    return text


def _panel_part(value: object, where: str, legend: bool = False) -> str:
    """What becomes of panels' captions (or, `legend`, of their legend)."""
    from ..figures import composite  # start-up: only specs with panels need the composite

    return composite.check_part(_text(value, where), where, composite.LEGEND_PARTS if legend else composite.PANEL_PARTS)


def _panel_legend(value: object, where: str) -> str:
    return _panel_part(value, where, legend=True)


REQUIRED = ("q", "k")
#: Keys of a composed figure as a whole, not of its panels.
COMPOSE_KEYS = ("panel", "arrange", "panel_captions", "panel_subtitles", "panel_legend")
#: Keys that stand in for the vectors: a mask map's size, or panels (each with its own vectors).
INSTEAD_OF_VECTORS = ("n", "shape", "panel", "q_heads", "k_heads", "head_masks")


def sized_without_vectors(kwargs: Mapping[str, object]) -> bool:
    """Whether figure arguments give a size without vectors: a mask map's n, shape or token labels, or panels.
    Otherwise a figure without q and k is the seed's."""
    if any(key in kwargs for key in INSTEAD_OF_VECTORS):
        return True
    return kwargs.get("view") == "mask" and any(key in kwargs for key in ("tokens", "q_tokens", "k_tokens"))


def with_the_seed(kwargs: dict[str, Any]) -> bool:
    """Give figure arguments that have no vectors and no size the seed's vectors (the very objects, so the figure keeps
    the seed's title) and its highlight, cell (3,3) counted from the figure's index base (what the command, the docs
    plugins and the gallery all draw by default); True when they were given."""
    if "q" in kwargs or "k" in kwargs or sized_without_vectors(kwargs):
        return False
    from ..figures.single import SEED_HIGHLIGHT, SEED_K, SEED_Q  # start-up: --help reads specs' keys, draws nothing

    kwargs.update(q=SEED_Q, k=SEED_K)
    base = kwargs.get("index_base", 1)
    kwargs.setdefault("highlight", tuple((i - 1 + base, j - 1 + base) for i, j in SEED_HIGHLIGHT))
    return True


def _block(value: object, where: str) -> tuple[int, ...]:
    """`[2, 3]` or `"2,3"`: FlashAttention's tile, Br query rows by Bc key columns."""
    value = [_small_int(part.strip()) for part in value.split(",")] if isinstance(value, str) else value
    if not _pair(value):
        raise InputError(f"expected two block sizes Br,Bc like 2,2 (query rows, key columns), got {_show(value)}",
                         where)
    if min(value) < 1:
        raise InputError(f"block sizes must be at least 1, got {value[0]},{value[1]}", where)
    return tuple(value)


def _blocks(value: object, where: str) -> object:
    """FlexAttention's block size: `4`, `[4, 2]`, `"4"` or `"4,2"` (checked as the figure reads it)."""
    from ..engine.blocks import parse_blocks  # start-up: only a spec with blocks reads them

    parse_blocks(value, where)
    return value



def _positive(what: str) -> Callable[[object, str], int]:
    """The check of a positive whole number (or its digits as text) that the error calls `what`."""
    def check(value: object, where: str) -> int:
        value = _small_int(value.strip()) if isinstance(value, str) else value
        if type(value) is not int or value < 1:
            raise InputError(f"expected {what}, at least 1, got {_show(value)}", where)
        return value

    return check


_count = _positive("a whole number of prompt tokens")
_chunk = _positive("a chunk size C (a whole number of keys a chunk)")  # Flash-Decoding's


def _small_int(text: str) -> int | str:
    """ASCII digits (no fullwidth `３`) of at most 9 significant digits as an int; anything else stays text, to be
    refused as not a whole number (int() of thousands of digits would fail inside Python)."""
    return int(text) if text.isascii() and text.isdecimal() and len(text.lstrip("0")) <= 9 else text


def _show(value: object) -> str:
    shown = str(value) if isinstance(value, (int, list)) else kind_of(value)
    text = repr(value) if isinstance(value, str) else shown
    return text if len(text) <= 60 else text[:60] + "…"


#: How each option's values are checked, by the name the option table (figures.options) gives.
_CHECKS = {"panels": _panels, "arrange": _arrange, "text": _text, "whole_number": _whole_number, "shape": _shape,
           "vectors": _vectors, "head_vectors": _head_vectors, "strings": _strings, "highlight": _highlight,
           "masks": _masks, "number_or_text": _number_or_text, "number_or_name": _number_or_name,
           "string_or_strings": _string_or_strings,
           "bool": _bool, "block": _block, "blocks": _blocks, "count": _count, "head_masks": _head_masks,
           "panel_part": _panel_part, "panel_legend": _panel_legend, "chunk": _chunk}
#: Every spec key, in the reference's order: made from the option table, so the spec, the flags, the
#: Sphinx and MkDocs options and `figure()` cannot drift apart.
KEYS = {option.name: Key(option.expects, _CHECKS[option.check], option.example) for option in SPEC_OPTIONS}
#: Keys only a walkthrough reads: they choose which mechanics it steps through, not what the figure says.
WALKTHROUGH_KEYS = {option.name: Key(option.expects, _CHECKS[option.check], option.example)
                    for option in WALKTHROUGH_OPTIONS}


def read_spec(source: str | PathLike[str], stdin: BinaryIO | None = None) -> tuple[dict[str, Any], str]:
    """Read a spec file (a path, or "-" for `stdin`, a binary stream; None: standard input is closed);
    returns (mapping, name)."""
    name = "<stdin>" if source == "-" else printable(str(source))  # as errors show it: control characters escaped
    try:
        if source == "-":
            if stdin is None:  # the command started with standard input closed (`<&-`)
                raise InputError("standard input is closed; give the spec as a file, or pipe it in", name)
            data = stdin.read(MAX_SPEC_BYTES + 1)
        else:
            data = _read_file(source, name)
    except OSError as err:
        raise InputError(f"cannot read: {err.strerror or err}", name) from None
    if len(data) > MAX_SPEC_BYTES:
        raise InputError(f"larger than {MAX_SPEC_BYTES:,} bytes; a figure spec is a few lines", name)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise InputError(f"not UTF-8 text (byte {err.start + 1} is 0x{data[err.start]:02x}); "
                         "a spec is a TOML or JSON file", name) from None
    as_json = name.endswith(".json") or (not name.endswith(".toml") and text.lstrip().startswith("{"))
    return parse_spec(text, name, as_json), name


def _read_file(source: str | PathLike[str], name: str) -> bytes:
    """A regular file's first bytes. Anything else is refused: a FIFO without a writer would wait forever, a
    device never ends. Opened without waiting (O_NONBLOCK), then checked, so a FIFO cannot hold the open up."""
    import os  # start-up: only a spec file is opened
    import stat

    fd = os.open(source, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = "a folder" if stat.S_ISDIR(mode) else "a pipe" if stat.S_ISFIFO(mode) else "not a regular file"
        raise InputError(f"cannot read: {kind}; a spec is a TOML or JSON file (or - for standard input)", name)
    with open(fd, "rb") as handle:
        return handle.read(MAX_SPEC_BYTES + 1)


def parse_spec(text: str, name: str = "<spec>", as_json: bool = False) -> dict[str, Any]:
    """Parse TOML (or JSON) text into a mapping, with syntax errors as `name:line:column: ...`."""
    from .spec_screen import exact_decimal, json_hooks, screen_toml  # start-up: only a spec file is screened

    if as_json:
        import json  # start-up: only JSON specs need the parser

        try:
            value = json.loads(text, parse_constant=_no_constant, **json_hooks())
        except InputError as err:
            raise InputError(err.what, name) from None
        except json.JSONDecodeError as err:
            raise InputError(f"invalid JSON: {err.msg}", f"{name}:{err.lineno}:{err.colno}") from None
        except (RecursionError, ValueError) as err:
            raise InputError(f"invalid JSON: {err}", name) from None
        if not isinstance(value, dict):
            raise InputError(f"expected a JSON object of keys, got {kind_of(value)}", name)
        return value
    import tomllib  # start-up: only TOML specs need the parser

    screen_toml(text, name)
    try:
        return tomllib.loads(text, parse_float=exact_decimal)
    except InputError as err:
        raise InputError(err.what, name) from None
    except tomllib.TOMLDecodeError as err:
        message = str(err)
        if match := re.search(r"\(at line (\d+), column (\d+)\)$", message):
            message = message[:match.start()].strip()
            raise InputError(f"invalid TOML: {message}", f"{name}:{match[1]}:{match[2]}") from None
        raise InputError(f"invalid TOML: {message}", name) from None
    except (RecursionError, ValueError) as err:  # e.g. Python's 4300-digit limit on int()
        raise InputError(f"invalid TOML: {err}", name) from None


def figure_arguments(mapping: Mapping[str, object], name: str, keys: Mapping[str, Key] = KEYS,
                     required: Iterable[str] = REQUIRED) -> dict[str, Any]:
    """Check a spec mapping against `keys`; returns keyword arguments for `figure()`."""
    out = {}
    for key, value in mapping.items():
        if key not in keys:
            raise InputError(_unknown(key, keys), name)
        out[key] = keys[key].check(value, f"{name}: {key}")
    if required is REQUIRED and sized_without_vectors(out):
        required = ()
    for key in required:
        if key not in out:
            raise InputError(f"missing required key '{key}' ({keys[key].expects}), e.g. {keys[key].example}", name)
    return out


def check_value(key: str, value: object, name: str | None = None, keys: Mapping[str, Key] = KEYS) -> Any:
    """One key's value, checked as in a spec; errors name `name: key` (or the key alone when `name` is None)."""
    if key not in keys:
        raise InputError(_unknown(key, keys), name)
    return keys[key].check(value, key if name is None else f"{name}: {key}")


def _flag(text: str, where: str) -> bool:
    """A yes/no option written as text: empty (a bare flag, like `--embed-font`), true or false."""
    answers = {"": True, "true": True, "false": False}
    if text.lower() not in answers:
        raise InputError(f"expected true or false (or nothing, as a flag), got {text!r}", where)
    return answers[text.lower()]


#: How one line of text (a Sphinx directive option) becomes a value, for keys whose values are lists
#: or flags: labels are separated by spaces, highlight targets by ";". Any other key's text goes to its
#: check as it is ("1,0; 0,1" is a valid `q`), and TOML (`["the cat", "sat"]`) works for every key.
TEXT_READERS: dict[str, Callable[[str, str], object]] = {
    "embed_font": _flag,
    "elide": _flag,
    **dict.fromkeys(("tokens", "q_tokens", "k_tokens"), lambda text, where: text.split()),
    "highlight": lambda text, where: [target.strip() for target in text.split(";") if target.strip()],
}


def value_from_text(key: str, text: str, where: str, keys: Mapping[str, Key] = KEYS) -> Any:
    """A key's value written as one line of text, checked; errors are located at `where`.

    >>> value_from_text("tokens", "<s> the cat", ":tokens:")
    ['<s>', 'the', 'cat']
    >>> value_from_text("tokens", '["<s>", "the cat"]', ":tokens:")
    ['<s>', 'the cat']
    >>> value_from_text("highlight", "3,3; softmax=3", ":highlight:")
    ['3,3', 'softmax=3']
    """
    if key not in keys:
        raise InputError(_unknown(key, keys), where)
    check, text = keys[key].check, text.strip()
    literal = _toml_value(text)
    if isinstance(literal, (list, dict)) or (isinstance(literal, str) and text[:1] in "\"'"):
        return check(literal, where)
    if key in TEXT_READERS:
        return check(TEXT_READERS[key](text, where), where)
    try:
        return check(text, where)
    except InputError as err:
        if literal is None:
            raise
        try:
            return check(literal, where)  # `true`, `2`: for keys whose values are not text
        except InputError:
            raise err from None


def _toml_value(text: str) -> object:
    """`text` read as one TOML value (a list, a quoted string, a number, a boolean), or None."""
    import tomllib  # start-up: only a Sphinx option's text is read as TOML

    from .spec_screen import exact_decimal, screen_toml

    try:
        screen_toml(f"value = {text}", "value")
        table = tomllib.loads(f"value = {text}", parse_float=exact_decimal)
    except (tomllib.TOMLDecodeError, RecursionError, ValueError):  # InputError too: screened out
        return None
    return table["value"] if list(table) == ["value"] else None


def _unknown(key: str, keys: Iterable[str]) -> str:
    import difflib  # start-up: only an unknown key looks for the nearest

    close = difflib.get_close_matches(key[:100], list(keys), n=1, cutoff=0.5)
    hint = f"; did you mean '{close[0]}'?" if close else f"; known keys: {', '.join(keys)}"
    return f"unknown key {key if len(key) <= 40 else key[:40] + '…'!r}{hint}"


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number attnviz accepts")


def kind_of(value: object) -> str:
    """What a spec value is, as an error names it: "a table", "a list", "a string", ..."""
    return {dict: "a table", list: "a list", str: "a string", bool: "a boolean", int: "an integer",
            Decimal: "a decimal", type(None): "null"}.get(type(value), type(value).__name__)
