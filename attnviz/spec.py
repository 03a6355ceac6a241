"""Moved to `attnviz.io.spec` in 0.2; this path re-exports it for one release."""

from .io.spec import *  # noqa: F403
from .io.spec import __all__  # noqa: F401
