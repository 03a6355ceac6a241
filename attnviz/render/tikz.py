"""TikZ backend: paints a `layout.Layout` as TikZ commands, its text typeset by LaTeX.

One layout unit is one CSS pixel (0.75 pt), y pointing down as in the SVG. Roles become colours
named `attnviz-<colour>` (defined once, by `colour_definitions`) and the styles `tikz_styles`
defines; values (scores, weights, outputs, vectors) are typed as math by `latex.value_line`.
Text is set at 10 pt and scaled to the role's size, so it needs no font sizes beyond the
standard ones. Computer Modern is narrower than the DejaVu the layout measures, so every text
stays inside its measured box.
"""

from __future__ import annotations

from ..layout.items import LEADING, measure, spans_within
from ..layout.math_text import SCRIPT_SCALE, SUB_DROP, SUP_RISE, math_runs, runs_width
from .painter import DASHES, stripes, walk
from .themes import COLOUR_NAMES, get_theme
from .tex_escape import escape, joined, typed_line, value_line
from .svg import fmt

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from ..layout.items import Group, Layout, Mark, Rect, Text
    from ..layout.math_text import Run
    from .painter import Hatch, Paint
    from .themes import Theme

__all__ = ["PX", "VALUE_ROLES", "colour_definitions", "tikz_styles", "tikz_items", "picture", "TikzPainter",
           "script_runs"]

PX = 0.75  # pt per layout unit (a CSS pixel)
#: Roles whose lines are values, typed as math.
VALUE_ROLES = frozenset({"score", "score-computed", "softmax-scores", "softmax-weights", "output", "vectors"})

def colour_definitions(theme: str | Theme, command: str = "definecolor") -> str:
    r"""`\definecolor{attnviz-text}{HTML}{111827}` for every colour of `theme`, one a line.
    `command="providecolor"` keeps colours the document defined first (a user's restyling)."""
    colours = get_theme(theme).colours
    return "".join(f"\\{command}{{attnviz-{name}}}{{HTML}}{{{colours[name][1:].upper()}}}\n"
                   for name in COLOUR_NAMES)


def tikz_styles() -> str:
    r"""The `\tikzset` the pictures use: `attnviz` (units, y down), one font style per family and weight."""
    fonts = {"sans": r"\sffamily", "sans bold": r"\sffamily\bfseries\boldmath", "sans italic": r"\sffamily\itshape",
             "mono": r"\ttfamily", "mono bold": r"\ttfamily\bfseries\boldmath", "mono italic": r"\ttfamily\itshape"}
    styles = [f"attnviz/.style={{x={PX}pt, y=-{PX}pt, every node/.style={{inner sep=0pt, outer sep=0pt}}}}"]
    styles += [f"attnviz {name}/.style={{font=\\fontsize{{10}}{{12}}\\selectfont{font}}}"
               for name, font in fonts.items()]
    # A line wider than the layout measured it (code points written out, [U+0417]) shrinks to fit.
    fit = (r"\providecommand\attnvizfit[2]{\begingroup\setbox0=\hbox{#2}"
           r"\ifdim\wd0>#1\relax\resizebox{#1}{!}{\box0}\else\box0\fi\endgroup}")
    # A frame's script: raised or lowered, at the size its layout gave it (`script_runs`).
    fit += r"\providecommand\attnvizscript[3]{\raisebox{#1}{\fontsize{#2}{#2}\selectfont #3}}"
    # `<`, `>` (OML) and `|` (OMS) in sans text have no sans shape: take Computer Modern's math fonts, silently.
    oml = (r"\DeclareFontFamily{OML}{cmss}{\skewchar\font'177}"
           r"\DeclareFontShape{OML}{cmss}{m}{n}{<->ssub * cmm/m/it}{}"
           r"\DeclareFontShape{OML}{cmss}{bx}{n}{<->ssub * cmm/b/it}{}"
           r"\DeclareFontFamily{OMS}{cmss}{\skewchar\font'60}"
           r"\DeclareFontShape{OMS}{cmss}{m}{n}{<->ssub * cmsy/m/n}{}"
           r"\DeclareFontShape{OMS}{cmss}{bx}{n}{<->ssub * cmsy/b/n}{}")
    return "\\tikzset{" + ",\n  ".join(styles) + "}\n" + fit + "\n" + oml + "\n"


def picture(commands: Iterable[str], width: float, height: float, background: bool = True) -> str:
    """A tikzpicture of `commands` (strings) whose bounding box is exactly the `width` x `height` frame,
    on the theme's background (`background=False`: transparent, to lay over another picture)."""
    frame = rf"\useasboundingbox (0,0) rectangle ({fmt(width)},{fmt(height)});"
    fill = [rf"\fill[attnviz-background] (0,0) rectangle ({fmt(width)},{fmt(height)});"] if background else []
    return "\\begin{tikzpicture}[attnviz]\n" + "\n".join([frame, *fill, *commands]) + "\n\\end{tikzpicture}"


def tikz_items(layout: Layout) -> list[str]:
    """One string of TikZ commands per top-level item of `layout`, in drawing order."""
    out: list[str] = []
    for item in layout.items:
        painter = TikzPainter()
        walk([item], painter)
        out.append("\n".join(painter.commands))
    return out


class TikzPainter:
    """The TikZ backend of the painter interface (`painter.Painter`): layout items as TikZ commands."""

    def __init__(self) -> None:
        self.commands: list[str] = []

    def open_group(self, group: Group, paint: Paint | None) -> None:
        """Nothing: TikZ draws every shape with its own paint, so a group is only its children."""

    def close_group(self, group: Group) -> None:
        """Nothing (see `open_group`)."""

    def mark(self, mark: Mark, paint: Paint) -> None:
        """The highlight's corner triangle, filled."""
        x, y, s = fmt(mark.x), fmt(mark.y), fmt(mark.size)
        self.commands.append(rf"\fill[attnviz-{paint.fill}] ({x}-{s},{y}) -- ({x},{y}) -- ({x},{y}+{s}) -- cycle;")

    def rect(self, rect: Rect, paint: Paint) -> None:
        """A rectangle: filled (hatched, for masked cells), then stroked, as its paint says."""
        corners = f"rounded corners={fmt(rect.rx * PX)}pt" if rect.rx else "sharp corners"
        shape = f"({fmt(rect.x)},{fmt(rect.y)}) rectangle ({fmt(rect.x + rect.w)},{fmt(rect.y + rect.h)})"
        opacity = f", fill opacity={fmt(paint.fill_opacity)}" if paint.fill_opacity != 1 else ""
        if paint.hatch is not None:
            self.commands.append(rf"\fill[attnviz-masked-fill, {corners}] {shape};")
            self.commands.append(r"\begin{scope}" + rf"\clip[{corners}] {shape};" + _stripes(rect, paint.hatch)
                                 + r"\end{scope}")
        elif paint.fill:
            self.commands.append(rf"\fill[attnviz-{paint.fill}{opacity}, {corners}] {shape};")
        if paint.stroke:
            dash = paint.dash and "dash pattern=on {}pt off {}pt".format(*(fmt(n * PX) for n in DASHES[paint.dash]))
            options = ", ".join(filter(None, [f"attnviz-{paint.stroke}", f"line width={fmt(paint.width * PX)}pt",
                                              corners, dash]))
            self.commands.append(rf"\draw[{options}] {shape};")

    def text(self, text: Text, colour: str) -> None:
        """One node a drawn line."""
        self.commands.append(_text(text, colour))


def _stripes(rect: Rect, hatch: Hatch) -> str:
    """The masked cells' diagonal stripes, drawn as lines (no pattern library needed)."""
    lines = [f"({fmt(x0)},{fmt(y0)}) -- ({fmt(x1)},{fmt(y1)})" for x0, y0, x1, y1 in stripes(rect, hatch)]
    return rf"\draw[attnviz-masked-hatch, line width={fmt(hatch.width * PX)}pt] " + " ".join(lines) + ";"


_ANCHORS = {"start": "base west", "middle": "base", "end": "base east"}
UNFITTED_ROLES = ("score", "score-computed", "masked")  # texts centred in a cell: set at their size, never shrunk


def _text(text: Text, colour: str) -> str:
    style = text.style
    font = style.family + (" bold" if style.bold else " italic" if style.italic else "")
    options = [f"attnviz {font}", f"scale={fmt(style.size * PX / 10)}", f"text=attnviz-{colour}",
               f"anchor={_ANCHORS[text.anchor]}"]
    if text.rotate:
        options.append(f"rotate={-text.rotate}")  # SVG turns clockwise with y down; TikZ counter-clockwise
    # Fractions are as tall as two lines: a caption that wraps keeps them on the line (a/(b+c)).
    inline = len(text.lines) > 1
    typeset: Callable[[str], str] = (lambda line: value_line(line, inline)) if text.role in VALUE_ROLES else escape
    nodes: list[str] = []
    offset = 0
    for n, line in enumerate(text.lines):
        start = offset + len(line) - len(line.lstrip())  # where the drawn (stripped) line starts in text.text
        offset += len(line)
        if not line.strip():
            continue
        x = text.x + (text.indent if n else 0)
        if text.anchor == "start":  # TeX drops a line's leading spaces: start where its first glyph is
            x += measure(line[:len(line) - len(line.lstrip())], style)
        y = text.y + n * style.size * LEADING
        # The user's spans on this line are escaped as text; only attnviz's own notation is typeset.
        spans = spans_within(text.user, start, start + len(line.strip()))
        runs = math_runs(line.strip(), spans) if text.math else None
        measured = runs_width(runs, style, text.script) if runs is not None else measure(line.strip(), style)
        width = measured * 10 / style.size  # in the node's unscaled points
        if text.math:  # a frame's typeset notation: its runs, each script at the size the layout gave it
            # (TeX's own script style would set it at 70 % of the line, under the frame's floor)
            content = script_runs(runs or (), (text.script or style.size * SCRIPT_SCALE) / style.size)
        else:
            content = typed_line(line.strip(), spans, typeset)
        # (A frame's typeset line is held to its measured width too: TeX's math spacing is wider. A grid's value
        # never is: its cell has room round it, and its size stays the same in every step.)
        if "[U+" in content or (text.math and text.role not in UNFITTED_ROLES):
            content = rf"\attnvizfit{{{fmt(width)}pt}}{{{content}}}"
        nodes.append(rf"\node[{', '.join(options)}] at ({fmt(x)},{fmt(y)}) {{{content}}};")
    return "\n".join(nodes)


def script_runs(runs: Iterable[Run], scale: float = SCRIPT_SCALE) -> str:
    r"""Runs (`layout.math_text`) as LaTeX: every run's text escaped, scripts raised or lowered, each at
    `scale` of the node's 10 pt (`\attnvizscript{shift}{size}{text}`, `tikz_styles`).

    >>> script_runs((("S", ""), ("ij", "sub"), (" x_1", "user")))
    'S\\attnvizscript{-1.8pt}{7pt}{ij} x\\_1'
    """
    size = fmt(10 * scale)
    shifts = {"sup": fmt(10 * SUP_RISE), "sub": fmt(-10 * SUB_DROP)}
    return joined(rf"\attnvizscript{{{shifts[kind]}pt}}{{{size}pt}}{{{escape(run)}}}"
                  if kind in shifts else escape(run, kind == "user") for run, kind in runs)
