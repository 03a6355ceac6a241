"""The docs plugins' figure cache: a figure that has not changed is read back, not drawn again.

Docs are rebuilt on every save, and a changed page (or `sphinx-build -E`) reads every figure
on it again. A figure is a function of its settings, its id prefix and attnviz itself, so its
SVG is kept under a hash of exactly those: attnviz's version and the code of the installed
package (an edited checkout draws anew). One JSON file per figure, written atomically, so
parallel builds may write the same one at once. Entries no figure asks for are never read
again; deleting the folder is always safe.

An entry is untrusted data (a cache folder may be restored from CI, or edited): it is inlined
into pages, so it is read back only if its digest checks, an HMAC-SHA256 over its SVG and alt
text and its key (the hash above), under a random secret the folder keeps (`secret`, made on
first use). Anything else (bad JSON, wrong fields or types, a digest that does not match) is
a miss and the figure is drawn again. No path comes from an entry: the file name is the key,
and the id prefix (which names image files) is the one asked for. Whoever can read the secret
can still forge entries; the digest keeps out edited, damaged and transplanted ones.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import time
from functools import cache

from .. import __version__
from .settings import default_alt, make_figure

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Mapping

    from .settings import Setting

__all__ = ["build_summary", "Drawn", "FigureCache", "code_digest", "entry_digest"]

SECRET = "secret"  # the file in the cache folder that keys its digests
SECRET_BYTES = 32


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
            secret = _secret(self.folder) if self.folder else None
            path = os.path.join(self.folder, f"{key}.json") if self.folder and secret else None
            found = _read(path, key, secret) if path and secret else None
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


@cache
def _secret(folder: str) -> bytes | None:
    """The folder's secret, made if missing or damaged (None: it can be neither read nor made; nothing is kept)."""
    path = os.path.join(folder, SECRET)
    for _ in range(3):  # parallel builds may race to make it: the first one made wins
        try:
            with open(path, "rb") as stored:
                secret = stored.read()
            if len(secret) == SECRET_BYTES:
                return secret
            os.remove(path)  # damaged: a new secret, and every entry is drawn again
        except FileNotFoundError:
            pass
        except OSError:
            return None
        try:
            _make_secret(folder, path)
        except OSError:  # a read-only tree still builds, drawing every figure
            return None
    return None


def _make_secret(folder: str, path: str) -> None:
    # start-up: only a cache's first use makes its secret
    import tempfile

    os.makedirs(folder, exist_ok=True)
    handle, made = tempfile.mkstemp(dir=folder, prefix=".secret-")  # readable by this user only
    try:
        with os.fdopen(handle, "wb") as new:
            new.write(os.urandom(SECRET_BYTES))
        os.link(made, path)  # whole, or not at all; never replaces one another build has made
    except FileExistsError:
        pass
    finally:
        os.remove(made)


def _read(path: str, key: str, secret: bytes) -> tuple[str, str] | None:
    """(svg, alt) of the entry at `path` if it is one this cache wrote for `key`; anything else is a miss."""
    try:
        with open(path, encoding="utf-8") as stored:
            entry = json.load(stored)
    except (OSError, ValueError, RecursionError):  # missing, cut short, not UTF-8 or JSON, absurdly nested
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
    return svg, alt


def _write(path: str, key: str, secret: bytes, drawn: Drawn) -> None:
    from ..io.atomic import write_files  # start-up: only a cache that writes needs it

    digest = entry_digest(secret, key, drawn.svg, drawn.alt)
    try:
        write_files({path: json.dumps({"svg": drawn.svg, "alt": drawn.alt, "digest": digest})})
    except OSError:
        return  # a read-only tree still builds; the figure is drawn again next time
