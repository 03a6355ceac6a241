"""Text widths from the bundled DejaVu fonts' advance widths, so layout never depends on installed fonts.

The fonts ship in attnviz/fonts/ (Bitstream Vera license, beside them). Common characters are measured from a generated
table (no font parsing at start-up); any other character is read from the bundled font's own tables with fontTools, on
first use. DejaVu is wider than the usual fallbacks (Arial, Helvetica, Roboto, Menlo), so a box sized for DejaVu also
holds the text when a browser draws it in one of those; `--embed-font` removes the guess altogether.
"""

from __future__ import annotations

import os
from functools import cache, lru_cache

from . import font_widths as _width_table

__all__ = ["quiet_fonttools", "WIDTHS", "text_width", "char_width", "face", "FACES", "FONT_DIR", "FONT_FAMILIES",
           "ASCENT", "DESCENT"]

FONT_DIR = os.path.join(os.path.dirname(os.path.dirname(__file__)), "fonts")  # a str: no pathlib on the command's path
#: The faces the figure uses, by name: family, then weight or style.
FACES = {
    "sans": "DejaVuSans.ttf",
    "sans-bold": "DejaVuSans-Bold.ttf",
    "sans-italic": "DejaVuSans-Oblique.ttf",
    "mono": "DejaVuSansMono.ttf",
    "mono-bold": "DejaVuSansMono-Bold.ttf",
}
#: The font stacks the SVG declares. DejaVu comes first: its metrics are the ones we measure.
FONT_FAMILIES = {
    "sans": "'DejaVu Sans', Verdana, 'Segoe UI', Roboto, Arial, sans-serif",
    "mono": "'DejaVu Sans Mono', Menlo, Consolas, 'Liberation Mono', monospace",
}
ASCENT, DESCENT = 0.93, 0.24  # in em: DejaVu's hhea ascent and descent (0.928, 0.236), rounded up
#: {face: {character: advance in em}} for the common characters, from the generated table.
WIDTHS = _width_table.WIDTHS  # generated at build time (tools/make_font_widths.py), not at import
# A character no bundled face has is drawn from whatever font the viewer's system falls back
# to (CJK, emoji); those are about 1 em wide, emoji up to 1.25 em. Guess wide, never narrow.
_UNKNOWN = 1.25


def face(family: str, bold: bool = False, italic: bool = False) -> str:
    """The bundled face that draws text of this family and style (mono has no italic in use)."""
    if family == "mono":
        return "mono-bold" if bold else "mono"
    return "sans-bold" if bold else ("sans-italic" if italic else "sans")


@lru_cache(maxsize=4096)
def text_width(text: str, size: float, family: str = "sans", bold: bool = False, italic: bool = False) -> float:
    """Advance width of `text` in user units at font size `size`."""
    name = face(family, bold, italic)
    table = WIDTHS[name]
    try:
        return size * sum(map(table.__getitem__, text))  # the common case, at C speed
    except KeyError:
        return size * sum(table[ch] if ch in table else char_width(ch, name) for ch in text)


@cache
def char_width(ch: str, name: str) -> float:
    """Advance width of one character in em, from the bundled face (or the face a browser falls back to)."""
    if ch in "\t\n\r":  # the SVG backend keeps such text with xml:space="preserve", which draws each as a space
        ch = " "
    for candidate in (name, "sans") if name != "sans" else (name,):
        width = _font_widths(candidate).get(ord(ch))
        if width is not None:
            return width
    if ch in "\u2066\u2067\u2068\u2069":  # bidi isolates (labels.isolate): invisible, no advance
        return 0.0
    return _UNKNOWN


def quiet_fonttools() -> None:
    """Keep fontTools' INFO messages (a subset logs hundreds of lines) out of the user's logging: its logger
    passes on warnings and errors only, unless the user has set its level."""
    import logging  # start-up: only a rare character or --embed-font loads fontTools

    logger = logging.getLogger("fontTools")
    if logger.level == logging.NOTSET:
        logger.setLevel(logging.WARNING)


@cache
def _font_widths(name: str) -> dict[int, float]:
    """{codepoint: advance in em} for every character the bundled face maps (fontTools, loaded lazily)."""
    quiet_fonttools()
    from fontTools.ttLib import TTFont  # type: ignore[import-untyped]  # fontTools ships no type hints

    font = TTFont(os.path.join(FONT_DIR, FACES[name]), lazy=True)
    cmap, hmtx, upem = font.getBestCmap(), font["hmtx"], font["head"].unitsPerEm
    widths: dict[int, float] = {code: hmtx[glyph][0] / upem for code, glyph in cmap.items()}
    return widths
