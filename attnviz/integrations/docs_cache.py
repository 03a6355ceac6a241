"""The docs plugins' figure cache: a figure that has not changed is read back, not drawn again.

Docs are rebuilt on every save, and a changed page (or `sphinx-build -E`) reads every figure
on it again. A figure is a function of its settings, its id prefix and attnviz itself, so its
SVG is kept under a hash of exactly those: attnviz's version and the code of the installed
package (an edited checkout draws anew). One JSON file per figure, written atomically, so
parallel builds may write the same one at once. Entries no figure asks for are never read
again; deleting the folder is always safe.

An entry is untrusted data (a cache folder may be restored from CI, shared, or edited): it is inlined
into pages, so it is read back only if it passes two checks, and anything else is a miss (the figure
is drawn again; never an error, never a wait):

- It is a figure attnviz could have drawn (`render.svg_check`): only the elements and attributes
  attnviz writes, ids under the figure's own prefix, no script, event handler, foreignObject,
  external reference, DOCTYPE or entity, a style sheet that paints the figure alone. Whatever a
  cache holds, a page gets no markup but a figure's.
- Its digest checks: an HMAC-SHA256 over its SVG, alt text and key (the hash above), under a key
  that does not live in the folder it protects, but in the user's own cache folder
  (`$XDG_CACHE_HOME/attnviz-docs-cache.key`, else `~/.cache/...`; 32 random bytes made on first use,
  mode 0600). It is read only if it is a regular file this user owns that no one else may read,
  opened without following a link, never waiting (a FIFO), at most 32 bytes; anything else turns
  the cache off for the build (every figure drawn, none kept). So an entry written by anyone who
  can write the folder but not the user's key (a restored or shared cache, a forged `secret` beside
  it) is a miss, not a figure that says what attnviz did not draw. A cache restored onto another
  machine is drawn again once there.

The entries are read as the key is: no link followed, regular files only, a bounded read; each is written
by a rename, which replaces a link or FIFO rather than writing through it; a cache folder that is itself a link
is not used. (Sphinx keeps its own cache beside ours, the doctrees, which it unpickles: whoever can write
there can run code in the build, whatever attnviz does.) No path
comes from an entry: the file name is the key, and the id prefix (which names image files) is the
one asked for.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import stat
import time
from contextlib import suppress
from functools import cache

from .. import __version__
from ..render.svg_check import MAX_SVG_CHARS, svg_problem
from .settings import default_alt, make_figure

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Mapping

    from .settings import Setting

__all__ = ["build_summary", "Drawn", "FigureCache", "code_digest", "entry_digest", "cache_secret", "key_path"]

KEY_FILE = "attnviz-docs-cache.key"  # in the user's own cache folder: the key of every docs cache's digests
SECRET_BYTES = 32
MAX_ENTRY_BYTES = 6 * MAX_SVG_CHARS  # JSON writes a character outside ASCII as \uXXXX
_OPEN = (os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
         | getattr(os, "O_BINARY", 0))  # a link is not followed, a FIFO does not wait for a writer


class Drawn:
    """A figure as a document uses it: its SVG, its id prefix, and the alt text it gives by default."""

    __slots__ = ("svg", "prefix", "alt")

    def __init__(self, svg: str, prefix: str, alt: str) -> None:
        self.svg, self.prefix, self.alt = svg, prefix, alt


class FigureCache:
    """Figures by their settings, in `folder` (None: every figure is drawn, nothing kept)."""

    def __init__(self, folder: str | None) -> None:
        self.folder = folder
        self.drawn = self.reused = 0  # figures drawn, and read back, by this object
        self.seconds = 0.0  # the time both took

    def figure(self, settings: Mapping[str, Setting], *, id_prefix: str,
               line: int | None = None) -> tuple[Drawn, bool]:
        """(Drawn, True if it came from the cache): the figure `embed.make_figure` draws for the settings
        (`embed.Setting`s by key), read back when the same figure was drawn before. Errors are its errors."""
        start = time.perf_counter()
        try:
            key = figure_key(settings, id_prefix)
            secret = cache_secret(self.folder) if self.folder else None
            path = os.path.join(self.folder, f"{key}.json") if self.folder and secret else None
            found = _read(path, key, secret, id_prefix) if path and secret else None
            if found:
                self.reused += 1
                return Drawn(found[0], id_prefix, found[1]), True
            figure = make_figure(settings, id_prefix=id_prefix, line=line)
            drawn = Drawn(figure.svg(), id_prefix, default_alt(figure))
            if path and secret:
                _write(path, key, secret, drawn)
            self.drawn += 1
            return drawn, False
        finally:
            self.seconds += time.perf_counter() - start

    def summary(self) -> str:
        """One line for the build log: figures drawn and reused, and the time spent drawing."""
        return build_summary(self.drawn, self.reused, self.seconds)


def build_summary(drawn: int, reused: int, seconds: float) -> str:
    """"attnviz: 1 figure drawn, 2 read from the cache (0.01 s in attnviz)": the plural agrees with the count.

    >>> build_summary(1, 0, 0.5)
    'attnviz: 1 figure drawn, 0 read from the cache (0.50 s in attnviz)'
    """
    return (f"attnviz: {drawn} figure{'s' * (drawn != 1)} drawn, {reused} read from the cache "
            f"({seconds:.2f} s in attnviz)")


def figure_key(settings: Mapping[str, Setting], id_prefix: str) -> str:
    """The hash of everything a figure's SVG depends on."""
    values = sorted((key, setting.value) for key, setting in settings.items())
    text = repr((values, id_prefix, __version__, code_digest()))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def entry_digest(secret: bytes, key: str, svg: str, alt: str) -> str:
    """The digest an entry carries: an HMAC of its content and its key (so it is good under that key only)."""
    message = json.dumps([key, svg, alt]).encode("ascii")  # ensure_ascii: any text, even lone surrogates
    return hmac.new(secret, message, hashlib.sha256).hexdigest()


@cache
def code_digest() -> str:
    """A hash of attnviz's own code and fonts, so a changed checkout never reads an old figure."""
    package = os.path.dirname(os.path.abspath(__file__))
    digest = hashlib.sha256()
    for folder, subfolders, files in sorted(os.walk(package)):
        subfolders[:] = sorted(name for name in subfolders if name != "__pycache__")
        for name in sorted(files):
            path = os.path.join(folder, name)
            digest.update(os.path.relpath(path, package).encode("utf-8") + b"\0")
            if name.endswith(".py"):
                with open(path, "rb") as source:
                    digest.update(source.read())
            else:  # fonts, data: their size stands for them (they change only with a release)
                digest.update(str(os.path.getsize(path)).encode("ascii"))
    return digest.hexdigest()


def key_path() -> str:
    """Where the key of the docs caches' digests lives: the user's own cache folder, never a docs cache."""
    folder = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(folder):  # unset, empty or relative: the XDG spec says to ignore it
        folder = os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(folder, KEY_FILE)


def cache_secret(folder: str) -> bytes | None:
    """The key of the digests in `folder`: the user's key (`key_path`) with the folder's real path, so an entry is
    good in its own cache only; None when there is none (then the cache is off)."""
    if os.path.islink(folder) or _holds_key(folder):  # a link: entries would be written wherever it points
        return None
    key = _secret(key_path())
    if key is None:
        return None
    return hmac.new(key, os.path.realpath(folder).encode("utf-8", "surrogateescape"), hashlib.sha256).digest()


def _holds_key(folder: str) -> bool:
    """Whether a docs cache is the folder the key lives in (then it would protect itself: no cache)."""
    return os.path.realpath(folder) == os.path.realpath(os.path.dirname(key_path()))


@cache
def _secret(path: str) -> bytes | None:
    """The key at `path`, made if missing or damaged (None: it is not this user's private regular file,
    or it can be neither read nor made; then nothing is kept)."""
    for _ in range(3):  # parallel builds may race to make it: the first one made wins
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            info = None
        except OSError:
            return None
        if info is not None:
            if not _private(info):  # a link, FIFO, device or folder, another's, or readable by others
                return None
            secret = _read_regular(path, SECRET_BYTES)
            if secret is not None and len(secret) == SECRET_BYTES:
                return secret
            _remove(path)  # damaged: a new key, and every entry is drawn again
        try:
            _make_secret(path)
        except OSError:  # a read-only home still builds, drawing every figure
            return None
    return None


def _private(info: os.stat_result) -> bool:
    """Whether a file is one this user owns, regular, and neither group nor others may read or write."""
    owner = os.geteuid() if hasattr(os, "geteuid") else info.st_uid
    return stat.S_ISREG(info.st_mode) and info.st_uid == owner and not info.st_mode & 0o077


def _read_regular(path: str, limit: int) -> bytes | None:
    """The bytes of `path` if it is a regular file of at most `limit` bytes, else None (missing, a link, a FIFO,
    a device, a folder, longer): opened without following a link or waiting, read with a bound."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):  # a device is not even opened
            return None
        handle = os.open(path, _OPEN)
    except OSError:
        return None
    try:
        info = os.fstat(handle)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        chunks, size = [], 0
        while chunk := os.read(handle, limit + 1 - size):  # a file that grows while it is read is cut at the bound
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                return None
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(handle)


def _remove(path: str) -> None:
    with suppress(OSError):
        os.remove(path)


def _make_secret(path: str) -> None:
    # start-up: only a key's first use makes it
    import tempfile

    folder = os.path.dirname(path)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    handle, made = tempfile.mkstemp(dir=folder, prefix=".attnviz-key-")  # readable by this user only
    try:
        with os.fdopen(handle, "wb") as new:
            new.write(os.urandom(SECRET_BYTES))
        os.link(made, path)  # whole, or not at all; never replaces one another build has made
    except FileExistsError:
        pass
    finally:
        os.remove(made)


def _read(path: str, key: str, secret: bytes, id_prefix: str) -> tuple[str, str] | None:
    """(svg, alt) of the entry at `path` if it is one this cache wrote for `key` and a figure attnviz could have
    drawn with `id_prefix`; anything else is a miss."""
    data = _read_regular(path, MAX_ENTRY_BYTES)
    try:
        entry = json.loads(data.decode("utf-8")) if data is not None else None
    except (ValueError, RecursionError):  # cut short, not UTF-8 or JSON, absurdly nested
        return None
    if not isinstance(entry, dict) or set(entry) != {"svg", "alt", "digest"}:
        return None
    svg, alt, digest = entry["svg"], entry["alt"], entry["digest"]
    if not (isinstance(svg, str) and isinstance(alt, str) and isinstance(digest, str)):
        return None
    expected = entry_digest(secret, key, svg, alt)
    # compare_digest takes str of ASCII only: compare bytes, so any text in `digest` is just a mismatch
    if not hmac.compare_digest(digest.encode("utf-8", "replace"), expected.encode("ascii")):
        return None
    return (svg, alt) if svg_problem(svg, id_prefix) is None else None


def _write(path: str, key: str, secret: bytes, drawn: Drawn) -> None:
    """Keep the entry: written whole to a temporary beside it, then renamed over whatever has its name (a link,
    a FIFO or a device is replaced, never written through; a folder stays, and the figure is drawn next time)."""
    import tempfile  # start-up: only a cache that writes needs it

    digest = entry_digest(secret, key, drawn.svg, drawn.alt)
    made = None
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        handle, made = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".entry-", suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as new:
            new.write(json.dumps({"svg": drawn.svg, "alt": drawn.alt, "digest": digest}))
        os.replace(made, path)
        made = None
    except OSError:
        return  # a read-only tree still builds; the figure is drawn again next time
    finally:
        if made:
            _remove(made)
