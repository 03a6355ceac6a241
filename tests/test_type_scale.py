"""The type and stroke scale (docs/styling.rst): at most four text sizes and three stroke weights a figure.

Every gallery figure is drawn in each frame it is drawn in (as `attnviz gallery` draws it, the doc frame, both
slides and the column; the model gallery too) and its SVG is read as a reader sees it: each text run's font size
and each stroked shape's stroke width, inherited from its ancestors and multiplied by every transform and nested
viewport above it. A frame may refuse a figure only where it is pinned to (tests/test_frame_maps.py), in one line
naming the frame that fits. Then the tables themselves: every role has a step, every frame's floor is a step, every
paint is a weight, and docs/styling.rst shows the tables as they are.
"""

import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import attnviz
from attnviz.figures.model import model_figure
from attnviz.layout.frames import FRAMES, get_frame
from attnviz.layout.items import STYLES
from attnviz.layout.type_scale import ROLE_STEPS, STEPS, TYPE_SCALES
from attnviz.publish.gallery import ENTRIES, MODEL_ENTRIES, make, make_model
from attnviz.render.painter import ROLE_PAINT, STROKE_WEIGHTS
from frame_cases import framed_entry
from test_frame_maps import REFUSED_HERE

ROOT = Path(__file__).parent.parent
SVG = "{http://www.w3.org/2000/svg}"
PAINTED = ("font-size", "stroke", "stroke-width", "vector-effect")  # (inherited by an element's children)
SHAPES = {"rect", "line", "path", "polygon", "polyline", "circle", "ellipse"}
#: "default": as `attnviz gallery` draws it (some entries pin a frame of their own).
LOOKS = ("default", "doc", "slide", "slide-4:3", "column")


def _linear(transform):
    """The linear part (a, b, c, d) of an SVG `transform` attribute's list of transforms."""
    a, b, c, d = 1.0, 0.0, 0.0, 1.0
    for name, args in re.findall(r"(\w+)\s*\(([^)]*)\)", transform or ""):
        v = [float(x) for x in re.split(r"[\s,]+", args.strip()) if x]
        if name == "matrix":
            m = v[:4]
        elif name == "scale":
            m = [v[0], 0, 0, v[1] if len(v) > 1 else v[0]]
        elif name == "rotate":
            t = math.radians(v[0])
            m = [math.cos(t), math.sin(t), -math.sin(t), math.cos(t)]
        elif name in ("skewX", "skewY"):
            t = math.tan(math.radians(v[0]))
            m = [1, 0, t, 1] if name == "skewX" else [1, t, 0, 1]
        else:  # translate moves, it does not scale
            continue
        a, b, c, d = a * m[0] + c * m[1], b * m[0] + d * m[1], a * m[2] + c * m[3], b * m[2] + d * m[3]
    return a, b, c, d


def _viewport(element):
    """A nested <svg>'s scale: its width over its viewBox's (1 without a viewBox)."""
    box = element.get("viewBox")
    if box is None or element.get("width") is None:
        return 1.0
    return float(re.sub(r"[a-z%]+$", "", element.get("width"))) / float(box.split()[2])


def seen(svg):
    """({font size: a text with it}, {stroke width: a shape's class}) of an SVG as drawn: sizes in the root's units,
    each multiplied by the scale of the transforms and viewports above it (uniform scales: the area's square root)."""
    root = ET.fromstring(svg)
    assert not any(tag in svg for tag in ("font-size:", "stroke-width:")), "a <style> sets sizes: read them too"
    sizes, strokes = {}, {}

    def visit(element, inherited, scale, nested):
        tag = element.tag.removeprefix(SVG)
        here = {**inherited, **{key: element.get(key) for key in PAINTED if element.get(key) is not None}}
        a, b, c, d = _linear(element.get("transform"))
        scale *= math.sqrt(abs(a * d - b * c))
        if tag == "svg" and nested:
            scale *= _viewport(element)
        if tag in ("defs", "pattern", "clipPath", "mask"):
            return  # (painted only through a fill: the hatch's stripes)
        if tag in ("text", "tspan"):
            words = [element.text or ""] + [child.tail or "" for child in element]
            if any(word.strip() for word in words):
                size = round(float(here["font-size"]) * scale, 2)
                sizes.setdefault(size, "".join(element.itertext()))
        if tag in SHAPES and here.get("stroke", "none") != "none":
            width = float(here.get("stroke-width", 1)) * (1 if here.get("vector-effect") == "non-scaling-stroke"
                                                          else scale)
            strokes.setdefault(round(width, 2), element.get("class"))
        for child in element:
            visit(child, here, scale, True)

    visit(root, {}, 1.0, False)
    return sizes, strokes


def drawn(entry, look):
    """The gallery entry's SVG in `look`, or the InputError its frame refuses it with (a composed figure is laid
    out, and refused, as it is drawn)."""
    try:
        return (make(entry) if look == "default" else framed_entry(entry, look)).svg()
    except attnviz.InputError as refused:
        return refused


CASES = [(entry, look) for entry in ENTRIES for look in LOOKS]
#: Model figures a frame refuses: three maps under the 0.1-inch map floor, the bucket grids past a 4:3 slide.
MODEL_REFUSED_HERE = {("model-t5-cross", "slide-4:3"): "--frame slide",
                      ("model-t5-buckets", "slide-4:3"): "--frame slide"}


@pytest.mark.parametrize("entry, look", CASES, ids=[f"{e.name}-{look}" for e, look in CASES])
def test_every_gallery_figure_has_four_sizes_and_three_strokes_at_most(entry, look):
    svg = drawn(entry, look)
    if (entry.name, look) in REFUSED_HERE:  # the frame's documented refusal, in one line naming the way out
        assert isinstance(svg, attnviz.InputError), (entry.name, look)
        message = str(svg)
        assert "\n" not in message and REFUSED_HERE[entry.name, look] in message, message
        return
    assert not isinstance(svg, Exception), f"{entry.name} in {look}: {svg}"
    sizes, strokes = seen(svg)
    assert len(sizes) <= 4, (entry.name, look, sizes)
    assert len(strokes) <= 3, (entry.name, look, strokes)
    assert set(strokes) <= set(STROKE_WEIGHTS.values())  # strokes are never scaled: each is a weight as it is
    if look == "doc":  # the doc frame draws every text at its step's size
        assert set(sizes) <= set(TYPE_SCALES["doc"]), sizes


@pytest.mark.parametrize("look", ["slide", "slide-4:3", "column", "doc"])
@pytest.mark.parametrize("entry", MODEL_ENTRIES, ids=[e.name for e in MODEL_ENTRIES])
def test_every_model_figure_has_four_sizes_and_three_strokes_at_most(entry, look):
    try:
        figure = make_model(entry) if look == "slide" else model_figure(dict(entry.config), title=entry.title,
                                                                         frame=look, **dict(entry.options))
        svg = figure.svg()
    except attnviz.InputError as refused:  # the map floor's or the bucket grids' refusal, naming a way that holds them
        assert (entry.name, look) in MODEL_REFUSED_HERE, (entry.name, look, str(refused))
        assert "\n" not in str(refused) and MODEL_REFUSED_HERE[entry.name, look] in str(refused), str(refused)
        return
    assert (entry.name, look) not in MODEL_REFUSED_HERE
    sizes, strokes = seen(svg)
    assert len(sizes) <= 4 and len(strokes) <= 3, (sizes, strokes)


@pytest.mark.parametrize("frame, scale", [("slide", "slide"), ("slide-4:3", "slide"), ("column", "column"),
                                          ("column-wide", "column"), ("column:3.5in", "column"), ("doc", "doc")])
def test_a_full_figure_is_set_at_its_frames_steps_scripts_included(frame, scale):
    # the seed's figure with a highlight, value vectors and exponents: every role of the full view and scripts
    figure = attnviz.figure(v=[[1], [2], [3]], highlight=(3, 3), frame=frame)
    sizes, _ = seen(figure.svg())
    assert set(sizes) == set(TYPE_SCALES[scale]), sizes


@pytest.mark.parametrize("frame", ["slide-figure", "slide-figure-compact",
                                   "slide-4:3-figure-compact", "doc:740", "doc:358"])
def test_a_decks_and_a_docs_pages_frames_keep_four_sizes(frame):
    # (a deck's region takes the slide's steps scaled by one factor; the compact one sets all but its title at floor)
    sizes, strokes = seen(attnviz.figure(highlight=(3, 3), frame=frame).svg())
    assert len(sizes) <= (2 if "compact" in frame else 4) and len(strokes) <= 3, (sizes, strokes)


def test_every_role_has_a_step_and_the_doc_frame_draws_it_at_its_size():
    assert set(ROLE_STEPS) == set(STYLES) and set(ROLE_STEPS.values()) == set(STEPS)
    doc = dict(zip(STEPS, TYPE_SCALES["doc"]))
    assert {role: style.size for role, style in STYLES.items()} == {role: doc[step] for role, step in
                                                                      ROLE_STEPS.items()}
    for sizes in TYPE_SCALES.values():
        assert len(sizes) == len(STEPS) == 4 and list(sizes) == sorted(sizes, reverse=True)


def test_each_frames_floors_are_steps():
    slide, column = dict(zip(STEPS, TYPE_SCALES["slide"])), dict(zip(STEPS, TYPE_SCALES["column"]))
    for name, width in (("slide", 1280), ("slide-4:3", 960)):
        frame = FRAMES[name]
        assert frame.min_size(width) == pytest.approx(slide["small"])  # 16 px: 12 pt on the projected slide
        assert frame.min_size(width, main=True) == pytest.approx(slide["heading"])  # 24 px: 18 pt
    # a column's units: 14 prints at 7 pt; doc:WIDTH's: 14 is 12 CSS px
    assert column["small"] * FRAMES["column"].floor_pt / 14 == 7
    assert get_frame("doc:740").floor_pt * 96 / 72 == 12


def test_every_stroke_is_a_weight():
    assert list(STROKE_WEIGHTS) == ["hairline", "regular", "bold"]
    assert {paint.width for paint in ROLE_PAINT.values() if paint.stroke} <= set(STROKE_WEIGHTS.values())


def _rows(text, heading):
    """The rows of the list-table after `heading` in an rst text: each a list of its cells."""
    after = text.split(heading, 1)[1]
    table = re.search(r"\.\. list-table::\n(?:\n| .*\n)*", after).group(0)
    rows = table.split("   * - ")[1:]
    return [[cell.strip() for cell in row.split("\n     - ")] for row in rows[1:]]


def test_the_docs_show_the_scales_as_they_are():
    text = (ROOT / "docs" / "styling.rst").read_text(encoding="utf-8")
    section = text.split("Type and stroke scale\n", 1)[1]
    steps = _rows(section, "each frame gives the steps their sizes")
    assert [row[0] for row in steps] == [f"``{step}``" for step in STEPS]
    for n, (step, doc, slide, column, roles) in enumerate(steps):
        assert [float(doc), float(slide), float(column)] == [TYPE_SCALES[s][n] for s in ("doc", "slide", "column")]
        assert roles.split(", ") == [role for role, at in ROLE_STEPS.items() if at == STEPS[n]], step
    weights = _rows(section, "Every stroke is one of three weights")
    assert [(row[0], float(row[1])) for row in weights] == [(f"``{name}``", width)
                                                           for name, width in STROKE_WEIGHTS.items()]
