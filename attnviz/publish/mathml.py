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

__all__ = ["tex_to_mathml", "check_tex", "TEX_COMMANDS", "TEX_SYMBOLS", "TEX_ENVIRONMENTS", "MAX_TEX", "MAX_MATHML"]

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
_ARRAY_PREAMBLE = re.compile(r"\\begin\s*\{\s*array\s*\}\s*\{([^{}]*(?:\{[^{}]*\}[^{}]*)*)\}")
_COMMAND = re.compile(r"\\([A-Za-z]+|.?)", re.S)
_ENVIRONMENT = re.compile(r"\\(?:begin|end)\s*\{([^{}]*)\}")


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


def check_tex(tex: str, where: str | None = None) -> None:
    """Refuse a formula that is too long or uses a command outside `TEX_COMMANDS`, before it is typeset.

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
    for match in _ARRAY_PREAMBLE.finditer(tex):  # only column letters: no @{...}, p{width} or >{...} code
        if not re.fullmatch(r"[lcr|]+", match[1].replace(" ", "")):
            raise InputError(f"an array's columns may be l, c, r and |, not {match[1]!r}", where)
    for match in _COMMAND.finditer(tex):
        name = match[1]
        if name not in TEX_COMMANDS and name not in TEX_SYMBOLS:
            shown = "a lone \\ at the end" if not name else f"\\{name}"
            raise InputError(f"{shown} is not a command formulas may use (no macros, sizes, colours, classes or "
                             "links; docs/pages-and-walkthroughs.rst lists the commands)", where)
    for match in _ENVIRONMENT.finditer(tex):
        if match[1].strip() not in TEX_ENVIRONMENTS:
            raise InputError(f"the environment {match[1].strip()!r} is not one formulas may use; use "
                             f"{', '.join(sorted(TEX_ENVIRONMENTS))}", where)


def _char(match: re.Match[str]) -> str:
    code = int(match[1], 16)
    return chr(code) if code <= 0x10FFFF else match[0]


def _reason(err: Exception) -> str:
    """latex2mathml's `MissingSuperScriptOrSubscriptError()` -> "missing superscript or subscript"."""
    name = re.sub(r"(?<!^)(?=[A-Z])", " ", type(err).__name__).lower().removesuffix(" error")
    return f"{name} ({err})" if str(err) else name
