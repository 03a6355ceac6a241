"""`attnviz slides`: a deck (`deck.Deck`) written as Beamer, TikZ, reveal.js, PowerPoint, a multi-page
PDF or an animated SVG. Every format paints the deck's layouts, all at the deck's one frame size,
with a backend: TikZ (`backends.tikz`), python-pptx shapes (`backends.powerpoint`) or SVG.
"""

from __future__ import annotations

import datetime
import importlib
import io
import os
from pathlib import PurePath

from ...io.atomic import folder_lock, write_tree_atomic
from ...layout.items import Group, Text
from ...numbers.exact import InputError
from ...render.svg import fmt, render_svg
from ...render.xml import escape_text
from ...words.budget import check_deck, check_shapes, drawable_chars

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable
    from os import PathLike
    from pathlib import Path
    from types import ModuleType

    from pptx.slide import Slide
    from pptx.shapes.autoshape import Shape
    from pptx.util import Length

    from collections.abc import Iterable

    from ...layout.items import Item
    from .model import Deck

    #: What a format writes: {path: text or bytes}.
    Files = dict[str | PathLike[str], str | bytes]

__all__ = ["FORMATS", "BINARY_FORMATS", "DECK_MARKER", "DEFAULT_PATHS", "choose_format", "deck_files", "write_deck",
           "pptx_bytes", "pdf_bytes", "animated_svg", "STEP_SECONDS", "drawn_shapes"]

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
SLIDE_W, SLIDE_H = 12192000, 6858000  # a 16:9 PowerPoint slide (13.333 x 7.5 inches) in EMU


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


def _step_svgs(deck: Deck) -> list[str]:
    """Each slide's figure as SVG, drawn at the deck's frame size."""
    return [render_svg(layout, slide.figure.id_prefix, theme=slide.figure.theme,
                       description=slide.figure.description())
            for slide, layout in zip(deck.slides, deck.layouts())]


def pdf_bytes(deck: Deck) -> bytes:
    """One PDF, a page per slide, 13.333 × 7.5 in (`pdf.pdf_deck`)."""
    from .pdf import pdf_deck  # each format's writer loads only when chosen: start-up stays small

    return pdf_deck(deck)


def animated_svg(deck: Deck) -> str:
    """One SVG that shows the steps in turn with a CSS animation (no SMIL, no script); a viewer who
    asks for reduced motion sees the last step, still. Each step is its figure's own SVG, nested."""
    layouts, svgs = deck.layouts(), _step_svgs(deck)
    n = len(svgs)
    width, height = fmt(layouts[0].width), fmt(layouts[0].height)
    seconds = deck.step_seconds  # --step-seconds (default STEP_SECONDS)
    cycle = fmt(n * seconds)
    # %-formatting: CSS is all braces, which f-strings would double
    css = [".attnviz-step { visibility: hidden; animation: attnviz-steps %ss step-end infinite }" % cycle,  # noqa: UP031
           "@keyframes attnviz-steps { 0%% { visibility: visible } %s%% { visibility: hidden } }" % fmt(100 / n)]  # noqa: UP031
    css += [f".attnviz-step-{k} {{ animation-delay: {fmt((k - 1) * seconds)}s }}" for k in range(2, n + 1)]
    css.append("@media (prefers-reduced-motion: reduce) { .attnviz-step { animation: none } "
               f".attnviz-step-{n} {{ visibility: visible }} }}")
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" class="attnviz-deck" role="img" '
             f'aria-labelledby="attnviz-deck-title" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}">',
             f'<title id="attnviz-deck-title">{escape_text(deck.title)}: {n} step{"s" * (n != 1)}</title>',
             "<style>\n" + "\n".join(css) + "\n</style>"]
    for k, svg in enumerate(svgs, 1):
        parts.append(f'<g class="attnviz-step attnviz-step-{k}">{svg}</g>')
    return "\n".join(parts) + "\n</svg>\n"


def pptx_bytes(deck: Deck) -> bytes:
    """A 16:9 PowerPoint deck: a title slide, then a slide per step with the figure as native shapes,
    the step's heading and sentences beside it, and the sentences in the speaker notes."""
    _need("pptx", "PowerPoint decks", "python-pptx")
    layouts = deck.layouts()
    # each slide: its figure's shapes, the background, the heading and the sentences; the title slide's two
    check_shapes(sum(drawn_shapes(layout.items) + 3 for layout in layouts) + 2)  # before python-pptx adds any
    # python-pptx is an optional dependency (attnviz[slides]): it and its painter load only for a PowerPoint deck
    from pptx import Presentation
    from pptx.util import Emu, Pt

    from ...render.pptx import paint

    presentation = Presentation()
    presentation.slide_width, presentation.slide_height = Emu(SLIDE_W), Emu(SLIDE_H)
    blank = presentation.slide_layouts[6]
    margin = 365760  # 0.4 inch
    title_slide = presentation.slides.add_slide(blank)
    _text_box(title_slide, margin, SLIDE_H // 3, SLIDE_W - 2 * margin, 914400, deck.title, Pt(40), bold=True,
              wrap=True)
    _text_box(title_slide, margin, SLIDE_H // 3 + 1005840, SLIDE_W - 2 * margin, 731520, deck.heading, Pt(24),
              wrap=True)
    frame_w, frame_h = layouts[0].width, layouts[0].height
    top = margin + 640080  # under the heading
    figure_w, figure_h = SLIDE_W * 0.56 - margin, SLIDE_H - top - margin
    scale = min(figure_w / frame_w, figure_h / frame_h)  # EMU per layout unit
    text_left = round(margin + frame_w * scale + margin)
    for slide, layout in zip(deck.slides, layouts):
        page = presentation.slides.add_slide(blank)
        _text_box(page, margin, margin // 2, SLIDE_W - 2 * margin, 594360, slide.heading, Pt(28), bold=True,
                  wrap=True)
        paint(page, layout, slide.figure.theme, margin, top, scale)
        _text_box(page, text_left, top, SLIDE_W - text_left - margin, SLIDE_H - top - margin,
                  "\n".join(slide.paragraphs), Pt(18), wrap=True)
        page.notes_slide.notes_text_frame.text = "\n".join(slide.paragraphs)
    properties = presentation.core_properties  # fixed, so the same deck gives the same bytes
    properties.title, properties.author, properties.last_modified_by = deck.title, "attnviz", "attnviz"
    properties.created = properties.modified = datetime.datetime(2000, 1, 1)
    properties.revision = 1
    out = io.BytesIO()
    presentation.save(out)
    return _stable_zip(out.getvalue())


def drawn_shapes(items: Iterable[Item]) -> int:
    """The shapes a painter draws for `items`: one a rectangle or mark, one a text's non-blank line
    (`render.pptx` draws each line as a text box); a group is only its children."""
    count = 0
    for item in items:
        if isinstance(item, Group):
            count += drawn_shapes(item.children)
        elif isinstance(item, Text):
            count += sum(1 for line in item.lines if line.strip())
        else:
            count += 1
    return count


def _text_box(slide: Slide, left: int, top: int, width: int, height: int, text: str, size: Length,
              bold: bool = False, wrap: bool = False) -> Shape:
    # python-pptx is an optional dependency (attnviz[slides]): loaded only for a PowerPoint deck
    from pptx.dml.color import RGBColor
    from pptx.enum.text import PP_ALIGN
    from pptx.util import Emu

    box = slide.shapes.add_textbox(Emu(left), Emu(top), Emu(width), Emu(height))  # lengths in EMU
    frame = box.text_frame
    frame.word_wrap = wrap
    for n, line in enumerate(text.split("\n")):
        paragraph = frame.paragraphs[0] if n == 0 else frame.add_paragraph()
        paragraph.alignment = PP_ALIGN.LEFT
        run = paragraph.add_run()
        run.text = line
        run.font.size, run.font.bold, run.font.name = size, bold, "DejaVu Sans"
        run.font.color.rgb = RGBColor(0x11, 0x18, 0x27)  # type: ignore[no-untyped-call]  # python-pptx: untyped
        if n:
            paragraph.space_before = size // 2
    return box


def _stable_zip(data: bytes) -> bytes:
    """The zip with every entry dated 1980-01-01, so the same deck gives the same bytes."""
    import zipfile  # only a PowerPoint deck is a zip: the other formats never load it

    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            target.writestr(zipfile.ZipInfo(info.filename, date_time=(1980, 1, 1, 0, 0, 0)), source.read(info),
                            compress_type=zipfile.ZIP_DEFLATED)
    return out.getvalue()


def _need(module: str, what: str, package: str | None = None) -> ModuleType:
    try:
        return importlib.import_module(module)
    except ImportError:
        raise InputError(f"{what} need {package or module}: pip install 'attnviz[slides]'", "-f") from None
