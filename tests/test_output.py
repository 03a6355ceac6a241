"""Atomic writes: complete or untouched, never partial."""

import pytest

from attnviz.figures import files as output
from attnviz.figures.files import write_atomic, write_tree_atomic


def test_write_atomic_replaces_whole_file(tmp_path):
    target = tmp_path / "f.svg"
    target.write_text("old", encoding="utf-8")
    write_atomic(target, "new ·")
    assert target.read_text(encoding="utf-8") == "new ·"
    assert [p.name for p in tmp_path.iterdir()] == ["f.svg"]


def test_a_failure_while_staging_leaves_every_target_untouched(tmp_path, monkeypatch):
    a, b = tmp_path / "a.svg", tmp_path / "b.svg"
    a.write_text("keep a", encoding="utf-8")
    calls = []
    real = output._create_temporary

    def failing(path):
        calls.append(path)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        return real(path)

    monkeypatch.setattr(output, "_create_temporary", failing)
    with pytest.raises(OSError):
        write_tree_atomic({a: "new a", b: "new b"})
    assert a.read_text(encoding="utf-8") == "keep a" and not b.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.svg"]


def test_text_that_fails_to_encode_leaves_no_file(tmp_path):
    target = tmp_path / "x.svg"
    target.write_text("keep", encoding="utf-8")
    with pytest.raises(UnicodeEncodeError):
        write_atomic(target, "lone surrogate \ud800")
    assert target.read_text(encoding="utf-8") == "keep"
    assert [p.name for p in tmp_path.iterdir()] == ["x.svg"]


def test_a_symlink_is_refused_not_written_through(tmp_path):
    target = tmp_path / "target.svg"
    target.write_text("old", encoding="utf-8")
    link = tmp_path / "link.svg"
    link.symlink_to(target)
    with pytest.raises(OSError, match="symbolic link"):
        write_atomic(link, "new")
    assert link.is_symlink() and target.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.svg", "target.svg"]


def test_an_existing_files_permissions_are_kept(tmp_path):
    target = tmp_path / "private.svg"
    target.write_text("old", encoding="utf-8")
    target.chmod(0o600)
    write_atomic(target, "new")
    assert target.stat().st_mode & 0o777 == 0o600 and target.read_text(encoding="utf-8") == "new"


def test_a_pipe_is_written_to_not_replaced(tmp_path):
    import os
    import stat
    import threading

    fifo = tmp_path / "fifo.svg"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text(encoding="utf-8")))
    reader.start()
    write_atomic(fifo, "through the pipe")
    reader.join(5)
    assert received == ["through the pipe"] and stat.S_ISFIFO(fifo.stat().st_mode)


def test_dev_null_survives():
    write_atomic("/dev/null", "nothing")
    import stat

    assert stat.S_ISCHR(__import__("os").stat("/dev/null").st_mode)
