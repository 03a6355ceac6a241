"""Hostile user texts (titles, subtitles, axis titles, token labels) and every view they are drawn in, for the
tests that hold every text inside its figure's viewBox (tests/test_frame_maps.py at the layout's level,
tests/test_viewbox_browser.py in Chromium)."""

import random

import attnviz
from attnviz.numbers.exact import InputError

__all__ = ["HOSTILE", "VIEWS", "FRAMES", "cases", "drawn", "outside"]

FRAMES = ["doc", "slide", "slide-4:3", "column", "column-wide"]
_rng = random.Random(39)
_ALPHABET = "abcdefghijklmnopqrstuvwxyzW" + "אבגדהוזחטיכלמנסעפצקרשת" + "注意力机制可视化" + "😀👩‍🚀🇫🇷" + "e\u0301"
HOSTILE = {
    "100 letters": "m" * 100,  # (not "A": DejaVu kerns A-A apart, 4% wider than the layout measures)
    "a 72-letter word": "X" * 72,
    "long words": "Supercalifragilisticexpialidocious" * 3,
    "many short words": " ".join(["ab"] * 80),
    "right to left": "שלום עולם " * 12,
    "CJK": "注意力机制的可视化" * 10,
    "emoji": "👩‍👩‍👧‍👦🎉" * 30,
    "combining marks": "e\u0301\u0302\u0303" * 60,
    "300 letters (the limit)": "W" * 300,
    "zero-width spaces": "\u200b".join(["abc"] * 70),
    "no-break spaces": "\u00a0".join(["word"] * 50),
    "bidi overrides": "abc \u202eRTL override\u202c " * 8,
    "one wide glyph": "\ufdfd" * 40,
    "seeded mix": "".join(_rng.choice(_ALPHABET) for _ in range(90)),
    "seeded words": " ".join("".join(_rng.choice(_ALPHABET) for _ in range(_rng.randint(1, 30))) for _ in range(12)),
}


def _heads(text, field, frame):
    one = [[1, 0], [0, 1]]
    return attnviz.figure(q_heads=[one] * 2, k_heads=[one], view="heads", frame=frame, **{field: text})


#: (view, the user texts it draws, a maker (text, field, frame) -> figure)
VIEWS = {
    "mask": (("title", "subtitle", "x_title", "y_title", "tokens"),
             lambda text, field, frame: attnviz.figure(view="mask", n=8, mask="causal", frame=frame, **_field(
                 field, text, 8))),
    "full": (("title", "subtitle", "tokens"),
             lambda text, field, frame: attnviz.figure(frame=frame, **_field(field, text, 3))),
    "scores": (("title", "subtitle", "tokens"),
               lambda text, field, frame: attnviz.figure(view="scores", frame=frame, **_field(field, text, 3))),
    "head maps": (("title", "subtitle", "x_title", "y_title"),
                  lambda text, field, frame: attnviz.figure(view="mask", n=8, head_masks=["causal", "window=2"],
                                                            frame=frame, **{field: text})),
    "composed": (("title", "x_title", "y_title"),
                 lambda text, field, frame: attnviz.compose(
                     attnviz.figure(view="mask", n=6, **({} if field == "title" else {field: text})),
                     attnviz.figure(view="mask", n=6, mask="window=2"), frame=frame,
                     title=text if field == "title" else None)),
    "heads schematic": (("title", "subtitle"), _heads),
    "model": (("title", "tokens"),
              lambda text, field, frame: attnviz.model_figure(
                  {"model_type": "gemma2", "num_hidden_layers": 2, "sliding_window": 2}, frame=frame,
                  **_field(field, text, 4))),
}


def _field(field, text, n):
    """The keyword that gives `text` as `field` (tokens: a label of each of `n` tokens, each one hostile)."""
    if field == "tokens":
        return {"tokens": [f"{text[:40]}{i}" for i in range(n)]} if n != 8 else {"tokens": [text[:40]] * n}
    return {field: text}


def cases():
    """(view, frame, case, field) of every hostile text in every view and frame."""
    return [(view, frame, case, field) for view, (fields, _) in VIEWS.items() for frame in FRAMES
            for case in HOSTILE for field in fields]


def drawn(view, frame, case, field):
    """(figure, its layout), or None when it is refused in one line (an InputError)."""
    fields, make = VIEWS[view]
    try:
        fig = make(HOSTILE[case], field, frame)
        return fig, fig.layout()
    except InputError as error:
        assert "\n" not in str(error)
        return None


def outside(layout, slack=0.01):
    """Every line of text (role, text, box) that reaches past the layout's canvas."""
    return [(text.role, text.text[:30], box) for text, _ in layout.texts_in_boxes() for box in text.line_boxes()
            if box[0] < -slack or box[1] < -slack or box[2] > layout.width + slack or box[3] > layout.height + slack]
