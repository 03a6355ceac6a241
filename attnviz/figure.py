"""The public figure object: exact engine -> words -> layout -> SVG."""

import zlib

from .content import describe
from .engine import CAUSAL, attend
from .exact import InputError
from .highlight import parse_targets
from .labels import check_labels, check_text
from .layout import lay_out
from .output import write_atomic

__all__ = ["Figure", "figure", "SEED_Q", "SEED_K", "SEED_HIGHLIGHT"]

# The seed document's figure: "What Attention Is and Is Not".
SEED_Q = ((1, 0), (0, 1), (1, 1))
SEED_K = ((1, 0), (0, 1), (1, 1))
SEED_HIGHLIGHT = ((3, 3),)


class Figure:
    """One attention figure. `svg()` gives the SVG text; `save(path)` writes it atomically."""

    def __init__(self, attention, highlight, words, id_prefix=None):
        self.attention = attention
        self.highlight = highlight
        self.words = words
        self._id_prefix = id_prefix

    @property
    def id_prefix(self):
        """Prefix of every id in the SVG: given, or derived from the content (same figure, same ids)."""
        if self._id_prefix is None:
            self._id_prefix = f"attnviz-{zlib.crc32(repr(self.words).encode('utf-8')):08x}"
        return self._id_prefix

    def layout(self):
        return lay_out(self.words)

    def svg(self, id_prefix=None):
        from .backends.svg import render_svg

        return render_svg(self.layout(), id_prefix or self.id_prefix)

    def save(self, path):
        """Write the SVG to `path` (folders created, atomically); returns the path."""
        return write_atomic(path, self.svg() + "\n")

    def _repr_svg_(self):
        return self.svg()

    def __repr__(self):
        n_q, n_k = self.attention.shape
        return f"<attnviz.Figure {n_q}x{n_k} {self.attention.mask.name}>"


def figure(q=SEED_Q, k=SEED_K, *, highlight=None, mask=CAUSAL, title=None, subtitle=None,
           tokens=None, q_tokens=None, k_tokens=None, id_prefix=None):
    """Build the figure for query vectors `q` and key vectors `k`.

    `q`, `k`: sequences of equal-length vectors of ints, Fractions, exact strings
    ("1/2", "0.5") or floats (read as the decimal they print as); numpy arrays work.
    `highlight`: targets marked "computed this step": (i, j) pairs or strings
    "I,J", "row=I", "mask", "softmax=I", "softmax" (1-based).
    `tokens`: labels for both axes (when queries and keys are the same tokens);
    `q_tokens`, `k_tokens`: labels for each axis. Shown verbatim in place of Q1.., K1...

    >>> fig = figure(highlight=[(3, 3)])
    >>> fig.attention.scores[2][2]
    Fraction(2, 1)
    """
    attention = attend(q, k, mask)
    marks = parse_targets(highlight, attention)
    n_q, n_k = attention.shape
    q_where, k_where = "q_tokens", "k_tokens"
    if tokens is not None:
        if n_q != n_k:
            raise InputError(f"one list labels both axes, but there are {n_q} queries and {n_k} keys; "
                             "use q_tokens and k_tokens", "tokens")
        q_tokens = k_tokens = tokens
        q_where = k_where = "tokens"
    words = describe(attention, marks,
                     title=None if title is None else check_text(title, "title"),
                     subtitle=None if subtitle is None else check_text(subtitle, "subtitle"),
                     q_labels=None if q_tokens is None else check_labels(q_tokens, n_q, q_where),
                     k_labels=None if k_tokens is None else check_labels(k_tokens, n_k, k_where))
    return Figure(attention, marks, words, id_prefix=id_prefix)
