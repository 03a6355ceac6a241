"""`view="heads"`: the heads schematic of multi-head, grouped-query (GQA) and multi-query (MQA) attention,
drawn from the same q_heads and k_heads as the heads' panels (`figures.heads`): which KV head each query
head reads, ⌊h/(H/G)⌋ (0-based), the mapping PyTorch's `enable_gqa` and `repeat_kv` use.
"""

from __future__ import annotations

from ..numbers.exact import InputError
from ..records import replace
from .figure import Drawable, check_id_prefix
from .heads import check_heads, heads_title, kind, kv_head, reads
from .single import check_base
from ..render.themes import get_theme
from ..layout.frames import fit_to_frame, get_frame, text_floor_misses, wider_frame

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..layout.items import Layout
    from ..typing import FigureOptions, FrameName, ThemeName, Vectors

__all__ = ["HeadsSchematic", "heads_schematic"]


class HeadsSchematic(Drawable):
    """Query heads, the KV heads they read, and a line from each query head to its KV head."""

    def __init__(self, kv_heads: Sequence[int], base: int = 1, title: str = "", subtitle: str = "",
                 id_prefix: str | None = None, theme: ThemeName = "light", embed_font: bool = False,
                 frame: FrameName = "doc") -> None:
        self.kv_heads, self.base = tuple(kv_heads), base  # kv_heads: 0-based, one per query head
        self.title, self.subtitle = title, subtitle
        self.theme, self.embed_font, self.frame = get_theme(theme).name, bool(embed_font), get_frame(frame).name
        self._id_prefix = None if id_prefix is None else check_id_prefix(id_prefix)

    @property
    def view(self) -> str:
        """"heads"."""
        return "heads"

    def _key(self) -> object:
        return ("heads-schematic", self.kv_heads, self.base, self.title, self.subtitle)

    def layout(self) -> Layout:
        """The schematic, placed."""
        from ..layout.heads_schematic import lay_out_heads  # start-up: only the heads view lays it out

        frame = get_frame(self.frame)
        heads = (self.kv_heads, self.base, self.title, self.subtitle)
        layout: Layout = fit_to_frame(lay_out_heads(*heads), frame)
        if text_floor_misses(layout, frame):  # narrower: each row's name above or below it
            layout = replace(fit_to_frame(lay_out_heads(*heads, compact=True), frame),
                             choices=("row names above and below the heads (compact)",))
        if text_floor_misses(layout, frame):  # text keeps its size: too narrow a frame is refused, never shrunk
            raise InputError(f"{len(self.kv_heads)} query heads side by side are too wide for the {frame.name} "
                             f"frame at its smallest text; try {wider_frame(frame)}fewer heads or --frame doc", "frame")
        return layout

    def description(self) -> str:
        """What assistive technology reads: which query heads read which KV head."""
        b, n_kv = self.base, len(set(self.kv_heads))
        groups = []
        for g in range(n_kv):
            readers = [h + b for h, kv in enumerate(self.kv_heads) if kv == g]
            who = f"query head {readers[0]}" if len(readers) == 1 else f"query heads {readers[0]}–{readers[-1]}"
            groups.append(f"{who} read{'s' * (len(readers) == 1)} KV head {g + b}")
        return f"{kind(len(self.kv_heads), n_kv)}: " + "; ".join(groups)

    def __repr__(self) -> str:
        return f"<attnviz.HeadsSchematic {len(self.kv_heads)} query heads, {len(set(self.kv_heads))} KV heads>"


def heads_schematic(q_heads: Sequence[Vectors], k_heads: Sequence[Vectors] | None, v_heads: Sequence[Vectors] | None,
                    options: FigureOptions) -> HeadsSchematic:
    """The schematic of the heads `q_heads` and `k_heads` (checked as `heads.heads_figure` checks them), with
    the figure's title, subtitle, index base and look from `options`."""
    check_base(options["index_base"])
    q, k, _ = check_heads(q_heads, k_heads, v_heads)
    n_heads, n_kv = len(q), len(k)
    kv = [kv_head(h, n_heads, n_kv) for h in range(n_heads)]
    b = options["index_base"]
    title = options["title"] if options["title"] is not None else heads_title(n_heads, n_kv)
    subtitle = options["subtitle"]
    if subtitle is None:
        subtitle = reads(n_heads, n_kv, b) + (", as repeat_kv and enable_gqa do" if 1 < n_kv < n_heads else "")
        subtitle = subtitle[0].upper() + subtitle[1:] + "."
    from ..words.user_text import check_text  # the user's title and subtitle, checked as a figure's are

    return HeadsSchematic(kv, b, check_text(title, "title"), check_text(subtitle, "subtitle"), options["id_prefix"],
                          options["theme"], options["embed_font"], options["frame"])
