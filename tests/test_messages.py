"""Messages fit where they are read: the API names keyword arguments, plurals agree, near misses are suggested."""

import re
import sys

import pytest

import attnviz
from attnviz.cli.batch import Outcome
from attnviz.errors import InputError
from attnviz.integrations.docs_cache import build_summary
from clirun import run_cli

V = [[1, 0], [0, 1]]
BAD_CALLS = [
    lambda: attnviz.figure().save("fig.jpg"),
    lambda: attnviz.figure().save("fig.svg", format="gif"),
    lambda: attnviz.figure().png(dpi=5),
    lambda: attnviz.figure().png(scale=100),
    lambda: attnviz.figure(V, V, mask="sliding=3"),
    lambda: attnviz.figure(V, V, theme="sepia"),  # type: ignore[arg-type]
    lambda: attnviz.figure(V, V, frame="poster"),  # type: ignore[arg-type]
    lambda: attnviz.figure(V, V, highlight=[(5, 5)]),
    lambda: attnviz.figure(V, [[1]]),
    lambda: attnviz.figure(V, V, softmax="long"),  # type: ignore[arg-type]
    lambda: attnviz.figure(V, V, weights="decimal=99"),
    lambda: attnviz.figure(V, V, tokens=["a"]),
    lambda: attnviz.figure(V, V, view="mask", scale="sqrt"),
    lambda: attnviz.figure(V, V, n=4),
]


@pytest.mark.parametrize("call", BAD_CALLS)
def test_api_errors_name_keyword_arguments_not_flags(call):
    with pytest.raises(InputError) as caught:
        call()
    assert not re.search(r"(^|[\s'(])--?[a-z]", str(caught.value)), str(caught.value)


def test_png_without_cairosvg_names_the_extra_and_blames_no_flag(monkeypatch, tmp_path):
    """A missing library is not a wrong argument: `-o fig.png` never typed -f (issue 38)."""
    monkeypatch.setitem(sys.modules, "cairosvg", None)
    with pytest.raises(InputError, match=r"^PNG and PDF need CairoSVG: pip install 'attnviz\[png\]'$"):
        attnviz.figure().png()
    result = run_cli("render", "-o", str(tmp_path / "fig.png"))
    assert result.stderr == "attnviz: error: PNG and PDF need CairoSVG: pip install 'attnviz[png]'\n"
    assert result.code == 2


@pytest.mark.parametrize(("mask", "nearest"), [("sliding=3", "window="), ("windw=3", "window="),
                                                ("bidirectional", "none"), ("causl", "causal"),
                                                ("prefix_lm=2", "prefix="), ("chunked=4", "chunk=")])
def test_a_misspelled_mask_suggests_the_nearest(mask, nearest):
    with pytest.raises(InputError, match=f"did you mean '{nearest}'"):
        attnviz.figure(V, V, mask=mask)


def test_plurals_agree():
    assert build_summary(1, 1, 0.0).startswith("attnviz: 1 figure drawn, 1 read")
    assert build_summary(2, 0, 0.0).startswith("attnviz: 2 figures drawn")
    one = Outcome([object()], {}, 0.5, 1)
    assert one.summary("out/") == "attnviz: 1 of 1 figure written to out/ in 0.50 s"
