"""SVG backend: the only module that knows SVG.

It paints a `layout.Layout`: roles become colours (from `themes`) and font
attributes, numbers are formatted by `fmt`, text and attribute values are escaped
once, by `backends.xml`. Colours are presentation
attributes, so the figure looks right where style sheets are blocked (strict CSP)
or unsupported (CairoSVG); a scoped <style> layers CSS custom properties on top
(see `themes`).
"""

from __future__ import annotations

from functools import lru_cache

from ..layout.items import LEADING
from ..layout.math_text import SCRIPT_SCALE, SUB_DROP, SUP_RISE, digit_subscript
from ..layout.metrics import FONT_FAMILIES
from .painter import DASHES, ROLE_PAINT, paint
from .themes import get_theme, stylesheet
from .xml import Element, attributes as _attributes, escape_text, leaf

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from ..layout.items import Group, Layout, Mark, Rect, Text
    from ..layout.math_text import Run
    from .painter import Hatch, Paint
    from .themes import Theme

__all__ = ["render_svg", "fmt", "physical_size", "SvgPainter"]

@lru_cache(maxsize=4096)  # a grid repeats its column and row coordinates
def fmt(number: float) -> str:
    """A coordinate as short, stable text: at most two decimals, no trailing zeros.

    >>> fmt(12.0), fmt(3.14159), fmt(-0.001)
    ('12', '3.14', '0')
    """
    text = f"{number:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def render_svg(layout: Layout, id_prefix: str, theme: str | Theme = "light", description: str | None = None,
               font_css: str = "", width_in: float = 0.0) -> str:
    """The layout as one standalone SVG document (a str).

    `theme`: a theme name or `themes.Theme`; `description`: the sentence for the root's
    `aria-description`; `font_css`: @font-face and font-family rules of embedded fonts; `width_in`: the
    frame's physical width in inches (0: none, a doc figure's units are CSS pixels), which the root's width
    and height say in inches, so that LaTeX, Typst, Inkscape and Office place the figure at its size.
    """
    theme = get_theme(theme)
    painter = SvgPainter(theme.colours, id_prefix)
    width, height = fmt(layout.width), fmt(layout.height)
    root = Element("svg", {"xmlns": "http://www.w3.org/2000/svg", "version": "1.1", "class": "attnviz",
                           "id": id_prefix, "role": "img", "aria-labelledby": f"{id_prefix}-title {id_prefix}-desc",
                           **physical_size(layout.width, layout.height, width_in), "viewBox": f"0 0 {width} {height}",
                           "data-attnviz-theme": theme.name})
    if description:
        root.attributes["aria-description"] = description
    # <title> and <desc> come first, for screen readers.
    root.add(Element("title", {"id": f"{id_prefix}-title"}, layout.title))
    desc = layout.desc + (f" Laid out to fit: {'; '.join(layout.choices)}." if layout.choices else "")
    root.add(Element("desc", {"id": f"{id_prefix}-desc"}, desc))
    css = stylesheet(id_prefix, theme, font_css)
    if css:
        root.add(Element("style", {}, css))
    root.add(Element("defs")).add(painter.hatch(f"{id_prefix}-hatch", ROLE_PAINT["cell-masked"].hatch))
    paint(layout.items, layout.width, layout.height, painter)
    root.add("".join(painter.parts))
    return root.to_string()


def physical_size(width: float, height: float, width_in: float) -> dict[str, str]:
    """The root's width and height: in inches for a frame with a physical width (its height in proportion, to
    four decimals: a ten-thousandth of an inch), else in the layout's units (CSS pixels).

    >>> physical_size(475.2, 240, 3.3), physical_size(640, 200.5, 0)
    ({'width': '3.3in', 'height': '1.6667in'}, {'width': '640', 'height': '200.5'})
    """
    if not width_in or not width:
        return {"width": fmt(width), "height": fmt(height)}
    inches = (f"{number:.4f}".rstrip("0").rstrip(".") + "in" for number in (width_in, height * width_in / width))
    return dict(zip(("width", "height"), inches))


class SvgPainter:
    """The SVG backend of the painter interface (`painter.Painter`): layout items as SVG markup, in `parts`."""

    def __init__(self, palette: Mapping[str, str], id_prefix: str) -> None:
        self.palette, self.id_prefix = palette, id_prefix
        self.parts: list[str] = []
        # the role whose paint the enclosing group carries, so its rects need none
        self._inherited: list[str | None] = [None]
        # role: its presentation attributes, made once (a 64x64 grid has 4,096 cell rects)
        self._paint: dict[str, dict[str, str]] = {}
        self._texts: dict[tuple[object, ...], str] = {}  # (what, role): attribute text written once
        self._text_heads: dict[tuple[str, float], tuple[str, str, str]] = {}  # (role, size): class, font, weight

    def _written(self, key: tuple[object, ...], make: Callable[[], str]) -> str:
        """Attribute text that is the same for every element of a role, made once."""
        if key not in self._texts:
            self._texts[key] = make()
        return self._texts[key]

    def shape(self, paint: Paint) -> dict[str, str]:
        """Presentation attributes (fill, stroke) of a shape's paint (shared: do not change them)."""
        if paint.role not in self._paint:
            if paint.fill == "hatch":
                colours = {"fill": f"url(#{self.id_prefix}-hatch)"}
            else:
                colours = {"fill": self.palette[paint.fill] if paint.fill else "none"}
            if paint.stroke:
                colours["stroke"] = self.palette[paint.stroke]
            self._paint[paint.role] = colours
        return self._paint[paint.role]

    def hatch(self, pattern_id: str, hatch: Hatch | None) -> Element:
        """Diagonal stripes for masked cells, as the paint table draws them (`painter.Hatch`)."""
        assert hatch is not None  # a masked cell's paint has its stripes
        period, width, angle = fmt(hatch.period), fmt(hatch.width), fmt(hatch.angle)
        pattern = Element("pattern", {"id": pattern_id, "width": period, "height": period,
                                      "patternUnits": "userSpaceOnUse", "patternTransform": f"rotate({angle})"})
        pattern.add(leaf("rect", {"class": "attnviz-hatch-base", "x": "0", "y": "0", "width": period, "height": period,
                                  "fill": self.palette["masked-fill"]}))
        pattern.add(leaf("rect", {"class": "attnviz-hatch-stripe", "x": "0", "y": "0", "width": width,
                                  "height": period, "fill": self.palette["masked-hatch"]}))
        return pattern

    def open_group(self, group: Group, paint: Paint | None) -> None:
        """`<g>` with the group's classes and attributes (and the paint its rects share, if any)."""
        attributes = {"class": " ".join(group.classes)}
        attributes.update(group.attrs)
        if paint is not None:
            attributes.update({**self.shape(paint), **_GROUP_HINTS.get(group.classes[0], {})})
        self._inherited.append(paint.role if paint is not None else self._inherited[-1])
        self.parts.append(f"<g{_attributes(attributes)}>")

    def close_group(self, group: Group) -> None:
        """`</g>`."""
        self._inherited.pop()
        self.parts.append("</g>")

    def rect(self, rect: Rect, paint: Paint) -> None:
        """`<rect>`, its paint written unless the enclosing group carries it."""
        painted = rect.role != self._inherited[-1]
        head = _attributes({"class": f"attnviz-{rect.role}", **dict(rect.attrs)}) if rect.attrs else \
            self._written(("rect-class", rect.role), lambda: _attributes({"class": f"attnviz-{rect.role}"}))
        place = f' x="{fmt(rect.x)}" y="{fmt(rect.y)}" width="{fmt(rect.w)}" height="{fmt(rect.h)}"'
        if rect.rx:
            place += f' rx="{fmt(rect.rx)}"'
        # A role's paint and stroke are the same on every rect: written once.
        tail = self._written(("rect-paint", rect.role, painted), lambda: _attributes(
            {**(self.shape(paint) if painted else {}), **_stroke_meaning(paint)}))
        self.parts.append(f"<rect{head}{place}{tail}/>")

    def mark(self, mark: Mark, paint: Paint) -> None:
        """The highlight's corner triangle, a `<polygon>`."""
        s = mark.size
        points = [(mark.x - s, mark.y), (mark.x, mark.y), (mark.x, mark.y + s)]
        self.parts.append(leaf("polygon", {"class": f"attnviz-{mark.role}",
                                           "points": " ".join(f"{fmt(x)},{fmt(y)}" for x, y in points),
                                           **self.shape(paint)}))

    def text(self, text: Text, colour: str) -> None:
        """`<text>`, with a `<tspan>` a line when it has several."""
        role = text.role
        # The role's class, colour and font, the same on every text of the role at its size: written once.
        known = self._text_heads.get((role, text.size))
        if known is None:
            style = text.style
            known = self._text_heads[(role, text.size)] = (
                _attributes({"class": f"attnviz-{role}-text"}),
                _attributes({"fill": self.palette[colour], "font-family": FONT_FAMILIES[style.family],
                             "font-size": fmt(style.size)}),
                _attributes({**({"font-weight": "bold"} if style.bold else {}),
                             **({"font-style": "italic"} if style.italic else {})}))
        head, font, weight = known
        runs = _drawn_runs(text.line_runs()) if text.math else None
        # A centred or right-aligned text with scripts starts where the layout measured it: some renderers
        # (CairoSVG) would anchor each of its runs on its own.
        starts = ([box[0] for box in text.line_boxes()] if runs is not None and text.anchor != "start"
                  and not text.rotate and any(kind in _SHIFTS for line in runs for _, kind in line) else None)
        written = f'{head} x="{fmt(starts[0] if starts else text.x)}" y="{fmt(text.y)}"{font}'
        if text.anchor != "start" and starts is None:
            written += f' text-anchor="{text.anchor}"'
        if text.rotate:
            written += f' transform="rotate({text.rotate} {fmt(text.x)} {fmt(text.y)})"'
        written += weight
        line = text.lines[0] if len(text.lines) == 1 else "".join(text.lines)
        if _collapsible(line) or (runs is not None and _spaced_runs(runs)):
            # Without this, SVG would drop a label's leading space and squeeze "a  b" to "a b"; librsvg, Inkscape
            # and LibreOffice would drop the space that starts or ends a run beside a script (`Kⱼwith`).
            written += ' xml:space="preserve"'
        if runs is not None:  # typeset notation: each line's runs, scripts raised or lowered (`math_text`)
            self.parts.append(f"<text{written}>{_typeset(text, runs, starts)}</text>")
            return
        if len(text.lines) == 1:
            self.parts.append(f"<text{written}>{escape_text(text.lines[0])}</text>")
            return
        line_height = text.style.size * LEADING
        tspans = "".join(
            leaf("tspan", {"x": fmt(text.x + (text.indent if n else 0)), "y": fmt(text.y + n * line_height)}, line)
            for n, line in enumerate(text.lines))
        self.parts.append(f"<text{written}>{tspans}</text>")


_SHIFTS = {"sup": -SUP_RISE, "sub": SUB_DROP}  # a script's baseline shift, in em of its line (y down)


def _drawn_runs(lines: list[tuple[Run, ...]]) -> list[tuple[Run, ...]]:
    """Each line's runs as drawn: a subscript of digits as Unicode subscript digits in the line's own run
    (`math_text.digit_subscript`, which the layout measured), so no `<tspan>` shifts it."""
    drawn: list[tuple[Run, ...]] = []
    for runs in lines:
        merged: list[Run] = []
        for run, kind in runs:
            digits = digit_subscript(run) if kind == "sub" else None
            if digits is not None:
                run, kind = digits, ""
            if merged and kind == "" and merged[-1][1] == "":
                merged[-1] = (merged[-1][0] + run, "")
            else:
                merged.append((run, kind))
        drawn.append(tuple(merged))
    return drawn


def _spaced_runs(lines: list[tuple[Run, ...]]) -> bool:
    """Whether a space of a line stands where one of its runs meets the next (which only xml:space keeps)."""
    return any(left[-1:] == " " or right[:1] == " " for runs in lines
               for (left, _), (right, _) in zip(runs, runs[1:]))


def _typeset(text: Text, lines: list[tuple[Run, ...]], starts: list[float] | None = None) -> str:
    """A math text's content (`lines`: its `line_runs()`): a `<tspan>` a run, a script smaller and shifted
    (`dy`), the run after it shifted back; each line after the first starts at its own x and y (`starts`:
    each line's left edge, for a text drawn without text-anchor). Every run is escaped as text."""
    if len(lines) == 1 and not any(kind in _SHIFTS for _, kind in lines[0]):  # one line, no script: no tspan
        return "".join([escape_text(run) for run, _ in lines[0]])
    size = text.style.size
    script = fmt(text.script or size * SCRIPT_SCALE)
    shifts = {kind: shift * size for kind, shift in _SHIFTS.items()}
    parts: list[str] = []
    for n, runs in enumerate(lines):
        shift = 0.0  # where the previous run left the baseline
        for m, (run, kind) in enumerate(runs):
            attributes: dict[str, str] = {}
            if m == 0 and (n or len(text.lines) > 1):
                x = starts[n] if starts else text.x + (text.indent if n else 0)
                attributes = {"x": fmt(x), "y": fmt(text.y + n * size * LEADING)}
                shift = 0.0
            target = shifts.get(kind, 0.0)
            if target != shift:
                attributes["dy"] = fmt(target - shift)
                shift = target
            if kind in shifts:
                attributes["font-size"] = script
            parts.append(leaf("tspan", attributes, run) if attributes else escape_text(run))
    return "".join(parts)


def _stroke_meaning(paint: Paint) -> dict[str, str]:
    """The SVG attributes of a paint's dash, width and opacity (none when they are the defaults)."""
    meaning: dict[str, str] = {}
    if paint.dash:
        meaning["stroke-dasharray"] = " ".join(map(fmt, DASHES[paint.dash]))
    if paint.width != 1:
        meaning["stroke-width"] = fmt(paint.width)
    if paint.fill_opacity != 1:
        meaning["fill-opacity"] = fmt(paint.fill_opacity)
    return meaning


def _collapsible(text: str) -> bool:
    """Whether SVG's default whitespace handling would strip, squeeze or delete (newlines) some of `text`.
    Plain string tests, not a regex: this runs on every text of a 64×64 figure."""
    return (text[:1] == " " or text[-1:] == " " or "  " in text or "\t" in text or "\n" in text
            or "\r" in text)


# A map's cells are edge to edge at fractional sizes, where anti-aliased edges would show seams between rows.
# A map's grid lines are drawn unsnapped, so that each still shows when the figure is drawn smaller.
_GROUP_HINTS = {"attnviz-map": {"shape-rendering": "crispEdges"},
                "attnviz-gridlines": {"shape-rendering": "geometricPrecision"}}
