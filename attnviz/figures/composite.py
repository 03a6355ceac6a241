"""Several figures in one: panels composed as data, laid out once, painted by any backend.

`compose(fig1, fig2, ..., arrange="row")` returns a figure like any other. Panels that show grids of the same size get
the same cell size; panels side by side have their grids' tops aligned (in a column, their left edges), so two masks
compare at a glance. Mask maps in a composed figure share one legend, drawn once below the panels.
"""

from __future__ import annotations

from ..numbers.exact import InputError
from .figure import Drawable, Figure, check_id_prefix
from .panel_rows import heading, placed_panels
from ..layout.figure import PAD, Layout, right_edge
from ..render.themes import get_theme
from ..layout.frames import FRAMES, get_frame
from ..layout.panel_fit import PANEL_PARTS, shared_text
from ..records import replace

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from ..layout.mask_map import MapText
    from ..render.themes import Theme
    from typing import Unpack

    from ..typing import Arrange, FrameName, PanelParts, ThemeName

__all__ = ["Composite", "compose", "ARRANGEMENTS", "MAX_PANELS", "parse_arrange", "check_part", "with_parts",
           "LEGEND_PARTS", "PANEL_PARTS", "compose_layouts", "within"]

ARRANGEMENTS = ("row", "column", "grid:C")
LEGEND_PARTS = ("shared", "hide")  # a composed figure's one legend: drawn, or left out
#: What becomes of the panels' rule captions, subtitles and legend (compose()'s keywords), by default.
PARTS = {"panel_captions": "auto", "panel_subtitles": "auto", "panel_legend": "shared"}
MAX_PANELS = 16
_WRAP = 640  # the composed title wraps at the wider of this and the panels


class Composite(Drawable):
    """Panels side by side, in a column, or in a grid of C columns, under one title."""

    def __init__(self, panels: Sequence[Drawable], arrange: Arrange | None = None, title: str | None = None,
                 id_prefix: str | None = None, theme: ThemeName | Theme | None = None,
                 embed_font: bool | None = None, frame: str | None = None, parts: PanelParts | None = None) -> None:
        self.panels = tuple(panels)
        given = {**PARTS, **(parts or {})}
        if len(given) > len(PARTS):
            raise TypeError(f"compose() got an unexpected keyword argument {min(given.keys() - PARTS.keys())!r}")
        self.panel_captions = check_part(given["panel_captions"], "panel_captions")
        self.panel_subtitles = check_part(given["panel_subtitles"], "panel_subtitles")
        self.panel_legend = check_part(given["panel_legend"], "panel_legend", LEGEND_PARTS)
        # (`asked_arrange`: the arrangement asked for by name, which a slide or column draws or refuses; None: a row,
        # which a frame may rearrange)
        self.asked_arrange: Arrange | None = arrange
        self.arrange: Arrange = arrange or "row"
        self.columns, self.title = parse_arrange(self.arrange, len(self.panels)), title
        self.theme = get_theme(theme if theme is not None else self.panels[0].theme).key
        self.embed_font = bool(self.panels[0].embed_font if embed_font is None else embed_font)
        self.frame = get_frame(frame if frame is not None else self.panels[0].frame).name
        self._id_prefix = None if id_prefix is None else check_id_prefix(id_prefix)

    def _key(self) -> object:
        parts = (self.panel_captions, self.panel_subtitles, self.panel_legend)
        shown = () if parts == ("auto", "auto", "shared") else (parts,)  # the defaults keep the ids drawn before
        return ("composite", self.arrange, self.title, tuple(panel._key() for panel in self.panels)) + shown

    def description(self) -> str:
        """What assistive technology reads: each panel's sentence, numbered."""
        parts = [panel.description() for panel in self.panels]
        return f"{len(parts)} panels: " + "; ".join(f"panel {n}: {text}" for n, text in enumerate(parts, 1))

    def layout(self, cell: float | None = None, grid_top: float | None = None) -> Layout:
        """The panels laid out together (refused first if together they are over the budget)."""
        from ..words.budget import FIGURE_CHARS, check_figure, drawable_chars  # start-up: loaded when drawn

        size = drawable_chars(self)
        if size > FIGURE_CHARS:  # each panel fits, but together they would not: refused before any layout
            check_figure(None, size=size)
        parts = {"captions": self.panel_captions, "subtitles": self.panel_subtitles, "legend": self.panel_legend}
        if self.frame != "doc":
            from .composite_frame import compose_in_frame  # start-up: only a frame's panels are fitted to it

            frame = get_frame(self.frame)
            # a deck's slide has a title of its own (DECK_FRAMES): the figure's is then only its <title>
            own = self.title if frame.kind in FRAMES else None
            fitted: Layout = compose_in_frame(self.panels, self.columns, own, frame,
                                              {**parts, "arranged": self.asked_arrange or ""})
            fitted.title = self.title or fitted.title
            return fitted
        return compose_layouts(self.panels, self.columns, self.title, parts=parts)

    def __repr__(self) -> str:
        return f"<attnviz.Composite {len(self.panels)} panels, {self.arrange}>"


def compose(*figures: Drawable | Sequence[Drawable], arrange: Arrange | None = None, title: str | None = None,
            id_prefix: str | None = None, theme: ThemeName | None = None, embed_font: bool | None = None,
            frame: FrameName | None = None, **parts: Unpack[PanelParts]) -> Composite:
    """One figure of several: `arrange` is "row" (side by side, the default), "column" or "grid:C" (C columns).

    `panel_captions`, `panel_subtitles`: the mask maps' rule captions and subtitles: "show" (each panel its
    own), "shared" (said once above the panels when they are all alike), "hide" (left to the description) or
    "auto" (show in the doc frame; in another, shared when alike, subtitles hidden). `panel_legend`:
    "shared" (one legend for all panels) or "hide". In a slide or column frame the panels take the
    arrangement that gives the biggest cells when the default row would leave them much smaller; an `arrange`
    given is drawn as given, or refused in one line saying why (text under the floor, cells under a tenth of an
    inch in a column, a title or rule cut short).

    >>> from attnviz import figure
    >>> both = compose(figure(view="mask", n=8), figure(view="mask", n=8, mask="window=3"))
    >>> both
    <attnviz.Composite 2 panels, row>
    >>> both.svg().count('class="attnviz-panel"')
    2
    """
    given = tuple(figures[0]) if len(figures) == 1 and isinstance(figures[0], (list, tuple)) else figures
    if not given:
        raise InputError("no panels given; compose takes two or more figures", "panels")
    if len(given) > MAX_PANELS:
        raise InputError(f"{len(given)} panels; the limit is {MAX_PANELS}", "panels")
    panels = []
    for n, fig in enumerate(given, 1):
        if not isinstance(fig, Drawable):
            raise InputError(f"panel {n} is {type(fig).__name__}, not a figure from attnviz.figure()", "panels")
        panels.append(fig)
    if title is not None:
        from ..words.user_text import check_text  # start-up: only a titled composite checks a title

        title = check_text(title, "title")
    return Composite(panels, arrange, title, id_prefix, theme, embed_font, frame, parts)


def parse_arrange(arrange: object, n_panels: int) -> int:
    """Columns per row: "row" is all panels in one row, "column" one per row, "grid:C" C per row."""
    if arrange == "row":
        return max(n_panels, 1)
    if arrange == "column":
        return 1
    if isinstance(arrange, str) and arrange.startswith("grid:"):
        text = arrange[5:].strip()
        if text.isascii() and text.isdigit() and 1 <= int(text[:3]) <= MAX_PANELS and len(text) <= 3:
            return int(text)
    raise InputError(f"expected {', '.join(ARRANGEMENTS[:-1])} or {ARRANGEMENTS[-1]} (C columns, 1 to {MAX_PANELS}), "
                     f"got {arrange!r:.40}", "arrange")


def _grid_kind(panel: Drawable) -> tuple[str, int, int] | None:
    """Panels with the same kind share a cell size: mask maps and score grids of one shape."""
    if not isinstance(panel, Figure):
        return None
    if panel.view == "mask":
        return ("mask",) + _map_words(panel).shape
    assert panel.attention is not None  # only a mask map is drawn without vectors
    return ("grid",) + panel.attention.shape


def _map_words(panel: Figure) -> MapText:
    """A mask map's words (the mask view's `words` are a `MapText`)."""
    words = panel.words
    if TYPE_CHECKING:
        assert isinstance(words, MapText)
    return words


def compose_layouts(panels: Sequence[Drawable], columns: int, title: str | None,
                    attrs: Sequence[tuple[tuple[str, str], ...]] | None = None,
                    parts: dict[str, str] | None = None) -> Layout:
    """Lay out each panel once to learn its grid, then again with shared cell sizes and aligned grid tops.
    `attrs`: each panel group's attributes after its `data-panel` (a model's `data-layers`).
    `parts`: what becomes of the panels' rule captions and subtitles (show, shared, hide) and legend."""
    parts = parts or {}
    panels, shared = with_parts(panels, parts.get("captions", "auto"), parts.get("subtitles", "auto"))
    kinds = [_grid_kind(panel) for panel in panels]
    rows = [list(range(start, min(start + columns, len(panels)))) for start in range(0, len(panels), columns)]
    first = [_panel_layout(panel) for panel in panels]
    cells: dict[tuple[str, int, int], float] = {}
    for kind, layout in zip(kinds, first):
        if kind and layout.grid:
            cells[kind] = max(cells.get(kind, 0), layout.grid[2]) if kind[0] == "grid" else layout.grid[2]
    layouts = list(first)
    for row in rows:
        tops = [grid[1] for grid in (first[n].grid for n in row) if grid]
        top = max(tops) if tops and columns > 1 else None
        for n in row:
            kind, grid = kinds[n], first[n].grid
            cell = cells.get(kind) if kind else None
            if grid and ((cell is not None and cell != grid[2]) or (top is not None and grid[1] != top)):
                layouts[n] = _panel_layout(panels[n], cell, top)
    items, y = heading(title, shared, max(_WRAP, sum(layouts[n].width for n in rows[0]) - 2 * PAD))
    placed, right, y = placed_panels(layouts, kinds, rows, columns, attrs, y)
    right = max([right] + [right_edge(item) + PAD for item in items])  # a word longer than a line widens the figure
    items += placed
    # start-up: only composed figures with mask maps draw their legend
    from ..layout.mask_map import lay_out_legend, shared_legend

    legend_keys, part_names = shared_legend([_map_words(panel) for panel in panels
                                             if isinstance(panel, Figure) and panel.view == "mask"],
                                            parts.get("legend") == "hide")
    if legend_keys:
        legend, y = lay_out_legend(legend_keys, PAD, y - PAD + 6, max(right - 2 * PAD, 300), part_names)
        items += legend
        y += PAD - 8
    names = [layout.title for layout in layouts]
    return Layout(width=max(right, _WRAP + 2 * PAD), height=y, title=title or " | ".join(names),
                  desc="; ".join(layout.desc for layout in layouts), items=items,
                  choices=tuple(dict.fromkeys(choice for layout in layouts for choice in layout.choices)))


def check_part(value: object, where: str, choices: Sequence[str] = PANEL_PARTS) -> str:
    """`value` if it is one of `choices` (what a panel's caption, subtitle or legend may be), else an InputError."""
    if value not in choices:
        raise InputError(f"expected {', '.join(choices[:-1])} or {choices[-1]}, got {value!r:.40}", where)
    assert isinstance(value, str)  # one of the choices
    return value


def with_parts(panels: Sequence[Drawable], captions: str, subtitles: str
               ) -> tuple[list[Drawable], list[tuple[str, str]]]:
    """The panels with their mask maps' rule captions and subtitles hidden or shared as asked, and the
    (role, text) lines said once for all: a shared text every map has alike (maps that differ keep theirs)."""
    maps = [panel for panel in panels if isinstance(panel, Figure) and panel.view == "mask"]
    if not maps:
        return list(panels), []
    shared: list[tuple[str, str]] = []
    drop: dict[str, bool] = {}
    for field, role, how in (("subtitle", "subtitle", subtitles), ("caption", "caption", captions)):
        common = shared_text([getattr(_map_words(panel), field) for panel in maps]) if how == "shared" else None
        if common:
            shared.append((role, common))
        drop[field] = how == "hide" or common is not None
    if not any(drop.values()):
        return list(panels), shared
    out: list[Drawable] = []
    for panel in panels:
        if panel in maps:
            assert isinstance(panel, Figure)  # a mask map
            words = _map_words(panel)
            words = replace(words, subtitle="" if drop["subtitle"] else words.subtitle,
                            caption="" if drop["caption"] else words.caption)
            panel = Figure(None, None, words, theme=get_theme(panel.theme), embed_font=panel.embed_font,
                           frame=panel.frame)
        out.append(panel)
    return out, shared


def _panel_layout(panel: Drawable, cell: float | None = None, grid_top: float | None = None) -> Layout:
    return panel.layout(cell, grid_top, panel=True) if isinstance(panel, Figure) else panel.layout()


def within(label: str) -> Callable[[str | None], str]:
    """An error's `where` renamer: `where` within `label` ("panel 2: mask"), or `label` itself."""
    return lambda where: f"{label}: {where}" if where else label
