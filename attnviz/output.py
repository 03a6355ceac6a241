"""Writing files atomically: a temporary file in the target folder, then a rename.

An error part-way never leaves a partial file and never touches an existing one.
"""

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
    staged = []
    try:
        for path, text in files.items():
            path = Path(path)
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = _create_temporary(path)
            staged.append((tmp, path))
            if isinstance(text, bytes):
                with os.fdopen(fd, "wb") as handle:
                    handle.write(text)
            else:
                with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
                    handle.write(text)
        for tmp, path in staged:
            os.replace(tmp, path)
    except BaseException:
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)
        raise
    return [path for _, path in staged]


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
