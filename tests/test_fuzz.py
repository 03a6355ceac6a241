"""Fuzzing: valid specs always render; any text or bytes ends in exit 0 or 2, never a traceback."""

import json
import re
import string
import xml.etree.ElementTree as ET

from clirun import run_cli
from conftest import SVG_NS
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from attnviz.words.user_text import MAX_LABEL

XML_ILLEGAL = set(map(chr, [*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0xFFFE, 0xFFFF]))
number_text = st.one_of(st.integers(-50, 50).map(str), st.fractions(-9, 9, max_denominator=9).map(str),
                        st.decimals(-10, 10, places=3, allow_nan=False).map(str))
labels = st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters=XML_ILLEGAL), max_size=MAX_LABEL)


@st.composite
def valid_specs(draw):
    n_q, n_k, d = draw(st.integers(1, 6)), draw(st.integers(1, 6)), draw(st.integers(1, 3))
    vec = st.lists(number_text, min_size=d, max_size=d)
    spec = {"q": draw(st.lists(vec, min_size=n_q, max_size=n_q)),
            "k": draw(st.lists(vec, min_size=n_k, max_size=n_k))}
    if draw(st.booleans()):
        spec["q_tokens"] = draw(st.lists(labels, min_size=n_q, max_size=n_q))
        spec["k_tokens"] = draw(st.lists(labels, min_size=n_k, max_size=n_k))
    if draw(st.booleans()):
        spec["highlight"] = [[draw(st.integers(1, n_q)), draw(st.integers(1, n_k))], "softmax"]
    if draw(st.booleans()):
        spec["title"] = draw(labels)
    return spec


@settings(max_examples=80, suppress_health_check=[HealthCheck.too_slow])
@given(valid_specs())
def test_valid_specs_render_well_formed_svg_with_every_cell(spec):
    result = run_cli("render", "-", "-o", "-", stdin=json.dumps(spec).encode("utf-8"))
    assert result.code == 0, result.stderr
    root = ET.fromstring(result.stdout)
    cells = [g for g in root.iter(f"{SVG_NS}g") if "attnviz-cell" in g.get("class", "")]
    assert len(cells) == len(spec["q"]) * len(spec["k"])
    if "q_tokens" in spec:
        headers = [t.text or "" for t in root.iter(f"{SVG_NS}text") if t.get("class") == "attnviz-header-text"]
        assert headers == spec["k_tokens"] + spec["q_tokens"]


@settings(max_examples=150)
@given(st.binary(max_size=300))
def test_any_bytes_as_a_spec_end_cleanly(data):
    result = run_cli("render", "-", "-o", "-", stdin=data)
    assert result.code in (0, 2), result.stderr
    if result.code == 2:
        assert result.stderr.startswith("attnviz: error: <stdin>") and result.stderr.count("\n") == 1


toml_ish = st.text(alphabet=string.printable + "[]{}=\"'·é", max_size=200)


@settings(max_examples=150)
@given(st.one_of(toml_ish, st.text(max_size=200)))
def test_any_text_as_a_spec_ends_cleanly(text):
    result = run_cli("render", "-", "-o", "-", stdin=text.encode("utf-8", "surrogatepass"))
    assert result.code in (0, 2), result.stderr
    assert "Traceback" not in result.stderr


flags = st.sampled_from(["--q", "--k", "--highlight", "--title", "--subtitle", "--tokens", "--q-tokens", "--k-tokens"])


@settings(max_examples=200)
@given(st.lists(st.tuples(flags, st.text(max_size=40)), max_size=4))
def test_any_flag_values_end_cleanly(pairs):
    args = [part for pair in pairs for part in pair]
    result = run_cli("render", *args, "-o", "-")
    assert result.code in (0, 2), result.stderr
    if result.code == 2:
        assert result.stderr.startswith("attnviz: error: ") and result.stderr.count("\n") == 1


@settings(max_examples=200)
@given(labels | st.text(" \t\n\rab", max_size=10))
@example("⋮").via("a label that reads as attnviz's elision marks: a header still")
@example("⋯").via("a label that reads as attnviz's elision marks: a header still")
def test_every_label_comes_back_verbatim(label):
    result = run_cli("render", "-", "-o", "-", stdin=json.dumps({"q": [[1]], "k": [[1]], "tokens": [label],
                                                                  "title": label}).encode("utf-8"))
    assert result.code == 0, result.stderr
    root = ET.fromstring(result.stdout)
    headers = [t for t in root.iter(f"{SVG_NS}text") if t.get("class") == "attnviz-header-text"]
    assert [t.text or "" for t in headers] == [label, label]
    assert (root.find(f"{SVG_NS}title").text or "") == label
    # ...and it is drawn as given: every space kept, where a tab, newline or CR can only be a space.
    assert [shown(t) for t in headers] == [label.translate(AS_SPACE)] * 2


AS_SPACE = str.maketrans("\t\n\r", "   ")


def shown(text_element):
    """The characters SVG draws for a <text>: its whitespace rules, with and without xml:space="preserve"."""
    text = text_element.text or ""
    if text_element.get("{http://www.w3.org/XML/1998/namespace}space") == "preserve":
        return text.translate(AS_SPACE)
    return re.sub(" +", " ", text.replace("\n", "").replace("\r", "").replace("\t", " ").strip(" "))


@given(st.sampled_from(sorted(XML_ILLEGAL)), labels)
def test_xml_illegal_characters_are_refused_by_name(char, label):
    result = run_cli("render", "-", "-o", "-", stdin=json.dumps({"q": [[1]], "k": [[1]],
                                                                  "tokens": [label + char]}).encode("utf-8"))
    assert result.code == 2
    assert f"control character U+{ord(char):04X}" in result.stderr
