"""A deck as LaTeX: a Beamer file (one frame per slide, its figure on the deck's geometry) or TikZ pictures
to `\\input` into a paper (`tikz_document`, or `tikz_files`: one file per step and `\\attnvizstep{N}`).

The figure is typeset once per part, not once per step: every version of each part of the figure (a cell
pending, computed this step, computed before) is a TikZ picture saved in a box in the preamble, and each
frame lays its versions over one another. pdflatex's time grows with the steps and the parts, never with
their product.

Formulas are the deck's own TeX. They are copied into the file only when they use the commands the
page's formulas may use and their braces balance, so a spec cannot make pdflatex read or write files
(`\\input`, `\\openout`) or break the frame; any other formula is typeset as text.
"""

from __future__ import annotations

import re

from ...numbers.exact import InputError
from ...render.svg import fmt
from ...render.tex_escape import escape, prose, typed_line
from ...render.tikz import colour_definitions, picture, tikz_items, tikz_styles
from ...words.user_text import user_spans
from ..mathml import MAX_ARRAY_COLUMNS, check_tex, tex_to_mathml
from .tex_safety import tex_sets, text_signs
from .visible import visible_highlights
from .slide_text import formula_note

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ...layout.items import Layout
    from .model import Deck, Slide

__all__ = ["beamer_document", "tikz_document", "tikz_files", "safe_formula", "shared_parts", "PAPER_PT",
           "beamer_sentence"]

_ESCAPE = re.compile(r"\\.", re.S)
#: Beamer's paper, in points: 160 × 90 mm (16:9) and 128 × 96 mm (4:3). A slide's points scale to it.
PAPER_PT = {"16:9": (160 * 72 / 25.4, 90 * 72 / 25.4), "4:3": (128 * 72 / 25.4, 96 * 72 / 25.4)}
#: The attnviz colours that follow the Beamer theme in the light theme (the others keep attnviz's).
_THEMED = {"text": "fg", "background": "bg", "computed-fill": "structure.fg!22!bg",
           "computed-stroke": "structure.fg!85!black", "computed-text": "fg", "badge-fill": "structure.fg!8!bg",
           "badge-stroke": "structure.fg!45!bg", "badge-text": "structure.fg", "band-fill": "structure.fg!6!bg"}


def safe_formula(tex: str) -> str | None:
    r"""`tex` if pdflatex may read it: the commands and environments the page's formulas may use
    (`mathml.check_tex`: braces balanced, environments closed, rows no wider than their environment), no
    unescaped `$ #`, a formula latex2mathml reads (`\frac` without its arguments, `x^` or `a_b_c` would stop
    pdflatex) and pdflatex sets (`tex_safety.tex_sets`: arguments, delimiters, text in `\text{...}`); else None.

    >>> safe_formula(r"\frac{e^{1}}{e^{1}+e^{2}},\ S_{1,2}")
    '\\frac{e^{1}}{e^{1}+e^{2}},\\ S_{1,2}'
    >>> safe_formula(r"\input{/etc/passwd}"), safe_formula("x}{"), safe_formula("^^5cinput"), safe_formula("1 % }")
    (None, None, None, None)
    """
    try:
        check_tex(tex, cells=True)
        tex_to_mathml(tex)
    except InputError:
        return None
    bare = _ESCAPE.sub("", tex)  # `\$`, `\#` are escapes: what is left is the raw text
    return tex if tex_sets(tex) and not any(ch in bare for ch in "$#") else None


def _formula(tex: str | None) -> str:
    """The formula under the sentences (the deck checked its parts fit the column), or the TeX as text
    when it is unsafe."""
    if not tex:
        return ""
    safe = safe_formula(tex)
    if not safe:
        return rf"\par\texttt{{{escape(tex)}}}"
    return r"\par\smallskip$\displaystyle " + _breakable(safe) + "$"


def _breakable(safe: str) -> str:
    r"""In-line math that TeX may break after an `=` or `+` and between items: after `,\quad`, `,\ ` and `, `
    outside brackets, inside a vector or list only where it cannot fit a line (a `\left(…\right)` is one
    unbreakable box, so its parentheses are written plain).

    >>> _breakable(r"s = \left(\frac{1}{2}, \frac{1}{2}\right), t")
    's = (\\frac{1}{2}, \\penalty5000 \\frac{1}{2}), \\allowbreak t'
    """
    plain = re.sub(r"\\(?:left|right)(?=[()\[\]])", "", text_signs(safe))
    plain = re.sub(r"(\\text\{[^{}]*:\s*\})", r"\1\\allowbreak ", plain)  # after a label: `\text{row 3: }`
    out, depth = [], 0
    for part in re.split(r"((?<!\\),(?:\\quad|\\ | )|(?<!\\)[(\[{}\])])", plain):  # (not `\{`, `\,`: escaped)
        depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(part, 0)
        out.append(part)
        if re.fullmatch(r",(?:\\quad|\\ | )", part):  # a list's item breaks only where the list cannot fit a line
            out.append((" " if not part.endswith(" ") else "") + (r"\allowbreak " if depth <= 0 else r"\penalty5000 "))
    return "".join(out)


def _note(note: str, formula: str | None) -> str:
    """A line of the notes: the step's formula typeset as TeX math (never its Unicode form's code points), a
    sentence as the slide's sentences are (breakable, a user's spans as typed)."""
    if formula is not None and note == formula_note(formula):
        safe = safe_formula(formula)
        if safe:
            return "Formula: $" + _breakable(safe) + "$"
    return typed_line(note, user_spans(note), prose)


def _typed(text: str) -> str:
    """A heading or title: the user's spans as typed (straight quotes), attnviz's words escaped."""
    return typed_line(text, user_spans(text), escape)


_MATH = re.compile(r"(?<!\\)\$(.+?)(?<!\\)\$", re.S)


def beamer_sentence(sentence: str) -> str:
    r"""A sentence for a slide: the user's spans escaped, attnviz's notation as math in display style
    (fractions and their exponents stay above the floor).

    >>> beamer_sentence("so S_{1,1} = 1.")
    'so $\\displaystyle S_{1,1} = 1$.'
    """
    typed = typed_line(sentence, user_spans(sentence), prose)
    return _MATH.sub(lambda m: rf"$\displaystyle {_breakable(m[1])}$", typed)


def shared_parts(layouts: Sequence[Layout]) -> tuple[list[str], list[list[int]]]:
    """Every distinct version of every part of the figures, as TikZ pictures the frame's size (`parts`), and
    for each layout the indices of the parts it draws, in drawing order (parts every layout draws alike
    come first, joined into one picture)."""
    width, height = layouts[0].width, layouts[0].height
    items = [tikz_items(layout) for layout in layouts]
    same = len({len(one) for one in items}) == 1 and len({(one.width, one.height) for one in layouts}) == 1
    shared = {n for n, versions in enumerate(zip(*items)) if len(set(versions)) == 1} if same else set()
    parts = [picture([items[0][n] for n in sorted(shared)], width, height)] if shared else []
    index: dict[tuple[str, float, float], int] = {}  # (a deck's panels side by side: a size of their own)
    uses: list[list[int]] = []
    for one, layout in zip(items, layouts):
        drawn = [0] if shared else []
        for position, item in enumerate(one):
            if position in shared or not item:
                continue
            key = (item, layout.width, layout.height)
            if key not in index:
                index[key] = len(parts)
                parts.append(picture([item], layout.width, layout.height, background=False))
            drawn.append(index[key])
        uses.append(drawn)
    return parts, uses


def _colours(theme: str) -> list[str]:
    """The figure's colours: attnviz's theme, and in the light theme the Beamer theme's structure colour for
    the highlight and its text and background colours, unless the preamble defines them first (a user's
    `\\colorlet{attnviz-computed-fill}{orange}` anywhere before `\\begin{document}` wins)."""
    lines = colour_definitions(theme).rstrip("\n").split("\n")
    if theme != "light":
        return lines
    fixed = [line for line in lines if not any(f"{{attnviz-{name}}}" in line for name in _THEMED)]
    themed = "".join(rf"\@ifundefinedcolor{{attnviz-{name}}}{{\colorlet{{attnviz-{name}}}{{{colour}}}}}{{}}"
                     for name, colour in _THEMED.items())
    return [*fixed, r"\makeatletter\AtBeginDocument{\usebeamercolor{structure}\usebeamercolor{normal text}%",
            themed + r"}\makeatother"]


def _frame(slide: Slide, figure: str, size: tuple[float, float], text_w: float, wide: bool = False) -> list[str]:
    body = r"\par\smallskip ".join(beamer_sentence(p) for p in slide.paragraphs) + _formula(slide.formula)
    notes = r"\par ".join(_note(note, slide.noted) for note in slide.notes)
    if wide:  # the figure across the slide, its text under it (deck.wide)
        return [
            rf"\begin{{frame}}{{{_typed(slide.heading)}}}",
            rf"\resizebox{{{fmt(size[0])}pt}}{{{fmt(size[1])}pt}}{{{figure}}}\par\smallskip",
            rf"\begin{{minipage}}{{{fmt(text_w)}pt}}\raggedright\small " + body + r"\end{minipage}",
            rf"\note{{\scriptsize\textbf{{{_typed(slide.heading)}}}\par {notes}}}",
            r"\end{frame}",
        ]
    return [
        rf"\begin{{frame}}{{{_typed(slide.heading)}}}",
        r"\begin{columns}[T,onlytextwidth]",
        rf"\begin{{column}}{{{fmt(size[0])}pt}}",
        rf"\resizebox{{{fmt(size[0])}pt}}{{{fmt(size[1])}pt}}{{{figure}}}",
        r"\end{column}",
        rf"\begin{{column}}{{{fmt(text_w)}pt}}",
        r"\raggedright\small " + body,
        r"\end{column}",
        r"\end{columns}",
        rf"\note{{\scriptsize\textbf{{{_typed(slide.heading)}}}\par {notes}}}",
        r"\end{frame}",
    ]


#: hyperref writes titles into the PDF's information and outline as plain strings, dropping `\ttfamily` and
#: `\char`: a user's typewriter quote, backquote and double quote (`tex_escape.escape`) are named there.
_PDF_STRINGS = (r"\pdfstringdefDisableCommands{\def\char#1#2{\ifnum#1#2=13 \textquotesingle\else"
                r"\ifnum#1#2=18 \textasciigrave\else\textquotedbl\fi\fi}}")
#: Each part of the figure typeset once: with pdfTeX a form XObject (a page draws it by reference), else a box.
_SAVING = [
    r"\makeatletter",
    r"\ifdefined\pdfxform",
    r"\newcommand\attnvizsave[2]{\setbox0=\hbox{#2}\immediate\pdfxform0",
    r"  \expandafter\xdef\csname attnviz@#1\endcsname{\noexpand\pdfrefxform\the\pdflastxform\relax}}",
    r"\else",
    r"\newcommand\attnvizsave[2]{\expandafter\newsavebox\csname attnviz@box@#1\endcsname",
    r"  \expandafter\sbox\csname attnviz@box@#1\endcsname{#2}%",
    r"  \expandafter\xdef\csname attnviz@#1\endcsname{\noexpand\usebox",
    r"  \expandafter\noexpand\csname attnviz@box@#1\endcsname}}",
    r"\fi",
    r"\newcommand\attnvizuse[1]{\csname attnviz@#1\endcsname}",
    r"\makeatother",
]


#: A dark deck's slides dark to the edge, not only its figures: the page, its text, titles and structure.
_DARK_SLIDE = (r"\setbeamercolor{background canvas}{bg=attnviz-background}",
               r"\setbeamercolor{normal text}{fg=attnviz-text,bg=attnviz-background}",
               r"\setbeamercolor{frametitle}{fg=attnviz-text,bg=attnviz-background}",
               r"\setbeamercolor{title}{fg=attnviz-text}\setbeamercolor{structure}{fg=attnviz-badge-stroke}",
               r"\usebeamercolor[fg]{normal text}")


def beamer_document(deck: Deck) -> str:
    """The deck as a Beamer file: an optional title frame, then one frame per slide. Compile with pdflatex;
    handouts (`\\documentclass[handout]`) and note pages (`\\setbeameroption{show notes}`) work as usual."""
    shape = deck.geometry
    paper_w, paper_h = PAPER_PT[deck.aspect]
    scale = paper_w / shape.width
    # a map's one cell at 512 tokens is ringed at a size the room sees (in the slide's points, as the PDF deck)
    layouts = [visible_highlights(layout, shape.figure.w / layout.width) for layout in deck.layouts()]
    parts, uses = shared_parts(layouts)
    boxes = [rf"\attnvizsave{{{_name(n)}}}{{{part}}}" for n, part in enumerate(parts)]
    figure_size = (shape.figure.w * scale, shape.figure.h * scale)
    text_w = shape.text.w * scale
    margin = shape.figure.x * scale
    frames: list[str] = []
    if deck.title_page is not None:
        frames += [r"\begin{frame}", r"\titlepage", r"\end{frame}"]
    for slide, used in zip(deck.slides, uses):
        figure = "".join(rf"\rlap{{\attnvizuse{{{_name(n)}}}}}" for n in used[:-1])
        figure += rf"\attnvizuse{{{_name(used[-1])}}}" if used else ""
        frames += _frame(slide, figure, figure_size, text_w, deck.wide)
    page = deck.title_page
    lines = [
        "% attnviz: a Beamer deck; compile with pdflatex -no-shell-escape (it runs nothing, reads no file of",
        "% yours). Colours are defined once, below: \\colorlet any",
        "% attnviz-* colour in the preamble to restyle. Handouts: \\documentclass[handout,...]; notes: show notes.",
        rf"\documentclass[aspectratio={deck.aspect.replace(':', '')},11pt]{{beamer}}",
        r"\usepackage{amsmath, amssymb, bm, mathtools}",  # every command formulas may use (mathml.TEX_COMMANDS):
        r"\providecommand\lt{<}\providecommand\gt{>}",  # \xmapsto is mathtools'; \lt and \gt MathJax's
        rf"\setcounter{{MaxMatrixCols}}{{{MAX_ARRAY_COLUMNS}}}",  # a matrix as wide as an array may be
        r"\usepackage{tikz}",
        _PDF_STRINGS,
        r"\DeclareMathOperator*{\argmax}{arg\,max}",
        r"\DeclareMathOperator*{\argmin}{arg\,min}",
        r"\setbeamertemplate{navigation symbols}{}",
        r"\usefonttheme[onlymath]{serif}",  # Computer Modern math: sans math has no OML/cmss font
        # the sentences' scripts of scripts (e^{s_{ij}}) at 7 pt, as their scripts: 14 pt on the projected slide
        r"\DeclareMathSizes{10}{10}{7}{7}",
        rf"\setbeamersize{{text margin left={fmt(margin)}pt, text margin right={fmt(margin)}pt}}",
        *_colours(deck.theme),
        *_DARK_SLIDE * (deck.theme == "dark"),
        tikz_styles().rstrip("\n"),
        *_SAVING,
        # a title page's fields are the user's (--title, --author, --date, a document's title and heading)
        rf"\title{{{escape(page.title, True) if page else _typed(deck.title)}}}",
        rf"\subtitle{{{escape(page.subtitle, True) if page else _typed(deck.heading)}}}",
        rf"\author{{{escape(page.author, True) if page else ''}}}",
        rf"\date{{{escape(page.date, True) if page else ''}}}",
        r"\begin{document}",
        *boxes,
        *frames,
        r"\end{document}",
    ]
    return "\n".join(lines) + "\n"


def _name(n: int) -> str:
    """A box's name: TeX control sequences are letters only (0 -> a, 25 -> z, 26 -> ba)."""
    letters = ""
    while True:
        letters = chr(ord("a") + n % 26) + letters
        n //= 26
        if not n:
            return letters


def _header(deck: Deck) -> list[str]:
    return [
        "% attnviz: TikZ figures. \\input this file into a document whose preamble loads tikz and amsmath;",
        "% scale a figure with \\resizebox{\\linewidth}{!}{\\input{this-file}}. Restyle: define a colour,",
        "% e.g. \\definecolor{attnviz-computed-fill}{HTML}{FDE68A}, before the \\input.",
        colour_definitions(deck.theme, "providecolor").rstrip("\n"),
        tikz_styles().rstrip("\n"),
    ]


def _pictures(deck: Deck) -> list[tuple[Slide, str]]:
    """Each step's picture (continuation slides share their step's)."""
    return [(slide, picture(tikz_items(layout), layout.width, layout.height))
            for slide, layout in zip(deck.slides, deck.paper_layouts()) if slide.kind == "step"]


def tikz_document(deck: Deck) -> str:
    """The deck's figures as TikZ pictures, one per step, to `\\input` into a document that loads tikz
    and amsmath. Colours use `\\providecolor`: a colour the document defines first wins."""
    pictures = [f"% step {slide.step}: {' '.join(slide.heading.split())}\n" + drawn for slide, drawn in _pictures(deck)]
    separator = "%\n\\par\\medskip\\noindent\n"
    return "\n".join(_header(deck)) + "\n" + separator.join(pictures) + "%\n"


def tikz_files(deck: Deck, folder: str) -> dict[str, str]:
    r"""One file per step (`step-3.tex`) and `steps.tex`, which defines the colours and styles once and
    `\attnvizstep[width]{N}`: step N's picture at `width` (default `\linewidth`), e.g. in a two-column
    paper `\input{DIR/steps}` then `\attnvizstep[\columnwidth]{3}`."""
    files: dict[str, str] = {}
    for slide, drawn in _pictures(deck):
        heading = " ".join(slide.heading.split())
        files[f"{folder}/step-{slide.step}.tex"] = f"% attnviz step {slide.step}: {heading}\n{drawn}%\n"
    where = folder.rstrip("/") + "/"
    if not re.fullmatch(r"[A-Za-z0-9._/-]+", where):
        raise InputError("the folder's name goes into \\input: use letters, digits and . _ - / only", f"-o {folder}")
    macro = [*_header(deck),
             rf"\providecommand\attnvizdir{{{where}}}",
             r"\providecommand\attnvizstep[2][\linewidth]{\resizebox{#1}{!}{\input{\attnvizdir step-#2}}}",
             f"% steps: {', '.join(str(slide.step) for slide, _ in _pictures(deck))}"]
    files[f"{folder}/steps.tex"] = "\n".join(macro) + "\n"
    return files
