"""Moved to `attnviz.figures.composite` in 0.2; this path re-exports it for one release."""

from .figures.composite import *  # noqa: F403
from .figures.composite import __all__  # noqa: F401
