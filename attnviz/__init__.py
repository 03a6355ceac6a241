"""attnviz: exact pictures of attention scores, masks and named softmax."""

from .exact import InputError
from .figure import Figure, figure
from .flash import flash

__all__ = ["Figure", "InputError", "figure", "flash", "__version__"]
__version__ = "0.1.0"
