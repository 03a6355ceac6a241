"""FlexAttention's block mask (`--blocks`): each block classed full, partial or empty exactly as torch's
`create_block_mask` classes it (kv_num_blocks, full_kv_num_blocks, kv_indices, sparsity()), for every family, random
combinations and a hypothesis sample of pasted mask functions, block sizes that do not divide the grid included;
then the figures: outlines on mask maps and score grids, classed and ranged, the legend and the words."""

import re
import tomllib
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.nn.attention.flex_attention import create_block_mask

import attnviz
from attnviz.engine.blocks import block_classes, parse_blocks, percent_text
from attnviz.engine.masks import resolve
from attnviz.layout.frames import get_frame, text_floor_misses
from attnviz.numbers.exact import InputError
from clirun import run_cli
from test_mask_parity import FLEX, PARITY, flex_cases


def torch_blocks(mask_mod, n_q, n_k, size):
    """What torch computes: (kv_num_blocks, kv_indices, full_kv_num_blocks, full_kv_indices, sparsity)."""
    bm = create_block_mask(mask_mod, 1, 1, n_q, n_k, device="cpu", BLOCK_SIZE=size)

    def as_tuple(t):
        return tuple(tuple(row) for row in t[0, 0].tolist()) if t.dim() == 4 else tuple(t[0, 0].tolist())

    return (as_tuple(bm.kv_num_blocks), as_tuple(bm.kv_indices), as_tuple(bm.full_kv_num_blocks),
            as_tuple(bm.full_kv_indices), bm.sparsity())


def attnviz_blocks(mask, n_q, n_k, size, align="top-left"):
    bound = resolve(mask, n_q, n_k, align)
    return block_classes(lambda i: bound.runs(i, n_k), (n_q, n_k), size)


def assert_same(ours, theirs):
    kv_num, kv_idx, full_num, full_idx, sparsity = theirs
    assert ours.kv_num_blocks == kv_num
    assert ours.full_kv_num_blocks == full_num
    # torch's indices past the count are its argsort's tail: ours lists the other blocks ascending, as it does
    assert ours.kv_indices == kv_idx
    assert ours.full_kv_indices == full_idx
    assert float(ours.sparsity) == pytest.approx(sparsity, abs=1e-9)


def causal_mod(b, h, q, kv):
    return q >= kv


def test_the_flexattention_blog_s_picture_16_causal_tokens_at_block_4():
    blocks = attnviz_blocks("causal", 16, 16, (4, 4))
    assert (blocks.count("full"), blocks.count("partial"), blocks.count("empty")) == (6, 4, 6)
    assert blocks.sparsity == Fraction(75, 2)
    assert blocks.summary() == "blocks of 4: 6 full, 4 partial, 6 empty, sparsity 37.5%"
    assert_same(blocks, torch_blocks(causal_mod, 16, 16, 4))


@pytest.mark.parametrize("size", [(4, 4), (3, 3), (5, 2), (2, 7), (1, 1), (16, 16), (20, 3)])
def test_sizes_that_do_not_divide_the_grid_pad_as_torch_pads(size):
    assert_same(attnviz_blocks("causal", 13, 13, size), torch_blocks(causal_mod, 13, 13, size))


def test_a_ragged_edge_block_is_never_full_and_sparsity_can_fall_below_zero():
    blocks = attnviz_blocks("none", 5, 5, (4, 4))
    assert blocks.count("full") == 1 and blocks.count("partial") == 3
    assert blocks.sparsity == 100 * (1 - Fraction(4 * 16, 25))
    assert_same(blocks, torch_blocks(lambda b, h, q, kv: q >= 0, 5, 5, 4))


@st.composite
def family_cases(draw, only=None):
    n_k = draw(st.integers(1, 12))
    n_q = n_k if draw(st.booleans()) else draw(st.integers(1, n_k))
    align = draw(st.sampled_from(["top-left", "bottom-right"]))
    off = n_k - n_q if align == "bottom-right" else 0
    text, mod = FLEX[only or draw(st.sampled_from(PARITY))](draw, n_q, n_k, off)
    size = (draw(st.integers(1, 6)), draw(st.integers(1, 6)))
    return n_q, n_k, align, text, mod, size


@pytest.mark.parametrize("family", PARITY)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_every_family_s_blocks_match_create_block_mask(family, data):
    n_q, n_k, align, text, mod, size = data.draw(family_cases(family))
    text = f"none & ({text})" if family == "padding" else text  # padding alone is causal + padding in attnviz
    assert_same(attnviz_blocks(text, n_q, n_k, size, align), torch_blocks(mod, n_q, n_k, size))


@settings(max_examples=80, deadline=None)
@given(flex_cases(), st.integers(1, 5), st.integers(1, 5))
def test_combinations_blocks_match_create_block_mask(case, bq, bk):
    n_q, n_k, align, text, mod = case
    text = f"none & ({text})"
    assert_same(attnviz_blocks(text, n_q, n_k, (bq, bk), align), torch_blocks(mod, n_q, n_k, (bq, bk)))


#: Pasted mask functions, as FlexAttention users write them: a sample built from integer tensor arithmetic.
_TERMS = {
    "causal": lambda a: lambda b, h, q, kv: q >= kv,
    "window": lambda a: lambda b, h, q, kv: (q - kv).abs() < a,
    "stride": lambda a: lambda b, h, q, kv: (q - kv) % (a + 1) == 0,
    "columns": lambda a: lambda b, h, q, kv: kv < a,
    "rows": lambda a: lambda b, h, q, kv: q < a,
    "blocky": lambda a: lambda b, h, q, kv: q // (a + 1) == kv // (a + 1),
}


@st.composite
def pasted_functions(draw):
    names = draw(st.lists(st.sampled_from(sorted(_TERMS)), min_size=1, max_size=3))
    terms = [_TERMS[name](draw(st.integers(1, 5))) for name in names]
    ops = [draw(st.sampled_from(["&", "|"])) for _ in terms[1:]]
    negate = draw(st.booleans())

    def mask_mod(b, h, q, kv):
        out = terms[0](b, h, q, kv)
        for op, term in zip(ops, terms[1:]):
            out = out & term(b, h, q, kv) if op == "&" else out | term(b, h, q, kv)
        return ~out if negate else out

    return mask_mod


@settings(max_examples=80, deadline=None)
@given(pasted_functions(), st.integers(1, 11), st.integers(1, 11), st.integers(1, 5), st.integers(1, 5))
def test_pasted_mask_functions_blocks_match_create_block_mask(mod, n_q, n_k, bq, bk):
    assert_same(attnviz_blocks(mod, n_q, n_k, (bq, bk)), torch_blocks(mod, n_q, n_k, (bq, bk)))


def test_a_1024_token_map_is_counted_from_runs():
    def window_mod(b, h, q, kv):
        return (q >= kv) & (q - kv < 256)

    assert_same(attnviz_blocks("window=256", 1024, 1024, (128, 128)), torch_blocks(window_mod, 1024, 1024, 128))


@pytest.mark.parametrize("value, expected", [(4, (4, 4)), ("4", (4, 4)), ("4,2", (4, 2)), ([3, 5], (3, 5)),
                                             ((2, 2), (2, 2)), (" 8 , 1 ", (8, 1))])
def test_block_sizes_are_read_as_one_size_or_two(value, expected):
    assert parse_blocks(value) == expected


@pytest.mark.parametrize("value", [0, "0", "a", "4,2,1", [1.5, 2], True, "-1", [], None, "4,"])
def test_bad_block_sizes_are_refused_in_words(value):
    with pytest.raises(InputError, match="block"):
        parse_blocks(value)


def test_too_many_blocks_are_refused():
    with pytest.raises(InputError, match="at most 64 a side"):
        attnviz_blocks("causal", 1024, 1024, (1, 1))


@pytest.mark.parametrize("value, text", [(Fraction(75, 2), "37.5%"), (Fraction(0), "0%"), (Fraction(100), "100%"),
                                         (Fraction(1, 8), "0.125%"), (Fraction(200, 3), "≈66.67%"),
                                         (Fraction(4300, 64), "67.1875%"), (Fraction(1, 3 * 10**4), "≈0.00%"),
                                         (Fraction(-92), "−92%")])
def test_sparsity_is_written_exactly_or_marked_approximate(value, text):
    assert percent_text(value) == text


# --- The figures: outlines classed and ranged, the legend, the words ---

def _outlines(svg):
    pattern = r'<rect class="attnviz-block-(full|partial|empty)" data-q="(\d+)-(\d+)" data-k="(\d+)-(\d+)"'
    return re.findall(pattern, svg)


def test_the_blog_s_mask_map_outlines_each_block_with_its_class_and_ranges():
    fig = attnviz.figure(view="mask", n=16, blocks=4)
    svg = fig.svg()
    found = _outlines(svg)
    assert len(found) == 16
    assert sorted(kind for kind, *_ in found).count("full") == 6
    assert [kind for kind, *_ in found].count("partial") == 4
    assert [kind for kind, *_ in found].count("empty") == 6
    for kind, q0, q1, k0, k1 in found:  # causal: above the diagonal empty, on it partial, below it full
        qb, kb = (int(q0) - 1) // 4, (int(k0) - 1) // 4
        assert (int(q1) - int(q0), int(k1) - int(k0)) == (3, 3)
        assert kind == ("empty" if kb > qb else "partial" if kb == qb else "full")
    for words in ("full block: no mask call", "partial block: masked per element", "empty block: skipped",
                  "sparsity 37.5%"):
        assert words in svg
    summary = "blocks of 4: 6 full, 4 partial, 6 empty, sparsity 37.5%"
    assert summary in fig.words.subtitle and summary in fig.description()


def test_ragged_blocks_are_ranged_to_the_grid_not_the_padding():
    found = _outlines(attnviz.figure(view="mask", n=10, blocks="4,3").svg())
    assert {(q0, q1) for _, q0, q1, _, _ in found} == {("1", "4"), ("5", "8"), ("9", "10")}
    assert {(k0, k1) for _, _, _, k0, k1 in found} == {("1", "3"), ("4", "6"), ("7", "9"), ("10", "10")}
    assert "blocks of 4×3" in attnviz.figure(view="mask", n=10, blocks=(4, 3)).words.subtitle


def test_a_score_grid_outlines_its_blocks_and_says_them_in_the_badge():
    six = [[1, 0], [0, 1], [1, 1], [2, 0], [0, 2], [1, 2]]
    fig = attnviz.figure(six, six, mask="window=3", blocks=2)
    svg = fig.svg()
    blocks = attnviz_blocks("window=3", 6, 6, (2, 2))
    assert len(_outlines(svg)) == 9
    assert blocks.summary() in fig.words.badge
    assert f"FlexAttention {blocks.summary()}" in fig.description()
    assert "FlexAttention blocks of 2" in svg


@pytest.mark.parametrize("frame", ["slide", "slide-4:3", "column", "column-wide"])
@pytest.mark.parametrize("kwargs", [{"view": "mask", "n": 16, "blocks": 4},
                                    {"view": "mask", "n": 1024, "mask": "window=256", "blocks": 128},
                                    {"q": [[1, 0], [0, 1], [1, 1], [1, 2]], "k": [[1, 0], [0, 1], [1, 1], [1, 2]],
                                     "blocks": 2}])
def test_every_frame_keeps_its_floors_with_blocks(kwargs, frame):
    from test_layout import assert_clean

    layout = attnviz.figure(frame=frame, **kwargs).layout()
    assert text_floor_misses(layout, get_frame(frame)) == []
    assert_clean(layout)  # nothing overlapping or spilling
    assert any(getattr(item, "role", "").startswith("block-") for item in layout.walk())


def test_the_option_is_one_flag_one_spec_key_one_keyword(tmp_path):
    result = run_cli("render", "--view", "mask", "--n", "16", "--blocks", "4", "-o", str(tmp_path / "a.svg"))
    assert result.code == 0, result.stderr
    spec = tmp_path / "b.toml"
    spec.write_text('view = "mask"\nn = 16\nblocks = 4\n', encoding="utf-8")
    assert tomllib.loads(spec.read_text())["blocks"] == 4
    result = run_cli("render", str(spec), "-o", str(tmp_path / "b.svg"))
    assert result.code == 0, result.stderr
    assert (tmp_path / "a.svg").read_bytes() == (tmp_path / "b.svg").read_bytes()


@pytest.mark.parametrize("args, words", [(["--blocks", "0"], "block sizes run from 1"),
                                         (["--blocks", "x"], "block size"),
                                         (["--blocks", "1"], "at most 64 a side")])
def test_bad_blocks_on_the_command_line_are_one_line_and_exit_2(args, words, tmp_path):
    result = run_cli("render", "--view", "mask", "--n", "100", *args, "-o", str(tmp_path / "x.svg"))
    assert result.code == 2
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("attnviz: error:") and words in result.stderr


def test_blocks_need_one_head_s_whole_grid():
    with pytest.raises(InputError, match="whole grid"):
        attnviz.figure([[1, 0]] * 8, [[1, 0]] * 8, blocks=2, elide=True)
    with pytest.raises(InputError, match="one head"):
        attnviz.figure(q_heads=[[[1, 0]], [[0, 1]]], k_heads=[[[1, 0]]], blocks=2)


def test_a_walkthrough_outlines_the_blocks_on_every_step_and_a_mechanics_walk_refuses_them(tmp_path):
    result = run_cli("walkthrough", "--q", "1,0;0,1;1,1", "--k", "1,0;0,1;1,1", "--blocks", "2", "-o",
                     str(tmp_path / "w"))
    assert result.code == 0, result.stderr
    one = _outlines(attnviz.figure([[1, 0], [0, 1], [1, 1]], [[1, 0], [0, 1], [1, 1]], blocks=2).svg())
    steps = sorted((tmp_path / "w" / "steps").glob("*.svg"))
    assert len(steps) == 10 and all(_outlines(step.read_text()) == one for step in steps)
    flash = run_cli("walkthrough", "--q", "1,0;0,1;1,1", "--k", "1,0;0,1;1,1", "--blocks", "2", "--flash", "2,2")
    assert flash.code == 2 and flash.stderr.count("\n") == 1 and "drop --blocks" in flash.stderr


def test_composed_mask_maps_outline_each_panel_s_blocks(tmp_path):
    spec = tmp_path / "panels.toml"
    spec.write_text('view = "mask"\nn = 16\nblocks = 4\n[[panel]]\nmask = "causal"\n[[panel]]\nmask = "window=4"\n',
                    encoding="utf-8")
    result = run_cli("render", str(spec), "--frame", "slide", "-o", "-")
    assert result.code == 0, result.stderr
    found = _outlines(result.stdout)
    assert len(found) == 32
    window = attnviz_blocks("window=4", 16, 16, (4, 4))
    assert [kind for kind, *_ in found[16:]] == [kind for row in window.kinds for kind in row]
