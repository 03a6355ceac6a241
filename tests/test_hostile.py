"""Hostile labels render as text: nothing a user types becomes markup that runs."""

import xml.etree.ElementTree as ET

import pytest
from conftest import SVG_NS

import attnviz
from attnviz.words.user_text import isolate

HOSTILE = [
    "<script>alert(1)</script>",
    '"><svg onload=alert(1)>',
    "' onmouseover='alert(1)",
    "]]><script>x</script>",
    "<![CDATA[x]]>",
    "<!-- comment -->",
    "&amp;", "&lt;b&gt;", "&#60;script&#62;", "&nbsp;", "&",
    "<|endoftext|>", "<s>", "</s>", "[CLS]",
    "javascript:alert(1)", "url(#x)", "<a href='http://example.com'>x</a>",
    "<foreignObject><iframe src=x></iframe></foreignObject>",
    '<?xml version="1.0"?>', "<!DOCTYPE x [<!ENTITY e 'x'>]>&e;",
    "مرحبا بالعالم", "שָׁלוֹם",  # (bidi overrides are refused: tests/test_bidi.py)
    "🤖", "👩\u200d👩\u200d👧", "e\u0301", "\u00a0", "   ", "\t\n",
    "x" * 100,
]
ALLOWED_TAGS = {"svg", "title", "desc", "style", "defs", "pattern", "rect", "g", "text", "tspan", "polygon"}
ARIA_TEXT = {"aria-label", "aria-description"}  # plain text for screen readers, escaped like any attribute


@pytest.mark.parametrize("label", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_label_renders_as_text(label):
    fig = attnviz.figure([[1], [2]], [[1], [2]], tokens=[label, "ok"], title=label, subtitle=label)
    svg = fig.svg()
    root = ET.fromstring(svg)
    tags = {el.tag.removeprefix(SVG_NS) for el in root.iter()}
    assert tags <= ALLOWED_TAGS
    for el in root.iter():
        for name, value in el.attrib.items():
            assert not name.lower().startswith("on") and "href" not in name
            if name in ARIA_TEXT:
                continue
            assert "javascript:" not in value and "http" not in value
            if name == "fill" and value.startswith("url("):
                assert value == f"url(#{fig.id_prefix}-hatch)"
    headers = [t.text for t in root.iter(f"{SVG_NS}text") if t.get("class") == "attnviz-header-text"]
    assert headers == [label, "ok", label, "ok"]
    assert root.find(f"{SVG_NS}title").text == label and root.find(f"{SVG_NS}desc").text == label
    assert f"row {isolate(label)}: scores [1]" in "".join(root.itertext())  # right-to-left: an isolate
    labels = [g.get("aria-label") for g in root.iter(f"{SVG_NS}g") if g.get("aria-label")]
    assert labels == [f"Q({label}) K({label}) score 1", "Q(" + label + ") K(ok) masked",
                      f"Q(ok) K({label}) score 2", "Q(ok) K(ok) score 4"]
    assert root.find(f"{SVG_NS}style") is None  # colours are attributes; user text never reaches CSS
