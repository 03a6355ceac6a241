"""What the Sphinx directive and the Markdown fence share: settings, located errors, ids, inline HTML."""

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from attnviz.io import spec
from attnviz.integrations.settings import (FigureError, Setting, block_settings, file_settings, id_prefix, inline_html,
                                          make_figure)
from attnviz.numbers.exact import InputError
from conftest import svg_root


def test_block_settings_remember_the_line_of_each_key():
    settings = block_settings('\n# a comment\nq = "1,0; 0,1"\n\n"k" = [[1, 0], [0, 1]]\ntitle = "T"\n', first_line=10)
    assert {key: (s.value, s.label, s.line) for key, s in settings.items()} == {
        "q": ([["1", "0"], ["0", "1"]], "q", 12),
        "k": ([[1, 0], [0, 1]], "k", 14),
        "title": ("T", "title", 15),
    }


@pytest.mark.parametrize("text, line, message", [
    ("q = [[1, 0]]\nk = [[1, 0]\n", 1, "invalid TOML: Unclosed array (at end of document)"),
    ("q = [[1, 0]]\nk = = 1\n", 2, "invalid TOML: Invalid value (column 5)"),
    ("q = [[1, 0]]\n\nkk = 1\n", 3, "unknown key 'kk'; did you mean 'k'?"),
    ("q = [[1, 0]]\ntokens = 3\n", 2, "tokens: expected a list of strings, got an integer"),
])
def test_block_errors_carry_the_line(text, line, message):
    with pytest.raises(FigureError) as caught:
        block_settings(text)
    assert (caught.value.line, caught.value.message) == (line, message)


def test_file_settings_name_the_file_as_the_author_wrote_it(tmp_path):
    path = tmp_path / "fig.toml"
    path.write_text("q = [[1, 0]]\nk = = 1\n", encoding="utf-8")
    with pytest.raises(FigureError) as caught:
        file_settings(path, "figures/fig.toml", line=7)
    assert (caught.value.line, caught.value.message) == (7, "figures/fig.toml:2:5: invalid TOML: Invalid value")
    path.write_text("q = [[1, 0]]\nk = 1\n", encoding="utf-8")
    with pytest.raises(FigureError, match=r"^figures/fig.toml: k: expected a list of vectors"):
        file_settings(path, "figures/fig.toml")
    path.write_text("q = [[1, 0]]\nk = [[2, 0]]\n", encoding="utf-8")
    assert file_settings(path, "fig.toml", line=3)["k"] == Setting([[2, 0]], "fig.toml: k", 3)


def test_no_vectors_is_the_seed_figure_and_one_alone_is_an_error():
    seed = make_figure({}, id_prefix="p")
    assert seed.attention.scores[2][2] == 2 and (3, 3) in seed.highlight.cells
    plain = make_figure({"highlight": Setting(["mask"], ":highlight:", 4)}, id_prefix="p")
    assert plain.highlight.cells == {(1, 2), (1, 3), (2, 3)}
    with pytest.raises(FigureError) as caught:
        make_figure({"k": Setting([[1]], ":k:", 5)}, id_prefix="p")
    assert caught.value.line == 5 and caught.value.message.startswith(":k: gives the k vectors, so 'q' is needed too")


@pytest.mark.parametrize("settings, line, message", [
    ({"q": Setting([[1, 0]], ":q:", 4), "k": Setting([[1]], "k", 9)}, 4,
     ":q: and k: q vectors have 2 entries but k vectors have 1; Qi·Kj needs the same dimension"),
    ({"q": Setting([[1], [2]], "q", 2), "k": Setting([[1], [2]], "k", 3),
      "tokens": Setting(["a", "\x07"], ":tokens:", 6)},
     6, ":tokens: label 2: control character U+0007 at position 1 cannot be shown in SVG; remove it"),
    ({"q": Setting([["x"]], "f.toml: q", 1), "k": Setting([[1]], "k", 3)}, 1,
     "f.toml: q: vector 1: 'x' is not a number (use an integer like 3, a fraction like -3/4 or a decimal like 0.5)"),
    ({"highlight": Setting(["9,9"], "highlight", 8)}, 8, "highlight '9,9': row 9 is outside the grid (rows 1..3)"),
])
def test_figure_errors_point_at_the_setting(settings, line, message):
    with pytest.raises(FigureError) as caught:
        make_figure(settings, id_prefix="p", line=99)
    assert (caught.value.line, caught.value.message) == (line, message)


@given(st.lists(st.text(min_size=1, max_size=12), min_size=2, max_size=6, unique=True))
def test_id_prefixes_are_valid_ids_and_differ_between_pages(pages):
    prefixes = [id_prefix(page, 1) for page in pages]
    assert all(re.fullmatch(r"attnviz-[A-Za-z0-9-]+-1", prefix) for prefix in prefixes)
    assert len(set(prefixes)) == len(pages)


def test_id_prefixes_are_readable_for_plain_names():
    assert [id_prefix("index", 1), id_prefix("tutorial", 12)] == ["attnviz-index-1", "attnviz-tutorial-12"]
    assert id_prefix("a/b", 1) != id_prefix("a-b", 1) != id_prefix("a_b", 1)


def test_inline_html_wraps_scales_and_labels():
    svg = make_figure({}, id_prefix="attnviz-x-1").svg()
    plain = inline_html(svg)
    assert plain.startswith('<div class="attnviz-figure"><svg ') and plain.endswith("</svg></div>")
    root = svg_root(plain[len('<div class="attnviz-figure">'):-len("</div>")])
    assert root.get("style") == "max-width:100%;height:auto"
    assert root.get("aria-labelledby") == "attnviz-x-1-title attnviz-x-1-desc"

    labelled = inline_html(svg, alt='Q & K "<s>"', classes=["wide", "dark"], element_id="fig-1")
    assert labelled.startswith('<div class="attnviz-figure wide dark" id="fig-1"><svg ')
    root = svg_root(labelled[labelled.index("<svg"):-len("</div>")])
    assert root.get("aria-label") == 'Q & K "<s>"' and root.get("aria-labelledby") is None
    assert root.get("aria-describedby") == "attnviz-x-1-desc"
    assert labelled.replace(' aria-label="Q &amp; K &quot;&lt;s&gt;&quot;"', "").count("Q &amp; K") == 0


def test_inline_html_keeps_a_style_the_figure_already_has():
    html = inline_html('<svg class="attnviz" style="color:red" viewBox="0,0,1,1"></svg>')
    assert html == ('<div class="attnviz-figure"><svg class="attnviz" style="max-width:100%;height:auto;color:red" '
                    'viewBox="0,0,1,1"></svg></div>')


def test_inline_html_refuses_an_alt_svg_cannot_carry():
    with pytest.raises(InputError, match="control character"):
        inline_html(make_figure({}, id_prefix="p").svg(), alt="a\x00b")


# value_from_text: one line of option text -> a checked key value.

@pytest.mark.parametrize("key, text, value", [
    ("q", "1,0; 0,1", [["1", "0"], ["0", "1"]]),
    ("q", "[[1, 0], [0, 1]]", [[1, 0], [0, 1]]),
    ("k", ' -1/2 , 0.5 ', [["-1/2", "0.5"]]),
    ("tokens", "<s>  the cat", ["<s>", "the", "cat"]),
    ("tokens", '["the cat", "sat"]', ["the cat", "sat"]),
    ("q_tokens", "a b", ["a", "b"]),
    ("highlight", "3,3", ["3,3"]),
    ("highlight", "3,3; softmax=3;", ["3,3", "softmax=3"]),
    ("highlight", '[[3, 3], "mask"]', [(3, 3), "mask"]),
    ("title", "Causal attention: 3 tokens", "Causal attention: 3 tokens"),
    ("title", '"Quoted"', "Quoted"),
    ("title", '"Quoted" and not', '"Quoted" and not'),
    ("title", "2024", "2024"),
    ("embed_font", "", True),  # a bare `:embed-font:`, as the command line's --embed-font
    ("embed_font", "true", True),
    ("embed_font", "False", False),
])
def test_value_from_text(key, text, value):
    assert spec.value_from_text(key, text, f":{key}:") == value


def test_a_flag_takes_true_false_or_nothing():
    with pytest.raises(InputError) as err:
        spec.value_from_text("embed_font", "yes", ":embed-font:")
    assert str(err.value) == ":embed-font:: expected true or false (or nothing, as a flag), got 'yes'"


def test_value_from_text_reads_toml_scalars_for_keys_that_are_not_text(monkeypatch):
    def boolean(value, where):
        if not isinstance(value, bool):
            raise InputError(f"expected true or false, got {value!r}", where)
        return value

    monkeypatch.setitem(spec.KEYS, "flag", spec.Key("a flag", boolean, "flag = true"))
    assert spec.value_from_text("flag", "true", ":flag:") is True
    with pytest.raises(InputError, match=r"^:flag:: expected true or false, got 'yes'$"):
        spec.value_from_text("flag", "yes", ":flag:")
    with pytest.raises(InputError, match=r"^:flag:: expected true or false, got '3'$"):
        spec.value_from_text("flag", "3", ":flag:")  # the text's own error, not the number's


def test_every_key_example_reads_the_same_as_option_text():
    """Each KEYS example's TOML value, written as a directive option, gives what the spec gives."""
    for key, entry in spec.KEYS.items():
        text = entry.example.split("=", 1)[1]
        assert spec.value_from_text(key, text, key) == spec.figure_arguments(spec.parse_spec(entry.example), "x",
                                                                              required=())[key]


def test_value_from_text_unknown_key():
    with pytest.raises(InputError, match=r"^:kk:: unknown key 'kk'; did you mean 'k'\?$"):
        spec.value_from_text("kk", "1", ":kk:")
