#!/usr/bin/env python3
"""A small, self-contained mutation tester (standard library only).

    python tools/mutate.py attnviz/engine/attention.py -t tests/test_engine.py -t tests/test_masks.py \
        --max 60 --seed 1 --timeout 120 --jobs 2

For one source file it lists every mutation site with `ast`:

    cmp     flip a comparison: < <=, <= <, > >=, >= >, == !=, != ==
    arith   swap + and -
    const   an integer constant n -> n+1
    bool    `and` <-> `or`
    if      negate an if-condition (statements and x if c else y)
    return  replace a return value with None

samples at most --max of them (deterministically, by --seed), and for each one writes the mutated file
into a private copy of the repository (never the real tree), runs the given pytest selection there with
`-x -q -p no:cacheprovider` under --timeout, and restores the copy's file (try/finally). A mutant is
"killed" when the tests fail or time out, "survived" when they pass. The real source is only ever read,
so an interrupted run cannot leave it mutated; the copies are temporary directories removed at the end.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FLIP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq}
SYMBOL = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
          ast.Add: "+", ast.Sub: "-", ast.And: "and", ast.Or: "or"}
IGNORE = shutil.ignore_patterns(".git", ".venv", "__pycache__", ".hypothesis", ".pytest_cache", "*.pyc", "node_modules",
                                "site", "build", "dist")


@dataclass
class Mutant:
    index: int  # the site's position in the walk over the file's tree
    line: int
    kind: str
    description: str
    status: str = ""  # killed, survived, timeout, error (the mutant did not compile)
    seconds: float = 0.0
    failed: str = ""  # the first failing test, when killed


def _docstring_nodes(tree):
    """Constant nodes that are docstrings (not mutated: a changed docstring is an equivalent mutant)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def _sites(tree):
    """[(node, kind, slot, description)] in a deterministic walk order; `slot` picks the part of the node to change."""
    skip = _docstring_nodes(tree)
    annotations = set()
    for node in ast.walk(tree):  # constants inside annotations do not run
        for name in ("annotation", "returns"):
            ann = getattr(node, name, None)
            if ann is not None:
                annotations.update(id(n) for n in ast.walk(ann))
    sites = []
    for node in ast.walk(tree):
        if id(node) in annotations:
            continue
        if isinstance(node, ast.Compare):
            for slot, op in enumerate(node.ops):
                if type(op) in FLIP:
                    sites.append((node, "cmp", slot, f"{SYMBOL[type(op)]} -> {SYMBOL[FLIP[type(op)]]}"))
        elif isinstance(node, (ast.BinOp, ast.AugAssign)) and isinstance(node.op, (ast.Add, ast.Sub)):
            other = ast.Sub if isinstance(node.op, ast.Add) else ast.Add
            sites.append((node, "arith", 0, f"{SYMBOL[type(node.op)]} -> {SYMBOL[other]}"))
        elif (isinstance(node, ast.Constant) and type(node.value) is int and id(node) not in skip):
            sites.append((node, "const", 0, f"{node.value} -> {node.value + 1}"))
        elif isinstance(node, ast.BoolOp):
            other = ast.Or if isinstance(node.op, ast.And) else ast.And
            sites.append((node, "bool", 0, f"{SYMBOL[type(node.op)]} -> {SYMBOL[other]}"))
        elif isinstance(node, (ast.If, ast.IfExp)):
            sites.append((node, "if", 0, f"if {ast.unparse(node.test)[:60]} -> if not (...)"))
        elif isinstance(node, ast.Return) and node.value is not None and not (
                isinstance(node.value, ast.Constant) and node.value.value is None):
            sites.append((node, "return", 0, f"return {ast.unparse(node.value)[:60]} -> return None"))
    return sites


def list_mutants(source):
    tree = ast.parse(source)
    return [Mutant(n, getattr(node, "lineno", 0), kind, desc) for n, (node, kind, _, desc) in enumerate(_sites(tree))]


def mutated_source(source, index):
    """The file's source with mutation `index` applied (a fresh parse each time: mutants never combine)."""
    tree = ast.parse(source)
    node, kind, slot, _ = _sites(tree)[index]
    if kind == "cmp":
        node.ops[slot] = FLIP[type(node.ops[slot])]()
    elif kind == "arith":
        node.op = ast.Sub() if isinstance(node.op, ast.Add) else ast.Add()
    elif kind == "const":
        node.value = node.value + 1
    elif kind == "bool":
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    elif kind == "if":
        node.test = ast.UnaryOp(op=ast.Not(), operand=node.test)
    elif kind == "return":
        node.value = ast.Constant(value=None)
    ast.fix_missing_locations(tree)
    return ast.unparse(tree)


def copy_repo(into):
    """A private copy of the repository's working tree (sources and tests), in `into`."""
    dest = Path(into) / "repo"
    shutil.copytree(ROOT, dest, ignore=IGNORE, symlinks=True)
    # A Hypothesis profile without the shrink phase: a mutant only needs a failing example, not the smallest
    # one, and shrinking is what makes most killed mutants run into the timeout.
    (dest / "_mutate_plugin.py").write_text(
        "from hypothesis import Phase, settings\n"
        "settings.register_profile('mutate', deadline=None, max_examples=60, derandomize=True,\n"
        "                          phases=[Phase.explicit, Phase.reuse, Phase.generate])\n")
    return dest


def run_tests(repo, tests, timeout, python):
    env = dict(os.environ, PYTHONPATH=str(repo), PYTHONDONTWRITEBYTECODE="1", HYPOTHESIS_PROFILE="mutate")
    cmd = [python, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-p", "_mutate_plugin", *tests]
    start = time.monotonic()
    try:
        done = subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", time.monotonic() - start, ""
    failed = next((line.split(" ", 1)[1].split(" - ")[0] for line in done.stdout.splitlines()
                   if line.startswith(("FAILED ", "ERROR "))), "")
    return ("survived" if done.returncode == 0 else "killed"), time.monotonic() - start, failed


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", help="the file to mutate, relative to the repository root")
    parser.add_argument("-t", "--tests", action="append", required=True, help="a pytest selection (repeatable)")
    parser.add_argument("--max", type=int, default=60, help="at most this many mutants (sampled)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--jobs", type=int, default=1, help="mutants run at once, each in its own copy")
    parser.add_argument("--lines", help="only mutate lines A-B (e.g. 40-120)")
    parser.add_argument("--only", help="comma-separated mutant indices to run (as listed by --list)")
    parser.add_argument("--list", action="store_true", help="list the mutation sites and exit")
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args(argv)

    # SIGTERM (and ^C) unwind through the finally blocks and remove the temporary copies.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    rel = Path(args.source)
    source = (ROOT / rel).read_text()
    mutants = list_mutants(source)
    if args.lines:
        a, b = map(int, args.lines.split("-"))
        mutants = [m for m in mutants if a <= m.line <= b]
    if args.list:
        for m in mutants:
            print(f"{m.index:4d} {rel}:{m.line} {m.kind:6s} {m.description}")
        return 0
    if args.only:
        wanted = {int(x) for x in args.only.split(",")}
        mutants = [m for m in mutants if m.index in wanted]
    elif len(mutants) > args.max:
        mutants = sorted(random.Random(args.seed).sample(mutants, args.max), key=lambda m: m.index)

    with tempfile.TemporaryDirectory(prefix="attnviz-mutate-") as tmp:
        repos = [copy_repo(Path(tmp) / str(n)) for n in range(max(1, args.jobs))]
        status, seconds, failed = run_tests(repos[0], args.tests, args.timeout * 3, args.python)
        if status != "survived":
            print(f"the tests fail before any mutation ({status}: {failed}); nothing to measure", file=sys.stderr)
            return 2
        print(f"{rel}: {len(mutants)} mutants; unmutated run {seconds:.1f}s", flush=True)
        timeout = max(args.timeout, 3 * seconds)
        free = list(repos)

        def one(m):
            repo = free.pop()
            target = repo / rel
            try:
                try:
                    text = mutated_source(source, m.index)
                    compile(text, str(rel), "exec")
                except (SyntaxError, ValueError) as err:
                    m.status, m.failed = "error", str(err)
                    return m
                target.write_text(text)
                m.status, m.seconds, m.failed = run_tests(repo, args.tests, timeout, args.python)
                return m
            finally:
                target.write_text(source)  # the copy's file is restored whatever happened
                free.append(repo)

        with ThreadPoolExecutor(max_workers=len(repos)) as pool:
            for m in pool.map(one, mutants):
                print(f"{m.status:8s} {rel}:{m.line} [{m.index}] {m.kind} {m.description}"
                      + (f"  <- {m.failed}" if m.failed and m.status == "killed" else ""), flush=True)

    counts = {s: sum(m.status == s for m in mutants) for s in ("killed", "timeout", "survived", "error")}
    print(f"{rel}: {len(mutants)} mutants, " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    if args.json:
        Path(args.json).write_text(json.dumps({"file": str(rel), "tests": args.tests, "counts": counts,
                                               "mutants": [asdict(m) for m in mutants]}, indent=1))
    return 1 if counts["survived"] else 0


if __name__ == "__main__":
    sys.exit(main())
