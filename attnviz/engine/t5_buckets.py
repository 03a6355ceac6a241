"""T5's relative-position buckets (`--bias t5=NUM_BUCKETS,MAX_DISTANCE,values=...`): the bias added to a logit is
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

from ..numbers.exact import InputError, parse_number
from .attention import Bias

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from ..typing import Exact

__all__ = ["MAX_BUCKETS", "relative_position_bucket", "check_buckets", "t5_bias", "parse_t5", "bucket_ranges",
           "config_note"]

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
    k = 0  # the largest k with k <= log(n/exact)/log(max_distance/exact)·wide: (n/exact)^wide >= (D/exact)^k
    while k < wide and n ** wide * exact ** (k + 1) >= max_distance ** (k + 1) * exact ** wide:
        k += 1
    return bucket + min(exact + k, num_buckets - 1)


def parse_t5(text: str) -> tuple[int, int, tuple[Exact, ...]]:
    """`32,128,values=B0,B1,...` -> (32, 128, (B0, B1, ...)): the buckets, the max distance and one head's b[k].

    >>> parse_t5("4,8,values=0,1/2,-1,2")
    (4, 8, (Fraction(0, 1), Fraction(1, 2), Fraction(-1, 1), Fraction(2, 1)))
    """
    sizes, has_values, values = text.partition("values=")
    parts = [part.strip() for part in sizes.split(",") if part.strip()]
    if len(parts) != 2 or not all(re.fullmatch(r"\d{1,7}", part) for part in parts):
        raise InputError(f"expected NUM_BUCKETS,MAX_DISTANCE like 32,128, got {sizes.strip(', ')!r}")
    num_buckets, max_distance = int(parts[0]), int(parts[1])
    if not has_values:
        raise InputError(f"T5's bias is b[bucket], one learned number a bucket and head: give this head's "
                         f"{num_buckets} values, values=B0,...,B{num_buckets - 1} (a T5 layer's "
                         "relative_attention_bias.weight[:, h], as exact decimals)")
    bias = tuple(parse_number(part) for part in values.split(","))
    if len(bias) != num_buckets:
        raise InputError(f"{len(bias)} values for {num_buckets} buckets; give one per bucket, b[0] first")
    return num_buckets, max_distance, bias


def t5_bias(text: str, offset: int, causal: bool) -> Bias:
    """T5's bias b[bucket(j − i)] on a grid whose query i sits at key position i + offset: bidirectional unless the
    mask is `causal` (T5's decoder)."""
    num_buckets, max_distance, values = parse_t5(text)
    bidirectional = not causal
    check_buckets(num_buckets, max_distance, bidirectional, "")

    def bucket(i: int, j: int) -> int:  # 0-based
        return relative_position_bucket(j - i - offset, bidirectional, num_buckets, max_distance)

    shift = "" if offset == 0 else f"-{offset}" if offset > 0 else f"+{-offset}"
    side = "bidirectional, as T5's encoder" if bidirectional else "one-sided, as T5's decoder (causal mask)"
    return Bias(f"+b[bucket(j-i{shift})]", lambda i, j: values[bucket(i, j)],
                named=lambda i, j: f"+b[{bucket(i - 1, j - 1)}]", buckets=bucket,
                bucket_words=f"{num_buckets} buckets, max distance {max_distance}, {side}")


def bucket_ranges(bidirectional: bool, num_buckets: int, max_distance: int) -> list[tuple[int, int | None]]:
    """The distances (keys before the query) each bucket of one side holds, exactly: (first, last), last None for
    the bucket every farther distance shares.

    >>> bucket_ranges(True, 32, 128)[6:]
    [(6, 6), (7, 7), (8, 11), (12, 15), (16, 22), (23, 31), (32, 45), (46, 63), (64, 90), (91, None)]
    """
    check_buckets(num_buckets, max_distance, bidirectional)
    ranges: list[tuple[int, int | None]] = []
    n, last = 0, (num_buckets // 2 if bidirectional else num_buckets) - 1
    while True:
        bucket = relative_position_bucket(-n, bidirectional, num_buckets, max_distance)
        if bucket == last:
            ranges.append((n, None))
            return ranges
        if ranges and relative_position_bucket(-ranges[-1][0], bidirectional, num_buckets, max_distance) == bucket:
            ranges[-1] = (ranges[-1][0], n)
        else:
            ranges.append((n, n))
        n += 1


def _ranges_text(ranges: list[tuple[int, int | None]]) -> str:
    return ", ".join(f"{a}+" if b is None else str(a) if a == b else f"{a}–{b}" for a, b in ranges)


def config_note(config: dict[str, object]) -> str | None:
    """What a T5-style config's relative-position buckets hold, for `attnviz model` (None without them)."""
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
            f"{_ranges_text(encoder)}. The decoder's are one-sided (keys before the query): {_ranges_text(decoder)}. "
            f"attnviz render --bias t5={num_buckets},{max_distance},values=... draws each cell's bucket.")
