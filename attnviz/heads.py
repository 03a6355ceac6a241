"""`attnviz.figures.heads` at its 0.1.0 path, kept for one release: every name read here warns."""
from . import moved_to
__getattr__ = moved_to(__name__, "attnviz.figures.heads")
