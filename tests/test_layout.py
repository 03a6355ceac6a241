"""Layout on its boxes: nothing overlaps, nothing spills, for every input up to 8x8."""

from hypothesis import given
from hypothesis import strategies as st

import attnviz
from attnviz.layout.figure import wrap

tokens = st.integers(-20, 20)


def texts_with_boxes(layout):
    return layout.texts_in_boxes()


def overlaps(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def assert_clean(layout):
    boxes = []
    for text, box in texts_with_boxes(layout):
        for line in text.line_boxes():
            assert 0 <= line[0] and line[2] <= layout.width and 0 <= line[1] and line[3] <= layout.height, text
            if box:
                assert box[0] <= line[0] and line[2] <= box[2] and box[1] <= line[1] and line[3] <= box[3], text
            boxes.append((line, text.text))
    for n, (a, ta) in enumerate(boxes):
        for b, tb in boxes[n + 1:]:
            assert not overlaps(a, b), (ta, tb)


@given(st.integers(1, 8), st.integers(1, 3), st.data())
def test_no_overlap_or_spill_up_to_8x8(n, d, data):
    vec = st.lists(tokens, min_size=d, max_size=d)
    q = data.draw(st.lists(vec, min_size=n, max_size=n))
    k = data.draw(st.lists(vec, min_size=n, max_size=n))
    assert_clean(attnviz.figure(q, k, highlight=["softmax", "row=1"]).layout())


def test_seed_layout_is_clean():
    assert_clean(attnviz.figure(highlight=[(3, 3)]).layout())


def test_long_fraction_captions_wrap_and_the_canvas_grows():
    q = [[f"{i}/7", "-13/11"] for i in range(1, 9)]
    layout = attnviz.figure(q, q).layout()
    assert_clean(layout)
    weights = [t for t, _ in texts_with_boxes(layout) if t.role == "softmax-weights"]
    assert len(weights[-1].lines) > 1


def test_wrap_keeps_every_character():
    pieces = ["weights a, ", "bbbbbbbbbbbbbbbbbbbbbbbb, ", "c, ", "dddddddddddddddddddddddd"]
    lines = wrap(pieces, "softmax-weights", 200)
    assert "".join(lines) == "".join(pieces) and len(lines) > 1
