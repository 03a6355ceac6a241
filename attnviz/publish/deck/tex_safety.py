r"""What pdflatex can set of a formula that the page's check (`mathml.check_tex`) and latex2mathml let through:
MathML reads `\sqrt '`, `\bigr {`, `x^\sum`, `\text{a_b}` or `x\limits` as something; TeX stops at each. A Beamer
deck shows such a formula as text (`beamer.safe_formula`): every command's arguments are groups or single
letters, a size command or `\left` has a delimiter after it, `\limits` follows an operator, `\text{...}` holds
text, and a script is a group, a letter or digit, or a Greek letter.
"""

from __future__ import annotations

import re

from ..mathml import group_end

__all__ = ["tex_sets", "text_signs"]

#: Commands and the arguments they read (`sqrt` and the arrows first take an optional `[...]`).
_ARGUMENTS = {**dict.fromkeys("frac dfrac tfrac cfrac binom dbinom tbinom overset underset stackrel".split(), 2),
              **dict.fromkeys("sqrt operatorname text textrm textit textbf mathrm mathit mathbf mathsf mathtt "
                              "mathcal mathbb mathfrak boldsymbol bm hat bar tilde vec dot ddot breve check acute "
                              "grave widehat widetilde overline underline overbrace underbrace substack xrightarrow "
                              "xleftarrow xmapsto pmod mod".split(), 1)}
_OPTIONAL = frozenset(["sqrt", "xrightarrow", "xleftarrow", "xmapsto"])
_SIZES = frozenset("left right middle big Big bigg Bigg bigl bigr Bigl Bigr".split())
_DELIMITER = re.compile(r"\s*(?:[()\[\]./|<>]|\\[{}|]|\\(?:langle|rangle|lfloor|rfloor|lceil|rceil|vert|Vert|lvert|"
                        r"rvert|lVert|rVert|uparrow|downarrow|backslash)(?![A-Za-z]))")
#: An operator right before `\limits` (TeX stops at any other atom there).
_OPERATOR = re.compile(r"\\(?:sum|prod|coprod|int|iint|oint|lim|liminf|limsup|max|min|sup|inf|argmax|argmin|det|gcd|Pr)"
                       r"\s*$")
#: One token that may stand alone as an argument or a script: a letter, a digit, a Greek letter or a few symbols.
_SINGLE = re.compile(r"\s*(?:[A-Za-z0-9]|\\(?:(?i:[a-z]*)(?:alpha|beta|gamma|delta|epsilon|zeta|eta|theta|iota|kappa|"
                     r"lambda|mu|nu|xi|pi|rho|sigma|tau|upsilon|phi|chi|psi|omega|Gamma|Delta|Theta|Lambda|Xi|Pi|Sigma|Upsilon|Phi|Psi|"
                     r"Omega|ell|hbar|infty|partial|nabla|"
                     r"prime|aleph)|Re|Im)(?![A-Za-z]))")
_LETTER = re.compile(r"\s*[A-Za-z0-9]")
_GROUP = re.compile(r"\s*\{")
_TOKEN = re.compile(r"\\([A-Za-z]+)|\\.|[\^_]", re.S)
_SCRIPT = re.compile(r"\s*([\^_])")
_PRIME = re.compile(r"\s*'")
#: After a line break `\\`, a space of at most 99 pt, em, ex or mm, or none: `\\[x]` stopped TeX.
_BREAK = re.compile(r"(?!\s*\*?\s*\[)|\s*\*?\s*\[\s*-?\d{1,2}(?:\.\d+)?\s*(?:pt|em|ex|mm)\s*\]")
_TEXT = re.compile(r"\\text(?:rm|it|bf)?\s*\{")
#: What `\text{...}` may hold in TeX's text mode: characters but `_` and `^`, escapes, spaces, dots and text.
_TEXT_ONLY = re.compile(r"(?:[^\\_^]|\\[_{}%&#$,;:! ]|\\(?:quad|qquad|space|ldots|dots|text|textrm|textit|textbf)"
                        r"(?![A-Za-z]))*")
_SIGN = re.compile(r"\\.|[<>|]", re.S)


def tex_sets(tex: str) -> bool:
    r"""Whether pdflatex sets `tex` (already past `mathml.check_tex`) in math mode without stopping.

    >>> tex_sets(r"\frac12 + \hat\alpha^{2} \sum\limits_{i} x_i \left< a \middle| b \right>")
    True
    >>> [tex_sets(t) for t in (r"\sqrt '", r"\bigr {x}", r"x^\sum", r"x\limits", r"\text{a_b}", r"\frac ^ 2")]
    [False, False, False, False, False, False]
    """
    if not all(_TEXT_ONLY.fullmatch(tex[start:stop]) for start, stop in _texts(tex)):
        return False
    for match in _TOKEN.finditer(tex):
        name, at = match[1], match.end()
        if name in _ARGUMENTS and not _arguments(tex, at, name, _LETTER if name.startswith("text") else _SINGLE):
            return False
        if name in _SIZES and not _DELIMITER.match(tex, at) or match[0] in "^_" and not _scripts(tex, match.start()):
            return False
        limits = name in ("limits", "nolimits") and not _OPERATOR.search(tex, 0, match.start())
        if limits or match[0] == "\\\\" and not _BREAK.match(tex, at):
            return False
    return True


def _scripts(tex: str, at: int) -> bool:
    """Whether the scripts from `at` (`^{a}_{b}`) each have an argument, at most one of each kind, and no prime
    after a superscript (`x^{a}_{b}'`: TeX's double superscript)."""
    kinds = ""
    while script := _SCRIPT.match(tex, at):
        end = _argument(tex, script.end())
        if end is None or script[1] in kinds:
            return False
        kinds, at = kinds + script[1], end
    return not ("^" in kinds and _PRIME.match(tex, at))


def _arguments(tex: str, at: int, name: str, single: re.Pattern[str]) -> bool:
    """Whether `name`'s arguments follow `at`: each a group or one `single` token (`\\frac12`, `\\hat\\alpha`;
    `\\text a`, never `\\text\\alpha`: text mode)."""
    if name in _OPTIONAL and (optional := re.compile(r"\s*\[[^\[\]{}]*\]").match(tex, at)):
        at = optional.end()
    for _ in range(_ARGUMENTS[name]):
        end = _argument(tex, at, single)
        if end is None:
            return False
        at = end
    return True


def _argument(tex: str, at: int, single: re.Pattern[str] | None = None) -> int | None:
    """Where one argument (or script) from `at` ends, or None if what follows is not one."""
    if group := _GROUP.match(tex, at):
        end = group_end(tex, group.end() - 1)
        return None if end is None else end + 1
    token = (single or _SINGLE).match(tex, at)
    return token.end() if token else None


def _texts(tex: str) -> list[tuple[int, int]]:
    """Where the outermost `\\text{...}` groups' contents start and stop (pdflatex sets them in text mode)."""
    out: list[tuple[int, int]] = []
    at = 0
    for match in _TEXT.finditer(tex):
        if match.start() >= at:  # not a \text inside one already read
            at = group_end(tex, match.end() - 1) or len(tex)  # (the formula's braces balance: checked first)
            out.append((match.end(), at))
    return out


def text_signs(tex: str) -> str:
    r"""`<`, `>` and `|` in a formula's `\text{...}` as math's signs: OT1's text font has ¡ ¿ and — at their
    places (`\text{<b>}` read ¡b¿).

    >>> text_signs(r"a<b \text{<b>|\}} |x|")
    'a<b \\text{\\ensuremath{<}b\\ensuremath{>}\\ensuremath{|}\\}} |x|'
    """
    out: list[str] = []
    at = 0
    for start, stop in _texts(tex):
        out += [tex[at:start], _SIGN.sub(lambda sign: sign[0] if len(sign[0]) > 1 else rf"\ensuremath{{{sign[0]}}}",
                                         tex[start:stop])]
        at = stop
    return "".join(out) + tex[at:]
