"""The `attnviz` commands: a thin layer over the API.

Bad input ends in one line on stderr, `attnviz: error: <where>: <what>`, and exit
status 2; an internal failure in exit status 1 and a request for a bug report.
`--debug` shows the traceback instead. The grammar is cli.parser's; signals and output, cli.signals'.
"""

from __future__ import annotations

import os
import sys

from .. import __version__
from ..errors import InputError, printable
from ..render.formats import FORMATS
from .parser import (DEFAULT_OUTPUT, DEFAULT_PAGE_DIR, UsageError, build_parser, join_negative_values,
                     unrecognized)
from .arguments import figure_from_args, stdin_bytes, walkthrough_from_args, walkthrough_steps
from .signals import StopSignals, Stopped, describe, emit, ignore_late_stops, one_line, report, writing

#: The keys that make `attnviz slides` a walkthrough's deck (figures.options.WALKTHROUGH_FLAGS).
WALKS = ("flash", "flash_order", "decode", "split_kv")

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from argparse import Namespace
    from collections.abc import Callable, Sequence
    from typing import Any


    from ..figures.composite import Composite
    from ..figures.figure import Drawable, Figure
    from .batch import Job


__all__ = ["main", "build_parser", "figure_from_args", "walkthrough_from_args", "walkthrough_steps", "run_render",
           "run_page", "run_walkthrough", "run_slides", "run_gallery", "run_css", "gallery_jobs"]


def _default_render_path(args: Namespace, fig: Figure | Composite) -> str:
    """The seed figure's file, or for `--step N` the file `attnviz page` writes for that step; with the
    asked format's extension."""
    from ..publish.page import STEPS  # start-up: only a render that names no -o needs the page's folder name

    extension = args.format or "svg"
    if args.step is not None:  # a step figure's ids are "attnviz-" + its file name, e.g. 01-what-is-exact
        return f"{DEFAULT_PAGE_DIR}/{STEPS}/{fig.id_prefix.removeprefix('attnviz-')}.{extension}"
    return f"{DEFAULT_OUTPUT.removesuffix('.svg')}.{extension}"


def run_render(args: Namespace) -> int:
    """`attnviz render [SPEC...]`: one figure (or a batch) as SVG, PNG or PDF."""
    if args.more_specs or (args.spec is not None and _names_folder(args.output)):
        return _render_batch(args)
    fig = figure_from_args(args)
    _say_choices(args, fig)
    output = args.output if args.output is not None else _default_render_path(args, fig)
    return _write_figure(fig, output, args)


def _write_figure(fig: Drawable, output: str, args: Namespace) -> int:
    """Write `fig` to `output` (- for standard output) in the format -f or the path names."""
    from ..render.raster import format_for  # start-up: --version and --help write no file

    data = _file_data(fig, format_for(output, args.format), args)
    if output == "-":
        emit(data)
        return 0
    from ..io.atomic import write_files  # start-up: standard output needs no file writer

    with writing(f"-o {output}"):
        write_files({output: data})
    _report_files([output])
    return 0


def _say_choices(args: Namespace, fig: Drawable) -> None:
    """With --verbose, the choices a figure's frame layout made, one a line on standard error (none for doc)."""
    if getattr(args, "verbose", False):
        if getattr(fig, "rounding", ""):
            print(f"attnviz: {fig.rounding}", file=sys.stderr)
        for choice in fig.layout().choices:
            print(f"attnviz: frame {fig.frame}: {choice}", file=sys.stderr)


def _say_steps_choices(args: Namespace, steps: Sequence[tuple[str, str, Any]]) -> None:
    """With --verbose, one line on standard error per (frame, name, layout) of a page's, walkthrough's or
    deck's figures: the choices its frame's layout made, `; `-separated."""
    if getattr(args, "verbose", False):
        for frame, name, layout in steps:
            print(f"attnviz: frame {frame}: {name}: {'; '.join(layout.choices) or 'no choice made'}",
                  file=sys.stderr)


def _file_data(fig: Drawable, format: str, args: Namespace) -> str | bytes:
    """The figure as the file's text (SVG) or bytes (PNG, PDF), at the flags' resolution."""
    resolution = {"--dpi": args.dpi, "--png-scale": args.png_scale, "--width": args.width}
    given = [flag for flag, value in resolution.items() if value is not None]
    if format != "png" and given:
        raise InputError(f"only a PNG has a resolution, and this writes {format.upper()}", given[0])
    try:
        return FORMATS[format].write(fig, args.png_scale, args.dpi, args.width)
    except InputError as err:  # named as the API's arguments; here they are flags
        flags: dict[str | None, str | None] = {"scale": "--png-scale", "dpi": "--dpi", "width": "--width",
                                               "format": "-f"}
        raise err.relocated(lambda where: flags.get(where, where)) from None


def _names_folder(output: str | None) -> bool:
    return output is not None and (output.endswith(("/", os.sep)) or os.path.isdir(output))


def _render_batch(args: Namespace) -> int:
    """`attnviz render A.toml B.toml ... [-o DIR/]`: each spec to DIR/<its name>.<format>, same bytes as
    rendered alone; the flags apply to every spec."""
    from argparse import Namespace  # start-up: only a batch copies its arguments

    from .batch import Job

    specs = [args.spec, *args.more_specs]
    folder = args.output if args.output is not None else DEFAULT_PAGE_DIR
    if not _names_folder(folder) and not os.path.isdir(folder) and folder != DEFAULT_PAGE_DIR:
        raise InputError("several figures go into a folder: end it with / (e.g. -o figures/)",
                         printable(f"-o {folder}"))
    if "-" in specs:
        raise InputError("standard input has no name to write a batch figure under; give spec files", "SPEC -")
    if args.step is not None:
        raise InputError("renders one spec's step; give one spec", "--step")
    format = args.format or "svg"
    jobs: list[Job] = []
    by_target: dict[str, str] = {}
    for spec in specs:
        target = os.path.join(folder, f"{os.path.splitext(os.path.basename(spec))[0]}.{format}")
        if target in by_target:
            raise InputError(printable(f"{by_target[target]} and {spec} would both write {target}; rename one"),
                             "SPEC")
        by_target[target] = spec
        spec_args = Namespace(**{**vars(args), "spec": spec, "more_specs": []})

        def make(spec_args: Namespace = spec_args) -> str | bytes:
            return _file_data(figure_from_args(spec_args), format, spec_args)

        jobs.append(Job(spec, target, make))
    return _run_batch(jobs, args, folder)


def _run_batch(jobs: Sequence[Job], args: Namespace, folder: str) -> int:
    """Run the jobs (a progress bar on a terminal), then one summary line; failures named, status 2 (1 for a bug)."""
    from .batch import run_jobs  # start-up: only a batch runs jobs

    shown = not args.quiet and sys.stderr.isatty()
    outcome = run_jobs(jobs, workers=args.jobs, progress=sys.stderr if shown else None,
                       report=lambda line: print(line, file=sys.stderr))
    if not args.quiet or outcome.errors:
        print(outcome.summary(printable(folder)), file=sys.stderr)
    return outcome.status


def run_page(args: Namespace) -> int:
    """`attnviz page [SPEC]`: a document as an HTML page and one SVG per section."""
    from dataclasses import replace  # start-up: only `attnviz page` reads documents (dataclasses is slow to import)

    from ..publish.document import build_figures, default_document, read_document, seed_spec_text
    from ..render.themes import get_theme  # start-up: only a --theme flag needs the themes

    if args.print_spec:
        emit(seed_spec_text())
        return 0
    if args.spec is None:
        document, name = default_document(), "seed-document.toml"
    else:
        document, name = read_document(args.spec, stdin_bytes())
    look: dict[str, object] = {}  # the flags override the spec's [figure] keys of the same names
    if args.theme is not None:
        look["theme"] = get_theme(args.theme, "--theme").name  # refused here, named as the flag
    if args.embed_font:
        look["embed_font"] = True
    if args.dark_selector is not None:
        from ..render.themes import check_dark_selector  # start-up: only a --dark-selector flag needs it

        look["dark_selector"] = check_dark_selector(args.dark_selector, "--dark-selector")
    if args.frame is not None:
        from ..layout.frames import get_frame  # start-up: only a --frame flag needs the frames

        look["frame"] = get_frame(args.frame, "--frame").name
    document = replace(document, figure={**document.figure, **look})
    figures = build_figures(document, name)
    return _write_page(document, figures, args.output, name, args)


def run_walkthrough(args: Namespace) -> int:
    """`attnviz walkthrough [SPEC]`: every step behind a figure, as a page."""
    document, figures = walkthrough_from_args(args)
    return _write_page(document, figures, args.output, "walkthrough", args)


def run_slides(args: Namespace) -> int:
    """`attnviz slides [SPEC]`: a document's sections, a walkthrough or a figure's highlights as a deck."""
    from ..publish.deck import model as decks  # start-up: only `attnviz slides` writes decks
    from ..publish.deck.formats import BINARY_FORMATS, choose_format, deck_files, write_deck
    from ..words.user_text import MAX_TITLE

    format, path = choose_format(args.format, args.output)
    if path == "-" and format in BINARY_FORMATS and sys.stdout is not None and sys.stdout.isatty():
        raise InputError(f"a {format.upper()} deck is binary, not for a terminal; redirect it (> talk.{format}) "
                         f"or give -o talk.{format}", "-o -")
    spec = None
    if args.spec is not None:
        from ..io.spec import read_spec  # start-up: only a deck from a spec file reads one

        spec = read_spec(args.spec, stdin_bytes())
    named = _deck_keys(args, spec)  # the deck's keys of a spec, as if given as flags
    if spec is not None:
        spec = ({key: value for key, value in spec[0].items() if key not in named}, spec[1])
    try:
        deck, title_from = _slides_deck(args, spec)
    except InputError as err:  # the deck's keywords, named as the flags (or the spec's keys) that gave them
        raise err.relocated(lambda where: named.get(where or "", where)) from None
    figures: dict[int, tuple[str, str, Any]] = {}  # a step's continuation slides share its figure: one line
    for slide, layout in zip(deck.slides, deck.layouts()):
        figures.setdefault(id(slide.figure), (deck.frame.name, slide.name, layout))
    _say_steps_choices(args, list(figures.values()))
    if format == "pptx" and len(deck.title) > decks.PPTX_MAX_TITLE:
        raise InputError(f"{len(deck.title)} characters; a PowerPoint deck's title is limited to "
                         f"{decks.PPTX_MAX_TITLE} (other formats take {MAX_TITLE})", title_from)
    if path == "-":
        emit(deck_files(deck, format, path)[path])
        return 0
    with writing(f"-o {path}"):
        paths = write_deck(deck, format, path)
    _report_files(paths)
    return 0


def _slides_deck(args: Namespace, spec: Any) -> tuple[Any, str]:
    """(the deck, where its title came from) of `attnviz slides`'s spec and flags."""
    from ..publish.deck import model as decks  # start-up: only `attnviz slides` writes decks
    from ..publish.deck.highlights import from_highlights  # start-up: only `attnviz slides` writes decks

    if spec and "sections" in spec[0] and not args.walkthrough:
        from dataclasses import replace  # start-up: only a document's deck needs them (dataclasses is slow to import)

        from ..publish.document import parse_document

        document = parse_document(*spec)
        look = {key: value for key, value in (("theme", args.theme), ("embed_font", args.embed_font),
                                              ("frame", args.frame), ("dark_selector", args.dark_selector)) if value}
        if look.get("theme"):
            from ..render.themes import get_theme  # start-up: only a --theme flag needs the themes

            look["theme"] = get_theme(look["theme"], "--theme").name
        deck = decks.from_document(replace(document, figure={**document.figure, **look}), spec[1],
                                   **_deck_options(args))
        title_from = f"{spec[1]}: {'title' if document.title else 'heading'}"
    else:
        figure_keys = ("q", "k", "highlight", "view", "n", "shape", "panels",  # a figure of its own, not the seed
                       "differential")  # (DIFF Transformer's maps: one figure of panels, not a head-by-head walk)
        given = spec is not None or any(getattr(args, key, None) is not None for key in figure_keys)
        walk = any(getattr(args, key) is not None for key in WALKS) or (
            spec is not None and any(key in spec[0] for key in WALKS))
        title_from = "title"  # a walkthrough's title is attnviz's own, always short
        if args.walkthrough or walk or not given:  # --flash and --decode are walkthroughs too
            deck = decks.from_sections(*walkthrough_from_args(args, spec), **_deck_options(args))
        else:
            deck = from_highlights(figure_from_args(args, spec=spec), **_deck_options(args))
            title_from = "--title" if args.title is not None else f"{spec[1]}: title" if spec else "title"
    return deck, title_from


def _deck_keys(args: Namespace, spec: Any) -> dict[str, str]:
    """The deck keys a spec gives (aspect, steps, author, date, step_seconds) moved onto `args` where no flag
    gave them, checked as text or numbers; returns {key: where it was given}, for errors."""
    from ..figures.options import BY_NAME, DECK_FLAGS  # start-up: only `attnviz slides` reads them
    from ..words.user_text import check_text

    named = {name: BY_NAME[name].flag or name for name in DECK_FLAGS}
    for name in DECK_FLAGS:
        if spec is None or name not in spec[0]:
            continue
        value, where = spec[0][name], f"{printable(spec[1])}: {name}"
        if name == "step_seconds":
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise InputError(f"expected a number of seconds, got {value!r:.40}", where)
        elif name == "steps" and isinstance(value, list):
            if not all(isinstance(n, int) and not isinstance(n, bool) for n in value):
                raise InputError("expected step numbers, e.g. [1, 2, 3] or \"1-3,7\"", where)
            value = ",".join(map(str, value))
        else:
            value = check_text(value, where)
        if getattr(args, name) is None:
            setattr(args, name, value)
            named[name] = where
    return named


def _deck_options(args: Namespace) -> dict[str, Any]:
    """`attnviz slides`'s deck flags (and spec keys) as `from_sections`'s keywords; a title slide when
    --title, --author or --date is given."""
    from ..publish.deck.model import STEP_SECONDS  # start-up: only `attnviz slides` reads them

    aspect = args.aspect or "16:9"
    options: dict[str, Any] = {"aspect": aspect, "step_seconds": args.step_seconds or STEP_SECONDS}
    if args.steps is not None:
        options["steps"] = args.steps  # checked against the deck's steps
    if any(value is not None for value in (args.title, args.author, args.date)):
        options.update(title=args.title, author=args.author or "", date=args.date or "")
    return options


def _write_page(document: Any, figures: Any, out_dir: str, name: str, args: Namespace) -> int:
    from ..publish.page import write_page  # start-up: only pages need the page writer

    if out_dir == "-":
        raise InputError("a page is several files (index.html and steps/); give a folder", "-o -")
    if args.width is not None and args.format != "png":
        raise InputError(f"only a PNG has a width in pixels, and the steps are {args.format.upper()}", "--width")
    if getattr(args, "verbose", False):
        _say_steps_choices(args, [(fig.frame, section.name, fig.layout())
                                  for section, fig in zip(document.sections, figures)])
    with writing(f"-o {out_dir}"):
        try:
            paths = write_page(document, figures, out_dir, name, args.format, args.width)
        except InputError as err:  # a step's PNG too large: named as the flag
            raise err.relocated(lambda where: "--width" if where == "width" else where) from None
    report(paths)
    return 0


def run_gallery(args: Namespace) -> int:
    """`attnviz gallery [FOLDER]`: every gallery entry, as a batch."""
    from ..io.atomic import folder_lock  # start-up: only the gallery locks its folder

    with writing(args.folder), folder_lock(args.folder):  # another gallery run into the folder waits its turn
        return _run_batch(gallery_jobs(args.folder), args, args.folder)


def run_model(args: Namespace) -> int:
    """`attnviz model CONFIG`: a model's masks, one panel per layer pattern."""
    from ..figures.model import model_figure  # start-up: only `attnviz model` reads a model's config

    fig = model_figure(args.config, n=args.n, tokens=args.tokens, layers=args.layers, pad_left=args.pad_left,
                       pad_right=args.pad_right, decode=args.decode, image_tokens=args.image_tokens, packed=args.packed,
                       prefix=args.prefix, buckets=args.buckets,
                       decoder_n=args.decoder_n, tokenizer=args.tokenizer, title=args.title, theme=args.theme,
                       frame=args.frame)
    _say_choices(args, fig)
    return _write_figure(fig, args.output, args)


def run_css(args: Namespace) -> int:
    """`attnviz css`: the style sheet that exposes inline figures' colours as CSS custom properties."""
    from ..render.themes import check_dark_selector, host_stylesheet  # start-up: only `attnviz css` needs them

    selector = None if args.dark_selector is None else check_dark_selector(args.dark_selector, "--dark-selector")
    if args.output == "-":
        emit(host_stylesheet(selector))
        return 0
    from ..io.atomic import write_atomic  # start-up: standard output needs no file writer

    with writing(f"-o {args.output}"):
        path = write_atomic(args.output, host_stylesheet(selector))
    _report_files([path])
    return 0


def _report_files(paths: Sequence[object]) -> None:
    """List the files written on standard output, but not a file that is standard output itself
    (`-o /dev/stdout` on a pipe): its name would land in the figure's own stream."""
    try:
        out = os.fstat(sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):  # None, a StringIO, or closed: no file to be
        report(paths)
        return
    listed = []
    for path in paths:
        try:
            info = os.stat(str(path))  # a str or a Path
        except OSError:
            info = None
        if info is None or (info.st_dev, info.st_ino) != (out.st_dev, out.st_ino):
            listed.append(path)
    if listed:
        report(listed)


def gallery_jobs(folder: str) -> list[Job]:
    """One batch job (cli.batch) per gallery entry, writing `folder/NAME.svg`, and one per spec file the panel
    entries are drawn from: what `attnviz gallery` runs."""
    from ..publish.gallery import ENTRIES, make  # start-up: only `attnviz gallery` draws the gallery
    from .batch import Job

    def svg(entry: Any) -> Callable[[], str]:
        return lambda: make(entry).svg() + "\n"

    def spec(entry: Any) -> Callable[[], str]:
        return lambda: entry.spec

    jobs = [Job(entry.name, os.path.join(folder, f"{entry.name}.svg"), svg(entry)) for entry in ENTRIES]
    # The spec files the panel entries are drawn from, so each is one command: attnviz render NAME.toml
    return jobs + [Job(f"{entry.name}.toml", os.path.join(folder, f"{entry.name}.toml"), spec(entry))
                   for entry in ENTRIES if entry.spec]


def main(argv: list[str] | None = None) -> int:
    """Run the command (`argv`: its arguments, default `sys.argv[1:]`) and return its exit status.

    SIGTERM and SIGHUP stop it as Ctrl-C does (no partial file, no temporary left); run as the process's command
    (`argv` None: it reads sys.argv), a stop that comes once its work is done is ignored as the process exits."""
    try:
        with StopSignals():
            status = _main(argv)
    except Stopped as stop:
        status = 128 + stop.signum  # as a shell reports a command ended by that signal
    except KeyboardInterrupt:  # a Ctrl-C after the command's own handling, as its handlers came off
        status = 130
    if argv is None:  # the process's own command: done, a stop arriving while it exits has nothing left to stop
        ignore_late_stops()
    return status


def _main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv == ["--version"]:  # as fast as Python starts: no parser, no figure code
        return _version()
    debug = "--debug" in argv
    try:
        return _run(argv)
    except (InputError, UsageError) as err:
        if debug:
            raise
        print(f"attnviz: error: {one_line(err)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader left (`| head`): stop quietly, as other command-line tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # so the exit's flush cannot fail again
        return 141  # 128 + SIGPIPE, what a shell reports for a tool killed by a closed pipe
    except Exception as err:  # noqa: BLE001 - the last line of defence: no traceback for users
        if debug:
            raise
        print(f"attnviz: internal error: {describe(err)}; please report this bug "
              "with the command you ran (and --debug for the traceback)", file=sys.stderr)
        return 1


def _version() -> int:
    try:
        emit(f"attnviz {__version__}\n")
    except InputError as err:
        print(f"attnviz: error: {err}", file=sys.stderr)
        return 2
    return 0


def _run(argv: list[str]) -> int:
    """Parse the arguments and run their command."""
    parser = build_parser()
    args, extras = parser.parse_known_args(join_negative_values(argv))
    if extras:
        raise unrecognized(parser, args.command, extras)
    if args.command is None:
        raise UsageError("no command given; try 'attnviz render' (see 'attnviz --help')")
    return {"render": run_render, "page": run_page, "walkthrough": run_walkthrough, "slides": run_slides,
            "gallery": run_gallery, "css": run_css, "model": run_model}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
