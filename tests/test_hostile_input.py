"""Hostile input: each class of attack ends in exit 2, one line naming the limit, no file touched, and is
refused by counting (digits, parts, characters) before the costly work, not by a clock."""

import importlib

import attnviz.engine.attention
import attnviz.render.raster
import attnviz.words.budget

import pytest
from clirun import run_cli
from conftest import terminal_signals

NINES = "9" * 5000
FIGURE_MODULE = importlib.import_module("attnviz.figures.api")  # `attnviz.figure` is also the function
LAYOUT_MODULE = importlib.import_module("attnviz.figures.figure")  # where Figure.layout finds lay_out


def refused(tmp_path, *args, stdin=b"", spec=None, name="spec.toml"):
    """Run the command in an empty folder (with `spec` written to `name`); returns its one error line."""
    if spec is not None:
        (tmp_path / name).write_text(spec, encoding="utf-8")
    before = sorted(tmp_path.rglob("*"))
    result = run_cli(*args, stdin=stdin)
    assert result.code == 2, result
    assert result.stdout == "" and len(result.stderr.splitlines()) == 1, result.stderr
    assert result.stderr.startswith("attnviz: error: ")
    assert sorted(tmp_path.rglob("*")) == before  # nothing written, nothing left behind
    return result.stderr.removeprefix("attnviz: error: ").rstrip("\n")


# --- Parsing: screened before the parser reads it ---------------------------------------------------

PARSING = [
    ("q = [[1]]\nk = [[1]]\n" + "a." * 40_000 + "a = 1\n", "spec.toml:3: a dotted key of more than 8 parts"),
    ("[" + "a." * 40_000 + "a]\nb = 1\n", "spec.toml:1: a dotted key of more than 8 parts"),
    ("x = {" + "a." * 40_000 + "a = 1}\n", "spec.toml:1: a dotted key of more than 8 parts"),
    ('"a".' * 40_000 + '"a" = 1\n', "spec.toml:1: a dotted key of more than 8 parts"),
    ("x = " + "[" * 50_000, "spec.toml: lists or tables nested more than 16 deep; the limit is 16"),
    ("q = [[" + NINES + "]]\nk = [[1]]\n", "spec.toml:1: a number of 5,000 characters or more; numbers are limited "
                                           "to 40 digits"),
    ("a" * 900_000 + " = 1\n", "spec.toml:1: a key of 900,000 characters; the limit is 100"),
]


@pytest.mark.parametrize("spec, message", PARSING, ids=["dotted", "header", "inline", "quoted", "nested", "integer",
                                                        "key"])
@pytest.mark.parametrize("command", ["render", "page", "walkthrough"])
def test_specs_are_screened_before_parsing(tmp_path, monkeypatch, spec, message, command):
    import tomllib

    monkeypatch.chdir(tmp_path)
    parsed = []
    monkeypatch.setattr(tomllib, "loads", lambda *a, **k: parsed.append(1) or {})
    error = refused(tmp_path, command, "spec.toml", "-o", "out", spec=spec)
    assert message in error
    assert parsed == []  # the parser never saw it


def test_a_float_of_an_absurd_exponent_is_refused_as_the_parser_reads_it(tmp_path, monkeypatch):
    """Decimal cannot hold 1e<5,000 digits> (decimal.InvalidOperation): the parser's float hook refuses it."""
    monkeypatch.chdir(tmp_path)
    error = refused(tmp_path, "render", "spec.toml", "-o", "x.svg", spec="q = [[1e" + NINES + "]]\nk = [[1]]\n")
    assert error.startswith("spec.toml: '1e999") and "out of range: a number of more than 10^4999 digits" in error


def test_a_spec_in_a_string_or_comment_may_hold_anything(tmp_path):
    from attnviz.io.spec import parse_spec

    text = 'q = [[1]]  # a.b.c.d.e.f.g.h.i.j [[[[[[[[[[[[[[[[[[\ntitle = "a.b.c.d.e.f.g.h.i.j.k ' + "9" * 2000 + '"\n'
    assert parse_spec(text)["title"].startswith("a.b.c")


@pytest.mark.parametrize("spec, message", [
    ('{"q": [[1]], "k": [[1]], "q": [[2]]}', "spec.json: key 'q' is given twice in one object; give it once"),
    ('{"q": [[1]], "k": [[1]], "mask": {"x": 1, "x": 2}}', "spec.json: key 'x' is given twice in one object"),
    ('{"q": [[' + NINES + ']], "k": [[1]]}', "spec.json: a number of 5,000 digits; numbers are limited to 40 digits"),
    ('{"q": [[1e' + NINES + ']], "k": [[1]]}', "is out of range: a number of more than 10^4999 digits exactly"),
])
def test_json_duplicate_keys_and_absurd_numbers_are_refused(tmp_path, monkeypatch, spec, message):
    monkeypatch.chdir(tmp_path)
    assert message in refused(tmp_path, "render", "spec.json", "-o", "x.svg", spec=spec, name="spec.json")


# --- Numbers, exponents and indices: digits counted, never int() of thousands of digits -----------------

@pytest.mark.parametrize("args, message", [
    (["--highlight", f"{NINES},1"], "--highlight '999999999999999999999999999999999999999…: a row number of "
                                    "5,000 digits is outside the grid (rows 1..3)"),
    (["--highlight", f"row={NINES}"], "a row number of 5,000 digits is outside the grid"),
    (["--highlight", f"1,{NINES}"], "a column number of 5,000 digits is outside the grid"),
    (["--highlight", "１,１"], "--highlight '１,１': expected I,J, row=I, mask"),
    (["--highlight", "row=３"], "--highlight 'row=３': expected I,J, row=I, mask"),
    (["--q", "1,1", "--k", "1,1", "--scale", f"1e{NINES}"], "--scale: expected \"sqrt\" or an exact number like 1/8; "
                                                            "'1e9999999999999999999999999999999999999"),
    (["--q", f"1e-{NINES}", "--k", "1"], "is out of range: a number of more than 10^4999 digits exactly"),
    (["--q", "1" + "0" * 5000, "--k", "1"], "is a number of about 5,001 digits exactly; the limit is 40"),
    (["--q", f"1/{NINES}", "--k", "1"], "has 5,000 digits; the limit is 40"),
    (["--png-scale", "0.0005", "-o", "x.png"], "--png-scale: 0.0005 is out of range; use a scale from 0.25 to 25"),
    (["--dpi", "0.5", "-o", "x.png"], "--dpi: 0.5 is out of range; use a DPI from 24 to 2400"),
])
def test_numbers_and_indices_are_refused_by_their_digits(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    assert message in refused(tmp_path, "render", *args, *([] if "-o" in args else ["-o", "x.svg"]))


@pytest.mark.parametrize("args, message", [
    (["render", "--view", "mask", "--n", NINES], "argument --n: expected a whole number, got"),
    (["render", "--view", "mask", "--n", "3", "--highlight", f"{NINES},1"], "a row number of 5,000 digits is "
                                                                             "outside the grid (rows 1..3)"),
    (["walkthrough", "--decode", NINES], "--decode: expected a whole number of prompt tokens, at least 1"),
    (["walkthrough", "--decode", "３"], "--decode: expected a whole number of prompt tokens, at least 1, got '３'"),
    (["walkthrough", "--flash", f"{NINES},1"], "--flash: expected two block sizes Br,Bc like 2,2"),
])
def test_every_count_and_index_is_refused_by_its_digits(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    assert message in refused(tmp_path, *args, "-o", "out")


def test_a_number_typed_with_thousands_of_zeros_is_its_exact_value(tmp_path):
    result = run_cli("render", "--q", "0" * 5000 + "1", "--k", "1." + "0" * 5000, "-o", "-")
    assert result.code == 0 and "Q1=(1)" in result.stdout


# --- Formulas ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("formula, message", [
    (r"\def\a{xxxxxxxxxx}\def\b{\a\a\a\a\a\a\a\a\a\a}\b\b\b", r"\def is not a command formulas may use"),
    (r"\rule{300em}{300em}", r"\rule is not a command formulas may use"),
    (r"\class{attnviz-computed}{x}", r"\class is not a command formulas may use"),
    (r"\href{javascript:alert(1)}{x}", r"\href is not a command formulas may use"),
    (r"\hspace{300em}", r"\hspace is not a command formulas may use"),
    (r"\begin{verbatim}x\end{verbatim}", "the environment 'verbatim' is not one formulas may use"),
    ("x+" * 2001, "a formula of 4,002 characters; the limit is 4,000"),
])
def test_formulas_are_restricted_before_they_are_typeset(tmp_path, monkeypatch, formula, message):
    import latex2mathml.converter

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(latex2mathml.converter, "convert_to_element", lambda *a, **k: pytest.fail("typeset"))
    spec = ("heading = 'h'\n[figure]\nq = [[1]]\nk = [[1]]\n[[sections]]\nheading = 's'\n"
            f"formula = '''{formula}'''\n")
    error = refused(tmp_path, "page", "spec.toml", "-o", "out", spec=spec)
    assert error.startswith("spec.toml: section 1: formula: ") and message in error


def test_arrows_are_characters_not_character_references():
    from attnviz.publish.mathml import tex_to_mathml

    for tex in (r"a \to b", r"\xrightarrow{f}", r"\mapsto", r"\xmapsto{x}"):
        mathml = tex_to_mathml(tex)
        assert "&#" not in mathml.replace(tex.replace("&", "&amp;"), ""), mathml
    assert "<mo>→</mo>" in tex_to_mathml(r"\xrightarrow{f}")
    # Text typed in \text{} stays as typed, even when it looks like a reference.
    assert "<mtext>&amp;#x2192;</mtext>" in tex_to_mathml(r"\text{&#x2192;}")


def test_the_docs_list_exactly_the_commands_formulas_may_use():
    import re
    from pathlib import Path

    from attnviz.publish.mathml import TEX_COMMANDS

    page = (Path(__file__).parent.parent / "docs" / "pages-and-walkthroughs.rst").read_text(encoding="utf-8")
    listed = re.search(r"\.\. tex-commands:.*?\n(.*?)\n\.\. /tex-commands", page, re.S)[1]
    assert set(re.findall(r"`\\(\w+)`", listed)) == TEX_COMMANDS


# --- Budgets: estimated before layout, drawing or writing --------------------------------------------

def _grid(n, dim=4):
    return "; ".join(",".join(str((i * 7 + t * 3) % 5 - 2) for t in range(dim)) for i in range(n))


@pytest.fixture
def no_layout(monkeypatch):
    """Make any layout (or drawing) fail the test: a refusal must come before them."""
    import attnviz.render.raster

    monkeypatch.setattr(LAYOUT_MODULE, "lay_out", lambda *a: pytest.fail("layout was made"))
    monkeypatch.setattr(attnviz.render.raster, "_cairosvg", lambda: pytest.fail("Cairo was called"))


def test_a_page_of_many_large_figures_is_refused_after_building_one(tmp_path, monkeypatch, no_layout):
    """200 sections of a 64x64 figure wrote 1.3 GB in 1 min 45 s; now one figure is built, then the page refused."""
    built = []
    real = FIGURE_MODULE.figure
    monkeypatch.setattr(FIGURE_MODULE, "figure", lambda *a, **k: built.append(1) or real(*a, **k))
    monkeypatch.chdir(tmp_path)
    vectors = "[" + ", ".join("[" + ", ".join(str((i + t) % 5 - 2) for t in range(4)) + "]" for i in range(64)) + "]"
    spec = (f"heading = 'h'\n[figure]\nq = {vectors}\nk = {vectors}\n"
            + "[[sections]]\nheading = 's'\nhighlight = [1, 1]\n" * 200)
    error = refused(tmp_path, "page", "spec.toml", "-o", "out", spec=spec)
    assert error.startswith("spec.toml: the page would be about ")
    assert "past the budget of 24,000,000 per page: use fewer sections" in error
    assert built == [1]


def test_a_walkthrough_over_its_budget_is_refused_before_any_step_is_drawn(tmp_path, monkeypatch, no_layout):
    monkeypatch.chdir(tmp_path)
    q = "; ".join(",".join(str(10**39 + 7 * i + t) for t in range(24)) for i in range(10))
    error = refused(tmp_path, "walkthrough", "--q", q, "--k", q, "-o", "walk")
    assert error.startswith("walkthrough: the ") and "past the budget of" in error


def test_a_figure_over_its_budget_is_refused_before_layout(tmp_path, monkeypatch, no_layout):

    monkeypatch.setattr(attnviz.words.budget, "FIGURE_CHARS", 100_000)  # the mechanism, on a figure of ~160,000
    monkeypatch.chdir(tmp_path)
    error = refused(tmp_path, "render", "--q", _grid(16), "--k", _grid(16), "-o", "x.svg")
    assert error.startswith("figure: the figure would be about ")
    assert "past the budget of 100,000 per figure: write each row's softmax sum once (--softmax normalizer), " \
           "show part of the grid (--elide), draw the mask alone (--view mask)" in error


@pytest.mark.parametrize("fmt, message", [
    ("png", "--png-scale: the PNG would be 5,595x26,400 pixels, past the budget of 25,000,000 pixels: lower the scale"),
    ("pdf", "-f: the PDF page would be 4,197x19,800 points, past 14,400 a side, the largest page PDF readers open"),
])
def test_images_over_their_pixel_budget_are_refused_before_drawing(tmp_path, monkeypatch, fmt, message):
    import attnviz.render.raster

    monkeypatch.setattr(attnviz.render.raster, "_cairosvg", lambda: pytest.fail("Cairo was called"))
    monkeypatch.chdir(tmp_path)
    scale = ["--png-scale", "1"] if fmt == "png" else []
    error = refused(tmp_path, "render", "--q", _grid(64), "--k", _grid(64), *scale, "-o", f"x.{fmt}")
    assert error.startswith(message)


def test_a_png_wider_than_cairo_draws_names_the_flag(tmp_path, monkeypatch):
    import attnviz.render.raster

    monkeypatch.setattr(attnviz.render.raster, "_cairosvg", lambda: pytest.fail("Cairo was called"))
    monkeypatch.chdir(tmp_path)
    error = refused(tmp_path, "render", "--q", _grid(16), "--k", _grid(16), "--dpi", "2000", "-o", "x.png")
    assert error.startswith("--dpi: the PNG would be ") and "past 32,767 a side, the most Cairo can draw" in error


def test_scores_that_could_outgrow_the_digit_limit_are_refused_before_any_is_summed(tmp_path, monkeypatch):
    """64 dimensions of 40-digit fractions over unrelated denominators: minutes of arithmetic, then a crash."""
    import attnviz.engine.attention

    monkeypatch.setattr(attnviz.engine.attention, "score_matrix", lambda *a: pytest.fail("scores were computed"))
    monkeypatch.chdir(tmp_path)
    q = "; ".join(",".join(f"{10**39 + i}/{10**39 + 7 * t + 3 * i + 1}" for t in range(64)) for i in range(64))
    error = refused(tmp_path, "render", "--q", q, "--k", q, "-o", "x.svg")
    assert error.startswith("--q and --k: scores could need ") and "past the limit of 200 digits per value" in error


def test_outputs_and_logits_are_bounded_too(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    v = "; ".join(f"{10**39 + 1}/{10**39 + 7 * i + 1}" for i in range(64))
    error = refused(tmp_path, "render", "--q", "; ".join(["1"] * 64), "--k", "; ".join(["1"] * 64), "--v", v,
                    "-o", "x.svg")
    assert error.startswith("--v: outputs could need ") and "past the limit of 200 digits per value" in error
    biases = [arg for n in range(6) for arg in ("--bias", f"matrix={10**39 + n}/{10**39 - 7 * n - 1}")]
    error = refused(tmp_path, "render", "--q", "1", "--k", "1", "--scale", f"{10**39 + 3}/{10**39 - 3}", *biases,
                    "-o", "x.svg")
    assert error.startswith("--bias: a logit of ") and "past the limit of 200 digits per value" in error


def test_the_default_gallery_and_documented_figures_stay_far_inside_the_budgets():
    import attnviz
    from attnviz.words.budget import FIGURE_CHARS, PAGE_CHARS, PNG_PIXELS, drawable_chars, figure_chars
    from attnviz.publish.document import build_figures, default_document
    from attnviz.publish.gallery import ENTRIES, make
    from attnviz.publish.page import page_files
    from attnviz.publish.walkthrough.scores import walkthrough

    figures = [attnviz.figure(highlight=[(3, 3)])] + [make(entry) for entry in ENTRIES]
    for fig in figures:
        # ~30,000 of 8,000,000 (a composed figure: all panels); the 512-token map ~270,000 (it writes ~80,000)
        assert drawable_chars(fig) < FIGURE_CHARS / (20 if "512" in fig.layout().title else 100)
        layout = fig.layout()
        panels = len(getattr(fig, "panels", ())) or 1  # a composed figure: each of its panels far inside
        assert layout.width * layout.height * 2**2 < PNG_PIXELS / 5 * panels  # at the default scale 2
    # The 1,024-token views (a mask map, an elided figure) are small by design: far inside too.
    for big in (attnviz.figure(n=1024, view="mask", mask="window=3"),
                attnviz.figure(*[[[(i * a) % 5 - 2, 1] for i in range(1024)] for a in (1, 2)], elide=True)):
        assert figure_chars(big.words) < FIGURE_CHARS / 10
    document = default_document()
    for doc, figs in [(document, build_figures(document)), walkthrough(figures[0])]:
        assert sum(map(len, page_files(doc, figs, "out").values())) < PAGE_CHARS / 100


# --- Standard output, signals and concurrent runs --------------------------------------------------------

def _attnviz(*args, **kwargs):
    import subprocess
    import sys

    streams = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, **kwargs}
    return subprocess.run([sys.executable, "-m", "attnviz", *args], **streams)


def test_standard_output_is_utf8_whatever_the_locale(tmp_path):
    import os

    env = {**os.environ, "PYTHONIOENCODING": "latin-1", "LC_ALL": "C", "PYTHONUTF8": "0"}
    spec = tmp_path / "spec.toml"
    spec.write_text('q = [[1, 1]]\nk = [[1, 1]]\nscale = "sqrt"\ntitle = "é √"\n', encoding="utf-8")
    done = _attnviz("render", str(spec), "-o", "-", env=env)
    assert done.returncode == 0 and "√".encode() in done.stdout and "é √".encode() in done.stdout
    done = _attnviz("render", "-o", str(tmp_path / "fig√.svg"), env=env)
    assert done.returncode == 0 and done.stdout == f"{tmp_path}/fig√.svg\n".encode()


@pytest.mark.parametrize("args, message", [
    (["render", "-o", "-"], "attnviz: error: standard output: cannot write: No space left on device\n"),
    (["css"], "attnviz: error: standard output: cannot write: No space left on device\n"),
    (["--version"], "attnviz: error: standard output: cannot write: No space left on device\n"),
    (["page", "-o", "PAGE"], "attnviz: error: standard output: cannot write: No space left on device; written: "
                             "PAGE/index.html and 3 more files\n"),
])
def test_a_full_standard_output_is_one_line_and_status_2(tmp_path, args, message):
    args = [str(tmp_path / "page") if arg == "PAGE" else arg for arg in args]
    with open("/dev/full", "wb") as full:
        done = _attnviz(*args, stdout=full)
    assert (done.returncode, done.stderr.decode()) == (2, message.replace("PAGE", str(tmp_path / "page")))


def test_a_closed_standard_output_is_one_line_and_status_2():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "attnviz", "render", "-o", "-"], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, preexec_fn=lambda: __import__("os").close(1))
    assert (done.returncode, done.stderr) == (2, b"attnviz: error: standard output: closed; give a file with -o PATH\n")


def test_dev_stdout_on_a_pipe_is_written_to():
    done = _attnviz("render", "-o", "/dev/stdout")
    # the figure alone: its path is not echoed into its own stream
    assert done.returncode == 0 and done.stdout.startswith(b"<svg ") and done.stdout.endswith(b"</svg>\n")


STOP_MID_WRITE = r"""
import os, signal, sys
import attnviz.figures.files as output
from attnviz.cli.commands import main

real = output._open

def stopping(fd, text):  # the signal arrives while the file is being written
    handle = real(fd, text)
    write = handle.write
    def write_then_stop(data):
        write(data[: len(data) // 2])
        os.kill(os.getpid(), getattr(signal, sys.argv[1]))
        write(data[len(data) // 2 :])
    handle.write = write_then_stop
    return handle

output._open = stopping
sys.exit(main(sys.argv[2:]))
"""


@pytest.mark.parametrize("signame, code", [("SIGTERM", 143), ("SIGHUP", 129), ("SIGINT", 130)])
def test_a_signal_while_writing_leaves_the_old_file_and_no_temporary(tmp_path, signame, code):
    import subprocess
    import sys

    old = tmp_path / "fig.svg"
    old.write_text("old figure", encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", STOP_MID_WRITE, signame, "render", "-o", str(old)],
                          capture_output=True, preexec_fn=terminal_signals)  # even under nohup
    assert done.returncode == code and done.stderr == b""
    assert old.read_text(encoding="utf-8") == "old figure" and sorted(tmp_path.iterdir()) == [old]
    # A page into a new folder: the folders made for it are gone again, since nothing was written.
    done = subprocess.run([sys.executable, "-c", STOP_MID_WRITE, signame, "page", "-o", str(tmp_path / "new/site")],
                          capture_output=True, preexec_fn=terminal_signals)
    assert done.returncode == code and sorted(tmp_path.iterdir()) == [old]


def test_a_failed_write_removes_the_folders_it_made(tmp_path, monkeypatch):
    import attnviz.figures.files as output

    def full(fd, text):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(output, "_open", full)
    result = run_cli("page", "-o", str(tmp_path / "a/b/site"))
    assert result.code == 2 and "cannot write" in result.stderr and list(tmp_path.iterdir()) == []


def test_two_runs_into_one_folder_take_turns_and_the_second_says_so(tmp_path):
    """The first run holds the folder's lock (here, the test holds it); the second waits, says so, then writes."""
    import fcntl
    import os
    import subprocess
    import sys
    import time

    site = tmp_path / "site"
    site.mkdir()
    holder = os.open(site, os.O_RDONLY)
    fcntl.flock(holder, fcntl.LOCK_EX)
    second = subprocess.Popen([sys.executable, "-m", "attnviz", "page", "-o", str(site)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    line = b""
    while not line and time.monotonic() < deadline:  # wait until it is waiting: it says so first
        line = second.stderr.readline()
    assert line == f"attnviz: waiting: another attnviz is writing into {site}\n".encode()
    assert list(site.iterdir()) == []  # nothing written while the first holds the folder
    os.close(holder)  # the first run is done
    out, err = second.communicate(timeout=120)
    assert second.returncode == 0 and err == b"" and (site / "index.html").is_file()
    assert len(list((site / "steps").iterdir())) == 3
