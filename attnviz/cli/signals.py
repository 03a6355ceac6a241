"""Where the command meets the operating system: SIGTERM and SIGHUP (stopped as Ctrl-C stops it), and writing
to standard output and to files with every failure as one line for the user.
"""

from __future__ import annotations

import os
import sys

from ..errors import InputError, describe, one_line, printable

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import FrameType, TracebackType
    from typing import Any, Literal

__all__ = ["Stopped", "StopSignals", "ignore_late_stops", "emit", "report", "drop_stdout", "writing", "one_line",
           "describe"]


class Stopped(BaseException):
    """SIGTERM or SIGHUP arrived: raised where the command is, so writes clean up as for Ctrl-C."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _stop(signum: int, frame: FrameType | None) -> None:
    raise Stopped(signum)


class StopSignals:
    """While active, SIGTERM and SIGHUP raise `Stopped` where the command is, so writes clean up as for Ctrl-C
    (no partial file, no temporary left); the previous handlers come back afterwards. Outside the main
    thread, signals are not ours to handle, and nothing changes. (A class, not contextlib.contextmanager:
    the command does not import contextlib.)"""

    previous: list[tuple[int, Any]]  # (signal, its handler before): what signal.signal() returned

    def __enter__(self) -> StopSignals:
        import signal  # start-up: --version needs no handlers

        handled = [getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)]
        try:
            self.previous = [(signum, signal.signal(signum, _stop)) for signum in handled]
        except ValueError:  # not the main thread: signals are not ours to handle
            self.previous = []
        return self

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None,
                 traceback: TracebackType | None) -> Literal[False]:
        import signal  # start-up: imported already by __enter__; named here only

        for signum, handler in self.previous:
            signal.signal(signum, handler)
        return False


def ignore_late_stops() -> None:
    """Ctrl-C, SIGTERM and SIGHUP ignored from here on: for a command whose work is done and said, as its process
    exits (a stop arriving then would end it by the signal, its status not the command's)."""
    import signal  # start-up: as StopSignals

    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_IGN)


def emit(data: str | bytes) -> None:
    """Text (as UTF-8, whatever the locale) or bytes to standard output. Closed or full, it is one line
    for the user; a reader that left (`| head`) ends the command quietly (BrokenPipeError, in main)."""
    stream = sys.stdout
    if stream is None:  # started with standard output closed (`>&-`)
        raise InputError("closed; give a file with -o PATH", "standard output")
    buffer = getattr(stream, "buffer", None)  # None for a StringIO (tests, notebooks): text as it is
    try:
        if buffer is None:
            stream.write(data if isinstance(data, str) else data.decode("utf-8", "replace"))
        else:
            stream.flush()
            buffer.write(data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data)
        stream.flush()
    except BrokenPipeError:
        raise
    except (OSError, ValueError) as err:  # ENOSPC (/dev/full), EBADF, or a closed file object
        drop_stdout()
        raise InputError(f"cannot write: {getattr(err, 'strerror', None) or err}", "standard output") from None


def report(paths: Sequence[object]) -> None:
    """List the files written, one per line; if standard output cannot take the list, say what was written."""
    try:
        emit("".join(f"{path}\n" for path in paths))
    except InputError as err:
        written = str(paths[0]) + (f" and {len(paths) - 1} more file{'s' * (len(paths) > 2)}" if len(paths) > 1 else "")
        raise InputError(f"{err.what}; written: {written}", err.where) from None



def drop_stdout() -> None:
    """Point the standard output descriptor at /dev/null, so the interpreter's last flush cannot fail again
    (and print a second message)."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # None, a StringIO, or closed
        return
    os.dup2(os.open(os.devnull, os.O_WRONLY), fd)



class writing:
    """An OSError while writing (no permission, disk full, a file in the way) is one line for the user.
    (A class, not contextlib.contextmanager: the command does not import contextlib.)"""

    def __init__(self, where: str) -> None:
        self.where = where

    def __enter__(self) -> writing:
        return self

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None,
                 traceback: TracebackType | None) -> Literal[False]:
        if isinstance(err, OSError):
            where = self.where
            place = f"{err.filename}: " if err.filename and not where.endswith(f" {err.filename}") else ""
            raise InputError(printable(f"cannot write: {place}{err.strerror or err}"), printable(where)) from None
        return False

