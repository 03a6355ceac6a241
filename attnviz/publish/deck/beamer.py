"""A deck as LaTeX: a Beamer file (one frame whose overlays build the figure up in place) or a file of
TikZ pictures to `\\input` into a paper. Both paint the deck's layouts with `backends.tikz`.

Formulas are the deck's own TeX. They are copied into the file only when they use the commands the
page's formulas may use and their braces balance, so a spec cannot make pdflatex read or write files
(`\\input`, `\\openout`) or break the frame; any other formula is typeset as text.
"""

from __future__ import annotations

import re

from ...render.tex_escape import escape, prose, typed_line
from ...words.user_text import user_spans
from ...render.tikz import colour_definitions, picture, tikz_items, tikz_styles
from ...numbers.exact import InputError
from ..mathml import check_tex

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from .model import Deck

__all__ = ["beamer_document", "tikz_document", "safe_formula", "built_up"]

_ESCAPE = re.compile(r"\\.", re.S)


def safe_formula(tex: str) -> str | None:
    r"""`tex` if pdflatex may read it: the commands and environments the page's formulas may use
    (`mathml.check_tex`), balanced braces, no unescaped `$ # %`, `&` only in a matrix; else None.

    >>> safe_formula(r"\frac{e^{1}}{e^{1}+e^{2}},\ S_{1,2}")
    '\\frac{e^{1}}{e^{1}+e^{2}},\\ S_{1,2}'
    >>> safe_formula(r"\input{/etc/passwd}"), safe_formula("x}{"), safe_formula("^^5cinput"), safe_formula("1 % }")
    (None, None, None, None)
    """
    try:
        check_tex(tex)
    except InputError:
        return None
    bare = _ESCAPE.sub("", tex)  # `\{`, `\%`, `\\` are escapes: what is left is the raw text
    if "^^" in tex or any(ch in bare for ch in "$#%") or ("&" in bare and r"\begin" not in tex):
        return None
    depth = 0
    for ch in bare:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            return None
    return tex if depth == 0 else None


def _formula(tex: str | None) -> str:
    """A formula that shrinks to fit the column when it is wider (a long softmax row)."""
    safe = tex and safe_formula(tex)
    if not tex:
        return ""
    if not safe:
        return rf"\texttt{{{escape(tex)}}}"
    return (r"\resizebox{\ifdim\width>\linewidth\linewidth\else\width\fi}{!}{$\displaystyle " + safe + "$}")


def _overlays(steps: Iterable[int]) -> str:
    """`1-3,5`: Beamer's overlay list for a set of 1-based step numbers."""
    runs: list[list[int]] = []
    for n in sorted(steps):
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def built_up(item_lists: Sequence[Sequence[str]]) -> list[str]:
    """One picture's commands for every step: items every step draws alike are drawn once; the
    others under `\\only<steps>`, so what does not change never moves. `item_lists`: each step's
    items (strings), position by position the same parts of the figure."""
    if len({len(items) for items in item_lists}) != 1:  # not one figure: each step drawn whole
        return [rf"\only<{n}>{{" + "\n".join(items) + "}" for n, items in enumerate(item_lists, 1)]
    commands: list[str] = []
    for versions in zip(*item_lists):
        if len(set(versions)) == 1:
            commands.append(versions[0])
            continue
        steps: dict[str, list[int]] = {}
        for n, version in enumerate(versions, 1):
            steps.setdefault(version, []).append(n)
        commands += [rf"\only<{_overlays(ns)}>{{" + version + "}" for version, ns in steps.items() if version]
    return commands


def beamer_document(deck: Deck) -> str:
    """The deck as a Beamer file (16:9): a title frame, then one frame whose overlays are the steps."""
    layouts = deck.layouts()
    width, height = layouts[0].width, layouts[0].height
    figure = picture(built_up([tikz_items(layout) for layout in layouts]), width, height)
    # Fit the figure in its column: by width if it is wider than the column's shape, else by height.
    size = r"{\linewidth}{!}" if width / height > 1.1 else r"{!}{0.84\textheight}"
    titles = "".join(rf"\only<{n}>{{{escape(slide.heading)}}}" for n, slide in enumerate(deck.slides, 1))
    texts: list[str] = []
    notes: list[str] = []
    for n, slide in enumerate(deck.slides, 1):
        # a user's text (a document's paragraph, a token label) is escaped; only attnviz's sentences are typeset
        body = r"\par\medskip ".join(typed_line(p, user_spans(p), prose) for p in slide.paragraphs)
        formula = _formula(slide.formula)
        texts.append(rf"\only<{n}>{{\footnotesize {body}" + (rf"\par\bigskip {formula}" if formula else "") + "}")
        notes.append(rf"\note<{n}>{{{escape(' '.join(slide.paragraphs))}}}")
    lines = [
        "% attnviz: a Beamer deck; compile with pdflatex. Colours are defined once, below: edit them to restyle.",
        r"\documentclass[aspectratio=169]{beamer}",
        r"\usepackage{amsmath, amssymb, bm}",  # every command a page's formula may use (mathml.TEX_COMMANDS)
        r"\usepackage{tikz}",
        r"\DeclareMathOperator*{\argmax}{arg\,max}",
        r"\DeclareMathOperator*{\argmin}{arg\,min}",
        r"\setbeamertemplate{navigation symbols}{}",
        colour_definitions(deck.theme).rstrip("\n"),
        tikz_styles().rstrip("\n"),
        rf"\title{{{escape(deck.title)}}}",
        rf"\subtitle{{{escape(deck.heading)}}}",
        r"\date{}",
        r"\begin{document}",
        r"\begin{frame}",
        r"\titlepage",
        r"\end{frame}",
        r"\begin{frame}",
        rf"\frametitle{{{titles}}}",
        r"\begin{columns}[T]",
        r"\begin{column}{0.52\textwidth}",
        r"\centering\resizebox" + size + "{%",
        figure + "}",
        r"\end{column}",
        r"\begin{column}{0.44\textwidth}",
        *texts,
        r"\end{column}",
        r"\end{columns}",
        *notes,
        r"\end{frame}",
        r"\end{document}",
    ]
    return "\n".join(lines) + "\n"


def tikz_document(deck: Deck) -> str:
    """The deck's figures as TikZ pictures, one per step, to `\\input` into a document that loads tikz
    and amsmath. Colours use `\\providecolor`: a colour the document defines first wins."""
    layouts = deck.layouts()
    header = [
        "% attnviz: TikZ figures. \\input this file into a document whose preamble loads tikz and amsmath;",
        "% scale a figure with \\resizebox{\\linewidth}{!}{\\input{this-file}}. Restyle: define a colour,",
        "% e.g. \\definecolor{attnviz-computed-fill}{HTML}{FDE68A}, before the \\input.",
        colour_definitions(deck.theme, "providecolor").rstrip("\n"),
        tikz_styles().rstrip("\n"),
    ]
    pictures = []
    for n, (slide, layout) in enumerate(zip(deck.slides, layouts), 1):
        heading = " ".join(slide.heading.split())
        pictures.append(f"% step {n}: {heading}\n" + picture(tikz_items(layout), layout.width, layout.height))
    separator = "%\n\\par\\medskip\\noindent\n"
    return "\n".join(header) + "\n" + separator.join(pictures) + "%\n"
