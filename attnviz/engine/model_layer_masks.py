"""Each panel's mask of `attnviz model`, as transformers' modeling code builds it: a layer's family (a window, a chunk,
causal or bidirectional), image tokens and PaliGemma's prefix seeing each other both ways (parts of their own,
coloured apart), and GPT-OSS's learned sink logit as a column before the tokens' keys (`model_masks` plans the
panels).
"""

from __future__ import annotations

from .bound_mask import BoundMask
from .masks import Mask
from .runs import intersect_runs
from ..records import replace

TYPE_CHECKING = False  # a type checker takes it as True
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeAlias

    from .model_masks import LayerType
    from .runs import Runs

    #: Image tokens: one image's (first, last), 0-based, or several images' blocks.
    ImageTokens: TypeAlias = "tuple[int, int] | tuple[tuple[int, int], ...] | None"

__all__ = ["image_blocks", "layer_mask", "with_image_part", "with_sink"]


def image_blocks(image: ImageTokens) -> tuple[tuple[int, int], ...]:
    """Image tokens as blocks, one an image: ((first, last), ...).

    >>> image_blocks((2, 4)), image_blocks(((1, 2), (5, 6))), image_blocks(None)
    (((2, 4),), ((1, 2), (5, 6)), ())
    """
    if image is None:
        return ()
    if all(isinstance(x, int) for x in image):
        return (image,)  # type: ignore[return-value]  # one image's (first, last)
    return image  # type: ignore[return-value]  # several blocks


def _image_mask(first: int, last: int, window: int | None, words: str = "the image tokens") -> Mask:
    """Gemma 3's image tokens: each sees every image token of its image (within the window on sliding
    layers: transformers' `blockwise_overlay`, and on sliding layers its `sliding_window_overlay`)."""
    def keep(i: int, j: int) -> bool:
        return first <= i <= last and first <= j <= last and (window is None or j > i - window)

    def runs(i: int) -> tuple[tuple[int, int], ...]:
        low = first if window is None else max(first, i - window + 1)
        return ((low, last + 1),) if first <= i <= last and low <= last else ()

    def rule(base: int) -> str:
        near = f", j>i-{window}" if window else ""
        return f"i and j both in {words} {first + base}..{last + base}{near}"

    return Mask(BoundMask("prefix" if words == "the prefix" else "image block", rule(0), keep, rule_at=rule,
                          row_runs=runs))


def layer_mask(layer: LayerType, pad_left: int, image: ImageTokens, words: str = "the image tokens") -> Mask:
    """One layer's pattern as a mask family (before padding)."""
    if layer.kind == "sliding":
        mask = Mask(f"window={layer.size}")
    elif layer.kind == "chunked":
        shift = pad_left % layer.size
        mask = Mask(f"chunk={layer.size}" + (f",offset={shift}" if shift else ""))
    elif layer.kind == "local":
        mask = Mask(f"window={layer.size + 1},symmetric")
    else:
        mask = Mask("none" if layer.kind in ("bidirectional", "cross") else "causal")
    # Gemma 3's vision masks keep the window on sliding layers; PaliGemma's prefix (transformers' blockwise
    # overlay, or-ed after the window) does not
    window = layer.size if layer.kind == "sliding" and words != "the prefix" else None
    for first, last in image_blocks(image):
        mask = mask | _image_mask(first, last, window, words)
    return mask


def with_image_part(bound: BoundMask, image: ImageTokens, prefix: int = 0) -> Mask:
    """A bound mask whose kept cells between two of the image's tokens are a part of their own (`parts`, first, so
    they are coloured as the image's), then those between two tokens of PaliGemma's prefix, the others "kept"."""
    def block(*blocks: tuple[int, int]) -> Callable[[int], Runs]:
        def runs(i: int) -> Runs:
            own = [(first, last + 1) for first, last in blocks if first <= i <= last]
            return intersect_runs(bound.runs(i), tuple(own)) if own else ()
        return runs

    parts = [("image tokens, both ways", block(*image_blocks(image)))] if image is not None else []
    parts += [("prefix, both ways", block((0, prefix - 1)))] if prefix else []
    return Mask(replace(bound, parts=(*parts, ("kept", bound.runs))))


def with_sink(tokens: BoundMask) -> Mask:
    """A mask bound to the tokens' keys with GPT-OSS's learned sink logit as a column before them (kept by every
    row): its rule counts the tokens' keys as the axis does (j is the token's position) and names the sink apart, and
    the sink is a part of its own (`parts`), coloured apart from the tokens' cells."""
    assert tokens.shape is not None
    n_q, n_k = tokens.shape

    def runs(i: int) -> tuple[tuple[int, int], ...]:
        return ((0, 1), *((a + 1, b + 1) for a, b in tokens.runs(i)))

    def rule(base: int) -> str:
        return f"the sink, and {tokens.rule_text(base)}"

    def token_runs(i: int) -> tuple[tuple[int, int], ...]:
        return tuple((a + 1, b + 1) for a, b in tokens.runs(i))

    return Mask(BoundMask(f"{tokens.name} + sink", rule(0), lambda i, j: j == 0 or bool(tokens.keep(i, j - 1)),
                          rule_at=rule, row_runs=runs, shape=(n_q, n_k + 1),
                          parts=(("sink logit (not a token)", lambda i: ((0, 1),)), ("kept", token_runs))))
