"""TeX formulas as MathML, at build time: the page needs no JavaScript, no fonts from a CDN, no network.

The MathML keeps its TeX source as an `application/x-tex` annotation (copyable, and read by
assistive tools). latex2mathml parses; we serialise with ElementTree, which escapes text once
(latex2mathml's own string output does not escape `\\text{<b>}`), and we drop attributes that
could reach outside the page (`\\href`, `\\style`).
"""

import re
import xml.etree.ElementTree as ET

from .exact import InputError

__all__ = ["tex_to_mathml"]

MATHML_NS = "http://www.w3.org/1998/Math/MathML"
# Attributes latex2mathml can emit that point elsewhere or carry CSS (which can load URLs).
_DROPPED = {"href", "style", "src", "xlink:href"}
# latex2mathml stores symbols as character references in the text ("&#x0002C;"), meant to be
# written unescaped; we read them back into characters so that everything else can be escaped.
_CHAR_REF = re.compile(r"&#x([0-9A-Fa-f]{5});")


def tex_to_mathml(tex, where=None):
    """A TeX formula as a block <math>, its TeX kept as an annotation; `where` names it in errors.

    >>> tex_to_mathml("x^2")  # doctest: +ELLIPSIS
    '<math ... display="block"><semantics><mrow>...</mrow><annotation encoding="application/x-tex">x^2</annotation>...'
    """
    from latex2mathml.converter import convert_to_element

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
            element.text = element.text and _CHAR_REF.sub(_char, element.text)
        for name in [n for n in element.attrib if n in _DROPPED or n.lower().startswith("on")]:
            del element.attrib[name]
    return ET.tostring(math, encoding="unicode")


def _char(match):
    return chr(int(match[1], 16))


def _reason(err):
    """latex2mathml's `MissingSuperScriptOrSubscriptError()` -> "missing superscript or subscript"."""
    name = re.sub(r"(?<!^)(?=[A-Z])", " ", type(err).__name__).lower().removesuffix(" error")
    return f"{name} ({err})" if str(err) else name
