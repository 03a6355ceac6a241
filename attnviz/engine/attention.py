"""The exact engine: scores S_ij = Qi·Kj, the mask, and the named softmax.

Pure arithmetic on ints and Fractions. It knows nothing of text layout or SVG;
`notation` turns its results into the words a figure writes.
"""

from __future__ import annotations

import math
import operator
from fractions import Fraction

from .bound_mask import CAUSAL, BoundMask
from ..numbers.arrays import array_rows, read_entry
from ..numbers.exact import InputError, format_number
from ..records import dataclass

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable, Sequence
    from typing import Literal

    from .softmax_forms import Form, Logit, Sigmoid
    from ..typing import Exact, Vectors

__all__ = ["BoundMask", "CAUSAL", "Scale", "Bias", "Attention", "Weights", "attend", "dot", "exact_vectors",
           "check_matrix_shape", "softmax_weights", "form_weights"]

#: Largest grid side and vector dimension accepted; bigger inputs are refused at once.
MAX_TOKENS = 64
#: Largest grid side of a figure drawn with elision (first and last rows and columns shown).
MAX_ELIDED_TOKENS = 1024
MAX_DIM = 64


@dataclass(frozen=True)
class Scale:
    """The softmax's logits are factor·S. `factor` is a Fraction, or a `surds.Surd` for 1/√d."""

    text: str  # S in terms of the figure's notation: "S_ij/√2", "1/2·S_ij"
    factor: Exact


@dataclass(frozen=True)
class Bias:
    """A term added to every logit: `value(i, j)` (0-based) is an exact Fraction."""

    text: str  # as written after S in the logit formula: "+1/2·(j-i)", "+B_ij"
    value: Callable[[int, int], Exact]  # (i, j) -> the term
    rows: tuple[tuple[Fraction, ...], ...] = ()  # an explicit bias matrix, shown beside the vectors
    # The term at one cell (1-based), for sentences that work a logit out: named, e.g. "+B_{2,1}",
    # then with its numbers, e.g. "+1/2". Both default to the text and the signed value.
    named: Callable[[int, int], str] | None = None
    filled: Callable[[int, int], str] | None = None
    # A FlexAttention score_mod's name: its value is the change it makes to the logit it is given,
    # and formulas write it as a call around that logit, `rel(S_ij/√2,i-1,j-1)`.
    wraps: str | None = None
    slope: Exact | None = None  # ALiBi's slope, when this is ALiBi
    # T5's relative-position buckets, when this is T5's bias: (i, j) -> the bucket (0-based), and what they are
    buckets: Callable[[int, int], int] | None = None
    bucket_words: str = ""
    # A bias the figure is given by name, not value (T5's buckets without values): (i, j) -> its name at the cell,
    # `b[3]` (0-based); `value` is then 0 and every logit a `softmax_forms.Named`
    term: Callable[[int, int], str] | None = None
    term_words: str = ""  # what the named bias is, for the subtitle, badge and a11y text

    def at(self, i: int, j: int) -> tuple[str, str]:
        """(named, filled) for cell (i, j), 1-based: `("+1/2·(j-i)", "+1/2·(1-2)")`."""
        named = self.named(i, j) if self.named else self.text
        if self.filled:
            return named, self.filled(i, j)
        value = self.value(i - 1, j - 1)
        assert isinstance(value, Fraction)  # a bias of surds writes its own terms (`filled`)
        return named, ("-" if value < 0 else "+") + format_number(abs(value))

    def __repr__(self) -> str:
        return f"Bias({self.text!r})"


@dataclass(frozen=True)
class Weights:
    """One row's softmax, as far as exact arithmetic pins it.

    kind "pinned": `values` are the exact weights (every kept score equal). kind "named": `exponents` are the kept
    scores; weight t is e^x_t / sum_u e^x_u. kind "undefined": no kept score, so there is nothing to normalise.

    Other forms (`engine.softmax_forms`): with a `sink` s (a number or a name), weight t is e^x_t / (e^s + sum_u e^x_u)
    and the sink's share e^s/(...) reads no value; with `form` "sigmoid", weight t is σ(x_t) on its own, or
    1/(1 + n·e^(-x_t)) with `sigmoid_count` n (b = -ln n), and `values` hold them when every one is exact.
    """

    kind: Literal["pinned", "named", "undefined"]
    exponents: tuple[Logit, ...] = ()
    values: tuple[Fraction, ...] = ()
    sink: Exact | str | None = None
    form: Literal["softmax", "sigmoid"] = "softmax"
    sigmoid_count: int = 0  # n of a sigmoid's bias -ln n (0: the bias is in the exponents)


@dataclass(frozen=True)
class Attention:
    """Everything exact about one attention pattern. Indices here are 0-based.

    A row is None in `scores`, `kept` and `logits` when an elided figure does not show it (and so
    does not compute it); every row is there otherwise.
    """

    q: tuple[tuple[Fraction, ...], ...]
    k: tuple[tuple[Fraction, ...], ...]
    mask: BoundMask
    scores: tuple[tuple[Fraction, ...] | None, ...]  # scores[i][j] = Qi·Kj, for every cell, masked or not
    kept: tuple[tuple[bool, ...] | None, ...]  # kept[i][j] is True when the mask keeps the cell
    scale: Scale | None = None  # None: the logits are the scores
    biases: tuple[Bias, ...] = ()
    logits: tuple[tuple[Logit, ...] | None, ...] | None = None  # scale·S_ij + biases (capped), the softmax's exponents
    values: tuple[tuple[Fraction, ...], ...] | None = None  # value vectors V_j, when given
    form: Form | None = None  # a sink, sigmoid attention or soft-capping (`engine.softmax_forms`); None: plain softmax

    @property
    def shape(self) -> tuple[int, int]:
        """(queries, keys)."""
        return len(self.q), len(self.k)

    def kept_scores(self, i: int) -> tuple[Fraction, ...]:
        """Row i's unmasked scores, in column order."""
        scores, kept = self.scores[i], self.kept[i]
        assert scores is not None and kept is not None  # an elided figure asks only for the rows it shows
        return tuple(s for s, keep in zip(scores, kept) if keep)

    def kept_logits(self, i: int) -> tuple[Logit, ...]:
        """Row i's unmasked logits (the softmax's exponents), in column order."""
        logits, kept = (self.scores if self.logits is None else self.logits)[i], self.kept[i]
        assert logits is not None and kept is not None  # an elided figure asks only for the rows it shows
        return tuple(x for x, keep in zip(logits, kept) if keep)

    @property
    def transformed(self) -> bool:
        """True when the softmax's exponents differ from the raw scores (a scale, a bias or a soft cap)."""
        return self.scale is not None or bool(self.biases) or self.softcap is not None

    @property
    def named_bias(self) -> bool:
        """True when a bias is given by name, not value (T5's buckets without values): the logits are `Named`."""
        return any(b.term is not None for b in self.biases)

    @property
    def softcap(self) -> Fraction | None:
        """The soft cap c of the logits c·tanh(L/c), when there is one."""
        return None if self.form is None else self.form.softcap

    def weights(self, i: int) -> Weights:
        """Row i's weights, pinned or named: its softmax, or as its form (`engine.softmax_forms`) makes them."""
        if self.form is None or self.form.plain:
            return softmax_weights(self.kept_logits(i))
        return form_weights(self.form, self.kept_logits(i))

    def output(self, i: int) -> tuple[Fraction, ...] | None:
        """Row i's output Σ w_ij·V_j exactly, when its weights are pinned; else None (a sink's share reads no
        value, so a row whose every key is masked has the output 0 beside a sink)."""
        weights, row = self.weights(i), self.kept[i]
        if self.values is None or weights.kind != "pinned" or row is None:
            return None
        kept = [v for v, keep in zip(self.values, row) if keep]
        return tuple(sum((w * v[c] for w, v in zip(weights.values, kept)), Fraction(0))
                     for c in range(len(self.values[0])))

    @property
    def all_integer(self) -> bool:
        """True when every query and key entry is an integer."""
        return all(x.denominator == 1 for vec in (*self.q, *self.k) for x in vec)


def check_matrix_shape(rows: Sequence[Sequence[object]], n_q: int, n_k: int, where: str | None = None) -> None:
    """A per-cell matrix (mask or bias) must have one row per query and one entry per key."""
    if len(rows) != n_q:
        raise InputError(f"{len(rows)} rows for a {n_q}×{n_k} grid; give {n_q} rows of {n_k}", where)
    for n, row in enumerate(rows, 1):
        if len(row) != n_k:
            raise InputError(f"row {n} has {len(row)} entries for a {n_q}×{n_k} grid; give {n_q} rows of {n_k}", where)


def exact_vectors(rows: Vectors, name: str, limit: int = MAX_TOKENS,
                  decimals: int | None = None) -> tuple[tuple[Fraction, ...], ...]:
    """Validate a list of equal-length vectors (or a 2-D numpy array or torch tensor) and make every entry
    exact (`numbers.arrays.read_entry`: floats as the decimals they print as, rounded to `decimals` if
    given); at most `limit` of them."""
    rows = array_rows(rows, name)[0]  # type: ignore[assignment]
    if isinstance(rows, (str, bytes)):
        raise InputError("expected a list of vectors, got a string", name)
    try:
        rows = [list(row) for row in rows]
    except TypeError:
        raise InputError("expected a list of vectors (a list of lists of numbers)", name) from None
    if not rows:
        raise InputError("no vectors given", name)
    if len(rows) > limit:
        hint = "" if limit != MAX_TOKENS else \
            f" (up to {MAX_ELIDED_TOKENS:,} with elision, --elide, or in the mask view, --view mask)"
        raise InputError(f"{len(rows)} vectors; the limit is {limit:,}{hint}", name)
    dim = len(rows[0])
    for index, row in enumerate(rows, 1):
        if not row or len(row) != dim:
            raise InputError(f"vector {index} has {len(row)} entries but vector 1 has {dim}; all vectors need the "
                             "same length" if row else f"vector {index} is empty", name)
    if dim > MAX_DIM:
        raise InputError(f"vectors have {dim} entries; the limit is {MAX_DIM}", name)
    out = []
    for index, row in enumerate(rows, 1):
        try:
            out.append(tuple(read_entry(x, decimals) for x in row))
        except InputError as err:
            raise InputError(f"vector {index}: {err}", name) from None
    return tuple(out)


def dot(a: Iterable[Fraction], b: Iterable[Fraction]) -> Fraction:
    """Σ a_t·b_t, exactly."""
    return sum((x * y for x, y in zip(a, b)), Fraction(0))


def _over_common_denominator(vector: Sequence[Fraction]) -> tuple[list[int], int]:
    """(integer numerators, denominator) with vector == numerators / denominator, exactly."""
    denominator = math.lcm(*(x.denominator for x in vector))
    return [x.numerator * (denominator // x.denominator) for x in vector], denominator


def score_matrix(q: Sequence[Sequence[Fraction]], k: Sequence[Sequence[Fraction]],
                 rows: Collection[int] | None = None) -> tuple[tuple[Fraction, ...] | None, ...]:
    """Every Qi·Kj, exactly: integer dot products over common denominators, one Fraction per score (the same values as
    `dot`, without n²·d Fraction operations). `rows`: only these (0-based); the others are None."""
    q_ints, k_ints = map(_over_common_denominator, q), list(map(_over_common_denominator, k))
    return tuple(tuple(Fraction(sum(map(operator.mul, qi, kj)), qd * kd) for kj, kd in k_ints)
                 if rows is None or i in rows else None for i, (qi, qd) in enumerate(q_ints))


def attend(q: Vectors, k: Vectors, mask: BoundMask = CAUSAL, *, scale: Scale | None = None,  # noqa: PLR0913  the engine's one entry, keyword options
           biases: Sequence[Bias] = (), v: Vectors | None = None, rows: Collection[int] | None = None,
           form: Form | None = None) -> Attention:
    """Compute the exact scores, mask and logits for query vectors q and key vectors k.

    The logits (the softmax's exponents) are scale.factor·S_ij plus every bias, soft-capped when `form` says;
    `v`, the value vectors (one per key), make the outputs Σ w_ij·V_j computable where the weights are pinned.
    `rows`: compute only these query rows (0-based), whole, for an elided figure; the others are None.
    `form`: a sink, sigmoid attention or a soft cap (`engine.softmax_forms`); None is the plain softmax.
    """
    limit = MAX_TOKENS if rows is None else MAX_ELIDED_TOKENS
    q, k = exact_vectors(q, "q", limit), exact_vectors(k, "k", limit)
    if len(q[0]) != len(k[0]):
        raise InputError(f"q vectors have {len(q[0])} entries but k vectors have {len(k[0])}; "
                         "Qi·Kj needs the same dimension", "q/k")
    if v is not None:
        v = exact_vectors(v, "v", limit)
        if len(v) != len(k):
            raise InputError(f"{len(v)} value vectors for {len(k)} keys; give one per key", "v")
    scores = score_matrix(q, k, rows)
    kept = tuple(tuple(bool(mask.keep(i, j)) for j in range(len(k))) if rows is None or i in rows else None
                 for i in range(len(q)))
    logits: tuple[tuple[Logit, ...] | None, ...] | None
    exact_logits: tuple[tuple[Exact, ...] | None, ...] | None = None
    if scale is not None or biases:
        factor = 1 if scale is None else scale.factor
        exact_logits = tuple(tuple(row[j] * factor + sum((b.value(i, j) for b in biases), Fraction(0))
                             for j in range(len(k))) if row is not None else None for i, row in enumerate(scores))
    if any(b.term is not None for b in biases):
        assert exact_logits is not None and (form is None or form.softcap is None)  # a named bias is refused a cap
        logits = _named_logits(exact_logits, biases)
    elif form is not None and form.softcap is not None:
        from .softmax_forms import capped  # start-up: only a soft cap needs it

        cap = form.softcap
        logits = tuple(None if row is None else tuple(capped(cap, x) for x in row) for row in (exact_logits or scores))
    else:
        logits = exact_logits
    return Attention(q=q, k=k, mask=mask, scores=scores, kept=kept, scale=scale, biases=tuple(biases),
                     logits=logits, values=v, form=None if form is None or form.plain else form)


def _named_logits(exact: tuple[tuple[Exact, ...] | None, ...],
                  biases: Sequence[Bias]) -> tuple[tuple[Logit, ...] | None, ...]:
    """Each logit's exact part plus the named biases' names at its cell: `1+b[3]`."""
    from .softmax_forms import Named  # start-up: only a bias given by name needs it

    terms = [b.term for b in biases if b.term is not None]
    return tuple(None if row is None else tuple(Named(x, "+".join(term(i, j) for term in terms))
                                                for j, x in enumerate(row)) for i, row in enumerate(exact))


def softmax_weights(scores: Iterable[Logit]) -> Weights:
    """The softmax of exact scores, pinned where exact arithmetic allows and named otherwise.

    >>> softmax_weights([Fraction(2), Fraction(2)]).values
    (Fraction(1, 2), Fraction(1, 2))
    >>> softmax_weights([Fraction(0), Fraction(1)]).kind
    'named'
    """
    scores = tuple(scores)
    if not scores:
        return Weights("undefined")
    if all(s == scores[0] for s in scores):  # e^a / (k·e^a) = 1/k exactly (no hashing: Fractions hash slowly)
        return Weights("pinned", exponents=scores, values=(Fraction(1, len(scores)),) * len(scores))
    return Weights("named", exponents=scores)


def form_weights(form: Form, logits: Sequence[Logit]) -> Weights:
    """One row's weights under `form` from its kept logits (already capped): the plain softmax's, with a sink
    term in the denominator, or each logit's own sigmoid."""
    if form.sigmoid is not None:
        return _sigmoid_weights(form.sigmoid, tuple(logits))
    plain = softmax_weights(logits)
    if form.sink is None:
        return plain
    s = form.sink.value
    if not logits:  # every key masked: the sink takes the whole row; every weight is 0
        return Weights("pinned", sink=s)
    if plain.kind == "pinned" and not form.sink.named and s == logits[0]:  # e^s = e^x: 1/(k+1) each, the sink too
        return Weights("pinned", exponents=tuple(logits), values=(Fraction(1, len(logits) + 1),) * len(logits),
                       sink=s)
    return Weights("named", exponents=tuple(logits), sink=s)


def _sigmoid_weights(sigmoid: Sigmoid, logits: tuple[Logit, ...]) -> Weights:
    from .softmax_forms import sigmoid_value  # start-up: only sigmoid attention needs it

    count = len(logits) if sigmoid.per_row else sigmoid.count
    shifted = logits if sigmoid.bias is None or sigmoid.bias == 0 else tuple(
        x + sigmoid.bias for x in logits)  # type: ignore[operator]  # exact: no soft cap with sigmoid (resolve_form)
    values = [sigmoid_value(x, count) for x in shifted]
    exact = all(v is not None for v in values)
    return Weights("pinned" if exact else "named", exponents=shifted,
                   values=tuple(v for v in values if v is not None) if exact else (), sigmoid_count=count or 0,
                   form="sigmoid")
