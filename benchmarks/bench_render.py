"""Where users wait on attnviz, measured side by side in one run (`make bench`).

1. The command, as whole processes, alternating runs: `attnviz render` (the seed figure),
   `--version` and `--help` against a bare `python -c pass`, and a seaborn script.
2. In process, n = 3, 16, 64 with normalizer captions: attnviz (vectors -> SVG text) against
   the floor writer (the same SVG by plain string formatting, from the finished layout) and seaborn.
3. Memory: the peak of a process that renders the 64-token figure.
4. svgwrite against attnviz's own writer (import, build + serialise, the HTML checker).
5. A docs build of 100 directives (Sphinx, `-j 1` and `-j auto`, cold and warm; MkDocs cold and warm).
6. A batch of 100 specs: one `attnviz render` process, serial and `-j 2`; 2000 tiny specs, `-j 1` and `-j auto`.
7. Frames: the seed, a 64-token mask map, a 64-token figure, grouped-query heads, a 6-token sentence, its
   ALiBi logits, a FlashAttention step and a decode step, each made for a slide against its doc figure
   (vectors -> SVG text), run in turn, side by side (`bench_render.py frames` runs this alone).

Run with the venv's Python (`make bench`, or `.venv/bin/python benchmarks/bench_render.py`).
"""

import compileall
import gc
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import attnviz
import floor_writer  # this folder
import matplotlib
import numpy as np
import seaborn
import seaborn_figure  # this folder: the seaborn figure, also run as the seaborn script below
import svgwrite
import svgwrite_check  # this folder

HERE = Path(__file__).resolve().parent
SEED = ((1, 0), (0, 1), (1, 1))
SIZES = (3, 16, 64)
FORM = "normalizer"  # caption form of the in-process figures
COMMAND_RUNS = 15  # alternating whole-process runs of each command
MIN_RUNS, BUDGET_S, MAX_RUNS = 3, 2.0, 200  # per in-process measurement
DOC_FIGURES, BATCH_SPECS = 100, 100
TARGETS = {"command": 3.0, "floor": 4.0, "seaborn": {3: 60, 64: 50}, "memory_mb": 100, "warm_docs_s": 1.0,
           "slide_over_doc": 1.5}


def vectors(n, a, b, dim=4):
    """n deterministic vectors of small integers (-2..2)."""
    return [[(a * i + b * t) % 5 - 2 for t in range(dim)] for i in range(n)]


def inputs(n):
    """(q, k) for n tokens; n=3 is the seed figure's Q = K."""
    return (SEED, SEED) if n == 3 else (vectors(n, 3, 1), vectors(n, 2, 3))


def median_ms(fn):
    """Median CPU time of fn() in ms (at least MIN_RUNS runs, about BUDGET_S in all), the number of runs.
    CPU time, not wall time: on a shared machine another process's turn is not this figure's cost."""
    times, start = [], time.perf_counter()
    while len(times) < MIN_RUNS or (time.perf_counter() - start < BUDGET_S and len(times) < MAX_RUNS):
        gc.collect()  # every run starts from a clean heap, not the last run's garbage
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return statistics.median(times) * 1000, len(times)


def alternating_median_ms(fns, budget_s=3 * BUDGET_S):
    """{name: median CPU ms} of each of `fns` ({name: fn}), run in turn (alternating, as section 1's commands
    are), so a busy moment of the machine falls on every one of them alike rather than on one."""
    times, start = {name: [] for name in fns}, time.perf_counter()
    while (min(map(len, times.values())) < MIN_RUNS
           or (time.perf_counter() - start < budget_s and min(map(len, times.values())) < MAX_RUNS)):
        for name, fn in fns.items():
            gc.collect()
            t0 = time.process_time()
            fn()
            times[name].append(time.process_time() - t0)
    return {name: statistics.median(runs) * 1000 for name, runs in times.items()}


# 1. The command

def attnviz_script():
    """The console script users run (next to this Python), else `python -m attnviz`."""
    script = Path(sys.executable).parent / "attnviz"
    return [str(script)] if script.is_file() and os.access(script, os.X_OK) else [sys.executable, "-m", "attnviz"]


def commands(tmp):
    attnviz_cmd = attnviz_script()
    return {
        "python -c pass": [sys.executable, "-c", "pass"],
        "attnviz render": [*attnviz_cmd, "render", "-o", str(tmp / "seed.svg")],
        "attnviz --version": [*attnviz_cmd, "--version"],
        "attnviz --help": [*attnviz_cmd, "--help"],
        "seaborn script": [sys.executable, str(HERE / "seaborn_figure.py"), str(tmp / "seaborn.svg")],
    }


def whole_processes(tmp):
    """{name: (median wall ms, median CPU ms)}, the commands run in turn (alternating), after one untimed run
    each. CPU: the process's user + system time, which other processes' turns on the machine do not inflate."""
    import resource

    cmds = commands(tmp)
    wall, cpu = {name: [] for name in cmds}, {name: [] for name in cmds}
    for cmd in cmds.values():
        subprocess.run(cmd, check=True, capture_output=True)
    for run in range(COMMAND_RUNS):
        for name, cmd in cmds.items():
            if name == "seaborn script" and run >= 5:
                continue  # a second a run: five are plenty
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True)
            wall[name].append(time.perf_counter() - t0)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[name].append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return {name: (statistics.median(wall[name]) * 1000, statistics.median(cpu[name]) * 1000) for name in cmds}


# 2. In process

def seaborn_args(fig, n):
    """seaborn_figure.draw's arguments, every text taken from the attnviz figure (outside the timing)."""
    words = fig.words
    return (np.array(fig.attention.scores, dtype=float), np.array(fig.attention.kept),
            np.array([[cell.text for cell in row] for row in words.cells]),
            [(row.scores, row.weights) for row in words.softmax_rows],
            words.title, words.subtitle, [(n, n)])


def in_process():
    attnviz.figure(SEED, SEED).svg()  # warm up both: imports, font lookups, caches
    seaborn_figure.draw(*seaborn_args(attnviz.figure(SEED, SEED), 3))
    rows = []
    for n in SIZES:
        q, k = inputs(n)
        fig = attnviz.figure(q, k, highlight=[(n, n)], softmax=FORM)
        svg, layout, prefix, description = fig.svg(), fig.layout(), fig.id_prefix, fig.description()
        assert floor_writer.write(layout, prefix, description, fig.theme) == svg  # the same bytes
        args = seaborn_args(fig, n)
        a_ms, a_runs = median_ms(lambda q=q, k=k, n=n: attnviz.figure(q, k, highlight=[(n, n)], softmax=FORM).svg())
        f_ms, _ = median_ms(lambda layout=layout, prefix=prefix, description=description:
                            floor_writer.write(layout, prefix, description, "light"))
        s_svg = seaborn_figure.draw(*args)
        assert fig.words.softmax_rows[-1].scores.encode() in s_svg  # the same captions
        s_ms, s_runs = median_ms(lambda args=args: seaborn_figure.draw(*args))
        rows.append(dict(n=n, attnviz=a_ms, floor=f_ms, seaborn=s_ms, svg_bytes=len(svg.encode()),
                         seaborn_bytes=len(s_svg), runs=f"{a_runs}/{s_runs}"))
    return rows


# 3. Memory

def peak_memory_mb():
    """Peak resident memory of a process that renders the 64-token figure, and of one that only imports."""
    q, k = inputs(64)
    # VmHWM, the process's own high-water mark (ru_maxrss would keep this benchmark's, from before exec).
    code = ("import re, attnviz; {} "
            "print(re.search(r'VmHWM:\\s*(\\d+) kB', open('/proc/self/status').read())[1])")
    draw = f"attnviz.figure({q!r}, {k!r}, highlight=[(64, 64)], softmax={FORM!r}).svg();"
    kb = [int(subprocess.run([sys.executable, "-c", code.format(body)], check=True, capture_output=True,
                             text=True).stdout) for body in (draw, "")]
    return kb[0] / 1024, kb[1] / 1024


# 5. Docs builds

def docs_project(root, figures):
    """A Sphinx project (10 pages) and an MkDocs site, `figures` different figures in all."""
    per_page = figures // 10
    (root / "sphinx").mkdir(parents=True)
    (root / "sphinx" / "conf.py").write_text('extensions = ["attnviz.integrations.sphinx"]\n', encoding="utf-8")
    (root / "mkdocs" / "docs").mkdir(parents=True)
    (root / "mkdocs" / "mkdocs.yml").write_text("site_name: Bench\nplugins:\n  - attnviz\n", encoding="utf-8")
    index = "Bench\n=====\n\n.. toctree::\n\n" + "".join(f"   page{p}\n" for p in range(10))
    (root / "sphinx" / "index.rst").write_text(index, encoding="utf-8")
    for p in range(10):
        rst, md = [f"Page {p}\n=======\n"], [f"# Page {p}\n"]
        for f in range(per_page):
            n = 3 + (p + f) % 6
            q, k = vectors(n, 3 + p, 1 + f), vectors(n, 2, 3 + p)
            text = lambda rows: "; ".join(",".join(map(str, row)) for row in rows)  # noqa: E731
            rst.append(f".. attnviz::\n   :q: {text(q)}\n   :k: {text(k)}\n   :softmax: {FORM}\n")
            md.append(f'```attnviz\nq = "{text(q)}"\nk = "{text(k)}"\nsoftmax = "{FORM}"\n```\n')
        (root / "sphinx" / f"page{p}.rst").write_text("\n".join(rst), encoding="utf-8")
        (root / "mkdocs" / "docs" / f"page{p}.md").write_text("\n".join(md), encoding="utf-8")


FIGURE_LINE = re.compile(r"attnviz: (\d+) figures drawn, (\d+) read from the cache \(([\d.]+) s in attnviz\)")


def timed(cmd, cwd=None):
    """(wall seconds, figures drawn, read back, attnviz seconds) of one build."""
    t0 = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - t0
    drawn, reused, seconds = FIGURE_LINE.findall(done.stdout + done.stderr)[-1]
    return wall, int(drawn), int(reused), float(seconds)


def docs_builds(root):
    """Rows: (build, wall s, drawn, read back, attnviz s). Cold: empty output and cache; warm: `-E`, cache kept."""
    docs_project(root, DOC_FIGURES)
    sphinx = [sys.executable, "-m", "sphinx", "-b", "html", str(root / "sphinx")]
    rows = []
    for jobs in ("1", "auto"):
        out = root / f"out-{jobs}"
        rows.append((f"Sphinx -j {jobs}, cold", *timed([*sphinx, str(out), "-j", jobs])))
        rows.append((f"Sphinx -j {jobs}, warm (-E)", *timed([*sphinx, str(out), "-j", jobs, "-E"])))
    mkdocs = [sys.executable, "-m", "mkdocs", "build"]
    rows.append(("MkDocs, cold", *timed(mkdocs, cwd=root / "mkdocs")))
    rows.append(("MkDocs, warm", *timed(mkdocs, cwd=root / "mkdocs")))
    return rows


# 6. Batches

def batch(root):
    """(one process serial s, one process -j 2 s, 100 separate processes s), each writing BATCH_SPECS figures."""
    specs = []
    root.mkdir(parents=True)
    for s in range(BATCH_SPECS):
        n = 3 + s % 8
        path = root / f"spec{s:03d}.toml"
        rows = lambda vs: "; ".join(",".join(map(str, v)) for v in vs)  # noqa: E731
        path.write_text(f'q = "{rows(vectors(n, 3 + s, 1))}"\nk = "{rows(vectors(n, 2, 3 + s))}"\n'
                        f'softmax = "{FORM}"\n', encoding="utf-8")
        specs.append(str(path))
    command = attnviz_script()

    def run(*args):
        t0 = time.perf_counter()
        subprocess.run([*command, "render", *args], check=True, capture_output=True)
        return time.perf_counter() - t0

    serial = run(*specs, "-o", f"{root}/serial/", "--quiet")
    parallel = run(*specs, "-o", f"{root}/parallel/", "--quiet", "-j", "2")
    for spec in specs:
        assert (root / "serial" / f"{Path(spec).stem}.svg").read_bytes() == \
            (root / "parallel" / f"{Path(spec).stem}.svg").read_bytes()
    one_each = sum(run(spec, "-o", f"{root}/each/{Path(spec).stem}.svg") for spec in specs)
    return serial, parallel, one_each


def tiny_batch(root, count=2000):
    """(-j 1 s, -j auto s) for `count` two-token specs: many processes must not be slower than one (issue 24)."""
    root.mkdir(parents=True)
    specs = []
    for s in range(count):
        path = root / f"tiny{s:04d}.toml"
        path.write_text('q = "1,0; 0,1"\nk = "1,0; 0,1"\n', encoding="utf-8")
        specs.append(str(path))
    times = []
    for jobs in ("1", "auto"):
        t0 = time.perf_counter()
        subprocess.run([*attnviz_script(), "render", *specs, "-o", f"{root}/j{jobs}/", "--quiet", "-j", jobs],
                       check=True, capture_output=True)
        times.append(time.perf_counter() - t0)
    return times


# 7. Frames

GQA = {"q_heads": [[[1, 0], [0, 1], [1, 1]], [[1, 1], [0, 1], [1, -1]], [[2, 0], [1, 1], [0, 1]],
                   [[0, 1], [1, 0], [1, 1]]],
       "k_heads": [[[1, 0], [0, 1], [1, 1]], [[1, 1], [1, -1], [0, 2]]], "v_heads": [[[1], [2], [3]], [[3], [1], [0]]]}
SIX = [[1, 0], [0, 1], [1, 1], [2, 0], [0, 2], [1, 2]]  # tests/test_frame_layout.py's six tokens
SENTENCE = "The cat sat on the mat".split()
#: The figures users put on slides: each a function of the frame that returns its SVG text, from the vectors
#: on. A 6-token sentence, its ALiBi logits and the walkthrough steps need several of a frame's choices
#: (fractions on one line, normalizer captions, hatching, elision in 4:3); a step is its walkthrough made,
#: then that step drawn.
FRAME_FIGURES = {
    "seed": lambda frame: attnviz.figure(highlight=[(3, 3)], frame=frame).svg(),
    "64-token map": lambda frame: attnviz.figure(view="mask", n=64, mask="window=16", frame=frame).svg(),
    "64-token figure": lambda frame: attnviz.figure(vectors(64, 3, 1), vectors(64, 2, 3), softmax=FORM,
                                                    frame=frame).svg(),
    "GQA heads (4 q, 2 kv)": lambda frame: attnviz.figure(frame=frame, **GQA).svg(),
    "6-token sentence": lambda frame: attnviz.figure(SIX, SIX, tokens=SENTENCE, frame=frame).svg(),
    "ALiBi, 6 tokens": lambda frame: attnviz.figure(SIX, SIX, tokens=SENTENCE, bias="alibi=head:1/8",
                                                    show="logits", frame=frame).svg(),
    "flash step 3 of 4": lambda frame: attnviz.walkthrough(attnviz.figure(frame=frame), flash=(2, 2))[2].svg(),
    # (six tokens' decode steps do not fit a 4:3 slide: refused in one line, no time to report)
    "decode step 4 of 5": lambda frame: attnviz.walkthrough(attnviz.figure(SIX, SIX, mask="window=3", frame=frame),
                                                            decode=2)[3].svg(),
}


def frames(checks):
    """Each figure drawn (built, laid out, written) for `slide` and for `doc`: median CPU ms side by side."""
    print("\n7. Frames: vectors -> SVG text, median CPU ms, slide frame against doc frame")
    print(f"   {'figure':<22} {'doc ms':>8} {'slide ms':>9} {'slide-4:3':>10} {'slide/doc':>10}")
    for name, draw in FRAME_FIGURES.items():
        drawn = {}
        for frame in ("doc", "slide", "slide-4:3"):
            try:
                draw(frame)
            except attnviz.InputError:  # the frame refuses the figure (naming the way out)
                continue
            drawn[frame] = lambda frame=frame, draw=draw: draw(frame)
        ms = alternating_median_ms(drawn)
        ratio = max(ms.get("slide", 0), ms.get("slide-4:3", 0)) / ms["doc"]
        shown = {frame: f"{ms[frame]:.2f}" if frame in ms else "refused" for frame in ("slide", "slide-4:3")}
        print(f"   {name:<22} {ms['doc']:>8.2f} {shown['slide']:>9} {shown['slide-4:3']:>10} {ratio:>9.2f}x")
        checks.append((f"{name}: a slide figure within {TARGETS['slide_over_doc']:g}x its doc figure",
                       f"{ratio:.2f}x", ratio <= TARGETS["slide_over_doc"]))


# The report

def verdict(ok):
    return "PASS" if ok else "MISS"


def main():
    # PYTHONDONTWRITEBYTECODE may be set, so imports would never cache attnviz's bytecode:
    # compile it once, as an installed package would be.
    compileall.compile_dir(Path(attnviz.__file__).parent, quiet=1)
    print(f"Python {platform.python_version()} ({sys.executable}); attnviz {attnviz.__version__}, "
          f"matplotlib {matplotlib.__version__}, seaborn {seaborn.__version__}, svgwrite {svgwrite.__version__}; "
          f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}")
    checks = []
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)

        print(f"\n1. Whole process, median of {COMMAND_RUNS} alternating runs (seaborn: 5): wall time and CPU time")
        cold = whole_processes(tmp)
        bare_wall, bare_cpu = cold["python -c pass"]
        for name, (wall, cpu) in cold.items():
            print(f"   {name:<18} {wall:8.1f} ms wall {wall / bare_wall:5.1f}x   "
                  f"{cpu:8.1f} ms CPU {cpu / bare_cpu:5.1f}x")
        for kind, index, bare in (("wall", 0, bare_wall), ("CPU", 1, bare_cpu)):
            ratio = cold["attnviz render"][index] / bare
            checks.append((f"attnviz render <= {TARGETS['command']:g}x bare python ({kind})", f"{ratio:.2f}x",
                           ratio <= TARGETS["command"]))

        print(f"\n2. In process, {FORM} captions: vectors -> SVG text, median CPU ms (floor: the same SVG text by "
              "string formatting, from the finished layout)")
        rows = in_process()
        print(f"   {'n':>3} {'attnviz ms':>11} {'floor ms':>9} {'a/floor':>8} {'seaborn ms':>11} {'s/a':>7} "
              f"{'attnviz SVG':>12} {'seaborn SVG':>12}")
        for r in rows:
            print(f"   {r['n']:>3} {r['attnviz']:>11.2f} {r['floor']:>9.2f} {r['attnviz'] / r['floor']:>7.2f}x "
                  f"{r['seaborn']:>11.1f} {r['seaborn'] / r['attnviz']:>6.0f}x {r['svg_bytes']:>12,} "
                  f"{r['seaborn_bytes']:>12,}")
        by_n = {r["n"]: r for r in rows}
        checks.append((f"64 tokens within {TARGETS['floor']:g}x the floor writer",
                       f"{by_n[64]['attnviz'] / by_n[64]['floor']:.2f}x",
                       by_n[64]["attnviz"] / by_n[64]["floor"] <= TARGETS["floor"]))
        for n, target in TARGETS["seaborn"].items():
            ratio = by_n[n]["seaborn"] / by_n[n]["attnviz"]
            checks.append((f">= {target}x faster than seaborn at n={n}", f"{ratio:.0f}x", ratio >= target))

        print("\n3. Memory")
        peak, imported = peak_memory_mb()
        print(f"   peak resident memory, rendering the 64-token figure: {peak:.1f} MB "
              f"(importing attnviz alone: {imported:.1f} MB)")
        checks.append((f"64-token figure under {TARGETS['memory_mb']} MB peak", f"{peak:.1f} MB",
                       peak < TARGETS["memory_mb"]))

        print("\n4. svgwrite against attnviz's writer: build + serialise the same element tree, median CPU ms")
        figures = {n: attnviz.figure(*inputs(n), highlight=[(n, n)], softmax=FORM).svg() for n in (3, 64)}
        writes, refused, messages, import_ms = svgwrite_check.measure(figures)
        print(f"   import svgwrite: {import_ms:.1f} ms (a fresh interpreter, against a bare one)")
        print(f"   {'n':>3} {'attnviz':>9} {'svgwrite':>9} {'validator on':>13} {'(attributes it refuses)':>24}")
        for n, ms in writes.items():
            print(f"   {n:>3} {ms['attnviz']:>9.2f} {ms['svgwrite']:>9.2f} {ms['svgwrite, validator on']:>13.2f} "
                  f"{refused[n]:>24,}")
        for writer, said in messages.items():
            print(f"   Nu HTML checker, {writer}'s SVG inline: {'; '.join(said) if said else 'no message'}")

        print(f"\n5. Docs build of {DOC_FIGURES} figures (10 pages); cold: new output and cache; warm: cache kept")
        print(f"   {'build':<26} {'wall s':>7} {'drawn':>6} {'cached':>7} {'attnviz s':>10}")
        builds = docs_builds(tmp / "docs")
        for name, wall, drawn, reused, seconds in builds:
            print(f"   {name:<26} {wall:>7.2f} {drawn:>6} {reused:>7} {seconds:>10.2f}")
        warm = max(seconds for name, *_, seconds in builds if "warm" in name)
        checks.append((f"warm rebuild of {DOC_FIGURES} figures under {TARGETS['warm_docs_s']:g} s of attnviz time",
                       f"{warm:.2f} s", warm < TARGETS["warm_docs_s"]))
        redrawn = sum(drawn for name, _, drawn, *_ in builds if "warm" in name)
        checks.append(("warm rebuilds draw nothing unchanged", f"{redrawn} drawn", redrawn == 0))

        print(f"\n6. Batch of {BATCH_SPECS} specs ({FORM} captions, 3 to 10 tokens), wall time")
        serial, parallel, one_each = batch(tmp / "batch")
        print(f"   attnviz render SPEC x{BATCH_SPECS} -o DIR/          {serial:6.2f} s")
        print(f"   attnviz render SPEC x{BATCH_SPECS} -o DIR/ -j 2     {parallel:6.2f} s  ({serial / parallel:.2f}x)")
        print(f"   {BATCH_SPECS} separate attnviz render processes {one_each:6.2f} s")
        one, auto = tiny_batch(tmp / "tiny")
        print(f"   2000 tiny specs, -j 1 / -j auto ({os.cpu_count()} CPUs)  {one:6.2f} s / {auto:6.2f} s")
        shutil.rmtree(tmp / "tiny", ignore_errors=True)
        shutil.rmtree(tmp / "batch", ignore_errors=True)

    frames(checks)
    report(checks)


def report(checks):
    print("\nTargets:")
    for what, value, ok in checks:
        print(f"   {verdict(ok)}  {what}: {value}")


if __name__ == "__main__":
    if sys.argv[1:] == ["frames"]:
        frames_checks = []
        frames(frames_checks)
        report(frames_checks)
    else:
        main()
