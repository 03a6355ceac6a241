"""Moved to `attnviz.figures.heads` in 0.2; this path re-exports it for one release."""

from .figures.heads import *  # noqa: F403
from .figures.heads import __all__  # noqa: F401
