"""Batches: `attnviz render A.toml B.toml ... -o DIR/` and `attnviz gallery` (attnviz.batch)."""

import os
import pty
import subprocess
import sys

import pytest

from attnviz.cli.batch import Job, run_jobs
from attnviz.numbers.exact import InputError
from clirun import run_cli

SPECS = {  # name: TOML
    "causal": 'q = "1,0; 0,1; 1,1"\nk = "1,0; 0,1; 1,1"\nhighlight = ["3,3"]\n',
    "window": 'q = "1,0; 0,1; 1,1; 2,1"\nk = "1,0; 0,1; 1,1; 1,2"\nmask = "window=2"\nsoftmax = "normalizer"\n',
    "tokens": 'q = "1,2; 0,1"\nk = "1,2; 0,1"\ntokens = ["<s>", "cat"]\ntheme = "dark"\n',
}
BAD = {
    "typo": 'q = "1,0; 0,x"\nk = "1,0; 0,1"\n',
    "shape": 'q = "1,0"\nk = "1,0,0"\n',
}


def write_specs(folder, specs):
    paths = []
    for name, text in specs.items():
        path = folder / f"{name}.toml"
        path.write_text(text, encoding="utf-8")
        paths.append(str(path))
    return paths


def test_batch_writes_each_spec_as_rendering_it_alone_would(tmp_path):
    specs = write_specs(tmp_path, SPECS)
    result = run_cli("render", *specs, "-o", f"{tmp_path}/figs/")
    assert result.code == 0, result.stderr
    assert result.stderr.startswith(f"attnviz: 3 of 3 figures written to {tmp_path}/figs/ in ")
    for spec, name in zip(specs, SPECS):
        alone = tmp_path / f"{name}-alone.svg"
        assert run_cli("render", spec, "-o", str(alone)).code == 0
        assert (tmp_path / "figs" / f"{name}.svg").read_bytes() == alone.read_bytes()


def test_two_processes_write_the_same_bytes(tmp_path):
    specs = write_specs(tmp_path, SPECS)
    assert run_cli("render", *specs, "-o", f"{tmp_path}/one/").code == 0
    result = run_cli("render", *specs, "-o", f"{tmp_path}/two/", "-j", "2")
    assert result.code == 0 and "(2 processes)" in result.stderr
    for name in SPECS:
        assert (tmp_path / "two" / f"{name}.svg").read_bytes() == (tmp_path / "one" / f"{name}.svg").read_bytes()


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_failures_are_named_and_the_others_still_written(tmp_path, jobs):
    specs = write_specs(tmp_path, {**BAD, **SPECS})
    result = run_cli("render", *specs, "-o", f"{tmp_path}/figs/", "-j", jobs)
    assert result.code == 2
    lines = result.stderr.splitlines()
    reports = sorted(lines[:2], key=lambda line: "shape" in line)  # as they happen: with -j 2, in either order
    assert reports[0].startswith(f"attnviz: error: {specs[0]}: q: vector 2: 'x' is not a number")
    assert reports[1].startswith(f"attnviz: error: {specs[1]}: q and {specs[1]}: k: q vectors have 2 entries")
    assert lines[-1].startswith(f"attnviz: 3 of 5 figures written to {tmp_path}/figs/ in ")
    assert lines[-1].endswith(f"; 2 failed: {specs[0]}, {specs[1]}")
    assert sorted(os.listdir(tmp_path / "figs")) == ["causal.svg", "tokens.svg", "window.svg"]


def test_flags_apply_to_every_spec_and_format_names_the_files(tmp_path):
    specs = write_specs(tmp_path, SPECS)
    result = run_cli("render", *specs, "-o", f"{tmp_path}/figs/", "--theme", "print", "--quiet")
    assert (result.code, result.stdout, result.stderr) == (0, "", "")
    assert all('data-attnviz-theme="print"' in (tmp_path / "figs" / f"{n}.svg").read_text(encoding="utf-8")
               for n in SPECS)


def test_one_spec_into_a_folder_is_a_batch_of_one(tmp_path):
    spec, = write_specs(tmp_path, {"causal": SPECS["causal"]})
    assert run_cli("render", spec, "-o", f"{tmp_path}/figs/").code == 0
    assert (tmp_path / "figs" / "causal.svg").is_file()


@pytest.mark.parametrize("args, message", [
    (["a.toml", "b.toml", "-o", "x.svg"], "-o x.svg: several figures go into a folder: end it with /"),
    (["a.toml", "-", "-o", "d/"], "SPEC -: standard input has no name"),
    (["a.toml", "sub/a.toml", "-o", "d/"], "SPEC: a.toml and sub/a.toml would both write d/a.svg; rename one"),
    (["a.toml", "b.toml", "--step", "2"], "--step: renders one spec's step; give one spec"),
    (["a.toml", "b.toml", "-j", "0"], "argument -j/--jobs: expected a number of processes (1 or more) or auto"),
])
def test_batch_mistakes_are_one_line(tmp_path, args, message):
    result = run_cli("render", *args)
    assert result.code == 2 and result.stderr.startswith(f"attnviz: error: {message}"), result.stderr


def test_progress_bar_only_on_a_terminal(tmp_path):
    write_specs(tmp_path, SPECS)
    specs = [f"{name}.toml" for name in SPECS]
    command = [sys.executable, "-m", "attnviz", "render", *specs]
    piped = subprocess.run([*command, "-o", "a/"], cwd=tmp_path, capture_output=True, text=True)
    assert piped.returncode == 0 and "\r" not in piped.stderr and piped.stderr.count("\n") == 1
    # On a terminal: the bar is drawn in place (carriage returns), then cleared before the summary.
    leader, follower = pty.openpty()
    with subprocess.Popen([*command, "-o", "b/"], cwd=tmp_path, stdin=subprocess.DEVNULL,
                          stdout=subprocess.DEVNULL, stderr=follower) as process:
        os.close(follower)
        seen = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal closed with the process
                break
            if not chunk:
                break
            seen += chunk
    os.close(leader)
    text = seen.decode()
    assert process.returncode == 0
    assert "\r[########----------------] 1/3 causal.toml" in text and "\r[########################] 3/3 " in text
    assert text.rstrip().splitlines()[-1].lstrip("\r ").startswith("attnviz: 3 of 3 figures written to b/ in ")
    quiet = subprocess.run([*command, "-o", "c/", "--quiet"], cwd=tmp_path, capture_output=True, text=True)
    assert (quiet.returncode, quiet.stderr) == (0, "")


def test_run_jobs_reports_bugs_as_internal_errors(tmp_path):
    def broken():
        raise ZeroDivisionError("division by zero")

    def bad_input():
        raise InputError("not a number", "q")

    jobs = [Job("fine", str(tmp_path / "fine.svg"), lambda: "<svg/>\n"), Job("broken", str(tmp_path / "b.svg"), broken),
            Job("bad", str(tmp_path / "bad.svg"), bad_input)]
    reported = []
    outcome = run_jobs(jobs, report=reported.append)
    assert outcome.status == 1 and [job.name for job in outcome.written] == ["fine"]
    assert reported == ["attnviz: internal error: broken: ZeroDivisionError: division by zero",
                        "attnviz: error: bad: q: not a number"]
    assert (tmp_path / "fine.svg").read_text(encoding="utf-8") == "<svg/>\n"



def test_parallel_workers_leave_ctrl_c_to_the_parent_and_drop_its_sigterm_handler(tmp_path):
    """The pool stops its workers with SIGTERM; a worker must not keep the command's handler (inherited through
    fork), which turns the signal into an exception and a traceback on stderr. Ctrl-C is the parent's to handle."""
    import signal

    from attnviz.cli.batch import Job, run_jobs

    def handlers():
        return f"{signal.getsignal(signal.SIGINT)!r} {signal.getsignal(signal.SIGTERM) is command}\n"

    def command(signum, frame):  # what the command installs
        return None

    previous = signal.signal(signal.SIGTERM, command)
    try:
        jobs = [Job(f"j{n}", str(tmp_path / f"j{n}.txt"), handlers) for n in range(4)]
        outcome = run_jobs(jobs, workers=2)
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert not outcome.errors
    assert (tmp_path / "j0.txt").read_text().endswith(" True\n")  # the first job warms up in the parent
    assert {(tmp_path / f"j{n}.txt").read_text() for n in range(1, 4)} == {f"{signal.SIG_IGN!r} False\n"}
