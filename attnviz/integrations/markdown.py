"""The ```attnviz fence for Python-Markdown, through pymdownx.superfences (as MkDocs Material draws mermaid).

In MkDocs, `plugins: [attnviz]` sets it up (see attnviz.mkdocs); anywhere else, configure
superfences with this custom fence:

    markdown_extensions:
      - pymdownx.superfences:
          custom_fences:
            - name: attnviz
              class: attnviz
              format: !!python/name:attnviz.integrations.markdown.fence_format
              validator: !!python/name:attnviz.integrations.markdown.fence_validator

The fence's body is a figure spec in TOML (empty: the seed figure); its header takes the Sphinx
directive's options: `alt="..."` (what screen readers announce), `caption="..."` and every figure key
(`title="..."`, `frame="slide"`, `theme="dark"`), which override the body's. It renders to the inline
SVG when the page is built; a figure that cannot be drawn stops the build with an error naming the page
and the block, and so does a failure of attnviz itself (with its traceback): superfences would otherwise show the
block as a code block and carry on.
"""

from __future__ import annotations

import difflib
import html

try:
    from pymdownx.superfences import SuperFencesException  # type: ignore[import-untyped]  # pymdownx ships no types
except ImportError:  # the MkDocs plugin says in one line what to install (`mkdocs.MISSING`)
    class SuperFencesException(Exception):  # type: ignore[no-redef]
        """Stands in for superfences' exception when pymdown-extensions is not installed."""

from . import settings as embed
from ..io import spec
from ..io.spec import value_from_text
from ..errors import describe
from ..numbers.exact import InputError
from ..words.user_text import check_text

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, TypeAlias

    from .docs_cache import FigureCache
    from .settings import Setting

    #: A markdown.Markdown (Python-Markdown ships no type information).
    Markdown: TypeAlias = Any

__all__ = ["FENCE", "FenceError", "FenceInternalError", "fence_format", "fence_validator", "set_page"]


def _error_class() -> tuple[type[Exception], ...]:
    # In MkDocs, a BuildError is reported as one line rather than a traceback.
    try:
        from mkdocs.exceptions import BuildError  # optional dependency: MkDocs, only when building with it
    except ImportError:
        return (SuperFencesException,)
    return (SuperFencesException, BuildError)


if TYPE_CHECKING:  # its bases are chosen when it is imported: superfences' exception, and MkDocs' if installed
    class FenceError(Exception):
        """An attnviz block that cannot be drawn. Superfences lets this kind of exception through."""
else:
    class FenceError(*_error_class()):
        """An attnviz block that cannot be drawn. Superfences lets this kind of exception through."""


class FenceInternalError(SuperFencesException):  # type: ignore[misc]  # superfences' exception is untyped
    """attnviz failed on a block through no fault of the block: not a BuildError, so MkDocs stops with the
    traceback (of the exception it is raised from) rather than one line."""


_page: dict[str, str | None] = {"name": None, "source": None}  # the MkDocs page being rendered, set by the plugin


def set_page(name: str | None, source: str | None = None) -> None:
    """Name the page being rendered (None: none), so ids and errors name it; its source gives line numbers."""
    _page.update(name=name, source=source)


#: The fence's own options, as the Sphinx directive's: every other option is a spec key.
OWN_OPTIONS = ("alt", "caption")


def fence_validator(language: str, inputs: Mapping[str, str], options: dict[str, Any], attrs: dict[str, Any],
                    md: Markdown) -> bool:
    """Accept the Sphinx directive's options in the fence's header: `alt="..."`, `caption="..."` and every spec
    key (`title="..."`, `frame="slide"`, `q_tokens="a b"`; a key alone, `elide`, is true); anything else is an
    error, not a silent code block."""
    known = [*OWN_OPTIONS, *spec.KEYS]
    for name, value in inputs.items():
        if name not in known:
            close = difflib.get_close_matches(name.replace("-", "_"), known, n=1, cutoff=0.6)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise FenceError(_where(_count(md) + 1) + f": unknown fence option {name!r}; {hint}the options are "
                             'alt, caption and the figure keys, quoted: title="...", frame="slide", theme="dark"')
        options[name] = "true" if value == name and name in spec.KEYS else value
    return True


def fence_format(source: str, language: str, class_name: str, options: Mapping[str, Any], md: Markdown,
                 defaults: Mapping[str, Setting] | None = None, cache: FigureCache | None = None,
                 dark_selector: str | None = None, **kwargs: Any) -> str:
    """The block's figure, as inline SVG in a `<div class="attnviz-figure">`; `defaults`: checked
    site-wide settings (`embed.default_settings`) the block's keys override; `cache`: a
    `cache.FigureCache` to read unchanged figures back from (None: draw every one). The figure follows
    the page's light or dark toggle (theme auto) unless the block or `defaults` say otherwise;
    `dark_selector`: the site's own toggle (checked, `embed.site_dark_selector`); `doc_widths=` (a keyword): the
    theme's content widths a doc figure wider than one is drawn for too (`doc_widths.drawn_at_widths`)."""
    number = _next(md)
    page = _page["name"]
    first_line = _block_line(_page["source"], source, number)
    try:
        settings = dict(defaults or {})
        settings.update(embed.block_settings(source, first_line or 1))
        settings.update(_option_settings(options, first_line))
        settings = embed.with_site_look(settings, dark_selector, "attnviz: dark_selector")
        alt, caption = (options.get(name) for name in OWN_OPTIONS)
        if alt is not None:
            alt = check_text(alt, "alt")
        if caption is not None:
            caption = check_text(caption, "caption")
        prefix = embed.id_prefix(page.rsplit(".", 1)[0] if page else "md", number)
        if cache is None:
            from .docs_cache import FigureCache  # start-up: only a cached build needs it

            cache = FigureCache(None)
        from .doc_widths import drawn_at_widths, widths_html  # start-up: only a fence draws

        widths = kwargs.get("doc_widths") or ()
        _, drawn = drawn_at_widths(cache, settings, widths, id_prefix=prefix, line=first_line or 1)
    except embed.FigureError as err:
        where = _where(number, page_line=err.line) if first_line else _where(number, block_line=err.line)
        raise FenceError(f"{where}: {err.message}") from None
    except InputError as err:
        raise FenceError(f"{_where(number, page_line=first_line)}: {embed.say(err)}") from None
    except Exception as err:  # a bug: superfences lets only its own exceptions stop the build
        raise FenceInternalError(f"{_where(number, page_line=first_line)}: internal error: {describe(err)}; "
                                 "please report this bug") from err
    # Accessible names are unique on a page: MkDocs makes a Markdown instance anew for each page.
    seen: set[str] = getattr(md, "attnviz_names", set())
    md.attnviz_names = seen
    figure = widths_html([(width, one.svg, one.prefix) for width, one in drawn],
                         alt=embed.unique_alt(drawn[0][1].svg, alt, seen), classes=kwargs.get("classes") or ())
    if caption is None:
        return figure
    return f'<figure class="attnviz">{figure}<figcaption>{html.escape(caption)}</figcaption></figure>'


def _option_settings(options: Mapping[str, Any], line: int | None) -> dict[str, Setting]:
    """The header's figure keys (`title="Causal"`, `frame="slide"`), read as the Sphinx directive reads its options,
    so they override the block's keys."""
    settings: dict[str, Setting] = {}
    for key, text in options.items():
        if key in OWN_OPTIONS or key not in spec.KEYS:
            continue
        label = f"fence option {key}"
        header = line - 1 if line else None  # the fence's own line, above the body
        try:
            settings[key] = embed.Setting(value_from_text(key, str(text), label), label, header)
        except InputError as err:
            raise embed.FigureError(str(err), header) from None
    return settings


#: The custom fence, as superfences takes it (the MkDocs plugin adds this one).
FENCE = {"name": "attnviz", "class": "attnviz", "format": fence_format, "validator": fence_validator}


def _count(md: Markdown) -> int:
    count: int = getattr(md, "attnviz_blocks", 0)
    return count


def _next(md: Markdown) -> int:
    """Blocks are numbered per Markdown instance, which MkDocs makes anew for each page."""
    number = md.attnviz_blocks = _count(md) + 1
    return number


def _where(number: int, page_line: int | None = None, block_line: int | None = None) -> str:
    """`page.md:12: attnviz block 2`, or without a page line `page.md: attnviz block 2: line 3`."""
    page = _page["name"]
    block = f"attnviz block {number}"
    if page and page_line:
        return f"{page}:{page_line}: {block}"
    where = f"{page}: {block}" if page else block
    return f"{where}: line {block_line}" if block_line else where


def _block_line(page_source: str | None, body: str, number: int) -> int | None:
    """The page line of the block's first body line: the `number`th attnviz fence if its body is `body`."""
    if page_source is None:
        return None
    found = 0
    lines = page_source.splitlines()
    for index, line in enumerate(lines):
        stripped = line.lstrip(" >\t")
        fence = stripped[:3]
        if fence not in ("```", "~~~") or not stripped.lstrip("`~").lstrip().startswith("attnviz"):
            continue
        found += 1
        if found == number:
            indent = len(line) - len(stripped)
            end = next((n for n in range(index + 1, len(lines)) if lines[n][indent:].startswith(fence)), len(lines))
            inner = [text[indent:] for text in lines[index + 1:end]]
            return index + 2 if "\n".join(inner).strip() == body.strip() else None
    return None
