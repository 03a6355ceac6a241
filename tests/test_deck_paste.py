"""A PowerPoint slide keeps its text readable when reused: no fill or line takes a hyperlink theme slot, and
every text on a fill keeps 4.5:1 under attnviz's theme and under a stock Office theme after a paste.

The paste is done as PowerPoint's "Use destination theme" does it: the slide's shapes copied into a deck made
from python-pptx's stock template (Office's theme), every scheme colour then read from that theme. Each text
box is checked against the topmost filled shape under its centre (a see-through fill over the background)."""

import copy
import io
import re

import pytest
from test_deck_pptx import make_deck

from attnviz.publish.deck.formats import pptx_bytes

A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
#: The stock Office themes' colour schemes: 2007-2010 (python-pptx's template), 2013-2022, and 2023 on.
OFFICE = {
    "2013": dict(dk1="000000", lt1="FFFFFF", dk2="44546A", lt2="E7E6E6", accent1="4472C4", accent2="ED7D31",
                 accent3="A5A5A5", accent4="FFC000", accent5="5B9BD5", accent6="70AD47", hlink="0563C1",
                 folHlink="954F72"),
    "2023": dict(dk1="000000", lt1="FFFFFF", dk2="0E2841", lt2="E8E8E8", accent1="156082", accent2="E97132",
                 accent3="196B24", accent4="0F9ED5", accent5="A02B93", accent6="4EA72E", hlink="467886",
                 folHlink="96607D"),
}
ON_SLIDE = {"tx1": "dk1", "bg1": "lt1", "tx2": "dk2", "bg2": "lt2"}


def luminance(rgb):
    def channel(c):
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(int(rgb[n:n + 2], 16)) for n in (0, 2, 4))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b):
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def over(colour, alpha, under):
    return "".join(f"{round(int(colour[n:n + 2], 16) * alpha + int(under[n:n + 2], 16) * (1 - alpha)):02X}"
                   for n in (0, 2, 4))


def scheme_of(presentation):
    """The colour scheme (slot -> RRGGBB) of the deck's theme."""
    part = presentation.slide_master.part.part_related_by(
        "http://schemas.openxmlformats.org/officeDocument/2006/relationships/theme")
    block = re.search(r"<a:clrScheme.*?</a:clrScheme>", part.blob.decode(), re.S)[0]
    return {slot: value for slot, value in
            re.findall(r'<a:(\w+)><a:(?:srgbClr val|sysClr val="\w+" lastClr)="([0-9A-Fa-f]{6})"', block)}


def resolve(element, scheme):
    """(RRGGBB, alpha) of a `<a:solidFill>`'s or pattern's colour element, or None."""
    clr = element.find(f"{A}schemeClr")
    if clr is None:
        return None
    alpha = clr.find(f"{A}alpha")
    return scheme[ON_SLIDE.get(clr.get("val"), clr.get("val"))].upper(), (
        int(alpha.get("val")) / 100000 if alpha is not None else 1.0)


def shapes(tree):
    for element in tree.iter(f"{P}sp"):
        off, ext = element.find(f".//{A}xfrm/{A}off"), element.find(f".//{A}xfrm/{A}ext")
        if off is None:
            continue
        box = (int(off.get("x")), int(off.get("y")), int(off.get("x")) + int(ext.get("cx")),
               int(off.get("y")) + int(ext.get("cy")))
        yield element, box


def readability(slide, scheme):
    """Every text run's (text, contrast) with the topmost fill under its box's centre (the slide's background
    under every fill)."""
    background = scheme["lt1"]
    fills, out = [], []
    for element, box in shapes(slide.element):
        props = element.find(f"{P}spPr")
        fill = props.find(f"{A}solidFill") if props is not None else None
        pattern = props.find(f"{A}pattFill/{A}bgClr") if props is not None else None
        for run in element.iter(f"{A}r"):
            colour = resolve(run.find(f"{A}rPr/{A}solidFill"), scheme)
            cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
            ground = background
            for fill_box, (rgb, alpha) in fills:  # in drawing order: each later one over the earlier
                if fill_box[0] <= cx <= fill_box[2] and fill_box[1] <= cy <= fill_box[3]:
                    ground = over(rgb, alpha, ground)
            out.append((run.findtext(f"{A}t"), contrast(over(colour[0], colour[1], ground), ground)))
        chosen = fill if fill is not None else pattern
        if chosen is not None and (found := resolve(chosen, scheme)) is not None:
            fills.append((box, found))
    return out


def pasted(data, office):
    """The deck's slides pasted into a deck of python-pptx's stock template, with `office`'s colour scheme."""
    from pptx import Presentation

    source, target = Presentation(io.BytesIO(data)), Presentation()
    layout = target.slide_layouts[6]  # blank
    for slide in source.slides:
        copy_of = target.slides.add_slide(layout)
        for element in slide.shapes._spTree.iterchildren():
            if element.tag in (f"{P}sp", f"{P}grpSp"):
                copy_of.shapes._spTree.append(copy.deepcopy(element))
    out = io.BytesIO()
    target.save(out)
    pasted_deck = Presentation(io.BytesIO(out.getvalue()))
    scheme = scheme_of(pasted_deck) if office == "2007" else OFFICE[office]
    return pasted_deck, scheme


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("name", ["seed", "flash", "gqa"])
def test_no_shape_takes_a_hyperlink_slot_and_every_text_keeps_4_5_to_1(name, theme):
    from pptx import Presentation

    data = pptx_bytes(make_deck(name, theme))
    deck = Presentation(io.BytesIO(data))
    for slide in deck.slides:
        assert not re.search(r'schemeClr val="(?:hlink|folHlink)"', slide.part.blob.decode())
    schemes = {"attnviz": (deck, scheme_of(deck))} | {office: pasted(data, office) for office in ("2007", "2013",
                                                                                                   "2023")}
    for where, (shown, scheme) in schemes.items():
        worst = min((ratio, text, n) for n, slide in enumerate(shown.slides)
                    for text, ratio in readability(slide, scheme))
        assert worst[0] >= 4.5, (where, worst)
