"""The 0.1.0 path of `attnviz.figures.composite` (and of `build`, now `attnviz.figures.from_arguments`),
kept for one release: each name read here is the new module's, with a DeprecationWarning naming it."""
from . import moved_to
__getattr__ = moved_to(__name__, "attnviz.figures.composite", build="attnviz.figures.from_arguments")
