"""One grapheme rule (`words.user_text.graphemes`, the `regex` module's `\\X`, Unicode's UAX #29): a short label,
a cache slot's label and a frame's cut word end between two letters as a reader sees them, never inside one.

Each check below finds the clusters itself, with `regex.findall(r"\\X", ...)`, not with the code under test."""

import subprocess
import sys

import attnviz
import pytest
import regex
from attnviz.layout.items import Text
from attnviz.layout.breaks import split_terms
from attnviz.layout.wrapping import ANYWHERE, break_points, wrap
from attnviz.words.short_labels import short_label
from attnviz.words.user_text import graphemes, user_spans, user_text
from hypothesis import given
from hypothesis import strategies as st

ZWJ = "\u200d"
#: One cluster of each kind that a hand rule gets wrong: name -> the cluster (two or more code points).
CLUSTERS = {
    "skin tone": "👍🏽",
    "ZWJ family": "👨" + ZWJ + "👩" + ZWJ + "👧",
    "flag": "🇫🇷",
    "Devanagari vowel sign": "का",
    "Devanagari conjunct": "क्षि",
    "Hangul jamo": "\u1112\u1161\u11ab",  # 한, decomposed: a leading, a vowel and a trailing jamo
    "combining mark": "e\u0301",
    "variation selector": "❤\ufe0f",
    "keycap": "1\ufe0f\u20e3",
}


def clusters(text):
    return regex.findall(r"\X", text)


def boundaries(text):
    """The offsets, in code points, where `text` may be cut: between two clusters, and at either end."""
    ends, at = {0}, 0
    for cluster in clusters(text):
        at += len(cluster)
        ends.add(at)
    return ends


@pytest.mark.parametrize("name", CLUSTERS)
def test_each_kind_is_one_cluster(name):
    cluster = CLUSTERS[name]
    assert len(cluster) > 1 and graphemes(cluster) == [cluster] == clusters(cluster)
    assert graphemes("ab" + cluster * 3 + "c") == ["a", "b", cluster, cluster, cluster, "c"]


def test_the_issue_s_two_labels_keep_their_last_letter_whole():
    """`thumbsu👍🏽p-label` was cut to `thumbsu👍…` (the skin tone dropped) and `abcdefgकामना` to `abcdefgक…`
    (the vowel sign dropped: a different word)."""
    assert short_label("thumbsu👍🏽p-label") == "thumbsu👍🏽…"
    assert short_label("abcdefgकामना") == "abcdefgका…"


@pytest.mark.parametrize("name", CLUSTERS)
def test_a_short_label_never_splits_a_cluster(name):
    cluster = CLUSTERS[name]
    for before in range(6, 10):  # the cut falls at, inside and after the cluster's code points
        label = "x" * before + cluster * 4
        short = short_label(label)
        assert short.endswith("…") and label.startswith(short[:-1]), (label, short)
        assert len(short) - 1 in boundaries(label), (label, short)
        assert len(clusters(short[:-1])) <= 8
    assert short_label(cluster * 9) == cluster * 9  # nine letters, drawn whole, however many code points
    assert short_label(cluster * 10) == cluster * 8 + "…"


def test_a_short_label_keeps_the_user_s_span_over_its_letters():
    short = short_label(user_text("thumbsu👍🏽p-label"))
    assert short == "thumbsu👍🏽…" and user_spans(short) == ((0, len("thumbsu👍🏽")),)


@given(st.text(), st.integers(0, 20))
def test_a_short_label_is_whole_clusters_of_the_label(label, most):
    """For any text: whole, or a prefix made of whole clusters (at most `most` of them) and "…"."""
    short = short_label(label, most)
    found = clusters(label)
    if len(found) <= most + 1:
        assert short == label
    else:
        kept = found[:most]
        while kept and kept[-1].isspace():  # the spaces before the "…" go
            kept.pop()
        assert short == "".join(kept) + "…", (label, short)


@pytest.mark.parametrize("name", CLUSTERS)
def test_a_frame_cuts_a_long_word_between_clusters(name):
    word = "ab" + CLUSTERS[name] * 30
    lines = wrap([word], "subtitle", 60, finer=(ANYWHERE,))
    assert "".join(lines) == word and len(lines) > 1
    ends = boundaries(word)
    at = 0
    for line in lines:
        at += len(line)
        assert at in ends, (name, line)


TRICKY = st.sampled_from(["a", "b", " ", ",", "+", "(", ")", "\u0301", ZWJ, "👨", "👍", "🏽", "🇫", "🇷", "क", "्",
                          "ष", "ा", "ि", "\u1112", "\u1161", "\u11ab", "\ufe0f", "❤", "\r", "\n", "\u0600", "…"])
SPLITS = {"one piece": lambda text: [text], "break_points": break_points, "split_terms": split_terms}


@pytest.mark.parametrize("split", SPLITS)
@given(text=st.lists(TRICKY, min_size=1, max_size=40).map("".join), room=st.integers(1, 120))
def test_wrapped_lines_end_between_clusters(split, text, room):
    """For any text and width, a line ends where a cluster ends: at a space or a comma only if no mark follows
    it, inside a word (`ANYWHERE`, a frame's cut) only between two clusters; every character kept."""
    lines = wrap(SPLITS[split](text), "subtitle", room, finer=(ANYWHERE,))
    assert "".join(lines) == text
    ends, at = boundaries(text), 0
    for line in lines:
        at += len(line)
        assert at in ends, (text, lines)


def test_a_mark_after_a_space_stays_with_it():
    """A space and a combining mark after it are one cluster: the line does not break between them."""
    text = "word " * 6 + "\u0301mark " + "word " * 6
    lines = wrap(break_points(text), "subtitle", 120)
    assert "".join(lines) == text and len(lines) > 2
    assert not any(line.startswith("\u0301") for line in lines)
    assert wrap(break_points("word \u0301mark"), "subtitle", 1) == ("word \u0301mark",)


LABELS = ["thumbsu👍🏽p-label", "abcdefgकामना", "hangul " + CLUSTERS["Hangul jamo"] * 4]


def test_a_slide_s_headers_and_cache_slots_keep_clusters_whole():
    """The grid's headers and a decode step's cache slots draw the same short labels, each ending between two
    clusters."""
    q = [[1, 0], [0, 1], [1, 1]]
    family = "family " + CLUSTERS["ZWJ family"] * 4
    layout = attnviz.figure(q + [[0, 0]], q + [[0, 0]], tokens=LABELS + [family], frame="slide").layout()
    headers = {t.text for t in layout.walk() if isinstance(t, Text) and t.role == "header"}
    assert headers == {"thumbsu👍🏽…", "abcdefgका…", "hangul 한…".replace("한", CLUSTERS["Hangul jamo"]),
                       "family " + CLUSTERS["ZWJ family"] + "…"}
    # (a wide column draws the cache's slots: on a slide, these long labels' vectors, kept whole, leave the strip
    # no room and its slots are said in the step's text)
    steps = attnviz.walkthrough(attnviz.figure(q, q, tokens=LABELS, mask="window=2", frame="column-wide"), decode=1)
    slots = {t.text: t.user for step in steps for t in step.layout().walk()
             if isinstance(t, Text) and t.role == "slot" and t.text != "empty"}
    assert slots == {short_label(label): ((0, len(short_label(label)) - 1),) for label in LABELS}
    for label in LABELS:
        assert len(short_label(label)) - 1 in boundaries(label)


def test_only_a_cut_loads_the_segmentation():
    """Start-up stays lean: the default figure imports no `regex`; a label that must be cut does."""
    code = ("import sys, attnviz; attnviz.figure().svg(); print('regex' in sys.modules);"
            "from attnviz.words.short_labels import short_label; short_label('internationalization');"
            "print('regex' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "True"]
