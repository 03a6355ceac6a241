"""Issue 39: a docs cache is data, not trust. Forged entries under a forged secret, hostile keys and entries.

Whatever a cache folder holds (entries signed with a `secret` written beside them, or even with the user's own
key, a link to /dev/zero, a FIFO, a folder, a huge file), the page gets attnviz's own figure, the build ends
in seconds with no traceback, and in Chromium the built page runs no script.
"""

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from attnviz.integrations.docs_cache import FigureCache, cache_secret, entry_digest, figure_key, key_path
from attnviz.integrations.settings import Setting
from test_docs_cache import PAGES, own_key, pages, sphinx  # noqa: F401 - own_key: each test's own user key
from test_mkdocs import site
from test_sphinx import write_project

PWNED = "document.title='pwned'"
FORGED = {  # what a forged entry's SVG could be: each would run a script, reach out, or expand entities
    "foreignObject": '<svg xmlns="http://www.w3.org/2000/svg" id="{p}"><foreignObject width="9" height="9">'
                     f'<img xmlns="http://www.w3.org/1999/xhtml" src="x" onerror="{PWNED}"/></foreignObject></svg>',
    "script": f'<svg xmlns="http://www.w3.org/2000/svg" id="{{p}}"><script>{PWNED}</script></svg>',
    "onload": f'<svg xmlns="http://www.w3.org/2000/svg" id="{{p}}" onload="{PWNED}"><rect width="9" height="9"/></svg>',
    "external href": '<svg xmlns="http://www.w3.org/2000/svg" id="{p}"><image href="https://evil.example/x.png" '
                     'width="9" height="9"/></svg>',
    "DOCTYPE": '<!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>'
               '<svg xmlns="http://www.w3.org/2000/svg" id="{p}"><title id="{p}-title">&b;&b;</title></svg>',
    "style": '<svg xmlns="http://www.w3.org/2000/svg" id="{p}"><style>@import url(https://evil.example/a.css); '
             'body {{ display: none }}</style></svg>',
}
MARKS = ("onerror", "onload", "foreignObject", "evil.example", "ENTITY", "pwned")  # the theme has its own <script>s


def forge(folder, secret, prefixes):
    """Rewrite every entry in `folder` as a hostile SVG (one kind each, in turn) signed under `secret`."""
    found = sorted(folder.glob("*.json"))
    assert found
    for n, path in enumerate(found):
        svg = list(FORGED.values())[n % len(FORGED)].format(p=prefixes[path.stem])
        alt = "<img src=x onerror=alert(1)>"
        digest = entry_digest(secret, path.stem, svg, alt)
        path.write_text(json.dumps({"svg": svg, "alt": alt, "digest": digest}), encoding="utf-8")


def prefixes_of(folder):
    """Each entry's id prefix (its SVG's root id), by its key."""
    return {path.stem: re.search(r'<svg [^>]*?id="([^"]+)"', json.loads(path.read_text("utf-8"))["svg"])[1]
            for path in folder.glob("*.json")}


def clean(text):
    return not any(mark in text for mark in MARKS)


def test_sphinx_inlines_no_forged_entry_under_a_forged_secret_or_the_users_own_key(tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    write_project(src, PAGES)
    assert sphinx(src, out)[:2] == (0, (6, 0))
    first = pages(out)
    folder = out / ".doctrees" / "attnviz-figures"
    prefixes = prefixes_of(folder)
    forged_secret = b"\x01" * 32
    (folder / "secret").write_bytes(forged_secret)  # the old layout: the secret beside the entries it keys
    forge(folder, forged_secret, prefixes)
    code, counts, stderr = sphinx(src, out, "-E")
    assert (code, counts) == (0, (6, 0)) and "Traceback" not in stderr, stderr  # every forged entry a miss
    assert pages(out) == first and all(map(clean, pages(out).values()))
    forge(folder, cache_secret(str(folder)), prefixes)  # even signed with the user's own key: not a figure
    code, counts, stderr = sphinx(src, out, "-E")
    assert (code, counts) == (0, (6, 0)) and "Traceback" not in stderr, stderr
    assert pages(out) == first and all(map(clean, pages(out).values()))
    assert sphinx(src, out, "-E")[:2] == (0, (0, 6))  # the figures drawn again were kept again


MKDOCS_PAGE = {"index.md": '# Home\n\n```attnviz\n```\n\n```attnviz\nq = "1,2; 0,1"\nk = "1,2; 0,1"\n```\n'}


def mkdocs(root):
    """(status, figures drawn and read back, the page, stderr) of `mkdocs build --strict`."""
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict"], cwd=root, capture_output=True,
                          text=True, timeout=120)
    counts = re.findall(r"attnviz: (\d+) figures? drawn, (\d+) read from the cache", done.stderr)
    page = root / "site" / "index.html"
    return (done.returncode, tuple(map(int, counts[-1])) if counts else None,
            page.read_text(encoding="utf-8") if page.exists() else "", done.stderr)


def figures(html):
    return re.findall(r"<svg .*?</svg>", html, flags=re.S)  # the page itself carries its build date


def test_mkdocs_inlines_no_forged_entry_and_chromium_runs_no_script(tmp_path, page):
    site(tmp_path, "site_name: Test\nplugins:\n  - attnviz\n", MKDOCS_PAGE)
    code, counts, html, stderr = mkdocs(tmp_path)
    assert (code, counts) == (0, (2, 0)), stderr
    first = figures(html)
    page.goto((tmp_path / "site" / "index.html").as_uri())
    title = page.title()
    folder = tmp_path / ".cache" / "attnviz"
    prefixes = prefixes_of(folder)
    for secret in (b"\x02" * 32, cache_secret(str(folder))):  # a forged secret beside them; the user's own key
        (folder / "secret").write_bytes(b"\x02" * 32)
        forge(folder, secret, prefixes)
        code, counts, html, stderr = mkdocs(tmp_path)
        assert (code, counts) == (0, (2, 0)) and "Traceback" not in stderr, stderr
        assert figures(html) == first and clean(html)
        page.goto((tmp_path / "site" / "index.html").as_uri())
        page.wait_for_load_state("load")
        assert page.title() == title and "pwned" not in page.content()


def test_sphinx_pages_run_no_script_in_chromium(tmp_path, page):
    src, out = tmp_path / "src", tmp_path / "out"
    write_project(src, {"index": PAGES["index"]})
    assert sphinx(src, out)[:2] == (0, (2, 0))
    page.goto((out / "index.html").as_uri())
    title = page.title()
    folder = out / ".doctrees" / "attnviz-figures"
    (folder / "secret").write_bytes(b"\x03" * 32)
    forge(folder, b"\x03" * 32, prefixes_of(folder))
    assert sphinx(src, out, "-E")[:2] == (0, (2, 0))
    page.goto((out / "index.html").as_uri())
    page.wait_for_load_state("load")
    assert page.title() == title and "pwned" not in page.content()


def test_the_forged_svgs_would_run_if_inlined(page):
    """The control: inlined as they are, the forged figures do run their script (so the tests above test it)."""
    for kind in ("foreignObject", "script", "onload"):
        page.set_content(f"<html><head><title>t</title></head><body>{FORGED[kind].format(p='p')}</body></html>")
        page.wait_for_timeout(200)
        assert page.title() == "pwned", kind


# Hostile keys and entries: each is a miss, in bounded time, never an error or a wait.

class Hung(Exception):  # noqa: N818 - not an OSError (as TimeoutError is), which the cache would take for a miss
    """The block took too long."""


@contextlib.contextmanager
def within(seconds):
    """Fail, rather than hang, when the block takes longer than `seconds`."""
    def stop(*_):
        raise Hung(f"took longer than {seconds} s")

    old = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def link_to_zero(path):
    os.symlink("/dev/zero", path)


def fifo(path):
    os.mkfifo(path)


def folder(path):
    path.mkdir()


def huge(path):
    with open(path, "wb") as file:
        file.truncate(20 * 2**30)  # 20 GiB, sparse


def link_to_a_good_file(path):
    target = path.parent / "elsewhere"
    target.write_bytes(os.urandom(32))
    target.chmod(0o600)
    os.symlink(target, path)


def readable_by_others(path):
    path.write_bytes(os.urandom(32))
    path.chmod(0o644)


def anothers(path):
    path.write_bytes(os.urandom(32))
    path.chmod(0o600)
    os.chown(path, os.geteuid() + 1000, -1)


HOSTILE_FILES = [link_to_zero, fifo, folder, huge, link_to_a_good_file]
HOSTILE_KEYS = [*HOSTILE_FILES, readable_by_others] + ([anothers] if os.geteuid() == 0 else [])
ONE = {"q": Setting([["1", "0"]], "q"), "k": Setting([["1", "0"]], "k")}


def draw(cache, times=2):
    """Whether each of `times` draws of ONE came from the cache, all within a few seconds, and the SVG drawn."""
    with within(5):
        results = [cache.figure(ONE, id_prefix="attnviz-t-1") for _ in range(times)]
    return [reused for _, reused in results], results[-1][0].svg


@pytest.mark.parametrize("make", HOSTILE_KEYS, ids=lambda make: make.__name__)
def test_a_hostile_key_turns_the_cache_off(tmp_path, own_key, make):  # noqa: F811 - the fixture, by name
    own_key.parent.mkdir(parents=True)
    make(own_key)
    cache = FigureCache(str(tmp_path / "cache"))
    reused, svg = draw(cache)
    assert reused == [False, False]  # every figure drawn, none kept
    assert 'id="attnviz-t-1"' in svg and not list((tmp_path / "cache").glob("*.json"))


def test_a_key_that_cannot_be_made_turns_the_cache_off(tmp_path, monkeypatch):
    (tmp_path / "a-file").write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "a-file" / "cache"))
    assert draw(FigureCache(str(tmp_path / "cache")))[0] == [False, False]


def test_a_cache_folder_that_is_a_link_is_not_used(tmp_path):
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", tmp_path / "cache")
    assert draw(FigureCache(str(tmp_path / "cache")))[0] == [False, False]
    assert not list((tmp_path / "elsewhere").iterdir())  # nothing written where the link points


def test_a_relative_xdg_cache_home_is_ignored(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert key_path() == str(tmp_path / "home" / ".cache" / "attnviz-docs-cache.key")


def test_a_damaged_key_is_made_again(tmp_path, own_key):  # noqa: F811
    own_key.parent.mkdir(parents=True)
    own_key.write_bytes(b"short")
    own_key.chmod(0o600)
    assert draw(FigureCache(str(tmp_path / "cache")))[0] == [False, True]
    assert len(own_key.read_bytes()) == 32 and own_key.stat().st_mode & 0o777 == 0o600


def test_the_key_is_made_private_outside_the_cache(tmp_path, own_key):  # noqa: F811
    cache = tmp_path / "cache"
    assert draw(FigureCache(str(cache)))[0] == [False, True]
    assert own_key.stat().st_mode & 0o777 == 0o600 and own_key.stat().st_uid == os.geteuid()
    assert sorted(path.suffix for path in cache.iterdir()) == [".json"]  # no secret beside the entries
    assert draw(FigureCache(str(own_key.parent)))[0] == [False, False]  # a cache in the key's own folder: off


@pytest.mark.parametrize("make", HOSTILE_FILES, ids=lambda make: make.__name__)
def test_a_hostile_entry_is_a_miss(tmp_path, make):
    cache = FigureCache(str(tmp_path / "cache"))
    reused, own = draw(cache, times=1)
    entry = tmp_path / "cache" / f"{figure_key(ONE, 'attnviz-t-1')}.json"
    entry.unlink()
    make(entry)
    reused, svg = draw(cache, times=1)
    assert reused == [False] and svg == own


def build_time(command, cwd=None):
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=120)
    return done, time.perf_counter() - start


@pytest.mark.parametrize("make", [link_to_zero, fifo, folder, huge], ids=lambda make: make.__name__)
def test_sphinx_builds_past_a_hostile_secret_beside_the_entries_and_a_hostile_key(tmp_path, own_key, make):  # noqa: F811
    src, out = tmp_path / "src", tmp_path / "out"
    write_project(src, {"index": PAGES["index"]})
    assert sphinx(src, out)[:2] == (0, (2, 0))
    first = (out / "index.html").read_text(encoding="utf-8")
    secret = out / ".doctrees" / "attnviz-figures" / "secret"
    secret.unlink(missing_ok=True)
    make(secret)  # the old layout's secret, as the attacker left it: now nothing reads it
    assert sphinx(src, out, "-E")[:2] == (0, (0, 2))
    own_key.unlink()
    make(own_key)
    done, seconds = build_time([sys.executable, "-m", "sphinx", "-b", "html", "-E", str(src), str(out)])
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert "attnviz: 2 figures drawn, 0 read from the cache" in done.stdout
    assert (out / "index.html").read_text(encoding="utf-8") == first and seconds < 60


@pytest.mark.parametrize("make", [link_to_zero, fifo], ids=lambda make: make.__name__)
def test_mkdocs_builds_past_a_hostile_secret_and_entries(tmp_path, make):
    site(tmp_path, "site_name: Test\nplugins:\n  - attnviz\n", MKDOCS_PAGE)
    code, counts, html, stderr = mkdocs(tmp_path)
    assert (code, counts) == (0, (2, 0)), stderr
    folder = tmp_path / ".cache" / "attnviz"
    make(folder / "secret")
    for entry in folder.glob("*.json"):
        entry.unlink()
        make(entry)
    code, counts, again, stderr = mkdocs(tmp_path)
    assert (code, counts) == (0, (2, 0)) and "Traceback" not in stderr, stderr
    assert figures(again) == figures(html)
