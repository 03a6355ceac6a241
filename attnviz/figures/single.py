"""One head's figure: the full and scores views from the vectors, and the mask map (from vectors, n or shape).

`figure()` (figures.api) and each panel of a heads figure (figures.heads) come here.
"""

from __future__ import annotations

from ..words.budget import check_inputs, check_values
from ..words.claims import exact_for
from ..words.figure_text import SHOW, VIEWS, Wording, describe
from ..engine.attention import CAUSAL, MAX_ELIDED_TOKENS, MAX_TOKENS, attend, dot, exact_vectors
from ..numbers.arrays import came_as_decimals, narrow_float
from ..numbers.exact import DecimalForm, InputError, format_number
from ..records import replace
from ..words.highlight import parse_targets
from ..words.user_text import check_labels, check_text
from .figure import MaskMapFigure, ScoresFigure
from ..engine.mask_cells import MaskCells

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from fractions import Fraction
    from typing import TypeAlias

    from ..engine.attention import Attention, Bias, BoundMask, Scale
    from ..engine.softmax_forms import Form
    from ..words.figure_text import FigureText
    from ..words.highlight import Highlight
    from ..layout.mask_map import MapText

    from ..typing import Exact, FigureOptions, Labels, MaskSpec, Shape, Vectors, View

    Rows: TypeAlias = "tuple[tuple[Fraction, ...], ...]"  # exact vectors

__all__ = ["one_head_figure", "named_mask", "numbered_from", "bound_mask", "SEED_Q", "SEED_K", "SEED_HIGHLIGHT"]

# The seed document's figure: "What Attention Is and Is Not".
SEED_Q = ((1, 0), (0, 1), (1, 1))
SEED_K = ((1, 0), (0, 1), (1, 1))
SEED_HIGHLIGHT = ((3, 3),)


def one_head_figure(q: Vectors | None, k: Vectors | None, v: Vectors | None, view: View,
                    options: FigureOptions) -> ScoresFigure | MaskMapFigure:
    """The figure of one head (`figure()` without q_heads) from its options record (`figures.options`):
    checked, then the full or scores view, or the mask map."""
    from ..words.notation import SOFTMAX_FORMS  # start-up: the default render reads it only here

    mask = named_mask(options["mask"], options["mask_name"], options["mask_rule"])
    _one_of(options["softmax"], SOFTMAX_FORMS, "softmax")
    if options["show"] == "bias":  # type: ignore[comparison-overlap]  # specs and --show make two panels
        raise InputError("the bias matrix is a panel of its own: attnviz.compose(fig, fig.bias_panel())", "show")
    _one_of(options["show"], SHOW, "show")
    _one_of(view, VIEWS, "view")
    if view == "heads":  # figure() draws it from q_heads and k_heads
        raise InputError("the heads view draws query heads and the KV heads they read: give q_heads and k_heads "
                         "(--q-heads, --k-heads)", "view")
    check_base(options["index_base"])
    if view == "mask":
        return _mask_figure(q, k, v, mask, options)
    if options["color_by"] != "none":
        raise InputError(f"only the mask view colours a union's parts (view='mask'); the {view} view draws scores",
                         "color_by")
    for name, value in (("n", options["n"]), ("shape", options["shape"]), ("x_title", options["x_title"]),
                        ("y_title", options["y_title"])):
        if value is not None:
            raise InputError(f"only the mask view takes {name} (view='mask'); the {view} view draws the vectors' "
                             "scores", name)
    return _scores_figure(q, k, v, view, mask, options)


def _one_of(value: object, choices: Sequence[str], where: str) -> None:
    if value not in choices:
        raise InputError(f"expected {', '.join(choices[:-1])} or {choices[-1]}; got {value!r}", where)


def check_base(base: object) -> None:
    """Refuses an index base other than 0 or 1."""
    if isinstance(base, bool) or base not in (0, 1):
        raise InputError(f"expected 0 or 1, got {base!r:.40}", "index_base")


def _scores_figure(q: Vectors | None, k: Vectors | None, v: Vectors | None, view: View, mask: MaskSpec,
                   options: FigureOptions) -> ScoresFigure:
    """The full or scores view of the vectors (the seed's when none are given)."""
    # The seed figure keeps the seed's title (`io.spec.with_the_seed` passes these very tuples); others say what
    # they show.
    seed = (q is None and k is None) or (q is SEED_Q and k is SEED_K)
    if seed:
        q, k = SEED_Q, SEED_K
    elif q is None or k is None:
        raise InputError(f"missing: {'q' if q is None else 'k'} (give both q and k vectors)", "q" if q is None else "k")
    places = None
    if options["weights"] != "named":
        from ..numbers.rounding import parse_weights  # start-up: only rounded weights need it

        places = parse_weights(options["weights"])
    q_given, k_given, v_given = q, k, v
    # what exact is exact for: inputs rounded to decimals, or read at a narrow float dtype's precision
    rounded = options["decimals"] if options["decimals"] is not None else narrow_float((q, k, v))
    (q, k, v), notes = _exact_vectors(q, k, v, options["elide"], options["decimals"])
    n_q, n_k = len(q), len(k)
    shown = _shown(options, n_q, n_k) if options["elide"] else None
    # The default figure needs no parsing, so `attnviz render` skips importing the option modules.
    q_first = numbered_from(options["q_tokens"]) if options["tokens"] is None else None  # the rule's i: its label
    bound = bound_mask(mask, n_q, n_k, options, q_first)
    scale, biases = _logit_terms(q, k, options, bound)
    form = _form(options, places)
    if any(b.term is not None for b in biases):
        _check_named_bias(form, places)
    check_inputs(q, k, v)  # from the digits alone, before a score is summed
    if options["sparse"] is not None:  # MoBA's or NSA's selection: the mask computed from Q and K
        bound = _sparse_scores_mask(q, k, mask, options, None if scale is None else scale.factor)
    attention = attend(q, k, bound, scale=scale, biases=biases, v=v, rows=None if shown is None else set(shown[0]),
                       form=form)
    check_values(attention)
    marks = parse_targets(options["highlight"], attention, options["index_base"])
    q_labels, k_labels = _axis_labels(options["tokens"], options["q_tokens"], options["k_tokens"], n_q, n_k)
    title = _title(options, None if seed else (mask, bound.name, n_q, n_k), rounded, form, bound.computed,
                   any(b.term is not None for b in biases))
    subtitle = None if options["subtitle"] is None else check_text(options["subtitle"], "subtitle")
    wording = Wording(title=title, subtitle=subtitle, q_labels=q_labels, k_labels=k_labels, places=places, view=view,
                      softmax=options["softmax"], show=options["show"], base=options["index_base"],
                      rounded=rounded, decimal_inputs=options["decimals"] is not None or (
                          not seed and came_as_decimals((q_given, k_given, v_given))))

    def words_for(shown: tuple[Sequence[int], Sequence[int]] | None) -> FigureText:
        words = describe(attention, marks, replace(wording, shown=shown))
        if notes:  # a tensor read on the CPU, inputs rounded: before the figure's own note
            words = replace(words, note="; ".join([*notes, words.note]))
        return words

    def elided(first: int, last: int) -> FigureText:
        """The same figure's words, elided to the `first` and `last` rows and keys (and those the highlight
        names): a frame's choice when the whole grid does not fit."""
        return words_for(_shown(options, n_q, n_k, first, last))

    figure = _made(attention, marks, words_for(shown), options, elided)
    figure.rounded, figure.decimal_inputs = rounded, wording.decimal_inputs
    if options["decimals"] is not None:
        figure.rounding = _rounding_error({"q": q_given, "k": k_given, "v": v_given}, options["decimals"])
    return figure


def _made(attention: Attention, marks: Highlight, words: FigureText, options: FigureOptions,
          elided: Callable[[int, int], FigureText]) -> ScoresFigure:
    """The figure of these words: a plain score grid, or with FlexAttention's blocks outlined over it (`blocks`, their
    counts in the badge)."""
    if options["blocks"] is None:
        return ScoresFigure(attention, marks, words, id_prefix=options["id_prefix"], theme=options["theme"],
                            embed_font=options["embed_font"], frame=options["frame"], elided=elided)
    from ..engine.blocks import block_classes, parse_blocks  # start-up: only --blocks classes blocks
    from ..layout.block_overlay import BlocksOverlay
    from .blocked import BlockedScoresFigure

    if options["elide"]:
        raise InputError("blocks are outlined on the whole grid: leave out elide, or draw the mask map "
                         "(view='mask', to 1,024 tokens)", "blocks")
    n_q, n_k = attention.shape
    blocks = block_classes(lambda i: attention.mask.runs(i, n_k), (n_q, n_k), parse_blocks(options["blocks"]))
    words = replace(words, badge=f"{words.badge}; {blocks.summary()}")
    return BlockedScoresFigure(attention, marks, words, id_prefix=options["id_prefix"], theme=options["theme"],
                               embed_font=options["embed_font"], frame=options["frame"],
                               overlays=(BlocksOverlay(blocks),))


def _keeps_no_future(bound: BoundMask, n_q: int, n_k: int, align: str) -> bool:
    """True when the mask keeps no key after its query's position (as T5's decoder), for T5's buckets."""
    offset = n_k - n_q if align == "bottom-right" else 0
    return all(stop <= i + offset + 1 for i in range(n_q) for _, stop in bound.runs(i, n_k))


def _form(options: FigureOptions, places: int | None) -> Form | None:
    """The options' softmax form (a sink, sigmoid attention, a soft cap), or None for the plain softmax."""
    if options["differential"] is not None:
        raise InputError("differential attention subtracts two heads' softmax maps: give two query heads "
                         "(q_heads and k_heads; --q-heads, --k-heads)", "differential")
    if options["sink"] is None and options["sigmoid"] is None and options["softcap"] is None:
        return None
    from ..engine.softmax_forms import resolve_form  # start-up: only a form needs it

    form = resolve_form(options["sink"], options["sigmoid"], options["softcap"])
    if places is not None and form.sink is not None and form.sink.named:
        raise InputError(f"decimal weights need the sink's value, but it is the name {form.sink.value!r}; give a "
                         "number (--sink -1/2) or keep the weights named", "weights")
    return form


def _check_named_bias(form: Form | None, places: int | None) -> None:
    """Refuses what a bias given by name (T5's buckets without values) cannot be: a number to round, to cap or to
    take a sigmoid of exactly."""
    fix = "give the bias's values (t5=N,D,values=B0,...)"
    if places is not None:
        raise InputError(f"decimal weights need the bias's values, but T5's b[k] are named; {fix} or keep the weights "
                         "named", "weights")
    if form is not None and form.softcap is not None:
        raise InputError(f"a soft cap c·tanh(L/c) of a named logit is not drawn; {fix}, or drop the cap", "softcap")
    if form is not None and form.sigmoid is not None:
        raise InputError(f"sigmoid weights of a named logit are not drawn; {fix}, or use the softmax (a sink works)",
                         "sigmoid")


def _rounding_error(inputs: dict[str, Vectors | None], decimals: int) -> str:
    """What --verbose says of rounded inputs: the largest rounding error, and where it is."""
    from ..numbers.arrays import largest_rounding_error  # start-up: only rounded inputs need it

    error, where = largest_rounding_error({name: value for name, value in inputs.items() if value is not None},
                                          decimals)
    with DecimalForm(True):
        return (f"inputs rounded to {decimals} decimal{'s' * (decimals != 1)}: the largest rounding error is "
                f"{format_number(error)}" + (f" ({where})" if where else ""))


def _title(options: FigureOptions, content: tuple[MaskSpec, str, int, int] | None,  # noqa: PLR0913  a title's facts
           rounded: int | str | None = None, form: Form | None = None, computed: str | None = None,
           named_bias: bool = False) -> str | None:
    """The title given (checked), or one from the `content` (mask, its name, n_q, n_k; a computed mask's words, the
    softmax form, a bias given by name) that says what is exact when the inputs were rounded; None for the seed
    figure (it keeps the seed's)."""
    if options["title"] is not None:
        return check_text(options["title"], "title")
    if content is None:
        return None
    from ..words.titles import content_title  # start-up: the seed figure keeps the seed's title

    title = computed if computed is not None else content_title(*content, form, named_bias=named_bias)
    return title + (f" ({exact_for(rounded)})" if rounded is not None else "")


def _exact_vectors(q: Vectors, k: Vectors, v: Vectors | None, elide: object,
                   decimals: int | None) -> tuple[tuple[Rows, Rows, Rows | None], list[str]]:
    """(q, k, v) exact (v None when not given), each rounded to `decimals` if given, and the notes the figure
    says of them (a tensor read on the CPU, inputs rounded)."""
    if not isinstance(elide, bool):
        raise InputError(f"expected True or False, got {elide!r:.40}", "elide")
    limit = MAX_ELIDED_TOKENS if elide else MAX_TOKENS
    notes = []
    if decimals is not None:
        from ..numbers.arrays import check_decimals, rounded_note  # start-up: only rounded inputs need them

        decimals = check_decimals(decimals)
        assert decimals is not None
        notes.append(rounded_note(decimals))
    exact, moved = [], []
    for name, value in zip("qkv", (q, k, v)):
        if value is not None and type(value).__module__.startswith("torch"):
            from ..numbers.arrays import array_rows  # start-up: only a tensor needs it

            value, note = array_rows(value, name)  # type: ignore[assignment]  # read on the CPU: rows
            moved += [note] if note else []
        exact.append(None if value is None else exact_vectors(value, name, limit, decimals))
    q_rows, k_rows, v_rows = exact
    assert q_rows is not None and k_rows is not None  # given, or the seed's
    return (q_rows, k_rows, v_rows), [*moved, *notes]


def _shown(options: FigureOptions, n_q: int, n_k: int, *ends: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The rows and keys an elided figure draws: the first and last few (`ends`: how many), and those its
    highlight names."""
    from ..words.figure_text import shown_positions  # start-up: only an elided figure needs them
    from ..words.highlight import named_positions

    named_rows, named_columns = named_positions(options["highlight"], options["index_base"])
    return shown_positions(n_q, named_rows, *ends), shown_positions(n_k, named_columns, *ends)


def bound_mask(mask: MaskSpec, n_q: int, n_k: int, options: FigureOptions, q_first: int | None) -> BoundMask:
    """`mask` bound to an n_q×n_k grid (its `align` and `index_base` from `options`); the default causal mask
    without the mask parser."""
    align, base = options["align"], options["index_base"]
    if (mask is CAUSAL or (isinstance(mask, str) and mask == "causal")) and n_q == n_k and align == "top-left" \
            and q_first in (None, base):
        return CAUSAL
    from ..engine.masks import resolve  # start-up: the default causal mask needs no mask parser

    return resolve(mask, n_q, n_k, align, base, q_first)


def numbered_from(labels: Sequence[str] | None) -> int | None:
    """The first of query labels that number the queries' positions one by one ("9", "10", "11"), so that a
    rule can count them (`engine.masks.resolve`'s `q_first`); None for other labels.

    >>> numbered_from(["9", "10", "11"]), numbered_from(["the", "cat"]), numbered_from(["1", "3"])
    (9, None, None)
    """
    if not labels or not all(isinstance(label, str) and label.isdigit() and len(label) <= 7 for label in labels):
        return None
    first = int(labels[0])
    return first if [int(label) for label in labels] == list(range(first, first + len(labels))) else None


def _axis_labels(tokens: Labels | None, q_tokens: Labels | None, k_tokens: Labels | None, n_q: int,
                 n_k: int) -> tuple[tuple[str, ...] | None, tuple[str, ...] | None]:
    """Checked labels for the query and key axes (None: numbered)."""
    (q_where, q_noun), (k_where, k_noun) = ("q_tokens", "query"), ("k_tokens", "key")
    if tokens is not None:
        if n_q != n_k:
            queries, keys = f"{n_q} quer{'y' if n_q == 1 else 'ies'}", f"{n_k} key{'s' * (n_k != 1)}"
            raise InputError(f"one list labels both axes, but there are {queries} and {keys}; label each axis "
                             "with q_tokens and k_tokens (on the command line, --q-tokens and --k-tokens)", "tokens")
        q_tokens = k_tokens = tokens
        q_where = k_where = "tokens"
        q_noun = k_noun = "token"
    return (None if q_tokens is None else check_labels(q_tokens, n_q, q_where, q_noun),
            None if k_tokens is None else check_labels(k_tokens, n_k, k_where, k_noun))


def named_mask(mask: MaskSpec, name: str | None, rule: str | None) -> MaskSpec:
    """`mask` with the caption's name and rule given by the user (`mask_name`, `mask_rule`), or as it is."""
    if name is None and rule is None:
        return mask
    from ..engine.masks import Mask  # start-up: only a named mask needs the mask grammar

    return Mask(mask, name=name, rule=rule)


def _mask_figure(q: Vectors | None, k: Vectors | None, v: Vectors | None, mask: MaskSpec,
                 options: FigureOptions) -> MaskMapFigure:
    """The mask view: a map of the kept cells, from a grid shape alone or from vectors' counts."""
    from ..layout.mask_map import describe_map  # start-up: only the mask view describes a map

    for name, value in (("scale", options["scale"]), ("bias", options["bias"]), ("v", v), ("sink", options["sink"]),
                        ("sigmoid", options["sigmoid"]), ("softcap", options["softcap"]),
                        ("differential", options["differential"])):
        if value is not None:
            raise InputError("the mask view draws which cells are kept, not scores or logits (nor weights); "
                             "use the full or scores view for them", name)
    for name, changed in (("softmax", options["softmax"] != "expanded"), ("weights", options["weights"] != "named"),
                          ("show", options["show"] != "scores")):
        if changed:
            raise InputError("the mask view draws no softmax; use the full view for it", name)
    tokens, q_tokens, k_tokens = options["tokens"], options["q_tokens"], options["k_tokens"]
    labels = {"q": q_tokens if tokens is None else tokens, "k": k_tokens if tokens is None else tokens}
    n_q, n_k = _map_shape(q, k, options["n"], options["shape"], labels)
    q_labels, k_labels = _axis_labels(tokens, q_tokens, k_tokens, n_q, n_k)
    bound = bound_mask(mask, n_q, n_k, options, numbered_from(q_labels) if tokens is None else None)
    if options["sparse"] is not None:  # MoBA's or NSA's selection: the mask computed from Q and K
        bound = _sparse_map_mask(q, k, mask, options)
    texts = {name: None if value is None else check_text(value, name)
             for name, value in (("title", options["title"]), ("subtitle", options["subtitle"]),
                                 ("x_title", options["x_title"]), ("y_title", options["y_title"]))}
    if texts["title"] is None and bound.computed is not None:
        texts["title"] = bound.computed
    words = describe_map(bound, n_q, n_k, highlight=options["highlight"], q_labels=q_labels, k_labels=k_labels,
                         base=options["index_base"], color_by=options["color_by"], **texts)
    if options["blocks"] is not None:
        words = _with_blocks(words, options["blocks"], subtitled=texts["subtitle"] is None)
    lone = mask[0] if isinstance(mask, (list, tuple)) and len(mask) == 1 else mask  # --mask is repeatable
    if isinstance(lone, str) and not any(op in lone for op in "&|~!()") and lone.strip().lower().startswith("tree"):
        words = _with_tree(words, lone)
    return MaskMapFigure(MaskCells(bound, n_q, n_k), None, words, id_prefix=options["id_prefix"],
                         theme=options["theme"], embed_font=options["embed_font"], frame=options["frame"])


def _logit_terms(q: Sequence[Sequence[Fraction]], k: Sequence[Sequence[Fraction]], options: FigureOptions,
                 bound: BoundMask) -> tuple[Scale | None, Sequence[Bias]]:
    """The logits' scale and biases, when the options give them (a T5 bias is bidirectional unless `bound` keeps no
    future key)."""
    if options["scale"] is None and options["bias"] is None:
        return None, ()
    from ..engine.logits import resolve_biases, resolve_scale  # start-up: only a scale or a bias needs them

    scale = resolve_scale(options["scale"], len(q[0]))
    return scale, resolve_biases(options["bias"], len(q), len(k), options["align"], scale=scale,
                                 scores=lambda i, j: dot(q[i], k[j]),
                                 causal=_keeps_no_future(bound, len(q), len(k), options["align"]))


def _sparse_scores_mask(q: Sequence[Sequence[Fraction]], k: Sequence[Sequence[Fraction]], mask: MaskSpec,
                        options: FigureOptions, scale: Exact | None) -> BoundMask:
    """A sparse selection's mask for the full and scores views, from their exact vectors."""
    from .sparse_mask import check_mask_free, sparse_mask  # start-up: only a sparse figure computes its mask

    check_mask_free(mask)
    return sparse_mask(options["sparse"], q, k, scale)


def _sparse_map_mask(q: Vectors | None, k: Vectors | None, mask: MaskSpec, options: FigureOptions) -> BoundMask:
    """A sparse selection's map: computed from the vectors, which it needs."""
    from .sparse_mask import check_mask_free, sparse_mask  # start-up: only a sparse figure computes its mask

    if q is None or k is None or options["n"] is not None or options["shape"] is not None:
        raise InputError("computes the mask from Q and K: give q and k (not n or shape)", "sparse")
    check_mask_free(mask)
    (q, k, _), _notes = _exact_vectors(q, k, None, False, options["decimals"])
    return sparse_mask(options["sparse"], q, k)


def _with_blocks(words: MapText, size: object, subtitled: bool = True) -> MapText:
    """`words` with FlexAttention's blocks of `size` (B or (BQ, BK)) classed as `create_block_mask` classes them, to
    outline over the map; the map's own subtitle (`subtitled`) then says what was computed."""
    from ..engine.blocks import block_classes, parse_blocks  # start-up: only --blocks classes blocks

    runs = [tuple((a - 1, b) for a, b in row) for row in words.runs]
    blocks = block_classes(runs.__getitem__, words.shape, parse_blocks(size))
    return replace(words, blocks=blocks, subtitle=f"{words.subtitle}; {blocks.summary()}" if subtitled
                   else words.subtitle)


def _with_tree(words: MapText, mask: str) -> MapText:
    """A lone token tree's map with the tree itself, drawn beside the map where it fits."""
    from ..engine.mask_grammar import parse_mask  # start-up: only a tree's map draws its tree
    from ..layout.tree_drawing import TreeText

    option = parse_mask(mask)
    prompt = dict(option.options).get("prompt", 0)
    labels = words.k_labels[prompt:]
    return replace(words, tree=TreeText(f"prompt ({prompt})" if prompt else "prompt", prompt, option.value, labels))


def _map_shape(q: Vectors | None, k: Vectors | None, n: int | None, shape: Shape | None,
               labels: dict[str, Sequence[str] | None]) -> tuple[int, int]:
    """(queries, keys) of a mask map: from `n`, from `shape`, from the vectors, or from the token labels
    (default: the seed's vectors)."""
    from ..layout.mask_map import MAX_MAP_TOKENS  # start-up: only the mask view sizes a map

    given = [name for name, value in (("n", n), ("shape", shape)) if value is not None]
    if len(given) == 2:
        raise InputError("give n (a square map) or shape (queries × keys), not both", "shape")
    if given and (q is not None or k is not None):
        raise InputError(f"give {given[0]} or vectors (q, k), not both: the map's size comes from one of them",
                         given[0])
    if n is not None:
        sides = (_side(n, "n"),) * 2
    elif shape is not None:
        sides = _parse_shape(shape)
    elif q is None and k is None and labels["q"] is not None and labels["k"] is not None:
        sides = len(labels["q"]), len(labels["k"])  # checked against the limit below, the labels after
    else:
        if q is None and k is None:
            q, k = SEED_Q, SEED_K
        elif q is None or k is None:
            raise InputError(f"missing: {'q' if q is None else 'k'} (give both q and k vectors, or n or shape)",
                             "q" if q is None else "k")
        return len(exact_vectors(q, "q")), len(exact_vectors(k, "k"))
    for side in sides:
        if side > MAX_MAP_TOKENS:
            raise InputError(f"{side} tokens; a mask map shows at most {MAX_MAP_TOKENS:,} a side",
                             given[0] if given else "tokens")
    return sides


def _side(value: object, where: str) -> int:
    import numbers  # start-up: only a mask map sized by n or shape checks one

    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
            value = int(value.strip()) if len(value.strip()) <= 7 else 10**7
        else:
            raise InputError(f"expected a whole number of tokens, got {value!r:.40}", where)
    if value < 1:
        raise InputError(f"expected at least 1 token, got {value}", where)
    return int(value)


def _parse_shape(shape: object) -> tuple[int, int]:
    """`"4x12"`, `(4, 12)`: queries × keys."""
    if isinstance(shape, str):
        parts = shape.lower().replace("×", "x").split("x")
        if len(parts) != 2:
            raise InputError(f"expected QUERIESxKEYS like 4x12, got {shape!r:.40}", "shape")
        return _side(parts[0], "shape"), _side(parts[1], "shape")
    if isinstance(shape, (list, tuple)) and len(shape) == 2:
        return _side(shape[0], "shape"), _side(shape[1], "shape")
    raise InputError(f"expected QUERIESxKEYS like \"4x12\" or a pair (4, 12), got {shape!r:.40}", "shape")
