"""The mask algebra and every family, held three ways: against brute-force definitions, against the
rule text the figure prints (read back by tests/rulecheck.py, in both index bases), and row by row
against `runs(i)`."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attnviz
from attnviz.engine.attention import BoundMask
from attnviz.numbers.exact import InputError
from attnviz.engine.mask_grammar import MASK_FAMILIES
from attnviz.engine.masks import Mask, parse_expression, resolve, scan_runs
from rulecheck import floyd_keys, predicate, to_python


def _ids(positions, base):
    return ",".join(str(p + base) for p in positions)


def _no_value(kind):
    def draw_family(draw, n_q, n_k, offset, base):
        return kind, {"causal": lambda i, j: j <= i + offset}.get(kind, lambda i, j: True)

    return draw_family


def _window(draw, n_q, n_k, offset, base):
    w, d = draw(st.integers(1, 6)), draw(st.sampled_from([1, 1, 2, 3]))
    sym = draw(st.booleans())
    text = f"window={w}" + (",symmetric" if sym else "") + (f",dilation={d}" if d > 1 else "")

    def keep(i, j):
        distance = i + offset - j
        near = -w * d < distance < w * d if sym else 0 <= distance < w * d
        return near and distance % d == 0

    return text, keep


def _global(draw, n_q, n_k, offset, base):
    chosen = draw(st.sets(st.integers(0, max(n_k, n_q + offset) - 1), min_size=1, max_size=3))
    return f"global={_ids(sorted(chosen), base)}", lambda i, j: i + offset in chosen or j in chosen


def _prefix(draw, n_q, n_k, offset, base):
    if n_q + offset <= n_k and draw(st.booleans()):  # segment ids exist for every query's position
        return _document_prefix(draw, n_q, n_k, offset, base)
    p = draw(st.integers(0, 8))
    return f"prefix={p}", lambda i, j: j <= i + offset or (i + offset < p and j < p)


def _chunk(draw, n_q, n_k, offset, base):
    c, o = draw(st.integers(1, 5)), draw(st.integers(0, 7))
    text = f"chunk={c}" + (f",offset={o}" if o or draw(st.booleans()) else "")
    return text, lambda i, j: j <= i + offset and (i + offset - o) // c == (j - o) // c


def _padding(draw, n_q, n_k, offset, base):
    pads = draw(st.sets(st.integers(0, n_k - 1), min_size=1))
    return f"padding={_ids(sorted(pads), base)}", lambda i, j: j not in pads


def _keys(draw, n_q, n_k, offset, base):
    chosen = draw(st.sets(st.integers(0, n_k - 1), min_size=1, max_size=4))
    return f"keys={_ids(sorted(chosen), base)}", lambda i, j: j in chosen


def _random(draw, n_q, n_k, offset, base):
    count, seed = draw(st.integers(1, n_k + 1)), draw(st.integers(0, 99))
    return f"random={count},seed={seed}", lambda i, j: j in floyd_keys(count, n_k, seed, i + offset)


def _sink(draw, n_q, n_k, offset, base):
    count = draw(st.integers(1, n_k + 2))  # past the grid too: every key
    return f"sink={count}", lambda i, j: j < count


def _matrix(draw, n_q, n_k, offset, base):
    rows = draw(st.lists(st.lists(st.booleans(), min_size=n_k, max_size=n_k), min_size=n_q, max_size=n_q))
    return "matrix=" + ";".join("".join("1" if x else "0" for x in row) for row in rows), lambda i, j: rows[i][j]


def _ids_of(draw, n_k, offset):
    ids = draw(st.lists(st.integers(0, 2), min_size=n_k, max_size=n_k))

    def same(i, j):
        return i + offset >= 0 and ids[i + offset] == ids[j]

    return ids, ",".join(map(str, ids)), same


def _segments(draw, n_q, n_k, offset, base):
    ids, text, same = _ids_of(draw, n_k, offset)
    return f"segments={text}", lambda i, j: j <= i + offset and same(i, j)


def _documents(draw, n_q, n_k, offset, base):
    ids, text, same = _ids_of(draw, n_k, offset)
    return f"documents={text}", same


def _document_prefix(draw, n_q, n_k, offset, base):
    ids, text, same = _ids_of(draw, n_k, offset)
    p = draw(st.integers(0, 3))

    def in_prefix(x):
        return ids[:x].count(ids[x]) < p

    return f"prefix={p},documents={text}", lambda i, j: same(i, j) and (
        j <= i + offset or (in_prefix(i + offset) and in_prefix(j)))


def _tree(draw, n_q, n_k, offset, base):
    prompt = draw(st.integers(0, n_k - 1))
    parents = [draw(st.integers(-1, t - 1)) for t in range(n_k - prompt)]

    def on_path(q, j):
        t = q - prompt
        while t >= 0:
            if j - prompt == t:
                return True
            t = parents[t]
        return False

    def keep(i, j):
        q = i + offset
        if q < prompt:
            return j <= q
        return j < prompt or (q - prompt < len(parents) and on_path(q, j))

    return f"tree={','.join(map(str, parents))},prompt={prompt}", keep


#: Each family of the table (attnviz.engine.mask_grammar.MASK_FAMILIES) drawn with its brute-force keep(i, j) on
#: 0-based cells, written here from the family's documented rule: a new family fails
#: test_the_property_test_draws_every_family until it has its strategy here.
BRUTE = {"causal": _no_value("causal"), "none": _no_value("none"), "window": _window, "global": _global,
         "prefix": _prefix, "chunk": _chunk, "segments": _segments, "documents": _documents, "padding": _padding,
         "keys": _keys, "random": _random, "sink": _sink, "matrix": _matrix,
         "tree": _tree}
#: Families whose ids must cover every query's position.
NEEDS_IDS = ("segments", "documents")


@st.composite
def family(draw, n_q, n_k, offset, base, labelled=False):
    """One family of the table as (text in the grammar, brute-force keep(i, j) on 0-based cells); `labelled`:
    not `matrix`, whose rule counts rows, not labels."""
    kinds = [kind for kind in MASK_FAMILIES if (n_q + offset <= n_k or kind not in NEEDS_IDS)
             and not (labelled and kind == "matrix")]
    kind = draw(st.sampled_from(kinds))
    text, keep = BRUTE[kind](draw, n_q, n_k, offset, base)
    if kind == "none" and draw(st.booleans()):
        text = "full"
    return text, keep


def test_the_property_test_draws_every_family():
    assert list(BRUTE) == list(MASK_FAMILIES)


@st.composite
def expression(draw, n_q, n_k, offset, base, labelled=False, depth=0):
    """A random combination as (grammar text, brute-force keep)."""
    choice = draw(st.sampled_from(["family"] * 3 + ["and", "or", "not"] if depth < 3 else ["family"]))
    if choice == "family":
        return draw(family(n_q, n_k, offset, base, labelled))
    if choice == "not":
        text, keep = draw(expression(n_q, n_k, offset, base, labelled, depth + 1))
        return f"~({text})", lambda i, j: not keep(i, j)
    parts = [draw(expression(n_q, n_k, offset, base, labelled, depth + 1)) for _ in range(draw(st.integers(2, 3)))]
    op, combine = (" & ", all) if choice == "and" else (" | ", any)
    return op.join(f"({t})" for t, _ in parts), lambda i, j: combine(k(i, j) for _, k in parts)


@st.composite
def cases(draw):
    n_k = draw(st.integers(1, 9))
    n_q = draw(st.integers(1, 9))
    align = draw(st.sampled_from(["top-left", "bottom-right"]))
    base = draw(st.sampled_from([0, 1]))
    offset = n_k - n_q if align == "bottom-right" else 0
    q_first = draw(st.none() | st.integers(0, 12))  # queries labelled with positions from q_first
    text, keep = draw(expression(n_q, n_k, offset, base, q_first is not None))
    return n_q, n_k, align, base, q_first, text, keep


def _only_padding(text):
    parts = [p.strip(" ()") for p in text.split("&")]
    return "|" not in text and "~" not in text and all(p.startswith("padding=") for p in parts)


@settings(max_examples=300, deadline=None)
@given(cases())
def test_cells_rule_text_and_runs_agree(case):
    n_q, n_k, align, base, q_first, text, brute = case
    mask = resolve(text, n_q, n_k, align, index_base=base, q_first=q_first)
    padding_alone = _only_padding(text)
    for i in range(n_q):
        for j in range(n_k):
            expected = brute(i, j) and (not padding_alone or j <= i + (n_k - n_q if align == "bottom-right" else 0))
            assert mask.keep(i, j) == expected, (i, j, text, mask)
    for b in (0, 1):  # the rule in either base names exactly the kept cells
        rule = mask.rule_text(b)
        says = predicate(rule, b, n_k=n_k)
        # A rule whose i is the query's label: row i's label is q_first + i, typed in the figure's base.
        row = (lambda i: i + q_first - base) if rule.endswith("i the query's label") else (lambda i: i)
        wrong = [(i + b, j + b) for i in range(n_q) for j in range(n_k) if says(row(i), j) != mask.keep(i, j)]
        assert not wrong, f"rule {rule!r} (base {b}, {to_python(rule)}) is wrong at {wrong[:5]}"
    assert mask.rule == mask.rule_text(base)
    for i in range(n_q):
        assert mask.runs(i) == scan_runs(lambda j, i=i: mask.keep(i, j), n_k), (i, text)


@pytest.mark.parametrize("text, n, name, rule", [
    ("window=3 | global=1,8", 8, "sliding-window or global", "i-3<j<=i or (i in {1,8} or j in {1,8})"),
    ("window=2,symmetric", 5, "symmetric sliding-window", "|i-j|<2"),
    ("window=2,dilation=2", 5, "dilated sliding-window", "i-4<j<=i, (i-j) mod 2 = 0"),
    ("window=2,symmetric,dilation=3", 5, "dilated symmetric sliding-window", "|i-j|<6, (i-j) mod 3 = 0"),
    ("documents=1,1,2,2", 4, "bidirectional document", "i and j in the same segment of (1, 1, 2, 2)"),
    ("causal & documents=1,1,2,2", 4, "causal + bidirectional document",
     "j<=i and (i and j in the same segment of (1, 1, 2, 2))"),
    ("prefix=2,documents=1,1,1,2,2,2", 6, "prefix-LM per document",
     "i and j in the same segment of (1, 1, 1, 2, 2, 2) and (j<=i, or i and j in {1,2,4,5})"),
    ("chunk=4,offset=2", 8, "chunked", "j<=i, i and j in the same block of 4 positions, blocks starting at position 3"),
    ("chunk=4,offset=4", 8, "chunked", "j<=i, i and j in the same block of 4 positions"),
    ("causal & !segments=1,1,2", 3, "causal + not document",
     "j<=i and not (j<=i, i and j in the same segment of (1, 1, 2))"),
    ("~(window=2 | padding=1)", 3, "not (sliding-window or padding)", "not (i-2<j<=i or j not in {1})"),
    ("none | causal", 3, "bidirectional or causal", "every cell or j<=i"),
    ("~none", 3, "not bidirectional", "not (every cell)"),
    ("full", 3, "bidirectional", "every cell"),
    ("none & window=2", 3, "sliding-window", "i-2<j<=i"),
])
def test_combined_names_and_rules(text, n, name, rule):
    mask = resolve(text, n, n)
    assert (mask.name, mask.rule) == (name, rule)


def test_the_three_ways_to_write_a_combination_are_one_mask():
    grammar = resolve("(window=3,symmetric | global=1,8) & ~padding=5", 8, 8)
    table = resolve({"all": [{"any": ["window=3,symmetric", "global=1,8"]}, {"not": "padding=5"}]}, 8, 8)
    api = resolve((Mask("window=3,symmetric") | Mask("global=1,8")) & ~Mask("padding=5"), 8, 8)
    assert grammar.rule == table.rule == api.rule
    assert [grammar.runs(i) for i in range(8)] == [table.runs(i) for i in range(8)] == [api.runs(i) for i in range(8)]
    fig = attnviz.figure([[1]] * 8, [[1]] * 8, mask=attnviz.Mask("window=3,symmetric") | "global=1,8")
    assert fig.attention.mask.name == "symmetric sliding-window or global"


def test_zero_based_rule_texts():
    mask = resolve("global=0,7 | padding=0", 8, 8, index_base=0)
    assert mask.rule == "(i in {0,7} or j in {0,7}) or j not in {0}"
    assert mask.rule_text(1) == "(i in {1,8} or j in {1,8}) or j not in {1}"
    assert resolve("prefix=2", 4, 4).rule_text(0) == "j<=i, or i<=1 and j<=1"
    assert resolve(lambda q, k: q >= k, 2, 2).rule_text(0) == "(i,j) where keep(i,j) is true"


def test_runs_are_analytic_and_clipped():
    mask = resolve("window=2,symmetric,dilation=2 | global=1", 6, 6)
    assert mask.runs(3) == ((0, 1), (1, 2), (3, 4), (5, 6)) or mask.runs(3) == ((0, 2), (3, 4), (5, 6))
    assert resolve("chunk=3,offset=1", 2, 7, "bottom-right").runs(1) == ((4, 7),)
    big = resolve("window=128 | global=1", 1024, 1024)
    assert big.runs(1000) == ((0, 1), (873, 1001))


def test_bound_masks_combine_too():
    diagonal = BoundMask("diagonal", "j=i", lambda i, j: i == j)
    mask = resolve(diagonal | "global=1", 3, 3)
    assert mask.name == "diagonal or global" and mask.rule == "j=i or (i in {1} or j in {1})"
    assert mask.runs(2) == ((0, 1), (2, 3))


@pytest.mark.parametrize("text, message", [
    ("window=3 |", "mask 'window=3 |': expected a mask such as causal or window=3, found the end"),
    ("(window=3", "mask '(window=3': expected ')', found the end"),
    ("window=3)", "mask 'window=3)': expected '&', '|' or the end, found ')' at character 9"),
    ("causal && none", "expected a mask such as causal or window=3, found '&' at character 9"),
    ("window=3 | windw=2", "mask 'windw=2': unknown mask 'windw'; did you mean 'window='?"),
    ("window=3,both", "mask 'window=3,both': unknown option 'both'; the options here are symmetric, dilation=D"),
    ("window=3,dilation", "'dilation' needs a value: dilation=D"),
    ("chunk=2,offset=-1", "needs an offset from 0 to 1000000, got -1"),
    ("global=9", "position 9 is outside the grid (positions 1..3)"),
    ("global=0", "positions start at 1, got 0"),
    ("(" * 20 + "causal" + ")" * 20, "masks nest deeper than 16 levels"),
    (" | ".join(["causal"] * 70), "more than 64 masks in one expression"),
    ({"some": ["causal"]}, "mask: a mask table has one key, all, any or not (got some)"),
    ({"any": "causal"}, "mask.any: expected a list of masks, got str"),
    ({"any": ["causal", 3]}, "expected a mask like \"window=3\""),
])
def test_bad_combinations_are_refused(text, message):
    with pytest.raises(InputError) as err:
        resolve(text, 3, 3)
    assert message in str(err.value)


def test_parse_expression_precedence():
    assert parse_expression("causal | none & ~padding=1").text == "causal | (none & ~padding=1)"
    mask = resolve("causal | none & ~padding=1", 2, 2)  # ~ before &, & before |
    assert mask.rule == "j<=i or not (j not in {1})"
    assert mask.name == "causal or not padding"


def test_a_zero_based_figure_reads_and_writes_positions_from_zero():
    fig = attnviz.figure([[1]] * 4, [[1]] * 4, mask="window=2,symmetric | global=0", index_base=0)
    assert fig.words.note.endswith("mask keeps |i-j|<2 or (i in {0} or j in {0})")
    assert fig.attention.kept[3] == (True, False, True, True)
    one = attnviz.figure([[1]] * 4, [[1]] * 4, mask="window=2,symmetric | global=1")
    assert one.attention.kept == fig.attention.kept
    with pytest.raises(InputError) as err:
        attnviz.figure([[1]] * 4, [[1]] * 4, mask="padding=4", index_base=0)
    assert "key position 4 is outside the grid (keys 0..3)" in str(err.value)


def test_long_id_lists_are_written_with_runs_and_still_read_back():
    ids = [0] * 20 + [1] * 2 + [2] * 3
    mask = resolve("documents=" + ",".join(map(str, ids)), 25, 25)
    assert mask.rule == "i and j in the same segment of (0×20, 1, 1, 2×3)"
    says = predicate(mask.rule, 1)
    assert all(says(i, j) == mask.keep(i, j) for i in range(25) for j in range(25))
    assert len(resolve("segments=" + ",".join(str(i // 256) for i in range(1024)), 1024, 1024).rule) < 80
    pads = resolve("padding=" + ",".join(map(str, [*range(1, 21), 23, 30, 31, 32])), 32, 32)
    assert pads.rule == "j<=i and j not in {1..20,23,30..32}"
    says = predicate(pads.rule, 1)
    assert all(says(i, j) == pads.keep(i, j) for i in range(32) for j in range(32))


@pytest.mark.parametrize("q_first, base, rule", [
    (9, 1, "i-3<j<=i, aligned bottom-right, i the query's label"),  # labels 9..12 are the queries' positions
    (5, 1, "i+1<j<=i+4, aligned bottom-right, i the query's label"),  # labels 5..8 on positions 9..12
    (8, 0, "i-3<j<=i, aligned bottom-right, i the query's label"),  # 0-based: labels 8..11
    (1, 1, "i+5<j<=i+8, aligned bottom-right"),  # labels that count the rows: i is the row, as without q_first
])
def test_q_first_makes_the_rule_s_i_the_query_s_label(q_first, base, rule):
    """A 4x12 decode map whose query labels count from q_first: the rule read with i = the row's label (q_first
    + row) names exactly the cells a window of 3 keeps at the queries' key positions 8..11 (0-based)."""
    mask = resolve("window=3", 4, 12, "bottom-right", index_base=base, q_first=q_first)
    assert mask.rule == rule
    says = predicate(mask.rule, base)
    for row in range(4):
        brute = [8 + row - 3 < j <= 8 + row for j in range(12)]
        assert [says(row + q_first - base, j) for j in range(12)] == brute
        assert [bool(mask.keep(row, j)) for j in range(12)] == brute
    assert resolve("window=3", 4, 12, "bottom-right", index_base=base).rule == "i+5<j<=i+8, aligned bottom-right"


@pytest.mark.parametrize("count", [1, 2, 5, 6, 9])
def test_sink_runs_are_the_first_keys_in_every_row(count):
    """sink=S keeps keys 1..S of every row, clipped to the grid, whatever the row's position."""
    for n_q, n_k, align in ((6, 6, "top-left"), (2, 6, "bottom-right"), (6, 3, "top-left")):
        mask = resolve(f"sink={count}", n_q, n_k, align)
        assert mask.rule == f"j<={count}" and mask.rule_text(0) == f"j<={count - 1}"
        for i in range(n_q):
            assert mask.runs(i) == (((0, min(count, n_k)),) if n_k else ())
            assert [bool(mask.keep(i, j)) for j in range(n_k)] == [j < count for j in range(n_k)]
