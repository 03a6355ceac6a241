"""`attnviz slides`: a deck (`deck.Deck`) written as Beamer, TikZ, reveal.js, PowerPoint, a multi-page
PDF or an animated SVG. Every format paints the deck's layouts, all at the deck's one frame size,
with a backend: TikZ (`backends.tikz`), python-pptx shapes (`backends.powerpoint`) or SVG.
"""

from __future__ import annotations

import importlib
import os
from pathlib import PurePath

from ...io.atomic import folder_lock, write_tree_atomic
from ...numbers.exact import InputError
from ...words.budget import check_deck, drawable_chars

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable
    from os import PathLike
    from pathlib import Path
    from types import ModuleType

    from .model import Deck

    #: What a format writes: {path: text or bytes}.
    Files = dict[str | PathLike[str], str | bytes]

__all__ = ["FORMATS", "BINARY_FORMATS", "DECK_MARKER", "DEFAULT_PATHS", "choose_format", "deck_files", "write_deck",
           "pptx_bytes", "pdf_bytes", "animated_svg", "STEP_SECONDS"]

#: The formats a deck can be written in (`attnviz slides -f`).
FORMATS = ("beamer", "tikz", "revealjs", "pptx", "pdf", "svg-animated")
#: The formats whose file is bytes, not text: written to standard output only when it is not a terminal.
BINARY_FORMATS = ("pptx", "pdf")
#: The file that marks a folder as a reveal.js deck of attnviz's, which a later deck may replace.
DECK_MARKER = ".attnviz-deck"
DEFAULT_FORMAT = "pdf"
#: Where each format is written when no path is given.
DEFAULT_PATHS = {"beamer": "out/slides.tex", "tikz": "out/slides-tikz.tex", "revealjs": "out/slides",
                 "pptx": "out/slides.pptx", "pdf": "out/slides.pdf", "svg-animated": "out/slides.svg"}
_BY_EXTENSION = {"tex": "beamer", "pptx": "pptx", "pdf": "pdf", "svg": "svg-animated"}
_EXTENSIONS = {"beamer": "tex", "tikz": "tex", "pptx": "pptx", "pdf": "pdf", "svg-animated": "svg"}
STEP_SECONDS = 3  # how long an animated SVG shows each step, unless the deck says (Deck.step_seconds)


def choose_format(format: str | None, path: str | None) -> tuple[str, str]:
    """(format, path): `format` if given, else the one the path's extension names (.tex is Beamer), else PDF;
    the default path for the format when `path` is None. `-` (standard output) takes any format but reveal.js."""
    one_file = path == "-" or PurePath(str(path)).suffix.lower() in (".html", ".htm")
    if format == "revealjs" and path is not None and one_file:
        raise InputError("a reveal.js deck is a folder (index.html and reveal.js/), not one file; give a folder, "
                         "e.g. -o talk", f"-o {path}")
    suffix = PurePath(str(path)).suffix[1:].lower() if path else ""
    if format is None:
        if path is None:
            return DEFAULT_FORMAT, DEFAULT_PATHS[DEFAULT_FORMAT]
        if suffix not in _BY_EXTENSION:
            raise InputError(f"choose the deck's format with -f {'|'.join(FORMATS)} (a reveal.js deck is a "
                             f"folder; .tex is Beamer unless -f tikz)", f"-o {path}")
        return _BY_EXTENSION[suffix], path
    if path is None:
        return format, DEFAULT_PATHS[format]
    expected = _EXTENSIONS.get(format)
    if (expected and suffix and suffix != expected) or (format == "revealjs" and suffix in _BY_EXTENSION):
        where = "a folder" if format == "revealjs" else f"a .{expected} file"
        raise InputError(f"-f {format} writes {where}, not {path!r}", "-o")
    return format, path


def deck_files(deck: Deck, format: str, path: str) -> Files:
    """Every file of the deck in `format` at `path`: {path: text or bytes}."""
    check_deck([drawable_chars(slide.figure) for slide in deck.slides])  # from the words: before any layout
    if format == "revealjs":
        from .revealjs import revealjs_files  # each format's writer loads only when chosen: start-up stays small

        files = revealjs_files(deck, path)
        files[os.path.join(path, DECK_MARKER)] = "A reveal.js deck written by attnviz slides.\n"
        return files
    if format == "tikz" and (path.endswith("/") or os.path.isdir(path)):
        from .beamer import tikz_files  # as below: loaded only for LaTeX

        tikz: Files = {}
        tikz.update(tikz_files(deck, path.rstrip("/") or "/"))
        return tikz
    if format in ("beamer", "tikz"):
        from .beamer import beamer_document, tikz_document  # as above: loaded only for LaTeX

        return {path: (beamer_document if format == "beamer" else tikz_document)(deck)}
    writers: dict[str, Callable[[Deck], str | bytes]] = {"pptx": pptx_bytes, "pdf": pdf_bytes,
                                                          "svg-animated": animated_svg}
    return {path: writers[format](deck)}


def write_deck(deck: Deck, format: str, path: str) -> list[Path]:
    """Write the deck, all files or none (atomically); returns the paths written. Two writers of one reveal.js
    folder take turns (`output.folder_lock`), as pages do."""
    files = deck_files(deck, format, path)  # drawn before the folder is locked: the lock is short
    written: list[Path]
    if format != "revealjs":
        written = write_tree_atomic(files)
        return written
    with folder_lock(path):
        _check_deck_folder(path)
        written = write_tree_atomic(files)
    return written


def _check_deck_folder(path: str) -> None:
    """Refuse a folder with files of its own: only an empty folder or an earlier deck (its marker file, or
    a deck from before the marker: index.html and reveal.js/ alone) is written into, so no page is lost."""
    from .revealjs import VENDORED  # loaded with the deck's files already; named here only

    entries = set(os.listdir(path))
    if not entries or DECK_MARKER in entries:
        return
    vendored = os.path.join(path, "reveal.js")
    if entries == {"index.html", "reveal.js"} and os.path.isdir(vendored) and set(os.listdir(vendored)) <= {*VENDORED}:
        return
    raise InputError("the folder has files that are not an attnviz deck (a deck writes index.html there); "
                     "give a new or empty folder", f"-o {os.fspath(path)}")


def pdf_bytes(deck: Deck) -> bytes:
    """One PDF, a page per slide, 13.333 × 7.5 in (`pdf.pdf_deck`)."""
    from .pdf import pdf_deck  # each format's writer loads only when chosen: start-up stays small

    return pdf_deck(deck)


def animated_svg(deck: Deck) -> str:
    """One SVG that shows the steps in turn with a CSS animation (`animated.animated_svg`)."""
    from .animated import animated_svg as animated  # loaded only for this format

    return animated(deck)


def pptx_bytes(deck: Deck) -> bytes:
    """A PowerPoint deck (`powerpoint.pptx_bytes`): a titled slide per step with the figure as one group of
    native shapes in the theme's colours, the step's sentences and formula, and notes."""
    _need("pptx", "PowerPoint decks", "python-pptx")
    from .powerpoint import pptx_bytes as powerpoint_deck  # python-pptx and its painter load only for PowerPoint

    return powerpoint_deck(deck)


def _need(module: str, what: str, package: str | None = None) -> ModuleType:
    try:
        return importlib.import_module(module)
    except ImportError:
        raise InputError(f"{what} need {package or module}: pip install 'attnviz[slides]'", "-f") from None
