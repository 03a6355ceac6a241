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

import re
import unicodedata
from dataclasses import dataclass, field, replace

from ..numbers.exact import InputError
from ..words.user_text import MAX_TITLE, check_text, user_text
from ..io.spec import KEYS, Key, _kind, figure_arguments, read_spec

__all__ = ["Document", "Section", "DOCUMENT_KEYS", "SECTION_KEYS", "MAX_SECTIONS", "is_document",
           "parse_document", "read_document", "seed_spec_text", "default_document", "make_document",
           "build_figures", "step_arguments"]

MAX_SECTIONS = 200
MAX_PARAGRAPHS = 20_000  # characters in one intro or paragraph text
SEED_SPEC = "seed-document.toml"


@dataclass(frozen=True)
class Section:
    heading: str
    paragraphs: tuple = ()
    formula: str = None  # TeX, or None
    highlight: tuple = ()  # targets, as figure() takes them
    name: str = ""  # "01-what-is-exact": the step's file name; its figure's ids start "attnviz-01-what-is-exact"
    anchor: str = ""  # the section's id on the page

    @property
    def id_prefix(self):
        return f"attnviz-{self.name}"


@dataclass(frozen=True)
class Document:
    heading: str
    sections: tuple
    title: str = None  # the series title
    intro: tuple = ()  # paragraphs
    legend: str = None
    lang: str = "en"
    figure: dict = field(default_factory=dict)  # figure() keyword arguments, highlight aside


def make_document(*, heading, sections, title=None, intro=(), legend=None, lang="en", figure=None):
    """A Document whose sections are numbered and named (file names, page ids) in order."""
    width = max(2, len(str(len(sections))))
    named, anchors = [], set()
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


def slugify(text):
    """A heading as a file name and page id: `What is exact` -> `what-is-exact`.

    >>> slugify("What is exact"), slugify("Softmax: row 2 (named)"), slugify("Ça va?"), slugify("→")
    ('what-is-exact', 'softmax-row-2-named', 'ca-va', 'section')
    """
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug[:48].rstrip("-") or "section"


def is_document(mapping):
    """A spec with sections is a document; one without is a figure."""
    return "sections" in mapping


# --- Reading a spec -------------------------------------------------------------------------------

def _text(limit):
    def check(value, where):
        if not isinstance(value, str):
            raise InputError(f"expected a string, got {_kind(value)}", where)
        return check_text(value, where, limit)
    return check


def _heading(value, where):
    """A heading must say something: an empty one would leave a page or section without a name."""
    text = _text(MAX_TITLE)(value, where)
    if not text.strip():
        raise InputError("a heading cannot be empty", where)
    return text


def _paragraphs(value, where):
    """Text with paragraphs separated by blank lines -> a tuple of paragraphs."""
    text = _text(MAX_PARAGRAPHS)(value, where)
    # A user's paragraphs keep their type: a deck escapes them as text, never reads them as notation.
    return tuple(user_text(" ".join(p.split())) for p in re.split(r"\n\s*\n", text) if p.strip())


def _lang(value, where):
    value = _text(35)(value, where)
    if not re.fullmatch(r"[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*", value):
        raise InputError(f"expected a language tag like \"en\" or \"pt-BR\", got {value!r}", where)
    return value


def _formula(value, where):
    value = _text(MAX_PARAGRAPHS)(value, where)
    return value if value.strip() else None


def _figure(value, where):
    if not isinstance(value, dict):
        raise InputError(f"expected a table of figure keys (q, k, ...), got {_kind(value)}", where)
    if "highlight" in value:
        raise InputError("highlight belongs to each section ([[sections]] highlight = ...), not to the figure",
                         f"{where}: highlight")
    return figure_arguments(value, where, FIGURE_KEYS)


def _sections(value, where):
    if not isinstance(value, list) or not value:
        raise InputError("expected a list of sections ([[sections]] tables), at least one", where)
    if len(value) > MAX_SECTIONS:
        raise InputError(f"{len(value)} sections; the limit is {MAX_SECTIONS}", where)
    out = []
    for number, table in enumerate(value, 1):
        place = f"{where.removesuffix(': sections')}: section {number}"
        if not isinstance(table, dict):
            raise InputError(f"expected a table (heading, paragraph, formula, highlight), got {_kind(table)}", place)
        args = figure_arguments(table, place, SECTION_KEYS, required=("heading",))
        out.append(Section(heading=args["heading"], paragraphs=args.get("paragraph", ()),
                           formula=args.get("formula"), highlight=tuple(args.get("highlight", ()))))
    return out


FIGURE_KEYS = {key: value for key, value in KEYS.items() if key != "highlight"}
SECTION_KEYS = {
    "heading": Key("the section's heading", _heading, 'heading = "What is exact"'),
    "paragraph": Key("its text; blank lines separate paragraphs", _paragraphs, 'paragraph = "The score ..."'),
    "formula": Key("a formula in TeX, typeset as MathML", _formula, "formula = 'S_{3,3}=2'"),
    "highlight": Key("what this section computed", KEYS["highlight"].check, 'highlight = [3, 3]'),
}
DOCUMENT_KEYS = {
    "title": Key("the series title, above the heading", _text(MAX_TITLE), 'title = "Scores, Masks, Softmax"'),
    "heading": Key("the page heading", _heading, 'heading = "What Attention Is and Is Not"'),
    "intro": Key("the introduction; blank lines separate paragraphs", _paragraphs, 'intro = "The finale ..."'),
    "legend": Key("the legend line", _text(MAX_TITLE), 'legend = "highlighted = computed this step"'),
    "lang": Key("the page's language tag", _lang, 'lang = "en"'),
    "figure": Key("the figure's inputs, a table of figure keys", _figure, "[figure]\nq = [[1, 0], [0, 1]]"),
    "sections": Key("the sections, in order", _sections, '[[sections]]\nheading = "What is exact"'),
}


def parse_document(mapping, name="<document>"):
    """Check a document spec mapping; returns a Document."""
    args = figure_arguments(mapping, name, DOCUMENT_KEYS, required=("heading", "figure", "sections"))
    return make_document(heading=args["heading"], sections=args["sections"], title=args.get("title"),
                         intro=args.get("intro", ()), legend=args.get("legend"), lang=args.get("lang", "en"),
                         figure=args["figure"])


def read_document(source, stdin=None):
    """Read and check a document spec file ("-" for `stdin`); returns (Document, name)."""
    mapping, name = read_spec(source, stdin)
    if not is_document(mapping):
        raise InputError("not a document: a document spec has [[sections]] (this looks like a figure spec; "
                         "`attnviz render` draws it)", name)
    return parse_document(mapping, name), name


def seed_spec_text():
    """The seed document's spec, as shipped in the package: a working example to copy."""
    from importlib.resources import files

    return files("attnviz").joinpath("data", SEED_SPEC).read_text(encoding="utf-8")


def default_document():
    """The seed document: "What Attention Is and Is Not"."""
    from ..io.spec import parse_spec

    return parse_document(parse_spec(seed_spec_text(), SEED_SPEC), SEED_SPEC)


# --- Figures --------------------------------------------------------------------------------------

def build_figures(document, name="<document>"):
    """Each section's figure, ids prefixed by its step name, so figures on one page never clash."""
    from ..words.budget import check_page, drawable_chars
    from ..figures.from_arguments import build

    figures = []
    for number, section in enumerate(document.sections, 1):
        kwargs = dict(document.figure, highlight=list(section.highlight), id_prefix=section.id_prefix)
        try:
            figures.append(build(kwargs))  # a figure, or panels (each section's highlight is every panel's)
        except InputError as err:
            raise err.relocated(lambda where, n=number: _relocate(where, name, n)) from None
        if number == 1:  # every section draws the same figure, highlighted differently: the page's size is known
            size = drawable_chars(figures[0])
            check_page(document, [size] * len(document.sections), name)
    return figures


def step_arguments(mapping, name, step, need_step=True):
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


def _relocate(where, name, number):
    """figure() names its inputs `q`, `highlight (2, 1)`; say where in the document they are."""
    if where is None:
        return name
    if where.startswith("highlight"):
        return f"{name}: section {number}: {where}"
    if where == "q/k":
        return f"{name}: figure: q and k"
    return f"{name}: figure: {where}"

