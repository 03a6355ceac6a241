"""A real model's masks from its config: `model_figure(config)`, what `attnviz model CONFIG` draws.

One mask-map panel per distinct layer pattern (`engine.model_masks` reads the config and groups the
layers), each a `g.attnviz-panel[data-layers="0,2,4"][data-stack]` holding the usual map anatomy,
titled with its pattern, its parameters and its layers; under them a strip of every layer, coloured by
its type (`g.attnviz-layers`, one `rect[data-layer][data-type]` a layer), and the notes the panels need
(a window longer than the row drawn; GPT-OSS's sink column, a learned logit and not a token).

A config is a `config.json`, a model folder holding one, a dict, or a transformers config object (its
`to_dict()`): nothing is downloaded, and transformers is needed only for a config object or a tokenizer.
"""

from __future__ import annotations

import os

from .composite import compose_layouts
from .figure import Drawable, Figure, check_id_prefix, without_gc_pauses
from .options import figure_options
from .single import one_head_figure
from ..engine.model_masks import MAX_LAYERS, Tokens, layer_list_text, model_layers, plan_panels, shown
from .model_files import MAX_CONFIG_BYTES, read_json, read_tokens
from .model_floor import at_floor
from ..layout.figure import PAD, STYLES, Group, Layout, Rect, Text, measure, text_height, wrap, split_keep
from ..layout.frames import fit_to_frame, get_frame, text_floor_misses, wider_frame
from ..layout.mask_map import legend_entries
from ..layout.layer_marks import mark_legend, mark_rows, marks_of
from ..layout.metrics import ASCENT, DESCENT
from ..numbers.exact import InputError
from ..records import replace
from ..render.themes import get_theme
from ..words.user_text import check_text

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..engine.model_layer_masks import ImageTokens
    from ..engine.model_masks import LayerType, ModelLayers, PanelPlan
    from ..layout.frames import Frame
    from ..layout.items import Item
    from typing import Unpack

    from ..typing import ModelOptions

__all__ = ["ModelFigure", "model_figure", "load_config", "DEFAULT_TOKENS", "STRIP_ROLES", "MODEL_DEFAULTS"]

DEFAULT_TOKENS = 16
#: The strip's colour for each layer kind (themes.SHAPE_PAINT paints the roles).
STRIP_ROLES = {"full": "layer-full", "sliding": "layer-sliding", "chunked": "layer-chunked",
               "bidirectional": "layer-bidirectional", "local": "layer-sliding", "cross": "layer-cross"}
_SINK_NOTE = ("The sink column is not a token: it is a learned logit per head that GPT-OSS adds to every "
              "row's softmax denominator (no value is read from it), so every row keeps it; it is coloured "
              "apart. The rule's j counts the tokens' keys as the axis does.")


def load_config(config: object) -> dict[str, object]:
    """A config as a dict: from a `config.json` path, a model folder, a mapping or a transformers config."""
    if isinstance(config, (str, os.PathLike)):
        path = os.fspath(config)
        path = os.path.join(path, "config.json") if os.path.isdir(path) else path
        value = read_json(path, MAX_CONFIG_BYTES, "config")
    elif isinstance(config, dict):
        value = config
    elif callable(to_dict := getattr(config, "to_dict", None)):
        value = to_dict()  # a transformers PreTrainedConfig
    else:
        raise InputError(f"expected a config.json path, a model folder, a dict or a transformers config, got "
                         f"{type(config).__name__}", "config")
    if not isinstance(value, dict):
        raise InputError("the config is not a JSON object of keys", "config")
    return value


class ModelFigure(Drawable):
    """A model's masks: its panels (one per distinct layer pattern), the strip of its layers, its notes."""

    def __init__(self, model: ModelLayers, plans: Sequence[PanelPlan], panels: Sequence[Figure], tokens: Tokens,  # noqa: PLR0913  a record's own constructor
                 title: str, notes: Sequence[str], theme: str, embed_font: bool, frame: str,
                 id_prefix: str | None) -> None:
        self.model, self.plans, self.panels, self.tokens = model, tuple(plans), tuple(panels), tokens
        self.title, self.notes = title, tuple(notes)
        self.theme, self.embed_font, self.frame = theme, embed_font, frame
        self._id_prefix = None if id_prefix is None else check_id_prefix(id_prefix)
        self.said: tuple[str, ...] = ()  # what was chosen before the layout (figures.model_floor), for --verbose

    @property
    def strip_layers(self) -> int:
        """The rectangles of the strip of layers, one a layer of each stack (counted in the figure's budget)."""
        return sum(len(stack.layers) for stack in self.model.stacks)

    def _key(self) -> object:
        return ("model", self.title, self.notes, tuple(panel._key() for panel in self.panels))

    def description(self) -> str:
        """Each panel's sentence, with its layers."""
        parts = [f"{plan.title}: {panel.description()}" for plan, panel in zip(self.plans, self.panels)]
        return f"{self.model.model_type} masks, {len(parts)} panels: " + "; ".join(parts)

    @without_gc_pauses
    def layout(self) -> Layout:
        """The panels composed, then the strip of layers and the notes under them (refused first if together
        they are over the budget)."""
        from ..words.budget import check_figure, drawable_chars  # start-up: loaded when drawn

        check_figure(None, size=drawable_chars(self))
        columns = len(self.panels) if len(self.panels) <= 3 else 3
        attrs = [(("data-stack", plan.stack), ("data-layers", ",".join(map(str, plan.layers)))) for plan in self.plans]
        frame = get_frame(self.frame)
        if frame.name != "doc":
            framed = self._framed(columns, attrs, frame)
            return replace(framed, choices=self.said + tuple(framed.choices)) if self.said else framed
        composed = compose_layouts(self.panels, columns, self.title, attrs)
        under, y = self._under(composed.height + 4, composed.width)
        return Layout(width=composed.width, height=y + PAD - 8, title=composed.title, desc=composed.desc,
                      items=[*composed.items, *under])

    def _under(self, y: float, width: float, x0: float = PAD, notes: bool = True) -> tuple[list[Item], float]:
        """The strip of layers and the notes (`notes`: else only the strip) from (`x0`, `y`), `width` wide; and
        the y under them."""
        items, y = _strip(self.model, self.plans, x0, y, width - 2 * PAD)
        for note in self.notes if notes else ():
            lines = wrap(split_keep(note, " "), "note", width - 2 * PAD)
            items.append(Text("note", x0, y + ASCENT * STYLES["note"].size, tuple(lines)))
            y += text_height("note", len(lines)) + 4
        return items, y

    def _grids(self, columns: int, attrs: Sequence[tuple[tuple[str, str], ...]], frame: Frame,
               arrangement: Arrangement) -> Layout:
        """On a slide, score grids (T5's buckets, their text at its size) on the left with the strip and the notes
        beside them, or on top with them under (`arrangement`): the first of its shares of the slide's width whose
        texts all fit; the last tried when none does; refused when the grids' values reach the floor in none."""
        from .composite_frame import compose_in_frame  # start-up: only a framed model figure needs it

        place, notes = arrangement
        layout = None
        for share in _GRID_SHARES[place]:  # the grids' share of the slide's width: the first whose texts all fit
            try:  # under: the grids as tall as their width makes them (the strip takes the rest of the slide)
                narrow = replace(frame, width_in=frame.width_in * share,
                                 height_in=frame.height_in if place == "beside" else None)
                composed = compose_in_frame(self.panels, columns, self.title, narrow,
                                            {"captions": "hide", "subtitles": "hide", "legend": "shared"})
            except InputError:  # the grids' values under the floor in this share: try another
                continue
            panels = iter(attrs)
            items = [replace(item, attrs=item.attrs + next(panels, ()))
                     if isinstance(item, Group) and item.classes[:1] == ("attnviz-panel",) else item
                     for item in composed.items]
            width = composed.width / share
            if place == "beside":
                under, y = self._under(_BESIDE_TOP, width - composed.width, composed.width, notes)
            else:
                left = min((item.x for item in composed.items if isinstance(item, Text)), default=PAD)  # the title's
                under, y = self._under(composed.height - _UNDER_GAP, width - left + PAD, left, notes)
            desc = composed.desc if notes else " ".join((composed.desc, *self.notes))
            layout = fit_to_frame(replace(composed, width=width, height=max(composed.height, y + PAD - 8),
                                          items=items + under, desc=desc), frame)
            if not text_floor_misses(layout, frame):
                return layout
        if layout is None:
            raise InputError(f"the model's {len(self.panels)} bucket grids do not fit the {frame.name} frame with "
                             f"their values at the floor; try {wider_frame(frame)}fewer tokens (--n) or --frame doc",
                             "frame")
        return layout

    def _framed(self, columns: int, attrs: Sequence[tuple[tuple[str, str], ...]], frame: Frame) -> Layout:
        """The panels fitted to the frame with the strip of layers and the notes, each text at the frame's floor:
        the first of the frame's arrangements (`_ARRANGEMENTS`) whose texts all reach it, or a one-line refusal."""
        grids = any(panel.view != "mask" for panel in self.panels)
        layout = None
        for arrangement in _GRID_ARRANGEMENTS if frame.aspect is not None and grids else (None,):
            if arrangement is None:  # (mask panels: their own refusal of cells under the floor stands)
                layout = self._above(columns, attrs, frame)
            else:
                try:
                    layout = self._grids(columns, attrs, frame, arrangement)
                except InputError:  # the grids' values under the floor this way: try the next arrangement
                    continue
            if frame.aspect is None or not text_floor_misses(layout, frame):
                return layout if arrangement is None else replace(layout, choices=(*layout.choices, _SAID[arrangement]))
        if layout is None:
            raise InputError(f"the model's {len(self.panels)} bucket grids do not fit the {frame.name} frame with "
                             f"their values at the floor; try {wider_frame(frame)}fewer tokens (--n) or --frame doc",
                             "frame")
        raise InputError(f"the model's {len(self.panels)} panels and its strip of layers do not fit the "
                         f"{frame.name} frame at its smallest text; try {wider_frame(frame)}--layers types, "
                         "fewer tokens (--n) or --frame doc", "frame")

    def _above(self, columns: int, attrs: Sequence[tuple[tuple[str, str], ...]], frame: Frame) -> Layout:
        """The panels above the strip of layers and the notes (the panels get what the strip leaves of the
        slide); the last share tried when none has every text at the floor."""
        share = 0.78
        # the strip's height is known once the panels' width is: then the panels' share
        for _ in range(4):
            layout, extra = self._panels_and_strip(columns, attrs, frame, share)
            if frame.aspect is None or not text_floor_misses(layout, frame):
                break
            share = min(share - 0.02, 1 - extra / (layout.width / frame.aspect) - 0.01)
            if share <= 0.3:
                break
        return layout

    def _panels_and_strip(self, columns: int, attrs: Sequence[tuple[tuple[str, str], ...]], frame: Frame,
                          share: float) -> tuple[Layout, float]:
        """(the framed layout, the height the strip and notes took) with the panels in `share` of the slide."""
        from .composite_frame import compose_in_frame  # start-up: only a framed model figure needs it

        above = replace(frame, height_in=frame.height_in * share) if frame.height_in else frame
        if frame.aspect is None and any(panel.view != "mask" for panel in self.panels):
            # A column's score grids (T5's buckets) keep their text's size: laid out no wider than the strip's
            # smaller text (its ticks) lets the whole figure be, not as wide as the grids' own text would
            narrow = min(STYLES[role].size for role in _STRIP_TEXT) / min(STYLES[role].size for role in _GRID_TEXT)
            above = replace(frame, width_in=frame.width_in * narrow)
        composed = compose_in_frame(self.panels, columns, self.title, above,
                                    {"captions": "hide", "subtitles": "hide", "legend": "shared"})
        panels = iter(attrs)
        items = [replace(item, attrs=item.attrs + next(panels, ()))
                 if isinstance(item, Group) and item.classes[:1] == ("attnviz-panel",) else item
                 for item in composed.items]
        under, y = self._under(composed.height, composed.width)
        items += under
        height = y + PAD - 8
        return fit_to_frame(replace(composed, height=height, items=items), frame), height - composed.height

    def __repr__(self) -> str:
        return f"<attnviz.ModelFigure {self.model.model_type}: {len(self.panels)} panels>"


#: The texts of the strip and the notes under the panels, and the smallest of a score grid's (its key labels).
_STRIP_TEXT, _GRID_TEXT = ("tick", "legend", "note"), ("header", "subtitle")
_BESIDE_TOP = 96  # the strip beside a slide's score grids starts under the figure's title
_UNDER_GAP = 12  # the strip under a slide's score grids starts this much into their bottom margin
Arrangement = tuple[str, bool]  # where the strip and the notes go beside score grids on a slide; notes drawn
#: The arrangements of score grids on a slide, tried in turn, the first with every text at the floor taken: the
#: strip and the notes beside the grids (a wide slide: under them they would leave the grids too little of its
#: height), else under them (a 4:3 slide's width), else the strip under them and the notes in the <desc> only.
_GRID_ARRANGEMENTS: tuple[Arrangement, ...] = (("beside", True), ("under", True), ("under", False))
_GRID_SHARES = {"beside": (0.74, 0.68, 0.62, 0.56), "under": (1.0, 0.94, 0.88, 0.82)}  # of the slide's width
_SAID = {("beside", True): "the strip of layers and the notes beside the grids",
         ("under", True): "the strip of layers and the notes under the grids",
         ("under", False): "the strip of layers under the grids, the notes in the description only"}


def _strip(model: ModelLayers, plans: Sequence[PanelPlan], x0: float, y: float,
           room: float) -> tuple[list[Item], float]:
    """Every layer of every stack as a small square coloured by its type, numbered every few layers,
    with a legend of the types."""
    label_style, tick_style = STYLES["legend"], STYLES["tick"]
    names = {"decoder": "decoder layers", "encoder": "encoder layers", "cross": "cross-attention"}
    label_w = max(measure(names[s.name], label_style) for s in model.stacks) + 10
    longest = max(len(s.layers) for s in model.stacks)
    cell = max(4.0, min(16.0, (room - label_w) / longest))
    step = next(s for s in (1, 2, 4, 5, 8, 10, 16, 20, 32, 50, 64) if s * cell >= 24)
    shown = {(plan.stack, layer) for plan in plans for layer in plan.layers}
    groups: list[Item] = []
    kinds: dict[str, LayerType] = {}
    legend_marks: dict[str, str] = {}
    for stack in model.stacks:
        cells: list[Item] = []
        marked = [(x0 + label_w + index * cell, cell - 1, marks_of(_layer_marks(model, stack.name, index)))
                  for index in range(len(stack.layers))]
        glyphs, above = mark_rows(marked, y)  # what differs besides the mask: a row of glyphs a kind, over the layers
        for *_, marks in marked:
            legend_marks.update(marks)
        y += above
        for index, layer in enumerate(stack.layers):
            kinds.setdefault(STRIP_ROLES[layer.kind] + layer.label, layer)
            attrs: tuple[tuple[str, str], ...] = (("data-layer", str(index)), ("data-type", layer.kind),
                                                  *_layer_marks(model, stack.name, index))
            if (stack.name, index) not in shown:
                attrs += (("data-drawn", "no"),)
            cells.append(Rect(STRIP_ROLES[layer.kind], x0 + label_w + index * cell, y, cell - 1, 14, attrs=attrs))
            if index % step == 0:
                cells.append(Text("tick", x0 + label_w + index * cell + (cell - 1) / 2,
                                  y + 14 + 4 + ASCENT * tick_style.size, (str(index),), anchor="middle"))
        cells.insert(0, Text("legend", x0, y + 7 + (ASCENT - DESCENT) / 2 * label_style.size, (names[stack.name],)))
        groups.append(Group(("attnviz-layers",), (("data-stack", stack.name),), (*glyphs, *cells)))
        y += 14 + 4 + text_height("tick") + 6
    legend, y = legend_entries(((layer.kind, STRIP_ROLES[layer.kind], layer.label) for layer in kinds.values()),
                               x0, y, room, framed=False)
    marks_legend, y = mark_legend(legend_marks, x0, y, room)
    return groups + legend + marks_legend, y + 6


def _layer_marks(model: ModelLayers, stack: str, index: int) -> tuple[tuple[str, str], ...]:
    """What differs in a layer besides its mask, as its strip cell's data: positions (RoPE or none, NoPE), the
    logits' soft-capping, a learned sink logit."""
    if stack != "decoder":
        return ()
    marks = [("data-positions", "nope" if index in model.no_rope else "rope")] if model.no_rope else []
    if model.softcap:
        marks.append(("data-softcap", model.softcap))
    if model.sinks:
        marks.append(("data-sink", "learned"))
    return tuple(marks)


def _labels(tokens: Sequence[str] | None, plan: PanelPlan, prompt: int,
            encoder_decoder: bool) -> tuple[tuple[str, ...] | None, tuple[str, ...] | None]:
    """A panel's (query, key) labels: the tokens (an encoder-decoder's decoder is numbered), the sink
    column's name before the keys."""
    if plan.stack == "cross":
        return None, None if tokens is None else tuple(tokens)
    if encoder_decoder and plan.stack == "decoder":
        return None, None
    if tokens is None:
        if not plan.sink:
            return None, None
        tokens = tuple(str(p) for p in range(plan.shape[1] - 1))
    keys = tuple(tokens)
    return keys[prompt:], (("sink",) + keys if plan.sink else keys)


def _notes(model: ModelLayers, tokens: Tokens, longest: int) -> list[str]:
    """What the panels need said: sizes the row does not reach, the sink column, the decode shape."""
    notes = []
    for stack in model.stacks:
        for size, kind in sorted({(layer.size, layer.label) for layer in stack.layers if layer.size}):
            reach = size + 1 if kind.startswith("local") else size
            if reach >= longest:
                notes.append(f"{kind[:1].upper()}{kind[1:]}: longer than the {longest} tokens drawn, so its layers "
                             "keep every cell full attention keeps here; give --n above it to see it.")
    if model.sinks:
        notes.append(_SINK_NOTE)
    if model.no_rope:
        layers = layer_list_text(model.no_rope).replace("layers", "Layers", 1).replace("layer", "Layer", 1)
        notes.append(f"{layers} use no rotary positions (NoPE); the other "
                     "layers rotate queries and keys (RoPE). The mask is the same either way.")
    if model.softcap:
        notes.append(f"Every layer soft-caps its logits at {model.softcap} (c·tanh(L/c)) before the softmax; the "
                     "mask is not changed by it.")
    if tokens.decode:
        queries = (tokens.decoder_n or longest) - tokens.decode  # an encoder-decoder decodes its decoder's row
        notes.append(f"Decoding: the queries are the {queries} tokens after a prompt of {tokens.decode}, each against "
                     "every key before it (the KV cache), as transformers builds the mask from the cache's sizes.")
    if tokens.packed:
        notes.append(f"Packed: {len(tokens.packed)} documents of {', '.join(map(str, tokens.packed))} tokens in one "
                     "row; each token attends only within its own document, the mask transformers derives from "
                     "position_ids that restart at each document.")
    if tokens.pad_left or tokens.pad_right:
        notes.append("Padding keys are masked for every query, as transformers' mask masks them; the padded "
                     "queries' own rows are drawn as that mask leaves them (their outputs are ignored).")
    return notes


#: `model_figure()`'s keywords at their defaults (their types: `attnviz.typing.ModelOptions`).
MODEL_DEFAULTS = {"n": None, "tokens": None, "layers": "types", "pad_left": 0, "pad_right": 0, "decode": 0,
                  "image_tokens": None, "packed": None, "prefix": 0, "decoder_n": None, "buckets": False,
                  "tokenizer": None,
                  "title": None, "theme": "light", "embed_font": False, "frame": "doc", "id_prefix": None}


def model_figure(config: object, **options: Unpack[ModelOptions]) -> ModelFigure:
    """The masks of a model, from its config: one mask-map panel per distinct layer pattern.

    `config`: a `config.json` path, a model folder, a dict or a transformers config object (no download). `n` tokens
    (default 16), or `tokens`: labels (a text is split on spaces, or by the local `tokenizer` folder when transformers
    is installed). `layers`: "types" (one panel per pattern), "all" (one per layer) or layer numbers, 0-based as
    transformers counts them. `pad_left`, `pad_right`: padding positions of the row. `decode`: draw the decode shape,
    the queries after a prompt of `decode` tokens. `image_tokens`: Gemma 3's image tokens (first, last), 0-based, or
    "A-B" (PaliGemma's too, within its `prefix`: the first tokens, image and text, that see each other both ways).
    `packed`: the lengths of documents packed in the row ("3,4,2", adding up to n). `decoder_n`: an
    encoder-decoder's decoder tokens (default half of `n`). `buckets`: a T5 config's self-attention panels drawn as
    its relative-position bucket grids (each kept cell its bucket k; the bias b[k] named). Positions and layers count
    from 0.

    >>> fig = model_figure({"model_type": "gemma2", "num_hidden_layers": 4, "sliding_window": 3}, n=6)
    >>> [plan.title for plan in fig.plans]
    ['sliding window 3, layers 0, 2', 'full causal, layers 1, 3']
    >>> fig.svg().count('data-layers="0,2"')
    1
    """
    if unknown := options.keys() - MODEL_DEFAULTS.keys():
        raise TypeError(f"model_figure() got an unexpected keyword argument {min(unknown)!r}")
    o: ModelOptions = {**MODEL_DEFAULTS, **options}  # type: ignore[typeddict-item]  # each at its default
    raw = load_config(config)
    model = model_layers(raw)
    labels, n = read_tokens(o["tokens"], o["tokenizer"]), o["n"]
    if labels is not None and n is not None and n != len(labels):
        raise InputError(f"n is {n} but {len(labels)} tokens are given; give one of them", "n")
    count = len(labels) if labels is not None else _count(n, "n", 1) if n is not None else \
        _packed_count(o["packed"]) or DEFAULT_TOKENS
    encoder_decoder = any(stack.name == "cross" for stack in model.stacks)
    decoder_n = o["decoder_n"]
    row = Tokens(count, _count(o["pad_left"], "pad_left"), _count(o["pad_right"], "pad_right"),
                 _count(o["decode"], "decode"), _image(o["image_tokens"]),
                 (_count(decoder_n, "decoder_n", 1) if decoder_n is not None else max(1, count // 2))
                 if encoder_decoder else None, _packed(o["packed"], count), _count(o["prefix"], "prefix"))
    plans = plan_panels(model, row, o["layers"] if o["layers"] in ("types", "all") else _layer_numbers(o["layers"]))
    if len(plans) > 16:
        raise InputError(f"{len(plans)} panels; a figure shows at most 16: give --layers types or fewer layers",
                         "layers")
    heading = f"{model.model_type}: attention masks by layer" if o["title"] is None else check_text(o["title"], "title")
    longest = row.decoder_n if encoder_decoder and row.decoder_n else row.n
    sizes = None
    if o["buckets"] is not False:
        from .model_buckets import bucket_sizes  # start-up: only --buckets reads them

        sizes = bucket_sizes(raw, model, o["buckets"])
    if sizes is not None:  # T5's buckets: the self-attention stacks' grids; cross-attention has no position bias
        plans = tuple(plan for plan in plans if plan.stack != "cross")  # (a decoder layer comes with each)
    from .model_buckets import bucket_notes  # start-up: T5's buckets, where the config has them, when drawn

    notes = _notes(model, row, max(longest, row.n)) + bucket_notes(raw, model, sizes, get_frame(o["frame"]).name)

    def made(chosen: Sequence[PanelPlan]) -> ModelFigure:
        panels = [_panel(plan, _labels(labels, plan, row.decode, encoder_decoder), o, sizes) for plan in chosen]
        return ModelFigure(model, chosen, panels, row, heading, notes, get_theme(o["theme"]).name,
                           bool(o["embed_font"]), get_frame(o["frame"]).name, o["id_prefix"])

    grouped = plan_panels(model, row, "types") if o["layers"] == "all" else plans  # (one panel a mask)
    if sizes is not None:
        grouped = tuple(plan for plan in grouped if plan.stack != "cross")
    return at_floor(made(plans), (lambda: made(grouped)) if len(grouped) < len(plans) else None)


def _panel(plan: PanelPlan, labels: tuple[Sequence[str] | None, Sequence[str] | None], o: ModelOptions,
           sizes: tuple[int, int] | None) -> Figure:
    """One panel's mask map (with `sizes`, T5's buckets: the self-attention's mask and each kept cell's bucket)."""
    if sizes is not None:
        from .model_buckets import bucket_panel  # start-up: only --buckets draws them

        return bucket_panel(plan, sizes, labels, o["theme"], bool(o["embed_font"]), o["frame"])
    return one_head_figure(None, None, None, "mask", figure_options(
        {}, shape=plan.shape, mask=plan.mask, align=plan.align, title=plan.title, q_tokens=labels[0],
        k_tokens=labels[1], index_base=0, theme=o["theme"], embed_font=o["embed_font"], frame=o["frame"],
        color_by="part" if plan.sink or plan.image or plan.prefix else "none"))


def _count(value: object, where: str, low: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= 1024:
        raise InputError(f"expected a whole number from {low} to 1024, got {shown(value)}", where)
    return value


def _image(value: ImageTokens | str) -> ImageTokens:
    """Image tokens "A-B" (or a pair), 0-based and inclusive; several images' blocks "A-B,C-D" (or pairs)."""
    if value is None:
        return None
    if isinstance(value, str):
        blocks = tuple(_block(part) for part in value.split(","))
        return blocks[0] if len(blocks) == 1 else blocks
    if isinstance(value, tuple) and value and all(isinstance(v, tuple) for v in value):
        if len(value) > 64:
            raise InputError(f"{len(value)} image blocks; a row shows at most 64", "image_tokens")
        return tuple(_block(v) for v in value)
    return _block(value)


def _block(value: object) -> tuple[int, int]:
    """One image's (first, last) from "A-B" or a pair."""
    if isinstance(value, str):
        first, dash, last = value.partition("-")
        if not dash or not first.strip().isdigit() or not last.strip().isdigit():
            raise InputError(f"expected image tokens as FIRST-LAST like 2-5 (0-based), or blocks like 2-5,8-9, got "
                             f"{shown(value)}", "image_tokens")
        value = (int(first), int(last))
    if not (isinstance(value, tuple) and len(value) == 2 and all(isinstance(v, int) for v in value)) \
            or not 0 <= value[0] <= value[1] <= 1024:
        raise InputError(f"expected image tokens (first, last) with 0 <= first <= last <= 1024, got {shown(value)}",
                         "image_tokens")
    return value


def _packed_count(value: str | Sequence[int] | None) -> int:
    """The tokens packed documents take, when they are well formed (else 0: `_packed` says what is wrong)."""
    try:
        return sum(_packed(value, None))
    except InputError:
        return 0


def _packed(value: str | Sequence[int] | None, n: int | None) -> tuple[int, ...]:
    """Packed documents' lengths ("3,4,2"), which must add up to the row's n tokens; () when not packed."""
    if value is None:
        return ()
    parts = value.split(",") if isinstance(value, str) else value
    if not isinstance(parts, (list, tuple)) or not 2 <= len(parts) <= 64 or not all(
            (isinstance(p, int) and not isinstance(p, bool) and p > 0) or
            (isinstance(p, str) and p.strip().isascii() and p.strip().isdigit() and 0 < int(p) <= 1024)
            for p in parts):
        raise InputError(f"expected two or more document lengths like 3,4,2, got {shown(value)}", "packed")
    lengths = tuple(int(p) for p in parts)
    if n is not None and sum(lengths) != n:
        raise InputError(f"the packed documents' lengths add up to {sum(lengths)}, but the row has {n} tokens; give "
                         f"--n {sum(lengths)} or lengths that add up to {n}", "packed")
    return lengths


def _layer_numbers(layers: object) -> tuple[int, ...]:
    if isinstance(layers, str):
        parts = [p.strip() for p in layers.split(",")]
        if not all(p.isascii() and p.isdigit() and len(p) <= 6 for p in parts):
            raise InputError(f"expected all, types or layer numbers like 0,5, got {shown(layers)}", "layers")
        return tuple(sorted({int(p) for p in parts}))
    if isinstance(layers, (list, tuple)) and 0 < len(layers) <= MAX_LAYERS and \
            all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x < MAX_LAYERS for x in layers):
        return tuple(sorted(set(layers)))
    raise InputError(f"expected all, types or layer numbers from 0 to {MAX_LAYERS - 1} like 0,5, got {shown(layers)}",
                     "layers")
