"""A figure's id: a stable digest of what it shows, so the same figure has the same ids everywhere.

The digest is BLAKE2b over a canonical text of the figure's words and options: every field of every record by name,
numbers exactly (`p/q`), text as JSON strings. Nothing depends on `repr`, on the Python version's hash seed, or on the
order a dict was built in, and every field counts (a record's `repr` leaves some out).
"""

from __future__ import annotations

from fractions import Fraction

try:  # hashlib's own BLAKE2, without the OpenSSL bindings `import hashlib` loads (a fifth of start-up)
    from _blake2 import blake2b
except ImportError:  # another Python than CPython
    from hashlib import blake2b

from ..numbers.surds import Surd

__all__ = ["content_id", "canonical"]


def content_id(*parts: object) -> str:
    """`attnviz-` and 8 hex digits of the parts' digest: safe in ids, url(#...) and CSS selectors.

    >>> content_id("seed", (1, 2)) == content_id("seed", (1, 2)) != content_id("seed", (2, 1))
    True
    """
    digest = blake2b(canonical(parts).encode("utf-8"), digest_size=4).hexdigest()
    return f"attnviz-{digest}"


def canonical(value: object) -> str:
    """`value` as text that only equal values share.

    >>> canonical((1, Fraction(1, 2), "a,b", None, True))
    '[1,1/2,"a,b",null,true]'
    """
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, (int, Fraction)):
        return str(value)
    if isinstance(value, str):
        return _quoted(value)
    if isinstance(value, Surd):
        return f"surd({value.a},{value.b},{value.r})"
    if isinstance(value, (tuple, list)):
        return "[" + ",".join(map(canonical, value)) + "]"
    if isinstance(value, (frozenset, set)):
        return "{" + ",".join(sorted(map(canonical, value))) + "}"
    if isinstance(value, dict):
        return "{" + ",".join(f"{canonical(k)}:{canonical(v)}" for k, v in sorted(value.items())) + "}"
    # a record (attnviz.records) or a dataclass: every field, by name, in declaration order
    names = [f.name for f in getattr(value, "__record_fields__", ())]
    names = names or list(getattr(value, "__dataclass_fields__", ()))
    # a field added after figures were drawn counts once it is set, so those figures keep their ids
    later = getattr(value, "ID_WHEN_SET", ())
    names = [name for name in names if name not in later or getattr(value, name) is not None]
    if names:
        written = ",".join(f"{name}={canonical(getattr(value, name))}" for name in names)
        return f"{type(value).__name__}({written})"
    raise TypeError(f"no canonical text for {type(value).__name__}")


def _quoted(text: str) -> str:
    """A JSON string, without importing json: backslash, quote and control characters escaped."""
    escaped = ("\\" + ch if ch in '"\\' else f"\\u{ord(ch):04x}" if ch < " " else ch for ch in text)
    return '"' + "".join(escaped) + '"'
