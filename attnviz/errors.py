"""The one error type for bad input, in a module of its own: the command catches it without
importing the exact-number machinery (`attnviz --version` and `--help` import nothing else)."""

from __future__ import annotations

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["InputError", "printable"]


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
