"""Tree attention (`--mask tree=PARENTS[,prompt=P]`): the prompt causal, each tree token keeping the prompt, its
ancestors and itself; cell for cell equal to FlexAttention's `create_mask` with an ancestor-table mask_mod (as
Medusa's and EAGLE's tree attention builds it), square and as the verification step draws it (the tree's tokens as
queries, the prompt and tree as keys, bottom-right)."""

import re

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.nn.attention.flex_attention import create_mask

import attnviz
from attnviz.engine.masks import resolve
from attnviz.engine.tree_mask import ancestors, depths, parse_tree
from attnviz.layout.frames import get_frame, text_floor_misses
from attnviz.numbers.exact import InputError
from clirun import run_cli


def ancestor_table(parents, prompt):
    """Medusa's tree attention mask, written from the paper: row t of the tree keeps t and every ancestor."""
    n = len(parents)
    tree = torch.eye(n, dtype=torch.bool)
    for t, parent in enumerate(parents):
        if parent >= 0:
            tree[t] |= tree[parent]
    table = torch.tril(torch.ones(prompt + n, prompt + n, dtype=torch.bool))
    table[prompt:, prompt:] = tree
    return table


def flex(parents, prompt, n_q):
    table = ancestor_table(parents, prompt)
    n_k, off = prompt + len(parents), prompt + len(parents) - n_q

    def mask_mod(b, h, q_idx, kv_idx):
        return table[q_idx + off, kv_idx]

    return create_mask(mask_mod, 1, 1, n_q, n_k, device="cpu")[0, 0].tolist()


def ours(parents, prompt, n_q):
    n_k = prompt + len(parents)
    text = f"tree={','.join(map(str, parents))},prompt={prompt}"
    mask = resolve(text, n_q, n_k, "bottom-right")
    return [[bool(mask.keep(i, j)) for j in range(n_k)] for i in range(n_q)]


@st.composite
def trees(draw):
    n = draw(st.integers(1, 12))
    parents = [draw(st.integers(-1, t - 1)) for t in range(n)]
    prompt = draw(st.integers(0, 5))
    n_q = draw(st.sampled_from([prompt + n, n, draw(st.integers(1, prompt + n))]))
    return parents, prompt, n_q


@settings(max_examples=150, deadline=None)
@given(trees())
def test_the_tree_is_create_mask_with_an_ancestor_table(case):
    parents, prompt, n_q = case
    assert ours(parents, prompt, n_q) == flex(parents, prompt, n_q)


MEDUSA = (-1, -1, 0, 0, 1, 1)  # two heads, top-2 each: two first tokens, two continuations of each


def test_a_medusa_tree_verified_after_a_prompt_of_three():
    cells = ours(MEDUSA, 3, 6)  # the tree's six tokens as queries over the prompt and the tree
    assert [''.join('1' if c else '.' for c in row) for row in cells] == [
        "1111.....", "111.1....", "1111.1...", "1111..1..", "111.1..1.", "111.1...1"]
    mask = resolve("tree=-1,-1,0,0,1,1,prompt=3", 9, 9)
    assert mask.name == "tree"
    assert mask.rule == "j<=i, j<=3, or j on i's path in the tree of parents (-1,-1,0,0,1,1) from position 4"
    assert depths(MEDUSA) == (1, 1, 2, 2, 2, 2)
    assert [sorted(a) for a in ancestors(MEDUSA)] == [[0], [1], [0, 2], [0, 3], [1, 4], [1, 5]]


@pytest.mark.parametrize("text, words", [
    ("tree=0", "tree token 0's parent is 0"), ("tree=-1,2,0", "tree token 1's parent is 2"),
    ("tree=-2", "parent is -2"), ("tree=-1,x", "'x' is not a parent index"),
    ("tree=-1,root=2", "unknown option 'root'"), ("tree=-1,prompt=-1", "prompt="),
])
def test_bad_trees_are_refused_in_words(text, words):
    with pytest.raises(InputError, match=words):
        parse_tree(text.removeprefix("tree="), "mask")


def test_a_tree_that_does_not_fill_the_grid_is_refused():
    with pytest.raises(InputError, match="a prompt of 3 and 2 tree tokens are 5 key positions"):
        resolve("tree=-1,0,prompt=3", 6, 6)
    result = run_cli("render", "--view", "mask", "--n", "6", "--mask", "tree=-1,0,prompt=3", "-o", "/dev/null")
    assert result.code == 2 and result.stderr.count("\n") == 1 and "give prompt=P" in result.stderr


def test_the_tree_s_mask_map_and_score_grid_draw():
    fig = attnviz.figure(view="mask", n=9, mask="tree=-1,-1,0,0,1,1,prompt=3")
    assert fig.words.caption.startswith("tree mask keeps j<=i, j<=3, or j on i's path")
    six = [[1, 0]] * 9
    grid = attnviz.figure(six, six, mask="tree=-1,-1,0,0,1,1,prompt=3", frame="slide")
    assert grid.attention.mask.keep(8, 4) and not grid.attention.mask.keep(8, 3)


def test_the_tree_is_drawn_beside_its_map_labelled_as_the_grid():
    fig = attnviz.figure(view="mask", tokens="The cat sat on in the a the my".split(),
                         mask="tree=-1,-1,0,0,1,1,prompt=3")
    svg = fig.svg()
    assert svg.count('class="attnviz-tree-node"') == 7  # the prompt and six tokens
    assert svg.count('class="attnviz-tree-edge"') == 6
    for position, label in ((4, "on"), (5, "in"), (9, "my")):
        assert re.search(rf'attnviz-tree-node" data-k="{position}">.*?>{label}</text>', svg)
    assert '<g class="attnviz-tree-edge" data-k="9" data-parent="1">' in svg  # "my" continues "in"


@pytest.mark.parametrize("frame", ["slide", "slide-4:3", "column", "column-wide"])
def test_every_frame_draws_the_tree_where_it_fits_and_says_so_where_not(frame):
    from test_layout import assert_clean

    layout = attnviz.figure(view="mask", n=9, mask="tree=-1,-1,0,0,1,1,prompt=3", frame=frame).layout()
    assert text_floor_misses(layout, get_frame(frame)) == []
    assert_clean(layout)
    drawn = any(getattr(item, "classes", ("",))[0] == "attnviz-tree" for item in layout.walk())
    assert drawn or "token tree left out (the rule names each token's parent)" in layout.choices
    assert drawn or frame != "slide"  # a 16:9 slide has the room beside its map
