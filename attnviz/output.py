"""Writing files atomically: a temporary file in the target folder, then a rename.

An error part-way never leaves a partial file and never touches an existing one. A symlink
is written through (its target is replaced, the link kept); a device or pipe (`/dev/null`,
`/dev/stdout`, a FIFO) is written to directly, since renaming over it would destroy it.
"""

import errno
import itertools
import os
from pathlib import Path

__all__ = ["write_atomic", "write_tree_atomic"]


def write_atomic(path, text):
    """Write `text` (UTF-8; or bytes, as they are) to `path`, creating folders; returns the Path."""
    return write_tree_atomic({path: text})[0]


def write_tree_atomic(files):
    """Write several files (a mapping of paths to texts), all or nothing.

    Every file is first written in full to a temporary file beside its target; only when all
    of them are on disk do they replace their targets, each by an atomic rename.
    """
    written = [Path(path) for path in files]
    targets = [Path(os.path.realpath(path)) for path in written]
    for given, target in zip(files, targets):  # before anything is written; a rename would name our temporary
        if target.is_dir() or str(given).endswith(("/", os.sep)):  # "newdir/" names a folder, even a new one
            raise IsADirectoryError(errno.EISDIR, "it is a folder; give a file name", str(given))
    staged, streams = [], []
    try:
        for target, text in zip(targets, files.values()):
            if target.exists() and not target.is_file():
                streams.append((target, text))  # a device or a pipe: written last, directly
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = _create_temporary(target)
            staged.append((tmp, target))
            with _open(fd, text) as handle:
                handle.write(text)
            if target.is_file():  # keep an existing file's permissions
                os.chmod(tmp, target.stat().st_mode & 0o7777)
        for tmp, target in staged:
            os.replace(tmp, target)
    except BaseException:
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)
        raise
    for target, text in streams:
        with _open(os.open(target, os.O_WRONLY), text) as handle:
            handle.write(text)
    return written


def _open(fd, text):
    if isinstance(text, bytes):
        return os.fdopen(fd, "wb")
    return os.fdopen(fd, "w", encoding="utf-8", newline="\n")


def _create_temporary(path):
    """A new file beside `path` (same filesystem, so the rename is atomic).

    Not `tempfile`: its import costs the command more than the whole figure takes to draw.
    """
    for n in itertools.count():
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{n}.tmp")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644), tmp
        except FileExistsError:
            continue
        except OSError as err:  # name the file the user asked for, not our temporary one
            raise OSError(err.errno, err.strerror, str(path)) from None
