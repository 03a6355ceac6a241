"""User text cannot command TeX: labels, titles, headings and paragraphs full of TeX specials and
primitives go through the Beamer and TikZ backends, are compiled by the real pdflatex (also with
-shell-escape, in a temporary folder), read no file and write none but the job's own, and come out
as the text that was typed (pdftotext).

User text keeps its type from the words stage to the backend (`words.user_text`), which escapes it
unconditionally; the notation parser also admits no backslash, brace or `^^` in a subscript."""

import re
import subprocess

import pytest
from clirun import run_cli

# pdflatex and pdftotext come from tools/install-system-deps.sh (make test runs it): a missing one fails here.

HOSTILE = [
    r"x_{\input/etc/hostname\relax}",
    r"y_{\openin5=/etc/passwd}",
    r"z_{\immediate\write18{touch pwned}}",
    r"\catcode`\^=7",
    r"^^5cinput{/etc/hostname}",
    r"a_{50%}",
    r"}{\end{document}",
    r"?`!`''--",
    r"\openout3=leak.txt\write3{x}",
    r"$x$&#~",
]


def _compile(folder, tex, shell_escape=False):
    command = ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "-recorder"]
    command += ["-shell-escape"] if shell_escape else ["-no-shell-escape"]
    run = subprocess.run([*command, tex], cwd=folder, capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stdout[-2000:]
    return (folder / tex).with_suffix(".fls").read_text(encoding="utf-8", errors="replace")


def _files_touched(fls, folder, job):
    """What the run read outside TeX Live and wrote besides the job's own files."""
    read, wrote = set(), set()
    own = {f"{job}.{ext}" for ext in ("tex", "aux", "nav", "out", "toc", "snm", "vrb")}
    for line in fls.splitlines():
        kind, _, path = line.partition(" ")
        name = path.rsplit("/", 1)[-1]
        # TeX Live's own trees, and its cache of fonts METAFONT made (texmf-var), are TeX's, not a user's files
        tex_live = path.startswith(("/usr/share/", "/var/lib/texmf", "/etc/texmf", "/usr/lib/"))
        tex_live = tex_live or "/texmf-var/" in path
        if kind == "INPUT" and not tex_live and name not in own:
            read.add(path)
        elif kind == "OUTPUT" and not name.startswith(job + "."):
            wrote.add(path)
    return read, wrote


def _text(pdf):
    out = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    return re.sub(r"\s+", "", out)


def _visible(label):
    """What pdftotext reads back of a label: OT1 typewriter type has every ASCII glyph, but pdftotext
    reads the underscore's glyph as a space, and TeX's ligatures do not apply to escaped text."""
    return re.sub(r"\s+", "", label.replace("_", ""))


@pytest.mark.parametrize("shell_escape", [False, True], ids=["default", "shell-escape"])
def test_hostile_labels_and_titles_are_typeset_as_text_in_beamer(tmp_path, shell_escape):
    tokens = " ".join(label.replace(" ", "") for label in HOSTILE[:3])
    title = HOSTILE[3] + " " + HOSTILE[8]
    result = run_cli("slides", "-f", "beamer", "--tokens", tokens, "--title", title, "-o", str(tmp_path / "deck.tex"))
    assert result.code == 0, result.stderr
    fls = _compile(tmp_path, "deck.tex", shell_escape)
    read, wrote = _files_touched(fls, tmp_path, "deck")
    assert not read and not wrote, (read, wrote)
    assert not (tmp_path / "pwned").exists() and not (tmp_path / "leak.txt").exists()
    text = _text(tmp_path / "deck.pdf").replace("\\", "")
    # The grid's headers shorten a long label to its first characters and … (`words.short_labels`; whole in
    # the notes and the description): what is drawn is the label's text, literally. The title is drawn whole.
    for label in HOSTILE[:3]:
        assert _visible(label[:8]).replace("\\", "") in text, label
    assert _visible(HOSTILE[8]).replace("\\", "") in text


def test_hostile_document_text_in_beamer_and_tikz(tmp_path):
    spec = tmp_path / "doc.toml"
    fields = {"title": HOSTILE[4], "heading": HOSTILE[6], "intro": HOSTILE[7], "legend": HOSTILE[9]}
    body = "".join(f"{key} = {_toml(value)}\n" for key, value in fields.items())
    body += '[figure]\nq = [[1, 0], [0, 1]]\nk = [[1, 0], [0, 1]]\n'
    for n, label in enumerate(HOSTILE):
        body += f'[[sections]]\nheading = {_toml(label)}\nparagraph = {_toml("see " + label + " here")}\n' \
                f'highlight = [{1 + n % 2}, 1]\n'
    spec.write_text(body, encoding="utf-8")
    for fmt, name in (("beamer", "deck.tex"), ("tikz", "pictures.tex")):
        result = run_cli("slides", str(spec), "-f", fmt, "-o", str(tmp_path / name))
        assert result.code == 0, result.stderr
    (tmp_path / "paper.tex").write_text(
        "\\documentclass{article}\\usepackage{tikz}\\usepackage{amsmath}\\usepackage{graphicx}\n"
        "\\begin{document}\n\\input{pictures.tex}\n\\end{document}\n", encoding="utf-8")
    for job in ("deck", "paper"):
        fls = _compile(tmp_path, f"{job}.tex")
        read, wrote = _files_touched(fls, tmp_path, job)
        read.discard("./pictures.tex")
        read = {p for p in read if not p.endswith("pictures.tex")}
        assert not read and not wrote, (job, read, wrote)
    text = _text(tmp_path / "deck.pdf").replace("\\", "")
    # The grid's headers shorten a long label to its first characters and … (`words.short_labels`; whole in
    # the notes and the description): what is drawn is the label's text, literally. The title is drawn whole.
    for label in HOSTILE[:3]:
        assert _visible(label[:8]).replace("\\", "") in text, label
    assert _visible(HOSTILE[8]).replace("\\", "") in text


def _toml(text):
    return "'''" + text + "'''" if "'''" not in text and "\n" not in text else repr(text)


def test_a_documents_paragraph_is_text_and_attnvizs_own_sentence_is_typeset(tmp_path):
    """By type, not by content: `S_{1,1} = 1/2` typed by a user stays text; the walkthrough's own
    `S_{1,1} = Q1·K1 = ...` is typeset as math; a label inside attnviz's sentence stays text."""
    spec = tmp_path / "doc.toml"
    spec.write_text('heading = "H"\n[figure]\nq = [[1, 0], [0, 1]]\nk = [[1, 0], [0, 1]]\n'
                    '[[sections]]\nheading = "S"\nparagraph = "The score S_{1,1} = 1/2 is exact."\n'
                    'highlight = [1, 1]\n', encoding="utf-8")
    assert run_cli("slides", str(spec), "-f", "beamer", "-o", str(tmp_path / "doc.tex")).code == 0
    document = (tmp_path / "doc.tex").read_text(encoding="utf-8")
    assert r"The score S\_\{1,1\} = 1/2 is exact." in document and "$S_{1,1}" not in document
    assert run_cli("slides", "-f", "beamer", "--tokens", "x_1 b c", "-o", str(tmp_path / "walk.tex")).code == 0
    walk = (tmp_path / "walk.tex").read_text(encoding="utf-8")
    assert r"(``x\_1'' and ``x\_1'') is their dot product: $\displaystyle S_{1,1} = Q_{1} \cdot K_{1}" in walk


@pytest.mark.parametrize(("formula", "message"), [
    (r"x^^5cinput{/etc/hostname}", "^^ is not allowed in a formula"),
    (r"\begin{array}{@{\input{/etc/hostname}}c} x \end{array}", r"\input is not a command"),
    (r"\begin{array}{p{300cm}} x \end{array}", "an array's columns may be l, c, r and |"),
    (r"\begin{array}{c@{}c} 1 & 2 \end{array}", "an array's columns may be l, c, r and |"),
    (r"x \end{frame} \begin{frame}", "the environment 'frame' is not one formulas may use"),
    (r"x % }}}", "% starts a TeX comment"),
])
def test_a_formula_cannot_reach_past_its_allow_list(tmp_path, formula, message):
    """A page refuses the formula in one line; a Beamer deck shows it as text (beamer.safe_formula), and
    pdflatex, compiling it, reads and writes nothing it was not asked to."""
    spec = tmp_path / "doc.toml"
    spec.write_text('heading = "H"\n[figure]\nq = [[1, 0], [0, 1]]\nk = [[1, 0], [0, 1]]\n'
                    f"[[sections]]\nheading = \"S\"\nformula = {_toml(formula)}\nhighlight = [1, 1]\n",
                    encoding="utf-8")
    page = run_cli("page", str(spec), "-o", str(tmp_path / "site"))
    assert page.code == 2 and len(page.stderr.splitlines()) == 1, page.stderr
    assert message in page.stderr and not (tmp_path / "site").exists()
    assert run_cli("slides", str(spec), "-f", "beamer", "-o", str(tmp_path / "deck.tex")).code == 0
    fls = _compile(tmp_path, "deck.tex", shell_escape=True)
    assert _files_touched(fls, tmp_path, "deck") == (set(), set())


def test_an_allowed_array_compiles(tmp_path):
    spec = tmp_path / "doc.toml"
    spec.write_text('heading = "H"\n[figure]\nq = [[1, 0], [0, 1]]\nk = [[1, 0], [0, 1]]\n'
                    "[[sections]]\nheading = \"S\"\nformula = '\\begin{array}{c|c} 50\\% & 2 \\end{array}'\n"
                    "highlight = [1, 1]\n", encoding="utf-8")
    assert run_cli("slides", str(spec), "-f", "beamer", "-o", str(tmp_path / "deck.tex")).code == 0
    fls = _compile(tmp_path, "deck.tex")
    assert _files_touched(fls, tmp_path, "deck") == (set(), set())
    assert "50%" in _text(tmp_path / "deck.pdf")
