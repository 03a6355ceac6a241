"""A minimal XML element tree and writer: the one place attnviz escapes markup.

svgwrite built the figures at first: its validator refuses the figures' `role`, `aria-*` and
`data-*` attributes, building and serialising is several times slower even with it off, and it
writes an `xmlns:ev` attribute HTML rejects on inline SVG. docs/project.rst's "Why not svgwrite" gives
the numbers, which `make bench` measures again (benchmarks/svgwrite_check.py). Most elements are
leaves, written at once (`leaf`); groups are written around their written children (`parent`).
"""

from __future__ import annotations

from functools import lru_cache

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import TypeVar

    Child = TypeVar("Child", bound="Element | str")

__all__ = ["Element", "leaf", "parent", "attributes", "escape_text", "escape_attribute"]

_TEXT = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "\r": "&#13;"})
_ATTRIBUTE = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;",
                            "\n": "&#10;", "\r": "&#13;", "\t": "&#9;"})


def escape_text(text: str) -> str:
    """Character data: `<`, `&`, `>` escaped; a carriage return as a reference, so parsers keep it.

    >>> escape_text('a<b & "c"\\r')
    'a&lt;b &amp; "c"&#13;'
    """
    return text.translate(_TEXT)


def escape_attribute(value: str) -> str:
    """A double-quoted attribute value; whitespace that parsers would normalise is escaped.

    >>> escape_attribute('x" onload="y\\n')
    'x&quot; onload=&quot;y&#10;'
    """
    return value.translate(_ATTRIBUTE)


@lru_cache(maxsize=8192)
def _attribute(item: tuple[str, object]) -> str:
    # Most attributes repeat (fills, fonts, sizes, cell widths): written once, then reused.
    name, value = item
    return f' {name}="{escape_attribute(str(value))}"'


def attributes(mapping: Mapping[str, object]) -> str:
    """Attributes as written in a start tag, escaped: ` a="v" b="w"` (a backend writes a role's constant
    attributes once and reuses the text)."""
    return "".join(map(_attribute, mapping.items()))


def leaf(tag: str, attributes: Mapping[str, object], text: str | None = None) -> str:
    """An element without children, written at once: `<tag a="v"/>`, or `<tag a="v">text</tag>`.
    Most of a figure's elements are leaves; writing them here spares an Element object each."""
    written = "".join(map(_attribute, attributes.items()))
    if text is None:
        return f"<{tag}{written}/>"
    return f"<{tag}{written}>{text.translate(_TEXT)}</{tag}>"


def parent(tag: str, attributes: Mapping[str, object], children: Iterable[str]) -> str:
    """An element around children already written (by `leaf` and `parent`): `<tag a="v">...</tag>`."""
    return f"<{tag}{''.join(map(_attribute, attributes.items()))}>{''.join(children)}</{tag}>"


class Element:
    """One element: a tag, attributes in the order given (the dict is the element's), then text
    or children: Elements, or markup already written by `leaf` and `parent`."""

    __slots__ = ("tag", "attributes", "text", "children")

    def __init__(self, tag: str, attributes: dict[str, str] | None = None, text: str | None = None) -> None:
        self.tag = tag
        self.attributes = {} if attributes is None else attributes
        self.text = text
        self.children: list[Element | str] = []

    def add(self, child: Child) -> Child:
        """Append `child` (an Element, or markup already written); returns it."""
        self.children.append(child)
        return child

    def to_string(self) -> str:
        """The element and everything in it, written."""
        parts: list[str] = []
        self._write(parts)
        return "".join(parts)

    def _write(self, parts: list[str]) -> None:
        if self.text is None and not self.children:
            parts.append(leaf(self.tag, self.attributes))
            return
        parts.append(f"<{self.tag}{''.join(map(_attribute, self.attributes.items()))}>")
        if self.text is not None:
            parts.append(escape_text(self.text))
        for child in self.children:
            if isinstance(child, Element):
                child._write(parts)
            else:  # markup already written
                parts.append(child)
        parts.append(f"</{self.tag}>")
