"""Stage 2, engine: exact attention (scores, masks, logits, softmax), head mappings, FlashAttention's
tiles and KV-cache decoding, with no text and no pictures.

`attnviz.engine.*` is a documented path: the attention module's names are here.
"""

from __future__ import annotations

from . import bound_mask as _bound_mask
from .attention import *  # noqa: F403
from .attention import __all__ as _attention_all
from .attention import BoundMask

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from .masks import Mask as Expression

Mask = BoundMask  # the bound mask's name before 0.2 (`attnviz.Mask` is the expression); kept for a release

__all__ = [*_attention_all, "Mask"]


def _expression(bound: BoundMask) -> Expression:
    """`bound` as an `attnviz.Mask` expression, for a bound mask's `&`, `|` and `~`."""
    # Imported on the first combination, not here: the package is imported by every command, and a
    # plain `attnviz render` must not load the mask grammar (tests/test_startup.py). Registering from
    # the package (rather than from `masks` when it loads) means `CAUSAL & "window=3"` works even
    # before anything has imported `masks`, with no import of `masks` from below it.
    from .masks import Mask as Expression

    return Expression(bound)


_bound_mask.express_with(_expression)
