"""Writing files atomically: a temporary file in the target folder, then a rename.

An error part-way never leaves a partial file and never touches an existing one. A symlink
is written through (its target is replaced, the link kept); a device or pipe (`/dev/null`,
`/dev/stdout`, a FIFO) is written to directly, since renaming over it would destroy it.
"""

import errno
import itertools
import os

__all__ = ["write_atomic", "write_tree_atomic", "write_files"]


def write_atomic(path, text):
    """Write `text` (UTF-8; or bytes, as they are) to `path`, creating folders; returns the Path."""
    return write_tree_atomic({path: text})[0]


def write_tree_atomic(files):
    """Write several files (a mapping of paths to texts), all or nothing; returns their Paths."""
    from pathlib import Path

    write_files(files)
    return [Path(path) for path in files]


def write_files(files):
    """Write several files (a mapping of paths to texts), all or nothing.

    Every file is first written in full to a temporary file beside its target; only when all
    of them are on disk do they replace their targets, each by an atomic rename. Paths as
    strings (os.path), not pathlib: `attnviz render` would spend more importing pathlib than
    drawing the figure.
    """
    targets = [os.path.realpath(path) for path in files]
    for given, target in zip(files, targets):  # before anything is written; a rename would name our temporary
        given = os.fspath(given)
        if os.path.isdir(target) or given.endswith(("/", os.sep)):  # "newdir/" names a folder, even a new one
            raise IsADirectoryError(errno.EISDIR, "it is a folder; give a file name", given)
    staged, streams = [], []
    try:
        for target, text in zip(targets, files.values()):
            if os.path.exists(target) and not os.path.isfile(target):
                streams.append((target, text))  # a device or a pipe: written last, directly
                continue
            os.makedirs(os.path.dirname(target), exist_ok=True)
            fd, tmp = _create_temporary(target)
            staged.append((tmp, target))
            with _open(fd, text) as handle:
                handle.write(text)
            if os.path.isfile(target):  # keep an existing file's permissions
                os.chmod(tmp, os.stat(target).st_mode & 0o7777)
        for tmp, target in staged:
            os.replace(tmp, target)
    except BaseException:
        for tmp, _ in staged:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
        raise
    for target, text in streams:
        with _open(os.open(target, os.O_WRONLY), text) as handle:
            handle.write(text)


def _open(fd, text):
    if isinstance(text, bytes):
        return os.fdopen(fd, "wb")
    return os.fdopen(fd, "w", encoding="utf-8", newline="\n")


def _create_temporary(path):
    """A new file beside `path` (same filesystem, so the rename is atomic).

    Not `tempfile`: its import costs the command more than the whole figure takes to draw.
    """
    folder, name = os.path.split(path)
    for n in itertools.count():
        tmp = os.path.join(folder, f".{name}.{os.getpid()}.{n}.tmp")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644), tmp
        except FileExistsError:
            continue
        except OSError as err:  # name the file the user asked for, not our temporary one
            raise OSError(err.errno, err.strerror, str(path)) from None
