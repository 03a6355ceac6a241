"""The 0.1.0 path (named in users' mkdocs.yml) of `attnviz.integrations.markdown`, kept for one release:
each name read here is the new module's, with a DeprecationWarning naming it."""
from . import moved_to
__getattr__ = moved_to(__name__, "attnviz.integrations.markdown")
