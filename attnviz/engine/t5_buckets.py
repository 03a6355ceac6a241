"""T5's relative-position buckets (`--bias t5=NUM_BUCKETS,MAX_DISTANCE[,values=...]`): the bias added to a logit is
the head's learned b[k] for the bucket k of the distance j − i, as `T5Attention._relative_position_bucket` buckets it.

Bidirectional (T5's encoder, a mask that is not causal): half the buckets for keys before the query, half for keys
after it; otherwise (the decoder, a causal mask) every bucket for keys before it and bucket 0 for the rest. Within
each half, distances below max_exact = half of the half's buckets have a bucket each; the rest share
logarithmically wider buckets up to MAX_DISTANCE, beyond which all distances share the last:

    bucket(n) = n                                                       for n < max_exact
    bucket(n) = min(B − 1, max_exact + ⌊log(n/max_exact) / log(D/max_exact) · (B − max_exact)⌋)   otherwise

attnviz computes the floor exactly, by integer comparison ((n/e)^(B−e) against (D/e)^k): no logarithm is rounded.
transformers computes it in float32, which can round a value within about 10⁻⁶ below a whole number up to it; for
the configurations T5 models ship (32 buckets, distance 128) and every size up to 128 buckets and distance 512 the
two agree at every distance to 4,096 (tests/test_t5_buckets.py), and where they could differ attnviz's is the
formula's value.
"""

from __future__ import annotations

import re
from fractions import Fraction

from ..numbers.exact import InputError, parse_number
from .attention import Bias

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from ..typing import BiasSpec, Exact

__all__ = ["MAX_BUCKETS", "relative_position_bucket", "check_buckets", "t5_bias", "parse_t5", "bucket_ranges",
           "config_note", "bias_name", "head_bias"]

MAX_BUCKETS = 1024


def check_buckets(num_buckets: int, max_distance: int, bidirectional: bool, where: str = "bias") -> None:
    """Refuses sizes the formula has no value for (a log of zero or of one's inverse)."""
    half = num_buckets // 2 if bidirectional else num_buckets
    if not 2 <= num_buckets <= MAX_BUCKETS:
        raise InputError(f"T5 takes 2 to {MAX_BUCKETS} buckets, got {num_buckets}", where)
    if half // 2 < 1:
        raise InputError(f"{num_buckets} buckets, bidirectional, leave no exact bucket each side: give at least 4",
                         where)
    if max_distance <= half // 2:
        raise InputError(f"the max distance {max_distance} must exceed the {half // 2} exact buckets "
                         "(log(max_distance/max_exact) would not be positive)", where)


def relative_position_bucket(relative_position: int, bidirectional: bool = True, num_buckets: int = 32,
                             max_distance: int = 128) -> int:
    """The bucket of `relative_position` (the key's position minus the query's), exactly.

    >>> [relative_position_bucket(r) for r in (-1, 0, 1, 7, 8, 20, 127, 128, -128)]
    [1, 0, 17, 23, 24, 26, 31, 31, 15]
    >>> [relative_position_bucket(-n, False) for n in (0, 15, 16, 40, 500)], relative_position_bucket(3, False)
    ([0, 15, 16, 23, 31], 0)
    """
    bucket = 0
    n = -relative_position
    if bidirectional:
        num_buckets //= 2
        bucket += num_buckets if relative_position > 0 else 0
        n = abs(n)
    else:
        n = max(n, 0)
    exact = num_buckets // 2
    if n < exact:
        return bucket + n
    wide = num_buckets - exact
    # the largest k <= wide with k <= log(n/exact)/log(max_distance/exact)·wide: (n/exact)^wide >= (D/exact)^k,
    # found by bisection (true at k = 0, as n >= exact, and false from some k on, as D > exact)
    left, low, high = n ** wide, 0, wide
    while low < high:
        k = (low + high + 1) // 2
        low, high = (k, high) if left * exact ** k >= max_distance ** k * exact ** wide else (low, k - 1)
    return bucket + min(exact + low, num_buckets - 1)


def parse_t5(text: str) -> tuple[int, int, tuple[Exact, ...] | None, int | None]:
    """`32,128[,values=B0,B1,...]` or `32,128,head=H` -> (32, 128, the values or None, H or None): the buckets, the
    max distance, one head's b[k] when given, and the head whose bias a values-free one is named for (b_H[k]).

    >>> parse_t5("4,8,values=0,1/2,-1,2")
    (4, 8, (Fraction(0, 1), Fraction(1, 2), Fraction(-1, 1), Fraction(2, 1)), None)
    >>> parse_t5("32,128"), parse_t5("32, 128, head=2")
    ((32, 128, None, None), (32, 128, None, 2))
    """
    if "values=" in text and "head=" in text:
        raise InputError("values= are one head's numbers already; head=H names a bias given without values "
                         "(b_H[k]): give one of them")
    sizes, has_values, values = text.partition("values=")
    sizes, has_head, head_text = sizes.partition("head=")
    parts = [part.strip() for part in sizes.split(",") if part.strip()]
    if len(parts) != 2 or not all(re.fullmatch(r"\d{1,7}", part) for part in parts):
        raise InputError(f"expected NUM_BUCKETS,MAX_DISTANCE like 32,128, got {sizes.strip(', ')!r}")
    num_buckets, max_distance = int(parts[0]), int(parts[1])
    if has_head:
        if not re.fullmatch(r"\s*\d{1,4}\s*,?\s*", head_text):
            raise InputError(f"head=H takes a head's number, like head=2, got {head_text.strip()!r:.40}")
        return num_buckets, max_distance, None, int(head_text.strip(" ,"))
    if not has_values:
        return num_buckets, max_distance, None, None
    bias = tuple(parse_number(part) for part in values.split(","))
    if len(bias) != num_buckets:
        raise InputError(f"{len(bias)} values for {num_buckets} buckets; give one per bucket, b[0] first")
    return num_buckets, max_distance, bias, None


def bias_name(head: int | None) -> str:
    """The name of a values-free T5 bias: `b`, or query head H's `b_H` (per head, as GPT-OSS's sinks `s_1 | s_2`)."""
    return "b" if head is None else f"b_{head}"


def t5_bias(text: str, offset: int, causal: bool) -> Bias:
    """T5's bias b[bucket(j − i)] on a grid whose query i sits at key position i + offset: bidirectional unless the
    mask is `causal` (T5's decoder). Without values the bias is a name per bucket, `b[3]`: the logits are named."""
    num_buckets, max_distance, values, head = parse_t5(text)
    bidirectional = not causal
    check_buckets(num_buckets, max_distance, bidirectional, "")

    def bucket(i: int, j: int) -> int:  # 0-based
        return relative_position_bucket(j - i - offset, bidirectional, num_buckets, max_distance)

    shift = "" if offset == 0 else f"-{offset}" if offset > 0 else f"+{-offset}"
    side = "bidirectional, as T5's encoder" if bidirectional else "one-sided, as T5's decoder (causal mask)"
    words = f"{num_buckets} buckets, max distance {max_distance}, {side}"
    b = bias_name(head)
    if values is None:
        def name(i: int, j: int) -> str:  # 1-based, as sentences write a cell
            return f"+{b}[{bucket(i - 1, j - 1)}]"

        return Bias(f"+{b}[bucket(j-i{shift})]", lambda i, j: Fraction(0), named=name, filled=name, buckets=bucket,
                    bucket_words=f"{words}, bias named per bucket", term=lambda i, j: f"{b}[{bucket(i, j)}]",
                    term_words=f"T5 relative-position buckets ({num_buckets} buckets, max distance {max_distance}), "
                               f"bias named per bucket")
    given = values
    return Bias(f"+b[bucket(j-i{shift})]", lambda i, j: given[bucket(i, j)],
                named=lambda i, j: f"+b[{bucket(i - 1, j - 1)}]", buckets=bucket, bucket_words=words)


def head_bias(bias: BiasSpec, head: int) -> BiasSpec:
    """A figure's bias for query head `head`'s panel: a values-free T5 bias named for that head
    (`t5=32,128` -> `t5=32,128,head=2`, whose b_2[k] are head 2's); every other bias as it is."""
    if isinstance(bias, (list, tuple)):
        return [head_bias(item, head) for item in bias]  # type: ignore[misc]  # each item a bias
    if not isinstance(bias, str):
        return bias
    kind, _, value = bias.partition("=")
    if kind.strip().lower() != "t5" or "values=" in value or "head=" in value:
        return bias
    return f"{bias.rstrip(', ')},head={head}"


def bucket_ranges(bidirectional: bool, num_buckets: int, max_distance: int) -> list[tuple[int, int | None]]:
    """The distances (keys before the query) each bucket of one side holds, exactly: (first, last), last None for
    the bucket every farther distance shares. Each bucket's first distance is found by bisection (the bucket grows
    with the distance), so a config's large sizes cost a few hundred bucket evaluations, not one per distance.

    >>> bucket_ranges(True, 32, 128)[6:]
    [(6, 6), (7, 7), (8, 11), (12, 15), (16, 22), (23, 31), (32, 45), (46, 63), (64, 90), (91, None)]
    """
    check_buckets(num_buckets, max_distance, bidirectional)
    last = (num_buckets // 2 if bidirectional else num_buckets) - 1

    def bucket(n: int) -> int:
        return relative_position_bucket(-n, bidirectional, num_buckets, max_distance)

    def first(k: int) -> int:  # the least distance whose bucket is at least k (k <= last: max_distance's is last)
        low, high = 0, max_distance
        while low < high:
            middle = (low + high) // 2
            low, high = (middle + 1, high) if bucket(middle) < k else (low, middle)
        return low

    starts = [first(k) for k in range(last + 1)]
    held = [n for k, n in enumerate(starts) if bucket(n) == k]  # the buckets some distance falls in (the last does)
    return [(n, after - 1) for n, after in zip(held, held[1:])] + [(held[-1], None)]


def _ranges_text(ranges: list[tuple[int, int | None]]) -> str:
    return ", ".join(f"{a}+" if b is None else str(a) if a == b else f"{a}–{b}" for a, b in ranges)


def config_note(config: dict[str, object], drawn: bool = False) -> str | None:
    """What a T5-style config's relative-position buckets hold, for `attnviz model` (None without them); `drawn`:
    the figure draws the bucket grids (`--buckets`), else the note says how to."""
    num_buckets = config.get("relative_attention_num_buckets")
    max_distance = config.get("relative_attention_max_distance", 128)  # transformers' T5Config default
    if type(num_buckets) is not int or type(max_distance) is not int:
        return None
    try:
        encoder = bucket_ranges(True, num_buckets, max_distance)
        decoder = bucket_ranges(False, num_buckets, max_distance)
    except InputError:
        return None
    return (f"Relative-position bias: {num_buckets} buckets, max distance {max_distance}, one learned number a bucket "
            f"and head, added to each logit. The encoder's buckets are bidirectional; each side's hold the distances "
            f"{_ranges_text(encoder)}. The decoder's are one-sided (keys before the query): {_ranges_text(decoder)}."
            + ("" if drawn else f" attnviz model --buckets draws each cell's bucket (attnviz render --bias "
                                f"t5={num_buckets},{max_distance} names b[k] in the logits)."))
