"""Moved to `attnviz.integrations.sphinx` in 0.2; this path re-exports it for one release."""

from .integrations.sphinx import *  # noqa: F403
from .integrations.sphinx import __all__  # noqa: F401
