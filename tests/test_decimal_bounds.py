"""`--weights decimal=N` in bounded time and memory for any logits within the digit limits (issue 39): the gap to a
row's largest logit decides first, and every printed digit stays correct, checked against mpmath at high precision."""

import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from math import isqrt
from pathlib import Path

import mpmath
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from attnviz.engine.attention import softmax_weights
from attnviz.numbers.exact import MAX_DIGITS
from attnviz.numbers.rounding import LN2_ABOVE, LN10_ABOVE, MAX_PLACES, _gaps, rounded_output, rounded_weights
from attnviz.numbers.surds import Surd, surd

F = Fraction
ROOT = Path(__file__).resolve().parent.parent
BIG = 10**MAX_DIGITS - 1  # the largest integer an input may have (40 nines)
DPS = 600  # the reference's decimal digits: logits of ~80 digits, surds cancelling from ~10^80 to ~1, 30 places


# An independent reference: mpmath's plain (not interval) arithmetic at DPS digits, from the exact exponents.

def mp_value(x):
    """An exact Fraction or Surd as an mpf at DPS digits."""
    if isinstance(x, Surd):
        return mp_value(x.a) + mp_value(x.b) * mpmath.sqrt(x.r)
    return mpmath.mpf(x.numerator) / x.denominator


def reference_weights(exponents):
    """w_t = 1 / Σ_u e^(x_u - x_t), each difference taken exactly first."""
    with mpmath.workdps(DPS):
        return [1 / mpmath.fsum(mpmath.exp(mp_value(x - xt)) for x in exponents) for xt in exponents]


def reference_text(value, places):
    """The correctly rounded text of an mpf, refusing (hypothesis `assume`) one too close to a rounding boundary
    for DPS digits to tell."""
    with mpmath.workdps(DPS):
        scaled = value * 10**places
        nearest = int(mpmath.nint(scaled))
        assume(abs(abs(scaled - nearest) - mpmath.mpf(1) / 2) > mpmath.mpf(10) ** (-DPS // 3))
    minus = "-" if nearest < 0 else ""
    whole, frac = divmod(abs(nearest), 10**places)
    return f"{minus}{whole}.{frac:0{places}d}"


@st.composite
def hostile_rows(draw):
    """2 to 5 logits as a figure makes them: rational, or a + b·√r (scale 1/√d, ALiBi 2^(-1/2)) with one r per row,
    with gaps from 0 to ~10^80 (two 40-digit inputs multiplied), and surds whose huge parts nearly cancel."""
    r = draw(st.sampled_from([2, 3, 6]))
    size = st.sampled_from([1, 10, 10**3, 10**16, 10**17, 10**30, BIG, BIG * BIG])
    small = st.fractions(-6, 6, max_denominator=7)
    rational = st.one_of(small, st.builds(lambda s, m, x: s * m + x, st.sampled_from([-1, 1]), size, small))
    huge_surd = st.builds(lambda a, b, m: surd(a, b * m, r), rational, st.sampled_from([1, -1, F(1, 2)]), size)
    cancelling = st.builds(lambda m, x: surd(-_below_root(r, m), m, r) + x, size, small)  # m·√r - a in [0, 10^-6]
    threshold = st.fractions(-75, 75, max_denominator=1000)  # gaps about (N+1)·ln 10 + ln k, where 0 starts
    mixed = st.builds(lambda a, b: surd(a, b, r), small, small)
    exponent = st.one_of(rational, huge_surd, cancelling, threshold, mixed)
    row = draw(st.lists(exponent, min_size=2, max_size=5).filter(lambda xs: len(set(xs)) > 1))
    assume(all(not isinstance(x, Surd) or x.r == r for x in row))
    return row


def _below_root(r, m, scale=10**6):
    """A rational within 1/scale below m·√r."""
    return F(isqrt(r * (m * scale) ** 2), scale)


@settings(max_examples=150, deadline=None)
@given(hostile_rows(), st.sampled_from([1, 2, 3, 6, 15, MAX_PLACES]))
def test_decimal_weights_match_a_high_precision_reference_over_huge_gaps(exponents, places):
    expected = [reference_text(w, places) for w in reference_weights(exponents)]
    assert [text for text, _ in rounded_weights(softmax_weights(exponents), places)] == expected


@settings(max_examples=100, deadline=None)
@given(hostile_rows(), st.lists(st.fractions(-3, 3, max_denominator=4000), min_size=5, max_size=5),
       st.sampled_from([1, 3, 6, MAX_PLACES]))
def test_decimal_outputs_match_a_high_precision_reference_over_huge_gaps(exponents, column, places):
    column = column[:len(exponents)]
    weights = reference_weights(exponents)
    with mpmath.workdps(DPS):
        output = mpmath.fsum(w * mp_value(v) for w, v in zip(weights, column))
    texts, approximate = rounded_output(softmax_weights(exponents), [(v,) for v in column], places)
    assert approximate and texts == [reference_text(output, places)]


def test_the_logarithms_bounds_are_above_them():
    with mpmath.workdps(50):
        assert mpmath.log(2) < mp_value(LN2_ABOVE) < mpmath.log(2) + 1e-6
        assert mpmath.log(10) < mp_value(LN10_ABOVE) < mpmath.log(10) + 1e-6


def test_gaps_are_exact_with_surds():
    assert _gaps([F(1), surd(0, 1, 2), F(-BIG)]) == [surd(0, 1, 2) - 1, F(0), surd(BIG, 1, 2)]


@pytest.mark.parametrize("exponents, places, texts", [
    ([F(0), F(10**16)], 3, ["0.000", "1.000"]),
    ([F(0), F(BIG * BIG)], MAX_PLACES, ["0." + "0" * MAX_PLACES, "1." + "0" * MAX_PLACES]),
    ([F(0), F(0), F(10**30)], 1, ["0.0", "0.0", "1.0"]),
    ([F(10**30), F(10**30), F(0)], 3, ["0.500", "0.500", "0.000"]),  # two largest: each 1/(2 + e^-(10^30))
    ([F(0)] * 8 + [F(-(10**30))], 2, ["0.12"] * 8 + ["0.00"]),  # 1/(8 + tiny) is just under the tie 0.125
    ([F(1), F(1), F(-(10**30)), F(2)], 3, ["0.212", "0.212", "0.000", "0.576"]),  # the seed's row 3, and a far key
    ([surd(0, BIG, 2), F(0), surd(0, -BIG, 2)], 3, ["1.000", "0.000", "0.000"]),  # gaps ~1.4·10^40, surds
])
def test_far_weights_are_decided_from_the_gap(exponents, places, texts):
    assert [text for text, _ in rounded_weights(softmax_weights(exponents), places)] == texts


@pytest.mark.parametrize("places", range(1, MAX_PLACES + 1))
def test_a_row_decided_by_its_gaps_needs_no_interval(places, monkeypatch):
    from attnviz.numbers import rounding

    monkeypatch.setattr(rounding, "mpmath_modules", lambda: pytest.fail("mpmath reached"))
    zero, one = "0." + "0" * places, "1." + "0" * places
    gap = (places + 1) * LN10_ABOVE + 3 * LN2_ABOVE + F(1, 10**6)  # just past the bound for k = 4
    rows = [[F(0), F(BIG * BIG)], [F(-gap), F(0), surd(-BIG, 1, 2), F(-gap)], [surd(0, BIG, 3), surd(0, -BIG, 3)]]
    assert [[text for text, _ in rounded_weights(softmax_weights(row), places)] for row in rows] == [
        [zero, one], [zero, one, zero, zero], [one, zero]]


@pytest.mark.parametrize("exponents, column, text", [
    # 0.0015 is a tie at 3 places; a far key pulls the output up or down past it, however far it is
    ([F(0), F(-(10**30))], [F(15, 10000), F(1)], "0.002"),
    ([F(0), F(-(10**30))], [F(15, 10000), F(-1)], "0.001"),
    ([F(0), F(-(10**30)), F(-(10**30) - 1)], [F(15, 10000), F(1), F(-4)], "0.001"),  # 0.9985 < 4.0015/e
    ([F(0), F(-(10**30)), F(-(10**30) - 1)], [F(15, 10000), F(1), F(-2)], "0.002"),  # 0.9985 > 2.0015/e
    ([F(0), F(-(10**30)), F(-(10**30))], [F(15, 10000), F(1), F(-9967, 10000)], "0.002"),  # (1 - c) + (-0.9967 - c) > 0
    ([F(0), F(-40000)], [F(15, 10000), F(-1)], "0.001"),
    ([F(0), F(-30)], [F(15, 10000), F(-1)], "0.001"),  # within reach of the intervals: decided by them
])
def test_an_output_tied_but_for_far_keys_rounds_the_way_they_pull(exponents, column, text):
    assert rounded_output(softmax_weights(exponents), [(v,) for v in column], 3) == ([text], True)


# The issue's reproducers, through the command, in a process with 1 GB of address space.

#: Runs attnviz's command and, as it exits, writes its peak RSS in kB to the file PEAK_FILE names: the larger
#: of this process image's own high-water mark (VmHWM, which starts afresh at exec, unlike `ru_maxrss`, which
#: keeps the forking test process's) and its reaped workers' (a `-j` batch forks them from this small process).
PEAK_PROBE = """
import atexit, os, resource, runpy, sys

def peak():
    with open("/proc/self/status") as status:
        own = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
    with open(os.environ["PEAK_FILE"], "w") as out:
        out.write(str(max(own, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)))

atexit.register(peak)
sys.argv = ["attnviz", *sys.argv[1:]]
runpy.run_module("attnviz", run_name="__main__")
"""


def attnviz_bounded(*args, memory=1 << 30):
    """Run `attnviz` with RLIMIT_AS = `memory`; (exit code, stdout, stderr, CPU seconds, peak RSS in MB)."""
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PEAK_FILE": os.path.join(tmp, "peak")}
        process = subprocess.Popen([sys.executable, "-c", PEAK_PROBE, *args], cwd=ROOT, stdout=out, stderr=err,
                                   env=env, preexec_fn=limit)
        deadline = time.monotonic() + 30
        while not (done := os.wait4(process.pid, os.WNOHANG))[0]:
            if time.monotonic() > deadline:
                process.kill()
                os.wait4(process.pid, 0)
                raise AssertionError(f"attnviz {' '.join(args)[:80]} ran past 30 s")
            time.sleep(0.02)
        _, status, usage = done
        out.seek(0), err.seek(0)
        with open(env["PEAK_FILE"]) as peak:
            megabytes = int(peak.read()) / 1024
        return (os.waitstatus_to_exitcode(status), out.read().decode(), err.read().decode(),
                usage.ru_utime + usage.ru_stime, megabytes)


def weights_text(svg):
    """The figure's rounded weights and first output, as written."""
    return re.findall(r">(weights [^<]*|O1 [^<]*)<", svg)


@pytest.mark.parametrize("q, k, extra, places, expected", [
    ("1e16", "1;1e16", [], 3, ["weights ≈0.000, ≈1.000"]),
    ("1e17", "1;1e17", [], 3, ["weights ≈0.000, ≈1.000"]),
    ("1e30", "1;1e30", [], 3, ["weights ≈0.000, ≈1.000"]),
    (f"{BIG}", f"1;{BIG}", [], 1, ["weights ≈0.0, ≈1.0"]),
    (f"-{BIG}", f"{BIG};-{BIG}", [], MAX_PLACES, [f"weights ≈0.{'0' * MAX_PLACES}, ≈1.{'0' * MAX_PLACES}"]),
    (f"{BIG},{BIG}", f"1/{BIG},1;{BIG},{BIG};-{BIG},{BIG}", ["--scale", "sqrt", "--bias", "alibi=2^(-1/2)",
                                                             "--v", "0.0015;1;-1"], 3,
     ["weights ≈0.000, ≈1.000, ≈0.000", "O1 = w11·V1 + w12·V2 + w13·V3 ≈ (1.000)"]),
    (f"{BIG},-{BIG}", f"1,1;{BIG},-{BIG};{BIG},{BIG}", ["--scale", "sqrt", "--v", "0.0015;-1;1"], 3,
     ["weights ≈0.000, ≈1.000, ≈0.000", "O1 = w11·V1 + w12·V2 + w13·V3 ≈ (-1.000)"]),
    ("1e39", "1;1e39;1e39", ["--v", "0.0015;1;-1"], 3,  # two tied largest: weights 1/2, output 0
     ["weights ≈0.000, ≈0.500, ≈0.500", "O1 = w11·V1 + w12·V2 + w13·V3 ≈ (0.000)"]),
    ("1e39", "1e39;0;-1e39", ["--v", "0.0015;1;-1"], 3,  # the largest's value is a tie; the far keys pull it
     ["weights ≈1.000, ≈0.000, ≈0.000", "O1 = w11·V1 + w12·V2 + w13·V3 ≈ (0.002)"]),
])
def test_the_issues_reproducers_finish_fast_in_little_memory(q, k, extra, places, expected):
    code, out, err, seconds, megabytes = attnviz_bounded("render", "--q", q, "--k", k, "--mask", "none",
                                                         "--weights", f"decimal={places}", *extra, "-o", "-")
    assert code == 0 and err == "", err
    assert weights_text(out) == expected
    assert seconds < 2 and megabytes < 300, (seconds, megabytes)


def test_a_batch_of_the_reproducers_finishes_fast_in_little_memory(tmp_path):
    specs, cases = [], [(16, 3), (17, 3), (30, MAX_PLACES), (39, 1)]
    for exponent, places in cases:
        spec = tmp_path / f"e{exponent}.toml"
        spec.write_text(f'q = "1e{exponent}"\nk = "1;1e{exponent}"\nmask = "none"\nweights = "decimal={places}"\n'
                        f'v = "0.0015;-1"\n', encoding="utf-8")
        specs.append(str(spec))
    code, _, err, seconds, megabytes = attnviz_bounded("render", "-j", "2", *specs, "-o", f"{tmp_path}/out/")
    assert code == 0 and "4 of 4 figures written" in err, err
    assert seconds < 6 and megabytes < 300, (seconds, megabytes)
    for exponent, places in cases:
        zero, one = "0." + "0" * places, "1." + "0" * places
        assert weights_text((tmp_path / "out" / f"e{exponent}.svg").read_text(encoding="utf-8")) == [
            f"weights ≈{zero}, ≈{one}", f"O1 = w11·V1 + w12·V2 ≈ (-{one})"]
