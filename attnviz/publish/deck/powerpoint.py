"""`attnviz slides -f pptx`: a deck as a PowerPoint file whose slides a presenter can restyle, read and animate.

Each step slide uses the "Title Only" layout: the step's title is in the title placeholder (the
outline lists it; the accessibility checker finds every slide titled), the figure is one group
called "figure" of native shapes named by role and cell (`render.pptx`), the sentences are a text
box at 20 pt and the formula an Office Math equation (OMML, from the same TeX as every format; a
viewer without equations shows its Unicode line). The notes hold the whole step. The deck's theme
holds the figure's colours as its colour scheme, so Design → Variants restyles the figure too;
`--theme dark` is a dark slide background. `auto` has no viewer setting to follow in PowerPoint:
it is drawn light (docs/slides.rst). Slides move to the next step with Morph (the Fade transition
where Morph is unknown).
"""

from __future__ import annotations

import datetime
import io
import re

from ...layout.items import Group, Rect, Text
from ...render.pptx import EMU_PER_PT, FONTS, clean_text, colour_scheme, figure_group
from ...render.themes import get_theme
from ...render.xml import escape_attribute
from ...words.budget import check_shapes
from .math_blocks import A14_NS, MATH_REQUIRES, OMML_NS, Formula, inline_omml, line_height, line_omml
from .plan import LINE, MORE_IN_NOTES, NOTE_PT, SENTENCE_GAP, TEXT_PT, plan_slide
from .slide_text import unbreakable_groups, unicode_math
from .visible import visible_highlights, without_seams

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Iterable

    from pptx.presentation import Presentation

    from ...layout.items import Item, Layout
    from .model import Box, Deck, TitlePage
    from .plan import SlidePlan

__all__ = ["pptx_bytes", "drawn_shapes", "deck_shapes", "FIGURE_NAME", "TITLE_LAYOUT", "STEP_LAYOUT"]

FIGURE_NAME = "figure"  # the figure's group, on every slide
TITLE_LAYOUT, STEP_LAYOUT = 0, 5  # python-pptx's default template: "Title Slide", "Title Only"
_PER_SLIDE = 5  # shapes besides the figure's: its group, the title, the sentences, the formula, the notes' text
_NS = ('xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
       'xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" '
       'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"')
_MC = "http://schemas.openxmlformats.org/markup-compatibility/2006"
# Morph (PowerPoint 2019 and 365: p159), else a quick fade; both move or blend, neither blinks
_TRANSITION = (f'<mc:AlternateContent xmlns:mc="{_MC}" {_NS}><mc:Choice '
               'xmlns:p159="http://schemas.microsoft.com/office/powerpoint/2015/09/main" '
               'xmlns:p14="http://schemas.microsoft.com/office/powerpoint/2010/main" Requires="p159">'
               '<p:transition spd="fast" p14:dur="600"><p159:morph option="byObject"/></p:transition></mc:Choice>'
               '<mc:Fallback><p:transition spd="fast"><p:fade/></p:transition></mc:Fallback></mc:AlternateContent>')


def drawn_shapes(items: Iterable[Item]) -> int:
    """The shapes `render.pptx` draws for `items`: one a rectangle or mark, one a text's non-blank line;
    a layout group is only its children."""
    count = 0
    for item in items:
        if isinstance(item, Group):
            count += drawn_shapes(item.children)
        elif isinstance(item, Text):
            count += sum(1 for line in item.lines if line.strip())
        else:
            count += 1
    return count


def deck_shapes(layouts: Iterable[Layout]) -> int:
    """Every shape the PowerPoint deck of these step `layouts` may draw: each step's figure (its background,
    four bars round each highlighted map run should it need a ring, and two more for each kept run
    `without_seams` may split) and `_PER_SLIDE` more, and the title slide's two; counted before any is drawn."""
    extra = {"computed": 4, "kept": 2}
    return sum(drawn_shapes(layout.items) + 1 + _PER_SLIDE
               + sum(extra.get(item.role, 0) for item in layout.walk() if isinstance(item, Rect))
               for layout in layouts) + 2


def pptx_bytes(deck: Deck) -> bytes:
    """The deck as a .pptx file's bytes: a title slide, then a slide per step (the same deck, the same bytes)."""
    layouts = deck.layouts()
    check_shapes(deck_shapes(layouts))  # before python-pptx adds any
    # python-pptx is an optional dependency (attnviz[slides]): loaded only for a PowerPoint deck
    from pptx import Presentation
    from pptx.oxml import parse_xml
    from pptx.util import Emu

    boxes = deck.geometry
    presentation = Presentation()
    presentation.slide_width, presentation.slide_height = Emu(_emu(boxes.width)), Emu(_emu(boxes.height))
    _restyle(presentation, deck.theme)
    if deck.title_page is not None:
        _title_slide(presentation, deck.title_page, boxes.width, boxes.height)
    for number, (slide, layout) in enumerate(zip(deck.slides, layouts), 1):
        plan = plan_slide(slide, boxes, number)
        page = presentation.slides.add_slide(presentation.slide_layouts[STEP_LAYOUT])
        box = boxes.figure
        scale = min(box.w * EMU_PER_PT / layout.width, box.h * EMU_PER_PT / layout.height)
        left = box.x * EMU_PER_PT + (box.w * EMU_PER_PT - layout.width * scale) / 2
        top = box.y * EMU_PER_PT + (box.h * EMU_PER_PT - layout.height * scale) / 2
        # a map's one cell at 512 tokens ringed; its rows overlapping a hair, so no seam shows between them
        layout = without_seams(visible_highlights(layout, scale / EMU_PER_PT), scale / EMU_PER_PT)
        group, next_id = figure_group(layout, FIGURE_NAME, 3, left, top, scale, slide.figure.description(),
                                       get_theme(deck.theme).colours)
        shapes = [_title(plan, boxes.title), group, _sentences(plan, boxes.text, next_id)]
        if plan.formula_lines:
            shapes.append(_formula(plan, boxes.text, next_id + 1))
        tree = page.shapes._spTree
        new_tree = parse_xml(f'<p:spTree {_NS}><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/>'
                             f'</p:nvGrpSpPr><p:grpSpPr/>{"".join(shapes)}</p:spTree>')
        tree.getparent().replace(tree, new_tree)
        page._element.append(parse_xml(_TRANSITION))
        page.notes_slide.notes_text_frame.text = plan.notes.translate(_NOTES)
    properties = presentation.core_properties  # fixed, so the same deck gives the same bytes
    properties.title, properties.author, properties.last_modified_by = deck.title, "attnviz", "attnviz"
    properties.created = properties.modified = datetime.datetime(2000, 1, 1)
    properties.revision = 1
    out = io.BytesIO()
    presentation.save(out)
    return _stable_zip(out.getvalue())


# the notes' text goes through python-pptx, which writes control characters as _xHHHH_ escapes itself
_NOTES = {code: "\ufffd" for code in (*range(0, 9), 11, 12, *range(14, 32))}


def _emu(value: float) -> int:
    return round(value * EMU_PER_PT)


def _xfrm(box: Box, height: float | None = None) -> str:
    return (f'<a:xfrm><a:off x="{_emu(box.x)}" y="{_emu(box.y)}"/><a:ext cx="{_emu(box.w)}" '
            f'cy="{_emu(box.h if height is None else height)}"/></a:xfrm>')


def _run(text: str, size: float, colour: str = "tx1", bold: bool = False, italic: bool = False) -> str:
    font = FONTS["sans"]
    return (f'<a:r><a:rPr lang="en-US" sz="{round(size * 100)}" b="{int(bold)}" i="{int(italic)}" dirty="0">'
            f'<a:solidFill><a:schemeClr val="{colour}"/></a:solidFill><a:latin typeface="{font}"/>'
            f'<a:cs typeface="{font}"/></a:rPr><a:t>{clean_text(text)}</a:t></a:r>')


def _spacing(size: float) -> str:
    """Lines `LINE` times `size` points apart, exactly (a percentage would be of the font's own line height)."""
    return f'<a:lnSpc><a:spcPts val="{round(size * LINE * 100)}"/></a:lnSpc>'


def _body(anchor: str = "t") -> str:
    return f'<a:bodyPr wrap="square" lIns="0" tIns="0" rIns="0" bIns="0" anchor="{anchor}"><a:noAutofit/></a:bodyPr>'


def _title(plan: SlidePlan, box: Box) -> str:
    """The title placeholder, holding the step's title (PowerPoint's outline and accessibility checker read it)."""
    return (f'<p:sp><p:nvSpPr><p:cNvPr id="2" name="Title"/><p:cNvSpPr><a:spLocks noGrp="1"/></p:cNvSpPr>'
            f'<p:nvPr><p:ph type="title"/></p:nvPr></p:nvSpPr><p:spPr>{_xfrm(box)}</p:spPr><p:txBody>{_body("ctr")}'
            f'<a:lstStyle/><a:p><a:pPr algn="l">{_spacing(plan.title_pt)}'
            f"</a:pPr>{_run(plan.title, plan.title_pt, bold=True)}</a:p></p:txBody></p:sp>")


def _sentences(plan: SlidePlan, box: Box, shape_id: int) -> str:
    """The step's sentences at `TEXT_PT`, their notation as Office Math (Unicode where a viewer cannot draw
    it), and the line that says the formula is in the notes."""
    before = f'<a:spcBef><a:spcPts val="{round(SENTENCE_GAP * 100)}"/></a:spcBef>'

    def paragraphs(math: bool) -> str:
        out = []
        for n, (text, runs) in enumerate(zip(plan.paragraphs, plan.runs)):
            body = "".join(_math_run(value) if kind == "math" else _run(value, TEXT_PT) for kind, value in runs) \
                if math else _run(unbreakable_groups(text, box.w), TEXT_PT)  # (wrapped by the viewer: between items)
            out.append(f'<a:p><a:pPr algn="l">{_spacing(TEXT_PT)}{before if n else ""}</a:pPr>{body}</a:p>')
        if plan.more_in_notes:
            more = _run(MORE_IN_NOTES, NOTE_PT, "tx2", italic=True)
            out.append(f'<a:p><a:pPr algn="l">{_spacing(NOTE_PT)}{before if out else ""}</a:pPr>{more}</a:p>')
        return "".join(out) or "<a:p/>"

    head = (f'<p:nvSpPr><p:cNvPr id="{shape_id}" name="sentences"/><p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr>'
            f'<p:spPr>{_xfrm(box)}<a:prstGeom prst="rect"><a:avLst/></a:prstGeom><a:noFill/></p:spPr>')
    if not any(kind == "math" for runs in plan.runs for kind, _ in runs):
        return f"<p:sp>{head}<p:txBody>{_body()}<a:lstStyle/>{paragraphs(False)}</p:txBody></p:sp>"
    return _with_math(f"<p:sp>{head}<p:txBody>{_body()}<a:lstStyle/>{paragraphs(True)}</p:txBody></p:sp>",
                      f"<p:sp>{head}<p:txBody>{_body()}<a:lstStyle/>{paragraphs(False)}</p:txBody></p:sp>")


def _math_run(tex: str) -> str:
    """Notation inside a sentence, as an inline Office Math zone."""
    return f"<a14:m>{inline_omml(Formula(tex), TEXT_PT)}</a14:m>"


def _with_math(choice: str, fallback: str) -> str:
    """A shape with equations (`choice`), and the same shape in Unicode for viewers without them."""
    return (f'<mc:AlternateContent xmlns:mc="{_MC}"><mc:Choice xmlns:a14="{A14_NS}" xmlns:m="{OMML_NS}" '
            f'Requires="{MATH_REQUIRES}">{choice}</mc:Choice><mc:Fallback>{fallback}</mc:Fallback>'
            "</mc:AlternateContent>")


def _formula(plan: SlidePlan, box: Box, shape_id: int) -> str:
    """The formula under the sentences: Office Math lines, or (a viewer without it) their Unicode text."""
    height = sum(line_height(line, TEXT_PT) for line in plan.formula_lines) + TEXT_PT / 2
    place = type(box)(box.x, box.y + plan.sentences_pt, box.w, min(height, box.h - plan.sentences_pt))
    head = (f'<p:nvSpPr><p:cNvPr id="{shape_id}" name="formula"/><p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr>'
            f'<p:spPr>{_xfrm(place)}<a:prstGeom prst="rect"><a:avLst/></a:prstGeom><a:noFill/></p:spPr>')
    math = "".join(f'<a:p><a:pPr algn="l"/><a14:m>{line_omml(line, TEXT_PT)}</a14:m></a:p>'
                   for line in plan.formula_lines)
    assert plan.formula is not None  # formula lines come from a formula
    fallback = f'<a:p><a:pPr algn="l"/>{_run(unbreakable_groups(unicode_math(plan.formula.tex), box.w), TEXT_PT)}</a:p>'
    return _with_math(f"<p:sp>{head}<p:txBody>{_body()}<a:lstStyle/>{math}</p:txBody></p:sp>",
                      f"<p:sp>{head}<p:txBody>{_body()}<a:lstStyle/>{fallback}</p:txBody></p:sp>")


def _title_slide(presentation: Presentation, page: TitlePage, width: float, height: float) -> None:
    """The deck's title slide (asked for with --title, --author or --date), in the "Title Slide" layout's
    placeholders: the title, then the subtitle, the author and the date."""
    from pptx.util import Emu, Pt  # python-pptx: the slides extra, loaded for a PowerPoint deck only

    slide = presentation.slides.add_slide(presentation.slide_layouts[TITLE_LAYOUT])
    margin = 43.2
    under = "\n".join(line for line in (page.subtitle, page.author, page.date) if line)
    for placeholder, text, size, top, tall in ((slide.shapes.title, page.title, 40, height / 3 - 60, 120),
                                               (slide.placeholders[1], under, 24, height / 3 + 70, 150)):
        placeholder.left, placeholder.top = Emu(_emu(margin)), Emu(_emu(top))
        placeholder.width, placeholder.height = Emu(_emu(width - 2 * margin)), Emu(_emu(tall))
        frame = placeholder.text_frame
        frame.word_wrap = True
        frame.text = text.translate(_NOTES)
        for paragraph in frame.paragraphs:
            for run in paragraph.runs:
                run.font.size, run.font.name = Pt(size), FONTS["sans"]
                run.font.bold = size == 40


def _restyle(presentation: Presentation, theme_name: str) -> None:
    """The template's theme made the deck's: the figure's colours as its colour scheme, DejaVu Sans as its
    fonts, and the slide background the scheme's background (`bg1`: dark for --theme dark)."""
    from pptx.opc.constants import RELATIONSHIP_TYPE  # python-pptx: as above
    from pptx.oxml import parse_xml

    theme = get_theme(theme_name)  # auto: light, its first palette (PowerPoint has no dark setting to follow)
    part = presentation.slide_master.part.part_related_by(RELATIONSHIP_TYPE.THEME)
    xml = part.blob.decode("utf-8")
    xml = re.sub(r"<a:clrScheme .*?</a:clrScheme>", lambda _: colour_scheme(theme.colours, f"attnviz {theme.name}"),
                 xml, count=1, flags=re.S)
    xml = re.sub(r'(<a:(?:major|minor)Font><a:latin typeface=")[^"]*"', rf'\g<1>{escape_attribute(FONTS["sans"])}"',
                 xml)
    part._blob = xml.encode("utf-8")
    master = presentation.slide_master._element
    c_sld = master.find("{http://schemas.openxmlformats.org/presentationml/2006/main}cSld")
    old = c_sld.find("{http://schemas.openxmlformats.org/presentationml/2006/main}bg")
    if old is not None:
        c_sld.remove(old)
    c_sld.insert(0, parse_xml(f'<p:bg {_NS}><p:bgPr><a:solidFill><a:schemeClr val="bg1"/></a:solidFill>'
                              "<a:effectLst/></p:bgPr></p:bg>"))


def _stable_zip(data: bytes) -> bytes:
    """The zip with every entry dated 1980-01-01, so the same deck gives the same bytes."""
    import zipfile  # only a PowerPoint deck is a zip: the other formats never load it

    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            target.writestr(zipfile.ZipInfo(info.filename, date_time=(1980, 1, 1, 0, 0, 0)), source.read(info),
                            compress_type=zipfile.ZIP_DEFLATED)
    return out.getvalue()
