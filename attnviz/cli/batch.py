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
from .signals import Stopped, describe, one_line

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
        return index, (False, printable(f"cannot write: {err.filename or job.target}: {err.strerror or err}"))
    except Exception as err:  # noqa: BLE001 - one figure's bug must not cost the others theirs
        return index, (True, describe(err))
    return index, None


#: The signals that stop a batch.
_STOPS = {getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)}
#: Seconds a stopped worker has to end on its own (removing the temporary file it writes) before it is killed: a
#: worker deep in one long computation in C code runs no signal handler until that returns.
GRACE = 2.0
#: Jobs a worker holds at a time: one, so that no job waits behind a slow one while another worker is idle.
_AHEAD = 1


class _Worker:
    """A forked process running the jobs it is sent (one index a line on `tasks`) and reporting each one as it
    is done (one line on `results`); `sent` holds the indices sent and not yet reported, in order."""

    __slots__ = ("pid", "tasks", "results", "sent", "unread")

    def __init__(self, pid: int, tasks: int, results: int) -> None:
        self.pid, self.tasks, self.results = pid, tasks, results
        self.sent: list[int] = []
        self.unread = b""

    def send(self, pending: list[int]) -> None:
        """Top up its jobs from `pending` (next last); with none left, close its tasks, and it leaves when done."""
        while len(self.sent) < _AHEAD and pending:
            self.sent.append(pending.pop())
            try:
                os.write(self.tasks, b"%d\n" % self.sent[-1])
            except BrokenPipeError:  # it died: its results end, and its jobs go to another
                return
        if not self.sent and self.tasks >= 0:
            os.close(self.tasks)
            self.tasks = -1

    def reported(self, data: bytes) -> Iterator[tuple[int, Failure | None]]:
        """The jobs that `data` (read from its results) completes."""
        lines = (self.unread + data).split(b"\n")
        self.unread = lines.pop()
        for line in lines:
            index, code, message = line.split(b" ", 2)
            self.sent.remove(int(index))
            yield int(index), None if code == b"-" else (code == b"1", message.decode("unicode_escape"))

    def close(self) -> None:
        for fd in (self.tasks, self.results):
            if fd >= 0:
                os.close(fd)
        self.tasks = self.results = -1


def _in_processes(jobs: Sequence[Job], workers: int) -> Iterator[tuple[int, Failure | None]]:
    """Every job's (index, failure), the first run here and the others by `workers` forked processes, in the order
    they finish. However it ends (done, stopped by a signal, closed), no worker outlives it: each is told to leave,
    or stopped (killed after GRACE seconds), and reaped; a worker that dies costs the job it was given, in one line."""
    import select  # start-up: only -j N > 1 forks workers

    # The first job runs here, before the fork: the workers inherit its imports and warm caches instead of
    # each paying for them (what made -j auto slower than -j 1 on thousands of tiny specs).
    yield _run_one(jobs[0], 0)
    pending = list(range(len(jobs) - 1, 0, -1))  # the next job last
    pool: dict[int, _Worker] = {}  # the live workers, by the descriptor they report on
    try:
        for _ in range(workers):
            _start(jobs, pool).send(pending)
        while pool:
            for fd in select.select(list(pool), [], [])[0]:
                worker = pool[fd]
                data = os.read(fd, 65536)
                if data:
                    yield from worker.reported(data)
                    worker.send(pending)
                    continue
                del pool[fd]  # it left (no job left) or died
                yield from _ended(worker, jobs, pending)
                if pending:
                    _start(jobs, pool).send(pending)
    finally:
        _stop(pool, jobs)


def _start(jobs: Sequence[Job], pool: dict[int, _Worker]) -> _Worker:
    """A new worker, added to `pool`. It starts with the stop signals blocked, so none arrives before
    _worker_signals sets its handlers; it closes the other workers' pipes, so each one's death is seen. Here the
    stop signals wait until it is in `pool`, so that none can leave a worker that _stop does not know of."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPS)
    try:
        tasks, results = os.pipe(), os.pipe()
        pid = os.fork()
        if pid == 0:
            _work(jobs, tasks[0], results[1], [tasks[1], results[0]] + [fd for w in pool.values()
                                                                       for fd in (w.tasks, w.results) if fd >= 0])
        os.close(tasks[0])
        os.close(results[1])
        worker = pool[results[0]] = _Worker(pid, tasks[1], results[0])
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
    return worker


def _work(jobs: Sequence[Job], tasks: int, results: int, inherited: list[int]) -> None:
    """A worker's life: each job sent, run and reported, until the tasks end; it never returns (os._exit: the
    parent's buffers and exit handlers are the parent's)."""
    status = 0
    try:
        for fd in inherited:
            os.close(fd)
        _worker_signals()
        with open(tasks, "rb") as lines:
            for line in lines:
                index, failure = _run_index(jobs, int(line))
                code, message = ("-", "") if failure is None else ("1" if failure[0] else "0", failure[1])
                report = b"%d %s %s\n" % (index, code.encode(), message.encode("unicode_escape"))
                while report:
                    report = report[os.write(results, report):]
    except SystemExit as stop:  # stopped while writing: the temporary file is removed
        status = stop.code if isinstance(stop.code, int) else 1
    except BaseException:  # noqa: BLE001 - the parent reports the job, from the worker's death
        status = 1
    finally:
        os._exit(status)


def _ended(worker: _Worker, jobs: Sequence[Job], pending: list[int]) -> Iterator[tuple[int, Failure]]:
    """Reap a worker whose results ended. Killed (the out-of-memory killer) with jobs in hand: the one it was
    running failed (its temporary file removed), the others go back to `pending`."""
    worker.close()
    _, status = os.waitpid(worker.pid, 0)
    if not worker.sent:
        return
    first, *rest = worker.sent
    pending.extend(reversed(rest))
    _remove_temporaries(jobs[first], worker.pid)
    if os.WIFSIGNALED(status):
        name = signal.Signals(os.WTERMSIG(status)).name
        how = f"killed by {name}" + (" (out of memory?)" if name == "SIGKILL" else "")
    else:
        how = f"ended with status {os.waitstatus_to_exitcode(status)}"
    yield first, (False, f"its worker process was {how}")


def _stop(pool: dict[int, _Worker], jobs: Sequence[Job]) -> None:
    """Stop every worker still in `pool` and reap it: SIGTERM (each removes the temporary file it writes), then
    SIGKILL after GRACE seconds (and its temporary removed here). A second signal must not cut this short, nor
    replace the first: the stop signals wait until the workers are gone, and are then dropped."""
    if not pool:
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPS)
    try:
        live = list(pool.values())
        for worker in live:
            worker.close()
            _kill(worker.pid, signal.SIGTERM)
        deadline = time.monotonic() + GRACE
        while live and time.monotonic() < deadline:
            time.sleep(0.005)
            live = [worker for worker in live if os.waitpid(worker.pid, os.WNOHANG)[0] == 0]
        for worker in live:
            _kill(worker.pid, signal.SIGKILL)
            os.waitpid(worker.pid, 0)
            if worker.sent:
                _remove_temporaries(jobs[worker.sent[0]], worker.pid)
        pool.clear()
        while signal.sigtimedwait(_STOPS, 0) is not None:  # a second signal: the command is stopping already
            continue
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _worker_signals() -> None:
    """A worker stops quietly: SIGTERM and SIGHUP (how the parent stops its workers) end it at once, or while it
    writes, by SystemExit, which removes the temporary file and prints no traceback. Ctrl-C is for the parent
    to handle (it stops the workers), so a worker ignores SIGINT."""
    for signum in _STOPS - {signal.SIGINT}:
        signal.signal(signum, _exit_quietly)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOPS)


def _exit_quietly(signum: int, frame: object) -> None:
    if _WRITING[0]:  # SystemExit unwinds the write, which removes its temporary file
        raise SystemExit(128 + signum)
    os._exit(128 + signum)  # between jobs: there is nothing to clean up


#: Whether this worker is running a job (between jobs, there is nothing to unwind).
_WRITING: list[bool] = [False]


def _run_index(jobs: Sequence[Job], index: int) -> tuple[int, Failure | None]:
    _WRITING[0] = True
    try:
        return _run_one(jobs[index], index)
    finally:
        _WRITING[0] = False


def _kill(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except ProcessLookupError:  # it has ended already (a zombie until reaped)
        return


def _remove_temporaries(job: Job, pid: int) -> None:
    """Remove what a killed worker (`pid`) left of writing `job`'s file: the temporaries beside its target that
    figures.files._create_temporary names `.NAME.PID.N.tmp`."""
    folder, name = os.path.split(job.target)
    prefix = f".{name[:32]}.{pid}."
    try:
        names = os.listdir(folder or ".")
    except OSError:
        return
    for entry in names:
        if entry.startswith(prefix) and entry.endswith(".tmp"):
            try:
                os.unlink(os.path.join(folder, entry))
            except OSError:
                continue


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
