"""The figure checked spec arguments describe (a spec file, flags, a document's block): one figure, the
scores beside their bias matrix (`show = "bias"`), or `[[panel]]` tables composed into one figure.

Here rather than in figures.composite: building calls `figure()`, and the composite must not depend on it
(heads, a composite, are built by `figure()`).
"""

from __future__ import annotations

from ..numbers.exact import InputError
from ..records import replace
from ..render.themes import get_theme, with_dark_selector
from . import api  # api.figure looked up at each call, so a wrapped figure() is the one used
from .figure import Figure

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from .composite import Composite

__all__ = ["build"]


def build(kwargs: Mapping[str, Any], id_prefix: str | None = None, *, sparse_panels: bool = True
          ) -> Figure | Composite:
    """The figure checked spec arguments describe: `figure(**kwargs)`, or with `panel` (a list of
    panels' arguments) a composed figure whose other keys are every panel's defaults; its `title`,
    `theme` and `embed_font` are the whole figure's. `sparse_panels`: a figure with `sparse` drawn with MoBA's
    gate or NSA's branches beside it (False: the figure alone, as a walkthrough walks it)."""
    kwargs = dict(kwargs)
    panels = kwargs.pop("panel", None)
    arrange = kwargs.pop("arrange", None)
    parts: dict[str, Any] = {key: kwargs.pop(key) for key in ("panel_captions", "panel_subtitles", "panel_legend")
                             if key in kwargs}
    if panels is None:
        return _one(kwargs, arrange, parts, id_prefix, sparse_panels)
    from .composite import compose, within  # start-up: one figure, the usual one, is no composite
    whole = {key: kwargs.pop(key) for key in ("title", "theme", "embed_font", "frame", "id_prefix") if key in kwargs}
    selector = kwargs.pop("dark_selector", None)  # the whole figure's, with its theme
    whole.setdefault("id_prefix", id_prefix)
    figures = []
    for n, panel in enumerate(panels, 1):
        merged = {**kwargs, **panel}
        # A panel with vectors of its own, or not a mask map, takes no map size or axis titles from the defaults.
        if "q" in panel or "k" in panel or merged.get("view", "full") != "mask":
            merged = {key: value for key, value in merged.items()
                      if key in panel or key not in ("n", "shape", "x_title", "y_title")}
        try:
            bias = merged.get("show") == "bias"  # a panel of two: its scores and their bias matrix
            figures.append(_with_bias({**merged, "show": "scores"}, None) if bias else api.figure(**merged))
        except InputError as err:
            raise err.relocated(within(f"panel {n}")) from None
    if selector is not None:
        whole["theme"] = with_dark_selector(whole.get("theme", figures[0].theme), selector).key
    return compose(*figures, arrange=arrange, **whole, **parts)


def _one(kwargs: dict[str, Any], arrange: str | None, parts: Mapping[str, Any], id_prefix: str | None,
         sparse_panels: bool = True) -> Figure | Composite:
    """The figure of spec arguments without panels: `figure(**kwargs)`, heads placed as `arrange` asks, or the
    scores beside their bias matrix."""
    if parts:
        raise InputError("says what becomes of the panels' captions, subtitles or legend; give [[panel]] tables "
                         "(or --panel files) too", next(iter(parts)))
    if arrange is not None and kwargs.get("q_heads") is None and kwargs.get("head_masks") is None:
        raise InputError("arrange places panels; give [[panel]] tables (or --panel files) too, or heads", "arrange")
    if arrange is not None:  # the heads' panels, placed as asked
        from .heads import HeadsFigure  # start-up: only heads placed by --arrange need it

        heads = api.figure(**{"id_prefix": id_prefix, **kwargs})
        if not isinstance(heads, HeadsFigure):
            raise InputError("arrange places panels; the heads view draws one schematic", "arrange")
        return heads.arranged(arrange)
    if kwargs.get("show") == "bias":  # the ALiBi paper's picture: the scores, the bias matrix beside them
        return _with_bias({**kwargs, "show": "scores"}, kwargs.get("id_prefix", id_prefix))
    single: Figure | Composite = api.figure(**{"id_prefix": id_prefix, **kwargs})  # a HeadsFigure is a Composite
    # MoBA's gate, NSA's branches beside it
    if sparse_panels and kwargs.get("sparse") is not None and isinstance(single, Figure):
        from .sparse import with_sparse_panels  # start-up: only a sparse figure has panels of its own

        return with_sparse_panels(single, kwargs["sparse"], kwargs.get("id_prefix", id_prefix),
                                  (kwargs.get("q"), kwargs.get("k")))
    return single


def _with_bias(kwargs: dict[str, Any], id_prefix: str | None) -> Composite:
    """The scores figure and its bias matrix side by side, under the figure's title."""
    from .composite import compose  # start-up: only a bias shown beside the scores composes two panels

    kwargs.pop("id_prefix", None)
    if kwargs.get("bias") is None:
        raise InputError("shows the bias matrix beside the scores: give a bias too (--bias)", "show")
    if kwargs.get("q_heads") is not None:
        raise InputError("shows one figure's bias matrix beside its scores; with query heads, draw one head's "
                         "(--q and --k) or leave out show", "show")
    scores = api.figure(**kwargs)
    matrix = scores.bias_panel()
    # The figure's title heads both panels.
    untitled = Figure(scores.attention, scores.highlight, replace(scores.words, title=""),
                      theme=get_theme(scores.theme), embed_font=scores.embed_font, frame=scores.frame)
    return compose(untitled, matrix, title=scores.words.title, id_prefix=id_prefix)
