"""A formula's structure, checked before TeX reads it (issue 39): environments named in braces and closed
in order, alignment tabs and line breaks only where an environment takes them, no more columns than it
has, and an array's preamble bounded however its `*{n}{...}` repetitions nest. A formula past these is
refused in one line by a page and the deck formats that typeset MathML, and shown as text by a Beamer
deck, which pdflatex then compiles (in seconds: a nested array preamble ran past 60 s)."""

import subprocess

import pytest
from clirun import run_cli

from attnviz.errors import InputError
from attnviz.publish.deck.beamer import safe_formula
from attnviz.publish.mathml import check_tex

REFUSED = [
    (r"x \end{{frame}} y", r"\end takes an environment's name in braces"),
    (r"x \end {frame} y", "the environment 'frame' is not one formulas may use"),
    (r"x \end x", r"\end takes an environment's name in braces"),
    (r"\begin{ matrix} 1 \end{ matrix}", r"\begin takes an environment's name in braces"),
    (r"\begin{matrix} 1", r"\begin{matrix} is never closed"),
    (r"1 \end{matrix}", r"\end{matrix} closes no \begin{matrix}"),
    (r"\begin{matrix} 1 \end{cases}", r"\end{cases} closes no \begin{cases}"),
    (r"{\begin{matrix} 1} \end{matrix}", r"\begin{matrix} is never closed"),
    (r"\begin{array}{*{1000}{*{1000}{c}}} x \end{array}", "an array of 1,000,000 columns; the limit is 64"),
    (r"\begin{array}{*{65}{c}} x \end{array}", "an array of 65 columns; the limit is 64"),
    (r"\begin{array}{*{99999999999999999999999}{c}} x \end{array}", "an array of 99"),
    (r"\begin{array}{*{0}{c}} x \end{array}", "an array's columns may be l, c, r and |"),
    (r"\begin{array}{} x \end{array}", "an array's columns may be l, c, r and |"),
    (r"\begin{array}[t]{p{300cm}} x \end{array}", "an array's columns may be l, c, r and |"),
    (r"\begin{array}[t]{*{2}{p{300cm}}} x \end{array}", "an array's columns may be l, c, r and |"),
    (r"\begin{array} x \end{array}", "an array's columns may be l, c, r and |"),
    ("{" * 260 + "x" + "}" * 260, "a formula nested more than 32 deep"),  # TeX: grouping levels=255
    (r"\sqrt{" * 33 + "x" + "}" * 33, "a formula nested more than 32 deep"),
    (r"\left(" * 33 + "x" + r"\right)" * 33, "a formula nested more than 32 deep"),
    (r"\left( x", r"a \left has no \right"),
    (r"x \right)", r"a \right closes no \left"),
    (r"\left( {x \right)}", "a { is never closed"),
]
#: Cells TeX cannot set (MathML reads them as typed): text in a Beamer deck.
CELLS = [
    (r"\begin{array}{cc} 1 & 2 & 3 \end{array}", r"a row of 3 columns in \begin{array}, which has 2"),
    (r"\begin{matrix} " + "1&" * 64 + r"1 \end{matrix}", r"a row of 65 columns in \begin{matrix}, which has 64"),
    (r"\begin{cases} a & b & c \end{cases}", r"a row of 3 columns in \begin{cases}, which has 2"),
    (r"\begin{gathered} a & b \end{gathered}", r"a row of 2 columns in \begin{gathered}, which has 1"),
    (r"a & b", "& separates columns only directly inside an environment"),
    (r"\begin{matrix} {1 & 2} \end{matrix}", "& separates columns only directly inside an environment"),
    (r"x \\ y", r"\\ breaks lines only directly inside an environment"),
    (r"\text{a \\ b}", r"\\ breaks lines only directly inside an environment"),
]
WIDE_MATRIX = r"\begin{pmatrix} 1&2&3&4&5&6&7&8&9&10&11&12 \end{pmatrix}"  # a Beamer deck's MaxMatrixCols: 64
ALLOWED = [
    r"\begin{array}{*{3}{c}|c} 1 & 2 & 3 & 4 \end{array}",
    r"\begin{array}{c} 1 \\ 2 \end{array}",
    r"\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix} \begin{cases} 1 & x > 0 \\ 0 & \text{else} \end{cases}",
    r"\begin{aligned} a &= b & c &= d \\ e &= f \end{aligned}",
    r"\left( \begin{smallmatrix} 1&2&3&4&5&6&7&8&9&10&11&12 \end{smallmatrix} \right) \{ \}",
    r"\sqrt{" * 32 + "x" + "}" * 32,
    WIDE_MATRIX,
    "".join([r"\sqrt{\left(\begin{matrix}"] * 10) + "x" + "".join([r"\end{matrix}\right)}"] * 10),
]


@pytest.mark.parametrize(("formula", "message"), REFUSED)
def test_a_formula_that_would_break_tex_is_refused_in_one_line(formula, message):
    with pytest.raises(InputError) as caught:
        check_tex(formula)
    assert message in str(caught.value) and "\n" not in str(caught.value)
    assert safe_formula(formula) is None


@pytest.mark.parametrize(("formula", "message"), CELLS)
def test_a_cell_tex_cannot_set_is_text_in_beamer(formula, message):
    check_tex(formula)
    with pytest.raises(InputError) as caught:
        check_tex(formula, cells=True)
    assert message in str(caught.value) and "\n" not in str(caught.value)
    assert safe_formula(formula) is None


def test_an_arrays_position_is_read_before_its_columns():
    check_tex(r"\begin{array}[t]{*{2}{c}} 1 & 2 \end{array}")


@pytest.mark.parametrize("formula", ALLOWED)
def test_well_formed_environments_pass(formula):
    check_tex(formula)
    assert safe_formula(formula) == formula


@pytest.mark.parametrize("formula", [r"x^", r"\frac", r"a_b_c", r"\left( x", r"\middle| x"])
def test_a_formula_latex2mathml_cannot_read_is_text_in_beamer(formula):
    assert safe_formula(formula) is None


def _spec(tmp_path, formula):
    spec = tmp_path / "doc.toml"
    body = "'''" + formula + "'''"
    spec.write_text('heading = "H"\n[figure]\nq = [[1, 0], [0, 1]]\nk = [[1, 0], [0, 1]]\n'
                    f'[[sections]]\nheading = "S"\nformula = {body}\nhighlight = [1, 1]\n', encoding="utf-8")
    return spec


@pytest.mark.parametrize("formula", [REFUSED[0][0], REFUSED[8][0], REFUSED[16][0], CELLS[0][0], CELLS[-1][0], r"x^",
                                     WIDE_MATRIX])
def test_the_issues_formulas_are_refused_by_a_page_and_compile_as_text_in_beamer(tmp_path, formula):
    spec = _spec(tmp_path, formula)
    refusing = (["page", str(spec), "-o", str(tmp_path / "site")],
                ["slides", str(spec), "-f", "pptx", "-o", str(tmp_path / "deck.pptx")])
    for command in [] if formula in dict(CELLS) or formula in ALLOWED else refusing:  # a cell: text in Beamer only
        result = run_cli(*command)
        assert result.code == 2 and len(result.stderr.splitlines()) == 1, result.stderr
        assert result.stderr.startswith("attnviz: error: ")
    assert run_cli("slides", str(spec), "-f", "beamer", "-o", str(tmp_path / "deck.tex")).code == 0
    run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", "deck.tex"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stdout[-1500:]


#: Math inside `\text{...}`: MathML reads it; pdflatex, in text mode, stops ("Missing $ inserted").
TEXT_MATH = [r"\text{a_b}", r"\text{a^b}", r"\text{\frac12}", r"\text{\alpha}", r"\text{\sum}", r"\text{\to}",
             r"\text{\begin{matrix}1\end{matrix}}", r"\text{\|}", r"\text{\backslash}", r"\text{\not}",
             r"\text{\hat{x}}", r"\text{\mathrm{x}}", r"\textbf{\sqrt{x}}", r"\text{\textit{\vec x}}"]


@pytest.mark.parametrize("formula", TEXT_MATH)
def test_math_inside_text_is_text_in_beamer(formula):
    check_tex(formula)  # a page and a PowerPoint deck typeset it (MathML)
    assert safe_formula(formula) is None


def test_text_inside_a_formula_may_hold_text_commands_and_escapes():
    formula = r"x = \text{a \quad b, c\_d \{e\} 50\% \ldots \textit{f} \ g\,h} \mathrm{a_b}"
    assert safe_formula(formula) == formula


def test_math_inside_text_compiles_as_text_in_beamer(tmp_path):
    _spec(tmp_path, " ".join(TEXT_MATH[:6]))
    assert run_cli("slides", str(tmp_path / "doc.toml"), "-f", "beamer", "-o", str(tmp_path / "deck.tex")).code == 0
    run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", "deck.tex"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stdout[-1500:]
