"""Every figure the frame measurements check (tests/test_frame_fit.py): each `attnviz gallery` entry and each
browser-test figure, made for a given frame.

`python tests/frame_cases.py [OUT]` writes each, in every frame but doc, as a PNG at the frame's size
(default out/looks/frames/FRAME/NAME.png; `make looks`), to look at.
"""

import sys
from dataclasses import replace
from pathlib import Path

import attnviz
from attnviz.layout.frames import FRAME_NAMES
from attnviz.publish.gallery import ENTRIES, Q5, dilated, make
from attnviz.io.spec import parse_vectors
from browser_gallery import GALLERY

__all__ = ["CASES", "framed_entry", "main"]


def framed_entry(entry, frame):
    """The gallery entry's figure, as `attnviz gallery` draws it, but made for `frame`."""
    if entry.spec:  # the key goes first: after a [[panel]] table it would be the last panel's
        own = "".join(line for line in entry.spec.splitlines(keepends=True) if not line.startswith("frame ="))
        return make(replace(entry, spec=f'frame = "{frame}"\n{own}'))
    if not entry.args:  # the custom mask, drawn through the API
        vectors = parse_vectors(Q5, "q")
        return attnviz.figure(vectors, vectors, mask=dilated, title=entry.title, frame=frame)
    return make(replace(entry, args=(*entry.args, "--frame", frame)))


#: name: a function of the frame that makes the figure. "gallery/…": `attnviz gallery`'s entries;
#: "browser/…": the browser tests' figures (tests/browser_gallery.py), in the light theme.
CASES = {
    **{f"gallery/{entry.name}": (lambda frame, entry=entry: framed_entry(entry, frame)) for entry in ENTRIES},
    **{f"browser/{name}": (lambda frame, made=made: made("light", frame)) for name, made in GALLERY.items()},
}


def main(out="out/looks/frames"):
    for frame in FRAME_NAMES[1:]:
        for name, make_it in CASES.items():
            path = Path(out) / frame / f"{name.replace('/', '-')}.png"
            try:
                make_it(frame).save(path)
            except attnviz.InputError as err:  # a frame may refuse a figure, naming the way out
                print(f"{path}: refused: {err}")
                continue
            print(path)


if __name__ == "__main__":
    main(*sys.argv[1:])
