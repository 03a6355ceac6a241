"""A figure's id is a digest of everything it shows (figures.identity), not of a repr that leaves fields out."""

from fractions import Fraction

import attnviz
from attnviz.figures.identity import canonical, content_id


def test_the_same_figure_has_the_same_id_in_every_run():
    assert attnviz.figure(highlight=[(3, 3)]).id_prefix == attnviz.figure(highlight=[(3, 3)]).id_prefix
    # pinned: the id is part of the golden files, and a docs build diffs cleanly only if it stays put
    assert attnviz.figure(highlight=[(3, 3)]).id_prefix == "attnviz-ce9afa65"


def test_every_field_counts_even_those_a_repr_leaves_out():
    seed = attnviz.figure()
    for other in (attnviz.figure(softmax="grouped"), attnviz.figure(view="scores"), attnviz.figure(index_base=0),
                  attnviz.figure(theme="dark"), attnviz.figure(embed_font=True), attnviz.figure(highlight=[(1, 1)])):
        assert other.id_prefix != seed.id_prefix


def test_canonical_text_tells_values_apart_that_str_would_not():
    assert canonical(("1", 1)) != canonical((1, "1"))
    assert canonical([Fraction(1, 2)]) != canonical(["1/2"])
    assert canonical({"a": 1, "b": 2}) == canonical({"b": 2, "a": 1})
    assert content_id("x").startswith("attnviz-") and len(content_id("x")) == len("attnviz-") + 8
