"""A figure's output formats, one table (as graphviz's FORMATS, matplotlib's register_backend): name, extension,
MIME type, the extra that provides it and its writer, named and imported only when a file is written (the
CLI's --help reads the table and imports nothing); each writer checks its budget before the SVG is painted.
The CLI, `Figure.save`, pages and the Sphinx image path read it: a new format is one entry plus its writer.
"""

from __future__ import annotations

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from typing import Literal

    from .raster import Picture

    FormatName = Literal["svg", "png", "pdf"]  # `Figure.save`'s: the table's names (tests/test_formats.py)

__all__ = ["Format", "FORMATS", "either", "provided_by"]


class Format:
    """One output format; `write(picture, scale, dpi, width)` gives its file's text or bytes."""

    __slots__ = ("name", "extension", "mime", "extra", "writer")

    def __init__(self, name: str, mime: str, extra: str | None, writer: str) -> None:
        self.name, self.extension, self.mime, self.extra, self.writer = name, name, mime, extra, writer

    def write(self, picture: Picture, scale: float | None = None, dpi: float | None = None,
              width: int | None = None) -> str | bytes:
        from importlib import import_module  # loaded with Python already; the writer's module only now

        module, _, function = self.writer.rpartition(".")
        data: str | bytes = getattr(import_module(module), function)(picture, scale, dpi, width)
        return data


#: Every format a figure is written in, by name; the first is the default.
FORMATS = {format.name: format for format in (
    Format("svg", "image/svg+xml", None, "attnviz.render.raster.write_svg"),
    Format("png", "image/png", "png", "attnviz.render.raster.write_png"),
    Format("pdf", "application/pdf", "png", "attnviz.render.raster.write_pdf"))}


def either(words: list[str], last: str = "or") -> str:
    """`words` as a list in prose.

    >>> either([name.upper() for name in FORMATS]), either([".png", ".pdf"], "and")
    ('SVG, PNG or PDF', '.png and .pdf')
    """
    return f"{', '.join(words[:-1])} {last} {words[-1]}" if len(words) > 1 else "".join(words)


def provided_by(extra: str) -> str:
    """The formats `extra` provides: "PNG and PDF" for the png extra."""
    return either([name.upper() for name, entry in FORMATS.items() if entry.extra == extra], "and")
