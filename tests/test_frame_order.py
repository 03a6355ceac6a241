"""The frame's choices as data (layout.framed) held against the order docs/frame-output.rst documents: each
choice's number is its item there, its `docs` words are that item's bold words, and the fitter walks them in
the documented order, so the list and the page cannot drift apart."""

import re
from pathlib import Path

import pytest

from attnviz.layout.framed import FRAME_ORDERS, GIVEN, ORDER, TOO_BIG_ORDER

DOCS = Path(__file__).resolve().parent.parent / "docs" / "frame-output.rst"


def documented_order():
    """{number: (the item's text, its bold words)} of the numbered list after "The choices, in order."."""
    text = DOCS.read_text(encoding="utf-8").split("**The choices, in order.**", 1)[1]
    items, number = {}, None
    for line in text.splitlines():
        start = re.match(r"(\d+)\. (.*)", line)
        if start:
            number = int(start[1])
            items[number] = start[2]
        elif number is not None and line.startswith("   ") and line.strip():
            items[number] += " " + line.strip()
        elif number is not None and line.strip():
            break  # the list is over
    return {n: (item, re.findall(r"\*\*(.+?)\*\*", item)) for n, item in items.items()}


def first_seen(order):
    seen = []
    for choice in order:
        if choice not in seen:
            seen.append(choice)
    return seen


def test_the_documented_list_is_numbered_from_one():
    assert list(documented_order()) == list(range(1, len(documented_order()) + 1))


@pytest.mark.parametrize("choice", first_seen((*GIVEN, *ORDER, *TOO_BIG_ORDER)), ids=lambda choice: choice.name)
def test_each_choice_is_named_by_its_item_in_the_docs(choice):
    _, bold = documented_order()[choice.number]
    assert choice.docs in bold, (choice.number, bold)


def test_the_choices_are_walked_in_the_documented_order_and_every_item_is_one():
    numbers = [choice.number for choice in first_seen((*GIVEN, *ORDER))]
    assert numbers == sorted(numbers)
    assert set(numbers) == set(documented_order())


def test_a_grid_too_big_is_elided_first_and_makes_neither_portrait_nor_fewer_captions():
    """"A grid too big for the frame on its own is elided first, before choices 4 to 7 (and 8 and 9 are not
    made)"."""
    assert TOO_BIG_ORDER[0].number == 10
    assert "elided first" in documented_order()[10][0]
    assert {choice.number for choice in TOO_BIG_ORDER}.isdisjoint({8, 9})


@pytest.mark.parametrize("kind", ["slide", "column"])
def test_each_frame_walks_the_order_s_choices_for_it(kind):
    for order, framed in zip((ORDER, TOO_BIG_ORDER), FRAME_ORDERS[kind]):
        assert framed == tuple(choice for choice in order if kind in choice.frames)
    assert {choice.name for choice in FRAME_ORDERS["column"][0]}.isdisjoint({"portrait", "across", "cells"})
