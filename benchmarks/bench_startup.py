"""Start-up: `attnviz render` of the default figure against a bare `python -c pass`, 30 paired runs.

    python benchmarks/bench_startup.py [--runs 30] [--attnviz CMD]   (standard library only)

Each pair runs the two processes back to back (the order alternating from pair to pair), so the load
of a shared machine falls on both alike; the ratio is taken per pair, and the median pair's ratio is
the result, in wall time and in CPU time (user + system, from `getrusage`, which other processes do
not inflate). Target (issue 33): at most 3x. It ends with PASS or MISS and exits 1 on a miss.

The command is the console script next to this Python when there is one, else `python -m attnviz`
(which also imports `runpy`; the console script is what users run). The bytecode is compiled first, as
an installed package's is. The slowest modules of seven `-X importtime` runs (medians) are listed, to show where the
time goes.
"""

import argparse
import compileall
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = 3.0


def attnviz_command():
    script = Path(sys.executable).parent / "attnviz"
    return [str(script)] if script.is_file() and os.access(script, os.X_OK) else [sys.executable, "-m", "attnviz"]


def timed(cmd, env):
    """(wall s, CPU s) of one run of `cmd`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def paired_runs(attnviz, bare, runs, env):
    """[(attnviz wall, bare wall, attnviz CPU, bare CPU)] for each pair, after one untimed run of each."""
    timed(attnviz, env), timed(bare, env)
    pairs = []
    for n in range(runs):
        if n % 2:
            (bw, bc), (aw, ac) = timed(bare, env), timed(attnviz, env)
        else:
            (aw, ac), (bw, bc) = timed(attnviz, env), timed(bare, env)
        pairs.append((aw, bw, ac, bc))
    return pairs


def slowest_imports(attnviz, env, count=8, runs=7):
    """The `count` modules with the largest own import time, median of `runs` `-X importtime` runs (µs, name)."""
    own = {}
    for _ in range(runs):
        done = subprocess.run(attnviz, capture_output=True, text=True, env={**env, "PYTHONPROFILEIMPORTTIME": "1"})
        for line in done.stderr.splitlines():
            if line.startswith("import time:") and "|" in line and "self" not in line:
                us, _, name = (part.strip() for part in line.split(":", 1)[1].split("|"))
                own.setdefault(name, []).append(int(us))
    return sorted(((statistics.median(times), name) for name, times in own.items()), reverse=True)[:count]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=30, help="pairs of runs (default 30)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))  # this checkout's attnviz, here and in the command (PYTHONPATH below)
    import attnviz

    compileall.compile_dir(Path(attnviz.__file__).parent, quiet=1)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    with tempfile.TemporaryDirectory() as tmp:
        render = [*attnviz_command(), "render", "-o", str(Path(tmp) / "seed.svg")]
        bare = [sys.executable, "-c", "pass"]
        print(f"Python {sys.version.split()[0]}; attnviz {attnviz.__version__} ({Path(attnviz.__file__).parent}); "
              f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}; {args.runs} paired runs")
        pairs = paired_runs(render, bare, args.runs, env)
        slow = slowest_imports(render, env)
    ok = True
    for kind, a, b in (("wall", 0, 1), ("CPU", 2, 3)):
        ratio = statistics.median(pair[a] / pair[b] for pair in pairs)
        own, base = (statistics.median(pair[i] for pair in pairs) * 1000 for i in (a, b))
        passed = ratio <= TARGET
        ok &= passed
        print(f"  {kind:>4}: attnviz render {own:6.1f} ms, python -c pass {base:5.1f} ms (medians); "
              f"median pair {ratio:.2f}x  {'PASS' if passed else 'MISS'} (<= {TARGET:g}x)")
    print("  slowest imports (own µs, median): " + ", ".join(f"{name} {us:.0f}" for us, name in slow))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
