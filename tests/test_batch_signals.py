"""A `-j N` batch stopped at any moment, or losing a worker: its workers end, are reaped, leave no temporary, and
the command exits promptly with one line; never a hang, never a zombie (issue 39)."""

import contextlib
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import terminal_signals

SPEC = 'q = "1,0; 0,1; 1,1"\nk = "1,0; 0,1; 1,1"\n'

# The command with some jobs made slow or fatal by their spec's name: `busy` runs a sum of 10^12 numbers (a loop in C
# that never lets a signal's Python handler run: minutes), `sleep` sleeps, `killed` is killed as the
# out-of-memory killer kills (SIGKILL), halfway through writing its file. Each notes in MARKS that it started, and
# in which process.
DRIVER = """
import os, signal, sys, time
from attnviz.cli import commands

made = commands.figure_from_args

def figure_from_args(args, *rest, **keywords):
    name = os.path.basename(args.spec)
    with open(os.path.join(os.environ["MARKS"], name), "w") as mark:
        mark.write(str(os.getpid()))
    if name.startswith("busy"):
        sum(range(10 ** 12))
    elif name.startswith("sleep"):
        time.sleep(120)
    elif name.startswith("killed"):
        from attnviz.figures.files import _create_temporary
        _create_temporary(os.path.join(os.environ["OUT"], name.replace(".toml", ".svg")))
        os.kill(os.getpid(), signal.SIGKILL)
    return made(args, *rest, **keywords)

commands.figure_from_args = figure_from_args
sys.exit(commands.main(sys.argv[1:]))
"""


def children(pid):
    """The processes whose parent is `pid` (from /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if entry.isdigit() and int(fields[1]) == pid:
            found.append(int(entry))
    return found


def gone(pid):
    """Whether the process has ended and been reaped (a zombie still has its /proc entry)."""
    return not os.path.exists(f"/proc/{pid}")


STARTED = []


@pytest.fixture(autouse=True)
def no_leftovers():
    """Whatever a failed test leaves running (its command's whole process group) is killed."""
    yield
    while STARTED:
        process = STARTED.pop()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.communicate()


def start(tmp_path, names, jobs="2"):
    folder, out, marks = tmp_path / "specs", tmp_path / "figs", tmp_path / "marks"
    for made in (folder, out, marks):
        made.mkdir()
    for name in names:
        (folder / name).write_text(SPEC, encoding="utf-8")
    (tmp_path / "driver.py").write_text(DRIVER, encoding="utf-8")
    command = [sys.executable, str(tmp_path / "driver.py"), "render", *(str(folder / name) for name in names),
               "-o", f"{out}/", "-j", jobs]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                               preexec_fn=terminal_signals, env={**os.environ, "MARKS": str(marks), "OUT": str(out)})
    STARTED.append(process)
    return process, out, marks


def wait_for(condition, seconds=60):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def finish(process, seconds):
    """The process's (status, stderr lines), waited for at most `seconds`: killed (and the test failed) if it hangs."""
    try:
        _, stderr = process.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        pytest.fail(f"the batch did not end within {seconds} s of the signal")
    return process.returncode, stderr.decode().splitlines()


# Where the batch is when the signal comes: its first job runs in the parent, before any worker is forked; its
# workers in C code that a Python handler must wait for (one busy, one idle with nothing left to take); its workers
# busy with sleeping jobs; its workers busy and jobs queued behind them.
MOMENTS = {
    "before-workers": (["sleep0.toml", "a.toml", "b.toml"], ["sleep0.toml"]),
    "in-c-code": (["a.toml", "busy1.toml", "b.toml"], ["busy1.toml"]),
    "both-in-c-code": (["a.toml", "busy1.toml", "busy2.toml"], ["busy1.toml", "busy2.toml"]),
    "sleeping": (["a.toml", "sleep1.toml", "sleep2.toml", "b.toml", "c.toml"], ["sleep1.toml", "sleep2.toml"]),
}


@pytest.mark.parametrize("moment", MOMENTS)
@pytest.mark.parametrize("signame, code", [("SIGTERM", 143), ("SIGINT", 130)])
def test_a_stopped_batch_ends_its_workers_and_exits_promptly(tmp_path, moment, signame, code):
    names, started = MOMENTS[moment]
    process, out, marks = start(tmp_path, names)
    wait_for(lambda: all((marks / name).exists() for name in started))
    time.sleep(0.2)  # well inside the slow jobs
    workers = children(process.pid)
    os.kill(process.pid, getattr(signal, signame))
    status, lines = finish(process, 10)  # a grace of a few seconds for the workers, then they are killed
    assert status == code
    assert len(lines) == 1 and lines[0].startswith("attnviz: stopped: at least "), lines
    wait_for(lambda: all(gone(pid) for pid in workers), 5)
    assert [name for name in os.listdir(out) if not name.endswith(".svg")] == []
    for figure in out.iterdir():  # whole figures only
        assert figure.read_text(encoding="utf-8").rstrip().endswith("</svg>")


def test_signals_in_a_loop_never_hang_the_batch(tmp_path):
    """Stopped again and again, at moments a few milliseconds apart, over many small jobs."""
    for attempt in range(6):
        folder = tmp_path / str(attempt)
        folder.mkdir()
        names = [f"s{n:03d}.toml" for n in range(300)]
        process, out, _ = start(folder, names)
        time.sleep(0.35 + 0.1 * attempt)
        workers = children(process.pid)
        os.kill(process.pid, signal.SIGTERM if attempt % 2 else signal.SIGINT)
        status, lines = finish(process, 10)
        assert status in (130, 143, 0), lines
        wait_for(lambda workers=workers: all(gone(pid) for pid in workers), 5)
        assert [name for name in os.listdir(out) if not name.endswith(".svg")] == []


def test_a_killed_worker_is_one_line_and_its_job_alone_fails(tmp_path):
    """A worker killed (as the out-of-memory killer does, mid-write) costs its one figure, said in one line; the
    batch goes on with the other jobs, and its temporary file is removed."""
    names = ["a.toml", "killed.toml", "b.toml", "c.toml", "d.toml", "e.toml"]
    process, out, _ = start(tmp_path, names)
    status, lines = finish(process, 60)
    assert status == 2, lines
    assert lines[0] == (f"attnviz: error: {tmp_path}/specs/killed.toml: its worker process was killed by SIGKILL "
                        "(out of memory?)")
    assert lines[1].endswith(f"; 1 failed: {tmp_path}/specs/killed.toml") and len(lines) == 2
    assert sorted(os.listdir(out)) == ["a.svg", "b.svg", "c.svg", "d.svg", "e.svg"]


@pytest.mark.parametrize("second", ["SIGTERM", "SIGINT"])
def test_a_second_signal_while_stopping_still_gives_one_line(tmp_path, second):
    """The workers in C code take the grace period to stop; a second signal meanwhile does not cut the stop short,
    nor cost the line that says what was written, nor change the status the first signal gave."""
    process, _, marks = start(tmp_path, ["a.toml", "busy1.toml", "busy2.toml"])
    wait_for(lambda: (marks / "busy1.toml").exists() and (marks / "busy2.toml").exists())
    workers = children(process.pid)
    os.kill(process.pid, signal.SIGTERM)
    time.sleep(0.3)
    os.kill(process.pid, getattr(signal, second))
    status, lines = finish(process, 10)
    assert status == 143
    assert len(lines) == 1 and lines[0].startswith("attnviz: stopped: at least "), lines
    wait_for(lambda: all(gone(pid) for pid in workers), 5)


def test_more_processes_than_four_a_cpu_is_one_line(tmp_path):
    """`-j 100000` over as many specs would fork a hundred thousand interpreters: refused before any work."""
    most = 4 * (os.cpu_count() or 1)
    done = subprocess.run([sys.executable, "-m", "attnviz", "render", "a.toml", "b.toml", "-j", "100000"],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (f"attnviz: error: argument -j/--jobs: at most {most} processes (4 a CPU), got 100000 "
                           "(see 'attnviz render --help')\n")


@pytest.mark.parametrize("given, message", [
    ("9" * 5000, f"at most {4 * (os.cpu_count() or 1)} processes (4 a CPU), got 999999999999…"),
    ("x" * 5000, "expected a number of processes (1 or more) or auto, got 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
    ("\u0663", "expected a number of processes (1 or more) or auto, got '\u0663'"),  # an Arabic-Indic 3
    ("000", "expected a number of processes (1 or more) or auto, got '000'"),
])
def test_a_hostile_process_count_is_one_short_line(given, message):
    from clirun import run_cli

    result = run_cli("render", "a.toml", "b.toml", "-j", given)
    assert (result.code, result.stdout) == (2, "")
    assert result.stderr == f"attnviz: error: argument -j/--jobs: {message} (see 'attnviz render --help')\n"


def test_a_worker_killed_from_outside_is_one_line_not_a_hang(tmp_path):
    """The out-of-memory killer picks a worker busy in C code: its job fails in one line, the rest are written."""
    names = ["a.toml", "busy1.toml", "b.toml", "c.toml"]
    process, out, marks = start(tmp_path, names)
    wait_for(lambda: (marks / "busy1.toml").exists() and (marks / "busy1.toml").read_text())
    time.sleep(0.2)
    os.kill(int((marks / "busy1.toml").read_text()), signal.SIGKILL)
    status, lines = finish(process, 30)
    assert status == 2
    assert lines[0] == (f"attnviz: error: {tmp_path}/specs/busy1.toml: its worker process was killed by SIGKILL "
                        "(out of memory?)")
    assert len(lines) == 2 and lines[1].startswith("attnviz: 3 of 4 figures written")
    assert sorted(os.listdir(out)) == ["a.svg", "b.svg", "c.svg"]
