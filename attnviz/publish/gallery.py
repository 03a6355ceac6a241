"""The gallery: one figure per mask family, caption form and scoring option (`attnviz gallery`).

Each entry is the `attnviz render` command that makes it, so the docs (docs/gallery-commands.rst) can show the command
beside the picture; its figure is drawn through the API from those flags (read as the command reads
them), and the custom-mask entry as a user would paste it. `attnviz gallery` runs the entries as a
batch (cli.commands.gallery_jobs).
"""

from __future__ import annotations

from dataclasses import dataclass

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from ..figures.figure import Drawable, Figure

__all__ = ["Entry", "ENTRIES", "ModelEntry", "MODEL_ENTRIES", "dilated", "make", "make_model", "flag_arguments"]

Q5 = "1,0; 0,1; 1,1; 1,-1; 0,2"
Q6 = "1,0; 0,1; 1,1; 1,-1; 0,2; 2,1"
Q8 = "1,0; 0,1; 1,1; 2,0; 0,2; 1,-1; 3,1; 0,0"
M6 = "1,0; 0,1; 1,1; 2,0; 0,2; 0,0"  # MoBA's gate ties in its last rows: torch.topk's order decides
Q12 = "1,0; 0,1; 1,1; 2,0; 0,2; 1,-1; 3,1; 0,1; 1,2; 2,1; -1,1; 1,3"


@dataclass(frozen=True)
class Entry:
    """One gallery figure: its file name, title and the command (or spec) that draws it."""
    name: str  # file name without .svg
    title: str  # passed as --title too
    args: tuple[str, ...] = ()  # `attnviz render` arguments (without -o and --title), or () for an API entry
    step: int = 0  # when set: that step (1-based) of `attnviz walkthrough ARGS`
    spec: str = ""  # when set: a spec file's text (panels need one), drawn by `attnviz render NAME.toml`

    @property
    def command(self) -> str:
        """The entry as a shell command, the shared vectors written as "$V" (V="1,0; 0,1; ...")."""
        if self.spec:
            return f"attnviz render {self.name}.toml"
        quoted = ['"$V"' if a == Q5 else f'"{a}"' if any(ch in a for ch in ' ;<>|&') else a for a in self.args]
        return " ".join(["attnviz walkthrough" if self.step else "attnviz render", *quoted])


def _entry(name: str, title: str, *args: str, q: str = Q5, k: str = Q5) -> Entry:
    return Entry(name, title, ("--q", q, "--k", k, *args))


def dilated(q_idx: int, kv_idx: int) -> bool:
    """A custom rule, FlexAttention style: every other earlier key (a dilated causal mask)."""
    return kv_idx <= q_idx and (q_idx - kv_idx) % 2 == 0


ENTRIES = (
    _entry("mask-causal", "Causal mask", "--mask", "causal"),
    _entry("mask-none", "No mask (bidirectional)", "--mask", "none"),
    _entry("mask-window", "Sliding window of 3", "--mask", "window=3"),
    _entry("mask-prefix", "Prefix-LM, prefix of 2", "--mask", "prefix=2"),
    _entry("mask-chunk", "Chunked attention, blocks of 2", "--mask", "chunk=2"),
    _entry("mask-segments", "Packed documents", "--mask", "segments=1,1,2,2,2"),
    _entry("mask-padding", "Padding at keys 4 and 5", "--mask", "padding=4,5"),
    _entry("mask-matrix", "Explicit mask: first token plus the diagonal", "--mask",
           "matrix=10000;11000;10100;10010;10001"),
    _entry("mask-combined", "Window of 2 and padding", "--mask", "window=2", "--mask", "padding=5"),
    _entry("mask-longformer", "Longformer: symmetric window of 2, global token 1", "--mask",
           "window=2,symmetric | global=1"),
    _entry("mask-dilated", "Dilated window: 2 keys, 2 apart", "--mask", "window=2,dilation=2"),
    _entry("mask-documents", "Packed documents, bidirectional", "--mask", "documents=1,1,2,2,2"),
    _entry("mask-prefix-documents", "Prefix-LM in each document, prefix of 2", "--mask",
           "prefix=2,documents=1,1,1,2,2"),
    _entry("align-top-left", "Two queries, five keys: top-left", "--align", "top-left", q="1,1; 0,1"),
    _entry("align-bottom-right", "Two queries, five keys: bottom-right", "--align", "bottom-right", q="1,1; 0,1"),
    Entry("mask-custom", "Custom rule: dilated causal", ()),
    _entry("scale-sqrt", "Scaled dot product, S/√2", "--scale", "sqrt", "--show", "logits"),
    _entry("bias-alibi", "ALiBi, slope 1/2", "--bias", "alibi=1/2", "--show", "logits"),
    _entry("softmax-expanded", "Caption form: expanded", "--softmax", "expanded", q="1,0; 0,1; 1,1", k="1,0; 0,1; 1,1"),
    _entry("softmax-normalizer", "Caption form: normalizer", "--softmax", "normalizer"),
    _entry("softmax-grouped", "Caption form: grouped", "--softmax", "grouped"),
    _entry("weights-decimal", "Rounded weights and outputs", "--weights", "decimal=3",
           "--v", "1,0; 0,1; 1,1; 2,0; 0,2"),
    _entry("values", "Outputs as weighted sums", "--v", "1,0; 0,1; 1,1; 2,0; 0,2", q="0,0; 0,0; 0,0; 1,0; 1,1"),
    Entry("heads-gqa", "Grouped-query attention: 4 query heads, 2 KV heads",
          ("--q-heads", "1,0; 0,1; 1,1 | 1,1; 0,1; 1,-1 | 2,0; 1,1; 0,1 | 0,1; 1,0; 1,1",
           "--k-heads", "1,0; 0,1; 1,1 | 1,1; 1,-1; 0,2", "--v-heads", "1; 2; 3 | 3; 1; 0")),
    # Mechanics: one step of a walkthrough each.
    Entry("flash-tile", "FlashAttention-2, 2×2 tiles", ("--q", Q5, "--k", Q5, "--flash", "2,2"), step=3),
    Entry("flash-final", "FlashAttention-2, 2×2 tiles", ("--q", Q5, "--k", Q5, "--flash", "2,2"), step=7),
    # Views and panels: the figures people publish, redrawn.
    Entry("map-subsequent-20", "subsequent_mask(20), the Annotated Transformer's",
          ("--view", "mask", "--n", "20", "--index-base", "0")),
    Entry("map-window-512", "Sliding window of 128, 512 tokens", ("--view", "mask", "--n", "512", "--mask",
                                                                   "window=128")),
    Entry("map-decode", "Decoding: 4 new queries, 12 cached keys",
          ("--view", "mask", "--shape", "4x12", "--align", "bottom-right", "--x-title", "cached key j", "--y-title",
           "new query i")),
    Entry("map-tokens", "Sliding window of 3 over tokens",
          ("--view", "mask", "--tokens", "What is your favorite condiment ?", "--mask", "window=3")),
    Entry("panels-mistral", "Vanilla attention and sliding-window attention", spec="""\
title = "Vanilla attention and sliding-window attention"
view = "mask"
tokens = ["The", "cat", "sat", "on", "the"]

[[panel]]
title = "Vanilla (causal)"

[[panel]]
title = "Sliding window, W = 3"
mask = "window=3"
"""),
    Entry("panels-three", "Causal, prefix-LM and document masking", spec="""\
title = "Causal, prefix-LM and document masking"
view = "mask"
n = 16
index_base = 0

[[panel]]
title = "causal"

[[panel]]
title = "prefix-LM, prefix of 6"
mask = "prefix=6"

[[panel]]
title = "three packed documents"
mask = "segments=1,1,1,1,1,2,2,2,2,2,2,3,3,3,3,3"
"""),
    Entry("paper-longformer", "Longformer's attention patterns", spec="""\
title = "Longformer's attention patterns"
view = "mask"
n = 12
frame = "slide"
arrange = "grid:2"

[[panel]]
title = "(a) full n² attention"
mask = "none"

[[panel]]
title = "(b) sliding window"
mask = "window=3,symmetric"

[[panel]]
title = "(c) dilated sliding window"
mask = "window=3,symmetric,dilation=2"

[[panel]]
title = "(d) global + sliding window"
mask = "window=3,symmetric | global=1,7"
"""),
    Entry("paper-bigbird", "BigBird: random, window and global attention",
          ("--view", "mask", "--n", "16", "--mask", "random=2,seed=1 | window=2,symmetric | global=1,2",
           "--color-by", "part", "--frame", "slide")),
    Entry("paper-sparse-transformer", "Sparse Transformer: strided and fixed heads", spec="""\
title = "Sparse Transformer: strided and fixed heads"
view = "mask"
n = 16
frame = "slide"
arrange = "grid:2"

[[panel]]
title = "strided, head 1: the last 4"
mask = "window=4"

[[panel]]
title = "strided, head 2: every 4th"
mask = "window=4,dilation=4"

[[panel]]
title = "fixed, head 1: own block"
mask = "chunk=4"

[[panel]]
title = "fixed, head 2: summary keys"
mask = "causal & keys=4,8,12,16"
"""),
    Entry("paper-streamingllm", "StreamingLLM: attention sinks and a window",
          ("--view", "mask", "--n", "12", "--mask", "window=4 | (causal & sink=4)", "--color-by", "part",
           "--frame", "slide")),
    _entry("view-scores", "Score table", "--view", "scores"),
    _entry("bias-panel", "ALiBi: scores and the bias matrix", "--bias", "alibi=1/2", "--show", "bias"),
    Entry("elided-12", "Twelve tokens, rows and keys 5–10 elided",
          ("--q", "1,0; 0,1; 1,1; 2,0; 0,2; 1,2; 2,1; 2,2; 1,0; 0,1; 1,1; 3,1", "--k",
           "1,0; 0,1; 1,1; 2,0; 0,2; 1,2; 2,1; 2,2; 1,0; 0,1; 1,1; 3,1", "--elide", "--softmax", "normalizer",
           "--highlight", "12,7")),
    Entry("decode-window", "KV-cache decoding, window of 2", ("--q", Q5, "--k", Q5, "--mask", "window=2", "--decode",
                                                               "2"), step=3),
    # Mechanics as the papers draw them (issue 22): the rolling buffer, the GQA schematic, Sparse Transformer's heads.
    Entry("decode-mistral", "Mistral's rolling buffer cache: a window of 3, token 5",
          ("--q", Q6, "--k", Q6, "--tokens", "The cat sat on the mat", "--mask", "window=3", "--decode", "2",
           "--view", "scores", "--frame", "slide"), step=4),
    Entry("heads-gqa-schematic", "Grouped-query attention: 8 query heads share 2 KV heads",
          ("--view", "heads", "--q-heads", "1 | 2 | 3 | 4 | 5 | 6 | 7 | 8", "--k-heads", "1 | 2", "--frame", "slide")),
    Entry("heads-sparse-strided", "Sparse Transformer, strided: two heads",
          ("--view", "mask", "--n", "16", "--head-mask", "window=4", "--head-mask", "window=16,dilation=4",
           "--frame", "slide")),
    Entry("flash-state-slide", "FlashAttention-2 on a slide: a tile and each row's m and ℓ",
          ("--q", Q5, "--k", Q5, "--flash", "2,2", "--frame", "slide"), step=3),
    # Softmax forms (issue 34): each as the models and papers use it, named, never a made-up key.
    Entry("form-gpt-oss-sink", "GPT-OSS: a sink logit per head in the denominator, window of 2",
          ("--q-heads", "1,0; 0,1; 1,1 | 0,1; 1,1; 1,0", "--k-heads", "1,0; 0,1; 1,1", "--mask", "window=2",
           "--sink", "s_1 | s_2")),
    _entry("form-quiet-softmax", "The quiet softmax (softmax plus one): --sink 0", "--sink", "0",
           "--softmax", "normalizer"),
    _entry("form-sigmoid", "Sigmoid attention, b = −ln n: no row normalisation", "--sigmoid", "-ln(n)"),
    _entry("form-softcap", "Gemma 2: logits soft-capped at 50, window of 3", "--softcap", "50", "--mask",
           "window=3", "--softmax", "normalizer"),
    Entry("form-differential", "DIFF Transformer: A₁, A₂ and A₁ − λ·A₂",
          ("--q-heads", "1,0; 0,1; 1,1 | 0,1; 1,0; 1,1", "--k-heads", "1,0; 0,1; 1,1", "--differential", "1/2")),
    # Sparse and split attention computed from Q and K (issue 35): MoBA's gate, NSA's branches, Flash-Decoding.
    Entry("sparse-moba", "MoBA: blocks of 2 keys, top 2, chosen by the gate q·mean(K)",
          ("--q", M6, "--k", M6, "--sparse", "moba=2,2", "--view", "mask")),
    Entry("sparse-nsa", "NSA: compressed, selected and window branches, and their union",
          ("--q", Q12, "--k", Q12, "--sparse", "nsa=4,2,2,3,2,local=1", "--view", "mask")),
    Entry("flash-decoding-chunks", "Flash-Decoding: one query, keys in chunks of 3, combined",
          ("--q", "1,1", "--k", Q8, "--mask", "none", "--split-kv", "3"), step=4),

    # Sparse and split attention as it runs (issue 35): FlexAttention's blocks, a token tree, T5's buckets.
    Entry("paper-flexattention-blocks", "FlexAttention's BlockMask: 16 causal tokens, blocks of 4",
          ("--view", "mask", "--n", "16", "--blocks", "4", "--frame", "slide")),
    Entry("paper-medusa-tree", "Medusa's tree attention: two heads, top 2 each, after a 3-token prompt",
          ("--view", "mask", "--tokens", "The cat sat on in the a the my", "--mask", "tree=-1,-1,0,0,1,1,prompt=3",
           "--frame", "slide")),
    Entry("bias-t5-buckets", "T5's relative-position buckets: 8 buckets, max distance 8, the bias b[k] named",
          ("--q", Q6, "--k", Q6, "--mask", "none", "--bias", "t5=8,8", "--show", "bias", "--softmax", "normalizer")),
)


@dataclass(frozen=True)
class ModelEntry:
    """A real model's masks (`attnviz model`) on a slide: its config (sizes scaled down so that windows and
    chunks show in a few tokens; the layer patterns are the model's) and `model_figure`'s options."""
    name: str
    title: str
    config: tuple[tuple[str, Any], ...]
    options: tuple[tuple[str, Any], ...] = ()

    @property
    def command(self) -> str:
        """The entry as a command, its config written to `NAME/config.json`."""
        flags = [f"--{key.replace('_', '-')}" if value is True else
                 f"--{key.replace('_', '-')} {value!r}" if isinstance(value, str) else f"--{key.replace('_', '-')} "
                 f"{value}" for key, value in self.options]
        return " ".join(["attnviz model", f"{self.name}/config.json", *flags, "--frame slide"])


MODEL_ENTRIES = (
    ModelEntry("model-gemma3", "Gemma 3: five sliding layers to one full, an image's tokens both ways", (
        ("model_type", "gemma3"),
        ("text_config", {"num_hidden_layers": 12, "sliding_window": 6, "sliding_window_pattern": 6})),
        (("n", 14), ("image_tokens", "4-8"))),
    ModelEntry("model-llama4", "Llama 4: three chunked layers to one full", (
        ("model_type", "llama4_text"), ("num_hidden_layers", 12), ("attention_chunk_size", 4),
        ("no_rope_layer_interval", 4)), (("n", 14),)),
    ModelEntry("model-gpt-oss", "GPT-OSS: sliding and full layers, each row with its sink logit", (
        ("model_type", "gpt_oss"), ("num_hidden_layers", 8), ("sliding_window", 4)), (("n", 12),)),
    ModelEntry("model-bert-padded", "BERT: a padded batch row, bidirectional", (
        ("model_type", "bert"), ("num_hidden_layers", 12)),
        (("tokens", "[CLS] the cat sat down [SEP] [PAD] [PAD] [PAD]"), ("pad_right", 3))),
    ModelEntry("model-t5-cross", "T5: encoder, decoder and the cross-attention between them", (
        ("model_type", "t5"), ("num_layers", 6)), (("n", 10), ("pad_right", 2), ("decoder_n", 6))),
    ModelEntry("model-t5-buckets", "T5's relative-position buckets: the encoder's both ways, the decoder's one way", (
        ("model_type", "t5"), ("num_layers", 6), ("relative_attention_num_buckets", 8),
        ("relative_attention_max_distance", 16)), (("n", 7), ("decoder_n", 5), ("buckets", True))),
)


def make_model(entry: ModelEntry) -> Drawable:
    """A model entry's figure, on a slide, as `attnviz model` draws it."""
    from ..figures.model import model_figure  # start-up: the gallery's modules load when it is drawn

    return model_figure(dict(entry.config), title=entry.title, frame="slide", **dict(entry.options))


def make(entry: Entry) -> Drawable:
    """The entry's figure, drawn through the API from its command's flags, as `attnviz render` (or, for a
    step, `attnviz walkthrough`) draws it; the custom-mask entry as a user of the API would."""
    from ..figures.from_arguments import build  # start-up: the gallery's modules load when it is drawn
    from ..io.spec import figure_arguments, parse_spec, parse_vectors

    if entry.spec:
        return build(figure_arguments(parse_spec(entry.spec, f"{entry.name}.toml"), f"{entry.name}.toml"))
    if not entry.args:
        from ..figures.api import figure  # start-up: only the custom-mask entry calls it directly

        vectors = parse_vectors(Q5, "q")
        return figure(vectors, vectors, mask=dilated, title=entry.title)
    kwargs, walk = flag_arguments([*entry.args, "--title", entry.title])
    fig = build(kwargs)
    if not entry.step:
        return fig
    if TYPE_CHECKING:  # a walkthrough entry draws one figure, not panels
        assert isinstance(fig, Figure)
    if "flash" in walk:
        from .walkthrough.flash import flash_walkthrough  # start-up: only a FlashAttention entry steps through it

        _, figures = flash_walkthrough(fig, walk["flash"], walk.get("flash_order", "fa2"))
    elif "split_kv" in walk:
        from .walkthrough.flash_decoding import split_kv_walkthrough  # start-up: only a Flash-Decoding entry

        _, figures = split_kv_walkthrough(fig, walk["split_kv"])
    else:
        from .walkthrough.decode import decode_walkthrough  # start-up: only a decoding entry steps through it

        _, figures = decode_walkthrough(fig, walk["decode"])
    return figures[entry.step - 1]


def flag_arguments(args: Sequence[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(figure() arguments, walkthrough keys) of an entry's command-line flags, each read as the command reads
    it (the option table's flag, then the spec key's check); the seed's vectors when none are given."""
    from ..figures.options import OPTIONS  # start-up: the gallery's modules load when it is drawn
    from ..io.spec import KEYS, TEXT_READERS, WALKTHROUGH_KEYS, with_the_seed

    by_flag = {option.flag: option for option in OPTIONS if option.flag}
    given: dict[str, Any] = {}
    rest = iter(args)
    for flag in rest:
        option = by_flag[flag]
        if option.action == "switch":
            given[option.name] = True
        elif option.action == "append":
            given.setdefault(option.name, []).append(next(rest))
        else:
            given[option.name] = int(next(rest)) if option.value == "whole" else next(rest)
    kwargs: dict[str, Any] = {}
    walk: dict[str, Any] = {}
    for key, spec_key in {**KEYS, **WALKTHROUGH_KEYS}.items():  # the order the command reads them in
        if key in given:
            value, flag = given[key], f"--{key.replace('_', '-')}"  # as the command names it in errors
            if isinstance(value, str) and key in TEXT_READERS:
                value = TEXT_READERS[key](value, flag)
            (walk if key in WALKTHROUGH_KEYS else kwargs)[key] = spec_key.check(value, flag)
    with_the_seed(kwargs)
    return kwargs, walk

