"""Frames (layout.frames): each frame's size and floors, and the canvas fitted to a slide's aspect."""

import pytest

import attnviz
from attnviz.layout.frames import FRAMES, fit_to_frame, get_frame, text_floor_misses
from attnviz.layout.items import Layout, Rect, Text
from attnviz.numbers.exact import InputError


def test_the_floors_are_the_issue_s_pixels_and_points():
    slide = get_frame("slide")
    assert slide.min_size(1280) == pytest.approx(16, abs=0.01)  # 12 pt on a 13.333-inch slide at 1,280 px
    assert slide.min_size(1280, main=True) == pytest.approx(24, abs=0.01)  # 18 pt
    assert slide.min_size(640) == pytest.approx(8, abs=0.01)  # a viewBox half as wide: half the units
    assert get_frame("slide-4:3").min_size(960) == pytest.approx(16)
    assert get_frame("column").min_size(3.3 * 72) == pytest.approx(7)
    assert get_frame("column-wide").min_size(7 * 72) == pytest.approx(7)
    assert FRAMES["doc"].min_size(100) == 0


def test_fit_to_frame_gives_the_slide_s_aspect_and_centres_the_content():
    tall = Layout(100, 200, "t", "d", [Rect("cell", 0, 0, 100, 200)])
    fitted = fit_to_frame(tall, get_frame("slide"))
    assert fitted.width / fitted.height == pytest.approx(16 / 9)
    assert fitted.height == 200
    rect = fitted.items[0]
    assert isinstance(rect, Rect) and rect.x == pytest.approx((fitted.width - 100) / 2)
    assert fit_to_frame(tall, get_frame("column")) is tall


def test_text_floor_misses_names_each_small_text():
    layout = Layout(1280, 720, "t", "d", [Text("tick", 0, 20, ("1",)), Text("title", 0, 40, ("T",))])
    misses = text_floor_misses(layout, get_frame("slide"))
    assert [(role, text) for role, text, _, _ in misses] == [("tick", "1")]


def test_an_unknown_frame_is_one_line_naming_the_choices():
    with pytest.raises(InputError, match="choose doc, slide, slide-4:3, column or column-wide"):
        attnviz.figure(frame="poster")  # type: ignore[arg-type]


def test_the_doc_frame_is_the_figure_as_before():
    assert attnviz.figure(frame="doc").svg() == attnviz.figure().svg()
