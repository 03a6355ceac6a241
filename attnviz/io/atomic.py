"""Writing files atomically: the writers live in `attnviz.figures.files` (the first stage that writes a
file, `Figure.save`); io and the stages after it reach them here."""

from ..figures.files import folder_lock, write_atomic, write_files, write_tree_atomic

__all__ = ["write_atomic", "write_tree_atomic", "write_files", "folder_lock"]
