"""Mask maps, panels, bias panels and heads fitted to slide and column frames (layout.map_fit,
layout.panel_fit, layout.score_panels): the slide's exact aspect, no text under the frame's floor, no
overlaps, the map's cells still the mask's, grid lines that survive drawing small, and a one-line refusal
when nothing fits. Layout-level and fast; the doc frame's bytes are test_golden's and test_gallery's."""

import io
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attnviz
from attnviz.figures.from_arguments import build
from attnviz.layout.frames import get_frame, text_floor_misses
from attnviz.layout.items import Group, Rect
from attnviz.numbers.exact import InputError
from clirun import run_cli
from hostile_texts import VIEWS, cases, drawn, outside
from test_layout import assert_clean
from test_views import brute_kept, kept_from_svg

SVG = "{http://www.w3.org/2000/svg}"
FRAMES = ["slide", "slide-4:3", "column", "column-wide"]
Q3 = [[1, 0], [0, 1], [1, 1]]


def assert_fits(layout, frame_name):
    """The slide's aspect exactly (to the viewBox's two decimals), every text at its floor, nothing overlapping."""
    frame = get_frame(frame_name)
    if frame.aspect is not None:
        assert layout.width / layout.height == pytest.approx(frame.aspect, rel=1e-4)
    assert text_floor_misses(layout, frame) == []
    assert_clean(layout)


def maps_in(layout):
    """Every map's (x, y, w, h), from its masked ground."""
    return [(r.x, r.y, r.w, r.h) for item in layout.walk() if isinstance(item, Group)
            and item.classes[:1] == ("attnviz-map",) for r in item.children[:1] if isinstance(r, Rect)]


def assert_no_text_on_a_map(layout):
    boxes = maps_in(layout)
    for text, _ in layout.texts_in_boxes():
        for x0, y0, x1, y1 in text.line_boxes():
            for mx, my, mw, mh in boxes:
                assert not (x0 < mx + mw and mx < x1 and y0 < my + mh and my < y1), text


@pytest.mark.parametrize("frame", FRAMES)
@pytest.mark.parametrize("n, mask", [(8, "causal"), (64, "window=16"), (512, "window=128"), (1024, "causal")])
def test_a_map_fits_every_frame_and_keeps_its_cells(frame, n, mask):
    fig = attnviz.figure(view="mask", n=n, mask=mask, frame=frame)
    layout = fig.layout()
    assert_fits(layout, frame)
    assert_no_text_on_a_map(layout)
    svg = fig.svg()
    assert kept_from_svg(svg) == brute_kept(mask, n, n)
    desc = ET.fromstring(svg).find(f"{SVG}desc").text
    assert all(choice in desc for choice in layout.choices) and desc.startswith(f"{n} tokens; ")


def test_a_slide_map_stands_beside_its_words_and_a_wide_one_under_them():
    square = attnviz.figure(view="mask", n=64, frame="slide").layout()
    assert any(choice.startswith("landscape") for choice in square.choices)
    (x, y, w, h), = maps_in(square)
    assert h > 0.7 * square.height  # the map takes the slide's height
    title = next(t for t, _ in square.texts_in_boxes() if t.role == "title")
    assert title.x > x + w  # the words at its right
    wide = attnviz.figure(view="mask", shape="4x16", align="bottom-right", frame="slide").layout()
    assert not any(choice.startswith("landscape") for choice in wide.choices)
    assert kept_from_svg(attnviz.figure(view="mask", shape="4x16", align="bottom-right", frame="slide").svg()) == \
        brute_kept("causal", 4, 16, "bottom-right")


def test_ticks_thin_out_on_a_slide_and_the_choice_is_said():
    layout = attnviz.figure(view="mask", n=1024, frame="slide").layout()
    ticks = [t.text for t, _ in layout.texts_in_boxes() if t.role == "tick"]
    assert "1024" in ticks and len(ticks) < 60
    rows = [int(t) for t in ticks[len(ticks) // 2:]]  # regular from the first (the first multiple stands for 1)
    assert len({b - a for a, b in zip(rows[:-2], rows[1:-1])}) == 1 and rows[0] == rows[1] - rows[0]
    assert any(choice.startswith("a tick every") for choice in layout.choices)


def three_masks(frame):
    masks = [("causal", "causal"), ("prefix=6", "prefix-LM, prefix of 6"),
             ("segments=1,1,1,1,1,2,2,2,2,2,2,3,3,3,3,3", "three packed documents")]
    return attnviz.compose(*[attnviz.figure(view="mask", n=16, mask=m, title=t, frame=frame) for m, t in masks],
                           title="Causal, prefix-LM and document masking", frame=frame)


FOUR = ["causal", "window=4", "prefix=6", "window=2,symmetric"]


def four_panels(frame, **parts):
    return attnviz.compose(*[attnviz.figure(view="mask", n=16, mask=m, frame=frame) for m in FOUR], frame=frame,
                           **parts)


def panel_kept(svg):
    """Each panel's kept cells, read back from its rows' data-k runs."""
    root = ET.fromstring(svg)
    return [kept_from_svg(ET.tostring(panel).decode()) for panel in root.iter(f"{SVG}g")
            if panel.get("class") == "attnviz-panel"]


@pytest.mark.parametrize("frame", FRAMES)
def test_three_mask_panels_fit_every_frame(frame):
    fig = three_masks(frame)
    layout = fig.layout()
    assert_fits(layout, frame)
    assert_no_text_on_a_map(layout)
    assert panel_kept(fig.svg()) == [brute_kept(m, 16, 16) for m in ("causal", "prefix=6")] + [
        {(i, j) for i in range(1, 17) for j in range(1, i + 1) if (i > 5) + (i > 11) == (j > 5) + (j > 11)}]
    titles = [t.text for t, _ in layout.texts_in_boxes() if t.role == "panel-title"]
    assert len(titles) == 3  # every panel keeps its title (shortened at most)


def _cells_in(svg, frame):
    """Each map's cell, in inches of `frame`, read back from the SVG (its frame rect over its 16 cells)."""
    import re

    view_w = float(re.search(r'viewBox="0 0 ([\d.]+) ', svg)[1])
    sides = [float(w) for w in re.findall(r'<rect class="attnviz-map-frame" x="[\d.]+" y="[\d.]+" width="([\d.]+)"',
                                          svg)]
    return [side / 16 / (view_w / get_frame(frame).width_in) for side in sides[:3]]  # (the legend's swatches after)


@pytest.mark.parametrize("frame", ["slide", "slide-4:3"])
def test_three_mask_panels_on_a_slide_keep_the_model_figure_s_map_floor(frame, tmp_path):
    """On a slide (16:9 and 4:3) composed maps of up to 16 tokens keep cells of a tenth of an inch, the model
    figure's floor (figures.model_floor): the gallery's three panels stand in a row (they were stacked two a row,
    cells of 0.054 and 0.044 inch: 5 px at 1,280), measured from the SVG the CLI writes."""
    out = tmp_path / "three.svg"
    three_masks(frame).save(str(out))
    cells = _cells_in(out.read_text(), frame)
    assert len(cells) == 3 and min(cells) >= 0.1 * 0.98, cells
    assert {"slide": 0.177, "slide-4:3": 0.141}[frame] == pytest.approx(min(cells), abs=0.001)


def test_maps_that_cannot_keep_the_floor_on_a_4_3_slide_are_refused_naming_the_16_9_slide_where_they_do(tmp_path):
    """Eight 16-token maps keep 0.1 inch cells on no 4:3 slide (0.094 at best, their rule captions hidden): refused in
    one line naming --frame slide, where they stand in a grid of 4 columns at 0.126 inch."""
    eight = ["causal", "prefix=6", "window=3", "none", "window=5", "prefix=2", "window=2", "prefix=9"]
    spec = tmp_path / "eight.toml"
    spec.write_text('view = "mask"\nn = 16\n' + "".join(f'[[panel]]\nmask = "{m}"\n' for m in eight))
    result = run_cli("render", str(spec), "--frame", "slide-4:3", "-o", "-")
    assert result.code == 2 and result.stdout == "" and result.stderr.count("\n") == 1
    assert "cells of 0.1 inch or more (they would be 0.094); try --frame slide, " in result.stderr
    works = run_cli("render", str(spec), "--frame", "slide", "-o", "-")
    assert works.code == 0, works.stderr
    import re

    view_w = float(re.search(r'viewBox="0 0 ([\d.]+) ', works.stdout)[1])
    sides = [float(w) for w in re.findall(r'class="attnviz-map-frame" x="[\d.]+" y="[\d.]+" width="([\d.]+)"',
                                          works.stdout)][:8]
    assert len(sides) == 8 and min(sides) / 16 / (view_w / get_frame("slide").width_in) >= 0.1 * 0.98


@pytest.mark.parametrize("frame", FRAMES)
def test_four_16_token_panels_read(frame):
    if frame == "column":  # four maps of 16 cells at 0.1 inch a cell: 8.5 inches stacked, 3.7 wide in a grid
        with pytest.raises(InputError, match=r"cells of 0\.1 inch or more \(they would be 0\.0\d+\); try "
                                             r"--frame column-wide"):
            four_panels(frame).layout()
        return
    layout = four_panels(frame).layout()
    assert_fits(layout, frame)
    assert [t.text for t, _ in layout.texts_in_boxes() if t.role == "axis-title"] == ["key j", "query i"]
    assert len([g for g in layout.walk() if isinstance(g, Group) and g.classes == ("attnviz-legend",)]) == 1
    if frame == "slide":  # the ticks at 1,280 px: 16 px at least (today's row of four: 6.7 px)
        ticks = [t for t in layout.walk() if getattr(t, "role", None) == "tick"]
        assert min(t.style.size for t in ticks) * 1280 / layout.width >= 16


def test_panel_captions_and_subtitles_shown_shared_or_hidden():
    shown = four_panels("slide", panel_captions="show", panel_subtitles="show").layout()
    roles = [t.role for t, _ in shown.texts_in_boxes()]
    assert roles.count("caption") == 4 and roles.count("subtitle") == 4
    hidden = four_panels("slide", panel_captions="hide", panel_legend="hide").layout()
    roles = [t.role for t, _ in hidden.texts_in_boxes()]
    assert "caption" not in roles and "subtitle" not in roles and "legend" not in roles
    alike = attnviz.compose(attnviz.figure(view="mask", n=8, title="a", frame="slide"),
                            attnviz.figure(view="mask", n=8, title="b", frame="slide"), frame="slide")
    captions = [t.text for t, _ in alike.layout().texts_in_boxes() if t.role == "caption"]
    assert captions == ["causal mask keeps j<=i"]  # said once, above the panels
    doc = attnviz.compose(attnviz.figure(view="mask", n=8, title="a"), attnviz.figure(view="mask", n=8, title="b"),
                          panel_captions="shared")
    assert [t.text for t, _ in doc.layout().texts_in_boxes() if t.role == "caption"] == ["causal mask keeps j<=i"]
    with pytest.raises(InputError, match="panel_captions: expected auto, show, shared or hide"):
        attnviz.compose(attnviz.figure(view="mask", n=8), panel_captions="some")


def test_a_long_title_on_a_narrow_map_shortens_within_its_panel():
    long = "a title far too long for a sixteen-token map in a row of four panels on a slide, however it wraps"
    fig = attnviz.compose(*[attnviz.figure(view="mask", n=16, mask=m, title=long, frame="slide") for m in FOUR],
                          frame="slide")
    layout = fig.layout()
    assert_fits(layout, "slide")
    titles = [t for t, _ in layout.texts_in_boxes() if t.role == "panel-title"]
    # (whole where an arrangement at the map floor keeps it so, else shortened: five lines at most, a line more than
    # captions; the four maps stand in a row at 0.138 inch a cell, the floor first)
    assert all(len(t.lines) <= 5 and ("".join(t.lines) == long or t.lines[-1].endswith("…")) for t in titles)
    assert long in ET.fromstring(fig.svg()).find(f"{SVG}desc").text  # whole in the description


@pytest.mark.parametrize("frame", FRAMES)
def test_a_bias_panel_fits_every_frame_with_its_title(frame):
    fig = build({"bias": "alibi=1/2", "show": "bias", "frame": frame, "q": Q3, "k": Q3})
    layout = fig.layout()
    assert_fits(layout, frame)
    titles = [t.text for t, _ in layout.texts_in_boxes() if t.role == "panel-title"]
    assert titles == ["Scores S_ij", "ALiBi bias m·(j-i)"]  # ALiBi's panel: the distances, times m
    cells = {(g.attrs[0][1], g.attrs[1][1]): next(c.text for c in g.children if hasattr(c, "lines"))
             for g in layout.walk() if isinstance(g, Group) and "attnviz-score" in g.classes}
    assert cells[("3", "1")] in ("-2", "\u22122")  # ALiBi: the distance j-i = 1-3; B_31 = m·(j-i) = -1


GQA = {"q_heads": [[[1, 0], [0, 1], [1, 1]], [[1, 1], [0, 1], [1, -1]], [[2, 0], [1, 1], [0, 1]],
                   [[0, 1], [1, 0], [1, 1]]],
       "k_heads": [[[1, 0], [0, 1], [1, 1]], [[1, 1], [1, -1], [0, 2]]]}
EIGHT = {"q_heads": [[[h % 3, 1], [1, (h + 1) % 2], [0, 1]] for h in range(8)], "k_heads": GQA["k_heads"]}


@pytest.mark.parametrize("frame", FRAMES)
@pytest.mark.parametrize("heads", [GQA, EIGHT], ids=["gqa", "eight"])
def test_heads_are_compact_in_every_frame(frame, heads):
    fig = attnviz.figure(frame=frame, **heads)
    layout = fig.layout()
    assert_fits(layout, frame)
    assert [t.role for t, _ in layout.texts_in_boxes()].count("title") == 1  # one set of chrome for all heads
    svg = fig.svg()
    assert svg.count('class="attnviz-head attnviz-panel"') == len(heads["q_heads"])
    doc = attnviz.figure(**heads)  # the same exact scores as the doc frame's panels
    root = ET.fromstring(svg)
    drawn = {(p.get("data-head"), c.get("data-q"), c.get("data-k")): "".join(c.itertext())
             for p in root.iter(f"{SVG}g") if p.get("data-head") for c in p.iter(f"{SVG}g")
             if (c.get("class") or "").startswith("attnviz-cell attnviz-score")}
    for h, panel in enumerate(doc.panels, 1):
        for row in panel.words.cells:
            for cell in row:
                if not cell.masked:
                    assert drawn[(str(h), str(cell.q), str(cell.k))] == cell.text


def test_what_does_not_fit_is_refused_in_one_line_naming_the_way_out():
    many = {"q_heads": [[[1, 0]] * 12] * 16, "k_heads": [[[1, 0]] * 12] * 16}
    with pytest.raises(InputError, match="do not fit the slide-4:3 frame.*--view mask"):
        attnviz.figure(frame="slide-4:3", **many).layout()
    result = run_cli("render", "--view", "mask", "--n", "1024", "--frame", "slide-4:3", "--mask", "window=64",
                     "-o", "-")
    assert result.code == 0, result.stderr  # a 1,024-token map still fits a 4:3 slide (words left to <desc>)
    refused = run_cli("render", "--q-heads", " | ".join(["1,0; " * 11 + "1,0"] * 16), "--k-heads",
                      "1,0; " * 11 + "1,0", "--frame", "slide-4:3", "-o", "-")
    assert refused.code == 2 and refused.stdout == ""
    assert refused.stderr.count("\n") == 1 and refused.stderr.startswith("attnviz: error: ")
    assert "--frame doc" in refused.stderr


@pytest.mark.parametrize("frame", ["doc", "slide"])
def test_grid_lines_stay_visible_drawn_at_0_55(frame):
    import cairosvg

    fig = attnviz.figure(view="mask", n=16, mask="none", frame=frame)
    layout = fig.layout()
    (x, y, w, h), = maps_in(layout)
    scale = 0.55
    # (the root says the frame's size in inches: the PNG is sized in the layout's units)
    png = cairosvg.svg2png(bytestring=fig.svg().encode(), output_width=layout.width * scale,
                           output_height=layout.height * scale)
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("L")
    row_y = int((y + h / 2 + layout.grid[2] / 2) * scale)
    row = [image.getpixel((px, row_y)) for px in range(int(x * scale) + 2, int((x + w) * scale) - 1)]
    kept = min(row)
    lines, inside = 0, False
    for value in row:  # a grid line is lighter than the kept cells it separates
        if value > kept + 25 and not inside:
            lines, inside = lines + 1, True
        elif value <= kept + 25:
            inside = False
    assert lines == 15


@pytest.mark.parametrize("frame", FRAMES)
def test_token_labels_and_a_highlight_fit_too(frame):
    tokens = "What is your favorite condiment ?".split()
    fig = attnviz.figure(view="mask", tokens=tokens, mask="window=3", highlight=["row=4", "mask"], frame=frame)
    layout = fig.layout()
    assert_fits(layout, frame)
    assert_no_text_on_a_map(layout)
    assert "computed this step" in [t.text for t, _ in layout.texts_in_boxes()]  # the legend names the highlight
    assert kept_from_svg(fig.svg()) == brute_kept("window=3", 6, 6)


def test_the_panel_keys_from_a_spec_and_their_flags(tmp_path):
    spec = tmp_path / "p.toml"
    spec.write_text('view = "mask"\nn = 16\nframe = "slide"\npanel_captions = "hide"\n'
                    '[[panel]]\ntitle = "causal"\n[[panel]]\ntitle = "window"\nmask = "window=4"\n', encoding="utf-8")
    drawn = run_cli("render", str(spec), "-o", "-")
    assert drawn.code == 0, drawn.stderr
    root = ET.fromstring(drawn.stdout)
    assert not [t for t in root.iter(f"{SVG}text") if t.get("class") == "attnviz-caption-text"]
    assert "causal mask keeps j&lt;=i" in drawn.stdout or "causal mask keeps j<=i" in root.find(f"{SVG}desc").text
    shown = run_cli("render", str(spec), "--panel-captions", "show", "--panel-legend", "hide", "-o", "-")
    texts = [t.get("class") for t in ET.fromstring(shown.stdout).iter(f"{SVG}text")]
    assert texts.count("attnviz-caption-text") == 2 and "attnviz-legend-text" not in texts
    bad = run_cli("render", str(spec), "--panel-subtitles", "twice", "-o", "-")
    assert bad.code == 2 and bad.stderr == ("attnviz: error: --panel-subtitles: expected auto, show, shared or hide, "
                                            "got 'twice'\n")
    alone = run_cli("render", "--view", "mask", "--n", "8", "--panel-legend", "hide", "-o", "-")
    assert alone.code == 2 and "give [[panel]] tables" in alone.stderr


def test_the_doc_frame_hides_and_shares_as_asked_and_stays_clean():
    both = [attnviz.figure(view="mask", n=8, title="a"), attnviz.figure(view="mask", n=8, mask="window=3", title="b")]
    assert attnviz.compose(*both).svg() == attnviz.compose(*both, panel_captions="auto").svg()
    for how in ("show", "shared", "hide"):
        layout = attnviz.compose(*both, panel_captions=how, panel_subtitles=how).layout()
        assert_clean(layout)
        captions = [t.text for t, _ in layout.texts_in_boxes() if t.role == "caption"]
        assert len(captions) == {"show": 2, "shared": 2, "hide": 0}[how]  # their rules differ: each keeps its own


def test_a_map_beside_a_score_grid_in_a_slide_is_refused_not_drawn_small():
    mixed = attnviz.compose(attnviz.figure(view="mask", n=16), attnviz.figure(view="scores"), frame="slide")
    with pytest.raises(InputError, match="2 panels do not fit the slide frame.*--frame doc"):
        mixed.layout()


#: Gallery figures a frame refuses, in one line naming the frame that fits: maps whose cells
#: would be under a tenth of an inch in a 3.3-inch column (NSA's four 12-token maps; two papers' 2×2 grids, given
#: by name in their specs, of 12 and 16 tokens).
REFUSED_HERE = {("sparse-nsa", "column"): "--frame column-wide",
                ("paper-longformer", "column"): "--frame column-wide",
                ("paper-sparse-transformer", "column"): "--frame column-wide"}


def _gallery_cases():
    from attnviz.publish.gallery import ENTRIES

    def drawn_here(args):  # a mask map, heads, or a grid beside its bias matrix
        return "--q-heads" in args or ("--show", "bias") in zip(args, args[1:]) or ("--view", "mask") in zip(args,
                                                                                                          args[1:])

    mine = [e for e in ENTRIES if not e.step and (e.spec or drawn_here(e.args))]
    return [(e, frame) for e in mine for frame in FRAMES]


@pytest.mark.parametrize("entry, frame", _gallery_cases(), ids=lambda v: getattr(v, "name", v))
def test_the_gallery_s_maps_panels_heads_and_bias_panels_in_every_frame(entry, frame, tmp_path):
    """Drawn as the command draws them; the SVG itself measured: its viewBox's aspect and every text's size
    against the floor at the frame's size (the role from the text's class)."""
    from attnviz.layout.frames import MAIN_ROLES

    if entry.spec:
        spec = tmp_path / "spec.toml"
        own = "".join(line for line in entry.spec.splitlines(keepends=True) if not line.startswith("frame ="))
        spec.write_text(f'frame = "{frame}"\n' + own, encoding="utf-8")
        result = run_cli("render", str(spec), "-o", "-")
    else:
        result = run_cli("render", *entry.args, "--frame", frame, "-o", "-")
    if (entry.name, frame) in REFUSED_HERE:  # refused in one line, naming the frames that fit
        assert result.code == 2 and result.stderr.count("\n") == 1 and REFUSED_HERE[entry.name, frame] in result.stderr
        return
    assert result.code == 0, result.stderr
    root = ET.fromstring(result.stdout)
    width, height = map(float, root.get("viewBox").split()[2:])
    fr = get_frame(frame)
    if fr.aspect is not None:
        assert width / height == pytest.approx(fr.aspect, rel=1e-4)
    for text in root.iter(f"{SVG}text"):
        role = text.get("class").removeprefix("attnviz-").removesuffix("-text")
        assert float(text.get("font-size")) >= fr.min_size(width, main=role in MAIN_ROLES) - 0.01, (role, text.text)


_WORDS = st.sampled_from(["long", "supercalifragilistic", "x", "mask", "window", "ß", "verylongtokenname"])
_MAP = st.fixed_dictionaries({
    "n": st.sampled_from([1, 2, 3, 5, 8, 16, 40, 100]),
    "mask": st.sampled_from(["causal", "none"]),
    "title": st.none() | st.lists(_WORDS, min_size=1, max_size=12).map(" ".join),
    "tokens": st.booleans(),
})


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(FRAMES), st.lists(_MAP, min_size=1, max_size=5), st.sampled_from(["row", "column", "grid:2"]),
       st.sampled_from(["auto", "show", "shared", "hide"]), st.sampled_from(["auto", "show", "shared", "hide"]),
       st.data())
def test_any_maps_in_any_frame_fit_or_are_refused(frame, specs, arrange, captions, subtitles, data):
    figs = []
    for spec in specs:
        kwargs = {"view": "mask", "mask": spec["mask"], "title": spec["title"], "frame": frame}
        if spec["tokens"]:
            kwargs["tokens"] = data.draw(st.lists(_WORDS, min_size=spec["n"], max_size=spec["n"]))
        else:
            kwargs["n"] = spec["n"]
        figs.append(attnviz.figure(**kwargs))
    fig = figs[0] if len(figs) == 1 else attnviz.compose(*figs, frame=frame, arrange=arrange,
                                                         panel_captions=captions, panel_subtitles=subtitles)
    try:
        layout = fig.layout()
    except InputError as err:
        assert "--frame doc" in str(err)
        return
    assert_fits(layout, frame)
    assert_no_text_on_a_map(layout)


@pytest.mark.parametrize("frame", FRAMES)
@pytest.mark.parametrize("view, columns", [("scores", 3), ("full", 2)])
def test_a_grid_with_more_columns_than_panels_is_their_row(frame, view, columns, tmp_path):
    """`arrange = "grid:3"` with one score-grid panel raised ValueError in every frame but doc (fuzzing found it)."""
    spec = tmp_path / "p.toml"
    spec.write_text(f'arrange = "grid:{columns}"\n[[panel]]\nview = "{view}"\nq = "1; 2"\nk = "1; 2"\n',
                    encoding="utf-8")
    drawn = run_cli("render", str(spec), "--frame", frame, "-o", "-")
    assert drawn.code == 0, drawn.stderr
    assert drawn.stdout.count('class="attnviz-panel"') == 1


def test_composed_figures_print_no_taller_than_a_page_in_a_column():
    """Fuzzing printed a 2-panel grid 12 inches tall in column-wide and six full panels 11 inches tall in a
    column; a column's figure is at most a page's 9 inches, or refused in one line naming the ways out."""
    six = attnviz.compose(*[attnviz.figure([[1, 0], [0, 1]], [[1, 0], [0, 1]]) for _ in range(6)], frame="column")
    layout = six.layout()
    assert layout.height * 3.3 / layout.width <= 9 and "panels in a column instead of a row" in layout.choices
    pair = attnviz.compose(attnviz.figure([[1], [2]], [[1], [2]]), attnviz.figure(view="mask", n=16),
                           arrange="grid:2", frame="column-wide")
    heads = attnviz.figure(q_heads=[[[1], [2], [3]]] * 8, k_heads=[[[1], [2], [3]]] * 8, view="scores",
                           frame="column-wide")
    for refused, panels, inches in ((pair, 2, "11.9"), (heads, 8, "10.3")):  # (at the floor but too tall: said so)
        with pytest.raises(InputError) as error:
            refused.layout()
        assert str(error.value) == (f"frame: the {panels} panels print {inches} inches tall in the column-wide frame, "
                                    "past a page's 9; try fewer panels or tokens, --view mask or --frame doc")


@pytest.mark.parametrize("view", VIEWS)
def test_no_hostile_text_reaches_past_its_figure(view):
    """Issue 39: every title, subtitle, axis title and token label of every view in every frame stays inside the
    canvas (wrapped, cut between letters, shortened with "…"), overlapping nothing, or the figure is refused in one
    line (tests/hostile_texts.py: long words, many short words, right-to-left, CJK, emoji, combining marks).
    Chromium's twin: tests/test_viewbox_browser.py."""
    for case in [case for case in cases() if case[0] == view]:
        got = drawn(*case)
        if got is not None:
            assert outside(got[1]) == [], case
            assert_clean(got[1])


@pytest.mark.parametrize("frame", ["doc"] + FRAMES)
def test_a_long_axis_title_is_shortened_to_its_grid_on_one_line(frame):
    """A 72-letter axis title was drawn 411 units above the figure and 481 below it: now one line, no longer than
    the grid's side and the margins beside it (X_TITLE_SPILL, Y_TITLE_SPILL), ending with "…"."""
    layout = attnviz.figure(view="mask", n=8, x_title="X" * 72, y_title="Y" * 72, frame=frame).layout()
    map_x, top, cell = layout.grid
    x_title, y_title = [text for text, _ in layout.texts_in_boxes() if text.role == "axis-title"]
    assert x_title.lines[0].startswith("XXX") and x_title.lines[0].endswith("…") and len(x_title.lines) == 1
    assert y_title.lines[0].startswith("YYY") and y_title.lines[0].endswith("…") and len(y_title.lines) == 1
    (x0, _, x1, _), = x_title.line_boxes()
    (_, y0, _, y1), = y_title.line_boxes()
    assert map_x - 14 <= x0 and x1 <= map_x + 8 * cell + 14
    assert top - 18 <= y0 and y1 <= top + 8 * cell + 18
    assert outside(layout) == []
    assert f"long axis titles shortened: {'X' * 72}; {'Y' * 72}" in layout.choices  # the description says them whole


def test_axis_titles_shortened_in_panels_are_said_whole():
    fig = attnviz.figure(view="mask", n=8, head_masks=["causal", "window=2"], x_title="X" * 110, frame="slide")
    assert f"long axis titles shortened: {'X' * 110}" in fig.layout().choices
    composed = attnviz.compose(attnviz.figure(view="mask", n=4, y_title="Y" * 72), attnviz.figure(view="mask", n=4))
    assert f"long axis titles shortened: {'Y' * 72}" in composed.layout().choices
    assert "Y" * 72 in composed.svg()


def test_axis_titles_that_fit_are_drawn_whole():
    layout = attnviz.figure(view="mask", n=3, x_title="key j", y_title="query position i").layout()
    assert [text.text for text, _ in layout.texts_in_boxes() if text.role == "axis-title"] == [
        "key j", "query position i"]
