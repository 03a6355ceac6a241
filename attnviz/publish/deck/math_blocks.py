"""A step's formula, from the MathML every deck format starts with (`publish.mathml`, from its TeX),
as Office Math (OMML) for PowerPoint and as lines of MathML for reveal.js, measured, so a slide knows
whether it fits (its Unicode line, for notes and viewers without equations, is `slide_text.unicode_math`).

Fractions become `<m:f>`, superscripts and subscripts `<m:sSup>`, `<m:sSub>` and `<m:sSubSup>`, roots
`<m:rad>`, matrices `<m:m>`; anything else is its children in a row. Text is escaped once, here.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ...layout.metrics import text_width
from ...render.xml import escape_attribute, escape_text
from ..mathml import tex_to_mathml

__all__ = ["Formula", "read_formula", "line_height", "line_omml", "inline_omml", "line_mathml", "OMML_NS", "A14_NS",
           "MATH_REQUIRES"]

OMML_NS = "http://schemas.openxmlformats.org/officeDocument/2006/math"
A14_NS = "http://schemas.microsoft.com/office/drawing/2010/main"
#: What a shape holding equations requires (`mc:Choice Requires`): PowerPoint's own drawing extensions (a14) and
#: Office Math (m). LibreOffice reads a14 but not its equations: asked for both, it draws the Unicode fallback.
MATH_REQUIRES = "a14 m"
_MATHML = "{http://www.w3.org/1998/Math/MathML}"
_SCRIPT = 0.7  # a script's size, in its base's


class Formula:
    """A formula read from TeX: its MathML tree, with its OMML, Unicode line and size."""

    def __init__(self, tex: str, where: str | None = None) -> None:
        self.tex = tex
        self.mathml = tex_to_mathml(tex, where)
        root = ET.fromstring(self.mathml)
        semantics = root.find(f"{_MATHML}semantics")
        assert semantics is not None  # tex_to_mathml always writes <semantics>
        self.body = semantics[0]

    def chunks(self, before: tuple[str, ...] = ("=", "+", "·")) -> list[list[ET.Element]]:
        """The formula's terms between the places a line may break: before the operators `before`, after a comma."""
        tokens = _flat(self.body)
        chunks: list[list[ET.Element]] = []
        for n, token in enumerate(tokens):
            if not chunks or _text(token) in before or _text(tokens[n - 1]) == ",":
                chunks.append([])
            chunks[-1].append(token)
        return chunks

    def chunks_within(self, width: float, size: float) -> list[list[ET.Element]]:
        """The places a sentence's notation may break, in order of preference: before `=` and after a comma
        outside brackets; a term between them wider than `width` at `size` also before its `+` and `·` and after
        its commas (a sum or a list broken only when it cannot fit a line of its own)."""
        out: list[list[ET.Element]] = []
        for chunk in self._outside_brackets():
            if sum(_measure(token, size)[0] for token in chunk) <= width:
                out.append(chunk)
                continue
            for n, token in enumerate(chunk):
                if not n or _text(token) in ("+", "·") or _text(chunk[n - 1]) == ",":
                    out.append([])
                out[-1].append(token)
        return out

    def _outside_brackets(self) -> list[list[ET.Element]]:
        """The formula's terms between `=` signs and commas outside brackets (a vector or list one term)."""
        chunks: list[list[ET.Element]] = []
        depth = 0
        tokens = _flat(self.body)
        for n, token in enumerate(tokens):
            text = _text(token)
            if not chunks or (depth == 0 and (text == "=" or _text(tokens[n - 1]) == ",")):
                chunks.append([])
            depth = max(0, depth + (text in ("(", "[", "{")) - (text in (")", "]", "}")))
            chunks[-1].append(token)
        return chunks

    def lines(self, width: float, size: float) -> list[list[ET.Element]] | None:
        """The formula broken into lines at most `width` wide at `size` (before =, + or ·, after a comma),
        each line a row of MathML elements; None when a part that cannot be broken is wider than that."""
        chunks = self.chunks()
        lines: list[list[ET.Element]] = [[]]
        used = 0.0
        for chunk in chunks:
            w = sum(_measure(token, size)[0] for token in chunk)
            if used + w > width and lines[-1]:
                lines.append([])
                used = 0.0
            lines[-1].extend(chunk)
            used += w
        if any(sum(_measure(t, size)[0] for t in line) > width for line in lines):
            return None
        return lines

    def width(self, size: float) -> float:
        """Its width on one line at font size `size` (any unit), estimated from the DejaVu metrics."""
        return _measure(self.body, size)[0]


def line_height(line: list[ET.Element], size: float) -> float:
    """The height of one of `Formula.lines` at `size`: a line, and more for each stacked fraction."""
    return max((_measure(token, size)[1] for token in line), default=size * 1.2)


def line_omml(line: list[ET.Element], size_pt: float, font: str = "Cambria Math") -> str:
    """One of `Formula.lines` as an `<m:oMathPara>` (its m: namespace declared on it) at `size_pt` points."""
    run_props = (f'<a:rPr lang="en-US" sz="{round(size_pt * 100)}" i="0">'
                 f'<a:latin typeface="{escape_attribute(font)}"/></a:rPr>')
    inner = "".join(_omml(token, run_props) for token in line)
    return (f'<m:oMathPara xmlns:m="{OMML_NS}"><m:oMathParaPr><m:jc m:val="left"/></m:oMathParaPr>'
            f"<m:oMath>{inner}</m:oMath></m:oMathPara>")


def inline_omml(formula: Formula, size_pt: float, font: str = "Cambria Math") -> str:
    """`formula` as an inline `<m:oMath>` (its m: namespace declared on it) at `size_pt` points, for a sentence."""
    run_props = (f'<a:rPr lang="en-US" sz="{round(size_pt * 100)}" i="0">'
                 f'<a:latin typeface="{escape_attribute(font)}"/></a:rPr>')
    return f'<m:oMath xmlns:m="{OMML_NS}">{_omml(formula.body, run_props)}</m:oMath>'


def line_mathml(line: list[ET.Element], tex: str | None = None, display: str = "block") -> str:
    """One of `Formula.lines` as a `<math>` (`display` "block" or "inline"), with the formula's TeX as its
    annotation if given."""
    math = ET.Element("math", {"xmlns": _MATHML[1:-1], "display": display})
    if display == "inline":  # fractions in a sentence at full size, as in a display
        math.set("displaystyle", "true")
    semantics = ET.SubElement(math, "semantics")
    row = ET.SubElement(semantics, "mrow")
    row.extend(_plain(token) for token in line)
    if tex is not None:
        ET.SubElement(semantics, "annotation", encoding="application/x-tex").text = tex
    return ET.tostring(math, encoding="unicode")


def _plain(element: ET.Element) -> ET.Element:
    """A copy of `element` with its tags out of the MathML namespace (the <math> declares it)."""
    copy = ET.Element(_local(element), dict(element.attrib))
    copy.text, copy.tail = element.text, None
    copy.extend(_plain(kid) for kid in element)
    return copy


def _flat(element: ET.Element) -> list[ET.Element]:
    """The formula's top-level row as a list of terms: rows inside it opened up, everything else whole."""
    if _local(element) != "mrow":
        return [element]
    return [token for kid in element for token in _flat(kid)]


def _text(element: ET.Element) -> str:
    return (element.text or "").strip() if _local(element) == "mo" else ""


def read_formula(tex: str | None, where: str | None = None) -> Formula | None:
    """`tex` read as a `Formula`, or None for no formula."""
    return None if tex is None else Formula(tex, where)


def _local(element: ET.Element) -> str:
    return element.tag.removeprefix(_MATHML)


def _run(text: str, run_props: str, plain: bool) -> str:
    style = '<m:rPr><m:sty m:val="p"/></m:rPr>' if plain else ""
    return f"<m:r>{style}{run_props}<m:t>{escape_text(text)}</m:t></m:r>"


#: OMML for MathML's fixed-arity layouts: {n} is the element's n-th child.
_OMML = {
    "mfrac": "<m:f><m:num>{0}</m:num><m:den>{1}</m:den></m:f>",
    "msup": "<m:sSup><m:e>{0}</m:e><m:sup>{1}</m:sup></m:sSup>",
    "msub": "<m:sSub><m:e>{0}</m:e><m:sub>{1}</m:sub></m:sSub>",
    "msubsup": "<m:sSubSup><m:e>{0}</m:e><m:sub>{1}</m:sub><m:sup>{2}</m:sup></m:sSubSup>",
    "mroot": "<m:rad><m:deg>{1}</m:deg><m:e>{0}</m:e></m:rad>",
    "msqrt": '<m:rad><m:radPr><m:degHide m:val="1"/></m:radPr><m:deg/><m:e>{row}</m:e></m:rad>',
}


def _omml(element: ET.Element, run_props: str) -> str:
    tag, kids = _local(element), list(element)
    if tag in ("mi", "mn", "mo", "mtext", "ms"):
        text = element.text or ""
        return _run(text, run_props, plain=tag != "mi" or len(text) > 1) if text else ""
    if tag == "mtable":
        rows = "".join("<m:mr>" + "".join(f"<m:e>{_omml(cell, run_props)}</m:e>" for cell in row) + "</m:mr>"
                       for row in kids)
        return f"<m:m>{rows}</m:m>"
    if tag == "mspace":
        return _run(" ", run_props, plain=True)
    parts = [_omml(kid, run_props) for kid in kids]
    if tag in _OMML:
        return _OMML[tag].format(*parts, *[""] * 3, row="".join(parts))
    return "".join(parts)  # mrow, mstyle, mover, munder, ...: a row


def _measure(element: ET.Element, size: float) -> tuple[float, float]:
    """(width, height) of `element` at `size`."""
    tag, kids = _local(element), list(element)
    if tag in ("mi", "mn", "mo", "mtext", "ms"):
        text = element.text or ""
        pad = 0.5 if tag == "mo" and text in "=+−-·,<>≤≥" else 0.0  # the space around an operator
        return text_width(text, size, italic=tag == "mi") + pad * size, size * 1.2
    if tag == "mfrac" and len(kids) == 2:
        (nw, nh), (dw, dh) = _measure(kids[0], size), _measure(kids[1], size)
        return max(nw, dw) + 0.3 * size, nh + dh + 0.2 * size
    if tag in ("msup", "msub", "msubsup") and kids:
        bw, bh = _measure(kids[0], size)
        scripts = [_measure(kid, size * _SCRIPT) for kid in kids[1:]]
        return bw + max((w for w, _ in scripts), default=0.0), bh + 0.3 * size * len(scripts)
    if tag == "mtable":
        rows = [[_measure(cell, size) for cell in row] for row in kids]
        columns = max((len(row) for row in rows), default=0)
        widths = [max((row[c][0] for row in rows if c < len(row)), default=0.0) for c in range(columns)]
        return sum(widths) + size * columns, sum(max((h for _, h in row), default=0.0) for row in rows)
    sizes = [_measure(kid, size) for kid in kids]
    extra = size if tag == "msqrt" else 0.0
    return sum(w for w, _ in sizes) + extra, max((h for _, h in sizes), default=size * 1.2)
