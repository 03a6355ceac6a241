"""Issue 36: walkthroughs and decks write numbers in the form the inputs came in (1.71, -10.8027, never 171/100) in
their sentences and TeX alike, and say what exact is exact for when the inputs were rounded."""

import re
import zipfile
from decimal import Decimal
from fractions import Fraction

import pytest

import attnviz
from clirun import run_cli

Q = [[1.713, 0.5], [-0.3, 2.25], [1.1, 0.7]]
K = [[0.25, 1.5], [1.234, -0.5], [2, 1.05]]
V = [[1, 0.5], [0.25, 1], [0.5, 0.5]]
CLAIM = "exact for inputs rounded to 2 decimals"
FLAGS = ("--q", "1.713,0.5; -0.3,2.25; 1.1,0.7", "--k", "0.25,1.5; 1.234,-0.5; 2,1.05", "--v",
         "1,0.5; 0.25,1; 0.5,0.5", "--decimals", "2")


def _rounded(vectors):
    """Each entry rounded half-even to 2 places, as Decimal (independent of attnviz's reading)."""
    return [[Decimal(repr(x)).quantize(Decimal("0.01")) for x in row] for row in vectors]


def _scores():
    """Every score of the rounded inputs, as the decimal text Python's Decimal writes (exact: products of decimals)."""
    q, k = _rounded(Q), _rounded(K)
    return {(i + 1, j + 1): sum(a * b for a, b in zip(q[i], k[j])).normalize() for i in range(3) for j in range(3)}


def _text(walk):
    return "\n".join(p for section in walk.document.sections for p in section.paragraphs)


def _tex(walk):
    return "\n".join(section.formula or "" for section in walk.document.sections)


def _fraction_with_power_of_ten(text):
    """Fractions such as 171/100 or \\frac{471}{400}: values that end, written as fractions."""
    plain = [Fraction(int(a), int(b)) for a, b in re.findall(r"(?<![\w.])(\d+)/(\d+)", text)]
    tex = [Fraction(int(a), int(b)) for a, b in re.findall(r"\\frac\{(\d+)\}\{(\d+)\}", text)]
    return [x for x in plain + tex if x.denominator > 1 and not (x.denominator & (x.denominator - 1) == 0
                                                                  and x.denominator <= 2)]


def test_scores_walkthrough_writes_decimals_and_the_rounding_claim():
    walk = attnviz.walkthrough(attnviz.figure(Q, K, v=V, decimals=2))
    text, tex = _text(walk), _tex(walk)
    scores = _scores()
    assert "S_{1,1} = Q1·K1 = 1.71·0.25 + 0.5·1.5 = 1.1775." in text
    assert f"S_{{2,2}} = Q2·K2 = (-0.3)·1.23 + 2.25·(-0.5) = {scores[2, 2]}." in text
    for (i, j), value in scores.items():
        if j <= i:  # every kept score as its decimal, in the sentence and the formula
            assert f"Q{i}·K{j} = " in text and f"= {value}." in text
            assert re.search(re.escape(f"S_{{{i},{j}}} = ") + r".* = \{?" + re.escape(str(value)) + r"\}?$", tex, re.M)
    assert r"1.71 \cdot 0.25 + 0.5 \cdot 1.5 = 1.1775" in tex
    assert "e^(3.3)/(e^(3.3)+e^(-1.494))" in text and r"\frac{e^{3.3}}{e^{3.3}+e^{-1.494}}" in tex
    assert not _fraction_with_power_of_ten(text + tex)
    assert f"Every number here is {CLAIM}" in walk.document.intro[-1]
    assert f"so its output is {CLAIM}: O_1 = w_{{11}}·V_1 = 1·(1,0.5) = (1,0.5)." in text


def test_integers_and_fractions_keep_their_form():
    walk = attnviz.walkthrough(attnviz.figure([["1/2", 1], [3, "-1/4"]], [[1, "3/4"], ["1/5", 2]]))
    text, tex = _text(walk), _tex(walk)
    assert "S_{1,1} = Q1·K1 = (1/2)·1 + 1·(3/4) = 5/4." in text and r"\frac{1}{2} \cdot 1" in tex
    assert "rounded" not in " ".join(walk.document.intro)


def test_a_kind_that_does_not_end_is_written_in_fractions_and_the_others_still_as_decimals():
    # the logits (score / 3) do not end: written as fractions throughout; the vectors and scores as decimals
    walk = attnviz.walkthrough(attnviz.figure([[0.5, 1.5]], [[0.25, 1]], scale="1/3", show="logits", decimals=2))
    text = _text(walk)
    assert "S_{1,1} = Q1·K1 = 0.5·0.25 + 1.5·1 = 1.625" in text
    assert "[13/24]" in text  # the logit 1.625/3, in the softmax step
    assert "0.541" not in text


def test_decode_walkthrough_writes_decimals():
    walk = attnviz.walkthrough(attnviz.figure(Q, K, v=V, decimals=2, view="scores"), decode=1)
    text, tex = _text(walk), _tex(walk)
    scores = _scores()
    assert f"S_{{2,1}} = Q2·K1 = {scores[2, 1]}, S_{{2,2}} = Q2·K2 = {scores[2, 2]}" in text
    assert r"\begin{pmatrix} 1.1775 \end{pmatrix}" in tex
    assert not _fraction_with_power_of_ten(text + tex)
    assert CLAIM in walk.document.intro[-1]


@pytest.mark.parametrize("walk_options", [{"flash": (2, 2)}, {"split_kv": 2}])
def test_flash_walkthroughs_write_decimals(walk_options):
    walk = attnviz.walkthrough(attnviz.figure(Q, K, v=V, decimals=2, view="scores"), **walk_options)
    text, tex = _text(walk), _tex(walk)
    assert "3.3" in text and "-1.494" in text and "e^(-4.794)" in text  # -1.494 - 3.3, exact
    assert "e^{-4.794}" in tex.replace("{{-4.794}}", "{-4.794}")
    assert not _fraction_with_power_of_ten(text + tex)
    assert CLAIM in walk.document.intro[-1]
    # the state strips drawn beside the grid write the running maxima as the sentences do
    svgs = " ".join(step.svg() for step in walk)
    strip_text = re.sub(r'data-[a-z]+="[^"]*"', "", svgs)  # data-value stays a Python expression (33/10)
    assert not re.search(r">[^<]*\b(33/10|747/500|471/400)\b", strip_text)


def test_heads_walkthrough_writes_decimals():
    fig = attnviz.figure(q_heads=[[[1.5, 0.25], [0.5, 1]], [[1, 0], [0.75, 1]]], k_heads=[[[1, 0.5], [0.25, 1]]],
                         decimals=2)
    text = _text(attnviz.walkthrough(fig))
    assert "[1.625]; [1,1.125]" in text and "13/8" not in text


def _deck_text(path):
    if path.suffix == ".pptx":
        with zipfile.ZipFile(path) as deck:
            return " ".join(re.sub(r"<[^>]+>", " ", deck.read(name).decode()) for name in deck.namelist()
                            if name.startswith("ppt/slides/slide") or name.startswith("ppt/notesSlides/"))
    if path.is_dir():
        html = (path / "index.html").read_text()
        return re.sub(r"<[^>]+>", " ", re.sub(r"<svg.*?</svg>", " ", html, flags=re.S))
    return path.read_text()


@pytest.mark.parametrize("fmt, name, walk", [("beamer", "deck.tex", ("--walkthrough",)),
                                             ("pptx", "deck.pptx", ("--walkthrough",)),
                                             ("revealjs", "deck", ("--walkthrough",)),
                                             ("beamer", "deck.tex", ("--flash", "2,2")),
                                             ("pptx", "deck.pptx", ("--decode", "1"))])
def test_decks_write_decimals_and_the_rounding_claim(tmp_path, fmt, name, walk):
    out = tmp_path / name
    result = run_cli("slides", *walk, *FLAGS, "-f", fmt, "-o", str(out))
    assert result.code == 0, result.stderr
    text = _deck_text(out)
    assert "1.1775" in text and "-1.494" in text.replace("−", "-").replace("$-$", "-")
    assert not re.search(r"\b(471/400|747/500|33/10|171/100)\b", text)
    assert not re.search(r"\\frac\{(471|747|33|171)\}", text)
    assert "exact for inputs rounded to" in re.sub(r"\$\\?\w*\s*(\d)\$", r"\1", text)


def test_a_decode_steps_softmax_writes_its_logits_as_the_logits_are_written():
    # scores 1.5 and 1 end; scaled by 1/3 the logits 0.5 and 1/3 do not all end: every logit in fractions
    fig = attnviz.figure([[1, 0], [1.5, 1]], [[1, 0], [0, 1]], scale="1/3", view="scores")
    text = _text(attnviz.walkthrough(fig, decode=1))
    assert "unmasked logits are [1/2,1/3]" in text and "0.5," not in text


def test_float32_inputs_say_they_were_read_as_their_shortest_decimals():
    import numpy
    q = numpy.array([[0.1, 1.5], [0.25, -0.5]], dtype=numpy.float32)
    walk = attnviz.walkthrough(attnviz.figure(q, q))
    assert walk.document.intro[-1] == ("Every number here is exact for float32 inputs read as their shortest decimals: "
                                       "computed exactly from those decimals.")
    assert "S_{1,1} = Q1·K1 = 0.1·0.1 + 1.5·1.5 = 2.26." in _text(walk)


def test_flash_steps_repr_writes_decimals_for_decimal_inputs():
    steps = attnviz.flash([[0.5, 1], [1.5, 0.25]], [[0.25, 1], [1, 0.5]], block=(1, 1))
    assert repr(steps[2]) == "<FlashStep 3: queries 2..2 × keys 2..2; m2 = 1.625, ℓ2 = e^(-1)+e^0, rescale e^(-1)>"
    # a maximum that does not end (a scale of 1/3): every number of the steps in fractions, one form
    thirds = attnviz.flash([[0.5, 1], [1.5, 0.25]], [[0.25, 1], [1, 0.5]], block=(1, 1), scale="1/3")
    assert "m1 = 3/8" in repr(thirds[0]) and "m2 = 13/24" in repr(thirds[2])
    whole = attnviz.flash([[1, 0], [0, 1]], [[1, 0], [0, 1]], block=(1, 1), scale="1/2")
    assert "m1 = 1/2" in repr(whole[0])  # integers in, fractions out: as typed
