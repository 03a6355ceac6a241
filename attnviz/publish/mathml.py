"""TeX formulas as MathML, at build time: the page needs no JavaScript, no fonts from a CDN, no network.

The MathML keeps its TeX source as an `application/x-tex` annotation (copyable, and read by
assistive tools). latex2mathml parses; we serialise with ElementTree, which escapes text once
(latex2mathml's own string output does not escape `\\text{<b>}`), and we drop attributes that
could reach outside the page (`\\href`, `\\style`).

A formula may use only the TeX commands an explainer needs (`TEX_COMMANDS`, listed in docs/pages-and-walkthroughs.rst):
no macros (`\\def`, `\\newcommand`: a few lines of them expanded to 17.8 MB), no sizes (`\\rule{300em}`,
`\\hspace`), no classes, colours, styles or links. Its TeX and its MathML are bounded.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from ..numbers.exact import InputError

__all__ = ["tex_to_mathml", "check_tex", "TEX_COMMANDS", "TEX_SYMBOLS", "TEX_ENVIRONMENTS", "MAX_TEX", "MAX_MATHML",
           "MAX_ARRAY_COLUMNS", "MAX_NESTING", "group_end"]

# Attributes latex2mathml can emit that point elsewhere or carry CSS (which can load URLs).
_DROPPED = {"href", "style", "src", "xlink:href"}
# latex2mathml stores symbols as character references in the text ("&#x0002C;"), meant to be
# written unescaped; we read them back into characters so that everything else can be escaped.
# Its tables write most as five hex digits, a few as four (`\\xrightarrow`'s "&#x2192;"). Text typed in
# `\\text{...}` comes through as typed, so there only its own five-digit form (a space, "&#x000A0;") is read.
_CHAR_REF = re.compile(r"&#x([0-9A-Fa-f]{4,6});")
_TEXT_CHAR_REF = re.compile(r"&#x([0-9A-Fa-f]{5});")

MAX_TEX = 4_000  # characters of one formula's TeX
MAX_MATHML = 100_000  # characters of one formula's MathML (about 25 times its TeX at the very most)
#: Every command a formula may use: structure, fonts, spacing, symbols. Anything else is refused by name.
TEX_COMMANDS = frozenset("""
    frac dfrac tfrac cfrac binom dbinom tbinom sqrt left right middle big Big bigg Bigg bigl bigr Bigl Bigr
    operatorname text textrm textit textbf mathrm mathit mathbf mathsf mathtt mathcal mathbb mathfrak boldsymbol bm
    displaystyle textstyle hat bar tilde vec dot ddot breve check acute grave widehat widetilde overline underline
    overbrace underbrace overset underset stackrel substack begin end limits nolimits not
    sum prod coprod int iint oint lim liminf limsup max min sup inf arg argmax argmin exp log ln lg sin cos tan
    sinh cosh tanh det dim ker deg gcd Pr bmod pmod mod
    quad qquad space
    le leq ge geq ne neq lt gt approx sim simeq equiv cong propto ll gg in notin ni subset subseteq supset supseteq
    mid parallel perp to gets rightarrow leftarrow leftrightarrow Rightarrow Leftarrow Leftrightarrow mapsto
    implies iff longrightarrow longleftarrow longmapsto uparrow downarrow xrightarrow xleftarrow xmapsto
    cdot times div pm mp ast star circ bullet oplus ominus otimes odot cap cup wedge vee land lor setminus
    nabla partial infty forall exists nexists neg lnot emptyset varnothing top bot intercal prime
    ldots cdots vdots ddots dots colon langle rangle lfloor rfloor lceil rceil lvert rvert lVert rVert vert Vert
    backslash
    alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi pi varpi rho
    varrho sigma varsigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi
    Psi Omega ell hbar Re Im aleph
""".split())
#: After a backslash, these characters: escapes (`\{`, `\_`), spacing (`\,`, `\ `) and the line break `\\`.
TEX_SYMBOLS = frozenset("{}_%&#$|,;:! \\")
#: The environments a formula may use (`\begin{NAME}`): matrices, cases and alignments.
TEX_ENVIRONMENTS = frozenset("matrix pmatrix bmatrix Bmatrix vmatrix Vmatrix smallmatrix cases aligned "
                             "gathered array".split())
#: The columns a row of each environment may have (a Beamer deck sets amsmath's `MaxMatrixCols` to the array's
#: limit, `MAX_ARRAY_COLUMNS`); 0: any number.
_COLUMNS = {"matrix": 64, "pmatrix": 64, "bmatrix": 64, "Bmatrix": 64, "vmatrix": 64, "Vmatrix": 64, "smallmatrix": 0,
            "cases": 2, "aligned": 0, "gathered": 1}
MAX_ARRAY_COLUMNS = 64  # an array's columns, its `*{n}{...}` repetitions multiplied out (TeX expands them all)
_COMMAND = re.compile(r"\\([A-Za-z]+|.?)", re.S)
#: What the structure check reads: \begin and \end, the line break, other commands and escapes, braces, tabs.
_STRUCTURE = re.compile(r"\\(begin|end)(?![A-Za-z])|\\\\|\\[A-Za-z]+|\\.|[{}&]", re.S)
_NAME = re.compile(r"\s*\{([A-Za-z]+)\}")
_POSITION = re.compile(r"\s*\[[tcb]\]")  # an array's, aligned's or gathered's optional [t], [c] or [b]
_CLOSES = {"}": "{", "\\right": "\\left"}  # what each closes
MAX_NESTING = 32  # braces, \left and environments inside one another (TeX stops at 255 groups; \sqrt takes several)
_BRACE = re.compile(r"\\.|[{}]", re.S)
_REPEAT = re.compile(r"\*\s*\{\s*(\d+)\s*\}\s*\{")


def tex_to_mathml(tex: str, where: str | None = None) -> str:
    """A TeX formula as a block <math>, its TeX kept as an annotation; `where` names it in errors.

    >>> tex_to_mathml("x^2")  # doctest: +ELLIPSIS
    '<math ... display="block"><semantics><mrow>...</mrow><annotation encoding="application/x-tex">x^2</annotation>...'
    """
    # an optional dependency, loaded only when a formula is typeset
    from latex2mathml.converter import convert_to_element

    check_tex(tex, where)
    try:
        math = convert_to_element(tex, display="block")
    except Exception as err:  # noqa: BLE001 - latex2mathml's errors share no base class
        raise InputError(f"cannot read this TeX formula: {_reason(err)}", where) from None
    presentation = list(math)
    for child in presentation:
        math.remove(child)
    if len(presentation) == 1:
        content = presentation[0]
    else:
        content = ET.Element("mrow")
        content.extend(presentation)
    semantics = ET.SubElement(math, "semantics")
    semantics.append(content)
    annotation = ET.SubElement(semantics, "annotation", encoding="application/x-tex")
    annotation.text = tex
    for element in math.iter():
        if element is not annotation:
            refs = _TEXT_CHAR_REF if element.tag == "mtext" else _CHAR_REF
            element.text = element.text and refs.sub(_char, element.text)
        for name in [n for n in element.attrib if n in _DROPPED or n.lower().startswith("on")]:
            del element.attrib[name]
    mathml = ET.tostring(math, encoding="unicode")
    if len(mathml) > MAX_MATHML:
        raise InputError(f"this formula typesets to {len(mathml):,} characters of MathML, past the limit of "
                         f"{MAX_MATHML:,} per formula; write a shorter formula, or split it", where)
    return mathml


def check_tex(tex: str, where: str | None = None, cells: bool = False) -> None:
    """Refuse a formula that is too long, uses a command outside `TEX_COMMANDS`, leaves a brace or environment
    open or closes one it did not open, or has an array wider than `MAX_ARRAY_COLUMNS`, before it is typeset.
    `cells`: also `&` and `\\\\` only where TeX takes them (a row no wider than its environment), for pdflatex;
    MathML reads `\\text{&}` as typed.

    >>> check_tex(r"\\frac{1}{2} \\to x")
    >>> check_tex(r"\\rule{300em}{300em}")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    attnviz.errors.InputError: \\rule is not a command formulas may use (no macros, ...)
    """
    if len(tex) > MAX_TEX:
        raise InputError(f"a formula of {len(tex):,} characters; the limit is {MAX_TEX:,}", where)
    if "^^" in tex:  # TeX reads ^^5c as a backslash: a command no allow-list would see
        raise InputError("^^ is not allowed in a formula (TeX reads ^^5c as a backslash); write x^{2}, not x^^2", where)
    if re.search(r"(?<!\\)%", tex):  # a comment would swallow the rest of the line it is written on
        raise InputError("% starts a TeX comment; write \\% for a percent sign", where)
    for match in _COMMAND.finditer(tex):
        name = match[1]
        if name not in TEX_COMMANDS and name not in TEX_SYMBOLS:
            shown = "a lone \\ at the end" if not name else f"\\{name}"
            raise InputError(f"{shown} is not a command formulas may use (no macros, sizes, colours, classes or "
                             "links; docs/pages-and-walkthroughs.rst lists the commands)", where)
    _check_structure(tex, where, cells)


def _check_structure(tex: str, where: str | None, cells: bool) -> None:
    """Environments named in braces and closed in order inside the group they open in; an array's columns
    bounded (`_array`); with `cells`, `&` and `\\\\` only directly inside an environment, a row no wider than it.
    TeX stops at any of these (`\\end{{frame}}` closes no environment a formula opened: it ends the slide)."""
    stack: list[list[str | int]] = []  # [environment, "{" or "\\left", its columns (0: any), the row's so far]
    at = 0
    while match := _STRUCTURE.search(tex, at):
        at, token = match.end(), match[0]
        if match[1]:
            at = _environment(tex, at, match[1], stack, where)
        elif token in ("{", "\\left"):
            stack.append([token, 0, 1])
        elif token in _CLOSES:
            if not stack or stack[-1][0] != _CLOSES[token]:
                raise InputError(_unclosed(stack[-1][0]) if stack else f"a {token} closes no {_CLOSES[token]}", where)
            stack.pop()
        elif token in ("&", "\\\\") and cells:
            _cell(token, stack, where)
        if len(stack) > MAX_NESTING:
            raise InputError(f"a formula nested more than {MAX_NESTING} deep (braces, \\left, environments); "
                             "TeX stops at 255 groups", where)
    if stack:
        raise InputError(_unclosed(stack[-1][0]), where)


def _unclosed(name: object) -> str:
    return {"{": "a { is never closed", "\\left": "a \\left has no \\right"}.get(
        str(name), f"\\begin{{{name}}} is never closed")


def _environment(tex: str, at: int, verb: str, stack: list[list[str | int]], where: str | None) -> int:
    """Reads `\\begin{NAME}` (and an array's preamble) or `\\end{NAME}` from `at`; returns where it ends."""
    named = _NAME.match(tex, at)
    if not named:
        raise InputError(f"\\{verb} takes an environment's name in braces, as \\{verb}{{matrix}}", where)
    name, at = named[1], named.end()
    if name not in TEX_ENVIRONMENTS:
        raise InputError(f"the environment {name!r} is not one formulas may use; use "
                         f"{', '.join(sorted(TEX_ENVIRONMENTS))}", where)
    if verb == "end":
        if not stack or stack[-1][0] != name:
            raise InputError(f"\\end{{{name}}} closes no \\begin{{{name}}}", where)
        stack.pop()
        return at
    position = _POSITION.match(tex, at) if name in ("array", "aligned", "gathered") else None
    at = position.end() if position else at
    columns = _COLUMNS.get(name, 0)
    if name == "array":
        columns, at = _array(tex, at, where)
    stack.append([name, columns, 1])
    return at


def _cell(token: str, stack: list[list[str | int]], where: str | None) -> None:
    """A column separator `&` or a line break `\\\\` in the innermost environment."""
    if not stack or stack[-1][0] == "{":
        raise InputError("& separates columns only directly inside an environment (write \\& for an ampersand)"
                         if token == "&" else "\\\\ breaks lines only directly inside an environment", where)
    top = stack[-1]
    top[2] = int(top[2]) + 1 if token == "&" else 1
    if top[1] and int(top[2]) > int(top[1]):
        raise InputError(f"a row of {top[2]} columns in \\begin{{{top[0]}}}, which has {top[1]}", where)


def _array(tex: str, at: int, where: str | None) -> tuple[int, int]:
    """An array's preamble from `at`: (its columns, where it ends). Column letters only (no @{...}, p{width}
    or >{...} code), repeated with `*{n}{...}`; at most `MAX_ARRAY_COLUMNS` once every repetition is multiplied."""
    start = re.compile(r"\s*\{").match(tex, at)
    end = group_end(tex, start.end() - 1) if start else None
    preamble = tex[start.end():end] if start and end else tex[at:at + 20]
    columns = _columns(preamble, 0) if start and end else None
    if not columns:
        raise InputError(f"an array's columns may be l, c, r and |, repeated as *{{n}}{{...}}; not {preamble!r}", where)
    if columns > MAX_ARRAY_COLUMNS:
        raise InputError(f"an array of {columns:,} columns; the limit is {MAX_ARRAY_COLUMNS}", where)
    assert end is not None  # `columns` is a number only when the preamble's group closes
    return columns, end + 1


def _columns(preamble: str, depth: int) -> int | None:
    """The columns `preamble` makes, or None if it is not column letters, bars and repetitions (at most 4 deep)."""
    count, at = 0, 0
    while at < len(preamble):
        repeat = _REPEAT.match(preamble, at)
        if preamble[at] in "lcr| ":
            count, at = count + (preamble[at] in "lcr"), at + 1
            continue
        end = group_end(preamble, repeat.end() - 1) if repeat and depth < 4 else None
        inner = _columns(preamble[repeat.end():end], depth + 1) if repeat and end else None
        if not repeat or not inner or not int(repeat[1]):
            return None
        count, at = count + int(repeat[1]) * inner, (end or 0) + 1
    return count or None


def group_end(text: str, opening: int) -> int | None:
    r"""The index of the } that closes the { at `opening` (`\{` and `\}` are escapes), or None.

    >>> group_end(r"{a\}{b}}c", 0)
    7
    """
    depth = 0
    for match in _BRACE.finditer(text, opening):
        depth += {"{": 1, "}": -1}.get(match[0], 0)
        if not depth:
            return match.start()
    return None


def _char(match: re.Match[str]) -> str:
    code = int(match[1], 16)
    return chr(code) if code <= 0x10FFFF else match[0]


def _reason(err: Exception) -> str:
    """latex2mathml's `MissingSuperScriptOrSubscriptError()` -> "missing superscript or subscript"."""
    name = re.sub(r"(?<!^)(?=[A-Z])", " ", type(err).__name__).lower().removesuffix(" error")
    return f"{name} ({err})" if str(err) else name
