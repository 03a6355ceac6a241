"""The XML writer: every text and attribute value comes back verbatim from a real parser."""

import xml.etree.ElementTree as ET

from hypothesis import given
from hypothesis import strategies as st

from attnviz.render.xml import Element

xml_chars = st.characters(blacklist_categories=["Cs"],
                          blacklist_characters=[chr(c) for c in [*range(0, 9), 11, 12, *range(14, 32), 0xFFFE, 0xFFFF]])


@given(st.text(xml_chars), st.text(xml_chars))
def test_text_and_attributes_round_trip(text, value):
    root = Element("svg", {"xmlns": "http://www.w3.org/2000/svg", "data-x": value})
    root.add(Element("text", {"class": "t"}, text))
    parsed = ET.fromstring(root.to_string())
    assert parsed.get("data-x") == value
    assert (parsed[0].text or "") == text


def test_structure_and_order():
    root = Element("g", {"class": "a", "data-q": 1})
    root.add(Element("rect", {"x": "0"}))
    root.add(Element("text", {}, "1/2"))
    assert root.to_string() == '<g class="a" data-q="1"><rect x="0"/><text>1/2</text></g>'
