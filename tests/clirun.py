"""Run the command in process (fast enough for hypothesis) and capture what it prints."""

import contextlib
import io
import sys
from dataclasses import dataclass

from attnviz.cli.commands import main


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str


def run_cli(*args, stdin=b""):
    out, err = io.StringIO(), io.StringIO()
    old_stdin = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(args))
    finally:
        sys.stdin = old_stdin
    return Result(code, out.getvalue(), err.getvalue())
