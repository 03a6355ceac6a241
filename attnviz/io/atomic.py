"""Writing files atomically: the writers live in `attnviz.figures.files` (the first stage that writes a
file, `Figure.save`); io and the stages after it reach them here."""

from __future__ import annotations

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from contextlib import AbstractContextManager
    from os import PathLike
    from pathlib import Path

    # figures.files is not annotated yet: its writers as io and the command call them. (Once it is,
    # this block can go, and the import below serve type checkers too.)
    Files = Mapping[str, str | bytes]  # path -> text (written as UTF-8) or bytes
    write_atomic: Callable[[str | PathLike[str], str | bytes], Path]
    write_tree_atomic: Callable[[Files], list[Path]]
    write_files: Callable[[Files], None]
    folder_lock: Callable[[str | PathLike[str]], AbstractContextManager[object]]
else:
    from ..figures.files import folder_lock, write_atomic, write_files, write_tree_atomic

__all__ = ["write_atomic", "write_tree_atomic", "write_files", "folder_lock"]
