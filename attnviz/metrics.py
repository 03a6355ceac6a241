"""Text widths from the DejaVu fonts' advance widths, so layout never depends on installed fonts.

DejaVu is wider than the usual fallbacks (Arial, Helvetica, Roboto, Menlo), so a
box sized for DejaVu also holds the text when a browser draws it in one of those.
"""

from functools import lru_cache

from ._font_widths import MONO, SANS, SANS_BOLD

__all__ = ["text_width", "FONT_FAMILIES"]

#: The font stacks the SVG declares. DejaVu comes first: its metrics are the ones we measure.
FONT_FAMILIES = {
    "sans": "'DejaVu Sans', Verdana, 'Segoe UI', Roboto, Arial, sans-serif",
    "mono": "'DejaVu Sans Mono', Menlo, Consolas, 'Liberation Mono', monospace",
}
_TABLES = {("sans", False): SANS, ("sans", True): SANS_BOLD, ("mono", False): MONO, ("mono", True): MONO}
_UNKNOWN = 1.0  # em; wide glyphs (CJK, emoji) are about this wide


@lru_cache(maxsize=4096)
def text_width(text, size, family="sans", bold=False):
    """Advance width of `text` in user units at font size `size`."""
    table = _TABLES[family, bold]
    return size * sum(table.get(ch, _UNKNOWN) for ch in text)
