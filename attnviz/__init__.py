"""attnviz: exact pictures of attention scores, masks and named softmax."""

import sys

__all__ = ["Figure", "InputError", "Mask", "compose", "figure", "flash", "__version__"]
__version__ = "0.1.0"

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:  # what the lazy names below are, for type checkers and editors
    from .errors import InputError
    from .figure import Figure, figure
    from .flash import flash
    from .masks import Mask
    from .panels import compose

# The API, imported on first use: `attnviz --version` and `--help` start as fast as Python does.
_API = {"Figure": "figure", "figure": "figure", "flash": "flash", "InputError": "errors",
        "compose": "panels", "Mask": "masks"}  # name: its module


def __getattr__(name: str) -> object:
    if name not in _API:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = f"{__name__}.{_API[name]}"
    __import__(module)
    value = getattr(sys.modules[module], name)
    globals()[name] = value
    return value


class _Package(type(sys)):  # type: ignore[misc]  # a module's own class, given to this module below
    def __setattr__(self, name: str, value: object) -> None:
        # Importing the submodule attnviz.figure (or .flash) sets the package's `figure` to that module;
        # the API's `attnviz.figure` stays the function, as when this file imported it eagerly.
        if _API.get(name) == name and value is sys.modules.get(f"{__name__}.{name}"):
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
