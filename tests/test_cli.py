"""The command end to end, through a subprocess."""

import subprocess
from pathlib import Path
import sys

import pytest

import attnviz
from conftest import svg_text


def run(*args, cwd=None, stdin=None):
    return subprocess.run([sys.executable, "-m", "attnviz", *args], capture_output=True, text=True,
                          cwd=cwd, input=stdin)


def test_render_default_writes_the_seed_figure(tmp_path, seed_line):
    result = run("render", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "out/attention-honesty-boundary.svg"
    svg = (tmp_path / "out" / "attention-honesty-boundary.svg").read_text(encoding="utf-8")
    assert svg_text(svg) == seed_line
    assert svg == attnviz.figure(highlight=[(3, 3)]).svg() + "\n"


def test_render_to_stdout_with_negative_values():
    result = run("render", "--q", "-1,2; 1/2,0.5", "--k", "-1,1;-0.25,3", "--highlight", "2,2", "-o", "-")
    assert result.returncode == 0, result.stderr
    text = svg_text(result.stdout)
    assert "Q1=(-1,2); Q2=(1/2,1/2)" in text and "K2=(-1/4,3)" in text
    assert "row 2: scores [0,11/8]" in text  # 1/2·-1 + 1/2·1 = 0; 1/2·-1/4 + 1/2·3 = 11/8


def test_render_creates_folders(tmp_path):
    target = tmp_path / "a" / "b" / "fig.svg"
    result = run("render", "--q", "1;2", "--k", "3;4", "-o", str(target))
    assert result.returncode == 0 and result.stdout.strip() == str(target)
    assert "row 2: scores [6,8]" in svg_text(target.read_text(encoding="utf-8"))


@pytest.mark.parametrize("args, message", [
    (["render", "--q", "1,2"],
     "attnviz: error: --k: missing: --q gives the q vectors, so k is needed too"),
    (["render", "--q", "1,x", "--k", "1,2"],
     "attnviz: error: --q: vector 1: 'x' is not a number"),
    (["render", "--q", "1,2;3", "--k", "1,2"], "attnviz: error: --q: vector 2 has 1 entries but vector 1 has 2"),
    (["render", "--q", "1,2", "--k", "1"],
     "attnviz: error: --q and --k: q vectors have 2 entries but k vectors have 1"),
    (["render", "--highlight", "9,9"], "attnviz: error: --highlight '9,9': row 9 is outside the grid"),
    (["render", "--q", "1/0", "--k", "1"], "attnviz: error: --q: vector 1: '1/0' divides by zero"),
    (["render", "--bogus"], "attnviz: error: unrecognized arguments: --bogus"),
    (["render", "--q", "1;;2", "--k", "1"], "attnviz: error: --q: vector 2 is empty"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, message):
    target = tmp_path / "keep.svg"
    target.write_text("precious", encoding="utf-8")
    result = run(*args, "-o", str(target)) if "--bogus" not in args else run(*args)
    assert result.returncode == 2
    assert result.stderr.startswith(message) and result.stderr.count("\n") == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert target.read_text(encoding="utf-8") == "precious"
    assert list(tmp_path.iterdir()) == [target]


def test_debug_shows_the_traceback():
    result = run("render", "--q", "x", "--k", "1", "--debug")
    assert result.returncode != 0 and "Traceback" in result.stderr


def test_version_and_help():
    assert run("--version").stdout.strip() == f"attnviz {attnviz.__version__}"
    help_text = run("render", "--help").stdout
    assert "--highlight" in help_text and "--q" in help_text


def test_unwritable_output_is_a_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    target = blocker / "sub" / "fig.svg"
    result = run("render", "-o", str(target))
    assert result.returncode == 2
    assert result.stderr == f"attnviz: error: -o {target}: cannot write: {blocker / 'sub'}: Not a directory\n"


def test_an_unwritable_folder_names_the_target_not_a_temporary_file(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        import os

        if os.access(folder, os.W_OK):  # root writes anywhere: use a folder no one can create files in
            folder = Path("/proc")
        target = folder / "fig.svg"
        result = run("render", "-o", str(target))
        assert result.returncode == 2 and ".tmp" not in result.stderr
        assert result.stderr.startswith(f"attnviz: error: -o {target}: cannot write: ")
        assert result.stderr.count(str(target)) == 1  # named once, where the user gave it
    finally:
        (tmp_path / "ro").chmod(0o700)


def test_css_command_writes_the_host_stylesheet(tmp_path):
    from attnviz.render.themes import host_stylesheet

    assert run("css").stdout == host_stylesheet()
    target = tmp_path / "site" / "attnviz.css"
    result = run("css", "-o", str(target))
    assert result.returncode == 0 and target.read_text(encoding="utf-8") == host_stylesheet()


@pytest.mark.parametrize("args, message", [
    (["render", "-o", ""], "attnviz: error: argument -o/--output: an empty path; give a file or folder name"),
    (["css", "-o", ""], "attnviz: error: argument -o/--output: an empty path"),
    (["gallery", ""], "attnviz: error: argument folder: an empty path"),
    ([], "attnviz: error: no command given; try 'attnviz render'"),
    (["render", "--hightlight", "3,3"], "attnviz: error: unrecognized arguments: --hightlight; did you mean "
                                        "'--highlight'? (see 'attnviz render --help')"),
    (["css", "--theme", "dark"], "attnviz: error: unrecognized arguments: --theme dark; --theme is an option of "
                                 "'attnviz render', 'attnviz page', 'attnviz walkthrough', 'attnviz slides' and "
                                 "'attnviz model', not of 'attnviz css' (see 'attnviz css --help')"),
    (["page", "--step", "2"], "attnviz: error: unrecognized arguments: --step; --step is an option of "
                              "'attnviz render', not of 'attnviz page'"),
    (["render", "--q", "1", "--k", "1;2", "--tokens", "a b"], "attnviz: error: --tokens: one list labels both axes, "
     "but there are 1 query and 2 keys; label each axis with q_tokens and k_tokens (on the command line, "
     "--q-tokens and --k-tokens)"),
    (["walkthrough", "--highlight=3,3"], "attnviz: error: unrecognized arguments: --highlight=3,3; --highlight is "
                                          "an option of 'attnviz render' and 'attnviz slides', not of "
                                          "'attnviz walkthrough'"),
    (["css", "--themee"], "attnviz: error: unrecognized arguments: --themee (see 'attnviz css --help')"),
])
def test_usage_mistakes_are_one_line(args, message):
    result = run(*args)
    assert result.returncode == 2 and result.stderr.startswith(message) and result.stderr.count("\n") == 1, result


def test_debug_before_the_command_is_accepted():
    assert run("--debug", "render", "-o", "-").returncode == 0
    failing = run("--debug", "render", "--q", "x", "--k", "1")
    assert failing.returncode != 0 and "Traceback" in failing.stderr and "InputError" in failing.stderr


def test_walkthrough_with_rounded_weights_says_so(tmp_path):
    result = run("walkthrough", "--q", "1;2;3", "--k", "1;2;3", "--weights", "decimal=3", "--mask", "window=2",
                 "-o", str(tmp_path / "w"))
    assert result.returncode == 0, result.stderr
    html = (tmp_path / "w" / "index.html").read_text(encoding="utf-8")
    assert "not decimalized" not in html
    assert "Its weights are e^6/(e^6+e^9), e^9/(e^6+e^9); the figure shows them rounded, each marked ≈: " \
           "≈0.047, ≈0.953." in html


@pytest.mark.parametrize("args", [["page", "--print-spec"], ["render", "-o", "-"]])
def test_a_reader_that_leaves_early_stops_it_quietly(tmp_path, args):
    """`attnviz gallery | head -1`: the closed pipe ends the command with no error text, status 141."""
    import os

    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first write
    try:
        done = subprocess.run([sys.executable, "-m", "attnviz", *[a.format(tmp=tmp_path) for a in args]],
                              stdout=write_end, stderr=subprocess.PIPE, text=True)
    finally:
        os.close(write_end)
    assert (done.returncode, done.stderr) == (141, "")


def test_page_takes_the_look_flags(tmp_path):
    result = run("page", "--theme", "auto", "--embed-font", "-o", str(tmp_path / "p"))
    assert result.returncode == 0, result.stderr
    html = (tmp_path / "p" / "index.html").read_text(encoding="utf-8")
    figures = html.split("<svg ")[2:]  # after the legend's swatch: the three sections' figures
    assert len(figures) == 3 and all('data-attnviz-theme="auto"' in f and "@font-face" in f for f in figures)
    step = (tmp_path / "p" / "steps" / "01-what-is-exact.svg").read_text(encoding="utf-8")
    assert 'data-attnviz-theme="auto"' in step
    refused = run("page", "--theme", "neon", "-o", str(tmp_path / "q"))
    assert refused.returncode == 2 and refused.stderr.startswith("attnviz: error: --theme: unknown theme 'neon'")
    assert not (tmp_path / "q").exists()
