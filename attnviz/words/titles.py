"""A figure's title from what it shows, for a figure given no title: "Causal attention, 3 tokens".

The seed's title ("Attention honesty boundary") belongs to the seed figure alone; a figure drawn from
a user's vectors says what it is, so figures on one page have names of their own.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from ..engine.softmax_forms import Form
    from ..typing import MaskSpec

__all__ = ["content_title", "mask_phrase", "size_phrase"]

# A single mask family, as typed, and the words a title uses for it.
_FAMILIES: tuple[tuple[str, str], ...] = (
    (r"causal", "Causal attention"),
    (r"none|full", "Bidirectional attention"),
    (r"window=(\d+)", "Sliding window of {0}"),
    (r"window=(\d+),symmetric", "Symmetric sliding window of {0}"),
    (r"window=(\d+),dilation=(\d+)", "Dilated sliding window of {0}, {1} apart"),
    (r"window=(\d+),dilation=(\d+),symmetric", "Dilated symmetric sliding window of {0}, {1} apart"),
    (r"prefix=(\d+)", "Prefix-LM, prefix of {0}"),
    (r"chunk=(\d+)", "Chunked attention, blocks of {0}"),
    (r"segments=[\d,]+", "Packed documents"),
    (r"documents=[\d,]+", "Packed documents, bidirectional"),
    (r"padding=([\d,]+)", "Padding at keys {0}"),
)


def mask_phrase(mask: MaskSpec, name: str) -> str:
    """The mask in a title's words: "Sliding window of 3" for `window=3`, else from the mask's name.

    >>> mask_phrase("window=3", "sliding-window"), mask_phrase(["causal", "padding=5"], "padding")
    ('Sliding window of 3', 'Padding attention')
    """
    text = mask if isinstance(mask, str) else mask[0] if isinstance(mask, (list, tuple)) and len(mask) == 1 \
        and isinstance(mask[0], str) else None
    if text is not None:
        plain = re.sub(r"\s+", "", text)
        for pattern, words in _FAMILIES:
            if match := re.fullmatch(pattern, plain):
                return words.format(*match.groups())
    return f"{name[:1].upper()}{name[1:]} attention"


def size_phrase(n_q: int, n_k: int) -> str:
    """"3 tokens", or "2 queries, 5 keys" when they differ.

    >>> size_phrase(1, 1), size_phrase(2, 5)
    ('1 token', '2 queries, 5 keys')
    """
    if n_q == n_k:
        return f"{n_q} token{'s' * (n_q != 1)}"
    return f"{n_q} quer{'y' if n_q == 1 else 'ies'}, {n_k} key{'s' * (n_k != 1)}"


def content_title(mask: MaskSpec, name: str, n_q: int, n_k: int, form: Form | None = None, *,  # noqa: PLR0913  a title's facts
                  named_bias: bool = False) -> str:
    """The title of a figure given none: its mask, its softmax form when not the plain one, a bias given by name
    (T5's buckets without values), and its size.

    >>> content_title("causal", "causal", 3, 3), content_title("window=3", "sliding-window", 6, 6)
    ('Causal attention, 3 tokens', 'Sliding window of 3, 6 tokens')
    >>> content_title("none", "bidirectional", 4, 4, named_bias=True)
    'Bidirectional attention, named T5 bias, 4 tokens'
    """
    words = ""
    if form is not None:
        from .forms import form_words  # start-up: only a figure with a form names it

        words = form_words(form).title
    if named_bias:
        words += " and a named T5 bias" if words.startswith(" with") else ", named T5 bias"
    return f"{mask_phrase(mask, name)}{words}, {size_phrase(n_q, n_k)}"
