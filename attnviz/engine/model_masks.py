"""A model's attention layers, read from its config, as attnviz's own mask families.

`model_layers(config)` reads a config (the dict of a `config.json`, or a transformers config's `to_dict()`) into its
stacks of layers, each layer a `LayerType`, exactly as transformers' modeling code chooses each layer's mask
(`masking_utils`): Hugging Face's `sliding_window` W keeps the W keys `q-W < kv <= q` (the query's own included:
attnviz's `window=W`), a chunk of C keeps the keys of the query's own chunk up to it (`chunk=C`, the chunks starting
after the left padding), ModernBERT's local layers keep `|q-kv| <= local_attention/2`
(`window=local_attention/2+1,symmetric`). Where a config leaves a layer pattern out (`layer_types`), it is derived as
the config class derives it; a size a pattern needs (a window, a chunk) must be given.

`plan_panels(layers, tokens, selection)` groups the layers by pattern into panels, each with its grid shape, alignment
and `Mask`: one panel per distinct pattern, every selected layer in exactly one.
"""

from __future__ import annotations

from .masks import Mask, resolve
from .model_layer_masks import image_blocks, layer_mask, with_image_part, with_sink
from .rule_text import number_ranges
from ..numbers.exact import InputError
from ..records import dataclass

TYPE_CHECKING = False  # a type checker takes it as True
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from .model_layer_masks import ImageTokens

    from ..typing import Align

__all__ = ["MAX_LAYERS", "MAX_SIZE", "shown", "image_blocks", "LayerType", "Stack",
           "ModelLayers", "Tokens", "PanelPlan", "MODEL_TYPES", "model_layers",
           "plan_panels", "layer_list_text"]

#: The model types read, by family: how each chooses its layers' masks.
_MISTRAL_LIKE = ("mistral", "mixtral", "phi3", "qwen3_moe", "starcoder2")  # sliding_window on every layer, or none
_LAYER_TYPED = ("gemma2", "gemma3_text", "gemma3", "llama4_text", "llama4", "qwen2", "qwen3", "qwen2_moe", "gpt_oss",
                "cohere2", "modernbert", "olmo3", "exaone4", "smollm3", "gemma3n_text")
_FULL = ("llama", "gemma")
_ENCODERS = ("bert", "roberta", "xlm-roberta", "electra", "camembert", "distilbert")
_ENCODER_DECODERS = ("t5", "mt5", "bart")
_NESTED = {"gemma3": "gemma3_text", "llama4": "llama4_text"}  # multimodal configs: their text_config's type
#: Vision wrappers around a text model (LLaVA and its kin): their masks are their `text_config`'s, image tokens
#: causal like the text's (a part of their own in the figure).
_WRAPPERS = ("llava", "llava_next", "llava_onevision", "mistral3", "paligemma")
MODEL_TYPES = _MISTRAL_LIKE + _LAYER_TYPED + _FULL + _ENCODERS + _ENCODER_DECODERS + _WRAPPERS
_WHERE = "config"
#: Layer patterns of every n-th layer full: the config key that sets n (none: fixed) and its default.
_EVERY = {"gemma2": ("", 2), "gpt_oss": ("", 2), "gemma3_text": ("sliding_window_pattern", 6),
          "cohere2": ("sliding_window_pattern", 4), "modernbert": ("global_attn_every_n_layers", 3),
          "olmo3": ("", 4), "gemma3n_text": ("", 5)}
_INSTEAD = "draw it with attnviz render --view mask --mask ... instead"
MAX_LAYERS = 256  # a stack's layers: real models have under 200 (checked before any list of layers is made)
MAX_SIZE = 10**9  # a window, a chunk, a layer interval: real ones are under a million


@dataclass(frozen=True)
class LayerType:
    """One layer's attention pattern: `kind` is "full" (causal), "sliding" (a causal window of `size` keys),
    "chunked" (causal within chunks of `size`), "bidirectional", "local" (bidirectional, `size` keys each
    side) or "cross" (a decoder's queries on the encoder's keys)."""

    kind: str
    size: int = 0

    @property
    def label(self) -> str:
        """The pattern in words, with its parameter: "sliding window 4096"."""
        return {"full": "full causal", "sliding": f"sliding window {self.size}",
                "chunked": f"chunked attention, chunks of {self.size}", "bidirectional": "bidirectional",
                "local": f"local bidirectional, {self.size} keys each side", "cross": "cross-attention"}[self.kind]


@dataclass(frozen=True)
class Stack:
    """A stack of layers: "decoder" or "encoder", or "cross" (the decoder layers' cross-attention)."""

    name: str
    layers: tuple[LayerType, ...]


@dataclass(frozen=True)
class ModelLayers:
    """A model's stacks, and what its masks add: learned sink logits (GPT-OSS), image tokens that see each
    other both ways (Gemma 3); and what differs between its layers besides the mask (NoPE layers)."""

    model_type: str
    stacks: tuple[Stack, ...]
    sinks: bool = False
    images: bool = False
    no_rope: tuple[int, ...] = ()  # the decoder's layers without rotary positions (NoPE), 0-based
    softcap: str = ""  # the logits' soft-capping value (Gemma 2's attn_logit_softcapping), as the config gives it
    prefix_lm: bool = False  # PaliGemma: the image and the text prefix see each other both ways (`Tokens.prefix`)


@dataclass(frozen=True)
class Tokens:
    """The batch row drawn: `n` tokens (a decoder's `decoder_n`), `pad_left`/`pad_right` of them padding,
    the last `n - decode` of them decoded after a prompt of `decode` (0: the prefill), image tokens at
    positions `image` (first, last; 0-based; or several such blocks, one an image); `packed`: the lengths of
    documents packed in the row."""

    n: int
    pad_left: int = 0
    pad_right: int = 0
    decode: int = 0
    image: ImageTokens = None
    decoder_n: int | None = None
    packed: tuple[int, ...] = ()  # several documents packed in the row, of these lengths (position_ids restart)
    prefix: int = 0  # PaliGemma: the first `prefix` tokens (image and text prefix) see each other both ways


@dataclass(frozen=True)
class PanelPlan:
    """One panel: the layers of `stack` that share `layer`'s pattern, on a grid of `shape` (queries, keys)
    with `align`, kept where `mask` keeps. `sink`: key 0 is the sink logit, the tokens' keys follow."""

    stack: str
    layer: LayerType
    layers: tuple[int, ...]
    shape: tuple[int, int]
    align: Align
    mask: Mask
    sink: bool = False
    image: ImageTokens = None
    prefix: int = 0  # PaliGemma's prefix: positions 0..prefix-1 see each other both ways

    stack_words: str = ""  # "encoder", "decoder self-attention" in an encoder-decoder; else empty

    @property
    def title(self) -> str:
        """The panel's title: its pattern, its parameters and its layers."""
        words = [self.layer.label]
        if self.prefix:
            words.append(f"prefix 0–{self.prefix - 1} both ways")
        elif self.image:
            blocks = ", ".join(f"{a}–{b}" for a, b in image_blocks(self.image))
            words.append(f"image tokens {blocks} both ways")
        if self.sink:
            words.append("a learned sink logit")
        if self.stack_words:
            words.append(self.stack_words)
        words.append(layer_list_text(self.layers))
        return ", ".join(words)


def _missing(key: str, model_type: str, why: str = "") -> InputError:
    return InputError(f"the {model_type} config has no {key!r}{why}; give it in the config, or {_INSTEAD}", _WHERE)


def shown(value: object) -> str:
    """A value as an error message shows it, briefly: a huge number by its size, a list by its length."""
    if isinstance(value, int) and not -10**12 < value < 10**12:
        return f"a number of about {int(value.bit_length() * 0.30103) + 1:,} digits"
    if isinstance(value, (list, tuple, dict)):
        return f"a {type(value).__name__} of {len(value):,} items"
    return f"{value!r:.40}"


def _int(config: Mapping[str, object], key: str, model_type: str, high: int = MAX_SIZE) -> int:
    if config.get(key) is None:
        raise _missing(key, model_type)
    return _optional(config, key, 0, 1, high)


def _optional(config: Mapping[str, object], key: str, default: int, low: int = 1, high: int = MAX_SIZE) -> int:
    value = default if config.get(key) is None else config.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        more = f"; attnviz draws at most {MAX_LAYERS} layers (real models have under 200)" if high == MAX_LAYERS else ""
        raise InputError(f"{key} is {shown(value)}; expected a whole number from {low} to {high:,}{more}", _WHERE)
    return value


def model_layers(config: Mapping[str, object]) -> ModelLayers:
    """The model's stacks of layers, as transformers' modeling code masks them.

    >>> m = model_layers({"model_type": "gemma2", "num_hidden_layers": 4, "sliding_window": 3})
    >>> [layer.label for layer in m.stacks[0].layers]
    ['sliding window 3', 'full causal', 'sliding window 3', 'full causal']
    """
    model_type = config.get("model_type")
    if not isinstance(model_type, str) or not model_type:
        raise InputError("the config has no 'model_type'; give one of " + ", ".join(MODEL_TYPES) +
                         f", or {_INSTEAD}", _WHERE)
    if model_type not in MODEL_TYPES:
        raise InputError(f"model_type {model_type!r:.40} is not one attnviz reads (it reads "
                         f"{', '.join(MODEL_TYPES)}); {_INSTEAD}", _WHERE)
    if model_type in _NESTED or model_type in _WRAPPERS:
        return _wrapped(config, model_type)
    if model_type in _ENCODER_DECODERS:
        return _encoder_decoder(config, model_type)
    if model_type in _ENCODERS:
        n = _int(config, "n_layers" if model_type == "distilbert" else "num_hidden_layers", model_type, MAX_LAYERS)
        kind = "full" if config.get("is_decoder") else "bidirectional"
        return ModelLayers(model_type, (Stack("encoder" if kind == "bidirectional" else "decoder",
                                              (LayerType(kind),) * n),))
    n = _int(config, "num_hidden_layers", model_type, MAX_LAYERS)
    if model_type in _FULL:
        return ModelLayers(model_type, (Stack("decoder", (LayerType("full"),) * n),))
    if model_type in _MISTRAL_LIKE:
        return ModelLayers(model_type, (Stack("decoder", (_mistral_layer(config, model_type),) * n),))
    types = _layer_types(config, model_type, n)
    sizes = {"sliding_attention": lambda: _window(config, model_type),
             "chunked_attention": lambda: LayerType("chunked", _int(config, "attention_chunk_size", model_type)),
             "full_attention": lambda: LayerType("bidirectional" if model_type == "modernbert" else "full")}
    unknown = sorted(set(types) - set(sizes))
    if unknown:
        raise InputError(f"layer type {unknown[0]!r:.40} is not one attnviz draws (it draws full_attention, "
                         f"sliding_attention, chunked_attention); {_INSTEAD}", _WHERE)
    made = {name: sizes[name]() for name in set(types)}
    stack = "encoder" if model_type == "modernbert" else "decoder"
    cap = config.get("attn_logit_softcapping")
    softcap = f"{cap:g}" if isinstance(cap, (int, float)) and not isinstance(cap, bool) and cap > 0 else ""
    return ModelLayers(model_type, (Stack(stack, tuple(made[t] for t in types)),), sinks=model_type == "gpt_oss",
                       no_rope=_no_rope(config, model_type, n), softcap=softcap)


def _no_rope(config: Mapping[str, object], model_type: str, n: int) -> tuple[int, ...]:
    """The layers without rotary positions (NoPE): SmolLM3's and Llama 4's `no_rope_layers` (0 marks one)."""
    if model_type not in ("smollm3", "llama4_text"):
        return ()
    flags = config.get("no_rope_layers")
    if not flags:
        every = _optional(config, "no_rope_layer_interval", 4)
        flags = [int((i + 1) % every != 0) for i in range(n)]
    return tuple(i for i, flag in enumerate(_check_list(flags, "no_rope_layers", n)) if not flag)


def _wrapped(config: Mapping[str, object], model_type: str) -> ModelLayers:
    """A multimodal model's layers: its `text_config`'s (Gemma 3's image tokens see each other both ways)."""
    text = config.get("text_config") or {}
    if not isinstance(text, dict):
        raise InputError("text_config is not a table of keys", _WHERE)
    default = "gemma" if model_type == "paligemma" else "llama"  # the text model a config leaves out
    inner_type = _NESTED.get(model_type) or text.get("model_type") or default
    if inner_type in _WRAPPERS or inner_type in _NESTED:
        raise InputError(f"text_config's model_type {inner_type!r:.40} is itself a wrapper", _WHERE)
    inner = model_layers({**text, "model_type": inner_type})
    return ModelLayers(model_type, inner.stacks, inner.sinks, model_type in ("gemma3", "paligemma"), inner.no_rope,
                       inner.softcap, prefix_lm=model_type == "paligemma")


def _mistral_layer(config: Mapping[str, object], model_type: str) -> LayerType:
    """A sliding window on every layer, or none (`sliding_window` null, or Qwen3-MoE's `use_sliding_window` off)."""
    if "sliding_window" not in config and model_type != "qwen3_moe":
        raise _missing("sliding_window", model_type, " (null for full attention)")
    if config.get("sliding_window") is None or (model_type == "qwen3_moe" and not config.get("use_sliding_window")):
        return LayerType("full")
    return LayerType("sliding", _int(config, "sliding_window", model_type))


def _window(config: Mapping[str, object], model_type: str) -> LayerType:
    if model_type == "modernbert":
        return LayerType("local", _optional(config, "local_attention", 128, 2) // 2)
    if model_type in ("qwen2", "qwen3", "qwen2_moe") and not config.get("use_sliding_window"):
        raise _missing("sliding_window", model_type, " (use_sliding_window is off, yet layer_types has sliding layers)")
    if model_type == "gemma3_text" and config.get("use_bidirectional_attention"):
        raise InputError(f"use_bidirectional_attention (EmbeddingGemma) is not drawn here; {_INSTEAD}", _WHERE)
    return LayerType("sliding", _int(config, "sliding_window", model_type))


def _layer_types(config: Mapping[str, object], model_type: str, n: int) -> list[str]:
    """`layer_types` as given, or derived as the config class derives it."""
    given = config.get("layer_types")
    if given is not None:
        names = _check_list(given, "layer_types", n)
        if not all(isinstance(t, str) for t in names):
            raise InputError("layer_types is not a list of names", _WHERE)
        return [str(t) for t in names]
    sliding, full = "sliding_attention", "full_attention"
    if model_type in _EVERY:  # every n-th layer full (ModernBERT's from its first), the others sliding
        key, every = _EVERY[model_type]
        every = _optional(config, key, every) if key else every
        first = 0 if model_type == "modernbert" else 1
        return [sliding if (i + first) % every else full for i in range(n)]
    if model_type in _OWN_TYPES:
        return _OWN_TYPES[model_type](config, n)
    use = bool(config.get("use_sliding_window")) and config.get("sliding_window") not in (None, 0)
    first = _optional(config, "max_window_layers", 28, 0)
    if model_type == "qwen2_moe":
        return [sliding if (i + 1) % 2 and i < first and use else full for i in range(n)]
    return [sliding if use and i >= first else full for i in range(n)]  # qwen2, qwen3


def _exaone4_types(config: Mapping[str, object], n: int) -> list[str]:
    """EXAONE 4: no window, every layer full; a pattern of letters ("LLLG": L local, G global) repeated; or every
    `sliding_window_pattern`-th layer full."""
    pattern = config.get("sliding_window_pattern")
    if config.get("sliding_window") is None:
        return ["full_attention"] * n
    if not isinstance(pattern, str):
        every = _optional(config, "sliding_window_pattern", 4)
        return ["sliding_attention" if (i + 1) % every else "full_attention" for i in range(n)]
    if not pattern or set(pattern) - {"L", "G"}:
        raise InputError(f"sliding_window_pattern is {shown(pattern)}; expected letters L and G, e.g. LLLG", _WHERE)
    return ["sliding_attention" if pattern[i % len(pattern)] == "L" else "full_attention" for i in range(n)]


def _smollm3_types(config: Mapping[str, object], n: int) -> list[str]:
    """SmolLM3: full, or (`use_sliding_window`) a window on the layers without RoPE."""
    no_rope = set(_no_rope(config, "smollm3", n))
    use = bool(config.get("use_sliding_window")) and config.get("sliding_window") is not None
    return ["sliding_attention" if use and i in no_rope else "full_attention" for i in range(n)]


def _llama4_types(config: Mapping[str, object], n: int) -> list[str]:
    """Llama 4: chunked where RoPE is, full on the no-RoPE layers."""
    no_rope = set(_no_rope(config, "llama4_text", n))
    return ["full_attention" if i in no_rope else "chunked_attention" for i in range(n)]


#: Model types whose layer_types, when a config leaves them out, are derived by a rule of their own.
_OWN_TYPES = {"exaone4": _exaone4_types, "smollm3": _smollm3_types, "llama4_text": _llama4_types}


def _check_list(value: object, key: str, n: int) -> Sequence[object]:
    """A per-layer list (`layer_types`, `no_rope_layers`) names exactly the `n` layers (so at most MAX_LAYERS)."""
    if not isinstance(value, (list, tuple)):
        raise InputError(f"{key} is {shown(value)}, not a list of the {n} layers", _WHERE)
    if len(value) != n:
        raise InputError(f"{key} names {len(value):,} layers, but the config has {n}", _WHERE)
    return value


def _encoder_decoder(config: Mapping[str, object], model_type: str) -> ModelLayers:
    if model_type == "bart":
        n_enc = _int(config, "encoder_layers", model_type, MAX_LAYERS)
        n_dec = _int(config, "decoder_layers", model_type, MAX_LAYERS)
    else:
        n_enc = _int(config, "num_layers", model_type, MAX_LAYERS)
        n_dec = _optional(config, "num_decoder_layers", n_enc, 1, MAX_LAYERS)
    return ModelLayers(model_type, (Stack("encoder", (LayerType("bidirectional"),) * n_enc),
                                    Stack("decoder", (LayerType("full"),) * n_dec),
                                    Stack("cross", (LayerType("cross"),) * n_dec)))


def layer_list_text(layers: Sequence[int]) -> str:
    """Layers as a title lists them: runs as ranges, a long even stride with an ellipsis.

    >>> layer_list_text([0, 1, 2, 3, 4, 6, 7]), layer_list_text([1, 3, 5, 7, 9]), layer_list_text([5])
    ('layers 0–4, 6, 7', 'layers 1, 3, …, 9 (every 2nd)', 'layer 5')
    """
    if len(layers) == 1:
        return f"layer {layers[0]}"
    steps = {b - a for a, b in zip(layers, layers[1:])}
    if len(steps) == 1 and len(layers) >= 4 and (step := steps.pop()) > 1:
        nth = {2: "2nd", 3: "3rd"}.get(step, f"{step}th")
        return f"layers {layers[0]}, {layers[1]}, …, {layers[-1]} (every {nth})"
    parts = number_ranges(layers, "–", ", ")
    parts = parts[:5] + ["…", parts[-1]] if len(parts) > 6 else parts
    return "layers " + ", ".join(parts)


def _check_tokens(model: ModelLayers, tokens: Tokens) -> None:
    where = "decode"
    if tokens.pad_left + tokens.pad_right >= tokens.n:
        raise InputError(f"{tokens.pad_left + tokens.pad_right} padding positions leave none of the {tokens.n} tokens",
                         "pad")
    if tokens.decode:
        n = tokens.decoder_n if any(s.name == "cross" for s in model.stacks) and tokens.decoder_n else tokens.n
        if not 1 <= tokens.decode < n:
            raise InputError(f"a prompt of {tokens.decode} leaves no token of {n} to decode (give 1..{n - 1})", where)
        if any(s.name == "encoder" for s in model.stacks) and not any(s.name == "cross" for s in model.stacks):
            raise InputError(f"{model.model_type} is an encoder: it does not decode", where)
        if tokens.pad_right and not any(s.name == "cross" for s in model.stacks):
            raise InputError("a decoded row is padded on the left; --pad-right is for encoders", "pad-right")
        if tokens.image:
            raise InputError("image tokens are drawn in the prefill; give --image-tokens without --decode", where)
    if tokens.packed:
        _check_packed(model, tokens)
    _check_image(model, tokens)


def _check_image(model: ModelLayers, tokens: Tokens) -> None:
    if tokens.prefix:
        _check_prefix(model, tokens)
    blocks = image_blocks(tokens.image)
    if blocks and not model.images:
        raise InputError(f"{model.model_type} has no image tokens (Gemma 3's do: model_type gemma3)", "image-tokens")
    for n, (first, last) in enumerate(blocks):
        if not tokens.pad_left <= first <= last < tokens.n - tokens.pad_right:
            raise InputError(f"image tokens {first}-{last} are not all tokens of the row (positions "
                             f"{tokens.pad_left}..{tokens.n - tokens.pad_right - 1}, 0-based)", "image-tokens")
        if n and first <= blocks[n - 1][1] + 1:
            raise InputError(f"image blocks {blocks[n - 1][0]}-{blocks[n - 1][1]} and {first}-{last} overlap or "
                             "touch (one image then): give them in order, a text token between", "image-tokens")


def _check_prefix(model: ModelLayers, tokens: Tokens) -> None:
    """PaliGemma's prefix: the row's first tokens, holding the image; drawn in the prefill of an unpadded row."""
    if not model.prefix_lm:
        raise InputError(f"{model.model_type} has no bidirectional prefix (PaliGemma's does: model_type paligemma)",
                         "prefix")
    if not 1 <= tokens.prefix <= tokens.n:
        raise InputError(f"a prefix of {tokens.prefix} is not within the row's {tokens.n} tokens", "prefix")
    if tokens.pad_left or tokens.pad_right or tokens.decode or tokens.packed:
        raise InputError("the prefix is drawn in the prefill of an unpadded row: give --prefix without --pad-left, "
                         "--pad-right, --decode or --packed", "prefix")
    last = max((b for _, b in image_blocks(tokens.image)), default=-1)
    if last >= tokens.prefix:
        raise InputError(f"the image tokens up to {last} are part of the prefix (0-"
                         f"{tokens.prefix - 1}): give a longer --prefix", "prefix")


def _check_packed(model: ModelLayers, tokens: Tokens) -> None:
    """Packing as transformers reads it: from position_ids, with no padding mask and no cache; chunks would restart
    at each document (not drawn)."""
    for given, flag in ((tokens.pad_left or tokens.pad_right, "pad"), (tokens.decode, "decode"),
                        (tokens.image, "image-tokens")):
        if given:
            raise InputError(f"packed documents are read from position_ids with no padding mask and no cache, "
                             f"so --{flag} does not go with --packed", "packed")
    if any(s.name != "decoder" for s in model.stacks):
        raise InputError(f"{model.model_type} is not a decoder-only model; --packed draws a decoder's row", "packed")
    if any(layer.kind == "chunked" for s in model.stacks for layer in s.layers):
        raise InputError("packed documents restart their chunks at each document; chunked layers are not drawn "
                         "packed", "packed")


def plan_panels(model: ModelLayers, tokens: Tokens, selection: str | Sequence[int] = "types") -> tuple[PanelPlan, ...]:
    """The panels to draw: one per distinct pattern of each stack ("types"), one per layer ("all"), or one
    per pattern of the listed layers (0-based, as transformers counts them).

    >>> m = model_layers({"model_type": "gemma2", "num_hidden_layers": 4, "sliding_window": 3})
    >>> [(p.title, p.mask.text) for p in plan_panels(m, Tokens(6, pad_left=1))]  # doctest: +NORMALIZE_WHITESPACE
    [('sliding window 3, layers 0, 2', 'window=3 & padding=0'), ('full causal, layers 1, 3', 'causal & padding=0')]
    """
    _check_tokens(model, tokens)
    n_dec = tokens.decoder_n or tokens.n
    counts = {s.name: len(s.layers) for s in model.stacks}
    chosen = _selection(selection, max(counts.values()))
    padding = tuple(range(tokens.pad_left)) + tuple(range(tokens.n - tokens.pad_right, tokens.n))
    panels: list[PanelPlan] = []
    for stack in model.stacks:
        groups: dict[LayerType, list[int]] = {}
        for index, layer in enumerate(stack.layers):
            if chosen is not None and index not in chosen:
                continue
            if selection == "all":
                panels.append(_panel(model, stack.name, layer, (index,), tokens, n_dec, padding))
            else:
                groups.setdefault(layer, []).append(index)
        panels.extend(_panel(model, stack.name, layer, tuple(layers), tokens, n_dec, padding)
                      for layer, layers in groups.items())
    if not panels:
        raise InputError(f"no layer of the {model.model_type} config is among those chosen", "layers")
    return tuple(panels)


def _selection(selection: str | Sequence[int], n_layers: int) -> frozenset[int] | None:
    if selection in ("types", "all"):
        return None
    if isinstance(selection, str):
        raise InputError(f"expected all, types or layer numbers like 0,5, got {selection!r:.40}", "layers")
    out = frozenset(selection)
    bad = [x for x in out if not 0 <= x < n_layers]
    if bad:
        raise InputError(f"layer {min(bad)} is not a layer of this model (layers 0..{n_layers - 1}, as transformers "
                         "counts them)", "layers")
    return out


def _panel(model: ModelLayers, stack: str, layer: LayerType, layers: tuple[int, ...], tokens: Tokens, n_dec: int,
           padding: tuple[int, ...]) -> PanelPlan:
    """One panel's grid and mask."""
    encoder_decoder = any(s.name == "cross" for s in model.stacks)
    n_q = n_k = n_dec if encoder_decoder and stack == "decoder" else tokens.n
    pad = () if encoder_decoder and stack == "decoder" else padding
    n_q = n_dec if stack == "cross" else n_q
    prompt = tokens.decode if stack != "encoder" else 0
    image = tokens.image if layer.kind in ("full", "sliding") else None
    both_ways = (0, tokens.prefix - 1) if tokens.prefix and layer.kind in ("full", "sliding") else image
    mask = layer_mask(layer, tokens.pad_left if pad else 0, both_ways,
                       "the prefix" if tokens.prefix else "the image tokens")
    if pad:
        mask = mask & Mask(f"padding={','.join(map(str, pad))}")
    if tokens.packed:  # causal within each document (the layer's window too: positions restart, gaps stay)
        ids = [n for n, length in enumerate(tokens.packed) for _ in range(length)]
        mask = mask & Mask("segments=" + ",".join(map(str, ids)))
    n_q -= prompt
    align: Align = "bottom-right" if n_q != n_k and stack != "cross" else "top-left"
    if both_ways is not None:  # the image's (and the prefix's) cells a part of their own, coloured apart
        mask = with_image_part(resolve(mask, n_q, n_k, align, 0), image, tokens.prefix)
    if model.sinks:  # the sink logit is a column of its own before the tokens' keys, which keep their numbers
        mask, n_k, align = with_sink(resolve(mask, n_q, n_k, align, 0, prompt or None)), n_k + 1, "top-left"
    words = {"encoder": "encoder", "decoder": "decoder self-attention"}.get(stack, "") if encoder_decoder else ""
    words = "decoder queries on encoder keys" if stack == "cross" else words
    return PanelPlan(stack, layer, layers, (n_q, n_k), align, mask, model.sinks, image,
                     tokens.prefix if both_ways is not None else 0, words)
