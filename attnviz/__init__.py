"""attnviz: exact pictures of attention scores, masks and named softmax.

The package reads as its pipeline: numbers -> engine -> words -> layout -> render -> figures ->
io -> publish -> integrations -> cli ("Layout" in docs/project.rst). Every documented name is here.
"""

__all__ = ["Attention", "Bias", "BoundMask", "Composite", "Figure", "FlashStep", "HeadsFigure", "HeadsSchematic",
           "InputError", "Mask", "MaskCells", "MaskMapFigure", "ModelFigure", "Scale", "ScoresFigure",
           "ShownFlashStep", "Walkthrough", "Weights", "cache_slots", "compose", "figure", "figure_arguments", "flash",
           "model_figure", "parse_spec", "read_spec", "value_from_text", "walkthrough", "__version__"]
__version__ = "0.1.0"

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:  # what the lazy names below are, for type checkers and editors
    import typing
    from .engine import Attention, Bias, BoundMask, Scale, Weights
    from .engine.decode import cache_slots
    from .engine.mask_cells import MaskCells
    from .engine.masks import Mask
    from .engine.tiled_softmax import FlashStep
    from .errors import InputError
    from .figures.api import Figure, figure
    from .figures.composite import Composite, compose
    from .figures.figure import MaskMapFigure, ScoresFigure
    from .figures.heads import HeadsFigure
    from .figures.heads_schematic import HeadsSchematic
    from .figures.model import ModelFigure, model_figure
    from .io.spec import figure_arguments, parse_spec, read_spec, value_from_text
    from .publish.walkthrough.api import ShownFlashStep, Walkthrough, flash, walkthrough

# The API, imported on first use: `attnviz --version` and `--help` start as fast as Python does.
_API = {name: module for module, names in {  # module: the names it gives
    "engine": "Attention Bias BoundMask Scale Weights", "engine.decode": "cache_slots", "engine.masks": "Mask",
    "engine.mask_cells": "MaskCells", "engine.tiled_softmax": "FlashStep", "errors": "InputError",
    "figures.api": "Figure figure", "figures.composite": "Composite compose", "figures.heads": "HeadsFigure",
    "figures.figure": "MaskMapFigure ScoresFigure", "figures.heads_schematic": "HeadsSchematic",
    "figures.model": "ModelFigure model_figure", "io.spec": "figure_arguments parse_spec read_spec value_from_text",
    "publish.walkthrough.api": "ShownFlashStep Walkthrough flash walkthrough"}.items() for name in names.split()}


def __getattr__(name: str) -> object:
    if name not in _API:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module  # on first use of a name, never at start-up

    globals()[name] = value = getattr(import_module(f"{__name__}.{_API[name]}"), name)
    return value


def moved_to(old: str, new: str, **elsewhere: str) -> "typing.Callable[[str], typing.Any]":
    """The `__getattr__` of a module moved from `old` to `new` (a name in `elsewhere`: to the module given):
    each name read at `old` is the new module's, with a DeprecationWarning naming where it is now."""
    def read(name: str) -> "typing.Any":
        import warnings  # only when a moved path is used
        from importlib import import_module

        if name == "__all__":  # `from old import *`: every name, each then read (and warned about) here
            return [*vars(import_module(new))["__all__"], *elsewhere]
        module = elsewhere.get(name, new)
        if name.startswith("__") or name not in vars(import_module(module)):
            raise AttributeError(f"module {old!r} has no attribute {name!r}")
        warnings.warn(f"{old} is deprecated: import {name} from {module}", DeprecationWarning, stacklevel=2)
        return getattr(import_module(module), name)
    return read
