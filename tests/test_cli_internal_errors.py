"""An internal error is one line on stderr whatever its exception holds: no message (`IndexError()`, a bare
`MemoryError`), a message of many lines, a huge one, or one whose `str()` itself fails (issue 39)."""

import subprocess
import sys

import pytest

from attnviz.cli import commands
from attnviz.cli.batch import Job, run_jobs
from clirun import run_cli

ASK = "; please report this bug with the command you ran (and --debug for the traceback)"


class Unprintable(Exception):
    def __str__(self):
        raise ValueError("no text for you")


def raise_it(err):
    def figure_from_args(*args, **keywords):
        raise err

    return figure_from_args


CASES = {  # exception: the start of what the line says of it
    "empty": (IndexError(), "IndexError (no message; raised at tests/test_cli_internal_errors.py:"),
    "memory": (MemoryError(), "MemoryError (out of memory; raised at tests/test_cli_internal_errors.py:"),
    "lines": (RuntimeError("first\n\nsecond\r\nthird\x1b[2J"), r"RuntimeError: first second third\x1b[2J"),
    "huge": (RuntimeError("x" * 1_000_000), "RuntimeError: " + "x" * 100),
    "unprintable": (Unprintable(), "Unprintable (no message; raised at tests/test_cli_internal_errors.py:"),
}


@pytest.mark.parametrize("case", CASES)
def test_an_internal_error_is_one_line_whatever_its_message(monkeypatch, case):
    err, start = CASES[case]
    monkeypatch.setattr(commands, "figure_from_args", raise_it(err))
    result = run_cli("render", "-o", "-")
    assert (result.code, result.stdout) == (1, "")
    assert result.stderr.count("\n") == 1 and result.stderr.endswith(ASK + "\n"), result.stderr[:300]
    assert result.stderr.startswith(f"attnviz: internal error: {start}"), result.stderr[:300]
    assert len(result.stderr) < 1000


@pytest.mark.parametrize("case", CASES)
def test_a_batch_job_s_internal_error_is_one_line(tmp_path, case):
    err, start = CASES[case]
    reported = []
    outcome = run_jobs([Job("job", str(tmp_path / "job.svg"), raise_it(err))], report=reported.append)
    assert outcome.status == 1 and len(reported) == 1 and "\n" not in reported[0]
    assert reported[0].startswith(f"attnviz: internal error: job: {start}") and len(reported[0]) < 1000


def test_an_empty_message_from_a_real_process_is_one_line():
    driver = ("import sys\nfrom attnviz.cli import commands\n"
              "def broken(*args, **keywords):\n    raise IndexError()\n"
              "commands.figure_from_args = broken\nsys.exit(commands.main(sys.argv[1:]))\n")
    done = subprocess.run([sys.executable, "-c", driver, "render", "-o", "-"], capture_output=True, text=True,
                          timeout=60)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == f"attnviz: internal error: IndexError (no message; raised at <string>:4){ASK}\n"
