"""Every deck's figure is laid out for its slide, not shrunk into it: at 13.33 inches every text of the figure
(its scripts too) is 14 pt or more, for the seed, a 6-token sentence, a flash walkthrough, GQA heads, a
12-token walkthrough (91 steps) and a 4:3 deck. A figure too big beside the text goes across the slide, then
leaves its softmax captions, then its vectors, to the slide's text and notes, then sets its values at 14 pt
too; each deck says which (`Deck.choices`, in every layout's `choices`), and one that still does not fit is
refused in one line."""

import pytest
from test_deck_pptx import make_deck

import attnviz
from attnviz.errors import InputError
from attnviz.layout.frames import text_floor_misses
from attnviz.layout.items import Text
from attnviz.publish.deck import model as decks

TWELVE = [[1, 0], [0, 1], [1, 1], [2, 1], [1, 2], [0, 2], [2, 0], [1, -1], [-1, 1], [3, 1], [1, 3], [2, 2]]


def smallest_pt(deck):
    """The smallest text of every slide's figure, scripts included, in points on the slide."""
    smallest = float("inf")
    for layout in deck.layouts():
        scale = deck.geometry.figure.w / layout.width  # points a layout unit
        for item in layout.walk():
            if isinstance(item, Text):
                scripts = item.math and any(kind in ("sup", "sub") for runs in item.line_runs() for _, kind in runs)
                size = min(item.style.size, item.script) if scripts and item.script else item.style.size
                smallest = min(smallest, size * scale)
    return smallest


@pytest.mark.parametrize("name", ["seed", "six", "flash", "gqa"])
def test_every_figure_text_is_14_pt_on_the_slide(name):
    deck = make_deck(name)
    assert smallest_pt(deck) >= 14 - 1e-6
    assert all(text_floor_misses(layout, deck.frame) == [] for layout in deck.layouts())


def test_a_twelve_token_walkthrough_is_91_slides_at_14_pt_with_its_choices_said():
    deck = decks.from_walkthrough(attnviz.figure(TWELVE, TWELVE))
    assert len([s for s in deck.slides if s.kind == "step"]) == 91
    assert smallest_pt(deck) >= 14 - 1e-6
    assert deck.compact and any("14 pt" in choice for choice in deck.choices)
    assert all(layout.choices[:len(deck.choices)] == deck.choices for layout in deck.layouts())
    sizes = {(layout.width, layout.height) for layout in deck.layouts()}
    assert len(sizes) == 1  # every step the same size: nothing moves


def test_the_seed_keeps_its_whole_figure_and_a_six_token_deck_says_what_it_left_to_the_text():
    assert decks.from_walkthrough(attnviz.figure()).choices == ()
    six = make_deck("six")
    assert any("softmax captions" in choice for choice in six.choices)
    assert all(layout.choices[:len(six.choices)] == six.choices for layout in six.layouts())


def test_a_4_3_deck_meets_the_floor_too():
    deck = decks.from_walkthrough(attnviz.figure(), aspect="4:3")
    assert smallest_pt(deck) >= 14 - 1e-6


def test_a_figure_no_arrangement_holds_is_refused_in_one_line():
    long_labels = [f"a_token_of_forty_characters_number_{n:05}" for n in range(12)]
    with pytest.raises(InputError) as refused:
        decks.from_walkthrough(attnviz.figure(TWELVE, TWELVE, tokens=long_labels))
    assert "\n" not in str(refused.value) and "try fewer tokens" in str(refused.value)


def test_a_score_view_decks_figure_stays_put_on_its_banded_softmax_steps():
    """A softmax step's row band is no wider than the grid: every step's grid at the same place."""
    deck = make_deck("six")
    places = {tuple(round(v, 6) for v in layout.grid) for layout in deck.layouts()}
    assert len(places) == 1, places
