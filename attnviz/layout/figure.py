"""The full figure's layout: its words placed as items (`layout.items`), in document order."""

from __future__ import annotations

from ..words.a11y import cell_label
from ..words.user_text import user_spans
from .items import (LEADING, STYLES, Group, Layout, Mark, Rect, Text, TextStyle, measure, right_edge, text_height,
                    translate)
from .metrics import ASCENT, DESCENT

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Sequence

    from ..words.figure_text import Cell, FigureText, OutputRow, SoftmaxRow
    from .frames import Frame
    from .items import Item


# The items' names stay importable from here (panels, the mask map and tests read them here).
__all__ = ["TextStyle", "STYLES", "LEADING", "Text", "Rect", "Mark", "Group", "Layout", "lay_out", "wrap", "measure",
           "right_edge", "split_keep", "text_height", "translate", "ASCENT", "DESCENT"]


PAD = 28  # canvas margin
MIN_WRAP = 640  # captions wrap at the wider of this and the grid
CELL_MIN_W, CELL_H, CELL_GAP, CELL_PAD = 68, 46, 4, 12
HEADER_SLACK = 24  # column labels up to this much wider than the cells' content widen the cells


def wrap(pieces: Iterable[str], role: str, max_width: float, indent: float = 0,
         finer: Sequence[str] = ()) -> tuple[str, ...]:
    """Greedy line breaking that keeps every character: "".join(result) == "".join(pieces).

    A piece too wide for a line of its own is cut after each of its `finer` separators
    (a long softmax term after "+"); a piece with none stays whole and the canvas grows.
    """
    s = STYLES[role]
    lines: list[str] = []
    current, current_width = "", 0.0
    for piece in _finer(pieces, s, max_width - indent, finer):
        room = max_width - (indent if lines else 0)
        # Advance widths add up (no kerning), so the line's width is kept as a running sum.
        piece_width = measure(piece, s)
        if current and current_width + measure(piece.rstrip(), s) > room:
            lines.append(current)
            current, current_width = piece, piece_width
        else:
            current, current_width = current + piece, current_width + piece_width
    lines.append(current)
    return tuple(lines)


def _finer(pieces: Iterable[str], style: TextStyle, room: float, separators: Sequence[str]) -> Iterator[str]:
    for piece in pieces:
        if measure(piece.rstrip(), style) <= room or not separators:
            yield piece
            continue
        sep, rest = separators[0], separators[1:]
        yield from _finer(split_keep(piece, sep), style, room, rest)


class Pieces(list[str]):
    """A line split where it may break, with the line itself (`source`: its user spans go with it)."""

    def __init__(self, pieces: Iterable[str], source: str) -> None:
        super().__init__(pieces)
        self.source = source


def split_keep(text: str, sep: str) -> Pieces:
    """Split after each separator, keeping it: "a; b; c" -> ["a; ", "b; ", "c"]."""
    parts = text.split(sep)
    return Pieces([p + sep for p in parts[:-1]] + [parts[-1]], text)


def _breaks(text: str, marks: str = ",;+") -> Pieces:
    """Split after each space, and inside long words after each of `marks`: every place a line may break."""
    pieces: list[str] = []
    for word in split_keep(text, " "):
        pieces += _split_on(word, marks)
    return Pieces(pieces, text)


def _split_on(word: str, marks: str) -> list[str]:
    out: list[str] = []
    current = ""
    for ch in word:
        current += ch
        if ch in marks:
            out.append(current)
            current = ""
    return out + [current] if current else out


def _width(text: str, role: str) -> float:
    return measure(text, STYLES[role])


def lay_out(words: FigureText, min_cell_w: float | None = None, grid_top: float | None = None,
            title_role: str = "title", frame: Frame | None = None) -> Layout:
    """Place a `content.FigureText`; returns a `Layout`.

    `min_cell_w`, `grid_top`: at least this cell width and first row's top, so composed panels line up.
    `frame`: where the figure lands (layout.frames; None or doc: the web figure).
    """
    items: list[Item] = []
    n_k = len(words.k_labels)

    # Grid geometry first: its width sets where captions wrap.
    row_head_w = max(_width(label, "header") for label in words.q_labels) + 2 * CELL_PAD
    content_w = max([CELL_MIN_W, _width("masked", "masked") + 2 * CELL_PAD]
                    + [_width(c.text, "score-computed") + 2 * CELL_PAD for row in words.cells for c in row])
    label_w = max(_width(label, "header") for label in words.k_labels)
    # Column labels much wider than the cells' content stand upright instead of widening every cell.
    upright = label_w + 2 * CELL_PAD > content_w + HEADER_SLACK
    cell_w: float = content_w if upright else max(content_w, label_w + 2 * CELL_PAD)
    if min_cell_w is not None:
        cell_w = max(cell_w, min_cell_w)
    grid_w = row_head_w + n_k * (cell_w + CELL_GAP)
    wrap_w = max(MIN_WRAP, grid_w)

    y: float = PAD

    def add_text(role: str, pieces: Pieces, x: float = PAD, indent: float = 0, gap_after: float = 0,
                 finer: Sequence[str] = ()) -> Text | None:
        """`pieces`: a line split where it may break ("".join(pieces) is the line as the words wrote it)."""
        nonlocal y
        source = pieces.source
        if not "".join(pieces):  # a line this figure does not have (a bias panel's vectors)
            return None
        lines = wrap(pieces, role, wrap_w, indent, finer)
        text = Text(role, x, y + ASCENT * STYLES[role].size, lines, indent=indent, user=user_spans(source))
        items.append(text)
        y += text_height(role, len(lines)) + gap_after
        return text

    add_text(title_role, split_keep(words.title, " "), gap_after=8)
    add_text("subtitle", split_keep(words.subtitle, " "), gap_after=14)

    badge_h, badge_pad = 26, 12
    badge_w = _width(words.badge, "badge") + 2 * badge_pad
    items.append(Group(("attnviz-badge",), (), (
        Rect("badge", PAD, y, badge_w, badge_h, rx=badge_h / 2),
        Text("badge", PAD + badge_pad, y + badge_h / 2 + (ASCENT - DESCENT) / 2 * STYLES["badge"].size,
             (words.badge,)),
    ), box=(PAD, y, PAD + badge_w, y + badge_h)))
    y += badge_h + 12

    add_text("note", _breaks(words.note), gap_after=8)
    add_text("vectors", split_keep(words.q_line, "; "), gap_after=4, finer=(",",))
    add_text("vectors", split_keep(words.k_line, "; "), gap_after=4 if words.more_vectors else 24, finer=(",",))
    for n, line in enumerate(words.more_vectors, 1):
        add_text("vectors", split_keep(line, "; "), gap_after=24 if n == len(words.more_vectors) else 4,
                 finer=(",",))
    add_text("caption", split_keep(words.grid_caption, " "), gap_after=10)

    # The grid: column headers, row headers, then the cells row by row (the seed's text order).
    header_h = label_w + 18 if upright else 30
    if grid_top is not None:
        y = max(y, grid_top - header_h)
    x_cells = PAD + row_head_w
    for j, label in enumerate(words.k_labels):
        cx = x_cells + j * (cell_w + CELL_GAP) + cell_w / 2
        if label == "⋯":  # keys left out of an elided figure
            items.append(Text("elision", cx, y + header_h - 10, (label,), anchor="middle"))
        elif upright:  # the baseline sits right of the column's centre so the glyphs centre on it
            x = cx + (ASCENT - DESCENT) / 2 * STYLES["header"].size
            items.append(Text("header", x, y + header_h - 10, (label,), rotate=-90, user=user_spans(label)))
        else:
            items.append(Text("header", cx, y + header_h - 10, (label,), anchor="middle", user=user_spans(label)))
    y += header_h
    grid = (x_cells, y, cell_w)
    for i, label in enumerate(words.q_labels):
        cy = y + i * (CELL_H + CELL_GAP) + CELL_H / 2
        role = "elision" if label == "⋮" else "header"  # rows left out of an elided figure
        items.append(Text(role, x_cells - CELL_PAD, _baseline_centre(cy, role), (label,), anchor="end",
                          user=user_spans(label)))
    for i, cells in enumerate(words.cells):
        for j, cell in enumerate(cells):
            aria = None if cell.gap else cell_label(cell, words.q_labels[i], words.k_labels[j],
                                                    _CELL_NOUN[words.show], words.base)
            items.append(_cell(cell, x_cells + j * (cell_w + CELL_GAP), y + i * (CELL_H + CELL_GAP), cell_w, aria))
    y += len(words.cells) * (CELL_H + CELL_GAP) - CELL_GAP + 28
    if words.view == "scores":  # a score table: no captions
        right = max(right_edge(item) for item in items)
        return Layout(width=max(right + PAD, wrap_w + 2 * PAD), height=y - 28 + PAD, title=words.title,
                      desc=words.subtitle, items=items, grid=grid)

    # Softmax panel: one group per row, highlighted rows get a tinted band and a bar.
    add_text("softmax-heading", split_keep(words.softmax_heading, " "), gap_after=8)
    row_pad_x, row_pad_y = 12, 7
    head_w = _width("weights ", "softmax-weights")
    rows: list[tuple[SoftmaxRow, float, float, Text, Text]] = []
    for row in words.softmax_rows:
        top = y
        x = PAD + row_pad_x
        # A long scores line (or normalizer Z_i) continues under its values, as weights lines do.
        hang = min(_width(row.scores.partition(": ")[0] + ": ", "softmax-scores"), wrap_w / 3)
        scores = Text("softmax-scores", x, top + row_pad_y + ASCENT * STYLES["softmax-scores"].size,
                      wrap(_breaks(row.scores, ",;+"), "softmax-scores", wrap_w - 2 * row_pad_x, hang), indent=hang,
                      user=user_spans(row.scores))
        y_w = top + row_pad_y + text_height("softmax-scores", len(scores.lines)) + 5
        weights = Text("softmax-weights", x, y_w + ASCENT * STYLES["softmax-weights"].size,
                       wrap(split_keep(row.weights, ", "), "softmax-weights", wrap_w - 2 * row_pad_x, head_w,
                            finer=("+",)), indent=head_w)
        bottom = y_w + text_height("softmax-weights", len(weights.lines)) + row_pad_y
        rows.append((row, top, bottom, scores, weights))
        y = bottom + 2
    # Every band, and the rule below, as wide as the widest line (a term too long to break widens them all).
    panel_w = max([wrap_w] + [right_edge(t) + row_pad_x - PAD for r in rows for t in r[3:]])
    for row, top, bottom, scores, weights in rows:
        children: tuple[Item, ...] = (Rect("softmax-band", PAD, top, panel_w, bottom - top, rx=6),
                                      Rect("softmax-bar", PAD, top, 4, bottom - top)) if row.computed else ()
        classes: tuple[str, ...] = ("attnviz-softmax-row",) + (("attnviz-computed",) if row.computed else ())
        texts: tuple[Text, ...] = (scores, weights)
        if row.pending:  # not computed yet: its place, empty, so every step has the same geometry
            children, texts = (Rect("softmax-pending", PAD, top, panel_w, bottom - top, rx=6),), ()
            classes += ("attnviz-pending",)
        items.append(Group(classes, (("data-q", str(row.q)),), children + texts,
                           box=(PAD, top, PAD + panel_w, bottom)))

    if words.output_rows:  # the outputs panel: O_i as the weighted sum of the value vectors
        y += 14
        add_text("outputs-heading", split_keep(words.outputs_heading, " "), gap_after=8)
        outputs: list[tuple[OutputRow, float, float, Text]] = []
        for output in words.output_rows:
            top = y
            text = Text("output", PAD + row_pad_x, top + 3 + ASCENT * STYLES["output"].size,
                        wrap(split_keep(output.text, " "), "output", wrap_w - 2 * row_pad_x, indent=24), indent=24)
            y = top + 3 + text_height("output", len(text.lines)) + 3
            outputs.append((output, top, y, text))
        panel_w = max([panel_w] + [right_edge(o[3]) + row_pad_x - PAD for o in outputs])
        for output, top, bottom, text in outputs:
            items.append(_output_row(output, top, bottom, text, panel_w))

    y += 14
    items.append(Rect("rule", PAD, y, panel_w, 1))
    y += 12
    add_text("footer", split_keep(words.footer, " "))

    right = max(right_edge(item) for item in items)
    width = max(right + PAD, wrap_w + 2 * PAD)
    return Layout(width=width, height=y + PAD, title=words.title, desc=words.subtitle, items=items, grid=grid)


_CELL_NOUN = {"scores": "score", "logits": "logit", "bias": "bias"}  # what a kept cell's text is, for screen readers


def _baseline_centre(centre_y: float, role: str) -> float:
    """Baseline that centres a line of `role` text vertically on `centre_y`."""
    size = STYLES[role].size
    return centre_y + (ASCENT - DESCENT) / 2 * size


def _cell(cell: Cell, x: float, y: float, w: float, label: str | None) -> Group:
    if cell.gap:  # rows or keys left out of an elided figure: the ellipsis alone, no cell
        text = Text("elision", x + w / 2, _baseline_centre(y + CELL_H / 2, "elision"), (cell.text,), anchor="middle")
        return Group(("attnviz-elided",), (), (text,), box=(x, y, x + w, y + CELL_H))
    assert label is not None  # every cell but a gap has its label
    attrs = (("data-q", str(cell.q)), ("data-k", str(cell.k)), ("aria-label", label))
    if cell.pending:  # not computed yet: an empty cell with a light outline, no text
        return Group(("attnviz-cell", "attnviz-pending"), attrs, (Rect("cell-pending", x, y, w, CELL_H, rx=6),),
                     box=(x, y, x + w, y + CELL_H))
    role = "masked" if cell.masked else ("score-computed" if cell.computed else "score")
    rect_role = "cell-masked" if cell.masked else "cell-score"
    children: list[Item] = [Rect(rect_role, x, y, w, CELL_H, rx=6)]
    if cell.computed:  # a masked cell keeps its hatching under the highlight's outline
        children += [Rect("cell-computed-outline" if cell.masked else "cell-computed", x, y, w, CELL_H, rx=6),
                     Mark("computed-mark", x + w - 4, y + 4, 12)]
    children.append(Text(role, x + w / 2, _baseline_centre(y + CELL_H / 2, role), (cell.text,), anchor="middle"))
    classes: tuple[str, ...] = ("attnviz-cell", "attnviz-masked" if cell.masked else "attnviz-score")
    classes += ("attnviz-computed",) if cell.computed else ()
    return Group(classes, attrs, tuple(children), box=(x, y, x + w, y + CELL_H))


def _output_row(row: OutputRow, top: float, bottom: float, text: Text, panel_w: float) -> Group:
    """One output row's group; highlighted and pending rows are drawn like softmax rows."""
    classes: tuple[str, ...] = ("attnviz-output-row",)
    children: tuple[Item, ...] = (text,)
    # Output rows sit edge to edge: their band and pending outline keep 1 unit clear of the
    # neighbours', so two of them never touch.
    y0, h = top + 1, bottom - top - 2
    if row.computed:
        classes += ("attnviz-computed",)
        children = (Rect("output-band", PAD, y0, panel_w, h, rx=6), Rect("output-bar", PAD, y0, 4, h), text)
    if row.pending:  # not computed yet: its place, empty, so every step has the same geometry
        classes += ("attnviz-pending",)
        children = (Rect("output-pending", PAD, y0, panel_w, h, rx=6),)
    return Group(classes, (("data-q", str(row.q)),), children, box=(PAD, top, PAD + panel_w, bottom))


