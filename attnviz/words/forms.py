"""The words a figure says of its softmax form (`engine.softmax_forms`): the badge's, the subtitle's, the softmax
heading's, the footer's and the title's, one record per form, so every figure names what it draws.
"""

from __future__ import annotations

from . import notation
from ..numbers.exact import format_number
from ..records import dataclass

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from ..engine.attention import Attention
    from ..engine.softmax_forms import Form

__all__ = ["FormWords", "FORM_WORDS", "form_name", "form_words", "capped_formula", "form_subtitle", "softmax_heading",
           "DEFAULT_SUBTITLE", "ROUNDED_SUBTITLE", "named_bias_words", "with_named_bias"]

DEFAULT_SUBTITLE = "Exact score and mask structure with named softmax."
ROUNDED_SUBTITLE = "Exact score and mask structure with rounded softmax weights."


@dataclass(frozen=True)
class FormWords:
    """What a figure says of its form. `{x}` is what the weights are taken over ("scores", "logits L_ij=…"),
    `{s}` the sink, `{b}` the sigmoid's bias after L_ij (`-ln 6`)."""

    badge: str  # after "exact scores, exact causal mask, " (with "named" or "rounded" before it)
    subtitle: str  # after "Exact score and mask structure with "
    heading: str
    footer: str  # when the weights are named
    title: str  # after the mask's phrase: "Causal attention with a sink logit, 3 tokens"
    noun: str = "softmax"  # what the rounded footer calls the weights


FORM_WORDS = {
    "softmax": FormWords("softmax", "named softmax.", "row softmax over unmasked {x}",
                         "softmax is named: no decimal attention weights are pinned", ""),
    "sink": FormWords("softmax with a sink logit", "named softmax and a sink logit in each denominator.",
                      "row softmax over unmasked {x}, with a sink logit {s} in each denominator: "
                      "e^x_j/({e}+Σ_k e^x_k)",
                      "softmax is named: no decimal attention weights are pinned; the sink's share reads no value",
                      " with a sink logit"),
    "quiet": FormWords("quiet softmax (softmax plus one)", "named quiet softmax (softmax plus one).",
                       "row quiet softmax (softmax plus one) over unmasked {x}: e^x_j/(1+Σ_k e^x_k)",
                       "softmax is named: no decimal attention weights are pinned; the 1's share reads no value",
                       ", quiet softmax"),
    "sigmoid": FormWords("sigmoid attention", "named sigmoid weights, not normalised.",
                         "sigmoid weights w_ij=σ(x{b}){n}, x={l}, for each unmasked {x1}: no row normalisation, a row "
                         "need not sum to 1{m}",
                         "sigmoid weights are named: no decimals are pinned; masked cells weigh 0",
                         ", sigmoid weights", noun="sigmoid"),
}


def form_name(form: Form | None) -> str:
    """The key of `FORM_WORDS` for a form: softmax, sink, quiet or sigmoid."""
    if form is None or form.sink is None and form.sigmoid is None:
        return "softmax"
    if form.sigmoid is not None:
        return "sigmoid"
    return "quiet" if form.sink is not None and form.sink.quiet else "sink"


def form_words(form: Form | None) -> FormWords:
    """The form's words, with a soft cap said in the badge and title ("… of logits capped at 50")."""
    words = FORM_WORDS[form_name(form)]
    if form is None or form.softcap is None:
        return words
    cap = format_number(form.softcap)
    return FormWords(f"{words.badge}, logits capped at {cap}", f"{words.subtitle[:-1]}, logits capped at {cap}.",
                     words.heading, words.footer, f"{words.title}, logits capped at {cap}", words.noun)


def capped_formula(formula: str, form: Form | None) -> str:
    """The logit formula with the soft cap around it: `50·tanh(S_ij/50)`, `30·tanh((S_ij/√2)/30)`."""
    if form is None or form.softcap is None:
        return formula
    cap = format_number(form.softcap)
    inner = formula if formula == "S_ij" else f"({formula})"
    return f"{cap}·tanh({inner}/{cap})"


def form_subtitle(form: Form | None, places: int | None) -> str:
    """The default subtitle (and `<desc>`): the seed's for the plain softmax, else naming the form."""
    if form is None:
        return DEFAULT_SUBTITLE if places is None else ROUNDED_SUBTITLE
    words = form_words(form)
    if places is None:
        return f"Exact score and mask structure with {words.subtitle}"
    return f"Exact score and mask structure with rounded {words.noun} weights."


def softmax_heading(form: Form | None, transformed: bool, formula: str) -> str:
    """What the weights are, over what: `row softmax over unmasked scores`, with the form's words (`formula`: the
    logits' formula, said when `transformed`)."""
    over = f"logits L_ij={formula}" if transformed else "scores"
    sink, symbol, count, per_row = "", "s", "", False
    if form is not None and form.sink is not None:
        value = form.sink.value
        symbol = value if isinstance(value, str) else "s"
        sink = symbol if isinstance(value, str) else f"s={notation.format_exact(value)}"
    if form is not None and form.sigmoid is not None:
        per_row = form.sigmoid.per_row
        count = " = 1/(1+n_i·e^(-x))" if per_row else \
            f" = 1/(1+{form.sigmoid.count}·e^(-x))" if form.sigmoid.count is not None else ""
    return form_words(form).heading.format(
        x=over, s=sink, e=notation.sink_term(symbol), n=count, l="L_ij" if transformed else "S_ij",
        b="" if form is None or form.sigmoid is None else form.sigmoid.text(),
        m="; n_i counts row i's unmasked keys" if per_row else "",
        x1=f"logit, L_ij={formula}" if transformed else "score")


def named_bias_words(attention: Attention) -> str:
    """What a bias given by name is (T5's buckets without values): "T5 relative-position buckets (32 buckets, max
    distance 128), bias named per bucket"; "" when every bias is a number."""
    return "; ".join(b.term_words for b in attention.biases if b.term is not None)


def with_named_bias(subtitle: str, attention: Attention) -> str:
    """A default subtitle (and `<desc>`) that also says a bias given by name: `…named softmax; T5 relative-position
    buckets (32 buckets, max distance 128), bias named per bucket.`"""
    words = named_bias_words(attention)
    return f"{subtitle.removesuffix('.')}; {words}." if words else subtitle
