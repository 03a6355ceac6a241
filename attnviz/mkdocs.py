"""Moved to `attnviz.integrations.mkdocs` in 0.2; this path re-exports it for one release."""

from .integrations.mkdocs import *  # noqa: F403
from .integrations.mkdocs import __all__  # noqa: F401
