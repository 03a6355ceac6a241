"""A slide's words: the step's sentences as Unicode math (the PDF deck's), and what fits in the slide's text
column at the deck's text size, measured with the layout's DejaVu width tables.

Nothing here is scaled: a word or formula wider than the column, or sentences taller than it, move on (to a
continuation slide, or to the notes); they are never set smaller than the floor. DejaVu is wider than Beamer's
Computer Modern, so what fits here fits in every format.
"""

from __future__ import annotations

import re

from ...layout.metrics import text_width
from ...render.tex_escape import prose, word_math
from ...words.user_text import user_spans

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["line_count", "TEXT_PT", "TITLE_PT", "TITLE_MIN_PT", "LINE", "unicode_math", "unicode_prose", "lines_of",
           "formula_shown_in", "title_lines", "math_runs"]

TEXT_PT = 20  # the step's sentences and formula: above the 18 pt floor, so superscripts stay above 14 pt in TeX
TITLE_PT, TITLE_MIN_PT = 28, 22  # a slide title: one line at 28 pt, else up to two at 22 pt
LINE = 1.3  # line height, in em

_SUP = dict(zip("0123456789+-−=()in", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ⁱⁿ"))
_SUB = dict(zip("0123456789+-−=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ"))
_COMMANDS = {r"\cdot": "·", r"\approx": "≈", r"\leq": "≤", r"\le": "≤", r"\geq": "≥", r"\ge": "≥",
             r"\times": "×", r"\infty": "∞", r"\ell": "ℓ", r"\to": "→", r"\rightarrow": "→", r"\neq": "≠",
             r"\dots": "…", r"\ldots": "…", r"\cdots": "⋯", r"\lfloor": "⌊", r"\rfloor": "⌋", r"\sum": "∑",
             r"\max": "max", r"\min": "min", r"\exp": "exp", r"\in": "∈", r"\quad": "  ", r"\qquad": "   ",
             r"\,": " ", r"\;": " ", r"\:": " ", r"\ ": " ", r"\!": "", r"\left": "", r"\right": "",
             r"\{": "{", r"\}": "}", r"\%": "%", r"\_": "_", r"\mid": "|", r"\cup": "∪", r"\cap": "∩",
             r"\neg": "¬", r"\land": "∧", r"\lor": "∨", r"\sqrt": "√", r"\mathrm": "", r"\mathbf": "",
             r"\bm": "", r"\operatorname": "", r"\text": "", r"\textrm": "", r"\mathit": "", r"\displaystyle": "",
             r"\argmax": "argmax", r"\argmin": "argmin", r"\softmax": "softmax"}
_GREEK = {r"\alpha": "α", r"\beta": "β", r"\gamma": "γ", r"\delta": "δ", r"\epsilon": "ε", r"\theta": "θ",
          r"\lambda": "λ", r"\mu": "μ", r"\pi": "π", r"\sigma": "σ", r"\tau": "τ", r"\phi": "φ", r"\omega": "ω",
          r"\Delta": "Δ", r"\Sigma": "Σ"}
_TOKEN = re.compile(r"\\[A-Za-z]+|\\.|[{}^_]|[^\\{}^_]")


def _group(tokens: list[str], n: int) -> tuple[list[str], int]:
    """The tokens of the argument at `n` (a braced group, or one token) and the position after it."""
    if n >= len(tokens):
        return [], n
    if tokens[n] != "{":
        return [tokens[n]], n + 1
    depth, start = 0, n
    while n < len(tokens):
        depth += {"{": 1, "}": -1}.get(tokens[n], 0)
        if depth == 0:
            return tokens[start + 1:n], n + 1
        n += 1
    return tokens[start + 1:], n


def _script(text: str, table: dict[str, str]) -> str | None:
    """`text` in super- or subscript characters, or None when one has none (a comma stays a comma)."""
    out = []
    for ch in text:
        if ch in table:
            out.append(table[ch])
        elif ch in ", ":
            out.append(ch)
        else:
            return None
    return "".join(out)


def _atomic(text: str) -> str:
    """`text` as one factor of a slash fraction: parenthesised when it is a sum or a product.

    >>> _atomic("e¹"), _atomic("e¹+e²"), _atomic("exp(−1/2)")
    ('e¹', '(e¹+e²)', 'exp(−1/2)')
    """
    call = re.fullmatch(r"\w+\((.*)\)", text)
    if call and "(" not in call[1] and ")" not in call[1]:
        return text
    return text if re.fullmatch(r"[\w·⁰-⁹₀-₉√.]*", text) and not any(op in text for op in "+−-·") else f"({text})"


_BRACKETS = {"pmatrix": "()", "bmatrix": "[]", "Bmatrix": "{}", "vmatrix": "||", "Vmatrix": "‖‖", "cases": "{"}


def _environment(tokens: list[str], n: int, name: str, out: list[str]) -> int:
    """A matrix, cases or alignment from `n` (after `\\begin{name}`) onto `out`, its rows separated by `; `
    and a row's cells by `, ` (an alignment's `&` is only a place: dropped); returns the position after
    its `\\end{name}`."""
    if name == "array":
        _, n = _group(tokens, n)  # the column preamble
    depth, start = 1, n
    while n < len(tokens) and depth:
        depth += {r"\begin": 1, r"\end": -1}.get(tokens[n], 0)
        n += 1
    body = tokens[start:n - 1] if depth == 0 else tokens[start:]
    _, n = _group(tokens, n)  # {name} after \end
    rows: list[list[list[str]]] = [[[]]]
    level = 0
    for token in body:  # split at the rows' `\\` and the cells' `&` of this environment, not a nested one's
        level += {r"\begin": 1, r"\end": -1}.get(token, 0)
        if level == 0 and token == r"\\":
            rows.append([[]])
        elif level == 0 and token == "&":
            rows[-1].append([])
        else:
            rows[-1][-1].append(token)
    joint = "" if name in ("aligned", "gathered") else " " if name == "cases" else ", "
    text = "; ".join(joint.join(_convert(cell).strip() for cell in row) for row in rows
                     if any(cell for cell in row))
    brackets = _BRACKETS.get(name, "")
    out.append(brackets[:1] + text + brackets[1:])
    return n


def _convert(tokens: list[str]) -> str:
    out: list[str] = []
    n = 0
    while n < len(tokens):
        token = tokens[n]
        n += 1
        if token == r"\begin":
            name, n = _group(tokens, n)
            n = _environment(tokens, n, "".join(name), out)
        elif token == r"\\":  # a line break outside an environment: the next part of the formula
            out.append("; ")
        elif token in (r"\frac", r"\dfrac", r"\tfrac"):
            top, n = _group(tokens, n)
            bottom, n = _group(tokens, n)
            out.append(f"{_atomic(_convert(top))}/{_atomic(_convert(bottom))}")
        elif token in ("^", "_"):
            arg, n = _group(tokens, n)
            text = _convert(arg)
            scripted = _script(text, _SUP if token == "^" else _SUB)
            if scripted is not None:
                out.append(scripted)
            elif token == "^" and out and out[-1].endswith("e"):  # e^(-1/2): exp(−1/2), never a caret
                out[-1] = out[-1][:-1] + f"exp({text})"
            else:
                out.append(f"({text})" if token == "^" else f"[{text}]")
        else:
            out.append(_word(token))
    return "".join(out)


def _word(token: str) -> str:
    """A token that takes no argument, as Unicode text."""
    if token in ("{", "}"):
        return ""
    named = _COMMANDS.get(token, _GREEK.get(token))
    if named is not None:
        return named
    return token[1:] if token.startswith("\\") else "−" if token == "-" else token


def unicode_math(tex: str) -> str:
    r"""A formula's TeX as Unicode text: scripts as super- and subscript characters, fractions with a slash.

    >>> unicode_math(r"S_{1,1} = Q_{1} \cdot K_{1} = 1 \cdot 1 + 0 \cdot 0 = 1")
    'S₁,₁ = Q₁ · K₁ = 1 · 1 + 0 · 0 = 1'
    >>> unicode_math(r"\operatorname{softmax}(0, 1) = \left(\frac{e^{0}}{e^{0}+e^{1}}, \frac{1}{2}\right)")
    'softmax(0, 1) = (e⁰/(e⁰+e¹), 1/2)'
    >>> unicode_math("e^{-1/2}")
    'exp(−1/2)'
    >>> unicode_math(r"S_{1..2,\,1..2} = \begin{pmatrix} 1 & \cdot \\ 2 & 2 \end{pmatrix}")
    'S[1..2, 1..2] = (1, ·; 2, 2)'
    """
    return re.sub(r" {2,}", " ", _convert(_TOKEN.findall(tex)).strip())


def _generated_words(text: str) -> str:
    words = []
    for word in re.split(r"(\s+)", text):
        opening = ""
        if word[:1] in "([" and word and word.count(word[0]) > word.count(")]"[word[0] == "["]):
            opening, word = word[0], word[1:]  # a parenthesis opened in words, closed words later: text
        core, tex = word_math(word.rstrip(".,;:"))
        words.append(opening + (word if tex is None else unicode_math(tex) + word[len(core):]))
    return "".join(words).replace("<=", "≤").replace(">=", "≥")


def unicode_prose(text: str) -> str:
    """A sentence with attnviz's own notation (`S_{1,1}`, `e^0/(e^0+e^1)`) as Unicode math; a user's spans
    (labels, a document's paragraphs) are kept exactly as written.

    >>> unicode_prose("The score is S_{1,1} = Q1·K1 = 1·1 + 0·0 = 1; keeps j<=i.")
    'The score is S₁,₁ = Q₁ · K₁ = 1 · 1 + 0 · 0 = 1; keeps j≤i.'
    """
    spans = user_spans(text)
    out, at = [], 0
    for start, stop in spans:
        out += [_generated_words(text[at:start]), text[start:stop]]
        at = stop
    return "".join(out) + _generated_words(text[at:])


#: A binary operator or relation between two terms (not a sign: `−1`, `(−1`, `e⁻¹`): typeset math sets a
#: medium or thick space on each side of it, which a line of text has not.
_OPERATOR = re.compile(r"(?<=[\w)⁰-⁹\]])[+=−·<>≤≥](?=[\w(√e])")
OPERATOR_EM = 0.5  # the room TeX's and MathML's spaces around one add, in em (+: 2 × 4/18 em and a wider sign)


def _width(text: str, size: float, bold: bool, spaced: float = OPERATOR_EM) -> float:
    """`text`'s width at `size` pt, with the room typeset math leaves around its operators (`spaced` em each)."""
    return text_width(text, size, "sans", bold) + (spaced * size * len(_OPERATOR.findall(text)) if spaced else 0)


def _items(text: str, width: float, size: float, bold: bool, spaced: float) -> list[str]:
    """`text`'s words, a bracketed group (a vector, a list) one word where it fits a line, else its own words.

    >>> _items("scores are [−1, 0, 2].", 300, 20, False, 0.5)
    ['scores', 'are', '[−1, 0, 2].']
    """
    words: list[str] = []
    depth = 0
    for word in text.split():
        if depth > 0 and words:
            words[-1] += " " + word
        else:
            words.append(word)
        depth = max(0, depth + sum(word.count(c) for c in "([{") - sum(word.count(c) for c in ")]}"))
    if depth:  # a bracket left open: the words as they are
        return text.split()
    return [part for group in words
            for part in ([group] if " " not in group or _width(group, size, bold, spaced) <= width else group.split())]


def unbreakable_groups(text: str, width: float, size: float = TEXT_PT) -> str:
    """`text` as plain text, each bracketed group (a vector, a list) that fits a line of `width` pt at `size`
    pt held together with no-break spaces, so a viewer that wraps it itself (LibreOffice drawing a pptx's
    Unicode fallback) breaks between items, never inside one.

    >>> unbreakable_groups("scores are [−1, 0, 2].", 300)
    'scores are [−1,\xa00,\xa02].'
    """
    out: list[str] = []
    for item in _items(text, width, size, False, 0.0):
        out.append(item.replace(" ", "\u00a0"))
    def rows_whole(group: re.Match[str]) -> str:  # each row of a group wider than a line (a matrix) one word
        rows = group[0].split("; ")
        if any(_width(row, size, False, 0.0) > width for row in rows):
            return group[0]
        return "; ".join(row.replace(" ", "\u00a0") for row in rows)

    return _ROWS.sub(rows_whole, " ".join(out))


_ROWS = re.compile(r"[(\[][^()\[\]]*; [^()\[\]]*[)\]]")  # a bracketed group of rows (`(1, ·; 0, 1)`)


def lines_of(text: str, width: float, size: float = TEXT_PT, bold: bool = False, typeset: bool = True
             ) -> list[str] | None:
    """`text` wrapped at spaces into lines at most `width` pt wide at `size` pt (math's operator spaces counted,
    unless not `typeset`: the PDF deck draws its Unicode as text); None when one word is wider.

    >>> lines_of("e⁰/(e⁻³+e⁻⁴+e⁻²+e⁻⁴+e⁻³+e⁰)", 330) is None, lines_of("e⁰/(e⁻³+e⁻⁴+e⁻²+e⁻⁴)", 330)
    (True, ['e⁰/(e⁻³+e⁻⁴+e⁻²+e⁻⁴)'])
    """
    lines: list[str] = []
    line = ""
    spaced = OPERATOR_EM if typeset else 0.0
    for word in _items(text, width, size, bold, spaced):
        if _width(word, size, bold, spaced) > width:
            return None
        candidate = f"{line} {word}" if line else word
        if line and _width(candidate, size, bold, spaced) > width:
            lines.append(line)
            line = word
        else:
            line = candidate
    return [*lines, line] if line else lines


def title_lines(title: str, width: float) -> tuple[float, list[str]] | None:
    """(size, lines) of a slide title: one line at 28 pt, else two at 22 pt; None when it needs more."""
    one = lines_of(title, width, TITLE_PT, bold=True)
    if one is not None and len(one) == 1:
        return TITLE_PT, one
    two = lines_of(title, width, TITLE_MIN_PT, bold=True)
    return (TITLE_MIN_PT, two) if two is not None and len(two) <= 2 else None


_DOLLARS = re.compile(r"(?<!\\)\$(.+?)(?<!\\)\$")


def math_runs(sentence: str) -> list[str]:
    """The TeX of each math run `prose` finds in `sentence`."""
    return [match[1] for match in _DOLLARS.finditer(prose(sentence))]


def _normal(tex: str) -> str:
    tex = re.sub(r"\\(?:text|operatorname|mathrm)\{[^{}]*\}|\\left|\\right|\\cdot|\\[ ,;:!]|[\s()\[\],]", "", tex)
    return tex


def formula_shown_in(formula: str, sentences: Sequence[str]) -> bool:
    """Whether the sentences already say the formula: two thirds of the sides of its `=` (and of its
    `,\\ `-separated parts) are in their math, spacing, brackets and named operators aside. Then the slide
    shows it once, in the sentence.

    >>> formula_shown_in(r"S_{2,1} = Q_{2} \\cdot K_{1} = 0", ["so S_{2,1} = Q2·K1 = 0."])
    True
    >>> formula_shown_in(r"\\sum_j w_{j} = 1", ["The weights add up."])
    False
    """
    said = "".join(_normal(run) for sentence in sentences for run in math_runs(sentence))
    sides = [_normal(side) for side in re.split(r"=|\\approx|,\s*\\[ ;:,]|\\quad", formula)]
    telling = [side for side in sides if len(side) > 2] or [side for side in sides if side]
    return bool(said) and 3 * sum(side in said for side in telling) >= 2 * len(telling)


_SCRIPTS = re.compile("[" + "".join(_SUP.values()) + "".join(_SUB.values()) + "]")


def line_count(lines: Sequence[str]) -> float:
    """The height of `lines` in lines of text: a line with a fraction (`a/b` here, stacked in TeX) counts two,
    a line with scripts 1.2 (raised and lowered, in TeX's display style and in MathML, they open the line).

    >>> line_count(["a b", "e⁰+e¹", "e⁰/(e⁰+e¹)"])
    4.2
    """
    return sum(2 if re.search(r"\S/\S", line) else 1.2 if _SCRIPTS.search(line) else 1 for line in lines)


def formula_note(tex: str) -> str:
    """The notes' line for a step's formula `tex`: `Formula: ` and its Unicode math (Beamer typesets the TeX)."""
    return f"Formula: {unicode_math(tex)}"
