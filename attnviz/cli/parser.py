"""The command line's grammar: argparse's parser for every command, its option groups and argument types.

The figure flags come from the option table (`attnviz.figures.options`), so they say what the spec
keys, the Sphinx options and `figure()` say; the formats, from the format table (`render.formats`, data). Nothing
here imports argparse or the option table until a parser is built: `attnviz --version` needs neither.
"""

from __future__ import annotations

import os
import sys

from .. import __version__
from ..render.formats import FORMATS, either, provided_by  # a table of data: it imports nothing

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Iterable, Sequence
    from typing import Any, NoReturn

__all__ = ["UsageError", "build_parser", "add_figure_options", "add_walkthrough_options", "add_batch_options",
           "add_look_options", "add_panel_options", "add_verbose_option", "join_negative_values", "unrecognized",
           "DEFAULT_OUTPUT", "DEFAULT_PAGE_DIR", "DEFAULT_WALKTHROUGH_DIR"]

DEFAULT_OUTPUT = "out/attention-honesty-boundary.svg"
DEFAULT_PAGE_DIR = "out"
DEFAULT_WALKTHROUGH_DIR = "out/walkthrough"
#: Options whose value may start with a minus sign besides the figure flags that say so (`dash_value`).
OUTPUT_VALUE_OPTIONS = ("-o", "--output", "--dpi", "--png-scale", "--width")


class UsageError(Exception):
    """A command-line mistake argparse found; shown as one line, exit 2."""


def _parser(**kwargs: Any) -> argparse.ArgumentParser:
    """An argparse parser whose mistakes are UsageErrors. argparse is imported here, once a command is
    parsed: `attnviz --version` needs none of it. `fill(parser)`, if given, adds the parser's arguments
    the first time they are needed (parsing, help, or `arguments(parser)`)."""
    import argparse  # start-up: --version needs no parser

    width = _help_width()

    class Formatter(argparse.HelpFormatter):
        # argparse makes a formatter to check every option added, and each measures the terminal
        # (importing shutil, and with it bz2 and lzma): measured once here instead.
        def __init__(self, prog: str) -> None:
            super().__init__(prog, width=width)

    class Parser(argparse.ArgumentParser):
        def __init__(self, fill: Callable[[Parser], None] | None = None, **kwargs: Any) -> None:
            super().__init__(**{"formatter_class": Formatter, **kwargs})
            self._fill = fill

        def filled(self) -> Parser:
            """This parser, with its arguments added if they are added on first use."""
            fill, self._fill = self._fill, None
            if fill is not None:
                fill(self)
            return self

        def parse_known_args(self, args: Iterable[str] | None = None,
                             namespace: Any = None) -> tuple[Any, list[str]]:
            self.filled()
            return super().parse_known_args(args, namespace)

        def format_usage(self) -> str:
            self.filled()
            return super().format_usage()

        def format_help(self) -> str:
            self.filled()
            return super().format_help()

        def error(self, message: str) -> NoReturn:
            raise UsageError(f"{message} (see '{self.prog} --help')")

    return Parser(**kwargs)


def _help_width() -> int:
    """Columns for help text, found as shutil.get_terminal_size finds them: $COLUMNS, the terminal, or 80.
    A $COLUMNS that is not a plain number of 1 to 4 digits (`abc`, `²`, `١٢`, a huge one) is ignored."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isascii() and columns.isdigit() and len(columns) <= 4 and int(columns) > 0:
        return int(columns) - 2
    stdout = sys.__stdout__
    if stdout is None:  # started with standard output closed
        return 78
    try:
        return (os.get_terminal_size(stdout.fileno()).columns or 80) - 2
    except (AttributeError, ValueError, OSError):
        return 78



def unrecognized(parser: argparse.ArgumentParser, command: str | None, extras: Sequence[str]) -> UsageError:
    """The error for arguments `command` does not take, with a hint from that command's own options:
    "did you mean '--highlight'?", or which commands do take the flag (argparse learns hints only in 3.14)."""
    import difflib  # start-up: only a mistake needs it

    group: Any = parser._subparsers  # argparse's own record of the subcommands (typeshed: Optional, loosely typed)
    commands: dict[str, Any] = group._group_actions[0].choices
    used: argparse.ArgumentParser = commands[command] if command else parser
    options = {name: [opt for action in sub.filled()._actions for opt in action.option_strings]
               for name, sub in commands.items()}
    flag = extras[0].split("=", 1)[0]
    hint = ""
    if flag.startswith("-"):
        own = [opt for action in used._actions for opt in action.option_strings]
        others = [name for name, opts in options.items() if flag in opts and name != command]
        close = difflib.get_close_matches(flag, own, n=1, cutoff=0.6)
        if others:
            from ..words.notation import and_list  # start-up: only a mistake needs it

            takers = and_list(f"'attnviz {name}'" for name in others)
            hint = f"; {flag} is an option of {takers}, not of '{used.prog}'"
        elif close:
            hint = f"; did you mean '{close[0]}'?"
    return UsageError(f"unrecognized arguments: {' '.join(extras)}{hint} (see '{used.prog} --help')")



def _path(text: str) -> str:
    """A file or folder name: anything but empty."""
    if not text:
        from argparse import ArgumentTypeError  # start-up: loaded with the parser already; named here only

        raise ArgumentTypeError("an empty path; give a file or folder name")
    return text


def build_parser() -> argparse.ArgumentParser:
    """The `attnviz` parser: every command, its flags and help."""
    parser = _parser(prog="attnviz", description="Exact pictures of attention: scores, masks and named softmax.")
    parser.add_argument("--version", action="version", version=f"attnviz {__version__}")
    _add_debug(parser)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=type(parser))
    render = commands.add_parser(
        "render", help="write figures as SVG, PNG or PDF",
        description="Write one attention figure as SVG, PNG or PDF, from a spec file, from flags, or (with neither) "
                    "the seed figure: Q = K = (1,0); (0,1); (1,1), cell (3,3) highlighted. "
                    "Flags override the spec's keys. Several specs (or -o DIR/) render a batch in one run: "
                    "each spec to DIR/<its name>.svg, the failures named at the end, the others written.")
    render.add_argument("spec", nargs="?", metavar="SPEC",
                        help="figure spec, a TOML or JSON file; - reads standard input")
    render.add_argument("more_specs", nargs="*", metavar="SPEC", help="more specs: a batch, written to -o DIR/")
    add_figure_options(render)
    add_panel_options(render)
    render.add_argument("-o", "--output", type=_path, metavar="PATH", default=None,
                        help=f"where to write; - for standard output (default: {DEFAULT_OUTPUT}, "
                             "with the format's extension)")
    render.add_argument("-f", "--format", choices=FORMATS, type=str.lower,
                        help=f"{either(list(FORMATS))} (default: the -o extension, {_extensions()}; svg if it has "
                             f"none); {provided_by('png')} need CairoSVG: pip install 'attnviz[png]'")
    render.add_argument("--dpi", type=_positive_number, metavar="N",
                        help="PNG resolution in dots per inch (96 is one pixel per SVG unit)")
    render.add_argument("--png-scale", type=_positive_number, metavar="X",
                        help="PNG pixels per SVG unit (default 2); an alternative to --dpi")
    add_width_option(render)
    render.add_argument("--step", metavar="N", type=int,
                        help="with a document spec: the figure of its section N (1-based), as on its page "
                             "(default file: out/steps/NN-name.svg, where `attnviz page` puts it)")
    add_verbose_option(render)
    add_batch_options(render)
    page = commands.add_parser(
        "page", help="write a document as an HTML page and one SVG per section",
        description="Write a document (title, heading, intro, legend, sections with formulas and figures) as "
                    "DIR/index.html, a page that works offline with no script, and DIR/steps/NN-name.svg, one "
                    "figure per section. Without SPEC: the seed document.")
    page.add_argument("spec", nargs="?", metavar="SPEC",
                      help="document spec, a TOML or JSON file; - reads standard input (default: the seed document)")
    page.add_argument("-o", "--output", type=_path, metavar="DIR", default=DEFAULT_PAGE_DIR,
                      help=f"the folder to write into (default: {DEFAULT_PAGE_DIR})")
    page.add_argument("--print-spec", action="store_true",
                      help="print the seed document's spec, a working example to copy, and exit")
    add_look_options(page)
    add_step_format_options(page)
    add_verbose_option(page)
    walk = commands.add_parser(
        "walkthrough", help="write every step behind a figure, as a page and one SVG per step",
        description="From the vectors alone: one step per score the mask keeps (row by row), then the mask, "
                    "then each row's named softmax; what is not yet computed is drawn empty. Writes "
                    "DIR/index.html and DIR/steps/NN-name.svg. Takes a figure spec and the same flags as render.")
    walk.add_argument("spec", nargs="?", metavar="SPEC",
                      help="figure spec (or a document spec: its figure), a TOML or JSON file; - reads standard input")
    add_figure_options(walk, highlight=False)  # each step highlights what it computes
    add_walkthrough_options(walk)
    walk.add_argument("-o", "--output", type=_path, metavar="DIR", default=DEFAULT_WALKTHROUGH_DIR,
                      help=f"the folder to write into (default: {DEFAULT_WALKTHROUGH_DIR})")
    add_step_format_options(walk)
    add_verbose_option(walk)
    commands.add_parser(  # `attnviz slides`: its arguments are added when it is used
        "slides", help="write a deck: Beamer, TikZ, reveal.js, PowerPoint, multi-page PDF or animated SVG",
        description="Write the steps of a document spec (its sections), a walkthrough (--walkthrough) or a figure "
                    "(one slide per highlighted part) as one deck whose figure stays put from step to step. "
                    "Without SPEC or flags: the seed's walkthrough, as out/slides.pdf.",
        fill=_slides_arguments)
    gallery = commands.add_parser(
        "gallery", help="write one figure per mask family and caption form",
        description="Write the gallery: one SVG per mask family, caption form and scoring option.")
    gallery.add_argument("folder", nargs="?", type=_path, default="out/gallery",
                         help="where to write (default: out/gallery)")
    add_batch_options(gallery)
    model = commands.add_parser(
        "model", help="draw a model's attention masks, layer by layer, from its config.json",
        description="Draw the masks of a model from its config (a config.json or a model folder; nothing is "
                    "downloaded): one mask map per distinct layer pattern, titled with its layers, and a strip of "
                    "every layer by type. Positions and layers count from 0, as transformers counts them.")
    _model_arguments(model)
    add_verbose_option(model)
    css = commands.add_parser(
        "css", help="write the style sheet that exposes inline figures' colours as CSS custom properties",
        description="Write attnviz.css for a page that inlines figures: link it, then restyle every figure "
                    "with --attnviz-* custom properties. (The Sphinx and MkDocs plugins link it for you.)")
    css.add_argument("-o", "--output", type=_path, metavar="PATH", default="-",
                     help="where to write (default: - , standard output)")
    css.add_argument("--dark-selector", metavar="SELECTOR",
                     help="the page's own dark toggle, for its auto figures, e.g. html.dark (default: the Furo, "
                          "PyData, MkDocs Material and JupyterLab toggles, then the system's setting)")
    for sub in (render, page, walk, gallery, model, css):  # slides: added last with its other arguments
        _add_debug(sub)
    return parser


def _model_arguments(model: argparse.ArgumentParser) -> None:
    """`attnviz model CONFIG`'s flags (figures.model.model_figure's arguments)."""
    model.add_argument("config", metavar="CONFIG", type=_path, help="a config.json, or a model folder holding one")
    rows = model.add_mutually_exclusive_group()
    rows.add_argument("--n", type=_whole, metavar="N", help="tokens in the row drawn (default 16)")
    rows.add_argument("--tokens", metavar="TEXT", help="token labels: the text split on spaces (or by --tokenizer)")
    model.add_argument("--tokenizer", type=_path, metavar="PATH",
                       help="a local tokenizer folder to split --tokens (needs transformers)")
    model.add_argument("--layers", default="types", metavar="all|types|0,5,...",
                       help="types: one panel per layer pattern (default); all: one per layer; or those layers")
    model.add_argument("--pad-left", type=_whole, default=0, metavar="P", help="the row's first P tokens are padding")
    model.add_argument("--pad-right", type=_whole, default=0, metavar="P",
                       help="the row's last P tokens are padding (an encoder's batch row)")
    model.add_argument("--decode", type=_whole, default=0, metavar="P",
                       help="the decode shape: the queries after a prompt of P tokens, against the cache's keys")
    model.add_argument("--image-tokens", metavar="A-B",
                       help="Gemma 3, PaliGemma: tokens A..B are an image's (0-based); several images: A-B,C-D")
    model.add_argument("--prefix", type=_whole, default=0, metavar="P",
                       help="PaliGemma: the first P tokens (the image and the text prefix) see each other both ways")
    model.add_argument("--packed", metavar="L,L,...",
                       help="several documents packed in the row, of these lengths (transformers' document mask from "
                            "position_ids)")
    model.add_argument("--decoder-n", type=_whole, metavar="M",
                       help="an encoder-decoder's decoder tokens (default: half of --n)")
    model.add_argument("--buckets", action="store_true",
                       help="T5, mT5: draw each self-attention stack as its relative-position bucket grid (each kept "
                            "cell its bucket k, the bias b[k] named; the encoder's bidirectional, the decoder's "
                            "one-sided)")
    model.add_argument("--title", help="the figure's title")
    model.add_argument("--theme", choices=("light", "dark", "print", "contrast", "auto"), default="light")
    model.add_argument("--frame", default="doc", metavar="FRAME", help="doc (default), slide, column, ...")
    model.add_argument("-o", "--output", type=_path, metavar="PATH", default="out/model.svg",
                       help=f"where to write ({_extensions()}); - for standard output (default: out/model.svg)")
    model.add_argument("-f", "--format", choices=FORMATS, type=str.lower)
    model.set_defaults(dpi=None, png_scale=None)
    add_width_option(model)


def add_figure_options(parser: argparse.ArgumentParser, highlight: bool = True) -> None:
    """The flags every figure-making command shares; each overrides the spec key of the same name."""
    from ..figures.options import FIGURE_FLAGS  # start-up: --version reads no option table

    for name in FIGURE_FLAGS:
        if highlight or name != "highlight":
            _add_option(parser, name)
    add_look_options(parser)


def add_walkthrough_options(parser: argparse.ArgumentParser) -> None:
    """Which walkthrough: FlashAttention's tiles or KV-cache decoding (default: scores, mask, softmax)."""
    from ..figures.options import WALKTHROUGH_FLAGS  # start-up: --version reads no option table

    for name in WALKTHROUGH_FLAGS:
        _add_option(parser, name)


def add_panel_options(parser: argparse.ArgumentParser) -> None:
    """`attnviz render`'s panels: figure specs drawn side by side, and how they are placed."""
    from ..figures.options import PANEL_FLAGS  # start-up: --version reads no option table

    for name in PANEL_FLAGS:
        _add_option(parser, name)


def add_batch_options(parser: argparse.ArgumentParser) -> None:
    """How a batch runs: worker processes, and whether to draw a progress bar."""
    parser.add_argument("-j", "--jobs", metavar="N", type=_jobs, default=1,
                        help="render in N processes at once, or auto: one per CPU (default 1)")
    parser.add_argument("--quiet", action="store_true",
                        help="no progress bar and no summary line (a batch shows both on a terminal)")


def add_width_option(parser: argparse.ArgumentParser) -> None:
    """`--width PX`: a PNG's width in pixels (default: the frame's, `render.raster.png_resolution`)."""
    parser.add_argument("--width", type=_pixels, metavar="PX",
                        help="PNG width in pixels (default: 1280 for --frame slide, 960 for slide-4:3, 300 dpi at "
                             "a column's width; the doc frame: --png-scale 2)")


def _extensions() -> str:
    return either([f".{entry.extension}" for entry in FORMATS.values()])


def add_step_format_options(parser: argparse.ArgumentParser) -> None:
    """`-f` and `--width` of `page` and `walkthrough`: the steps/ files as SVG (default), PNG or PDF."""
    names = list(FORMATS)
    parser.add_argument("-f", "--format", choices=FORMATS, type=str.lower, default=names[0],
                        help=f"the steps/ files as {either([f'{names[0]} (default)', *names[1:]])}, at the frame's "
                             f"size (index.html inlines the SVG); {provided_by('png')} need CairoSVG")
    add_width_option(parser)


def add_look_options(parser: argparse.ArgumentParser) -> None:
    """How figures look, not what they say: also for `page`, whose sections' words fit their numbers."""
    from ..figures.options import LOOK_FLAGS  # start-up: --version reads no option table

    for name in LOOK_FLAGS:
        _add_option(parser, name)


def _add_option(parser: argparse.ArgumentParser, name: str) -> None:
    """The flag of the option table's `name`: its metavar, action, how its text is read, and its help."""
    from ..figures.options import BY_NAME  # start-up: --version reads no option table

    option = BY_NAME[name]
    kwargs: dict[str, Any] = {"help": option.help}
    if option.action == "switch":
        kwargs.update(action="store_true", default=None)  # None: not given, so a spec's key stands
    else:
        if option.action == "append":
            kwargs["action"] = "append"
        if option.metavar is not None:
            kwargs["metavar"] = option.metavar
        if option.value is not None:
            kwargs["type"] = {"whole": _whole, "path": _path, "positive_number": _positive_number}[option.value]
    if option.dest is not None:
        kwargs["dest"] = option.dest
    assert option.flag is not None  # only options with a flag are added
    parser.add_argument(option.flag, **kwargs)


def value_options() -> set[str]:
    """The options whose value may start with a minus sign ("--q -1,2;0,1"): argparse would take it for an option."""
    from ..figures.options import OPTIONS  # start-up: --version reads no option table

    return {option.flag for option in OPTIONS if option.dash_value and option.flag} | set(OUTPUT_VALUE_OPTIONS)


def join_negative_values(argv: Sequence[str]) -> list[str]:
    """`["--q", "-1,2"]` -> `["--q=-1,2"]`, so values that start with "-" reach their option."""
    out: list[str] = []
    args = iter(argv)
    flags = value_options()
    for arg in args:
        out.append(arg)
        if arg in flags:
            value = next(args, None)
            if value is None:
                break
            if value.startswith("-") and value != "-" and not value.startswith("--"):
                out[-1] = f"{arg}={value}"
            else:
                out.append(value)
    return out


def _whole(text: str) -> int:
    """A whole number of up to 7 digits (`--n`, `--index-base`)."""
    from argparse import ArgumentTypeError  # start-up: loaded with the parser already; named here only

    text = text.strip()
    if not (text.isascii() and text.isdigit()) or len(text) > 7:
        raise ArgumentTypeError(f"expected a whole number, got {text[:40]!r}")
    return int(text)


def _pixels(text: str) -> int:
    """A whole number of pixels above 0 (`--width`); the PNG budget refuses one wider than Cairo draws."""
    from argparse import ArgumentTypeError  # start-up: loaded with the parser already; named here only

    value = _whole(text)
    if value < 1:
        raise ArgumentTypeError("expected a width of 1 pixel or more, got 0")
    return value


def _positive_number(text: str) -> float:
    """A number above 0 (`--dpi`, `--png-scale`)."""
    from argparse import ArgumentTypeError  # start-up: loaded with the parser already; named here only

    try:
        value = float(text)
    except ValueError:
        raise ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0 < value < float("inf"):
        raise ArgumentTypeError(f"expected a number above 0, got {text!r}")
    return value


def _jobs(text: str) -> int:
    """`-j N`: a number of worker processes, at most 4 a CPU, or `auto` (one per CPU)."""
    if text == "auto":
        return os.cpu_count() or 1
    from argparse import ArgumentTypeError  # start-up: loaded with the parser already; named here only

    digits = text.lstrip("0") if text.isascii() and text.isdigit() else ""
    if not digits:
        raise ArgumentTypeError(f"expected a number of processes (1 or more) or auto, got {text!r:.40}")
    most = 4 * (os.cpu_count() or 1)  # past a few a CPU, more processes only take memory
    if len(digits) > 6 or int(digits) > most:  # a 5,000-digit N is not even read as a number
        raise ArgumentTypeError(f"at most {most} processes (4 a CPU), got {digits:.12}{'…' * (len(digits) > 12)}")
    return int(digits)


def _slides_arguments(slides: argparse.ArgumentParser) -> None:
    """`attnviz slides`'s arguments, added when that command is used: its formats are the deck writer's own
    list, and reading it imports the writer (pathlib with it), which other commands do without."""
    from ..publish.deck.formats import FORMATS  # start-up: only `attnviz slides` reads the deck's formats

    slides.add_argument("spec", nargs="?", metavar="SPEC",
                        help="document or figure spec, a TOML or JSON file; - reads standard input")
    slides.add_argument("-f", "--format", choices=FORMATS, type=str.lower,
                        help="beamer (a .tex file), tikz (TikZ pictures to \\input), revealjs (a folder), pptx, pdf "
                             "or svg-animated (default: from the -o extension, else pdf)")
    slides.add_argument("-o", "--output", type=_path, metavar="PATH",
                        help="where to write (default: out/slides.pdf, .tex, .pptx, .svg, or the folder out/slides)")
    slides.add_argument("--walkthrough", action="store_true",
                        help="one slide per step computed from the vectors (the default without SPEC or flags)")
    add_figure_options(slides)
    add_walkthrough_options(slides)
    from ..figures.options import DECK_FLAGS  # start-up: as above, only `attnviz slides` reads them

    for name in DECK_FLAGS:
        _add_option(slides, name)
    add_verbose_option(slides)
    _add_debug(slides)


def add_verbose_option(parser: argparse.ArgumentParser) -> None:
    """`-v`/`--verbose`: the choices each figure's layout made to fit its frame, on standard error."""
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="say on standard error the choices the layout made to fit its --frame "
                             "(one line per figure or step; render and model: one line per choice)")


def _add_debug(parser: argparse.ArgumentParser) -> None:
    """Every command's --debug: tracebacks instead of one-line errors."""
    parser.add_argument("--debug", action="store_true", help="show tracebacks")
