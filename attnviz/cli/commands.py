"""The `attnviz` command: a thin layer over the API.

Bad input ends in one line on stderr, `attnviz: error: <where>: <what>`, and exit
status 2; an internal failure in exit status 1 and a request for a bug report.
`--debug` shows the traceback instead.
"""

import os
import sys

from .. import __version__
from ..errors import InputError

__all__ = ["main"]

DEFAULT_OUTPUT = "out/attention-honesty-boundary.svg"
DEFAULT_PAGE_DIR = "out"
DEFAULT_WALKTHROUGH_DIR = "out/walkthrough"
SLIDE_FORMATS = ("beamer", "tikz", "revealjs", "pptx", "pdf", "svg-animated")
# Options whose value may start with a minus sign ("--q -1,2;0,1"): argparse would take it for an option.
VALUE_OPTIONS = ("--q", "--k", "--highlight", "--title", "--subtitle", "--tokens", "--q-tokens", "--k-tokens",
                 "-o", "--output", "--v", "--mask", "--bias", "--scale", "--dpi", "--png-scale", "--q-heads",
                 "--k-heads", "--v-heads")


class UsageError(Exception):
    """A command-line mistake argparse found; shown as one line, exit 2."""


def _parser(**kwargs):
    """An argparse parser whose mistakes are UsageErrors. argparse is imported here, once a command is
    parsed: `attnviz --version` needs none of it."""
    import argparse

    width = _help_width()

    class Formatter(argparse.HelpFormatter):
        # argparse makes a formatter to check every option added, and each measures the terminal
        # (importing shutil, and with it bz2 and lzma): measured once here instead.
        def __init__(self, prog):
            super().__init__(prog, width=width)

    class Parser(argparse.ArgumentParser):
        def __init__(self, **kwargs):
            super().__init__(**{"formatter_class": Formatter, **kwargs})

        def error(self, message):
            raise UsageError(f"{message} (see '{self.prog} --help')")

    return Parser(**kwargs)


def _help_width():
    """Columns for help text, found as shutil.get_terminal_size finds them: $COLUMNS, the terminal, or 80."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns) - 2
    try:
        return (os.get_terminal_size(sys.__stdout__.fileno()).columns or 80) - 2
    except (AttributeError, ValueError, OSError):
        return 78


def _unrecognized(parser, command, extras):
    """The error for arguments `command` does not take, with a hint from that command's own options:
    "did you mean '--highlight'?", or which commands do take the flag (argparse learns hints only in 3.14)."""
    import difflib

    commands = parser._subparsers._group_actions[0].choices
    used = commands[command] if command else parser
    options = {name: [opt for action in sub._actions for opt in action.option_strings]
               for name, sub in commands.items()}
    flag = extras[0].split("=", 1)[0]
    hint = ""
    if flag.startswith("-"):
        own = [opt for action in used._actions for opt in action.option_strings]
        others = [name for name, opts in options.items() if flag in opts and name != command]
        close = difflib.get_close_matches(flag, own, n=1, cutoff=0.6)
        if others:
            from ..words.notation import and_list

            takers = and_list(f"'attnviz {name}'" for name in others)
            hint = f"; {flag} is an option of {takers}, not of '{used.prog}'"
        elif close:
            hint = f"; did you mean '{close[0]}'?"
    return UsageError(f"unrecognized arguments: {' '.join(extras)}{hint} (see '{used.prog} --help')")


def _path(text):
    if not text:
        from argparse import ArgumentTypeError

        raise ArgumentTypeError("an empty path; give a file or folder name")
    return text


def build_parser():
    parser = _parser(prog="attnviz", description="Exact pictures of attention: scores, masks and named softmax.")
    parser.add_argument("--version", action="version", version=f"attnviz {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks")
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
    render.add_argument("--panel", dest="panels", metavar="SPEC", action="append", type=_path,
                        help="a figure spec drawn as one panel of this figure; repeatable (the other flags are "
                             "every panel's defaults)")
    render.add_argument("--arrange", metavar="HOW", help="how panels are placed: row (default), column or grid:C")
    render.add_argument("-o", "--output", type=_path, metavar="PATH", default=None,
                        help=f"where to write; - for standard output (default: {DEFAULT_OUTPUT}, "
                             "with the format's extension)")
    render.add_argument("-f", "--format", choices=("svg", "png", "pdf"), type=str.lower,
                        help="svg, png or pdf (default: the -o extension, .svg, .png or .pdf; svg if it has none); "
                             "PNG and PDF need CairoSVG: pip install 'attnviz[png]'")
    render.add_argument("--dpi", type=_positive_number, metavar="N",
                        help="PNG resolution in dots per inch (96 is one pixel per SVG unit)")
    render.add_argument("--png-scale", type=_positive_number, metavar="X",
                        help="PNG pixels per SVG unit (default 2); an alternative to --dpi")
    render.add_argument("--step", metavar="N", type=int,
                        help="with a document spec: the figure of its section N (1-based), as on its page "
                             "(default file: out/steps/NN-name.svg, where `attnviz page` puts it)")
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
    slides = commands.add_parser(
        "slides", help="write a deck: Beamer, TikZ, reveal.js, PowerPoint, multi-page PDF or animated SVG",
        description="Write the steps of a document spec (its sections), a walkthrough (--walkthrough) or a figure "
                    "(one slide per highlighted part) as one deck whose figure stays put from step to step. "
                    "Without SPEC or flags: the seed's walkthrough, as out/slides.pdf.")
    slides.add_argument("spec", nargs="?", metavar="SPEC",
                        help="document or figure spec, a TOML or JSON file; - reads standard input")
    slides.add_argument("-f", "--format", choices=SLIDE_FORMATS, type=str.lower,
                        help="beamer (a .tex file), tikz (TikZ pictures to \\input), revealjs (a folder), pptx, pdf "
                             "or svg-animated (default: from the -o extension, else pdf)")
    slides.add_argument("-o", "--output", type=_path, metavar="PATH",
                        help="where to write (default: out/slides.pdf, .tex, .pptx, .svg, or the folder out/slides)")
    slides.add_argument("--walkthrough", action="store_true",
                        help="one slide per step computed from the vectors (the default without SPEC or flags)")
    add_figure_options(slides)
    add_walkthrough_options(slides)
    gallery = commands.add_parser(
        "gallery", help="write one figure per mask family and caption form",
        description="Write the gallery: one SVG per mask family, caption form and scoring option.")
    gallery.add_argument("folder", nargs="?", type=_path, default="out/gallery",
                         help="where to write (default: out/gallery)")
    add_batch_options(gallery)
    css = commands.add_parser(
        "css", help="write the style sheet that exposes inline figures' colours as CSS custom properties",
        description="Write attnviz.css for a page that inlines figures: link it, then restyle every figure "
                    "with --attnviz-* custom properties. (The Sphinx and MkDocs plugins link it for you.)")
    css.add_argument("-o", "--output", type=_path, metavar="PATH", default="-",
                     help="where to write (default: - , standard output)")
    for sub in (render, page, walk, slides, gallery, css):
        sub.add_argument("--debug", action="store_true", help="show tracebacks")
    return parser


def add_figure_options(parser, highlight=True):
    """The flags every figure-making command shares; each overrides the spec key of the same name."""
    parser.add_argument("--view", metavar="VIEW", help="full (default: vectors, scores, captions), scores (vectors "
                        "and the score grid, no captions) or mask (the mask map, to 1,024 tokens)")
    parser.add_argument("--n", metavar="N", type=_whole, help="with --view mask: N tokens, no vectors needed")
    parser.add_argument("--shape", metavar="QxK", help="with --view mask: queries × keys, e.g. 4x12 (decoding), "
                        "no vectors needed")
    parser.add_argument("--index-base", metavar="0|1", type=_whole,
                        help="count labels, captions, rules and --highlight from 1 (default, the seed) or 0 (PyTorch, "
                             "attention-gym)")
    parser.add_argument("--elide", action="store_true", default=None,
                        help="full and scores views: draw the first 4 and last 2 rows and columns (and every "
                             "highlighted one), with ⋮ ⋯ ⋱ for the rest; up to 1,024 tokens")
    parser.add_argument("--x-title", metavar="TEXT", help='the mask map\'s key-axis title (default "key j")')
    parser.add_argument("--y-title", metavar="TEXT", help='the mask map\'s query-axis title (default "query i")')
    parser.add_argument("--q", metavar="VECTORS", help='query vectors, e.g. "1,0; 0,1; 1,1" '
                        "(entries: integers, fractions like -3/4, decimals like 0.5)")
    parser.add_argument("--k", metavar="VECTORS", help="key vectors, same form as --q")
    parser.add_argument("--q-heads", metavar="HEADS", help='query vectors per query head, heads separated by "|": '
                        '"1,0; 0,1 | 1,1; 0,1" (instead of --q: one panel per head)')
    parser.add_argument("--k-heads", metavar="HEADS", help="key vectors per KV head, same form (with --q-heads); "
                        "query head h reads KV head ⌊h/(H/G)⌋")
    parser.add_argument("--v-heads", metavar="HEADS", help="value vectors per KV head, same form (with --q-heads)")
    parser.add_argument("--tokens", metavar="LABELS", help='labels for both axes, separated by spaces: "<s> the cat" '
                        "(for labels with spaces, use a spec file)")
    parser.add_argument("--q-tokens", metavar="LABELS", help="labels for the query rows, separated by spaces")
    parser.add_argument("--k-tokens", metavar="LABELS", help="labels for the key columns, separated by spaces")
    if highlight:
        parser.add_argument("--highlight", metavar="TARGET", action="append",
                            help='mark as computed this step: "I,J" (a cell), "row=I", "mask", "softmax=I", '
                                 '"softmax", "output=I" or "output" (with --v); repeatable')
    parser.add_argument("--mask", metavar="MASK", action="append",
                        help='causal (default), none (or full), window=W[,symmetric][,dilation=D], global=J,..., '
                             'prefix=P[,documents=ID,...], chunk=C[,offset=O], segments=ID,... (causal), '
                             'documents=ID,... (bidirectional), padding=J,..., matrix=ROW;ROW;... (rows of 0/1); '
                             'combined with & (both), | (either), ~ or ! (not) and parentheses, e.g. '
                             '"window=3,symmetric | global=1"; repeatable: a cell is kept only when every mask '
                             'keeps it')
    parser.add_argument("--align", metavar="CORNER",
                        help="where the causal diagonal starts when keys outnumber queries: top-left (default, "
                             "as PyTorch's is_causal) or bottom-right")
    parser.add_argument("--scale", metavar="FACTOR", help="logits S/√d with sqrt, or R·S with an exact number R")
    parser.add_argument("--bias", metavar="BIAS", action="append",
                        help="added to the logits: alibi=M (slope M, e.g. 1/2 or 2^-3) or matrix=ROW;ROW;...; "
                             "repeatable")
    parser.add_argument("--v", metavar="VECTORS", help="value vectors, one per key: the figure writes each output")
    parser.add_argument("--softmax", metavar="FORM",
                        help="how named weights are written: expanded (default), normalizer or grouped")
    parser.add_argument("--weights", metavar="FORM",
                        help="named (default, exact) or decimal=N: weights rounded to N places, marked ≈")
    parser.add_argument("--show", metavar="VALUES", help="what the grid shows: scores (default) or logits; bias adds "
                        "the bias matrix as a grid beside the scores")
    parser.add_argument("--title", help="figure title (default: the seed's)")
    parser.add_argument("--subtitle", help="figure subtitle, also its <desc> (default: the seed's)")
    add_look_options(parser)


def add_walkthrough_options(parser):
    """Which walkthrough: FlashAttention's tiles or KV-cache decoding (default: scores, mask, softmax)."""
    parser.add_argument("--flash", metavar="BR,BC",
                        help="FlashAttention: one step per Br×Bc tile (Br query rows, Bc key columns) with the "
                             "running max m and normaliser ℓ, then the proof that the tiled softmax is the one-shot "
                             "softmax")
    parser.add_argument("--flash-order", metavar="ORDER",
                        help="with --flash: fa2 (default; outer loop over query blocks) or fa1 (outer over key blocks)")
    parser.add_argument("--decode", metavar="P",
                        help="KV-cache decoding: the first P tokens are the prompt (one prefill step), then one step "
                             "per generated token, with the cache before and after")


def add_batch_options(parser):
    """How a batch runs: worker processes, and whether to draw a progress bar."""
    parser.add_argument("-j", "--jobs", metavar="N", type=_jobs, default=1,
                        help="render in N processes at once, or auto: one per CPU (default 1)")
    parser.add_argument("--quiet", action="store_true",
                        help="no progress bar and no summary line (a batch shows both on a terminal)")


def add_look_options(parser):
    """How figures look, not what they say: also for `page`, whose sections' words fit their numbers."""
    parser.add_argument("--theme", metavar="NAME", help="light (default), dark, print (greyscale), contrast "
                        "(high contrast) or auto (follows the viewer's light or dark setting)")
    parser.add_argument("--embed-font", action="store_true", default=None,
                        help="inline the font (subset to the figure's characters), so it looks the same everywhere")


def figure_from_args(args, walk=None, spec=None):
    """The figure the flags and the optional spec describe; errors name the flag or the spec key.

    `walk`, a dict, receives the walkthrough keys (flash, flash_order, decode) the spec or flags give.
    `spec`: the spec's (mapping, name), when the caller has read it already."""
    from ..figures.api import SEED_HIGHLIGHT, SEED_K, SEED_Q
    from ..figures.from_arguments import build
    from ..io.spec import KEYS, TEXT_READERS, WALKTHROUGH_KEYS, figure_arguments, read_spec, sized_without_vectors

    kwargs, origin = {}, {}
    keys = KEYS if walk is None else {**KEYS, **WALKTHROUGH_KEYS}
    step = getattr(args, "step", None)
    if step is not None and args.spec is None:
        raise InputError("needs a document spec (one with [[sections]]), e.g. attnviz render page.toml --step 2",
                         "--step")
    if args.spec is not None:
        mapping, name = spec or read_spec(args.spec, sys.stdin.buffer)
        if "sections" in mapping or step is not None:  # a document spec
            from ..publish.document import step_arguments

            kwargs, origin = step_arguments(mapping, name, step, need_step=args.command == "render")
        else:
            if walk is None and (found := [key for key in WALKTHROUGH_KEYS if key in mapping]):
                raise InputError(f"'{found[0]}' is a walkthrough key: 'attnviz walkthrough {args.spec}' steps "
                                 "through it", name)
            kwargs = figure_arguments(mapping, name, keys)
            origin = {key: f"{name}: {key}" for key in kwargs}
    # Every spec key has a flag of the same name; its text is read and checked as the spec reads it.
    for key, spec_key in keys.items():
        value = getattr(args, key, None)  # a command may not take every key (walkthrough: highlight)
        if value is not None:
            flag = f"--{key.replace('_', '-')}"
            if isinstance(value, str) and key in TEXT_READERS:
                value = TEXT_READERS[key](value, flag)
            kwargs[key] = spec_key.check(value, flag)
            origin[key] = flag
    for key in WALKTHROUGH_KEYS:
        if key in kwargs:
            walk[key] = (kwargs.pop(key), origin[key])
    if getattr(args, "panels", None):  # --panel FILE, repeatable: each a figure spec
        if "panel" in kwargs:
            raise InputError("the spec has [[panel]] tables already; give panels there or as --panel files",
                             "--panel")
        kwargs["panel"] = [figure_arguments(read_spec(path, sys.stdin.buffer)[0], path, required=())
                           for path in args.panels]
        origin["panel"] = "--panel"
    sized = sized_without_vectors(kwargs)  # no seed vectors needed
    if "q" not in kwargs and "k" not in kwargs and not sized:
        kwargs.update(q=SEED_Q, k=SEED_K)
        base = kwargs.get("index_base", 1)  # the seed's cell (3,3), counted from the figure's base
        kwargs.setdefault("highlight", tuple((i - 1 + base, j - 1 + base) for i, j in SEED_HIGHLIGHT))
    elif ("q" in kwargs) != ("k" in kwargs):
        given, missing = ("q", "k") if "q" in kwargs else ("k", "q")
        raise InputError(f"missing: {origin[given]} gives the {given} vectors, so {missing} is needed too",
                         f"--{missing}")
    try:
        return build(kwargs)
    except InputError as err:
        raise err.relocated(lambda where: _relocate(where, origin)) from None


def _relocate(where, origin):
    """The API names inputs `q`, `tokens: label 2`, `highlight '3,3'`; say where the user gave them."""
    if where is None:
        return None
    import re

    match = re.match(r"q/k|\w+", where)
    if not match:
        return where
    key = match[0]
    place = " and ".join(origin.get(k, k) for k in ("q", "k")) if key == "q/k" else origin.get(key, key)
    return place + where[match.end():]


def join_negative_values(argv):
    """`["--q", "-1,2"]` -> `["--q=-1,2"]`, so values that start with "-" reach their option."""
    out, args = [], iter(argv)
    for arg in args:
        out.append(arg)
        if arg in VALUE_OPTIONS:
            value = next(args, None)
            if value is None:
                break
            if value.startswith("-") and value != "-" and not value.startswith("--"):
                out[-1] = f"{arg}={value}"
            else:
                out.append(value)
    return out


def _whole(text):
    from argparse import ArgumentTypeError

    text = text.strip()
    if not (text.isascii() and text.isdigit()) or len(text) > 7:
        raise ArgumentTypeError(f"expected a whole number, got {text[:40]!r}")
    return int(text)


def _positive_number(text):
    from argparse import ArgumentTypeError

    try:
        value = float(text)
    except ValueError:
        raise ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0 < value < float("inf"):
        raise ArgumentTypeError(f"expected a number above 0, got {text!r}")
    return value


def _default_render_path(args, fig):
    """The seed figure's file, or for `--step N` the file `attnviz page` writes for that step; with the
    asked format's extension."""
    from ..publish.page import STEPS

    extension = args.format or "svg"
    if args.step is not None:  # a step figure's ids are "attnviz-" + its file name, e.g. 01-what-is-exact
        return f"{DEFAULT_PAGE_DIR}/{STEPS}/{fig.id_prefix.removeprefix('attnviz-')}.{extension}"
    return f"{DEFAULT_OUTPUT.removesuffix('.svg')}.{extension}"


def run_render(args):
    from ..render.raster import format_for

    if args.more_specs or (args.spec is not None and _names_folder(args.output)):
        return _render_batch(args)
    fig = figure_from_args(args)
    output = args.output if args.output is not None else _default_render_path(args, fig)
    format = format_for(output, args.format)
    data = _file_data(fig, format, args)
    if output == "-":
        _emit(data)
        return 0
    from ..io.atomic import write_files

    with _writing(f"-o {output}"):
        write_files({output: data})
    _report([output])
    return 0


def _file_data(fig, format, args):
    """The figure as the file's text (SVG) or bytes (PNG, PDF), at the flags' resolution."""
    if format != "png" and (args.dpi is not None or args.png_scale is not None):
        raise InputError(f"only a PNG has a resolution, and this writes {format.upper()}",
                         "--dpi" if args.dpi is not None else "--png-scale")
    if format == "svg":
        return fig.svg() + "\n"
    if format == "png":
        try:
            return fig.png(scale=args.png_scale, dpi=args.dpi)
        except InputError as err:  # named as the API's arguments; here they are flags
            flags = {"scale": "--png-scale", "dpi": "--dpi"}
            raise err.relocated(lambda where: flags.get(where, where)) from None
    return fig.pdf()


def _jobs(text):
    """`-j N`: a number of worker processes, or `auto` (one per CPU)."""
    if text == "auto":
        return os.cpu_count() or 1
    if not text.isdigit() or int(text) < 1:
        from argparse import ArgumentTypeError

        raise ArgumentTypeError(f"expected a number of processes (1 or more) or auto, got {text!r}")
    return int(text)


def _names_folder(output):
    return output is not None and (output.endswith(("/", os.sep)) or os.path.isdir(output))


def _render_batch(args):
    """`attnviz render A.toml B.toml ... [-o DIR/]`: each spec to DIR/<its name>.<format>, same bytes as
    rendered alone; the flags apply to every spec."""
    from argparse import Namespace

    from .batch import Job

    specs = [args.spec, *args.more_specs]
    folder = args.output if args.output is not None else DEFAULT_PAGE_DIR
    if not _names_folder(folder) and not os.path.isdir(folder) and folder != DEFAULT_PAGE_DIR:
        raise InputError("several figures go into a folder: end it with / (e.g. -o figures/)", f"-o {folder}")
    if "-" in specs:
        raise InputError("standard input has no name to write a batch figure under; give spec files", "SPEC -")
    if args.step is not None:
        raise InputError("renders one spec's step; give one spec", "--step")
    format = args.format or "svg"
    jobs, by_target = [], {}
    for spec in specs:
        target = os.path.join(folder, f"{os.path.splitext(os.path.basename(spec))[0]}.{format}")
        if target in by_target:
            raise InputError(f"{by_target[target]} and {spec} would both write {target}; rename one", "SPEC")
        by_target[target] = spec
        spec_args = Namespace(**{**vars(args), "spec": spec, "more_specs": []})
        jobs.append(Job(spec, target, lambda spec_args=spec_args: _file_data(figure_from_args(spec_args), format,
                                                                            spec_args)))
    return _run_batch(jobs, args, folder)


def _run_batch(jobs, args, folder):
    """Run the jobs (a progress bar on a terminal), then one summary line; failures named, status 2 (1 for a bug)."""
    from .batch import run_jobs

    shown = not args.quiet and sys.stderr.isatty()
    outcome = run_jobs(jobs, workers=args.jobs, progress=sys.stderr if shown else None,
                       report=lambda line: print(line, file=sys.stderr))
    if not args.quiet or outcome.errors:
        print(outcome.summary(folder), file=sys.stderr)
    return outcome.status


def run_page(args):
    from dataclasses import replace

    from ..publish.document import build_figures, default_document, read_document, seed_spec_text
    from ..render.themes import get_theme

    if args.print_spec:
        _emit(seed_spec_text())
        return 0
    if args.spec is None:
        document, name = default_document(), "seed-document.toml"
    else:
        document, name = read_document(args.spec, sys.stdin.buffer)
    look = {}  # the flags override the spec's [figure] keys of the same names
    if args.theme is not None:
        look["theme"] = get_theme(args.theme, "--theme").name  # refused here, named as the flag
    if args.embed_font:
        look["embed_font"] = True
    document = replace(document, figure={**document.figure, **look})
    return _write_page(document, build_figures(document, name), args.output, name)


def run_walkthrough(args):
    document, figures = walkthrough_from_args(args)
    return _write_page(document, figures, args.output, "walkthrough")


def walkthrough_from_args(args, spec=None):
    """(Document, figures) of the walkthrough the flags and the optional spec describe.
    `spec`: the spec's (mapping, name), when the caller has read it already."""
    walk = {}
    fig = figure_from_args(args, walk, spec)
    from ..figures.heads import HeadsFigure

    if isinstance(fig, HeadsFigure):
        if walk:
            key, (_, where) = next(iter(walk.items()))
            raise InputError(f"steps through one head; for several heads the walkthrough goes head by head (give q "
                             f"and k for one head to step through {key})", where)
        for panel in fig.panels:
            _check_walkable(panel)
        from ..publish.walkthrough.heads import heads_walkthrough

        try:
            return heads_walkthrough(fig)
        except InputError as err:  # named as the user gave the heads: the flag, or the spec's key
            given = "--q-heads" if args.q_heads is not None else f"{args.spec}: q_heads"
            raise err.relocated(lambda where: given if where == "q_heads" else where) from None
    _check_walkable(fig)
    return walkthrough_steps(fig, walk)


def walkthrough_steps(fig, walk):
    """(Document, figures) of the walkthrough `walk` asks for: flash tiles, decoding, or the default."""
    if "flash" in walk and "decode" in walk:
        raise InputError("choose one walkthrough: FlashAttention tiles or KV-cache decoding, not both",
                         f"{walk['flash'][1]} and {walk['decode'][1]}")
    if "flash_order" in walk and "flash" not in walk:
        raise InputError("orders FlashAttention's tiles: give the tiles too (--flash BR,BC)", walk["flash_order"][1])
    if "flash" in walk:
        from ..publish.walkthrough.flash import flash_walkthrough

        (block, where), (order, order_where) = walk["flash"], walk.get("flash_order", ("fa2", None))
        try:
            document, figures = flash_walkthrough(fig, block, order)
        except InputError as err:
            raise err.relocated(lambda at: {"flash": where, "flash_order": order_where}.get(at, at)) from None
    elif "decode" in walk:
        from ..publish.walkthrough.decode import decode_walkthrough

        prompt, where = walk["decode"]
        try:
            document, figures = decode_walkthrough(fig, prompt)
        except InputError as err:
            raise err.relocated(lambda at: where if at == "decode" else at) from None
    else:
        from ..publish.walkthrough.scores import walkthrough

        document, figures = walkthrough(fig)
    return document, figures


def _check_walkable(fig):
    """A walkthrough steps through every score of one full figure, counted from 1."""
    from ..figures.api import Figure

    if not isinstance(fig, Figure) or fig.view != "full":
        raise InputError("steps through one full figure: its scores, mask and softmax; drop --view and --panel",
                         "walkthrough")
    if fig.words.elided:
        raise InputError("a walkthrough computes every score, so it draws every one: drop --elide (up to 64 tokens)",
                         "--elide")
    if fig.words.base != 1:
        raise InputError("walkthrough sentences count from 1; drop --index-base 0", "--index-base")


def run_slides(args):
    from ..publish.deck import model as decks
    from ..publish.deck.formats import choose_format, write_deck

    format, path = choose_format(args.format, args.output)
    spec = None
    if args.spec is not None:
        from ..io.spec import read_spec

        spec = read_spec(args.spec, sys.stdin.buffer)
    if spec and "sections" in spec[0] and not args.walkthrough:
        from dataclasses import replace

        from ..publish.document import parse_document

        document = parse_document(*spec)
        look = {key: value for key, value in (("theme", args.theme), ("embed_font", args.embed_font)) if value}
        if look.get("theme"):
            from ..render.themes import get_theme

            look["theme"] = get_theme(look["theme"], "--theme").name
        deck = decks.from_document(replace(document, figure={**document.figure, **look}), spec[1])
    else:
        figure_keys = ("q", "k", "highlight", "view", "n", "shape", "panels")  # a figure of its own, not the seed
        given = spec is not None or any(getattr(args, key, None) is not None for key in figure_keys)
        walk = any(getattr(args, key) is not None for key in ("flash", "flash_order", "decode")) or (
            spec is not None and any(key in spec[0] for key in ("flash", "flash_order", "decode")))
        if args.walkthrough or walk or not given:  # --flash and --decode are walkthroughs too
            deck = decks.from_sections(*walkthrough_from_args(args, spec))
        else:
            deck = decks.from_highlights(figure_from_args(args, spec=spec))
    with _writing(f"-o {path}"):
        paths = write_deck(deck, format, path)
    _report(paths)
    return 0


def _write_page(document, figures, out_dir, name):
    from ..publish.page import write_page

    if out_dir == "-":
        raise InputError("a page is several files (index.html and steps/); give a folder", "-o -")
    with _writing(f"-o {out_dir}"):
        paths = write_page(document, figures, out_dir, name)
    _report(paths)
    return 0


def run_gallery(args):
    from ..publish.gallery import gallery_jobs
    from ..io.atomic import folder_lock

    with _writing(args.folder), folder_lock(args.folder):  # another gallery run into the folder waits its turn
        return _run_batch(gallery_jobs(args.folder), args, args.folder)


def run_css(args):
    from ..render.themes import host_stylesheet

    if args.output == "-":
        _emit(host_stylesheet())
        return 0
    from ..io.atomic import write_atomic

    with _writing(f"-o {args.output}"):
        path = write_atomic(args.output, host_stylesheet())
    _report([path])
    return 0


def _emit(data):
    """Text (as UTF-8, whatever the locale) or bytes to standard output. Closed or full, it is one line
    for the user; a reader that left (`| head`) ends the command quietly (BrokenPipeError, in main)."""
    stream = sys.stdout
    if stream is None:  # started with standard output closed (`>&-`)
        raise InputError("closed; give a file with -o PATH", "standard output")
    buffer = getattr(stream, "buffer", None)  # None for a StringIO (tests, notebooks): text as it is
    try:
        if buffer is None:
            stream.write(data if isinstance(data, str) else data.decode("utf-8", "replace"))
        else:
            stream.flush()
            buffer.write(data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data)
        stream.flush()
    except BrokenPipeError:
        raise
    except (OSError, ValueError) as err:  # ENOSPC (/dev/full), EBADF, or a closed file object
        _drop_stdout()
        raise InputError(f"cannot write: {getattr(err, 'strerror', None) or err}", "standard output") from None


def _report(paths):
    """List the files written, one per line; if standard output cannot take the list, say what was written."""
    try:
        _emit("".join(f"{path}\n" for path in paths))
    except InputError as err:
        written = str(paths[0]) + (f" and {len(paths) - 1} more file{'s' * (len(paths) > 2)}" if len(paths) > 1 else "")
        raise InputError(f"{err.what}; written: {written}", err.where) from None


def _drop_stdout():
    """Point the standard output descriptor at /dev/null, so the interpreter's last flush cannot fail again
    (and print a second message)."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # None, a StringIO, or closed
        return
    os.dup2(os.open(os.devnull, os.O_WRONLY), fd)


class _writing:
    """An OSError while writing (no permission, disk full, a file in the way) is one line for the user.
    (A class, not contextlib.contextmanager: the command does not import contextlib.)"""

    def __init__(self, where):
        self.where = where

    def __enter__(self):
        return self

    def __exit__(self, kind, err, traceback):
        if isinstance(err, OSError):
            where = self.where
            place = f"{err.filename}: " if err.filename and not where.endswith(f" {err.filename}") else ""
            raise InputError(f"cannot write: {place}{err.strerror or err}", where) from None
        return False


class Stopped(BaseException):
    """SIGTERM or SIGHUP arrived: raised where the command is, so writes clean up as for Ctrl-C."""

    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


def _stop(signum, frame):
    raise Stopped(signum)


def main(argv: list[str] | None = None) -> int:
    """Run the command (`argv`: its arguments, default `sys.argv[1:]`) and return its exit status.

    SIGTERM and SIGHUP stop it as Ctrl-C does (no partial file, no temporary left)."""
    import signal

    handled = [getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)]
    try:
        previous = [(signum, signal.signal(signum, _stop)) for signum in handled]
    except ValueError:  # not the main thread: signals are not ours to handle
        previous = []
    try:
        return _main(argv)
    except Stopped as stop:
        return 128 + stop.signum  # as a shell reports a command ended by that signal
    finally:
        for signum, handler in previous:
            signal.signal(signum, handler)


def _main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv == ["--version"]:  # as fast as Python starts: no parser, no figure code
        try:
            _emit(f"attnviz {__version__}\n")
        except InputError as err:
            print(f"attnviz: error: {err}", file=sys.stderr)
            return 2
        return 0
    debug = "--debug" in argv
    try:
        parser = build_parser()
        args, extras = parser.parse_known_args(join_negative_values(argv))
        if extras:
            raise _unrecognized(parser, args.command, extras)
        if args.command is None:
            raise UsageError("no command given; try 'attnviz render' (see 'attnviz --help')")
        return {"render": run_render, "page": run_page, "walkthrough": run_walkthrough, "slides": run_slides,
                "gallery": run_gallery, "css": run_css}[args.command](args)
    except (InputError, UsageError) as err:
        if debug:
            raise
        print(f"attnviz: error: {_one_line(err)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader left (`| head`): stop quietly, as other command-line tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # so the exit's flush cannot fail again
        return 141  # 128 + SIGPIPE, what a shell reports for a tool killed by a closed pipe
    except Exception as err:  # noqa: BLE001 - the last line of defence: no traceback for users
        if debug:
            raise
        print(f"attnviz: internal error: {type(err).__name__}: {_one_line(err)}; please report this bug "
              "with the command you ran (and --debug for the traceback)", file=sys.stderr)
        return 1


def _one_line(err):
    return " ".join(str(err).split())


if __name__ == "__main__":
    sys.exit(main())
