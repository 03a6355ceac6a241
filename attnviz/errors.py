"""The one error type for bad input, in a module of its own: the command catches it without
importing the exact-number machinery (`attnviz --version` and `--help` import nothing else)."""

from __future__ import annotations

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["InputError"]


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
