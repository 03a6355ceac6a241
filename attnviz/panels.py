"""Moved to `attnviz.figures.composite` (and `build`, panels from spec arguments, to
`attnviz.figures.from_arguments`) in 0.2; this path re-exports them for one release."""

from .figures.composite import *  # noqa: F403
from .figures.composite import __all__ as _composite_all
from .figures.from_arguments import build

__all__ = [*_composite_all, "build"]
