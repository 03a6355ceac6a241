"""Many figures in one run: `attnviz render SPEC SPEC...` and `attnviz gallery`.

One import and shared caches for all of them, several worker processes with `-j N`, a
progress bar on a terminal, and one summary line. A figure that fails is reported (with
its error) and the others are still written, each atomically, with the same bytes as
when rendered alone.
"""

from __future__ import annotations

import os
import signal
import sys
import time

from ..errors import InputError, printable
from .signals import Stopped, one_line

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence
    from typing import TextIO

    #: A job's failure: (internal error?, its one-line message).
    Failure = tuple[bool, str]

__all__ = ["Job", "Outcome", "run_jobs"]


class Job:
    """One figure to write: `name` says which (a spec's path, a gallery entry), `target` is its file,
    `make()` returns its text or bytes (raising InputError for bad input)."""

    __slots__ = ("name", "target", "make")

    def __init__(self, name: str, target: str, make: Callable[[], str | bytes]) -> None:
        self.name, self.target, self.make = name, target, make


class Outcome:
    """What a run did: the jobs written, and the failed ones with their one-line errors, in job order."""

    def __init__(self, jobs: Sequence[Job], errors: dict[int, Failure], seconds: float, workers: int) -> None:
        self.jobs, self.errors, self.seconds, self.workers = jobs, errors, seconds, workers

    @property
    def written(self) -> list[Job]:
        """The jobs written, in job order."""
        return [job for n, job in enumerate(self.jobs) if n not in self.errors]

    @property
    def status(self) -> int:
        """0 when every figure was written; 2 when only bad input failed; 1 after an internal error."""
        if not self.errors:
            return 0
        return 1 if any(internal for internal, _ in self.errors.values()) else 2

    def summary(self, folder: str | None) -> str:
        """The run as one line: how many figures were written (to `folder`), how long it took, which failed."""
        where = f" to {folder}" if folder else ""
        took = f" in {self.seconds:.2f} s" + (f" ({self.workers} processes)" if self.workers > 1 else "")
        noun = "figure" if len(self.jobs) == 1 else "figures"
        done = f"{len(self.jobs) - len(self.errors)} of {len(self.jobs)} {noun} written{where}{took}"
        if not self.errors:
            return f"attnviz: {done}"
        failed = ", ".join(printable(self.jobs[n].name) for n in sorted(self.errors))
        return f"attnviz: {done}; {len(self.errors)} failed: {failed}"


def run_jobs(jobs: Sequence[Job], *, workers: int = 1, progress: TextIO | None = None,
             report: Callable[[str], object] | None = None) -> Outcome:
    """Write every job's figure; return an Outcome.

    `workers` > 1 renders in that many forked processes (where the platform forks; else in this
    one). `progress`: a stream to draw a progress bar on (None: none). `report(line)` is called with
    each failure's one-line error, as it happens.
    """
    start = time.perf_counter()
    workers = max(1, min(workers, len(jobs)))
    if workers > 1 and not _can_fork():
        workers = 1
    bar = _ProgressBar(progress, len(jobs)) if progress is not None else None
    errors: dict[int, Failure] = {}
    results: Iterator[tuple[int, Failure | None]] = (_in_processes(jobs, workers) if workers > 1
                                                     else map(_run_one, jobs, range(len(jobs))))
    done = 0
    try:
        for done, (index, error) in enumerate(results, 1):
            if error is not None:
                errors[index] = error
                _say(bar, report, _failure_line(jobs[index], error))
            if bar:
                bar.show(done, printable(jobs[index].name))
    except (KeyboardInterrupt, Stopped):  # the workers stop (cleaning up), then one line says what was done
        _close(results)
        # Workers report a chunk of figures at a time: the count is a floor.
        noun = "figure" if len(jobs) == 1 else "figures"
        _say(bar, report, f"attnviz: stopped: at least {done - len(errors)} of {len(jobs)} {noun} written, "
                          "none in part")
        raise
    finally:
        _close(results)
    if bar:
        bar.clear()
    return Outcome(jobs, errors, time.perf_counter() - start, workers)


def _say(bar: _ProgressBar | None, report: Callable[[str], object] | None, line: str) -> None:
    """The bar erased, then `line` reported (if there is a report)."""
    if bar:
        bar.clear()
    if report:
        report(line)


def _failure_line(job: Job, error: Failure) -> str:
    """The one line a failed job is reported in, named once."""
    internal, message = error
    name = printable(job.name)
    named = message if message.startswith(name) else f"{name}: {message}"
    return f"attnviz: {'internal error' if internal else 'error'}: {named}"


def _close(results: Iterator[object]) -> None:
    """Stop a pool's generator now (its workers end), not when it is collected; a map has nothing to stop."""
    close = getattr(results, "close", None)
    if close is not None:
        close()


def _run_one(job: Job, index: int) -> tuple[int, Failure | None]:
    """(index, None) once the job's file is written, or (index, (internal?, one-line message))."""
    from ..io.atomic import write_files  # start-up: loaded when a job writes

    try:
        data = job.make()
        write_files({job.target: data})
    except InputError as err:
        return index, (False, one_line(err))
    except OSError as err:
        return index, (False, f"cannot write: {err.filename or job.target}: {err.strerror or err}")
    except Exception as err:  # noqa: BLE001 - one figure's bug must not cost the others theirs
        return index, (True, f"{type(err).__name__}: {one_line(err)}")
    return index, None


# The jobs of a parallel run, for the forked workers to find by index (closures do not pickle).
_JOBS: list[Job] = []
#: The signals that stop a batch.
_STOPS = {getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)}


def _in_processes(jobs: Sequence[Job], workers: int) -> Iterator[tuple[int, Failure | None]]:
    import multiprocessing  # start-up: only -j N > 1 forks workers

    # The first job runs here, before the fork: the workers inherit its imports and warm caches instead of
    # each paying for them (what made -j auto slower than -j 1 on thousands of tiny specs).
    yield _run_one(jobs[0], 0)
    _JOBS[:] = jobs
    chunk = max(1, (len(jobs) - 1) // (workers * 8))  # a few chunks per worker: few messages, all busy to the end
    # Workers start with the stop signals blocked, so none arrives before _worker_signals sets their handlers.
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPS)
    try:
        pool = multiprocessing.get_context("fork").Pool(workers, initializer=_worker_signals)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
    done = False
    try:
        yield from pool.imap_unordered(_run_index, range(1, len(jobs)), chunksize=chunk)
        done = True
    finally:
        # Done: the workers are told there is no more work and leave on their own (terminating a pool that has
        # finished can hang: its workers wait on the queue's lock that terminate() holds). Stopped: every worker
        # ends (cleaning up its temporary file) before the command does; a second signal must not cut this
        # short, so it waits until the workers are gone.
        signal.pthread_sigmask(signal.SIG_BLOCK, _STOPS)
        try:
            if done:
                pool.close()
            else:
                pool.terminate()
            pool.join()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
            _JOBS.clear()


def _worker_signals() -> None:
    """A worker stops quietly: SIGTERM and SIGHUP (how the pool stops its workers) end it at once, or while it
    writes, by SystemExit, which removes the temporary file and prints no traceback. Ctrl-C is for the parent
    to handle (it stops the pool), so a worker ignores SIGINT."""
    for signum in _STOPS - {signal.SIGINT}:
        signal.signal(signum, _exit_quietly)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOPS)


def _exit_quietly(signum: int, frame: object) -> None:
    if _WRITING[0]:  # SystemExit unwinds the write, which removes its temporary file
        raise SystemExit(128 + signum)
    os._exit(128 + signum)  # between jobs, in the pool's own code: there is nothing to clean up


#: Whether this worker is running a job (the pool's code, between jobs, must not be unwound part-way).
_WRITING: list[bool] = [False]


def _run_index(index: int) -> tuple[int, Failure | None]:
    _WRITING[0] = True
    try:
        return _run_one(_JOBS[index], index)
    finally:
        _WRITING[0] = False


def _can_fork() -> bool:
    return hasattr(os, "fork") and sys.platform != "darwin"  # macOS: fork is unsafe with system libraries


class _ProgressBar:
    """`[########----------] 12/40 name` on one terminal line, redrawn in place."""

    WIDTH = 24

    def __init__(self, stream: TextIO, total: int) -> None:
        self.stream, self.total, self.drawn = stream, total, False
        try:
            self.columns = os.get_terminal_size(stream.fileno()).columns or 80  # 0: a terminal of unknown size
        except (AttributeError, ValueError, OSError):
            self.columns = 80

    def show(self, done: int, name: str) -> None:
        """Draw the bar for `done` jobs."""
        filled = self.WIDTH * done // self.total
        line = f"[{'#' * filled}{'-' * (self.WIDTH - filled)}] {done}/{self.total} {name}"
        self.stream.write("\r" + line[:self.columns - 1].ljust(self.columns - 1))
        self.stream.flush()
        self.drawn = True

    def clear(self) -> None:
        """Erase the bar, so the summary line takes its place."""
        if self.drawn:
            self.stream.write("\r" + " " * (self.columns - 1) + "\r")
            self.stream.flush()
            self.drawn = False
