"""The figure's text as LaTeX: the one place attnviz escapes for TeX.

`escape` makes any text safe in LaTeX's text mode (pdflatex, the default OT1 encoding, nothing
but tikz and amsmath loaded). `math` reads attnviz's own value notation (`-1/2`, `3√2/2`,
`e^1/(e^1+e^1+e^2)`, `O3 = w31·V1 = (2/3,1)`) and writes it as TeX math, or returns None when
the text is not in that notation; `value_line` types a figure line's values as math and the
rest as text.
"""

from __future__ import annotations

import re
import unicodedata

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from typing import NoReturn

__all__ = ["escape", "joined", "math", "value_line", "prose", "typed_line", "word_math"]

_SPECIAL = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "#": r"\#", "%": r"\%",
            "_": r"\_", "^": r"\textasciicircum{}", "~": r"\textasciitilde{}", "<": r"\textless{}",
            ">": r"\textgreater{}", "|": r"\textbar{}", '"': r"{\ttfamily\char34}", "-": "-{}",
            "\n": r"\ ", "\t": r"\ ", "\r": r"\ "}
# Only glyphs of OT1, OML and OMS, which TeX Live has as Type 1 fonts: TS1 (textcomp) would be
# bitmap fonts made by METAFONT at compile time.
_SYMBOLS = {"·": r"$\cdot$", "√": r"$\surd$", "≈": r"$\approx$", "≤": r"$\leq$", "≥": r"$\geq$",
            "×": r"$\times$", "−": r"$-$", "→": r"$\rightarrow$", "∞": r"$\infty$", "ℓ": r"$\ell$",
            "∈": r"$\in$", "≠": r"$\neq$", "°": r"$^\circ$", "…": r"\dots{}", "“": "``", "”": "''",
            "‘": "`", "’": "'", "–": "--", "—": "---", "\u00a0": "~", "ß": r"\ss{}", "ø": r"\o{}", "Ø": r"\O{}",
            "æ": r"\ae{}", "Æ": r"\AE{}", "œ": r"\oe{}", "Œ": r"\OE{}", "å": r"\aa{}", "Å": r"\AA{}",
            "ł": r"\l{}", "Ł": r"\L{}", "ı": r"\i{}", "¡": r"\textexclamdown{}", "¿": r"\textquestiondown{}",
            "©": r"\copyright{}", "§": r"\S{}", "¶": r"\P{}", "£": r"\pounds{}",
            "⌊": r"$\lfloor$", "⌋": r"$\rfloor$", "⌈": r"$\lceil$", "⌉": r"$\rceil$",
            "▁": r"\rule[-0.15ex]{0.5em}{0.08em}"}  # SentencePiece's word mark: a low bar
# Accents LaTeX's OT1 encoding builds from a base letter: é is \'{e}.
_ACCENTS = {"\u0301": "'", "\u0300": "`", "\u0302": "^", "\u0308": '"', "\u0303": "~", "\u0327": "c",
            "\u030a": "r", "\u030c": "v", "\u0306": "u", "\u0304": "=", "\u0307": ".", "\u030b": "H"}
_GREEK = {chr(0x3b1 + n): name for n, name in enumerate(
    ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu", "nu",
     "xi", "o", "pi", "rho", "varsigma", "sigma", "tau", "upsilon", "phi", "chi", "psi", "omega"])}
_GREEK.update({"Γ": "Gamma", "Δ": "Delta", "Θ": "Theta", "Λ": "Lambda", "Ξ": "Xi", "Π": "Pi", "Φ": "Phi",
               "Ψ": "Psi", "Ω": "Omega", "Σ": "Sigma"})


#: TeX's ligatures of two characters (OT1's, and T1's `,,`): text typed side by side is kept apart by `{}`.
_LIGATURES = frozenset(["?`", "!`", "``", "''", ",,", "--"])
#: A user's quotes as typed: straight, in typewriter type (OT1 roman has only curly ones).
_STRAIGHT = {"'": r"{\ttfamily\char13}", "`": r"{\ttfamily\char18}"}


def escape(text: str, straight: bool = False) -> str:
    r"""`text` for LaTeX's text mode, every character kept or named, no two side by side read as one of TeX's
    ligatures (`?`` is not ¿, `''` not ”); `straight`: a user's text, its quote and backquote typed as
    straight quotes (`it's` as typed), as a double quote always is.

    A character pdflatex has no glyph for (CJK, emoji) is written as its code point,
    `[U+732B]`, in typewriter type, so nothing is lost silently.

    >>> escape("a_b & 50% <s> 1-2")
    'a\\_b \\& 50\\% \\textless{}s\\textgreater{} 1-{}2'
    >>> escape("café Δ猫"), escape("?` ''")
    ("caf\\'{e} $\\Delta$\\texttt{[U+732B]}", "?{}` '{}'")
    """
    return joined(_STRAIGHT[ch] if straight and ch in _STRAIGHT else _character(ch) for ch in text)


def joined(pieces: Iterable[str]) -> str:
    """TeX written piece by piece, `{}` between two pieces whose meeting characters TeX would join.

    >>> joined(["Q(?", "`)", ",", ",", ""])
    'Q(?{}`),{},'
    """
    out: list[str] = []
    for piece in pieces:
        if out and piece and out[-1][-1] + piece[0] in _LIGATURES:
            out.append("{}")
        if piece:
            out.append(piece)
    return "".join(out)


def _character(ch: str) -> str:
    if ch in _SPECIAL:
        return _SPECIAL[ch]
    if " " <= ch <= "~":
        return ch
    if ch in _SYMBOLS:
        return _SYMBOLS[ch]
    if ch in _GREEK and ch != "ο":
        return rf"$\{_GREEK[ch]}$"
    return _accented(ch) or rf"\texttt{{[U+{ord(ch):04X}]}}"


def _accented(ch: str) -> str | None:
    decomposed = unicodedata.normalize("NFD", ch)
    base, marks = decomposed[0], decomposed[1:]
    if len(marks) != 1 or not ("a" <= base.lower() <= "z") or marks[0] not in _ACCENTS:
        return None
    if base == "i":
        base = r"\i"
    return rf"\{_ACCENTS[marks[0]]}{{{base}}}"


# --- Values as math -------------------------------------------------------------------------------

# A subscript in braces holds letters, digits and commas (S_{1,2}): never a backslash, brace or `^^`,
# so nothing read as notation can reach TeX as a command, even if user text were mistaken for notation.
# A subscript without braces is digits or small letters (an index, `S_ij`, `ℓ_1`), so the factor written next
# to it is a name of its own (`ℓ_1O_1` is ℓ₁·O₁); ℓ is one name (`ℓO` is ℓ·O).
_TOKEN = re.compile(r"\d+(?:\.\d+)?|(?:ℓ|[A-Za-z]+)(?:_\{[A-Za-z0-9,]*\}|_[0-9]+|_[a-z]+|\d+)?"
                    r"|[-−+·/^()\[\],=≈√∞]|\s+")


def math(text: str, inline: bool = False) -> str | None:
    r"""`text` in attnviz's value notation as TeX math (without the dollars), or None if it is not.
    `inline`: fractions stay on the line (`a/(b+c)`), for lines set close together.

    >>> math("-1/2+3√2/2")
    '-\\frac{1}{2}+\\frac{3\\sqrt{2}}{2}'
    >>> math("e^1/(e^1+e^1+e^2)")
    '\\frac{e^{1}}{e^{1}+e^{1}+e^{2}}'
    >>> math("O3 = w31·V1 = (2/3,1)")
    'O_{3} = w_{31} \\cdot V_{1} = \\left(\\frac{2}{3}, 1\\right)'
    >>> math("e^(-1/2)"), math("Q(<s>)=(1,0)")
    ('e^{-1/2}', None)
    """
    tokens: list[str] = []
    position = 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if not match:
            return None
        if not match[0].isspace():
            tokens.append(match[0])
        position = match.end()
    if not tokens:
        return None
    parser = _Parser(tokens)
    try:
        tex = parser.relation(inline)
    except _NotMath:
        return None
    return tex if parser.done() else None


class _NotMath(Exception):
    pass


class _Parser:
    """relation := sum (('=' | '≈') sum)*; sum := ['-'|'≈'] product (('+'|'-') product)*;
    product := power+ ('·' power+ | '/' power)*; power := atom ['^' atom]; atom := number | name |
    '√' number | '(' list ')' | '[' list ']'."""

    def __init__(self, tokens: list[str]) -> None:
        self.tokens, self.n = tokens, 0

    def peek(self) -> str | None:
        return self.tokens[self.n] if self.n < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            raise _NotMath
        self.n += 1
        return token

    def done(self) -> bool:
        return self.n == len(self.tokens)

    def relation(self, inline: bool = False) -> str:
        out = self.sum(inline)
        while self.peek() in ("=", "≈"):
            out += {"=": " = ", "≈": r" \approx "}[self.take()] + self.sum(inline)
        return out

    def sum(self, inline: bool) -> str:
        out = ""
        if self.peek() in ("-", "−", "≈"):
            out = {"-": "-", "−": "-", "≈": r"\approx "}[self.take()]
        out += self.product(inline)
        while self.peek() in ("+", "-", "−"):
            out += {"−": "-"}.get(self.take(), self.tokens[self.n - 1]) + self.product(inline)
        return out

    def product(self, inline: bool) -> str:
        out = self.juxtaposed(inline)
        while self.peek() in ("·", "/"):
            if self.take() == "·":
                out += r" \cdot " + self.juxtaposed(inline)
                continue
            denominator = self.power(inline, bare=not inline)
            out = f"{out}/{denominator}" if inline else rf"\frac{{{out}}}{{{denominator}}}"
        return out

    def juxtaposed(self, inline: bool) -> str:
        """`3√2`, `2e^1`: factors written side by side."""
        out = self.power(inline)
        while (token := self.peek()) is not None and (token[0].isalnum() or token in ("√", "(")):
            factor = self.power(inline)
            out += ("{}" if out[-1].isalpha() and factor[0].isalpha() else "") + factor  # `\ell{}O`, not `\ellO`
        return out

    def power(self, inline: bool, bare: bool = False) -> str:
        base = self.atom(inline, bare)
        if self.peek() == "^":
            self.take()
            exponent = self.atom(True, bare=True)
            return f"{base}^{{{exponent}}}"
        return base

    def atom(self, inline: bool, bare: bool = False) -> str:
        """`bare`: a parenthesised group loses its parentheses (a denominator, an exponent)."""
        token = self.take()
        if token[0].isdigit():
            return token
        if token == "∞":
            return r"\infty"
        if token == "√":
            return rf"\sqrt{{{self.take() if (after := self.peek()) and after.isdigit() else self._fail()}}}"
        if token[0].isalpha():
            return _name(token)
        if token in ("(", "["):
            close = ")" if token == "(" else "]"
            items = [self.relation(inline)]
            while self.peek() == ",":
                self.take()
                items.append(self.relation(inline))
            self.take(close)
            if bare and len(items) == 1 and token == "(":
                return items[0]
            left, right = (r"\left(", r"\right)") if token == "(" and not inline else (token, close)
            return left + ", ".join(items) + right
        raise _NotMath

    def _fail(self) -> NoReturn:
        raise _NotMath


def _name(token: str) -> str:
    """`w31` -> `w_{31}`, `S_ij` -> `S_{ij}`, `Z_{2}` as is, `e` as is."""
    match = re.fullmatch(r"([A-Za-zℓ]+)(?:_\{([A-Za-z0-9,]*)\}|_([A-Za-z0-9]+)|(\d+))?", token)
    assert match is not None  # a name token of `_TOKEN`, which has this form
    letters, subscript = match[1], match[2] or match[3] or match[4]
    if len(letters) == 2 and letters[0].isupper() and letters[1] in "ijkt" and not subscript:
        letters, subscript = letters[0], letters[1]  # `Qi·Kj`: Q_i, K_j
    if len(letters) > 1:  # the notation names things with one letter: `weights 1` is words and a value
        raise _NotMath
    letters = r"\ell" if letters == "ℓ" else letters
    return f"{letters}_{{{subscript}}}" if subscript else letters


# --- Figure lines ---------------------------------------------------------------------------------

_PREFIX = re.compile(r"(weights |row [^:]*: (?:scores|logits) |[^=]{0,40}?: )")


def value_line(line: str, inline: bool = False) -> str:
    r"""One drawn line of values: each `, ` or `; ` separated piece typed as math when it is in the
    value notation, as text otherwise; a leading label (`weights `, `row 2: scores `) stays text.

    >>> value_line("weights e^0/(e^0+e^1), e^1/(e^0+e^1)")
    'weights $\\frac{e^{0}}{e^{0}+e^{1}}$, $\\frac{e^{1}}{e^{0}+e^{1}}$'
    >>> value_line("row 2: scores [0,1]")
    'row 2: scores $[0, 1]$'
    """
    prefix = ""
    match = _PREFIX.match(line)
    if match and math(line, inline) is None:
        prefix, line = match[0], line[match.end():]
    out: list[str] = []
    for piece in re.split(r"(, |; )", line):
        if piece in (", ", "; "):
            out.append(escape(piece))
            continue
        core = piece.rstrip(" ,;")  # a wrapped line ends in the separator the next line follows
        tex = math(core, inline) if core else None
        out.append((f"${tex}$" if tex is not None else escape(core)) + escape(piece[len(core):]))
    return escape(prefix) + "".join(out)


_MATHY = re.compile(r"[\d_^·/√=+∞ℓ]")


def prose(text: str) -> str:
    r"""A sentence: words as text, each word in the value notation (`S_{1,1}`, `Q1·K1`, `1/2`) as math.

    >>> prose("dot product: S_{1,1} = Q1·K1 = 1·1 + 0·0 = 1.")
    'dot product: $S_{1,1} = Q_{1} \\cdot K_{1} = 1 \\cdot 1 + 0 \\cdot 0 = 1$.'
    >>> prose("S_{1,3} and S_{2,3} are masked")
    '$S_{1,3}$ and $S_{2,3}$ are masked'
    >>> prose("keeps (j<=i), row by row")
    'keeps (j$\\leq$i), row by row'
    """
    out: list[str] = []
    formula: str | None = None  # a run of math words not yet written
    space = ""
    for word in re.split(r"(\s+)", text):
        if not word or word.isspace():
            space += word
            continue
        core = word.rstrip(".,;:")
        if core.startswith(("(", "[")) and core.count(core[0]) > core.count(")]"[core[0] == "["]):
            if formula is not None:  # a parenthesis opened in words, closed words later: text
                out.append(f"${formula}$")
                formula = None
            out.append(escape(space + core[0]))
            space, word, core = "", word[1:], core[1:]
        core, tex = word_math(core)
        if tex is not None and formula is not None:  # runs of math words are one formula
            formula += " " + tex
        else:
            if formula is not None:
                out.append(f"${formula}$")
            out.append(escape(space))
            formula = tex
            if tex is None:  # a word of attnviz's prose: its relations (`j<=i`) as math, the rest as text
                out.append(escape(word).replace(r"\textless{}=", r"$\leq$").replace(r"\textgreater{}=", r"$\geq$"))
        space = ""
        if tex is not None and core != word:  # punctuation ends the formula
            out.append(f"${formula}$" + escape(word[len(core):]))
            formula = None
    if formula is not None:
        out.append(f"${formula}$")
    return "".join(out) + escape(space)


def word_math(core: str) -> tuple[str, str | None]:
    """(a word without the parentheses it closes that opened words earlier, its TeX if it is math), for `prose`
    and the slides' Unicode prose."""
    while core.endswith((")", "]")) and core.count(core[-1]) > core.count("(["[core[-1] == "]"]):
        core = core[:-1]  # punctuation, as text
    tex = math(core) if core and _MATHY.search(core) else None
    return core, {"=": "=", "+": "+", "≈": r"\approx"}.get(core) if tex is None else tex


def typed_line(line: str, user: Sequence[tuple[int, int]], typeset: Callable[[str], str]) -> str:
    r"""One drawn line whose `user` spans ((start, stop) in `line`) are a user's text: those are escaped
    as text, always; `typeset` (`escape`, `value_line`, `prose`) writes each generated part between them.

    >>> typed_line("Q(x_{1})=(1,0)", ((2, 7),), value_line)
    'Q(x\\_\\{1\\})=(1,0)'
    """
    if not user:
        return typeset(line)
    out: list[str] = []
    at = 0
    for start, stop in user:
        if start > at:
            out.append(typeset(line[at:start]))
        out.append(escape(line[start:stop], straight=True))
        at = stop
    if at < len(line):
        out.append(typeset(line[at:]))
    return joined(out)
