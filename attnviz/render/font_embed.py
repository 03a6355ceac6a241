"""`--embed-font`: the bundled DejaVu faces, subset to the characters a figure draws, inlined as CSS.

Each face becomes an @font-face rule whose source is a data: URL (not an external
reference), under a family name made from the figure's id prefix, so several
figures on one page never swap glyphs. The figure's text then looks the same on
machines without DejaVu. fontTools is imported only here, only when asked.
"""

from __future__ import annotations

import base64
import os
from functools import lru_cache

from ..layout.items import STYLES, Text
from ..layout.metrics import FACES, FONT_DIR, FONT_FAMILIES, face, quiet_fonttools

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from ..layout.items import Layout

__all__ = ["font_css"]

# Name records the subset keeps: names, version, and the copyright and license the fonts'
# license asks every copy to carry (IDs 0, 13, 14).
_NAME_IDS = [0, 1, 2, 3, 4, 5, 6, 13, 14]
_FACE_STYLE = {"sans": ("normal", "normal"), "sans-bold": ("bold", "normal"), "sans-italic": ("normal", "italic"),
               "mono": ("normal", "normal"), "mono-bold": ("bold", "normal")}


def font_css(layout: Layout, id_prefix: str) -> str:
    """@font-face rules for every face the layout's texts use, and rules that put them first in the stack."""
    chars: dict[str, set[str]] = {}
    for item in layout.walk():
        if isinstance(item, Text):
            s = item.style
            chars.setdefault(face(s.family, s.bold, s.italic), set()).update(item.text)
    rules: list[str] = []
    for name in sorted(chars):
        family = name.split("-")[0]
        weight, style = _FACE_STYLE[name]
        data = base64.b64encode(subset_woff(name, "".join(sorted(chars[name])))).decode("ascii")
        rules.append(f'@font-face {{ font-family: "{id_prefix}-{family}"; font-weight: {weight}; '
                     f'font-style: {style}; src: url(data:font/woff;base64,{data}) format("woff") }}')
    for family in sorted({name.split("-")[0] for name in chars}):
        roles = ", ".join(f".attnviz-{role}-text" for role, s in STYLES.items() if s.family == family)
        rules.append(f':where(#{id_prefix}) :is({roles}) {{ font-family: "{id_prefix}-{family}", '
                     f'{FONT_FAMILIES[family]} }}')
    return "".join(rule + "\n" for rule in rules)


@lru_cache(maxsize=64)
def subset_woff(name: str, text: str) -> bytes:
    """The bundled face `name` cut down to the glyphs `text` needs, as WOFF bytes (same input, same bytes)."""
    import io  # only --embed-font needs it: kept off the command's start-up

    quiet_fonttools()
    from fontTools import subset  # type: ignore[import-untyped]  # fontTools ships no type hints
    from fontTools.ttLib import TTFont  # type: ignore[import-untyped]  # (as above)

    options = subset.Options()
    options.flavor = "woff"
    options.name_IDs = _NAME_IDS
    options.hinting = False  # browsers draw these sizes well without it; the subset is half the size
    options.recalc_timestamp = False
    options.drop_tables = [*options.drop_tables, "FFTM"]  # FontForge's timestamps: not needed to draw
    font = TTFont(os.path.join(FONT_DIR, FACES[name]), recalcTimestamp=False)
    subsetter = subset.Subsetter(options)
    subsetter.populate(text=text)
    subsetter.subset(font)
    out = io.BytesIO()
    font.flavor = "woff"
    font.save(out, reorderTables=True)
    return out.getvalue()
