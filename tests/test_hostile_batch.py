"""Batches under stress: stopped by a signal, handed a FIFO, given names with control characters."""

import os
import signal
import subprocess
import sys
import time

import pytest

from clirun import run_cli
from conftest import terminal_signals

SPEC = 'q = "1,0; 0,1; 1,1"\nk = "1,0; 0,1; 1,1"\n'


def write_specs(folder, count):
    folder.mkdir()
    paths = []
    for n in range(count):
        path = folder / f"s{n:04d}.toml"
        path.write_text(SPEC, encoding="utf-8")
        paths.append(str(path))
    return paths


@pytest.mark.parametrize("signame, code", [("SIGTERM", 143), ("SIGINT", 130)])
@pytest.mark.parametrize("to_the_group", [False, True], ids=["parent", "group"])
def test_a_stopped_batch_leaves_no_temporary_and_says_so_in_one_line(tmp_path, signame, code, to_the_group):
    """Stopped mid-batch (the parent alone, as `kill` does, or every process, as a terminal's Ctrl-C does): the
    workers end quietly, each removing the temporary file it was writing, and the parent says so in one line."""
    specs = write_specs(tmp_path / "specs", 1500)
    out = tmp_path / "figs"
    command = [sys.executable, "-m", "attnviz", "render", *specs, "-o", f"{out}/", "-j", "2"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                               preexec_fn=terminal_signals)  # Ctrl-C's handler, even under nohup
    deadline = time.monotonic() + 60
    while len(list(out.glob("*.svg"))) < 100 and time.monotonic() < deadline:
        time.sleep(0.01)  # stop it mid-batch, with the workers writing
    (os.killpg if to_the_group else os.kill)(process.pid, getattr(signal, signame))
    stdout, stderr = process.communicate(timeout=60)
    written = os.listdir(out)
    assert process.returncode == code  # 128 + the signal's number, as the README says
    assert [name for name in written if name.endswith(".tmp")] == []
    assert 100 <= len(written) < len(specs)
    lines = stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith("attnviz: stopped: at least "), stderr.decode()
    assert lines[0].endswith(f" of {len(specs)} figures written, none in part")


def test_a_fifo_spec_is_refused_at_once_and_the_others_written(tmp_path):
    """A FIFO with no writer would hold `open` (and the batch) forever; it is refused without waiting."""
    specs = write_specs(tmp_path / "specs", 2)
    fifo = tmp_path / "specs" / "fifo.toml"
    os.mkfifo(fifo)
    command = [sys.executable, "-m", "attnviz", "render"]
    done = subprocess.run([*command, specs[0], str(fifo), specs[1], "-o", f"{tmp_path}/figs/", "-j", "2"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert lines[0] == f"attnviz: error: {fifo}: cannot read: a pipe; a spec is a TOML or JSON file (or - for " \
                       "standard input)"
    assert lines[1].endswith(f"; 1 failed: {fifo}") and len(lines) == 2
    assert sorted(os.listdir(tmp_path / "figs")) == ["s0000.svg", "s0001.svg"]
    alone = subprocess.run([*command, str(fifo), "-o", str(tmp_path / "one.svg")], capture_output=True, text=True,
                           timeout=60)
    assert (alone.returncode, alone.stderr) == (2, lines[0] + "\n")


@pytest.mark.parametrize("path, kind", [("/dev/null", "not a regular file"), (".", "a folder")])
def test_only_regular_files_are_specs(path, kind):
    result = run_cli("render", path, "-o", "-")
    assert (result.code, result.stdout) == (2, "")
    assert result.stderr == f"attnviz: error: {path}: cannot read: {kind}; a spec is a TOML or JSON file (or - " \
                            "for standard input)\n"


NAME = "bad\n\x1b[31mred.toml"  # a newline, and the escape sequence that turns a terminal red
SHOWN = r"bad\n\x1b[31mred.toml"


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_names_with_control_characters_are_printed_escaped(tmp_path, jobs):
    (tmp_path / NAME).write_text('q = "1,0; 0,x"\nk = "1,0; 0,1"\n', encoding="utf-8")
    (tmp_path / "good.toml").write_text(SPEC, encoding="utf-8")
    missing = tmp_path / "gone\x1b]0;title\x07.toml"
    result = run_cli("render", str(tmp_path / NAME), str(tmp_path / "good.toml"), str(missing),
                     "-o", f"{tmp_path}/figs/", "-j", jobs)
    assert result.code == 2 and "\x1b" not in result.stderr and "\x07" not in result.stderr
    lines = sorted(result.stderr.splitlines()[:2], key=lambda line: "gone" in line)
    assert lines[0].startswith(f"attnviz: error: {tmp_path}/{SHOWN}: q: vector 2: 'x' is not a number")
    assert lines[1:] == [
                     rf"attnviz: error: {tmp_path}/gone\x1b]0;title\x07.toml: cannot read: No such file or directory"]
    summary = result.stderr.splitlines()[2]
    assert summary.endswith(rf"; 2 failed: {tmp_path}/{SHOWN}, {tmp_path}/gone\x1b]0;title\x07.toml")
    assert len(result.stderr.splitlines()) == 3


def test_an_error_about_a_path_echoes_no_escape_sequence(tmp_path):
    single = run_cli("render", str(tmp_path / NAME))
    assert single.code == 2 and single.stderr == f"attnviz: error: {tmp_path}/{SHOWN}: cannot read: No such file " \
                                                 "or directory\n"
    (tmp_path / "file").write_text("", encoding="utf-8")
    output = run_cli("render", "-o", str(tmp_path / "file" / "\x1b[2J.svg"))  # a file in the way of a folder
    assert output.code == 2 and output.stderr.count("\n") == 1 and "\x1b" not in output.stderr
    assert output.stderr.startswith(rf"attnviz: error: -o {tmp_path}/file/\x1b[2J.svg: cannot write: ")


def test_a_batch_that_cannot_write_a_figure_echoes_no_escape_sequence(tmp_path):
    specs = []
    for name in ("a", "b"):
        spec = tmp_path / f"{name}.toml"
        spec.write_text('q = "1,0"\nk = "1,0"\n', encoding="utf-8")
        specs.append(str(spec))
    (tmp_path / "file\x1b[2J").write_text("", encoding="utf-8")  # a file in the way of the output folder
    result = run_cli("render", *specs, "-o", f"{tmp_path}/file\x1b[2J/out/")
    assert result.code == 2 and "\x1b" not in result.stderr
    assert all(line.startswith("attnviz: ") for line in result.stderr.splitlines()), result.stderr
