"""Hostile files: links planted in output folders, names at the file system's limit, `-` and /dev/stdout as
outputs. A refusal is exit 2 and one line; a file outside the output folder is never touched."""

import os
import subprocess
import sys

import pytest
from clirun import run_cli


def refused(tmp_path, *args):
    """Run the command; assert exit 2, one error line, and no file or folder made or changed; returns the line."""
    before = snapshot(tmp_path)
    result = run_cli(*args)
    assert result.code == 2, result
    assert result.stdout == "" and len(result.stderr.splitlines()) == 1, result.stderr
    assert result.stderr.startswith("attnviz: error: ")
    assert snapshot(tmp_path) == before  # nothing written, nothing left behind, outside or in
    return result.stderr.removeprefix("attnviz: error: ").rstrip("\n")


def snapshot(folder):
    """Every entry under `folder` (links not followed): its kind and its bytes or link target."""
    found = {}
    for root, dirs, names in os.walk(folder):
        for name in dirs + names:
            path = os.path.join(root, name)
            if os.path.islink(path):
                found[path] = ("link", os.readlink(path))
            elif os.path.isfile(path):
                with open(path, "rb") as handle:
                    found[path] = ("file", handle.read())
            else:
                found[path] = ("folder", None)
    return found


@pytest.fixture
def outside(tmp_path, monkeypatch):
    """A file and a folder outside the working folder, which a planted link points at."""
    (tmp_path / "outside").mkdir()
    secret = tmp_path / "outside" / "secret.txt"
    secret.write_text("keep me\n", encoding="utf-8")
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    return secret


# --- Links inside the output folder are never written through ------------------------------------------

def test_a_link_at_the_figures_file_is_refused(tmp_path, outside):
    os.mkdir("out")
    os.symlink(outside, "out/x.svg")
    error = refused(tmp_path, "render", "-o", "out/x.svg")
    assert error.startswith("-o out/x.svg: cannot write: it is a symbolic link")
    assert outside.read_text(encoding="utf-8") == "keep me\n"


def test_a_link_at_the_figures_file_is_refused_by_its_absolute_path_too(tmp_path, outside):
    target = tmp_path / "work" / "x.svg"
    os.symlink(outside, target)
    assert "it is a symbolic link" in refused(tmp_path, "render", "-o", str(target))
    assert outside.read_text(encoding="utf-8") == "keep me\n"


def test_a_link_to_a_device_is_refused_too(tmp_path, outside):
    os.symlink("/dev/null", "x.svg")
    assert "x.svg: cannot write: it is a symbolic link" in refused(tmp_path, "render", "-o", "x.svg")


def test_a_folder_that_is_a_link_is_refused(tmp_path, outside):
    os.symlink(outside.parent, "out")
    assert refused(tmp_path, "render", "-o", "out/x.svg").startswith("-o out/x.svg: cannot write: out: it is a "
                                                                     "symbolic link")
    assert os.listdir(outside.parent) == ["secret.txt"]


def test_a_link_at_a_pages_index_is_refused(tmp_path, outside):
    os.mkdir("site")
    os.symlink(outside, "site/index.html")
    error = refused(tmp_path, "page", "-o", "site")
    assert error.startswith("-o site: cannot write: site/index.html: it is a symbolic link")
    assert outside.read_text(encoding="utf-8") == "keep me\n"


@pytest.mark.parametrize("absolute", [False, True], ids=["relative", "absolute"])
def test_a_link_at_a_folder_inside_a_page_is_refused(tmp_path, outside, absolute):
    os.mkdir("site")
    os.symlink(outside.parent, "site/steps")
    site = str(tmp_path / "work" / "site") if absolute else "site"
    assert f"{site}/steps: it is a symbolic link" in refused(tmp_path, "page", "-o", site)
    assert os.listdir(outside.parent) == ["secret.txt"]


def test_a_pages_folder_that_is_a_link_is_refused(tmp_path, outside):
    os.symlink(outside.parent, "site")
    assert refused(tmp_path, "page", "-o", "site").startswith("-o site: cannot write: it is a symbolic link")
    assert os.listdir(outside.parent) == ["secret.txt"]


def test_a_link_inside_an_earlier_reveal_deck_is_refused(tmp_path, outside):
    assert run_cli("slides", "-f", "revealjs", "-o", "deck").code == 0
    os.remove("deck/index.html")
    os.symlink(outside, "deck/index.html")
    assert "deck/index.html: it is a symbolic link" in refused(tmp_path, "slides", "-f", "revealjs", "-o", "deck")
    assert outside.read_text(encoding="utf-8") == "keep me\n"


def test_a_link_planted_at_the_temporary_name_is_not_followed(tmp_path, outside):
    """The temporary file is opened O_EXCL | O_NOFOLLOW: a link in its place is passed over, never opened."""
    os.symlink(outside, f".x.svg.{os.getpid()}.0.tmp")
    result = run_cli("render", "-o", "x.svg")
    assert result.code == 0 and result.stdout == "x.svg\n"
    assert (tmp_path / "work" / "x.svg").read_text(encoding="utf-8").startswith("<svg ")
    assert outside.read_text(encoding="utf-8") == "keep me\n"


# --- Names at the file system's limit ----------------------------------------------------------------------

def test_a_255_byte_name_is_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    name = "é" * 125 + "a.svg"  # 255 bytes in UTF-8: the most most file systems allow
    assert len(os.fsencode(name)) == 255
    result = run_cli("render", "-o", name)
    assert result.code == 0 and result.stdout == f"{name}\n"
    assert os.listdir(tmp_path) == [name]  # and no temporary left beside it
    assert (tmp_path / name).read_text(encoding="utf-8").startswith("<svg ")


def test_a_name_past_the_limit_is_one_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    name = "a" * 256 + ".svg"
    assert refused(tmp_path, "render", "-o", name) == f"-o {name}: cannot write: File name too long"


# --- `slides -o -` is standard output; a reveal.js deck is a folder -----------------------------------------

@pytest.mark.parametrize("format, start", [("beamer", "% attnviz: a Beamer deck"), ("tikz", "%"),
                                           ("svg-animated", "<svg ")])
def test_a_text_deck_goes_to_standard_output(tmp_path, monkeypatch, format, start):
    monkeypatch.chdir(tmp_path)
    result = run_cli("slides", "-f", format, "-o", "-")
    assert result.code == 0 and result.stdout.startswith(start) and result.stderr == ""
    assert os.listdir(tmp_path) == []  # no file named "-"


def attnviz(*args, **kwargs):
    return subprocess.run([sys.executable, "-m", "attnviz", *args], capture_output=True, **kwargs)


@pytest.mark.parametrize("format, magic", [("pdf", b"%PDF-"), ("pptx", b"PK\x03\x04")])
def test_a_binary_deck_goes_to_a_pipe(tmp_path, format, magic):
    done = attnviz("slides", "-f", format, "-o", "-", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.startswith(magic) and done.stderr == b""
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("format", ["pdf", "pptx"])
def test_a_binary_deck_is_refused_on_a_terminal(tmp_path, format):
    import pty

    leader, follower = pty.openpty()
    try:
        done = subprocess.run([sys.executable, "-m", "attnviz", "slides", "-f", format, "-o", "-"], cwd=tmp_path,
                              stdout=follower, stderr=subprocess.PIPE)
    finally:
        os.close(follower)
    os.close(leader)
    assert done.returncode == 2
    assert done.stderr.decode() == (f"attnviz: error: -o -: a {format.upper()} deck is binary, not for a terminal; "
                                    f"redirect it (> talk.{format}) or give -o talk.{format}\n")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("path", ["-", "talk.html", "talk.HTM"])
def test_a_reveal_deck_is_a_folder(tmp_path, monkeypatch, path):
    monkeypatch.chdir(tmp_path)
    assert refused(tmp_path, "slides", "-f", "revealjs", "-o", path) == (
        f"-o {path}: a reveal.js deck is a folder (index.html and reveal.js/), not one file; give a folder, e.g. "
        "-o talk")


def test_a_reveal_deck_never_replaces_a_folders_own_index(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    os.mkdir("talk")
    (tmp_path / "talk" / "index.html").write_text("my own page\n", encoding="utf-8")
    assert refused(tmp_path, "slides", "-f", "revealjs", "-o", "talk") == (
        "-o talk: the folder has files that are not an attnviz deck (a deck writes index.html there); give a new or "
        "empty folder")


def test_a_reveal_deck_replaces_an_earlier_deck(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    first = run_cli("slides", "-f", "revealjs", "-o", "talk")
    assert first.code == 0 and "talk/.attnviz-deck\n" in first.stdout
    (tmp_path / "talk" / "index.html").write_text("stale\n", encoding="utf-8")
    again = run_cli("slides", "-f", "revealjs", "-o", "talk")
    assert again.code == 0 and again.stdout == first.stdout
    assert "<section" in (tmp_path / "talk" / "index.html").read_text(encoding="utf-8")


def test_a_reveal_deck_from_before_the_marker_is_replaced(tmp_path, monkeypatch):
    """A deck of an earlier attnviz (index.html and reveal.js/, no marker) is still recognised."""
    monkeypatch.chdir(tmp_path)
    assert run_cli("slides", "-f", "revealjs", "-o", "talk").code == 0
    os.remove("talk/.attnviz-deck")
    assert run_cli("slides", "-f", "revealjs", "-o", "talk").code == 0
    assert sorted(os.listdir("talk")) == [".attnviz-deck", "index.html", "reveal.js"]


# --- /dev/stdout: the written path is not echoed into the figure's own stream ---------------------------

@pytest.mark.parametrize("args, end", [(["render"], b"</svg>\n"), (["css"], b"}\n"),
                                       (["slides", "-f", "beamer"], b"\\end{document}\n")])
def test_dev_stdout_on_a_pipe_holds_only_the_output(tmp_path, args, end):
    done = attnviz(*args, "-o", "/dev/stdout", cwd=tmp_path)
    assert done.returncode == 0 and done.stderr == b""
    assert done.stdout.endswith(end) and b"/dev/stdout" not in done.stdout


def test_a_file_is_still_listed_when_standard_output_is_a_pipe(tmp_path):
    done = attnviz("render", "-o", "x.svg", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout == b"x.svg\n"
