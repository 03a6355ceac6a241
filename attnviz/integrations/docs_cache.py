"""The docs plugins' figure cache: a figure that has not changed is read back, not drawn again.

Docs are rebuilt on every save, and a changed page (or `sphinx-build -E`) reads every figure
on it again. A figure is a function of its settings, its id prefix and attnviz itself, so its
SVG is kept under a hash of exactly those: attnviz's version and the code of the installed
package (an edited checkout draws anew). One JSON file per figure, written atomically, so
parallel builds may write the same one at once. Entries no figure asks for are never read
again; deleting the folder is always safe.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from functools import cache

from .. import __version__
from .settings import default_alt, make_figure

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Mapping

    from .settings import Setting

__all__ = ["Drawn", "FigureCache", "code_digest"]


class Drawn:
    """A figure as a document uses it: its SVG, its id prefix, and the alt text it gives by default."""

    __slots__ = ("svg", "prefix", "alt")

    def __init__(self, svg: str, prefix: str, alt: str) -> None:
        self.svg, self.prefix, self.alt = svg, prefix, alt


class FigureCache:
    """Figures by their settings, in `folder` (None: every figure is drawn, nothing kept)."""

    def __init__(self, folder: str | None) -> None:
        self.folder = folder
        self.drawn = self.reused = 0  # figures drawn, and read back, by this object
        self.seconds = 0.0  # the time both took

    def figure(self, settings: Mapping[str, Setting], *, id_prefix: str,
               line: int | None = None) -> tuple[Drawn, bool]:
        """(Drawn, True if it came from the cache): the figure `embed.make_figure` draws for the settings
        (`embed.Setting`s by key), read back when the same figure was drawn before. Errors are its errors."""
        start = time.perf_counter()
        try:
            path = self.folder and os.path.join(self.folder, f"{figure_key(settings, id_prefix)}.json")
            found = _read(path) if path else None
            if found:
                self.reused += 1
                return found, True
            figure = make_figure(settings, id_prefix=id_prefix, line=line)
            drawn = Drawn(figure.svg(), figure.id_prefix, default_alt(figure))
            if path:
                _write(path, drawn)
            self.drawn += 1
            return drawn, False
        finally:
            self.seconds += time.perf_counter() - start

    def summary(self) -> str:
        """One line for the build log: figures drawn and reused, and the time spent drawing."""
        return (f"attnviz: {self.drawn} figures drawn, {self.reused} read from the cache "
                f"({self.seconds:.2f} s in attnviz)")


def figure_key(settings: Mapping[str, Setting], id_prefix: str) -> str:
    """The hash of everything a figure's SVG depends on."""
    values = sorted((key, setting.value) for key, setting in settings.items())
    text = repr((values, id_prefix, __version__, code_digest()))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@cache
def code_digest() -> str:
    """A hash of attnviz's own code and fonts, so a changed checkout never reads an old figure."""
    package = os.path.dirname(os.path.abspath(__file__))
    digest = hashlib.sha256()
    for folder, subfolders, files in sorted(os.walk(package)):
        subfolders[:] = sorted(name for name in subfolders if name != "__pycache__")
        for name in sorted(files):
            path = os.path.join(folder, name)
            digest.update(os.path.relpath(path, package).encode("utf-8") + b"\0")
            if name.endswith(".py"):
                with open(path, "rb") as source:
                    digest.update(source.read())
            else:  # fonts, data: their size stands for them (they change only with a release)
                digest.update(str(os.path.getsize(path)).encode("ascii"))
    return digest.hexdigest()


def _read(path: str) -> Drawn | None:
    try:
        with open(path, encoding="utf-8") as stored:
            entry = json.load(stored)
        return Drawn(entry["svg"], entry["prefix"], entry["alt"])
    except (OSError, ValueError, KeyError, TypeError):  # missing, or not ours: draw it again
        return None


def _write(path: str, drawn: Drawn) -> None:
    from ..io.atomic import write_files  # start-up: only a cache that writes needs it

    try:
        write_files({path: json.dumps({"svg": drawn.svg, "prefix": drawn.prefix, "alt": drawn.alt})})
    except OSError:
        return  # a read-only tree still builds; the figure is drawn again next time
