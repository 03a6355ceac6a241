"""Themes: which colour paints each role, and the scoped style sheet that exposes them as CSS custom properties.

Colours are written twice on purpose. Presentation attributes carry the chosen
theme's colours, so a figure looks right where style sheets are blocked (a strict
CSP) or unsupported (CairoSVG), and its text nodes are only its words. The page
that inlines figures links `host_stylesheet()` (the Sphinx and MkDocs plugins do), which layers
`var(--attnviz-NAME, <theme colour>)` on top, so a docs site can restyle any figure
by setting the custom properties. An `auto` figure carries its own scoped <style>
(the dark colours under `prefers-color-scheme: dark`). The rules sit inside
`@supports` (renderers without custom properties skip them whole) and `:where()`
(zero specificity, so a site's own rules still win).

Layout never sees a colour: it names roles, this module paints them.
"""

from __future__ import annotations

from ..numbers.exact import InputError
from ..records import dataclass

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["THEMES", "THEME_NAMES", "Theme", "COLOUR_NAMES", "TEXT_COLOUR", "SHAPE_PAINT", "get_theme",
           "stylesheet", "host_stylesheet", "surface_colours", "contrast_ratio", "luminance"]

#: The colour a text of each layout role is drawn in (a key of the theme's colours).
TEXT_COLOUR = {
    "title": "text",
    "panel-title": "text",
    "subtitle": "text-muted",
    "badge": "badge-text",
    "note": "text-muted",
    "vectors": "text",
    "caption": "text",
    "header": "text-muted",
    "score": "text",
    "score-computed": "computed-text",
    "masked": "masked-text",
    "softmax-heading": "text",
    "softmax-scores": "text",
    "softmax-weights": "text",
    "footer": "text-muted",
    "outputs-heading": "text",
    "output": "text",
    "axis-title": "text",
    "tick": "text-muted",
    "legend": "text",
    "elision": "text-muted",
    "state": "text",
    "side-heading": "text",
    "slot": "text",
    "slot-note": "text",
    "head": "text",
}

#: How each shape role is painted: fill and stroke colour keys (None: not painted that way).
#: "hatch" is the masked cells' stripe pattern (masked-fill with masked-hatch stripes).
SHAPE_PAINT: dict[str, tuple[str | None, str | None]] = {
    "background": ("background", None),
    "badge": ("badge-fill", "badge-stroke"),
    "cell-score": ("cell-fill", "cell-stroke"),
    "cell-masked": ("hatch", "masked-stroke"),
    "cell-computed": ("computed-fill", "computed-stroke"),
    "cell-computed-outline": (None, "computed-stroke"),  # on a masked cell: its hatching shows through
    "softmax-band": ("band-fill", None),
    "softmax-bar": ("computed-stroke", None),
    "rule": ("rule", None),
    "fraction-bar": ("text", None),  # a stacked fraction's bar, in the text's colour (layout.fractions)
    "computed-mark": ("computed-stroke", None),
    "cell-pending": ("pending-fill", "pending-stroke"),  # a walkthrough's cell not computed yet
    "softmax-pending": ("pending-fill", "pending-stroke"),
    "output-band": ("band-fill", None),  # a highlighted output row: painted like a softmax row
    "output-bar": ("computed-stroke", None),
    "output-pending": ("pending-fill", "pending-stroke"),
    # the mask view: kept runs solid on a hatched ground (texture, not colour alone, tells them apart)
    "kept": ("text-muted", None),
    "map-masked": ("hatch", None),
    "computed": ("computed-fill", "computed-stroke"),  # see-through (svg backend): the cell under it shows
    "map-empty-row": ("text", None),
    "map-gridline": ("background", None),
    "map-frame": (None, "masked-stroke"),
    # `--color-by part`: each part of a union in its own colour (Okabe and Ito's colour-blind-safe set)
    **{f"kept-part-{n}": (f"part-{n}", None) for n in range(1, 7)},
    # a model's strip of layers (figures.model), one colour a layer type
    "layer-full": ("badge-stroke", "badge-text"),
    "layer-sliding": ("computed-fill", "computed-stroke"),
    "layer-chunked": ("masked-hatch", "text-muted"),
    "layer-bidirectional": ("cell-fill", "cell-stroke"),
    "layer-cross": ("band-fill", "masked-stroke"),
    # mechanics (issue 22): FlashAttention's tiles and state, the KV cache's slots, the heads schematic
    "tile": (None, "text-muted"),
    "tile-current": (None, "computed-stroke"),
    "tile-skipped": (None, "masked-stroke"),
    "state-band": ("band-fill", None),
    "slot": ("cell-fill", "cell-stroke"),
    "slot-new": ("computed-fill", "computed-stroke"),
    "slot-empty": ("pending-fill", "pending-stroke"),
    "evicted": ("text", "text"),  # see-through: the hatching under it shows, darkened
    "future": ("pending-fill", "pending-stroke"),
    "qhead": ("badge-fill", "badge-stroke"),
    "kvhead": ("computed-fill", "computed-stroke"),
    "head-link": ("text-muted", None),
}

#: Every custom property, in the order the README documents them: `--attnviz-<name>`.
COLOUR_NAMES = ("background", "text", "text-muted", "badge-fill", "badge-stroke", "badge-text", "cell-fill",
                "cell-stroke", "masked-fill", "masked-hatch", "masked-stroke", "masked-text", "computed-fill",
                "computed-stroke", "computed-text", "band-fill", "rule", "pending-fill", "pending-stroke",
                "part-1", "part-2", "part-3", "part-4", "part-5", "part-6")

_LIGHT = dict(zip(COLOUR_NAMES, (
    "#ffffff", "#111827", "#4b5563", "#eef2ff", "#a5b4fc", "#3730a3", "#f8fafc",
    "#94a3b8", "#f1f3f6", "#d5dae1", "#8b95a3", "#374151", "#fde68a",
    "#92400e", "#451a03", "#fef3c7", "#d1d5db", "#ffffff", "#b4bfcc",
    "#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00")))
_DARK = dict(zip(COLOUR_NAMES, (
    "#0f172a", "#f1f5f9", "#cbd5e1", "#1e1b4b", "#6366f1", "#c7d2fe", "#1e293b",
    "#64748b", "#172033", "#2d3a52", "#7c8aa0", "#e2e8f0", "#92400e",
    "#fbbf24", "#fffbeb", "#2a2410", "#334155", "#0f172a", "#475569",
    "#56b4e9", "#e69f00", "#2fbf8f", "#e08fc0", "#f0e442", "#ff7f3f")))
# Greyscale for paper and black-and-white printers: the highlight is a black outline on mid grey.
_PRINT = dict(zip(COLOUR_NAMES, (
    "#ffffff", "#000000", "#333333", "#f2f2f2", "#808080", "#000000", "#ffffff",
    "#808080", "#f5f5f5", "#d4d4d4", "#6e6e6e", "#333333", "#d0d0d0",
    "#000000", "#000000", "#ececec", "#b3b3b3", "#ffffff", "#a6a6a6",
    "#1a1a1a", "#7a7a7a", "#4d4d4d", "#a0a0a0", "#333333", "#8c8c8c")))
# High contrast: black on white, black outlines, a saturated yellow highlight.
_CONTRAST = dict(zip(COLOUR_NAMES, (
    "#ffffff", "#000000", "#000000", "#ffffff", "#000000", "#000000", "#ffffff",
    "#000000", "#ffffff", "#c8c8c8", "#000000", "#000000", "#ffe500",
    "#000000", "#000000", "#fff6a8", "#000000", "#ffffff", "#000000",
    "#000000", "#0050ff", "#c80000", "#007a00", "#8a00c4", "#8a5a00")))


@dataclass(frozen=True)
class Theme:
    """A named palette: `colours` by name (`COLOUR_NAMES`); `auto` also has `dark` colours."""

    name: str
    colours: dict[str, str]  # drawn as presentation attributes and as the custom properties' fallbacks
    dark: dict[str, str] | None = None  # `auto` only: the colours under prefers-color-scheme: dark

    def palettes(self) -> tuple[dict[str, str], ...]:
        """Every palette the theme can show (auto: light and dark), for checks such as contrast."""
        return (self.colours,) + ((self.dark,) if self.dark else ())


THEMES = {
    "light": Theme("light", _LIGHT),
    "dark": Theme("dark", _DARK),
    "print": Theme("print", _PRINT),
    "contrast": Theme("contrast", _CONTRAST),
    "auto": Theme("auto", _LIGHT, dark=_DARK),
}
THEME_NAMES = tuple(THEMES)


def get_theme(name: str | Theme, where: str = "theme") -> Theme:
    """The theme called `name`, or an InputError naming the choices."""
    if isinstance(name, Theme):
        return name
    if name not in THEMES:
        choices = ", ".join(THEME_NAMES[:-1]) + " or " + THEME_NAMES[-1]
        raise InputError(f"unknown theme {name!r}; choose {choices}", where)
    return THEMES[name]


def surface_colours(palette: Mapping[str, str], rect_role: str) -> tuple[str, ...]:
    """The colours a text on `rect_role` may sit on (both stripes of the hatch; none if it is not filled)."""
    fill = SHAPE_PAINT[rect_role][0]
    if fill is None:
        return ()
    if fill == "hatch":
        return (palette["masked-fill"], palette["masked-hatch"])
    return (palette[fill],)


def stylesheet(id_prefix: str, theme: Theme, font_faces: str = "") -> str:
    """The figure's own <style> text, or "" when it needs none (the usual case).

    Only `auto` (its prefers-color-scheme rules must travel with the figure) and embedded fonts
    (`font_faces`: @font-face and font-family rules) need one; every selector is scoped to
    `#id_prefix`. Other figures carry presentation attributes alone, so their text nodes are
    exactly their words; a page that inlines them restyles them through `host_stylesheet()`.
    """
    if not theme.dark and not font_faces:
        return ""
    return _supported(font_faces + _theme_rules(f":where(#{id_prefix})", theme))


def host_stylesheet() -> str:
    """CSS for a docs site that inlines attnviz figures (the Sphinx and MkDocs plugins link it as attnviz.css).

    It exposes every figure's colours as `--attnviz-NAME` custom properties, each figure falling
    back to its own theme's colours (`data-attnviz-theme`), so `--attnviz-computed-fill: crimson`
    on any ancestor restyles the figures inside it. Zero specificity: a site's own rules win.
    """
    return _supported("".join(_theme_rules(f":where(svg.attnviz[data-attnviz-theme={theme.name}])", theme)
                              for theme in THEMES.values()))


def _supported(css: str) -> str:
    # Renderers without custom properties (CairoSVG) skip the block whole and keep the attributes.
    return "@supports (color: var(--attnviz-x)) {\n" + css + "}\n"


def _theme_rules(scope: str, theme: Theme) -> str:
    css = _rules(scope, theme.colours)
    if theme.dark:
        css += "@media (prefers-color-scheme: dark) {\n" + _rules(scope, theme.dark) + "}\n"
    return css


def _rules(scope: str, palette: Mapping[str, str]) -> str:
    colour = {name: f"var(--attnviz-{name}, {value})" for name, value in palette.items()}
    lines: list[str] = []
    by_colour: dict[str, list[str]] = {}
    for role, name in TEXT_COLOUR.items():
        by_colour.setdefault(name, []).append(f".attnviz-{role}-text")
    for name, classes in by_colour.items():
        selector = classes[0] if len(classes) == 1 else f":is({', '.join(classes)})"
        lines.append(f"{scope} {selector} {{ fill: {colour[name]} }}")
    for role, (fill, stroke) in SHAPE_PAINT.items():
        paint: list[str] = []
        if fill and fill != "hatch":
            paint.append(f"fill: {colour[fill]}")
        if stroke:
            paint.append(f"stroke: {colour[stroke]}")
        if paint:
            tag = "polygon" if role == "computed-mark" else "rect"
            lines.append(f"{scope} {tag}.attnviz-{role} {{ {'; '.join(paint)} }}")
    lines.append(f"{scope} .attnviz-hatch-base {{ fill: {colour['masked-fill']} }}")
    lines.append(f"{scope} .attnviz-hatch-stripe {{ fill: {colour['masked-hatch']} }}")
    return "".join(line + "\n" for line in lines)


def luminance(colour: str) -> float:
    """WCAG relative luminance of a #rrggbb colour."""
    channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a: str, b: str) -> float:
    """WCAG contrast ratio of two #rrggbb colours, 1 to 21.

    >>> round(contrast_ratio("#000000", "#ffffff"), 1)
    21.0
    """
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)
