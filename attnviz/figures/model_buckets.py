"""T5's relative-position buckets in `attnviz model CONFIG --buckets`: each self-attention stack's panel drawn as its
bucket grid, every kept cell holding the bucket k of j − i (`engine.t5_buckets`, equal to transformers'
`T5Attention._relative_position_bucket`), so the bias its logit gets is the head's learned b[k].

T5's encoder buckets both ways (bidirectional), its decoder's self-attention one way (keys before the query; the
causal mask hides the rest); cross-attention has no position bias. Only the first layer of each stack owns
`relative_attention_bias`; the stack's other layers add the position_bias that layer computed.
"""

from __future__ import annotations

from fractions import Fraction

from ..engine.attention import attend
from ..engine.model_masks import layer_list_text
from ..engine.model_masks import shown
from ..engine.t5_buckets import MAX_BUCKETS, check_buckets, config_note, t5_bias
from ..numbers.exact import InputError
from ..records import replace
from ..words.bias_panel import describe_bias
from ..words.figure_text import Wording, describe
from ..words.highlight import NO_HIGHLIGHT
from .figure import ScoresFigure
from ..render.themes import get_theme

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..engine.model_masks import ModelLayers, PanelPlan

__all__ = ["BUCKET_MODELS", "MAX_BUCKET_TOKENS", "config_buckets", "bucket_panel", "bucket_title", "sharing_note",
           "bucket_sizes", "bucket_notes"]

#: The model types whose attention adds T5's relative-position buckets (transformers' T5Attention).
BUCKET_MODELS = ("t5", "mt5")
#: The longest row a bucket grid draws: every cell writes its bucket.
MAX_BUCKET_TOKENS = 64
#: transformers' T5Config defaults, for a config that leaves the keys out.
_DEFAULTS = {"relative_attention_num_buckets": 32, "relative_attention_max_distance": 128}


def config_buckets(config: dict[str, object], model: ModelLayers) -> tuple[int, int]:
    """(buckets, max distance) of a T5 config, checked (a config is untrusted data): whole numbers the bucket
    formula has a value for, or a one-line refusal."""
    if model.model_type not in BUCKET_MODELS:
        raise InputError(f"draws T5's relative-position buckets; {model.model_type} has none (model_type t5 or mt5 "
                         "does)", "buckets")
    sizes = []
    for key, default in _DEFAULTS.items():
        value = config.get(key, default)
        if type(value) is not int or not 1 <= value <= 10**6:
            shown = f"{value!r:.40}" if isinstance(value, (str, int, float, bool)) or value is None else \
                type(value).__name__
            raise InputError(f"the config's {key} must be a whole number, got {shown}", "buckets")
        sizes.append(value)
    num_buckets, max_distance = sizes
    if num_buckets > MAX_BUCKETS:
        raise InputError(f"the config's relative_attention_num_buckets is {num_buckets}; attnviz draws 2 to "
                         f"{MAX_BUCKETS}", "buckets")
    for bidirectional in (True, False):
        check_buckets(num_buckets, max_distance, bidirectional, "buckets")
    return num_buckets, max_distance


def bucket_title(plan: PanelPlan) -> str:
    """A self-attention panel's title, short (a slide puts two grids side by side): its stack's buckets, its layers.

    >>> from types import SimpleNamespace
    >>> bucket_title(SimpleNamespace(stack="decoder", layers=(0, 1, 2)))
    'decoder buckets, layers 0–2'
    """
    return f"{plan.stack} buckets, {layer_list_text(plan.layers)}"


def bucket_panel(plan: PanelPlan, sizes: tuple[int, int], labels: tuple[Sequence[str] | None, Sequence[str] | None],
                 theme: str, embed_font: bool, frame: str) -> ScoresFigure:
    """`plan`'s mask drawn as T5's bucket grid: each kept cell its bucket k (bidirectional in the encoder, one-sided
    in the decoder), masked cells hatched; positions count from 0, as the model's panels do."""
    from ..engine.masks import resolve  # start-up: only a bucket grid binds a model's mask itself

    n_q, n_k = plan.shape
    if max(n_q, n_k) > MAX_BUCKET_TOKENS:
        raise InputError(f"a bucket grid writes each cell's bucket: at most {MAX_BUCKET_TOKENS} tokens, got "
                         f"{max(n_q, n_k)}; give a smaller --n", "buckets")
    offset = n_k - n_q if plan.align == "bottom-right" else 0
    bound = resolve(plan.mask, n_q, n_k, plan.align, 0)
    bias = t5_bias(f"{sizes[0]},{sizes[1]}", offset, causal=plan.stack != "encoder")
    zeros = [[Fraction(0)]]
    q_labels = labels[0] or tuple(str(offset + i) for i in range(n_q))
    k_labels = labels[1] or tuple(str(j) for j in range(n_k))
    # The grid's cells come from the plain attention (no softmax written), its buckets from the biased one.
    wording = Wording(title=plan.title, q_labels=q_labels, k_labels=k_labels, view="scores", base=0)
    plain = describe(attend(zeros * n_q, zeros * n_k, bound), NO_HIGHLIGHT, wording)
    biased = attend(zeros * n_q, zeros * n_k, bound, biases=(bias,))
    side = "bidirectional, as T5's encoder" if plan.stack == "encoder" else "one-sided (keys before the query), " \
        "as T5's decoder"
    words = describe_bias(biased, plain)
    words = replace(words, title=bucket_title(plan), subtitle=f"B_ij = b[k], k the bucket of j-i: {sizes[0]} buckets, "
                    f"max distance {sizes[1]}, {side}; b named per bucket and head",
                    badge="exact buckets, as T5Attention._relative_position_bucket")
    return ScoresFigure(biased, NO_HIGHLIGHT, words, theme=get_theme(theme), embed_font=embed_font, frame=frame)


def sharing_note(model: ModelLayers, sizes: tuple[int, int], short: bool = False) -> str:
    """What the bucket grids do not show: who owns the bias, who reuses it, and cross-attention's lack of one;
    `short`, for a slide or a column: that alone."""
    stacks = {stack.name: len(stack.layers) for stack in model.stacks}
    reuse = " and ".join(f"the {name}'s layers 1–{count - 1}" if count > 2 else f"the {name}'s layer 1"
                         for name, count in stacks.items() if name != "cross" and count > 1)
    owner = ("Only layer 0 of each stack owns relative_attention_bias" +
             (f"; {reuse} add the position_bias it computed" if reuse else "") +
             ". Cross-attention has no position bias (its mask is not drawn here).")
    if short:
        return f"T5 buckets ({sizes[0]}, max distance {sizes[1]}); bias b[k] per bucket and head. {owner}"
    return (f"Buckets ({sizes[0]} buckets, max distance {sizes[1]}) as transformers' "
            "T5Attention._relative_position_bucket computes them: the bias a cell's logit gets is the head's learned "
            f"b[k], relative_attention_bias.weight[k, h], named here. {owner[:-1]}; attnviz model without --buckets "
            "draws it).")


def bucket_sizes(config: dict[str, object], model: ModelLayers, buckets: object) -> tuple[int, int] | None:
    """T5's (buckets, max distance) when `buckets` asks for the bucket grids (checked), else None."""
    if buckets is None or buckets is False:
        return None
    if buckets is not True:
        raise InputError(f"expected True or False, got {shown(buckets)}", "buckets")
    return config_buckets(config, model)


def bucket_notes(config: dict[str, object], model: ModelLayers, sizes: tuple[int, int] | None,
                  frame: str = "doc") -> list[str]:
    """T5's relative-position buckets, where the config has them: which distances share a bucket; with the bucket
    grids (`sizes`), who owns the bias and who reuses it (that alone on a slide or a column, whose grids keep their
    text at its size and leave little room under them)."""
    if sizes is None:
        note = config_note(config)
        return [] if note is None else [note]
    if frame != "doc":
        return [sharing_note(model, sizes, short=True)]
    note = config_note({**config, "relative_attention_num_buckets": sizes[0],
                        "relative_attention_max_distance": sizes[1]}, drawn=True)
    return [sharing_note(model, sizes)] + ([] if note is None else [note])
