"""Right-to-left labels stay in their place, and nothing a user types can reorder a figure's numbers.

Every label that holds right-to-left characters is isolated (FSI ... PDI) wherever it sits inside a
longer line; the explicit bidi controls are refused in every user text (attnviz.labels says why).
The visual order is checked with the Unicode Bidirectional Algorithm itself (python-bidi).
"""

import re
import unicodedata
import xml.etree.ElementTree as ET

import pytest
from bidi import get_display
from clirun import run_cli
from conftest import SVG_NS
from hypothesis import given
from hypothesis import strategies as st

import attnviz
from attnviz.words.user_text import BIDI_CONTROLS, FSI, PDI

HEBREW, ARABIC = "שָׁלוֹם", "مرحبا"
LETTERS = st.sampled_from(list("abcXYZ<>()[]=,;:.-+ 0123") + list("שלוםאבג") + list("مرحبا") + list("٠١٢٣")
                          + list("中文ä") + ["\u0301", "\u05b8", "\u064e", "\u200f", "\u200e", "🤖"])
LABELS = st.text(LETTERS, min_size=1, max_size=12).filter(lambda t: t.strip())
_RUN = re.compile(f"{FSI}[^{PDI}]*{PDI}")


def texts(fig):
    root = ET.fromstring(fig.svg())
    return {t.get("class"): [] for t in root.iter(f"{SVG_NS}text")}, [
        (t.get("class"), "".join(t.itertext())) for t in root.iter(f"{SVG_NS}text")]


def visual_outside_isolates(line):
    """The line as displayed (UBA, left-to-right paragraph), each isolate's content replaced by one mark."""
    return _RUN.sub("□", get_display(line, base_dir="L"))


@given(st.lists(LABELS, min_size=2, max_size=2))
def test_each_label_is_its_own_isolated_run_and_numbers_keep_their_place(labels):
    fig = attnviz.figure([[5, 6], [1, 0]], [[5, 6], [1, 0]], tokens=labels)
    _, lines = texts(fig)
    vectors = "".join(text for role, text in lines if role == "attnviz-vectors-text")
    # Read back in document order: every label is there, isolated when it holds right-to-left text.
    for label in labels:
        right_to_left = any(unicodedata.bidirectional(ch) in ("R", "AL", "AN") for ch in label)
        shown = f"{FSI}{label}{PDI}" if right_to_left else label
        assert f"({shown})=" in vectors
    # No control outside attnviz's own isolates, and each isolate is closed on its line.
    for _role, text in lines:
        assert text.count(FSI) == text.count(PDI)
        assert not [ch for ch in _RUN.sub("", text) if ch in BIDI_CONTROLS]
    # What the reader sees: outside the labels, every line reads left to right exactly as written
    # (headers hold a label alone, shown in its own direction).
    for role, text in lines:
        if role != "attnviz-header-text":
            assert visual_outside_isolates(text) == _RUN.sub("□", text), text


@given(LABELS, st.sampled_from(sorted(BIDI_CONTROLS)), st.integers(0, 12))
def test_bidi_controls_are_refused_in_every_text(label, control, at):
    text = label[:at] + control + label[at:]
    for kwargs, where in [({"tokens": [text, "x"]}, "tokens: label 1"), ({"title": text}, "title"),
                          ({"subtitle": text}, "subtitle"), ({"q_tokens": ["x", text]}, "q_tokens: label 2")]:
        with pytest.raises(attnviz.InputError) as err:
            attnviz.figure([[1], [2]], [[1], [2]], **kwargs)
        assert str(err.value).startswith(f"{where}: bidi control U+{ord(control):04X} (")


def test_an_override_in_a_label_is_refused_on_the_command_line_and_in_a_page(tmp_path):
    result = run_cli("render", "--q", "5,6", "--k", "1,0", "--q-tokens", "c\u202e", "-o", str(tmp_path / "x.svg"))
    assert (result.code, result.stderr) == (2, "attnviz: error: --q-tokens: label 1: bidi control U+202E "
                                               "(RIGHT-TO-LEFT OVERRIDE) at position 2 could reorder the text around "
                                               "it; remove it (right-to-left text needs none: attnviz isolates each "
                                               "label itself)\n")
    spec = tmp_path / "doc.toml"
    spec.write_text("heading = 'h'\n[figure]\nq = [[1]]\nk = [[1]]\n[[sections]]\nheading = 's'\n"
                    "paragraph = \"scores \\u2067reversed\\u2069\"\n", encoding="utf-8")
    result = run_cli("page", str(spec), "-o", str(tmp_path / "site"))
    assert result.code == 2 and "doc.toml: section 1: paragraph: bidi control U+2067" in result.stderr
    assert not (tmp_path / "site").exists() and not (tmp_path / "x.svg").exists()


def test_hebrew_and_arabic_labels_read_right_and_keep_the_numbers_in_place():
    fig = attnviz.figure([[5, 6], [1, 0]], [[5, 6], [1, 0]], tokens=[HEBREW, ARABIC], softmax="normalizer")
    _, lines = texts(fig)
    headers = [text for role, text in lines if role == "attnviz-header-text"]
    assert headers == [HEBREW, ARABIC, HEBREW, ARABIC]  # alone in their own text: as typed, no isolate
    q_line = next(text for role, text in lines if role == "attnviz-vectors-text")
    assert q_line == f"Q({FSI}{HEBREW}{PDI})=(5,6); Q({FSI}{ARABIC}{PDI})=(1,0)"
    assert visual_outside_isolates(q_line) == "Q(□)=(5,6); Q(□)=(1,0)"


def test_a_walkthrough_sentence_names_two_hebrew_labels_in_order():
    from attnviz.publish.walkthrough.scores import walkthrough

    document, _ = walkthrough(attnviz.figure([[1], [2]], [[1], [2]], tokens=["אחד", "שתיים"]))
    sentence = document.sections[1].paragraphs[0]
    assert f"(“{FSI}שתיים{PDI}” and “{FSI}אחד{PDI}”)" in sentence
    shown = visual_outside_isolates(sentence)
    assert "query 2 and key 1 (“□” and “□”)" in shown


def test_left_to_right_labels_are_not_touched():
    fig = attnviz.figure([[1], [2]], [[1], [2]], tokens=["<s>", "cat"])
    assert FSI not in fig.svg() and PDI not in fig.svg()
