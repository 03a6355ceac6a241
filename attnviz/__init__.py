"""attnviz: exact pictures of attention scores, masks and named softmax.

The package reads as its pipeline: numbers -> engine -> words -> layout -> render -> figures ->
io -> publish -> integrations -> cli (see docs/architecture.rst).
"""

import sys

__all__ = ["Figure", "InputError", "Mask", "Walkthrough", "compose", "figure", "flash", "model_figure", "walkthrough",
           "__version__"]
__version__ = "0.1.0"

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:  # what the lazy names below are, for type checkers and editors
    from .engine.masks import Mask
    from .publish.walkthrough.api import Walkthrough, flash, walkthrough
    from .errors import InputError
    from .figures.api import Figure, figure
    from .figures.composite import compose
    from .figures.model import model_figure

# The API, imported on first use: `attnviz --version` and `--help` start as fast as Python does.
_API = {"Figure": "figures.api", "figure": "figures.api", "flash": "publish.walkthrough.api", "InputError": "errors",
        "compose": "figures.composite", "Mask": "engine.masks", "walkthrough": "publish.walkthrough.api",
        "Walkthrough": "publish.walkthrough.api", "model_figure": "figures.model"}  # name: its module


def __getattr__(name: str) -> object:
    if name not in _API:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = f"{__name__}.{_API[name]}"
    __import__(module)
    value = getattr(sys.modules[module], name)
    globals()[name] = value
    return value
