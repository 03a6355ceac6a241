"""Issue 22's masks: key columns, random keys (a fixed generator) and colouring a union by part,
checked against brute force and read back from the SVG."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attnviz
from attnviz.engine.mask_families import random_keys
from attnviz.engine.masks import resolve
from attnviz.numbers.exact import InputError
from clirun import run_cli


def test_random_keys_are_pinned_cells_the_same_on_every_platform():
    # SplitMix64 in Python integers: these exact cells are the documented generator's, everywhere.
    assert random_keys(2, 8, 0, 0) == (2, 4)
    assert random_keys(2, 8, 0, 1) == (2, 7)
    assert random_keys(3, 16, 7, 5) == random_keys(3, 16, 7, 5)
    assert random_keys(9, 3, 5, 0) == (0, 1, 2)
    assert [random_keys(2, 16, 7, q) for q in range(4)] == [(4, 15), (12, 13), (5, 10), (7, 10)]


def test_the_generator_is_splitmix64():
    # The reference implementation's first output from state 0 (Vigna's splitmix64.c).
    from attnviz.engine.mask_families import _splitmix64
    assert _splitmix64(0)[1] == 0xE220A8397B1DCDAF


def _floyd_with_numpy(count, n_k, seed, position):
    """The documented draw again, with numpy's wrapping uint64 arithmetic instead of Python integers."""
    import numpy as np

    state = np.uint64((seed * 2**32 + position) % 2**64)
    chosen = set()
    with np.errstate(over="ignore"):
        for top in range(n_k - count, n_k):
            bound = top + 1
            limit = 2**64 - 2**64 % bound
            while True:
                state = state + np.uint64(0x9E3779B97F4A7C15)
                z = state
                z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
                z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
                draw = int(z ^ (z >> np.uint64(31)))
                if draw < limit:
                    break
            pick = draw % bound
            chosen.add(top if pick in chosen else pick)
    return tuple(sorted(chosen))


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 10), st.integers(11, 64), st.integers(0, 2**20), st.integers(0, 100))
def test_random_keys_equal_an_independent_uint64_implementation(count, n_k, seed, position):
    assert random_keys(count, n_k, seed, position) == _floyd_with_numpy(count, n_k, seed, position)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 40), st.integers(1, 80), st.integers(0, 10**6), st.integers(0, 200))
def test_random_keys_draws_distinct_keys_in_range(count, n_k, seed, position):
    keys = random_keys(count, n_k, seed, position)
    assert len(keys) == min(count, n_k) and len(set(keys)) == len(keys)
    assert list(keys) == sorted(keys) and all(0 <= j < n_k for j in keys)


def _brute(keep, n_q, n_k):
    return [[bool(keep(i, j)) for j in range(n_k)] for i in range(n_q)]


def _cells(mask, n_q, n_k):
    return [[any(a <= j < b for a, b in mask.runs(i)) for j in range(n_k)] for i in range(n_q)]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 12), st.integers(0, 8), st.sampled_from([0, 1]), st.sampled_from(["top-left", "bottom-right"]),
       st.integers(1, 4), st.integers(0, 99), st.data())
def test_keys_and_random_families_equal_brute_force(n_q, extra, base, align, count, seed, data):
    n_k = n_q + extra
    chosen = sorted(set(data.draw(st.lists(st.integers(0, n_k - 1), min_size=1, max_size=4))))
    keys = ",".join(str(j + base) for j in chosen)
    offset = n_k - n_q if align == "bottom-right" else 0
    columns = resolve(f"keys={keys}", n_q, n_k, align, base)
    assert _cells(columns, n_q, n_k) == _brute(lambda i, j: j in chosen, n_q, n_k)
    random = resolve(f"random={count},seed={seed}", n_q, n_k, align, base)
    expected = _brute(lambda i, j: j in random_keys(count, n_k, seed, i + offset), n_q, n_k)
    assert _cells(random, n_q, n_k) == expected
    assert [[bool(random.keep(i, j)) for j in range(n_k)] for i in range(n_q)] == expected


def test_the_rules_say_what_is_kept():
    assert resolve("keys=1,3", 4, 4).rule_text(1) == "j in {1,3}"
    assert resolve("keys=1,3", 4, 4, index_base=0).rule_text(0) == "j in {1,3}"
    assert resolve("random=2,seed=5", 4, 4).rule_text(1) == "j in 2 random keys of row i (seed 5)"
    with pytest.raises(InputError, match="outside the grid"):
        resolve("keys=9", 4, 4)


PARTS = ["window=3", "global=1", "random=2,seed=7", "keys=5"]


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 14), st.lists(st.sampled_from(PARTS), min_size=2, max_size=4, unique=True))
def test_part_runs_cover_the_union_and_name_the_first_part_that_keeps(n, parts):
    parts = [p for p in parts if not (p == "keys=5" and n < 5)] or ["window=3", "global=1"]
    if len(parts) < 2:
        parts.append("causal")
    union = resolve(" | ".join(parts), n, n)
    alone = [resolve(p, n, n) for p in parts]
    for i in range(n):
        pieces = union.part_runs(i)
        assert [(a, b) for a, b, _ in pieces] == sorted((a, b) for a, b, _ in pieces)
        for j in range(n):
            owners = [k for k, m in enumerate(alone) if m.keep(i, j)]
            drawn = [part for a, b, part in pieces if a <= j < b]
            assert drawn == owners[:1]


def _svg_parts(svg):
    """(row, first key, last key, part) of every kept rect in an SVG mask map."""
    out = []
    for row in re.finditer(r'<g class="attnviz-row" data-q="(\d+)">(.*?)</g>', svg, re.S):
        for a, b, part in re.findall(r'data-k="(\d+)-(\d+)" data-part="([^"]+)"', row.group(2)):
            out.append((int(row.group(1)), int(a), int(b), part))
    return out


def test_color_by_part_marks_every_run_with_its_part_in_the_svg():
    mask = "window=3 | global=1 | random=2,seed=7"
    fig = attnviz.figure(view="mask", n=12, mask=mask, color_by="part")
    svg = fig.svg()
    names = {"sliding-window": 0, "global": 1, "random": 2}
    alone = [resolve(p, 12, 12) for p in mask.split(" | ")]
    drawn = {}
    for i, a, b, part in _svg_parts(svg):
        for j in range(a, b + 1):
            drawn[(i - 1, j - 1)] = names[part]
    expected = {(i, j): next(k for k, m in enumerate(alone) if m.keep(i, j))
                for i in range(12) for j in range(12) if any(m.keep(i, j) for m in alone)}
    assert drawn == expected
    legend = re.findall(r'data-legend="([^"]+)"', svg)
    assert legend == ["part-1", "part-2", "part-3", "masked"]
    for name in names:
        assert f">{name}</text>" in svg


def test_color_by_part_is_a_flag_and_a_spec_key_and_refuses_what_it_cannot_colour(tmp_path):
    out = tmp_path / "m.svg"
    result = run_cli("render", "--view", "mask", "--n", "8", "--mask", "window=2 | keys=1", "--color-by", "part",
                     "-o", str(out))
    assert result.code == 0, result.stderr
    assert 'data-part="key columns"' in out.read_text()
    spec = tmp_path / "s.toml"
    spec.write_text('view = "mask"\nn = 6\nmask = "causal | keys=6"\ncolor_by = "part"\n')
    assert run_cli("render", str(spec), "-o", str(out)).code == 0
    assert 'data-part="causal"' in out.read_text()
    single = run_cli("render", "--view", "mask", "--n", "8", "--color-by", "part")
    assert single.code == 2 and single.stderr.count("\n") == 1 and "union" in single.stderr
    with pytest.raises(InputError, match="only the mask view"):
        attnviz.figure(color_by="part")
    many = " | ".join(f"keys={j}" for j in range(1, 8))
    with pytest.raises(InputError, match="up to 6 parts"):
        attnviz.figure(view="mask", n=8, mask=many, color_by="part")


def test_part_colours_are_distinct_in_every_theme():
    from attnviz.render.themes import THEMES
    for theme in THEMES.values():
        for palette in theme.palettes():
            colours = [palette[f"part-{n}"] for n in range(1, 7)]
            assert len(set(colours)) == 6, theme.name


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 8), st.sampled_from(["causal", "window=2", "keys=1 | window=3", "random=2,seed=4",
                                            "chunk=3", "global=2"]))
def test_a_mask_map_exposes_its_kept_cells_like_a_full_figure(n, mask):
    if mask == "global=2" and n < 2:
        mask = "causal"
    map_fig = attnviz.figure(view="mask", n=n, mask=mask)
    cells = map_fig.attention
    full = attnviz.figure([[1]] * n, [[1]] * n, mask=mask)  # the full figure's engine, on the same mask
    assert cells.shape == (n, n)
    assert cells.kept == tuple(full.attention.kept)
    brute = resolve(mask, n, n)
    assert cells.kept == tuple(tuple(bool(brute.keep(i, j)) for j in range(n)) for i in range(n))
    assert all(cells.runs(i) == brute.runs(i) for i in range(n))


def test_any_mask_takes_a_name_and_rule_from_a_spec_table_flags_or_the_api(tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text('view = "mask"\nn = 3\n[mask]\nmatrix = [[1, 0, 0], [1, 1, 0], [0, 1, 1]]\n'
                    'name = "banded"\nrule = "j in {i-1, i}"\n')
    out = tmp_path / "m.svg"
    assert run_cli("render", str(spec), "-o", str(out)).code == 0
    svg = out.read_text()
    assert "banded mask keeps j in {i-1, i}" in svg and "marked 1" not in svg
    assert re.findall(r'data-q="(\d)"><rect[^>]*data-k="([\d-]+)"', svg) == [("1", "1-1"), ("2", "1-2"), ("3", "2-3")]
    result = run_cli("render", "--view", "mask", "--n", "4", "--mask", "window=2 | keys=1", "--mask-name", "local",
                     "--mask-rule", "j=1, or i-2<j<=i", "-o", str(out))
    assert result.code == 0 and "local mask keeps j=1, or i-2&lt;j&lt;=i" in out.read_text()
    fig = attnviz.figure(view="mask", n=4, mask=attnviz.Mask("window=2", name="local"))
    assert fig.words.caption == "local mask keeps i-2<j<=i"  # the family's own rule when none is given
    bad = run_cli("render", "--view", "mask", "--n", "3", "--mask-name", "a\x07b")
    assert bad.code == 2 and bad.stderr.startswith("attnviz: error:") and bad.stderr.count("\n") == 1


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 6), st.integers(0, 5), st.sampled_from([0, 1]))
def test_a_pasted_function_sees_absolute_query_positions_under_bottom_right(n_q, extra, base):
    n_k = n_q + extra
    pasted = resolve(lambda q, k: k <= q, n_q, n_k, "bottom-right", base)
    family = resolve("causal", n_q, n_k, "bottom-right", base)
    assert [pasted.runs(i) for i in range(n_q)] == [family.runs(i) for i in range(n_q)]
    if extra:
        assert pasted.rule_text(base).endswith("aligned bottom-right")
        assert f"keep({'i+' + str(extra - base) if extra - base else 'i'},j" in pasted.rule_text(base)
    top_left = resolve(lambda q, k: k <= q, n_q, n_k, "top-left", base)
    assert [top_left.runs(i) for i in range(n_q)] == [resolve("causal", n_q, n_k).runs(i) for i in range(n_q)]


def test_a_rule_caption_breaks_between_terms_never_inside_a_group():
    fig = attnviz.figure(view="mask", n=16, mask="window=3 | global=1 | random=2,seed=7")
    caption = next(t for t in fig.layout().walk() if getattr(t, "role", "") == "caption")
    assert len(caption.lines) > 1
    for line in caption.lines:
        assert line.count("(") == line.count(")") and line.count("{") == line.count("}"), caption.lines


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=2, max_size=3), st.integers(1, 4))
def test_per_document_prefix_lengths_equal_brute_force(lengths, per_doc):
    ids = [d for d, _ in enumerate(lengths, 1) for _ in range(per_doc + 2)]
    n = len(ids)
    mask = resolve(f"prefix={','.join(map(str, lengths))},documents={','.join(map(str, ids))}", n, n)
    first = {d: ids.index(d) for d in set(ids)}

    def keep(i, j):
        in_prefix = {p for p in range(n) if p - first[ids[p]] < lengths[ids[p] - 1]}
        return ids[i] == ids[j] and (j <= i or (i in in_prefix and j in in_prefix))

    assert _cells(mask, n, n) == _brute(keep, n, n)
    with pytest.raises(InputError, match="one per document"):
        resolve(f"prefix=1,2,3,4,documents={','.join(map(str, ids))}", n, n)
    with pytest.raises(InputError, match="documents=ID"):
        resolve("prefix=1,2", n, n)


@pytest.mark.parametrize("slope", ["1/2", "1/8", "alibi=head:2/8"])
def test_alibi_s_bias_panel_shows_the_distances_and_states_the_slope(slope):
    bias = slope if slope.startswith("alibi") else f"alibi={slope}"
    q = [[1, 0], [0, 1], [1, 1], [2, 1]]
    fig = attnviz.figure(q, q, bias=bias)
    panel = fig.bias_panel()
    (term,) = fig.attention.biases
    m = term.slope
    assert m is not None
    for row in panel.words.cells:
        for cell in row:
            if not cell.masked:
                distance = cell.k - cell.q
                assert cell.text == str(distance)
                assert term.value(cell.q - 1, cell.k - 1) == m * distance  # what the caption claims
    from attnviz.words.notation import format_exact
    assert f"m = {format_exact(m)}" in panel.words.subtitle and "m·(j-i)" in panel.words.title


def test_masks_combined_with_torch_are_captioned_from_their_parts_and_keep_the_same_cells():
    import torch
    from torch.nn.attention.flex_attention import and_masks, create_mask, or_masks

    def causal(b, h, q_idx, kv_idx):
        return q_idx >= kv_idx

    def local(b, h, q_idx, kv_idx):
        return q_idx - kv_idx < 3

    def sink(b, h, q_idx, kv_idx):
        return kv_idx < 1

    combined = or_masks(and_masks(causal, local), sink)
    fig = attnviz.figure(view="mask", n=9, mask=combined, color_by="part")
    assert fig.words.caption.startswith("(causal + local) or sink mask keeps")
    assert "and_mask" not in fig.words.caption and "or_mask" not in fig.words.caption
    assert fig.words.parts == ("causal + local", "sink")
    expected = create_mask(combined, 1, 1, 9, 9, device="cpu")[0, 0]
    assert torch.equal(torch.tensor(fig.attention.kept), expected)
    # a combination the user names stays one function, named as given
    named = attnviz.figure(view="mask", n=4, mask=attnviz.Mask(combined, name="streaming"))
    assert named.words.caption.startswith("streaming mask keeps")


def _offset(text):
    """The c of "i", "i+c", "i-c"."""
    return 0 if text == "i" else int(text[1:])


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), st.integers(0, 6), st.sampled_from([0, 1]), st.sampled_from(["top-left", "bottom-right"]),
       st.integers(0, 30), st.integers(1, 4))
def test_rules_follow_query_labels_that_number_the_queries(n_q, extra, base, align, first, width):
    """With --q-tokens "9 10 11 12" the rule's i is the label: read the rule back and apply it to the labels."""
    n_k = n_q + extra
    labels = [str(first + r) for r in range(n_q)]
    fig = attnviz.figure(view="mask", shape=f"{n_q}x{n_k}", align=align, index_base=base, q_tokens=labels,
                         mask=f"window={width}")
    rule = fig.words.caption.split(" keeps ", 1)[1]
    low, high = re.match(r"(i[+-]?\d*)<j<=(i[+-]?\d*)", rule).groups()
    kept = fig.attention.kept
    for r, label in enumerate(labels):
        i = int(label)
        for j0 in range(n_k):
            j = j0 + base
            assert kept[r][j0] == (i + _offset(low) < j <= i + _offset(high)), (rule, label, j)
    assert rule.endswith("i the query's label") == (first != base)  # said when i is not the row's number
