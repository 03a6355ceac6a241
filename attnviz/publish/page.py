"""A document as files: DIR/index.html (one offline page) and DIR/steps/NN-name.svg (one per section).

The page comes from the jinja2 template `page.html.j2` (autoescape on: every user text is
escaped by jinja2, the figures by the SVG backend, the formulas by `mathml`). Each figure is
inlined with its own id prefix; the step SVGs are the same figures, standalone.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path

from ..io.atomic import folder_lock, write_tree_atomic
from ..render.formats import FORMATS
from ..render.themes import get_theme
from ..words.budget import check_page, drawable_chars

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Sequence
    from os import PathLike

    from ..figures.api import Drawable
    from .document import Document, Section

__all__ = ["TEMPLATE", "template_dir", "render_page", "page_files", "write_page", "inline_svg", "label_svg",
           "unique_alt"]

#: The page's jinja2 template, in `template_dir()`.
TEMPLATE = "page.html.j2"
STEPS = "steps"


@dataclass(frozen=True)
class _Step:
    section: Section
    svg: str  # inline SVG markup
    mathml: str  # the formula as MathML, or ""


def template_dir() -> Path:
    """The templates folder: inside the installed package, or beside it in a source tree."""
    package = Path(__file__).resolve().parents[1]
    for folder in (package / "templates", package.parent / "templates"):
        if (folder / TEMPLATE).is_file():
            return folder
    raise FileNotFoundError(f"attnviz's page template {TEMPLATE} is missing from {package}; reinstall attnviz")


def inline_svg(svg: str) -> str:
    """A standalone SVG made fit for HTML: `aria-description` (ARIA 1.3, a draft the Nu checker
    does not accept yet) is left out; on the page, the section's prose describes its figure."""
    return re.sub(r' aria-description="[^"]*"', "", svg, count=1)


def unique_alt(svg: str, alt: str | None, seen: set[str], where: str | None = None) -> str | None:
    """What screen readers announce for this figure, unique among the page's figures (`seen`, updated): `alt`,
    or the figure's title and subtitle; a name given before on the page gets `where` (e.g. its section's
    heading), else the figure's number. None: the figure's own <title> and <desc> already name it uniquely.

    >>> seen: set[str] = set()
    >>> svg = '<svg><title id="P-title">Causal</title><desc id="P-desc">Exact.</desc></svg>'
    >>> unique_alt(svg, None, seen), unique_alt(svg, None, seen), unique_alt(svg, "Causal Exact.", seen)
    (None, 'Causal Exact. (figure 2)', 'Causal Exact. (figure 3)')
    >>> unique_alt(svg, None, seen, "Summary")
    'Causal Exact. (Summary)'
    """
    name = alt
    if name is None:
        texts = [html.unescape(match[1]) for match in re.finditer(r"<(?:title|desc)\b[^>]*>([^<]*)</", svg[:4000])]
        name = " ".join(texts[:2])
    number = len(seen) + 1
    if name in seen and where is not None and f"{name} ({where})" not in seen:
        name = alt = f"{name} ({where})"
    elif name in seen:
        name = f"{name} (figure {number})"
        while name in seen:
            number += 1
            name = f"{name.rsplit(' (figure ', 1)[0]} (figure {number})"
        alt = name
    seen.add(name)
    return alt


def label_svg(svg: str, alt: str) -> str:
    """The SVG named `alt` for screen readers (`aria-label`, in place of its title), still described by its <desc>.

    >>> label_svg('<svg aria-labelledby="P-title P-desc"><title id="P-title">T</title></svg>', 'A & B')
    '<svg aria-label="A &amp; B" aria-describedby="P-desc"><title id="P-title">T</title></svg>'
    """
    end = svg.index(">")
    tag, body = svg[:end], svg[end:]
    labelled = re.search(r' aria-labelledby="([^"]*)"', tag)
    described = [ref for ref in (labelled[1].split() if labelled else ()) if not ref.endswith("-title")]
    if labelled:
        tag = tag[:labelled.start()] + tag[labelled.end():]
    tag += f' aria-label="{html.escape(alt)}"'
    if described and " aria-describedby=" not in tag:
        tag += f' aria-describedby="{" ".join(described)}"'
    return tag + body


def render_page(document: Document, figures: Sequence[Drawable], name: str = "<document>") -> str:
    """The page's HTML (a str) for a document and its sections' figures (`document.build_figures`)."""
    # Loaded only when a page is rendered, to keep start-up small: jinja2 (and its markupsafe), and
    # mathml (xml.etree), which `inline_svg`'s users (the Markdown and MkDocs plugins) never need
    import jinja2
    from markupsafe import Markup

    from .mathml import tex_to_mathml

    steps: list[_Step] = []
    names: set[str] = set()  # accessible names are unique on the page: a repeated one gets its section's heading
    for number, (section, figure) in enumerate(zip(document.sections, figures, strict=True), 1):
        mathml = section.formula and tex_to_mathml(section.formula, f"{name}: section {number}: formula")
        svg = inline_svg(figure.svg())
        alt = unique_alt(svg, None, names, section.heading)
        steps.append(_Step(section, Markup(svg if alt is None else label_svg(svg, alt)), Markup(mathml or "")))
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(template_dir()), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                             keep_trailing_newline=True)
    theme = get_theme(figures[0].theme if figures else "light")  # the legend's swatch matches the figures,
    palette, dark = theme.colours, theme.dark  # in dark mode too when they follow it (auto)
    return env.get_template(TEMPLATE).render(
        doc=document, steps=steps, computed_fill=palette["computed-fill"], computed_stroke=palette["computed-stroke"],
        swatch_dark=dark and (dark["computed-fill"], dark["computed-stroke"]))


def page_files(document: Document, figures: Sequence[Drawable], out_dir: str | PathLike[str],
               name: str = "<document>", step_format: str = "svg", width: int | None = None) -> dict[Path, str | bytes]:
    """Every file of the page, rendered: {path: text or bytes}; index.html first, then the steps in order,
    as `step_format` files (render.formats: svg, png or pdf, at the figures' frame size; `width`: a PNG's pixels)."""
    check_page(document, [drawable_chars(f) for f in figures], name)  # before anything is drawn
    out_dir = Path(out_dir)
    files: dict[Path, str | bytes] = {out_dir / "index.html": render_page(document, figures, name)}
    for section, figure in zip(document.sections, figures, strict=True):
        path = out_dir / STEPS / f"{section.name}.{step_format}"
        files[path] = FORMATS[step_format].write(figure, width=width)
    return files


def write_page(document: Document, figures: Sequence[Drawable], out_dir: str | PathLike[str],
               name: str = "<document>", step_format: str = "svg", width: int | None = None) -> list[Path]:
    """Write index.html and the step files under `out_dir` (`page_files`), all or nothing; returns the paths.
    Two writers of one folder take turns (`output.folder_lock`), so its files are always one run's set."""
    files = page_files(document, figures, out_dir, name, step_format, width)  # drawn before the folder is locked
    with folder_lock(out_dir):
        written: list[Path] = write_tree_atomic(files)
    return written
