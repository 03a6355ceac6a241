"""The single figure made for its frame (layout.framed), on its boxes: a slide's exact aspect, no text under
the frame's floor, nothing overlapping or spilling, the same canvas for every step of a walkthrough, typeset
notation in every backend, and a refusal in one line when nothing fits."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_layout import assert_clean

import attnviz
from attnviz.layout.frames import get_frame, text_floor_misses
from attnviz.layout.items import Text
from attnviz.numbers.exact import InputError
from attnviz.publish.walkthrough.decode import decode_walkthrough
from attnviz.publish.walkthrough.flash import flash_walkthrough
from attnviz.publish.walkthrough.scores import walkthrough
from attnviz.render.tikz import tikz_items

FRAMES = ("slide", "slide-4:3", "column", "column-wide")
SIX = [[1, 0], [0, 1], [1, 1], [2, 0], [0, 2], [1, 2]]
SENTENCE = "The cat sat on the mat".split()
FIGURES = {
    "seed": {},
    "sentence": {"q": SIX, "k": SIX, "tokens": SENTENCE},
    "alibi": {"q": SIX, "k": SIX, "tokens": SENTENCE, "bias": "alibi=head:1/8", "show": "logits"},
    "scores": {"view": "scores"},
    "sentence-scores": {"q": SIX, "k": SIX, "tokens": SENTENCE, "view": "scores"},
    "values": {"v": [[1, 0], [0, 1], [1, 1]], "highlight": ["output", "row=3"]},
}


def check_framed(layout, frame_name):
    frame = get_frame(frame_name)
    if frame.is_slide:
        assert layout.width / layout.height == pytest.approx(16 / 9 if frame_name == "slide" else 4 / 3, rel=1e-12)
        assert layout.width <= frame.judged_px + 1e-6  # the sizes are the floors or more at the slide's pixels
    else:
        assert layout.width <= frame.width_in * 72 * 14 / 7 + 1e-6
        assert layout.height <= layout.width * 9 / frame.width_in + 1e-6  # no taller than a page's 9 inches
    assert text_floor_misses(layout, frame) == []
    assert_clean(layout)
    assert layout.choices  # said in <desc>


def smallest_px(layout, frame_name, roles=None):
    """The smallest text, in the slide's pixels (or the column's printed points)."""
    frame = get_frame(frame_name)
    scale = (frame.judged_px if frame.is_slide else frame.width_in * 72) / layout.width
    texts = [t for t in layout.walk() if isinstance(t, Text) and (roles is None or t.role in roles)]
    return min(t.style.size * scale for t in texts)


@pytest.mark.parametrize("frame", FRAMES)
@pytest.mark.parametrize("name", FIGURES)
def test_each_figure_fits_each_frame_or_refuses_in_one_line(name, frame):
    layout = attnviz.figure(frame=frame, **FIGURES[name]).layout()
    check_framed(layout, frame)
    if get_frame(frame).is_slide:
        assert smallest_px(layout, frame) >= 16 - 1e-9
        assert smallest_px(layout, frame, {"score", "score-computed", "caption"}) >= 24 - 1e-9
    else:
        assert smallest_px(layout, frame) >= 7 - 1e-9


def steps(kind, frame):
    if kind == "scores":
        return walkthrough(attnviz.figure(frame=frame))[1]
    if kind == "flash":  # the tiles over the grid, the running state beside it (layout.flash_state)
        return flash_walkthrough(attnviz.figure(frame=frame), (2, 2))[1]
    return decode_walkthrough(attnviz.figure(SIX, SIX, mask="window=3", frame=frame), 2)[1]  # and the KV cache


#: Where a step's mechanics take room a frame has not, beside the grid or under it (a 3.3-inch column draws them
#: under the grid), the walk says its cache's slots in its steps' text instead (`publish.walkthrough.state_text`):
#: since the type scale (mechanics at the slide's 16 px step) a 4:3 slide holds six tokens' cache too; no frame
#: refuses a walk.
REFUSED: set[tuple[str, str]] = set()
STATE_IN_TEXT: set[tuple[str, str]] = set()


@pytest.mark.parametrize("frame", FRAMES)
@pytest.mark.parametrize("kind", ["scores", "flash", "decode"])
def test_every_walkthrough_step_fits_and_stays_put(kind, frame):
    figures = steps(kind, frame)
    if (kind, frame) in REFUSED:
        with pytest.raises(InputError) as refused:
            figures[0].layout()
        # (its captions already left to the walkthrough's text: the way out is the wider slide)
        assert "\n" not in str(refused.value) and "; try --frame slide" in str(refused.value)
        return
    layouts = [figure.layout() for figure in figures]
    assert len(layouts) > 1
    in_text = any(overlay.in_text for figure in figures for overlay in getattr(figure, "overlays", ()))
    assert in_text == ((kind, frame) in STATE_IN_TEXT)
    assert len({(layout.width, layout.height) for layout in layouts}) == 1  # the steps stay put
    assert len({layout.grid for layout in layouts}) == 1
    for layout in layouts:
        check_framed(layout, frame)


def test_a_step_s_mechanics_line_up_with_the_framed_grid():
    from attnviz.layout.items import Rect

    layout = steps("flash", "slide")[-1].layout()
    cells = [item for item in layout.walk() if isinstance(item, Rect) and item.role.startswith("cell")]
    tiles = [item for item in layout.walk() if isinstance(item, Rect) and item.role.startswith("tile")]
    assert tiles and all(any(abs(c.x - t.x) < 8 and abs(c.y - t.y) < 8 for c in cells) for t in tiles)
    state = [t for t in layout.walk() if isinstance(t, Text) and t.role == "state"]
    softmax = [t for t in layout.walk() if isinstance(t, Text) and t.role.startswith("softmax")]
    assert max(b[2] for t in state for b in t.line_boxes()) < min(b[0] for t in softmax for b in t.line_boxes())


def test_six_tokens_of_flash_state_leave_their_captions_to_the_walkthrough_s_text_on_a_slide():
    """Six rows of flash state beside six softmax captions do not fit 1,280 × 720 at 16 px; each step's captions
    go to the walkthrough's text and <desc> (the score table, the rows it computes banded), every step alike."""
    steps = flash_walkthrough(attnviz.figure(SIX, SIX, frame="slide"), (2, 2))[1]
    layouts = [step.layout() for step in steps]
    assert len({(layout.width, layout.height) for layout in layouts}) == 1
    for step, layout in zip(steps, layouts):
        check_framed(layout, "slide")
        said = [choice for choice in layout.choices if choice.startswith("a walkthrough step's softmax captions")]
        assert len(said) == 1 and said[0] in step.svg().split("<desc")[1]
        assert not [t for t in layout.walk() if isinstance(t, Text) and t.role.startswith("softmax")]
    banded = [item for item in layouts[-1].walk() if getattr(item, "classes", ())[:1] == ("attnviz-row-band",)]
    assert banded  # the last tile's rows, computed this step, banded in the grid
    ten = [[i % 3, (i * 2) % 5 - 2] for i in range(10)]
    with pytest.raises(InputError) as refused:  # ten rows of state: refused in one line, naming the ways out
        flash_walkthrough(attnviz.figure(ten, ten, frame="slide"), (2, 2))[1][0].layout()
    assert "\n" not in str(refused.value) and "; try " in str(refused.value)


def test_the_doc_frame_is_the_seed_figure_byte_for_byte():
    assert attnviz.figure(frame="doc").svg() == attnviz.figure().svg()
    assert attnviz.figure(frame="doc").layout().choices == ()


def test_the_choices_come_in_order_and_are_said_in_desc():
    seed = attnviz.figure(frame="slide")
    assert [c.split(":")[0] for c in seed.layout().choices] == [
        "chrome left to the slide", "notation typeset", "landscape",
        "stacked fractions for the named weights, in rows where they fit"]
    sentence = attnviz.figure(SIX, SIX, tokens=SENTENCE, frame="slide").layout()
    assert sentence.choices[4:] == ("fractions on one line",
                                    "normalizer captions: e^a/Z_i, each row's Z_i written once")
    svg = seed.svg()
    desc = re.search(r"<desc[^>]*>(.*?)</desc>", svg).group(1)
    assert "Laid out to fit: chrome left to the slide" in desc
    # the chrome a slide leaves out keeps its words in <desc>
    assert "exact scores, exact causal mask, named softmax" in desc and "no decimal attention weights" in desc
    assert "attnviz-badge" not in svg and "attnviz-footer-text" not in svg


def test_the_seed_s_weights_are_stacked_fractions_on_a_slide():
    layout = attnviz.figure(frame="slide").layout()
    bars = [item for item in layout.walk() if getattr(item, "role", "") == "fraction-bar"]
    assert len(bars) == 5  # row 2's two weights and row 3's three
    weights = [t.text for t in layout.walk() if isinstance(t, Text) and t.role == "softmax-weights"]
    assert weights[:3] == ["weights 1", "weights ", "e^0"] and "e^1+e^1+e^2" in weights
    for bar in bars:  # each bar as wide as its wider part, with both parts over and under it
        parts = [t for t in layout.walk() if isinstance(t, Text) and t.role == "softmax-weights"
                 and bar.x <= t.x and t.x + 1 <= bar.x + bar.w]
        above = [t for t in parts if bar.y - 8 <= t.line_boxes()[0][3] <= bar.y]
        below = [t for t in parts if bar.y + bar.h <= t.line_boxes()[0][1] <= bar.y + bar.h + 8]
        assert len(above) == len(below) == 1
    assert "attnviz-fraction-bar" in attnviz.figure(frame="slide").svg()
    column = attnviz.figure(frame="column").layout()
    assert len([item for item in column.walk() if getattr(item, "role", "") == "fraction-bar"]) == 5


def test_a_long_figure_is_elided_to_fit_a_slide():
    q = [[i % 3, (i * 2) % 5 - 2] for i in range(16)]
    layout = attnviz.figure(q, q, frame="slide").layout()
    check_framed(layout, "slide")
    assert any(choice.startswith("elided: rows 5–14 and keys 5–14 not shown") for choice in layout.choices)
    twelve = [[i % 3, (i * 2) % 5 - 2] for i in range(12)]
    layout = attnviz.figure(twelve, twelve, frame="slide").layout()
    check_framed(layout, "slide")
    assert layout.choices[-1] == "elided: rows 5–10 and keys 5–10 not shown"


def test_eight_tokens_keep_their_whole_grid_beside_fewer_captions_on_a_slide():
    """Eight rows of captions are taller than the slide; the grid is not: the captions of rows 5 and 6 go to
    <desc> (the heading says so), every cell stays drawn."""
    eight = [[i % 3, (i * 2) % 5 - 2] for i in range(8)]
    fig = attnviz.figure(eight, eight, frame="slide")
    layout = fig.layout()
    check_framed(layout, "slide")
    assert not any(choice.startswith("elided") for choice in layout.choices)
    said = layout.choices[-1]
    assert said.startswith("the softmax captions of rows 5–6 left to this description: row 5: scores [-2,1,4,-1,2]")
    texts = [text.text for text in layout.walk() if isinstance(text, Text)]
    assert "row softmax over unmasked scores; rows 5–6 not shown" in texts
    assert [t for t in texts if t.startswith("row ") and ": scores" in t] == [
        t for t in texts if t.split(":")[0] in ("row 1", "row 2", "row 3", "row 4", "row 7", "row 8")]
    assert sum(1 for item in layout.walk() if getattr(item, "role", "").startswith("cell-")) == 64
    assert said in fig.svg().split("<desc")[1]  # the captions left out, whole, in the description
    highlighted = attnviz.figure(eight, eight, highlight=["softmax=5"], frame="slide").layout()
    assert [choice.partition(":")[0] for choice in highlighted.choices[-2:]] == [
        "the softmax caption of row 6 left to this description", "the softmax captions of rows 3–4, 7 left to this "
        "description"]  # the highlighted row 5 keeps its caption; the heading names every row left out, once
    assert "row softmax over unmasked scores; rows 3–4, 6–7 not shown" in [
        text.text for text in highlighted.walk() if isinstance(text, Text)]
    named = attnviz.figure(eight, eight, highlight=["6,2"], frame="slide").layout()  # a cell names its row too
    assert "row softmax over unmasked scores; rows 3–5, 7 not shown" in [
        t.text for t in named.walk() if isinstance(t, Text)]  # (row 6 kept: its cell 6,2 is highlighted)
    # A walkthrough's step keeps every caption it draws (which it kept would follow its highlight): the eight
    # tokens' steps, the softmax and output steps at the end too, leave them all to the walkthrough's text
    layouts = [step.layout() for step in walkthrough(attnviz.figure(eight, eight, frame="slide"))[1]]
    assert len({(layout.width, layout.height) for layout in layouts}) == 1
    for layout in layouts:
        assert not any(choice.startswith("the softmax caption") for choice in layout.choices)
        assert layout.choices[-1].startswith("a walkthrough step's softmax captions left to its text")
    four = walkthrough(attnviz.figure(eight[:4], eight[:4], frame="slide"))[1]
    assert len({(layout.width, layout.height) for layout in (step.layout() for step in four)}) == 1


def test_long_labels_fit_a_slide_with_the_grid_s_caption_across_it():
    from browser_gallery import LONG_TOKENS, _grid

    # (the long-labels figure with a longer rule in its caption: the type scale's 24 px caption fits its own beside
    # the grid)
    layout = attnviz.figure(*_grid(len(LONG_TOKENS)), tokens=LONG_TOKENS, highlight=["row=3", "softmax=2"],
                            title="Token labels of every length, in several scripts, with a title long enough that it "
                                  "has to wrap onto a second line rather than run off the canvas",
                            subtitle="Headers, vector lines and softmax rows carry the tokens verbatim.",
                            mask="window=2,symmetric | global=1", frame="slide").layout()
    check_framed(layout, "slide")
    assert "the grid's caption across the figure" in layout.choices
    caption = next(t for t in layout.walk() if isinstance(t, Text) and t.role == "caption")
    vectors = next(t for t in layout.walk() if isinstance(t, Text) and t.role == "vectors")
    assert len(caption.lines) <= 2 and caption.y < vectors.y and caption.x < vectors.x  # (its long rule: 2 lines)


@pytest.mark.parametrize("frame", ["column", "column-wide"])
def test_a_long_figure_is_no_taller_than_a_page_in_a_column(frame):
    q = [[i % 3, (i * 2) % 5 - 2] for i in range(16)]
    layout = attnviz.figure(q, q, frame=frame).layout()
    check_framed(layout, frame)
    assert any(choice.startswith("elided") for choice in layout.choices)


def test_what_no_choice_fits_is_refused_in_one_line_naming_the_way_out():
    q = [["7/3", "-5/2"], ["1/4", "9/5"], ["-8/3", "3/7"], ["5/6", "-2/9"]]  # 4 tokens: too few to elide
    with pytest.raises(InputError) as refused:
        attnviz.figure(q, q, frame="slide-4:3").layout()
    message = str(refused.value)
    assert "\n" not in message and "--frame slide" in message and "--view scores" in message
    for way_out in ({"frame": "slide"}, {"frame": "slide-4:3", "view": "scores"}):  # the ways out work
        check_framed(attnviz.figure(q, q, **way_out).layout(), way_out["frame"])


def test_exponents_are_raised_smaller_tspans_and_minus_signs_are_minus_signs():
    svg = attnviz.figure([[1, 0], [0, -1], [1, 1]], [[1, 0], [0, 1], [1, 1]], frame="slide").svg()
    # e⁰ raised, smaller than its 18 px line but held at the slide's 16 px floor; S_ij lowered, held at 24 px
    assert re.search(r'<tspan dy="-[\d.]+" font-size="16">0</tspan>', svg)
    assert re.search(r'<tspan dy="[\d.]+" font-size="24">ij</tspan>', svg)
    texts = re.findall(r"<text[^>]*>(.*?)</text>", svg)
    assert not any("^" in text for text in texts)
    assert "−1" in svg  # the score −1 and e^(−1), with U+2212
    # the doc frame keeps the seed's text exactly
    assert "e^0/(e^0+e^1)" in attnviz.figure().svg()


def test_the_screen_reader_text_stays_plain():
    kwargs = {"q": [[1, 0], [0, -1]], "k": [[1, 0], [0, 1]]}
    slide, doc = attnviz.figure(frame="slide", **kwargs).svg(), attnviz.figure(**kwargs).svg()

    def spoken(svg):
        return re.findall(r'aria-(?:description|label)="([^"]*)"', svg)

    assert spoken(slide) == spoken(doc) and spoken(slide)
    assert not any("−" in text or "\u2070" in text for text in spoken(slide))


def test_a_script_under_the_floor_is_a_miss():
    from attnviz.layout.items import Layout

    small = Text("softmax-weights", 0, 20, ("e^1",), size=18, math=True, script=12)
    held = Text("softmax-weights", 0, 40, ("e^1",), size=18, math=True, script=16)
    misses = text_floor_misses(Layout(1280, 720, "t", "d", [small, held]), get_frame("slide"))
    assert [(role, size) for role, _, size, _ in misses] == [("softmax-weights", 12)]


def test_a_user_s_labels_are_never_typeset():
    labels = ["e^2", "x_1", "a-1"]
    fig = attnviz.figure([[1, 0], [0, 1], [1, 1]], [[1, 0], [0, 1], [1, 1]], tokens=labels, frame="slide")
    svg = fig.svg()
    assert "Q(e^2)=(1,0)" in svg and "K(x_1)=(0,1)" in svg and "Q(a-1)=(1,1)" in svg
    texts = [t for t in fig.layout().walk() if getattr(t, "role", "") == "vectors"]
    user_runs = [run for t in texts for line in t.line_runs() for run in line if run[1] == "user"]
    assert ("e^2", "user") in user_runs and ("x_1", "user") in user_runs


def test_tikz_and_powerpoint_paint_the_scripts():
    layout = attnviz.figure(frame="slide").layout()
    tikz = "\n".join(tikz_items(layout))
    # a stacked fraction's parts and the caption's subscript: runs, each script at the size the layout gave
    # it (the frame's floor), never TeX's script style (70 % of the line)
    assert r"{e\attnvizscript{3.6pt}{" in tikz and r"}{0}+e\attnvizscript{3.6pt}{" in tikz
    assert r"S\attnvizscript{-1.8pt}{" in tikz and "$e^{" not in tikz and r"\textsuperscript" not in tikz
    assert r"\attnvizfit{" in tikz  # held to the widths the layout measured
    sizes = {float(size) for size in re.findall(r"\\attnvizscript\{-?[\d.]+pt\}\{([\d.]+)pt\}", tikz)}
    scripts = {t.script / t.style.size * 10 for t in layout.walk() if getattr(t, "math", False) and t.script}
    assert sizes and all(any(abs(size - s) < 0.01 for s in scripts) for size in sizes)
    inline = "\n".join(tikz_items(attnviz.figure(SIX, SIX, frame="slide").layout()))
    assert r"weights e\attnvizscript{3.6pt}" in inline and r"/Z\attnvizscript{-1.8pt}" in inline
    from attnviz.render.pptx import figure_group

    xml, _ = figure_group(layout, "figure", 1, 0, 0, 9525)
    baselines = [int(b) for b in re.findall(r'baseline="(-?\d+)"', xml)]
    assert sum(b > 0 for b in baselines) >= 6 and any(b < 0 for b in baselines)  # raised and lowered runs


def test_widths_measure_scripts_at_their_size():
    layout = attnviz.figure(frame="column").layout()
    weights = [t for t in layout.walk() if getattr(t, "role", "") == "softmax-weights"][1]
    (box,) = weights.line_boxes()
    from attnviz.layout.items import measure

    flat = measure(weights.text.replace("^", ""), weights.style)
    assert box[2] - box[0] < flat  # "e⁰" is narrower than "e0"


small = st.integers(-9, 9) | st.fractions(-9, 9, max_denominator=4)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 6), st.integers(1, 3), st.data())
def test_random_small_figures_fit_a_slide_or_refuse_in_one_line(n, d, data):
    vector = st.lists(small, min_size=d, max_size=d)
    q = data.draw(st.lists(vector, min_size=n, max_size=n))
    k = data.draw(st.lists(vector, min_size=n, max_size=n))
    try:
        layout = attnviz.figure(q, k, frame="slide", highlight=["softmax", "row=1"]).layout()
    except InputError as refused:
        assert "\n" not in str(refused) and "--view mask" in str(refused)
        return
    check_framed(layout, "slide")


def test_verbose_says_the_choices_and_a_refusal_is_one_line_exit_2():
    from clirun import run_cli

    said = run_cli("render", "--frame", "slide", "--verbose", "-o", "-")
    assert said.code == 0 and said.stdout.startswith("<svg")
    choices = attnviz.figure(frame="slide").layout().choices
    assert said.stderr.splitlines() == [f"attnviz: frame slide: {choice}" for choice in choices]
    four = "7/3,-5/2; 1/4,9/5; -8/3,3/7; 5/6,-2/9"
    refused = run_cli("render", "--frame", "slide-4:3", "--q", four, "--k", four, "-o", "-")
    assert refused.code == 2 and refused.stdout == ""
    assert len(refused.stderr.splitlines()) == 1 and refused.stderr.startswith("attnviz: error: ")
    assert "--view mask" in refused.stderr


@pytest.mark.parametrize("frame", ["slide", "column"])
def test_a_page_s_sections_take_the_frame(frame):
    from dataclasses import replace

    from attnviz.publish.document import build_figures, default_document

    document = default_document()
    figures = build_figures(replace(document, figure={**document.figure, "frame": frame}))
    layouts = [figure.layout() for figure in figures]
    assert len({(layout.width, layout.height) for layout in layouts}) == 1
    for layout in layouts:
        check_framed(layout, frame)


def test_a_slide_with_its_own_title_leaves_the_figure_s_to_its_title_element():
    fig = attnviz.figure(frame="slide", title="Causal attention")
    layout = fig.layout(titled=False)
    check_framed(layout, "slide")
    assert not [t for t in layout.walk() if isinstance(t, Text) and t.role == "title"]
    assert layout.title == "Causal attention" and layout.choices[0].startswith("chrome left to the slide: title,")
    assert [t.text for t in fig.layout().walk() if isinstance(t, Text) and t.role == "title"] == ["Causal attention"]


def test_a_user_s_labels_stay_untypeset_in_rewritten_captions():
    labels = ["e^2", "x_1", "a-1", "b", "c", "d"]
    layout = attnviz.figure(SIX, SIX, tokens=labels, frame="slide").layout()
    assert any(choice.startswith("normalizer captions") for choice in layout.choices)
    scores = [t for t in layout.walk() if isinstance(t, Text) and t.role == "softmax-scores"]
    assert [t.line_runs()[0][1] for t in scores] == [(label, "user") for label in labels]


def test_heads_in_a_slide_typeset_their_shared_line():
    """The line said for all heads ("score S_ij=Qi·Kj with causal mask") is notation: S, then ij lowered."""
    from attnviz.layout.items import Text

    layout = attnviz.figure(q_heads=[[[1, 0], [0, 1]]] * 2, k_heads=[[[1, 1], [0, 1]]], frame="slide").layout()
    (shared,) = [t for t in layout.walk() if isinstance(t, Text) and t.role == "subtitle"]
    runs = [run for line in shared.line_runs() for run in line]
    assert ("ij", "sub") in runs and shared.script >= shared.style.size
    doc = attnviz.figure(q_heads=[[[1, 0], [0, 1]]] * 2, k_heads=[[[1, 1], [0, 1]]]).layout()
    assert not any(isinstance(t, Text) and t.math for t in doc.walk())  # the doc frame keeps its text


@pytest.mark.parametrize("frame", ["slide", "slide-4:3", "column", "column-wide"])
def test_a_word_longer_than_its_line_is_cut_between_letters_in_a_frame(frame):
    """A 300-letter title refused even a one-token figure in every frame (fuzzing found it: 6,612 units wide);
    in a frame a user's word longer than its line is cut between letters, every letter kept."""
    import unicodedata

    title, subtitle = "T" * 300, "nai\u0308ve" * 30  # (the diaeresis a combining mark, as a keyboard may type it)
    layout = attnviz.figure([[1]], [[1]], title=title, subtitle=subtitle, frame=frame).layout()
    check_framed(layout, frame)
    texts = {t.role: t for t in layout.walk() if isinstance(t, Text)}
    assert "".join(texts["title"].lines) == title and len(texts["title"].lines) > 1
    assert "".join(texts["subtitle"].lines) == subtitle and len(texts["subtitle"].lines) > 1
    # never a mark, a vowel sign, a skin tone or a joined emoji's half at the start of a line
    joined = "नमस्ते" * 20 + "👍🏽" * 20 + "👩\u200d💻" * 20
    lines = attnviz.figure([[1]], [[1]], subtitle=joined, frame=frame).layout()
    lines = next(t for t in lines.walk() if isinstance(t, Text) and t.role == "subtitle").lines
    assert "".join(lines) == joined and len(lines) > 1
    for line in texts["subtitle"].lines + lines:
        assert not unicodedata.category(line[0]).startswith("M") and line[0] not in "🏽\u200d💻", line
    assert attnviz.figure([[1]], [[1]], title=title).layout().width > 4000  # the doc frame: the canvas grows


def test_a_grid_of_wide_values_goes_portrait_on_a_slide():
    """Three rows of 17-character values: beside the grid the captions' column is too narrow and too tall
    (found by fuzzing, with 15 characters before the type scale); with the vectors above the grid and the captions
    under it, across the slide, the figure fits whole."""
    q, k = [["-3/4", "-2/9"], ["0.25", 0], [1000, "-8/3"]], [[12345678912, 1], [2, "0.25"], ["-0.125", -1]]
    layout = attnviz.figure(q, k, highlight=["softmax=1"], tokens=["مرحبا", "internationalization", "[SEP]"],
                            frame="slide").layout()
    check_framed(layout, "slide")
    assert layout.choices[-1] == "portrait: the vectors above the grid and the captions under it, across the slide"
    texts = [t for t in layout.walk() if isinstance(t, Text)]
    grid_top, grid_bottom = layout.grid[1], max(t.y for t in texts if t.role == "score")
    assert all(t.y < grid_top for t in texts if t.role == "vectors")
    assert all(t.y > grid_bottom for t in texts if t.role.startswith("softmax"))
    assert not any(choice.startswith(("elided", "the softmax caption")) for choice in layout.choices)


@pytest.mark.parametrize("kind", ["scores", "flash", "decode"])
def test_a_walkthrough_s_steps_share_their_wrapped_lines_and_draw_as_each_alone(kind):
    """The steps of a walkthrough reuse each other's wrapped lines (`Figure.as_step`): each draws exactly as it
    does with a cache of its own."""
    q = [[1, 0], [0, 1], [1, 1], [1, -1], [0, 2]]
    fig = attnviz.figure(q, q, mask="window=2", tokens=["the", "cat", "naïve", "x", "y"], frame="slide",
                         title="A title of the walkthrough long enough that it wraps onto a second line on a slide")
    walk = {"scores": lambda: walkthrough(fig)[1], "flash": lambda: flash_walkthrough(fig, (2, 2))[1],
            "decode": lambda: decode_walkthrough(fig, 2)[1]}[kind]
    shared = walk()
    assert len({id(step._step_wraps) for step in shared}) == 1  # one cache for the whole walk
    alone = [step.as_step({}) for step in walk()]
    assert [step.svg() for step in shared] == [step.svg() for step in alone]
