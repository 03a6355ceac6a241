"""A deck as an offline reveal.js presentation: DIR/index.html and DIR/reveal.js/ (vendored).

reveal.js comes from the npm registry (the version in attnviz/vendor/reveal.js/VERSION, refreshed
by tools/vendor-revealjs.sh) and is copied beside the deck, so it needs no network. Each slide's
figure is the SVG backend's painting of the deck's layout for that step; its cells, softmax rows
and outputs carry `data-id`s, so reveal.js's auto-animate keeps them in place between steps.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from importlib.resources import files
from pathlib import Path

from ...layout.figure import Group
from ...render.svg import render_svg
from ..mathml import tex_to_mathml
from ..page import inline_svg, template_dir

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from os import PathLike

    from ...layout.items import Item, Layout
    from .model import Deck, Slide

__all__ = ["VENDORED", "revealjs_files", "render_deck", "with_data_ids"]

#: The reveal.js files copied beside each deck, from attnviz/vendor/reveal.js.
VENDORED = ("reveal.js", "reveal.css", "notes.js", "LICENSE")
FIGURE_HEIGHT = 560  # px of the 1280 x 720 slide


@dataclass(frozen=True)
class _Step:
    slide: Slide
    svg: str
    mathml: str


def with_data_ids(layout: Layout) -> Layout:
    """The layout with a reveal.js `data-id` on every cell, softmax row and output row, the same on every step."""
    def tag(item: Item) -> Item:
        if not isinstance(item, Group):
            return item
        attrs = dict(item.attrs)
        if "attnviz-cell" in item.classes:
            name = f"cell-{attrs['data-q']}-{attrs['data-k']}"
        elif "attnviz-softmax-row" in item.classes:
            name = f"softmax-{attrs['data-q']}"
        elif "attnviz-output-row" in item.classes:
            name = f"output-{attrs['data-q']}"
        else:
            return item
        return replace(item, attrs=item.attrs + (("data-id", name),))
    return replace(layout, items=[tag(item) for item in layout.items])


def render_deck(deck: Deck) -> str:
    """index.html's text."""
    # jinja2 (and its markupsafe) load only when a deck is rendered: they keep start-up small
    import jinja2
    from markupsafe import Markup

    steps: list[_Step] = []
    for number, (slide, layout) in enumerate(zip(deck.slides, deck.layouts()), 1):
        svg = render_svg(with_data_ids(layout), slide.figure.id_prefix, theme=slide.figure.theme)
        mathml = slide.formula and tex_to_mathml(slide.formula, f"slide {number}: formula")
        steps.append(_Step(slide, Markup(inline_svg(svg)), Markup(mathml or "")))
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(template_dir()), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                             keep_trailing_newline=True)
    return env.get_template("slides.html.j2").render(deck=deck, steps=steps, lang=deck.lang,
                                                     figure_height=FIGURE_HEIGHT)


def revealjs_files(deck: Deck, out_dir: str | PathLike[str]) -> dict[str | PathLike[str], str | bytes]:
    """{path: text or bytes}: index.html and the vendored reveal.js files."""
    out_dir = Path(out_dir)
    vendored = files("attnviz").joinpath("vendor", "reveal.js")
    out: dict[str | PathLike[str], str | bytes] = {out_dir / "index.html": render_deck(deck)}
    for name in VENDORED:
        out[out_dir / "reveal.js" / name] = vendored.joinpath(name).read_bytes()
    return out
