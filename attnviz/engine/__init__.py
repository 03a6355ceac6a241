"""Stage 2, engine: exact attention (scores, masks, logits, softmax), head mappings, FlashAttention's
tiles and KV-cache decoding, with no text and no pictures.

`attnviz.engine.*` is a documented path: the attention module's names are here.
"""

from .attention import *  # noqa: F403
from .attention import __all__ as _attention_all
from .attention import BoundMask

Mask = BoundMask  # the bound mask's name before 0.2 (`attnviz.Mask` is the expression); kept for a release

__all__ = [*_attention_all, "Mask"]
