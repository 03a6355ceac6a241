"""A user's text typed as written in TeX (issue 39): TeX's ligatures turn `?``, `!``, `''`, ```` `` ````, `--` and
(in T1) `,,` into ¿ ¡ ” “ – „; the title ``A ?` B !` C '' D `` `` printed as `A¿B¡C”D“`. Checked in the PDF
pdflatex makes, read back by pdftotext."""

import re
import subprocess

import pytest
from clirun import run_cli

from attnviz.render.tex_escape import escape

TYPED = "A ?` B !` C '' D `` E -- F --- G ,, H"


@pytest.mark.parametrize(("text", "tex"), [
    ("?`", "?{}`"), ("!`", "!{}`"), ("''", "'{}'"), ("``", "`{}`"), (",,", ",{},"), ("a--b", "a-{}-{}b"),
    ("?“", "?{}``"), ("`“", "`{}``"), ("–-", "--{}-{}"), ("’'", "'{}'"),
])
def test_generated_text_breaks_every_ligature_between_two_characters(text, tex):
    assert escape(text) == tex


def test_a_users_quotes_and_backquotes_are_typewriter_characters():
    assert escape("`'", straight=True) == r"{\ttfamily\char18}{\ttfamily\char13}"


def _pdf_text(folder, name):
    run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", name],
                         cwd=folder, capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stdout[-1500:]
    pdf = (folder / name).with_suffix(".pdf")
    return subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout


def _typed(text):
    """The text, a generated heading's curly quotes read as the characters they were typed as: no character
    of the text was joined to the next (a user's own text, in straight quotes, reads back as typed)."""
    return text.replace("‘", "`").replace("’", "'")


@pytest.mark.parametrize("title_page", [False, True])
def test_a_title_and_labels_print_as_typed_in_beamer(tmp_path, title_page):
    result = run_cli("slides", "-f", "beamer", "--tokens", "?` '' ,,", "--title", TYPED,
                     *(["--author", TYPED] if title_page else []), "-o", str(tmp_path / "deck.tex"))
    assert result.code == 0, result.stderr
    text = _pdf_text(tmp_path, "deck.tex")
    assert TYPED in _typed(text), text[:400]
    assert text.count(TYPED) >= 2 * title_page, text[:400]  # the title page's title and author: as typed
    assert "?`" in text and "''" in text and ",," in text  # the labels
    assert not re.search("[¿¡„–—]", text), text[:400]


def test_a_documents_title_and_heading_print_as_typed_in_beamer(tmp_path):
    spec = tmp_path / "doc.toml"
    spec.write_text(f'title = "{TYPED}"\nheading = "{TYPED}"\n[figure]\nq = [[1, 0], [0, 1]]\nk = [[1, 0], [0, 1]]\n'
                    f'[[sections]]\nheading = "{TYPED}"\nparagraph = "{TYPED}"\nhighlight = [1, 1]\n',
                    encoding="utf-8")
    result = run_cli("slides", str(spec), "-f", "beamer", "-o", str(tmp_path / "deck.tex"))
    assert result.code == 0, result.stderr
    text = _pdf_text(tmp_path, "deck.tex")
    assert _typed(text).count(TYPED) >= 2, text[:600]  # the slide's heading and its paragraph
    assert not re.search("[¿¡„–—]", text), text[:600]
