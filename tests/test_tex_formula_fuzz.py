"""Every formula a Beamer deck typesets, pdflatex sets (issue 39): random formulas over the allowed commands,
environments and characters; those `beamer.safe_formula` admits are compiled in the deck's own preamble with
-halt-on-error (any other is shown as text). Before this, about one in a hundred admitted ones stopped pdflatex:
`\\bigr {`, `\\sqrt '`, `x^\\sum`, `\\text \\tau`, `x^{a}_{b}'`, `\\\\[\\_`, `\\lt`, `\\xmapsto`."""

import random
import subprocess

import pytest
from clirun import run_cli

from attnviz.publish.deck.beamer import _formula, safe_formula
from attnviz.publish.mathml import TEX_COMMANDS, TEX_ENVIRONMENTS

STOPPED = [r"\big \begin{Bmatrix}x\end{Bmatrix}", r"\bigr {x}", r"\sqrt '", r"x^\sum", r"x\limits", r"\frac ^ 2",
           r"\overset ^ a", r"\text \tau", r"\textbf \Re", r"x^{a}_{b}'", r"\begin{Vmatrix}1 \\[\_ 2\end{Vmatrix}",
           r"{\_\text{a--b}\mathtt }",
           r"\int )\limits", r"x \mod }", r"\begin{matrix}1\\*[<\end{matrix}"]
SET = [r"\lt 1 \gt", r"\xmapsto{a}", r"\frac12 + \hat\alpha^{2}", r"\sum\limits_{i} x_i'", r"x_{a}'", r"x'^{a}",
       r"\left< a \middle| b \right>", r"\begin{matrix}1 \\[2pt] 2\end{matrix}", r"\bigl( x \bigr)"]
ATOMS = list("x1+=()[]<>|',.;!?*/- ~\"`@")


@pytest.mark.parametrize("formula", STOPPED)
def test_a_formula_pdflatex_stops_at_is_text_in_beamer(formula):
    assert safe_formula(formula) is None


def _generate(rnd, depth=0):
    commands, environments = sorted(TEX_COMMANDS - {"begin", "end"}), sorted(TEX_ENVIRONMENTS)
    out = []
    for _ in range(rnd.randint(1, 6)):
        r = rnd.random()
        if r < 0.35:
            out.append(rnd.choice(ATOMS))
        elif r < 0.65:
            out.append("\\" + rnd.choice(commands) + " " * (rnd.random() < 0.5))
        elif r < 0.75 and depth < 3:
            out.append("{" + _generate(rnd, depth + 1) + "}")
        elif r < 0.82:
            out.append(rnd.choice("^_") + ("{" + _generate(rnd, depth + 1) + "}" if depth < 3 else "2"))
        elif r < 0.88 and depth < 3:
            name = rnd.choice(environments)
            columns = "{" + rnd.choice(["c", "cc", "l|r", "*{2}{c}"]) + "}" if name == "array" else ""
            out.append(rf"\begin{{{name}}}{columns}" + _generate(rnd, depth + 1) + rnd.choice(["&", r"\\", ""])
                       + _generate(rnd, depth + 1) + rf"\end{{{name}}}")
        elif r < 0.93:
            out.append(rnd.choice(["&", r"\\", r"\,", r"\{", r"\}", r"\_", r"\%", "\\ ", r"\;", r"\|", r"\\[3pt]"]))
        else:
            out.append(r"\text{" + rnd.choice(["a b", "x_1", "<b>", "a--b", r"\quad c", r"\alpha"]) + "}")
    return "".join(out)


def _compile(tmp_path, formulas):
    assert run_cli("slides", "--q", "1", "--k", "1", "-f", "beamer", "-o", str(tmp_path / "seed.tex")).code == 0
    preamble = (tmp_path / "seed.tex").read_text(encoding="utf-8").split(r"\begin{document}")[0]
    frames = "".join(r"\begin{frame}{T}\begin{columns}\begin{column}{5cm}\raggedright\small x" + _formula(f)
                     + "\\end{column}\\end{columns}\\end{frame}\n" for f in formulas)
    (tmp_path / "fuzz.tex").write_text(preamble + "\\begin{document}\n" + frames + "\\end{document}\n",
                                       encoding="utf-8")
    run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", "fuzz.tex"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stdout[-2500:]


def test_formulas_pdflatex_sets_are_typeset(tmp_path):
    assert all(safe_formula(f) == f for f in SET)
    _compile(tmp_path, SET)


@pytest.mark.parametrize("seed", [2, 5])
def test_every_random_formula_beamer_admits_compiles(tmp_path, seed):
    rnd = random.Random(seed)
    admitted = []
    while len(admitted) < 300:
        formula = _generate(rnd)
        if safe_formula(formula):
            admitted.append(formula)
    _compile(tmp_path, admitted)
