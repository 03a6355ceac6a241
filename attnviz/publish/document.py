"""Documents: a page of sections, each with a heading, paragraphs, a formula and the figure with that
section's highlight. One document gives an HTML page and one SVG per section (`page`).

A document spec is TOML (or JSON), checked as strictly as a figure spec:

    title = "Scores, Masks, Softmax"      # the series title, above the heading (optional)
    heading = "What Attention Is and Is Not"
    intro = "..."                         # paragraphs, separated by blank lines (optional)
    legend = "highlighted = computed this step"   # (optional)
    [figure]                              # the figure: any key of a figure spec but highlight
    q = [[1, 0], [0, 1], [1, 1]]
    k = [[1, 0], [0, 1], [1, 1]]
    [[sections]]
    heading = "What is exact"
    paragraph = "..."                     # (optional)
    formula = 'S_{3,3}=2'                 # TeX (optional)
    highlight = [3, 3]                    # what this section computed (optional)

The seed document ships as `attnviz/data/seed-document.toml` (`attnviz page --print-spec`).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field, replace

from ..numbers.exact import InputError
from ..words.budget import check_page, drawable_chars
from ..words.user_text import MAX_TITLE, check_text, user_text
from ..figures.from_arguments import build
from ..io.spec import KEYS, Key, kind_of, figure_arguments, parse_spec, read_spec

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence
    from typing import Any, BinaryIO

    from ..figures.api import Drawable
    from ..typing import HighlightTarget

__all__ = ["Document", "Section", "DOCUMENT_KEYS", "SECTION_KEYS", "MAX_SECTIONS", "is_document",
           "parse_document", "read_document", "seed_spec_text", "default_document", "make_document",
           "build_figures", "step_arguments"]

#: The most sections one document may have.
MAX_SECTIONS = 200
MAX_PARAGRAPHS = 20_000  # characters in one intro or paragraph text
SEED_SPEC = "seed-document.toml"


@dataclass(frozen=True)
class Section:
    """A section of a document: its heading, paragraphs, formula, and what its figure highlights."""

    heading: str
    paragraphs: tuple[str, ...] = ()
    formula: str | None = None  # TeX, or None
    highlight: tuple[HighlightTarget, ...] = ()  # targets, as figure() takes them
    name: str = ""  # "01-what-is-exact": the step's file name; its figure's ids start "attnviz-01-what-is-exact"
    anchor: str = ""  # the section's id on the page

    @property
    def id_prefix(self) -> str:
        """The prefix of every id in the section's figure."""
        return f"attnviz-{self.name}"


@dataclass(frozen=True)
class Document:
    """A page of sections (`make_document` numbers and names them) and the figure they all draw."""

    heading: str
    sections: tuple[Section, ...]
    title: str | None = None  # the series title
    intro: tuple[str, ...] = ()  # paragraphs
    legend: str | None = None
    lang: str = "en"
    figure: dict[str, Any] = field(default_factory=dict)  # figure() keyword arguments, highlight aside


def make_document(*, heading: str, sections: Sequence[Section], title: str | None = None, intro: Iterable[str] = (),
                  legend: str | None = None, lang: str = "en", figure: Mapping[str, Any] | None = None) -> Document:
    """A Document whose sections are numbered and named (file names, page ids) in order."""
    width = max(2, len(str(len(sections))))
    named: list[Section] = []
    anchors: set[str] = set()
    for number, section in enumerate(sections, 1):
        slug = slugify(section.heading)
        anchor = slug if not slug.startswith("attnviz") else f"section-{slug}"  # figures own "attnviz-..."
        base, n = anchor, 1
        while anchor in anchors:
            n += 1
            anchor = f"{base}-{n}"
        anchors.add(anchor)
        named.append(replace(section, name=f"{number:0{width}d}-{slug}", anchor=anchor))
    return Document(heading=heading, sections=tuple(named), title=title, intro=tuple(intro), legend=legend,
                    lang=lang, figure=dict(figure or {}))


def slugify(text: str) -> str:
    """A heading as a file name and page id: `What is exact` -> `what-is-exact`.

    >>> slugify("What is exact"), slugify("Softmax: row 2 (named)"), slugify("Ça va?"), slugify("→")
    ('what-is-exact', 'softmax-row-2-named', 'ca-va', 'section')
    """
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug[:48].rstrip("-") or "section"


def is_document(mapping: Mapping[str, object]) -> bool:
    """A spec with sections is a document; one without is a figure."""
    return "sections" in mapping


# --- Reading a spec -------------------------------------------------------------------------------

def _text(limit: int) -> Callable[[object, str], str]:
    def check(value: object, where: str) -> str:
        if not isinstance(value, str):
            kind = kind_of(value)
            raise InputError(f"expected a string, got {kind}", where)
        return check_text(value, where, limit)
    return check


def _heading(value: object, where: str) -> str:
    """A heading must say something: an empty one would leave a page or section without a name."""
    text = _text(MAX_TITLE)(value, where)
    if not text.strip():
        raise InputError("a heading cannot be empty", where)
    return text


def _paragraphs(value: object, where: str) -> tuple[str, ...]:
    """Text with paragraphs separated by blank lines -> a tuple of paragraphs."""
    text = _text(MAX_PARAGRAPHS)(value, where)
    # A user's paragraphs keep their type: a deck escapes them as text, never reads them as notation.
    return tuple(user_text(" ".join(p.split())) for p in re.split(r"\n\s*\n", text) if p.strip())


def _lang(value: object, where: str) -> str:
    text = _text(35)(value, where)
    if not re.fullmatch(r"[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*", text):
        raise InputError(f"expected a language tag like \"en\" or \"pt-BR\", got {text!r}", where)
    return text


def _formula(value: object, where: str) -> str | None:
    text = _text(MAX_PARAGRAPHS)(value, where)
    return text if text.strip() else None


def _figure(value: object, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        kind = kind_of(value)
        raise InputError(f"expected a table of figure keys (q, k, ...), got {kind}", where)
    if "highlight" in value:
        raise InputError("highlight belongs to each section ([[sections]] highlight = ...), not to the figure",
                         f"{where}: highlight")
    args: dict[str, Any] = figure_arguments(
        value, where, FIGURE_KEYS)
    return args


def _sections(value: object, where: str) -> list[Section]:
    if not isinstance(value, list) or not value:
        raise InputError("expected a list of sections ([[sections]] tables), at least one", where)
    if len(value) > MAX_SECTIONS:
        raise InputError(f"{len(value)} sections; the limit is {MAX_SECTIONS}", where)
    out: list[Section] = []
    for number, table in enumerate(value, 1):
        place = f"{where.removesuffix(': sections')}: section {number}"
        if not isinstance(table, dict):
            kind = kind_of(table)
            raise InputError(f"expected a table (heading, paragraph, formula, highlight), got {kind}", place)
        args: dict[str, Any] = figure_arguments(
            table, place, SECTION_KEYS, required=("heading",))
        out.append(Section(heading=args["heading"], paragraphs=args.get("paragraph", ()),
                           formula=args.get("formula"), highlight=tuple(args.get("highlight", ()))))
    return out


FIGURE_KEYS = {key: value for key, value in KEYS.items() if key != "highlight"}
#: The keys of a [[sections]] table: what each expects, how it is checked, an example.
SECTION_KEYS = {
    "heading": Key("the section's heading", _heading, 'heading = "What is exact"'),
    "paragraph": Key("its text; blank lines separate paragraphs", _paragraphs, 'paragraph = "The score ..."'),
    "formula": Key("a formula in TeX, typeset as MathML", _formula, "formula = 'S_{3,3}=2'"),
    "highlight": Key("what this section computed", KEYS["highlight"].check, 'highlight = [3, 3]'),
}
#: The top-level keys of a document spec (besides the figure's own, under [figure]).
DOCUMENT_KEYS = {
    "title": Key("the series title, above the heading", _text(MAX_TITLE), 'title = "Scores, Masks, Softmax"'),
    "heading": Key("the page heading", _heading, 'heading = "What Attention Is and Is Not"'),
    "intro": Key("the introduction; blank lines separate paragraphs", _paragraphs, 'intro = "The finale ..."'),
    "legend": Key("the legend line", _text(MAX_TITLE), 'legend = "highlighted = computed this step"'),
    "lang": Key("the page's language tag", _lang, 'lang = "en"'),
    "figure": Key("the figure's inputs, a table of figure keys", _figure, "[figure]\nq = [[1, 0], [0, 1]]"),
    "sections": Key("the sections, in order", _sections, '[[sections]]\nheading = "What is exact"'),
}


def parse_document(mapping: Mapping[str, object], name: str = "<document>") -> Document:
    """Check a document spec mapping; returns a Document."""
    args: dict[str, Any] = figure_arguments(
        mapping, name, DOCUMENT_KEYS, required=("heading", "figure", "sections"))
    return make_document(heading=args["heading"], sections=args["sections"], title=args.get("title"),
                         intro=args.get("intro", ()), legend=args.get("legend"), lang=args.get("lang", "en"),
                         figure=args["figure"])


def read_document(source: str, stdin: BinaryIO | None = None) -> tuple[Document, str]:
    """Read and check a document spec file ("-" for `stdin`); returns (Document, name)."""
    mapping: dict[str, object]
    name: str
    mapping, name = read_spec(source, stdin)
    if not is_document(mapping):
        raise InputError("not a document: a document spec has [[sections]] (this looks like a figure spec; "
                         "`attnviz render` draws it)", name)
    return parse_document(mapping, name), name


def seed_spec_text() -> str:
    """The seed document's spec, as shipped in the package: a working example to copy."""
    from importlib.resources import files  # only the seed needs it, and it imports `typing`: start-up stays small

    return files("attnviz").joinpath("data", SEED_SPEC).read_text(encoding="utf-8")


def default_document() -> Document:
    """The seed document: "What Attention Is and Is Not"."""
    mapping: dict[str, object] = parse_spec(
        seed_spec_text(), SEED_SPEC)
    return parse_document(mapping, SEED_SPEC)


# --- Figures --------------------------------------------------------------------------------------

def build_figures(document: Document, name: str = "<document>") -> list[Drawable]:
    """Each section's figure, ids prefixed by its step name, so figures on one page never clash."""
    figures: list[Drawable] = []
    for number, section in enumerate(document.sections, 1):
        kwargs = dict(document.figure, highlight=list(section.highlight), id_prefix=section.id_prefix)
        try:
            figures.append(build(kwargs))  # a figure, or panels (each section's highlight is every panel's)
        except InputError as err:
            def rename(where: str | None, n: int = number) -> str:
                return _relocate(where, name, n)
            raise err.relocated(rename) from None
        if number == 1:  # every section draws the same figure, highlighted differently: the page's size is known
            size = drawable_chars(figures[0])
            check_page(document, [size] * len(document.sections), name)
    return figures


def step_arguments(mapping: Mapping[str, object], name: str, step: int | None,
                   need_step: bool = True) -> tuple[dict[str, Any], dict[str, str]]:
    """`render SPEC --step N`: figure() arguments for step N of a document, and where each came from.
    Without a step (and not `need_step`): the document's figure, unhighlighted."""
    if not is_document(mapping):
        raise InputError(f"{name} is a figure spec; --step picks a section of a document spec ([[sections]])",
                         "--step")
    document = parse_document(mapping, name)
    count = len(document.sections)
    if step is None and not need_step:
        return dict(document.figure), {key: f"{name}: figure: {key}" for key in document.figure}
    if step is None:
        raise InputError(f"{name} is a document of {count} sections; choose one with --step 1..{count}", "--step")
    if not 1 <= step <= count:
        raise InputError(f"step {step} is out of range; {name} has {count} sections (1..{count})", "--step")
    section = document.sections[step - 1]
    kwargs = dict(document.figure, highlight=list(section.highlight), id_prefix=section.id_prefix)
    origin = {key: f"{name}: figure: {key}" for key in document.figure}
    origin["highlight"] = f"{name}: section {step}: highlight"
    return kwargs, origin


def _relocate(where: str | None, name: str, number: int) -> str:
    """figure() names its inputs `q`, `highlight (2, 1)`; say where in the document they are."""
    if where is None:
        return name
    if where.startswith("highlight"):
        return f"{name}: section {number}: {where}"
    if where == "q/k":
        return f"{name}: figure: q and k"
    return f"{name}: figure: {where}"

