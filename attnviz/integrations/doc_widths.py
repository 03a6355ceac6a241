"""Doc figures laid out for the widths a docs theme gives them (issue 38).

A doc figure wider than the theme's content column is scaled down by the browser, and its text with it (the
three-mask panel example came out at 0.43×, its text 5.1 px, in a 1,280 px furo page). With a site's content widths
(`attnviz_doc_widths` in conf.py, `doc_widths` in mkdocs.yml, else the theme's own from `THEME_WIDTHS`), the
directive and the fence draw such a figure once per width in the `doc:WIDTH` frame (layout.frames: every text 12 px
or more at that width, panels stacked where the width holds one) and the page shows the one for the width it has,
by a CSS container query on the figure's box. A figure as wide as the column or narrower is drawn once, as it was;
one no arrangement fits at a width is shown there as it was, scaled.
"""

from __future__ import annotations

import re
from html import escape

from ..layout.frames import DOC_PX_RANGE
from ..numbers.exact import InputError
from .settings import FigureError, Setting, inline_html

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from .docs_cache import Drawn, FigureCache

__all__ = ["THEME_WIDTHS", "site_widths", "theme_widths", "drawn_at_widths", "widths_html"]

#: A docs theme's content column in CSS px, at a 1,280 px page and on a 390 px phone, as Chromium lays it out
#: (measured by tests/test_doc_widths.py); a theme not listed gets no widths (its figures drawn once, as before).
THEME_WIDTHS = {
    "furo": (736, 358),
    "material": (688, 358),  # MkDocs Material
    "sphinx_book_theme": (688, 358),
    "pydata_sphinx_theme": (896, 358),
    "sphinx_rtd_theme": (696, 338),
}


def site_widths(value: object, label: str) -> tuple[int, ...] | None:
    """A site's content widths (`[736, 358]`), checked; None where the site gives none (the theme's then).

    >>> site_widths([358, 736], "doc_widths"), site_widths(None, "doc_widths"), site_widths([], "doc_widths")
    ((736, 358), None, ())
    """
    if value is None:
        return None
    low, high = DOC_PX_RANGE
    if not isinstance(value, (list, tuple)) or not all(type(w) is int and low <= w <= high for w in value):
        raise InputError(f"expected a list of content widths in CSS pixels, each {low} to {high}, as [736, 358]; "
                         f"got {value!r}"[:200], label)
    return tuple(sorted(set(value), reverse=True))


def theme_widths(widths: tuple[int, ...] | None, theme: str | None) -> tuple[int, ...]:
    """The widths a site's figures are drawn for: the site's own, else its theme's (none for a theme not listed)."""
    return widths if widths is not None else THEME_WIDTHS.get(theme or "", ())


def svg_width(svg: str) -> float:
    """The figure's width in CSS px, from its root's viewBox (a framed root's own size is in inches)."""
    found = re.search(r'viewBox="0 0 ([0-9.]+) ', svg[:2000])
    return float(found[1]) if found else 0.0


def drawn_at_widths(cache: FigureCache, settings: Mapping[str, Setting], widths: Iterable[int], *, id_prefix: str,
                    line: int | None = None) -> tuple[Drawn, list[tuple[int, Drawn]]]:
    """(width, figure) from the widest width to the narrowest, each the figure shown from its width up to the width
    before it: the figure as the settings draw it where it is no wider than the width, else drawn in the `doc:WIDTH`
    frame; consecutive widths of one figure as one. Without widths, or for a figure given a frame: [(0, it)]. First the
    figure as the settings draw it (what an image file or a PDF takes)."""
    plain, _ = cache.figure(settings, id_prefix=id_prefix, line=line)
    frame = settings.get("frame")
    if frame is not None and frame.value != "doc":
        return plain, [(0, plain)]
    natural, drawn = svg_width(plain.svg), list[tuple[int, "Drawn"]]()
    for width in sorted(widths, reverse=True):
        variant = plain if natural <= width else _at(cache, settings, width, id_prefix, line) or plain
        if drawn and variant is drawn[-1][1]:
            drawn[-1] = (width, variant)  # (the same figure: shown down to this width)
        else:
            drawn.append((width, variant))
    return plain, drawn or [(0, plain)]


def _at(cache: FigureCache, settings: Mapping[str, Setting], width: int, id_prefix: str,
        line: int | None) -> Drawn | None:
    """The figure laid out for `width` CSS px, or None where no arrangement fits it (it is shown scaled there)."""
    framed = {**settings, "frame": Setting(f"doc:{width}", "doc_widths", line)}
    try:
        drawn, _ = cache.figure(framed, id_prefix=f"{id_prefix}-w{width}", line=line)
    except (FigureError, InputError):  # (a layout's refusal comes as it is drawn)
        return None
    return drawn


def widths_html(drawn: Sequence[tuple[int, str, str]], *, alt: str | None, classes: Iterable[str] = (),
                element_id: str | None = None) -> str:
    """The figure's drawings ((width, SVG, its id prefix) as `drawn_at_widths` gives them) in one box that shows the
    one for the box's width by a container query; one drawing as `inline_html` writes it."""
    classes = tuple(classes)
    if len(drawn) == 1:
        return inline_html(drawn[0][1], alt=alt, classes=classes, element_id=element_id)
    at = f"{drawn[0][2]}-at"  # (the rules are the page's: each figure's own names)
    rules = []
    for n, (width, _, _) in enumerate(drawn):  # shown from its width up to the width before it; the last below too
        if n < len(drawn) - 1:
            rules.append(f"@container (max-width: {width - 0.02:g}px) {{ .{at}-{n} {{ display: none }} }}")
        if n:
            rules.append(f"@container (min-width: {drawn[n - 1][0]}px) {{ .{at}-{n} {{ display: none }} }}")
    body = "".join(inline_html(svg, alt=alt, classes=(f"{at}-{n}",)) for n, (_, svg, _) in enumerate(drawn))
    names = " ".join(["attnviz-widths", *classes])
    ident = f' id="{escape(element_id)}"' if element_id else ""
    return (f'<div class="{escape(names)}"{ident} style="container-type:inline-size">'
            f'<style>{" ".join(rules)}</style>{body}</div>')
