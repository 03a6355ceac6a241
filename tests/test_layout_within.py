"""A frame tries each choice with `lay_out_within`, which stops as soon as the layout is certain to be taller
than the slide: it must be `lay_out` exactly, or None only where `lay_out` is taller (layout.framed)."""

import pytest

import attnviz
from attnviz.layout.figure import lay_out, lay_out_within
from attnviz.layout.framed import frame_metrics
from attnviz.layout.frames import get_frame
from attnviz.records import replace

from test_frame_layout import FIGURES as FRAME_FIGURES  # the figures the frame tests lay out

FIGURES = {name: FRAME_FIGURES[name] for name in ("seed", "sentence", "alibi", "values")} | {
    "scores": FRAME_FIGURES["sentence-scores"]}


@pytest.mark.parametrize("frame", ["slide", "slide-4:3", "column"])
@pytest.mark.parametrize("name", FIGURES)
def test_a_layout_that_may_stop_is_the_layout_or_stops_only_past_its_height(name, frame):
    words = attnviz.figure(**FIGURES[name]).words
    for stacked in (True, False):
        for masked_word in (True, False):
            metrics = replace(frame_metrics(get_frame(frame)), stacked=stacked, masked_word=masked_word)
            full = lay_out(words, metrics=metrics)
            for height in (full.height - 1e-5, full.height - 1e-7, full.height, full.height + 1,
                           full.height * 0.4, full.height * 0.8):
                within = lay_out_within(words, height, metrics=metrics)
                if within is None:
                    assert full.height > height + 1e-6
                else:
                    assert (within.width, within.height, within.items) == (full.width, full.height, full.items)
