"""The one error type for bad input, in a module of its own: the command catches it without
importing the exact-number machinery (`attnviz --version` and `--help` import nothing else)."""

from __future__ import annotations

import os

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["InputError", "printable", "one_line", "describe"]


class InputError(ValueError):
    """Bad user input: `where` names the input (a flag, a file, a key path), `what` says what is wrong.

    Shown to the user as one line, `where: what`.
    """

    def __init__(self, what: str, where: str | None = None) -> None:
        self.what, self.where = what, where
        super().__init__(f"{where}: {what}" if where else what)

    def relocated(self, rename: Callable[[str | None], str | None]) -> InputError:
        """The same error with `where` renamed, e.g. the API's `q` as the command's `--q`."""
        return InputError(self.what, rename(self.where))


#: Control characters (C0, DEL, C1) as Python writes them in a string literal: `\n`, `\t`, `\x1b`.
_ESCAPES = {code: repr(chr(code))[1:-1] for code in (*range(0x20), *range(0x7f, 0xa0))}


def printable(text: str) -> str:
    r"""`text` (a path, a spec's name) with its control characters escaped as `\n`, `\x1b`: a message shows a
    user's name on one line, and never sends the terminal an escape sequence.

    >>> print(printable("a\nb\x1b[31m.toml"))
    a\nb\x1b[31m.toml
    """
    return text.translate(_ESCAPES)


def one_line(err: BaseException) -> str:
    """The error's message on one line, control characters (a path's escape sequence) escaped."""
    return printable(" ".join(str(err).split()))


#: The longest message an internal error's line repeats: a bug's exception may hold a whole input.
MAX_MESSAGE = 300
#: What the line says of an exception with no message, by its type's name (else "no message").
_SILENT = {"MemoryError": "out of memory"}


def describe(err: BaseException) -> str:
    """An internal error's exception on one line: its type and message (shortened), or, with no message (`raise
    IndexError()`, or a `str()` that fails), its type, what that means and where it was raised.

    >>> describe(KeyError("k")), describe(IndexError())
    ("KeyError: 'k'", 'IndexError (no message; raised at <unknown>)')
    """
    name = type(err).__name__
    try:
        message = one_line(err)
    except Exception:  # noqa: BLE001 - a broken __str__ must not cost the line
        message = ""
    if message:
        return f"{name}: {message[:MAX_MESSAGE]}" + ("…" if len(message) > MAX_MESSAGE else "")
    return f"{name} ({_SILENT.get(name, 'no message')}; raised at {_origin(err)})"


def _origin(err: BaseException) -> str:
    """Where `err` was raised: the innermost frame's file (its folder and name) and line, as a bug report wants."""
    tb = err.__traceback__
    if tb is None:
        return "<unknown>"
    while tb.tb_next is not None:
        tb = tb.tb_next
    path = tb.tb_frame.f_code.co_filename.replace(os.sep, "/").split("/")
    return printable(f"{'/'.join(path[-2:]) if len(path) > 2 else '/'.join(path)}:{tb.tb_lineno}")
