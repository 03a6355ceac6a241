"""Themes: which colour paints each role, and the scoped style sheet that exposes them as CSS custom properties.

Colours are written twice on purpose. Presentation attributes carry the chosen
theme's colours, so a figure looks right where style sheets are blocked (a strict
CSP) or unsupported (CairoSVG), and its text nodes are only its words. The page
that inlines figures links `host_stylesheet()` (the Sphinx and MkDocs plugins do), which layers
`var(--attnviz-NAME, <theme colour>)` on top (the theme's colour is the figure's private
`--_attnviz-NAME`, set on its <svg>), so a docs site can restyle any figure
by setting the custom properties. An `auto` figure carries its own scoped <style>
(its dark colours where the page says it is dark, `PAGE_TOGGLES`, else where the system does:
`prefers-color-scheme: dark`; a site with another toggle names it, `dark_selector`). The rules sit inside
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
           "stylesheet", "host_stylesheet", "surface_colours", "contrast_ratio", "luminance", "PAGE_TOGGLES",
           "check_dark_selector", "with_dark_selector"]

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
    "cell-computed-outline": (None, "computed-stroke"),
    # a differential entry by its sign (figures.differential): Okabe and Ito's blue and vermillion edges
    "cell-positive": ("badge-fill", "part-1"),
    "cell-negative": ("computed-fill", "part-6"),  # on a masked cell: its hatching shows through
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
    "highlight-ring": ("computed-stroke", None),  # a deck's ring round a highlight too small to see on the slide
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
    "layer-mark": ("text", None),  # a glyph over a layer: NoPE, soft-capping, a sink (layout.layer_marks)
    # mechanics (issue 22): FlashAttention's tiles and state, the KV cache's slots, the heads schematic
    "tile": (None, "text-muted"),
    "tile-current": (None, "computed-stroke"),
    "tile-skipped": (None, "masked-stroke"),
    "state-band": ("band-fill", None),
    "slot": ("cell-fill", "cell-stroke"),
    "slot-new": ("computed-fill", "computed-stroke"),
    "slot-empty": ("pending-fill", "pending-stroke"),
    "evicted": (None, "text"),  # an outline: the cell's hatching and label show as they are (no shade over them)
    "future": ("pending-fill", "pending-stroke"),
    "qhead": ("badge-fill", "badge-stroke"),
    "kvhead": ("computed-fill", "computed-stroke"),
    "head-link": ("text-muted", None),
    # `--blocks`: FlexAttention's block classes, outlines told apart by their dash as well as their colour
    "block-full": (None, "part-3"),
    "block-partial": (None, "part-2"),
    "block-empty": (None, "masked-stroke"),
}

#: Every custom property, in the order docs/styling.rst documents them: `--attnviz-<name>`.
COLOUR_NAMES = ("background", "text", "text-muted", "badge-fill", "badge-stroke", "badge-text", "cell-fill",
                "cell-stroke", "masked-fill", "masked-hatch", "masked-stroke", "masked-text", "computed-fill",
                "computed-stroke", "computed-text", "band-fill", "rule", "pending-fill", "pending-stroke",
                "part-1", "part-2", "part-3", "part-4", "part-5", "part-6")

_LIGHT = dict(zip(COLOUR_NAMES, (
    "#ffffff", "#111827", "#4b5563", "#eef2ff", "#a5b4fc", "#3730a3", "#f8fafc",
    "#94a3b8", "#f1f3f6", "#8c9099", "#8b95a3", "#111827", "#fde68a",
    "#5c2a0c", "#451a03", "#fef3c7", "#d1d5db", "#ffffff", "#b4bfcc",
    "#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00")))
_DARK = dict(zip(COLOUR_NAMES, (
    "#0f172a", "#f1f5f9", "#cbd5e1", "#1e1b4b", "#6366f1", "#c7d2fe", "#1e293b",
    "#64748b", "#172033", "#6b727f", "#7c8aa0", "#ffffff", "#92400e",
    "#fcd34d", "#fffbeb", "#2a2410", "#334155", "#0f172a", "#475569",
    "#56b4e9", "#e69f00", "#2fbf8f", "#e08fc0", "#f0e442", "#ff7f3f")))
# Greyscale for paper and black-and-white printers: the highlight is a black outline on mid grey.
_PRINT = dict(zip(COLOUR_NAMES, (
    "#ffffff", "#000000", "#333333", "#f2f2f2", "#808080", "#000000", "#ffffff",
    "#808080", "#f5f5f5", "#949494", "#6e6e6e", "#000000", "#d0d0d0",
    "#000000", "#000000", "#ececec", "#b3b3b3", "#ffffff", "#a6a6a6",
    "#1a1a1a", "#7a7a7a", "#4d4d4d", "#a0a0a0", "#333333", "#8c8c8c")))
# High contrast: black on white, black outlines, a saturated yellow highlight.
_CONTRAST = dict(zip(COLOUR_NAMES, (
    "#ffffff", "#000000", "#000000", "#ffffff", "#000000", "#000000", "#ffffff",
    "#000000", "#ffffff", "#949494", "#000000", "#000000", "#ffe500",
    "#000000", "#000000", "#fff6a8", "#000000", "#ffffff", "#000000",
    "#000000", "#0050ff", "#c80000", "#007a00", "#8a00c4", "#8a5a00")))


@dataclass(frozen=True)
class Theme:
    """A named palette: `colours` by name (`COLOUR_NAMES`); `auto` also has `dark` colours."""

    name: str
    colours: dict[str, str]  # drawn as presentation attributes and as the custom properties' fallbacks
    dark: dict[str, str] | None = None  # `auto` only: the colours on a dark page (or system)
    dark_selector: str | None = None  # `auto` only: the site's own toggle, dark inside it (else PAGE_TOGGLES)

    @property
    def key(self) -> str:
        """What a figure keeps as its theme: the name, and a site's dark selector after a `;` (which no
        selector holds), so composed panels, walkthrough steps and decks keep the selector too.

        >>> THEMES["auto"].key, with_dark_selector("auto", "html.dark").key
        ('auto', 'auto;html.dark')
        """
        return self.name if self.dark_selector is None else f"{self.name};{self.dark_selector}"

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
    """The theme called `name` (or a `Theme.key`), or an InputError naming the choices."""
    if isinstance(name, Theme):
        return name
    if isinstance(name, str) and ";" in name:
        base, selector = name.split(";", 1)
        return with_dark_selector(get_theme(base, where), selector)
    if name not in THEMES:
        choices = ", ".join(THEME_NAMES[:-1]) + " or " + THEME_NAMES[-1]
        raise InputError(f"unknown theme {name!r}; choose {choices}", where)
    return THEMES[name]


#: The documentation themes' own light/dark toggles, which an `auto` figure follows (before the system's
#: setting): Furo (`body[data-theme]`, "auto" there means the system's), PyData and sphinx-book-theme
#: (`html[data-theme]`), MkDocs Material (`[data-md-color-scheme]`: slate is dark, default light), plain
#: MkDocs' own theme (Bootstrap's `html[data-bs-theme]`, its `color_mode` and `user_color_mode_toggle`) and
#: JupyterLab. Read the Docs' theme has no dark mode: its pages (`body.wy-body-for-nav`) are light whatever the
#: system says, and so are the figures in them.
PAGE_TOGGLES = {
    "light": ('html[data-theme="light"]', 'body[data-theme="light"]', '[data-md-color-scheme="default"]',
              'html[data-bs-theme="light"]', 'body[data-jp-theme-light="true"]', 'body.wy-body-for-nav'),
    "dark": ('html[data-theme="dark"]', 'body[data-theme="dark"]', '[data-md-color-scheme="slate"]',
             'html[data-bs-theme="dark"]', 'body[data-jp-theme-light="false"]'),
}

_SELECTOR_PUNCTUATION = frozenset("-_.#:[]()=*>+~,^$|\"' ")  # and letters and digits
MAX_SELECTOR = 200


def check_dark_selector(selector: object, where: str = "dark_selector") -> str:
    """`selector` if it is a CSS selector (list) safe to write into a style sheet, else an InputError.

    It is the page's text going into CSS, so only what selectors are made of passes: names, `#.:[]()`,
    `=*^$|~` and combinators, balanced brackets and quotes; no `<`, `&`, braces, `;`, `@`, `/`, `\\` or
    control characters (nothing that could end the rule, the style sheet or the SVG's <style>).

    >>> check_dark_selector('html[data-mode="night"], .dark')
    'html[data-mode="night"], .dark'
    >>> try:
    ...     check_dark_selector("x } body { color: red")
    ... except InputError as err:
    ...     print(err)
    dark_selector: '}' cannot be in a selector; give one like html.dark or [data-theme="dark"]
    """
    hint = 'give one like html.dark or [data-theme="dark"]'
    if not isinstance(selector, str) or not selector.strip():
        raise InputError(f"expected a CSS selector; {hint}", where)
    if len(selector) > MAX_SELECTOR:
        raise InputError(f"a selector of at most {MAX_SELECTOR} characters, not {len(selector)}", where)
    bad = next((c for c in selector if not (c.isalnum() or c in _SELECTOR_PUNCTUATION)), None)
    if bad is not None:
        shown = repr(bad) if bad.isprintable() else f"U+{ord(bad):04X}"
        raise InputError(f"{shown} cannot be in a selector; {hint}", where)
    depth: list[str] = []
    quote = ""
    for c in selector:
        if quote:
            quote = "" if c == quote else quote
        elif c in "\"'":
            quote = c
        elif c in "([":
            depth.append(")" if c == "(" else "]")
        elif c in ")]" and (not depth or depth.pop() != c):
            raise InputError(f"unbalanced {c!r} in the selector; {hint}", where)
    if quote or depth:
        raise InputError(f"unclosed {quote or ('(' if depth[-1] == ')' else '[')!r} in the selector; {hint}", where)
    return " ".join(selector.split())


def with_dark_selector(theme: str | Theme, selector: str | None, where: str = "dark_selector") -> Theme:
    """`theme` (which must be `auto`) dark inside `selector` and light elsewhere, in place of the page
    toggles and the system's setting; None: `theme` as it is."""
    theme = get_theme(theme)
    if selector is None:
        return theme
    if theme.dark is None:
        raise InputError(f"a dark selector is for theme 'auto' (the figure that follows the page), not {theme.name!r}",
                         where)
    return Theme(theme.name, theme.colours, theme.dark, check_dark_selector(selector, where))


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

    Only `auto` (its page and system rules must travel with the figure) and embedded fonts
    (`font_faces`: @font-face and font-family rules) need one; every selector is scoped to
    `#id_prefix`. Other figures carry presentation attributes alone, so their text nodes are
    exactly their words; a page that inlines them restyles them through `host_stylesheet()`.
    """
    if not theme.dark and not font_faces:
        return ""
    scope = f":where(#{id_prefix})"
    return _supported(font_faces + _palettes(scope, theme) + _paint_rules(scope))


def host_stylesheet(dark_selector: str | None = None) -> str:
    """CSS for a docs site that inlines attnviz figures (the Sphinx and MkDocs plugins link it as attnviz.css).

    It exposes every figure's colours as `--attnviz-NAME` custom properties, each figure falling
    back to its own theme's colours (`data-attnviz-theme`), so `--attnviz-computed-fill: crimson`
    on any ancestor restyles the figures inside it. Zero specificity: a site's own rules win.
    `dark_selector`: the site's own dark toggle, for its `auto` figures (`with_dark_selector`).
    """
    themes = [with_dark_selector(theme, dark_selector) if theme.dark else theme for theme in THEMES.values()]
    return _supported("".join(_palettes(f":where(svg.attnviz[data-attnviz-theme={theme.name}])", theme)
                              for theme in themes) + _paint_rules(":where(svg.attnviz)")) + FORMULA_BOX


#: A document's formula (`.. attnviz-page::`) wider than its column scrolls in its own box, so a phone's page
#: does not scroll sideways as a whole.
FORMULA_BOX = ":where(.attnviz-formula) { max-width: 100%; overflow-x: auto; overflow-y: hidden }\n"


def _supported(css: str) -> str:
    # Renderers without custom properties (CairoSVG) skip the block whole and keep the attributes.
    return "@supports (color: var(--attnviz-x)) {\n" + css + "}\n"


def _palettes(scope: str, theme: Theme) -> str:
    """The theme's colours as the figure's private properties (`--_attnviz-NAME`, set on the <svg> itself,
    so no page's value reaches them), in cascade order: every rule has the same (zero) specificity, so
    the last that matches wins. Light; for `auto`, dark under the system's setting, light inside a page's
    light toggle, dark inside its dark one (with a site's own selector: dark inside it, light elsewhere)."""
    css = _palette(scope, theme.colours)
    if theme.dark and theme.dark_selector:
        css += _palette(f":where({theme.dark_selector}) {scope}", theme.dark)
    elif theme.dark:
        css += "@media (prefers-color-scheme: dark) {\n" + _palette(scope, theme.dark) + "}\n"
        css += _palette(f":where({', '.join(PAGE_TOGGLES['light'])}) {scope}", theme.colours)
        css += _palette(f":where({', '.join(PAGE_TOGGLES['dark'])}) {scope}", theme.dark)
    return css


def _palette(scope: str, palette: Mapping[str, str]) -> str:
    return f"{scope} {{ {'; '.join(f'--_attnviz-{name}: {palette[name]}' for name in COLOUR_NAMES)} }}\n"


def _paint_rules(scope: str) -> str:
    """Every role painted from the page's `--attnviz-NAME` if it sets one, else the figure's own colour."""
    colour = {name: f"var(--attnviz-{name}, var(--_attnviz-{name}))" for name in COLOUR_NAMES}
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
