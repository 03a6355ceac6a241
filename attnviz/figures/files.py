"""Writing files atomically: a temporary file in the target folder, then a rename.

Here, in the figures stage, because `Figure.save` is the first thing that writes a file;
`attnviz.io.atomic` re-exports it for io and the stages after.

An error part-way never leaves a partial file and never touches an existing one. Nothing is written
through a symbolic link: a link at the file, at a folder of a relative path, or at or inside a folder
being written (`folder_lock`) is refused (a link planted in `out/` must not redirect a write outside
it). A device or pipe (`/dev/null`, `/dev/stdout`, a FIFO) is written to directly, since renaming over
it would destroy it; of links, only the system's own under /dev/ (/dev/stdout -> /proc/self/fd/1) lead to one.
Folders made for the files are removed again when the write fails and leaves them empty.
SIGTERM and SIGHUP (as `attnviz` handles them, by raising) and SIGINT clean up the same way;
they are held back only while a temporary file is created and while the files are renamed into
place, so a page's files are replaced together or not at all.
"""

from __future__ import annotations

import errno
import itertools
import os
import signal
import stat

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path
    from types import TracebackType
    from typing import IO, Any, Literal, TypeAlias, TypeVar

    StrPath: TypeAlias = "str | os.PathLike[str]"
    Data: TypeAlias = "str | bytes"
    #: Paths of one kind (a mapping's keys are invariant: a dict of Paths is not a Mapping[StrPath, ...]).
    P = TypeVar("P", bound=StrPath)

__all__ = ["write_atomic", "write_tree_atomic", "write_files", "folder_lock"]

#: The folders this process holds a `folder_lock` on (absolute): no link is followed inside them.
_LOCKED: list[str] = []
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)  # missing on Windows, where O_EXCL alone refuses an existing name
_HELD = {signal.SIGINT, signal.SIGTERM} | ({signal.SIGHUP} if hasattr(signal, "SIGHUP") else set())


def write_atomic(path: StrPath, text: Data) -> Path:
    """Write `text` (UTF-8; or bytes, as they are) to `path`, creating folders; returns the Path."""
    return write_tree_atomic({path: text})[0]


def write_tree_atomic(files: Mapping[P, Data]) -> list[Path]:
    """Write several files (a mapping of paths to texts), all or nothing; returns their Paths."""
    from pathlib import Path  # start-up: the command writes with os.path; only this API returns Paths

    write_files(files)
    return [Path(path) for path in files]


def write_files(files: Mapping[P, Data]) -> None:
    """Write several files (a mapping of paths to texts), all or nothing.

    Every file is first written in full to a temporary file beside its target; only when all
    of them are on disk do they replace their targets, each by an atomic rename. Paths as
    strings (os.path), not pathlib: `attnviz render` would spend more importing pathlib than
    drawing the figure.
    """
    plan = [_planned(path, text) for path, text in files.items()]  # before anything is written
    staged: list[tuple[str, str]] = []
    created: list[str] = []
    try:
        for _given, target, text in plan:
            if target is not None:
                _stage(target, text, staged, created)
        with _signals_held():  # every file replaced, or (on an error) none
            for tmp, target in staged:
                os.replace(tmp, target)
    except BaseException:
        for tmp, _ in staged:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                continue
        _remove_empty(created)
        raise
    for given, target, text in plan:
        if target is None:
            with _open(_open_stream(given), text) as handle:
                handle.write(text)


def _planned(path: StrPath, text: Data) -> tuple[str, str | None, Data]:
    """(name, target, text): the target None for a device or a pipe (/dev/stdout on a pipe), written directly;
    a link, a name too long or a folder refused (a rename would name our temporary)."""
    name = os.fspath(path)
    if (not os.path.islink(name) or name.startswith("/dev/")) and _is_stream(name):
        return name, None, text
    _refuse_links(name)
    _refuse_long_name(name)
    if os.path.isdir(name) or name.endswith(("/", os.sep)):  # "newdir/" names a folder, even a new one
        raise IsADirectoryError(errno.EISDIR, "it is a folder; give a file name", name)
    return name, name, text


def _stage(target: str, text: Data, staged: list[tuple[str, str]], created: list[str]) -> None:
    """Write `text` in full to a temporary beside `target` (noted in `staged`, its new folders in `created`)."""
    _make_folders(os.path.dirname(target), created)
    with _signals_held():  # a signal between creating the temporary and noting it would leave it behind
        fd, tmp = _create_temporary(target)
        staged.append((tmp, target))
    with _open(fd, text) as handle:
        handle.write(text)
    if os.path.isfile(target):  # keep an existing file's permissions
        os.chmod(tmp, os.stat(target).st_mode & 0o7777)


class folder_lock:
    """Serialise writers of one folder (`attnviz page`, `walkthrough`, `gallery`): an exclusive lock on the
    folder itself (flock; released when the process ends, however it ends, so it is never stale). A second
    writer waits, says so on standard error, and gives up after `wait` seconds. The folder is made if
    missing, and removed again if it is left empty. No lock where flock is missing (Windows)."""

    def __init__(self, folder: StrPath, wait: float = 120) -> None:
        self.folder, self.wait = os.fspath(folder), wait
        self.fd: int | None = None
        self.created: list[str] = []

    def __enter__(self) -> folder_lock:
        try:
            import fcntl  # optional: flock is missing on Windows
        except ImportError:
            return self
        _refuse_links(self.folder)
        _make_folders(self.folder, self.created)
        # O_NOFOLLOW: a link swapped in after the check is refused too, never locked (nor written) through
        self.fd = os.open(self.folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        _LOCKED.append(os.path.abspath(self.folder))
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            import sys  # start-up: only a second writer waits
            import time

            print(f"attnviz: waiting: another attnviz is writing into {self.folder}", file=sys.stderr, flush=True)
            deadline = time.monotonic() + self.wait
            while True:
                time.sleep(0.05)
                try:
                    fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        self.__exit__(None, None, None)
                        raise TimeoutError(errno.ETIMEDOUT, f"another attnviz has been writing into it for "
                                           f"{self.wait} s; nothing was written", self.folder) from None
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 traceback: TracebackType | None) -> Literal[False]:
        if self.fd is not None:
            os.close(self.fd)  # releases the lock
            self.fd = None
            _LOCKED.remove(os.path.abspath(self.folder))
        _remove_empty(self.created)
        return False


def _refuse_links(path: str) -> None:
    """Raise if `path`, or a folder on the way to it that is the writer's to check, is a symbolic link.

    Checked: the path itself; every folder of a relative path; the folders at and inside a locked
    folder. Not checked: the folders of an absolute path above that, which the user named (a home
    folder may well be a link)."""
    absolute = os.path.abspath(path)
    inside = [root for root in _LOCKED if absolute == root or absolute.startswith(root.rstrip(os.sep) + os.sep)]
    stop = max(inside, key=len) if inside else None
    step = path.rstrip("/" + os.sep) or path
    while step and step not in (os.curdir, os.pardir) and not step.endswith(os.sep + os.pardir):
        if os.path.islink(step):
            raise OSError(errno.ELOOP, "it is a symbolic link; attnviz writes no file through a link "
                          "(remove the link, or give the path it leads to)", step)
        parent = os.path.dirname(step)
        if parent == step or (os.path.isabs(path) and (stop is None or os.path.abspath(step) == stop)):
            break
        step = parent


def _refuse_long_name(path: str) -> None:
    """Raise, naming `path`, if its name is longer than the file system allows: found before anything is
    written, not when the rename fails part-way through a page."""
    try:
        os.lstat(path)
    except OSError as err:
        if err.errno == errno.ENAMETOOLONG:
            raise
        return


def _is_stream(path: str) -> bool:
    """Whether `path` names something that is not a file or folder: a pipe, a terminal, /dev/null."""
    try:
        mode = os.stat(path).st_mode  # follows /dev/stdout -> /proc/self/fd/1 -> the pipe itself
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _open_stream(path: str) -> int:
    try:
        return os.open(path, os.O_WRONLY)
    except OSError:
        # A socket (or a pipe some systems will not reopen) behind /dev/stdout: write to the descriptor itself.
        fd = {"/dev/stdout": 1, "/dev/stderr": 2}.get(path)
        if fd is None:
            raise
        return os.dup(fd)


def _make_folders(folder: str, created: list[str]) -> None:
    """Make `folder` and any missing parents, noting each one made in `created` (outermost first)."""
    missing: list[str] = []
    while folder and not os.path.isdir(folder):
        missing.append(folder)
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    for path in reversed(missing):
        try:
            os.mkdir(path)
        except FileExistsError:
            continue
        created.append(path)


def _remove_empty(created: list[str]) -> None:
    """Remove the folders made for a write that left them empty, innermost first."""
    for path in reversed(created):
        try:
            os.rmdir(path)
        except OSError:  # not empty (another writer, or files of ours that were written), or gone
            continue
    created.clear()


class _signals_held:
    """Hold back SIGINT, SIGTERM and SIGHUP (they arrive when the block ends). A class, not
    contextlib.contextmanager: the command does not import contextlib."""

    def __enter__(self) -> None:
        self.held = hasattr(signal, "pthread_sigmask")
        if self.held:
            self.old = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 traceback: TracebackType | None) -> Literal[False]:
        if self.held:
            signal.pthread_sigmask(signal.SIG_SETMASK, self.old)
        return False


def _open(fd: int, text: Data) -> IO[Any]:
    if isinstance(text, bytes):
        return os.fdopen(fd, "wb")
    return os.fdopen(fd, "w", encoding="utf-8", newline="\n")


def _create_temporary(path: str) -> tuple[int, str]:
    """A new file beside `path` (same filesystem, so the rename is atomic).

    Not `tempfile`: its import costs the command more than the whole figure takes to draw.
    """
    folder, name = os.path.split(path)
    for n in itertools.count():
        # The name shortened, so the temporary's name fits where the file's does (255 bytes on most systems)
        tmp = os.path.join(folder, f".{name[:32]}.{os.getpid()}.{n}.tmp")
        try:  # O_EXCL and O_NOFOLLOW: never opened through a link planted at the temporary's name
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o644), tmp
        except FileExistsError:
            continue
        except OSError as err:  # name the file the user asked for, not our temporary one
            raise OSError(err.errno, err.strerror, str(path)) from None
    raise AssertionError("unreachable: itertools.count() never ends")
