"""A deck as an offline reveal.js presentation: DIR/index.html and DIR/reveal.js/ (vendored).

reveal.js comes from the npm registry (the version in attnviz/vendor/reveal.js/VERSION, refreshed
by tools/vendor-revealjs.sh) and is copied beside the deck, so it needs no network. Each step slide
has the boxes the PowerPoint deck has (`geometry`, at 4/3 px a point on the 1,280 × 720 slide): the
title, the figure (the SVG backend's painting of the deck's layout for that step) and the step's
sentences and formula (MathML, broken into lines that fit), fitted once (`plan`); what does not fit
is in the speaker notes. Nothing fades at a step: every slide part carries a `data-id` (the figure's
cells, softmax rows and outputs too), slides change without a transition and reveal.js's
auto-animate pairs parts by their data-id only (`text_keys`: a sentence stays still or is new, never moved
over another) and leaves unmatched elements alone. The slide's background is the theme's; `auto` follows
the viewer's light or dark setting. `--embed-font` inlines DejaVu, subset, for the slide's text too.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from importlib.resources import files
from pathlib import Path

from ...layout.figure import Group
from ...render.svg import fmt, render_svg
from ...render.themes import get_theme
from ..page import inline_svg, template_dir
from .math_blocks import Formula, line_mathml
from .plan import LINE, MORE_IN_NOTES, NOTE_PT, PX_PER_PT, SENTENCE_GAP, TEXT_PT, plan_slide
from .visible import visible_highlights

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Sequence
    from os import PathLike

    from ...layout.items import Item, Layout
    from .model import Box, Deck
    from .plan import SlidePlan

__all__ = ["VENDORED", "revealjs_files", "render_deck", "with_data_ids"]

#: The reveal.js files copied beside each deck, from attnviz/vendor/reveal.js.
VENDORED = ("reveal.js", "reveal.css", "notes.js", "LICENSE")


@dataclass(frozen=True)
class _Step:
    plan: SlidePlan
    name: str
    svg: str
    figure_style: str  # the figure's box: left, top, width and height in px
    mathml: tuple[str, ...]
    notes: tuple[str, ...]
    sentences: tuple[str, ...]  # each sentence's markup: its words escaped, its notation inline MathML
    keys: tuple[str, ...] = ()  # the sentences' then the formula lines' data-ids (`text_keys`)


def text_keys(parts: Sequence[str]) -> tuple[str, ...]:
    """A data-id for each of a slide's text parts (sentences, then formula lines): the same on the next slide
    only for the same part after the same parts, so auto-animate matches a paragraph that stays where it is
    and never moves one paragraph into another's place (two would overlap while it moved).

    >>> a, b = text_keys(["x", "y"]), text_keys(["z", "y"])
    >>> a[0] != b[0] and a[1] != b[1], text_keys(["x"])[0] == a[0]
    (True, True)
    """
    import hashlib  # only a reveal.js deck's text needs it

    return tuple("text-" + hashlib.sha256("\x00".join(parts[:n + 1]).encode("utf-8")).hexdigest()[:12]
                 for n in range(len(parts)))


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
        elif "attnviz-row-band" in item.classes:  # a score table's row a softmax or output step computes
            name = f"row-band-{attrs['data-q']}"
        else:
            return item
        return replace(item, attrs=item.attrs + (("data-id", name),))
    return replace(layout, items=[tag(item) for item in layout.items])


def _inline_math(tex: str, width: float) -> list[str]:
    """A sentence's notation as inline MathML, one <math> between two places a line may break (a browser
    breaks a line between them, never inside one): before `=`, after a comma, and inside a sum only where the
    sum is wider than the text column (`width`, in px)."""
    chunks = Formula(tex).chunks_within(width, TEXT_PT * PX_PER_PT)
    return [line_mathml(chunk, display="inline") for chunk in chunks]


def _sentence_markup(runs: Sequence[tuple[str, str]], width: float) -> str:
    """A sentence's runs as markup: its notation as inline MathML, its words escaped; a full stop or comma right
    after a formula kept on the formula's line (a browser may break after a <math> as after a picture); `width`:
    the text column's, in px."""
    from markupsafe import Markup, escape  # loaded with jinja2, for the deck's page only

    out: list[str] = []
    glue = ""
    for n, (kind, value) in enumerate(runs):
        if kind != "math":
            out.append(escape(value[len(glue):]) if glue else value)
            glue = ""
            continue
        maths = _inline_math(value, width)
        after = runs[n + 1][1] if n + 1 < len(runs) and runs[n + 1][0] != "math" else ""
        glue = after[:len(after) - len(after.lstrip(".,;:)"))]
        last = Markup('<span style="white-space: nowrap">{}{}</span>').format(Markup(maths[-1]), glue)
        out.append(Markup(" ").join([*map(Markup, maths[:-1]), last]))
    return Markup("").join(out)


def _px(value: float) -> str:
    return f"{fmt(value * PX_PER_PT)}px"


def _box_style(box: Box) -> str:
    return f"left: {_px(box.x)}; top: {_px(box.y)}; width: {_px(box.w)}; height: {_px(box.h)}"


def _figure_box(layout: Layout, box: Box) -> Box:
    """Where the figure is drawn in `box`: as large as fits, centred (as the PowerPoint deck places it)."""
    scale = min(box.w / layout.width, box.h / layout.height)
    w, h = layout.width * scale, layout.height * scale
    return type(box)(box.x + (box.w - w) / 2, box.y + (box.h - h) / 2, w, h)


def render_deck(deck: Deck) -> str:
    """index.html's text."""
    # jinja2 (and its markupsafe) load only when a deck is rendered: they keep start-up small
    import jinja2
    from markupsafe import Markup

    boxes = deck.geometry
    steps: list[_Step] = []
    fonts = any(slide.figure.embed_font for slide in deck.slides)
    for number, (slide, layout) in enumerate(zip(deck.slides, deck.layouts()), 1):
        plan = plan_slide(slide, boxes, number)
        prefix = slide.figure.id_prefix
        faces = ""
        if slide.figure.embed_font:
            from ...render.font_embed import font_css  # only --embed-font reads the fonts (fontTools)

            faces = font_css(layout, prefix)
        place = _figure_box(layout, boxes.figure)
        shown = visible_highlights(layout, place.w / layout.width)  # a map's one cell at 512 tokens: ringed
        svg = render_svg(with_data_ids(shown), prefix, theme=slide.figure.theme, font_css=faces)
        tex = plan.formula.tex if plan.formula else None
        mathml = tuple(Markup(line_mathml(line, tex if n == 0 else None)) for n, line in enumerate(plan.formula_lines))
        sentences = tuple(Markup(_sentence_markup(runs, boxes.text.w * PX_PER_PT)) for runs in plan.runs)
        keys = text_keys([*plan.paragraphs, *mathml])
        steps.append(_Step(plan, slide.name, Markup(inline_svg(svg)), _box_style(place),
                           mathml, tuple(plan.notes.split("\n")), sentences, keys))
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(template_dir()), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                             keep_trailing_newline=True)
    theme = get_theme(deck.theme)
    text_box = _box_style(boxes.text)
    return env.get_template("slides.html.j2").render(
        deck=deck, steps=steps, lang=deck.lang, title_box=_box_style(boxes.title), text_box=text_box,
        width=round(boxes.width * PX_PER_PT), height=round(boxes.height * PX_PER_PT), px=_px,
        sentence_px=_px(TEXT_PT), note_px=_px(NOTE_PT), line=LINE, line_pt=TEXT_PT * LINE, gap_pt=SENTENCE_GAP,
        more=MORE_IN_NOTES,
        colours=theme.colours, dark=theme.dark, font_faces=Markup(_page_fonts(deck, steps) if fonts else ""))


def _page_fonts(deck: Deck, steps: list[_Step]) -> str:
    """@font-face rules for the slides' own text (titles, sentences): DejaVu Sans and its bold, subset."""
    import base64  # only --embed-font needs these

    from ...render.font_embed import subset_woff

    page = deck.title_page
    plain = "".join(step.plan.title for step in steps) + (
        "".join((page.title, page.subtitle, page.author, page.date)) if page else "")
    plain += "".join("".join(step.plan.paragraphs) for step in steps) + MORE_IN_NOTES
    rules = []
    for face, weight, style, text in (("sans", "normal", "normal", plain), ("sans-bold", "bold", "normal", plain),
                                      ("sans-italic", "normal", "italic", MORE_IN_NOTES)):
        data = base64.b64encode(subset_woff(face, "".join(sorted(set(text))))).decode("ascii")
        rules.append(f'@font-face {{ font-family: "attnviz-deck"; font-weight: {weight}; font-style: {style}; '
                     f'src: url(data:font/woff;base64,{data}) format("woff") }}')
    return "\n".join(rules) + "\n"


def revealjs_files(deck: Deck, out_dir: str | PathLike[str]) -> dict[str | PathLike[str], str | bytes]:
    """{path: text or bytes}: index.html and the vendored reveal.js files."""
    out_dir = Path(out_dir)
    vendored = files("attnviz").joinpath("vendor", "reveal.js")
    out: dict[str | PathLike[str], str | bytes] = {out_dir / "index.html": render_deck(deck)}
    for name in VENDORED:
        out[out_dir / "reveal.js" / name] = vendored.joinpath(name).read_bytes()
    return out
