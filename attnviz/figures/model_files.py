"""Reading a model's files safely (`attnviz model`'s config, a tokenizer folder before transformers reads it, and the
tokens that tokenizer splits a text into).

A user's small input file: only a regular file (never a FIFO, a device or a folder, which
would hang or never end), opened without waiting, read with a bound; JSON with its nesting and numbers bounded
before it is parsed (Python's parser recurses once a level, and an integer of thousands of digits is an error).
A tokenizer folder holds only regular files and folders, and no `auto_map` (the folder's own Python code).
Here, in the figures stage, because `model_figure` is the first to read them."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import stat
import sys
from itertools import accumulate

from ..errors import InputError, describe

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["read_regular", "check_regular", "read_json", "check_tokenizer_folder", "read_tokens", "tokenize",
           "MAX_DEPTH", "MAX_DIGITS", "MAX_CONFIG_BYTES"]

MAX_CONFIG_BYTES = 4_000_000  # a config.json is a few kilobytes; a tokenizer's files are not read here
MAX_DEPTH = 64  # a config.json nests 3 or 4 levels
MAX_DIGITS = 40  # of a whole number: a config's largest (a vocabulary, a position count) have under 10
MAX_FOLDER_FILES = 1000  # a tokenizer folder holds a few
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKETS = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def check_regular(mode: int, path: str, where: str) -> None:
    """Refuse anything but a regular file (`mode`: its `st_mode`)."""
    if not stat.S_ISREG(mode):
        kind = "a folder" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else "a device or socket"
        raise InputError(f"{path!r} is not a regular file ({kind})", where)


def read_regular(path: str, limit: int, where: str) -> bytes:
    """The bytes of the regular file at `path` (links followed), refused past `limit` bytes."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        raise InputError(f"cannot read {path!r}: {error.strerror or error}", where) from None
    try:
        check_regular(os.fstat(fd).st_mode, path, where)
        data = os.read(fd, limit + 1)  # a regular file: one read takes it whole, up to the bound
    except OSError as error:
        raise InputError(f"cannot read {path!r}: {error.strerror or error}", where) from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise InputError(f"{path!r} is over {limit:,} bytes; a config.json is a few kilobytes", where)
    return data


def _whole(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise InputError(f"a number of {len(text.lstrip('-')):,} digits; a config's numbers have at most {MAX_DIGITS}",
                         "config")
    return int(text)


def read_json(path: str, limit: int, where: str) -> object:
    """The JSON value in the regular file at `path`: nested at most MAX_DEPTH deep, whole numbers of at most
    MAX_DIGITS digits, both checked before the parse."""
    try:
        text = read_regular(path, limit, where).decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(f"{path!r} is not JSON: {error}", where) from None
    brackets = _BRACKETS.sub("", _STRING.sub("", text))
    if max(accumulate(map(_STEP.__getitem__, brackets)), default=0) > MAX_DEPTH:
        raise InputError(f"{path!r} is nested more than {MAX_DEPTH} deep; a config.json nests a few levels", where)
    try:
        return json.loads(text, parse_int=_whole)
    except InputError as error:
        raise InputError(f"{path!r}: {error.what}", where) from None
    except json.JSONDecodeError as error:
        raise InputError(f"{path!r} is not JSON: {error}", where) from None


def check_tokenizer_folder(path: str, limit: int) -> None:
    """Refuse a tokenizer folder transformers would hang on (a FIFO, a device) or run code from (`auto_map`)."""
    try:
        with os.scandir(path) as entries:
            listed = [entry for _, entry in zip(range(MAX_FOLDER_FILES + 1), entries)]
    except OSError as error:
        raise InputError(f"cannot read {path!r}: {error.strerror or error}", "tokenizer") from None
    if len(listed) > MAX_FOLDER_FILES:
        raise InputError(f"{path!r} holds over {MAX_FOLDER_FILES} files; a tokenizer folder holds a few", "tokenizer")
    for entry in listed:
        try:
            mode = entry.stat().st_mode  # links followed, nothing opened
        except OSError as error:
            raise InputError(f"cannot read {entry.path!r}: {error.strerror or error}", "tokenizer") from None
        if not entry.is_dir():
            check_regular(mode, entry.path, "tokenizer")
        if entry.name.lower() in ("config.json", "tokenizer_config.json"):  # as a case-blind file system opens them
            value = read_json(entry.path, limit, "tokenizer")
            if isinstance(value, dict) and "auto_map" in value:
                raise InputError(f"{entry.path!r} has an auto_map: the folder's own Python code, which attnviz never "
                                 "runs; give a tokenizer transformers has built in", "tokenizer")


def read_tokens(tokens: str | Sequence[str] | None, tokenizer: str | os.PathLike[str] | None) -> tuple[str, ...] | None:
    """Token labels: a text split on spaces (or by a local tokenizer), or a list as given."""
    if tokenizer is not None:
        if not isinstance(tokens, str):
            raise InputError("a tokenizer splits a text: give the tokens as one string", "tokenizer")
        return tuple(tokenize(tokens, os.fspath(tokenizer)))
    return None if tokens is None else tuple(tokens.split() if isinstance(tokens, str) else tokens)


def tokenize(text: str, path: str) -> list[str]:
    """`text` as the local tokenizer at `path` splits it (transformers, offline)."""
    try:
        from transformers import AutoTokenizer  # optional: only --tokenizer needs it
    except ImportError:
        raise InputError("--tokenizer needs transformers (pip install attnviz[models]); or give --tokens split on "
                         "spaces", "tokenizer") from None
    if not os.path.isdir(path):
        raise InputError(f"{path!r} is not a tokenizer folder (tokenizer.json and its config)", "tokenizer")
    check_tokenizer_folder(path, MAX_CONFIG_BYTES)
    try:  # no code from the folder, no question asked on standard input, nothing said on standard output
        with contextlib.redirect_stdout(sys.stderr):
            stdin, sys.stdin = sys.stdin, io.StringIO()
            try:
                tok = AutoTokenizer.from_pretrained(path, local_files_only=True, trust_remote_code=False)
            finally:
                sys.stdin = stdin
    except Exception as error:  # transformers raises many kinds: each is one line here
        raise InputError(f"cannot load the tokenizer in {path!r}: {describe(error)}", "tokenizer") from None
    return list(tok.tokenize(text))
