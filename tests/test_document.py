"""Document specs: the shipped seed, strict checking with located errors, names and ids."""

import xml.etree.ElementTree as ET

import pytest
from clirun import run_cli
from pagetext import computed

from attnviz.publish.document import (
    Section,
    build_figures,
    default_document,
    make_document,
    parse_document,
    seed_spec_text,
    slugify,
)
from attnviz.numbers.exact import InputError
from attnviz.publish.mathml import tex_to_mathml
from attnviz.io.spec import parse_spec

FIGURE = "[figure]\nq = [[1, 0], [0, 1]]\nk = [[1, 0], [0, 1]]\n"
SECTION = '[[sections]]\nheading = "One"\n'


def doc(text, name="d.toml"):
    return parse_document(parse_spec(text, name), name)


def test_seed_document_is_the_seed():
    document = default_document()
    assert document.title == "Scores, Masks, Softmax"
    assert document.heading == "What Attention Is and Is Not"
    assert document.legend == "highlighted = computed this step"
    assert [s.heading for s in document.sections] == ["What is exact", "What is not claimed", "Summary"]
    assert [s.highlight for s in document.sections] == [((3, 3),), ("softmax",), ()]
    assert [s.name for s in document.sections] == ["01-what-is-exact", "02-what-is-not-claimed", "03-summary"]
    assert document.sections[0].formula == "S_{3,3}=2"
    assert "attnviz page --print-spec" in seed_spec_text()


def test_section_figures_have_their_own_ids():
    figures = build_figures(default_document())
    assert [f.id_prefix for f in figures] == ["attnviz-01-what-is-exact", "attnviz-02-what-is-not-claimed",
                                              "attnviz-03-summary"]
    assert [sorted(f.highlight.cells) for f in figures] == [[(3, 3)], [], []]
    assert [sorted(f.highlight.softmax_rows) for f in figures] == [[], [1, 2, 3], []]


def test_optional_keys_and_paragraphs():
    document = doc('heading = "H"\nintro = """one\n  line\n\n\ntwo"""\n' + FIGURE + SECTION +
                   '[[sections]]\nheading = "One"\nparagraph = "a\\n\\nb"\nformula = "  "\n')
    assert document.title is None and document.legend is None and document.lang == "en"
    assert document.intro == ("one line", "two")
    assert [s.anchor for s in document.sections] == ["one", "one-2"]
    assert [s.name for s in document.sections] == ["01-one", "02-one"]
    assert document.sections[1].paragraphs == ("a", "b") and document.sections[1].formula is None


def test_anchors_never_take_a_figures_id():
    document = make_document(heading="H", sections=[Section("attnviz 01 one"), Section("attnviz 01 one")])
    assert [s.anchor for s in document.sections] == ["section-attnviz-01-one", "section-attnviz-01-one-2"]
    assert document.sections[0].id_prefix == "attnviz-01-attnviz-01-one"


def test_many_sections_are_numbered_to_sort():
    document = make_document(heading="H", sections=[Section(f"S {n}") for n in range(1, 101)])
    assert document.sections[0].name == "001-s-1" and document.sections[-1].name == "100-s-100"


@pytest.mark.parametrize("text, expected", [
    ("What is exact", "what-is-exact"), ("  Ça  va?! ", "ca-va"), ("→ ←", "section"), ("x" * 80, "x" * 48),
])
def test_slugify(text, expected):
    assert slugify(text) == expected


@pytest.mark.parametrize("text, message", [
    (FIGURE + SECTION, "d.toml: missing required key 'heading'"),
    ('heading = "H"\n' + SECTION, "d.toml: missing required key 'figure'"),
    ('heading = "H"\n' + FIGURE, "d.toml: missing required key 'sections'"),
    ('heading = "H"\nsections = []\n' + FIGURE, "d.toml: sections: expected a list of sections"),
    ('heading = "H"\nsections = [1]\n' + FIGURE, "d.toml: section 1: expected a table"),
    ('heading = "H"\nintroduction = "x"\n' + FIGURE + SECTION,
     "d.toml: unknown key 'introduction'; did you mean 'intro'?"),
    ('heading = 3\n' + FIGURE + SECTION, "d.toml: heading: expected a string, got an integer"),
    ('heading = "H"\nlang = "english please"\n' + FIGURE + SECTION, "d.toml: lang: expected a language tag"),
    ('heading = "H"\nfigure = 1\n' + SECTION, "d.toml: figure: expected a table of figure keys"),
    ('heading = "H"\n' + FIGURE + "highlight = [1, 1]\n" + SECTION,
     "d.toml: figure: highlight: highlight belongs to each section"),
    ('heading = "H"\n' + FIGURE + "kk = 1\n" + SECTION, "d.toml: figure: unknown key 'kk'; did you mean 'k'?"),
    ('heading = "H"\n[figure]\nq = [[1]]\n' + SECTION, "d.toml: figure: missing required key 'k'"),
    ('heading = "H"\n' + FIGURE + SECTION + "heding = 1\n",
     "d.toml: section 1: unknown key 'heding'; did you mean 'heading'?"),
    ('heading = "H"\n' + FIGURE + SECTION + '[[sections]]\nparagraph = "p"\n',
     "d.toml: section 2: missing required key 'heading'"),
    ('heading = "H"\n' + FIGURE + SECTION + "highlight = {a = 1}\n",
     "d.toml: section 1: highlight: expected a list of targets"),
    ('heading = "H\\u0007"\n' + FIGURE + SECTION, "d.toml: heading: control character U+0007"),
    ('heading = ""\n' + FIGURE + SECTION, "d.toml: heading: a heading cannot be empty"),
    ('heading = "H"\n' + FIGURE + '[[sections]]\nheading = "  "\n',
     "d.toml: section 1: heading: a heading cannot be empty"),
])
def test_bad_documents_say_where(text, message):
    with pytest.raises(InputError) as err:
        doc(text)
    assert str(err.value).startswith(message), str(err.value)


@pytest.mark.parametrize("extra, message", [
    ('[[sections]]\nheading = "Two"\nhighlight = [3, 1]\n',
     "d.toml: section 2: highlight (3, 1): row 3 is outside the grid (rows 1..2)"),
    ('[[sections]]\nheading = "Two"\nhighlight = "diagonal"\n',
     "d.toml: section 2: highlight 'diagonal': expected I,J, row=I, mask, softmax=I, softmax, output=I or output"),
])
def test_figure_errors_name_the_section(extra, message):
    document = doc('heading = "H"\n' + FIGURE + SECTION + extra)
    with pytest.raises(InputError) as err:
        build_figures(document, "d.toml")
    assert str(err.value).startswith(message), str(err.value)


def test_figure_value_errors_name_the_figure_table():
    with pytest.raises(InputError) as err:
        build_figures(doc('heading = "H"\n[figure]\nq = [[1, 0]]\nk = [[1]]\n' + SECTION), "d.toml")
    assert str(err.value).startswith("d.toml: figure: q and k: q vectors have 2 entries but k vectors have 1")


@pytest.mark.parametrize("args, spec, message", [
    (["page", "{spec}"], 'heading = "H"\n' + FIGURE + SECTION + 'formula = "x^"\n',
     "{spec}: section 1: formula: cannot read this TeX formula: missing super script or subscript"),
    (["page", "{spec}"], FIGURE.replace("[figure]\n", ""), "{spec}: not a document: a document spec has [[sections]]"),
    (["render", "{spec}", "--step", "1"], "q = [[1]]\nk = [[1]]\n", "--step: {spec} is a figure spec"),
    (["render", "{spec}"], 'heading = "H"\n' + FIGURE + SECTION,
     "--step: {spec} is a document of 1 sections; choose one with --step 1..1"),
    (["render", "{spec}", "--step", "0"], 'heading = "H"\n' + FIGURE + SECTION,
     "--step: step 0 is out of range; {spec} has 1 sections (1..1)"),
    (["render", "--step", "1"], None, "--step: needs a document spec"),
    (["render", "{spec}", "--step", "two"], None, "argument --step: invalid int value: 'two'"),
])
def test_command_errors_are_one_line_and_write_nothing(tmp_path, args, spec, message):
    path = tmp_path / "spec.toml"
    if spec is not None:
        path.write_text(spec, encoding="utf-8")
    out = tmp_path / "out"
    result = run_cli(*[a.format(spec=path) for a in args], "-o", str(out))
    assert result.code == 2
    assert result.stderr.startswith("attnviz: error: " + message.format(spec=path)), result.stderr
    assert result.stderr.count("\n") == 1 and not out.exists()


def test_page_output_errors(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    result = run_cli("page", "-o", str(blocker))
    assert result.code == 2 and result.stderr.startswith(f"attnviz: error: -o {blocker}: cannot write: ")
    assert blocker.read_text(encoding="utf-8") == "x"
    result = run_cli("page", "-o", "-")
    assert result.code == 2 and "a page is several files" in result.stderr


def test_render_step_flags_override_the_document(tmp_path):
    spec = tmp_path / "d.toml"
    spec.write_text(seed_spec_text(), encoding="utf-8")
    result = run_cli("render", str(spec), "--step", "1", "--highlight", "softmax=2", "--title", "Mine", "-o", "-")
    assert result.code == 0, result.stderr
    assert computed(ET.fromstring(result.stdout)) == ({}, [2])  # --highlight replaced the section's (3,3)
    assert ">Mine<" in result.stdout and 'id="attnviz-01-what-is-exact"' in result.stdout


def test_render_step_writes_by_default_where_the_page_puts_that_step(tmp_path, monkeypatch):
    spec = tmp_path / "d.toml"
    spec.write_text(seed_spec_text(), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = run_cli("render", str(spec), "--step", "2")
    assert result.code == 0, result.stderr
    assert result.stdout == "out/steps/02-what-is-not-claimed.svg\n"
    step = (tmp_path / "out/steps/02-what-is-not-claimed.svg").read_bytes()
    assert not (tmp_path / "out/attention-honesty-boundary.svg").exists()
    assert run_cli("page", str(spec), "-o", "page").code == 0
    assert step == (tmp_path / "page/steps/02-what-is-not-claimed.svg").read_bytes()
    assert run_cli("render", str(spec), "--step", "3", "-f", "pdf").stdout == "out/steps/03-summary.pdf\n"


@pytest.mark.parametrize("tex, fragment", [
    (r"\text{<b>&</b>}", "<mtext>&lt;b&gt;&amp;&lt;/b&gt;</mtext>"),
    (r"a<b", "<mi>a</mi><mo>&lt;</mo><mi>b</mi>"),
])
def test_mathml_is_escaped_once_and_points_nowhere(tex, fragment):
    mathml = tex_to_mathml(tex)
    assert fragment in mathml
    assert "href" not in mathml.replace(tex.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"), "")
    assert "style=" not in mathml


@pytest.mark.parametrize("tex", [r"\href{javascript:alert(1)}{x}", r"\style{background:url(http://example.com)}{y}",
                                 r"\class{evil}{x}", r"\rule{300em}{300em}", r"\def\a{xx}\a", r"\color{red}{x}"])
def test_links_styles_classes_sizes_and_macros_are_refused(tex):
    with pytest.raises(InputError, match="is not a command formulas may use"):
        tex_to_mathml(tex)
