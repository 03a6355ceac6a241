"""The `attnviz` command: a thin layer over the API.

Bad input ends in one line on stderr, `attnviz: error: <where>: <what>`, and exit
status 2; an internal failure in exit status 1 and a request for a bug report.
`--debug` shows the traceback instead.
"""

import argparse
import sys

from . import __version__
from .exact import InputError

__all__ = ["main"]

DEFAULT_OUTPUT = "out/attention-honesty-boundary.svg"
# Options whose value may start with a minus sign ("--q -1,2;0,1"): argparse would take it for an option.
VALUE_OPTIONS = ("--q", "--k", "--highlight", "--title", "--subtitle", "-o", "--output")


class UsageError(Exception):
    """A command-line mistake argparse found; shown as one line, exit 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(f"{message} (see '{self.prog} --help')")


def build_parser():
    parser = _Parser(prog="attnviz", description="Exact pictures of attention: scores, masks and named softmax.")
    parser.add_argument("--version", action="version", version=f"attnviz {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    render = commands.add_parser(
        "render", help="write one figure as SVG",
        description="Write one attention figure as SVG. With no vectors, the seed figure "
                    "(Q = K = (1,0); (0,1); (1,1), cell (3,3) highlighted).")
    render.add_argument("--q", metavar="VECTORS", help='query vectors, e.g. "1,0; 0,1; 1,1" '
                        "(entries: integers, fractions like -3/4, decimals like 0.5)")
    render.add_argument("--k", metavar="VECTORS", help="key vectors, same form as --q")
    render.add_argument("--highlight", metavar="TARGET", action="append",
                        help='mark as computed this step: "I,J" (a cell), "row=I", "mask", "softmax=I" '
                             'or "softmax"; repeatable')
    render.add_argument("--title", help="figure title (default: the seed's)")
    render.add_argument("--subtitle", help="figure subtitle, also its <desc> (default: the seed's)")
    render.add_argument("-o", "--output", metavar="PATH", default=DEFAULT_OUTPUT,
                        help=f"where to write the SVG; - for standard output (default: {DEFAULT_OUTPUT})")
    for sub in (render,):
        sub.add_argument("--debug", action="store_true", help="show tracebacks")
    return parser


def join_negative_values(argv):
    """`["--q", "-1,2"]` -> `["--q=-1,2"]`, so values that start with "-" reach their option."""
    out, args = [], iter(argv)
    for arg in args:
        if arg in VALUE_OPTIONS:
            value = next(args, None)
            if value is not None and value.startswith("-") and value not in VALUE_OPTIONS and value != "-":
                out.append(f"{arg}={value}")
                continue
            out.append(arg)
            if value is not None:
                out.append(value)
        else:
            out.append(arg)
    return out


def parse_vectors(text, option):
    """`"1,0; 0,1"` -> [["1", "0"], ["0", "1"]], exact parsing happens in the engine."""
    rows = [row.strip() for row in text.split(";")]
    if rows and rows[-1] == "" and len(rows) > 1:  # allow a trailing ";"
        rows.pop()
    for index, row in enumerate(rows, 1):
        if not row:
            raise InputError(f"vector {index} is empty (vectors are separated by ';', entries by ',')", option)
    return [[entry.strip() for entry in row.split(",")] for row in rows]


def run_render(args):
    from .figure import SEED_HIGHLIGHT, SEED_K, SEED_Q, figure

    if (args.q is None) != (args.k is None):
        raise InputError("missing; give both --q and --k", "--k" if args.q is not None else "--q")
    if args.q is None:
        q, k, highlight = SEED_Q, SEED_K, args.highlight or SEED_HIGHLIGHT
    else:
        q, k, highlight = parse_vectors(args.q, "--q"), parse_vectors(args.k, "--k"), args.highlight
    try:
        fig = figure(q, k, highlight=highlight, title=args.title, subtitle=args.subtitle)
    except InputError as err:
        raise err.relocated(_as_flag) from None
    svg = fig.svg() + "\n"
    if args.output == "-":
        sys.stdout.write(svg)
        return 0
    from .output import write_atomic

    try:
        path = write_atomic(args.output, svg)
    except OSError as err:
        raise InputError(f"cannot write: {err.strerror or err}", f"-o {args.output}") from None
    print(path)
    return 0


_FLAGS = {"q": "--q", "k": "--k", "q/k": "--q/--k", "highlight": "--highlight"}


def _as_flag(where):
    """The API names inputs `q`, `k`, `highlight '3,3'`; on the command line they are flags."""
    if where is None:
        return None
    head, _, rest = where.partition(" ")
    return " ".join(filter(None, (_FLAGS.get(head, head), rest)))


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    debug = "--debug" in argv
    try:
        args = build_parser().parse_args(join_negative_values(argv))
        if args.command is None:
            build_parser().print_help()
            return 2
        return {"render": run_render}[args.command](args)
    except (InputError, UsageError) as err:
        if debug:
            raise
        print(f"attnviz: error: {_one_line(err)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
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
