"""One painter: the layout is walked once (render.painter.walk) and each backend draws every item
with the paint its role resolves to (render.painter.ROLE_PAINT), so SVG, TikZ and PowerPoint agree:
dashed = masked, dotted = not computed yet, thick = computed, and a map's highlight see-through."""

import xml.etree.ElementTree as ET

import pytest

import attnviz
from attnviz.layout.figure import Group, Rect
from attnviz.render.painter import DASHES, ROLE_PAINT, paint, walk
from attnviz.render.svg import fmt, render_svg
from attnviz.render.themes import TEXT_COLOUR, get_theme
from attnviz.render.tikz import PX, tikz_items

SVG = "{http://www.w3.org/2000/svg}"


class Recorder:
    """A painter that writes down every call."""

    def __init__(self):
        self.calls = []

    def open_group(self, group, paint):
        self.calls.append(("open", group, paint))

    def close_group(self, group):
        self.calls.append(("close", group, None))

    def rect(self, rect, paint):
        self.calls.append(("rect", rect, paint))

    def mark(self, mark, paint):
        self.calls.append(("mark", mark, paint))

    def text(self, text, colour):
        self.calls.append(("text", text, colour))

    def shapes(self):
        return [(item, p) for kind, item, p in self.calls if kind in ("rect", "mark")]


def layouts():
    return {
        "seed": attnviz.figure(highlight=[(3, 3), "softmax=3"]).layout(),
        "walk-step": attnviz.figure(highlight=["mask"]).layout(),
        "map-highlight": attnviz.figure(view="mask", n=16, mask="window=4", highlight="9,7").layout(),
        "panels": attnviz.compose(attnviz.figure(view="mask", n=8, title="causal"),
                                  attnviz.figure(view="mask", n=8, mask="prefix=3", title="prefix")).layout(),
    }


def _items(items):
    for item in items:
        yield item
        if isinstance(item, Group):
            yield from _items(item.children)


@pytest.mark.parametrize("name", list(layouts()))
def test_the_walk_draws_every_item_once_in_order_with_its_roles_paint(name):
    layout = layouts()[name]
    recorder = Recorder()
    walk(layout.items, recorder)
    drawn = [item for kind, item, _ in recorder.calls if kind != "close"]
    assert drawn == list(_items(layout.items))
    for kind, item, resolved in recorder.calls:
        if kind in ("rect", "mark"):
            assert resolved is ROLE_PAINT[item.role]
        elif kind == "text":
            assert resolved == TEXT_COLOUR[item.role]


def test_the_paint_table_states_the_meanings_once():
    assert ROLE_PAINT["cell-masked"].dash == "dashed" and ROLE_PAINT["cell-pending"].dash == "dotted"
    assert ROLE_PAINT["cell-computed"].width == 3 and ROLE_PAINT["computed"].fill_opacity == 0.6
    assert ROLE_PAINT["cell-score"].dash is None and ROLE_PAINT["cell-score"].width == 1


def _svg_paint(element, inherited_fill, palette, prefix):
    """What an SVG shape is painted with, its group's fill taken where it has none of its own."""
    fill = element.get("fill", inherited_fill)
    return {"fill": fill, "stroke": element.get("stroke"), "dash": element.get("stroke-dasharray"),
            "width": element.get("stroke-width"), "opacity": element.get("fill-opacity")}


def _expected_svg(paint, palette, prefix):
    fill = f"url(#{prefix}-hatch)" if paint.fill == "hatch" else palette[paint.fill] if paint.fill else "none"
    return {"fill": fill, "stroke": palette[paint.stroke] if paint.stroke else None,
            "dash": " ".join(map(fmt, DASHES[paint.dash])) if paint.dash else None,
            "width": fmt(paint.width) if paint.width != 1 else None,
            "opacity": fmt(paint.fill_opacity) if paint.fill_opacity != 1 else None}


@pytest.mark.parametrize("name", list(layouts()))
def test_svg_draws_every_shape_with_the_resolved_paint(name):
    layout = layouts()[name]
    palette = get_theme("light").colours
    root = ET.fromstring(render_svg(layout, "p", theme="light"))
    recorder = Recorder()
    paint(layout.items, layout.width, layout.height, recorder)
    expected = [(item.role, _expected_svg(p, palette, "p")) for item, p in recorder.shapes()]

    drawn = []

    def visit(element, fill):
        for child in element:
            if child.tag == SVG + "g":
                visit(child, child.get("fill", fill))
            elif child.tag in (SVG + "rect", SVG + "polygon") and "hatch" not in child.get("class", ""):
                role = child.get("class").removeprefix("attnviz-")
                drawn.append((role, _svg_paint(child, fill, palette, "p")))

    visit(root, None)
    assert drawn == expected


@pytest.mark.parametrize("name", list(layouts()))
def test_tikz_draws_every_shape_with_the_resolved_paint(name):
    layout = layouts()[name]
    commands = "\n".join(tikz_items(layout))
    recorder = Recorder()
    walk(layout.items, recorder)
    shapes = recorder.shapes()
    stroked = [p for item, p in shapes if isinstance(item, Rect) and p.stroke]
    for dash, (on, off) in DASHES.items():
        pattern = f"dash pattern=on {fmt(on * PX)}pt off {fmt(off * PX)}pt"
        assert commands.count(pattern) == sum(p.dash == dash for p in stroked), dash
    for width in {p.width for p in stroked}:
        assert commands.count(f"line width={fmt(width * PX)}pt,") == sum(p.width == width for p in stroked)
    see_through = sum(1 for item, p in shapes if isinstance(item, Rect) and p.fill_opacity != 1)
    assert commands.count("fill opacity=0.6") == see_through
    assert commands.count(r"\draw[") - commands.count("masked-hatch, line width") == len(stroked)
    assert commands.count(r"\fill[attnviz-") - commands.count(r"\fill[attnviz-masked-fill") == sum(
        1 for item, p in shapes if p.fill and p.fill != "hatch")


@pytest.mark.parametrize("name", ["seed", "map-highlight"])
def test_powerpoint_draws_every_shape_with_the_resolved_paint(name):
    from attnviz.render.pptx import EMU_PER_PX, SCHEME, TINTS, figure_group

    layout = layouts()[name]
    xml, next_id = figure_group(layout, "figure", 3, 0, 0, EMU_PER_PX)
    ns = {"p": "http://schemas.openxmlformats.org/presentationml/2006/main",
          "a": "http://schemas.openxmlformats.org/drawingml/2006/main"}
    group = ET.fromstring(xml.replace("<p:grpSp>", f'<p:grpSp xmlns:p="{ns["p"]}" xmlns:a="{ns["a"]}">', 1))
    drawn = group.findall("p:sp", ns)
    boxes = [s for s in drawn if s.find("p:nvSpPr/p:cNvSpPr", ns).get("txBox") == "1"]
    shapes = [s for s in drawn if s.find("p:nvSpPr/p:cNvSpPr", ns).get("txBox") != "1"]
    recorder = Recorder()
    paint(layout.items, layout.width, layout.height, recorder)
    assert len(shapes) == len(recorder.shapes())
    ids = [int(s.find("p:nvSpPr/p:cNvPr", ns).get("id")) for s in drawn]
    assert ids == list(range(4, next_id))  # counted, not searched: one each, in order
    for shape, (item, p) in zip(shapes, recorder.shapes()):
        text = ET.tostring(shape).decode()
        line = shape.find("p:spPr/a:ln", ns)
        if isinstance(item, Rect) and p.stroke:
            assert line.get("w") == str(round(p.width * EMU_PER_PX)), item.role
            assert ('prstDash val="dash"' in text) == (p.dash == "dashed"), item.role
            assert ('prstDash val="sysDot"' in text) == (p.dash == "dotted"), item.role
            assert line.find("a:solidFill/a:schemeClr", ns).get("val") == SCHEME[p.stroke]
        tinted = p.fill is not None and p.fill in TINTS  # a fill behind text: a see-through accent (render.pptx)
        assert ("alpha" in text) == (p.fill_opacity != 1 or tinted), item.role
        assert "srgbClr" not in text  # theme colours only: Design > Variants restyles the figure
    lines = sum(len([line for line in t.lines if line.strip()]) for _, t, _ in
                [c for c in recorder.calls if c[0] == "text"])
    assert len(boxes) == lines


def test_the_hatch_geometry_is_the_paint_tables(monkeypatch):
    """Period, width and angle of the masked cells' stripes come from ROLE_PAINT, in SVG, TikZ and PowerPoint."""
    from attnviz.render import painter
    from attnviz.render.pptx import _HATCHES

    hatched = [p for p in ROLE_PAINT.values() if p.fill == "hatch"]
    assert hatched and all(p.hatch == painter.MASKED_HATCH for p in hatched)
    assert all(p.hatch is None for p in ROLE_PAINT.values() if p.fill != "hatch")
    assert painter.MASKED_HATCH.angle in _HATCHES
    fig = attnviz.figure()  # the seed: causal, its upper triangle masked
    pattern = ET.fromstring(fig.svg()).find(f"{SVG}defs/{SVG}pattern")
    assert (pattern.get("width"), pattern.get("patternTransform")) == ("8", "rotate(45)")
    wider = painter.Hatch(period=10, width=4, angle=45)
    for role in [p.role for p in hatched]:
        monkeypatch.setitem(ROLE_PAINT, role, painter.Paint(role, "hatch", ROLE_PAINT[role].stroke,
                                                            dash=ROLE_PAINT[role].dash, hatch=wider))
    layout = fig.layout()
    pattern = ET.fromstring(render_svg(layout, "x")).find(f"{SVG}defs/{SVG}pattern")
    assert (pattern.get("width"), pattern.findall(f"{SVG}rect")[1].get("width")) == ("10", "4")
    assert f"line width={fmt(4 * PX)}pt" in "\n".join(tikz_items(layout))
