"""Moved to `attnviz.integrations.markdown` in 0.2; this path (named in users' mkdocs.yml) re-exports it for
one release."""

from .integrations.markdown import *  # noqa: F403
from .integrations.markdown import __all__  # noqa: F401
