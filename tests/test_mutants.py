"""Tests written to kill mutants that survived `tools/mutate.py` (see tools/MUTATION.md): each pins a boundary
or a branch the other tests left loose."""

import pytest

import attnviz
from attnviz.engine.tiled_softmax import MAX_TILES, tiles
from attnviz.numbers.exact import InputError


# --- engine/tiled_softmax.py --------------------------------------------------------------------------------


def test_exactly_max_tiles_is_allowed_and_one_more_is_refused():
    assert MAX_TILES == 4096
    # 64×64 in 1×1 tiles is exactly the limit: the block passes, and (this figure being elided) the refusal is
    # about elision, not the tile count.
    at_limit = attnviz.figure([[1]] * 64, [[1]] * 64, elide=True)
    with pytest.raises(InputError, match="needs every row"):
        tiles(at_limit.attention, (1, 1))
    # 17×241 = 4,097 tiles: one past the limit.
    past = attnviz.figure([[1]] * 17, [[1]] * 241, mask="none", elide=True)
    with pytest.raises(InputError, match="4,097 tiles; the limit is 4,096"):
        tiles(past.attention, (1, 1))


def test_flash_tiles_2_by_2_by_default():
    steps = attnviz.flash([[1, 0], [0, 1], [1, 1]], [[1, 0], [0, 1], [1, 1]])
    assert [(s.rows, s.keys) for s in steps] == [((1, 2), (1, 2)), ((3,), (1, 2)), ((3,), (3,))]
    assert attnviz.flash([[1]] * 5, [[1]] * 5, mask="none")[0].rows == (1, 2)
    assert attnviz.flash([[1]] * 5, [[1]] * 5, mask="none")[0].keys == (1, 2)


# --- engine/attention.py ------------------------------------------------------------------------------------

from fractions import Fraction  # noqa: E402

from attnviz.engine.attention import (CAUSAL, MAX_DIM, MAX_ELIDED_TOKENS, MAX_TOKENS, Bias,  # noqa: E402
                                      attend, check_matrix_shape, exact_vectors, softmax_weights)


def test_token_and_dimension_limits_are_inclusive():
    assert (MAX_TOKENS, MAX_ELIDED_TOKENS, MAX_DIM) == (64, 1024, 64)
    assert len(exact_vectors([[1]] * 64, "q")) == 64
    with pytest.raises(InputError, match=r"65 vectors; the limit is 64 \(up to 1,024 with elision"):
        exact_vectors([[1]] * 65, "q")
    assert len(attend([[1]] * 1024, [[1]] * 3, rows={0}).q) == 1024
    with pytest.raises(InputError, match="1025 vectors; the limit is 1,024$"):
        attend([[1]] * 1025, [[1]] * 3, rows={0})
    assert len(exact_vectors([[1] * 64], "q")[0]) == 64
    with pytest.raises(InputError, match="vectors have 65 entries; the limit is 64"):
        exact_vectors([[1] * 65], "q")


def test_vector_shapes_are_checked_with_their_numbers():
    with pytest.raises(InputError, match="vector 2 has 1 entries but vector 1 has 2"):
        exact_vectors([[1, 2], [3]], "q")
    with pytest.raises(InputError, match="vector 1 is empty"):
        exact_vectors([[]], "q")
    with pytest.raises(InputError, match="no vectors given"):
        exact_vectors([], "q")
    with pytest.raises(InputError, match="q vectors have 2 entries but k vectors have 1"):
        attend([[1, 2]], [[1]])
    with pytest.raises(InputError, match="2 value vectors for 3 keys"):
        attend([[1]], [[1]] * 3, v=[[1]] * 2)
    assert attend([[1]], [[1]] * 3, v=[[1]] * 3).values == ((1,), (1,), (1,))
    check_matrix_shape([[0, 0], [0, 0]], 2, 2)
    with pytest.raises(InputError, match="3 rows for a 2×2 grid"):
        check_matrix_shape([[0, 0]] * 3, 2, 2)
    with pytest.raises(InputError, match="row 2 has 1 entries for a 2×2 grid"):
        check_matrix_shape([[0, 0], [0]], 2, 2)


def test_causal_runs_are_clipped_to_the_keys_there_are():
    assert CAUSAL.runs(2) == ((0, 3),)
    assert CAUSAL.runs(2, 5) == ((0, 3),)
    assert CAUSAL.runs(4, 3) == ((0, 3),)  # clipped to 3 keys
    assert CAUSAL.runs(2, 3) == ((0, 3),)


def test_only_the_asked_rows_are_computed_and_the_rest_are_none():
    a = attend([[1], [2], [3]], [[1], [2], [3]], rows={1})
    assert a.scores == (None, (2, 4, 6), None)
    assert a.kept == (None, (True, True, False), None)
    whole = attend([[1], [2], [3]], [[1], [2], [3]])
    assert whole.scores == ((1, 2, 3), (2, 4, 6), (3, 6, 9))
    assert whole.kept == ((True, False, False), (True, True, False), (True, True, True))


def test_logits_are_scale_times_score_plus_every_bias():
    from attnviz.engine.attention import Scale

    biases = [Bias("+B", lambda i, j: Fraction(j - i)), Bias("+C", lambda i, j: Fraction(1, 2))]
    a = attend([[1], [2]], [[1], [3]], scale=Scale("2S", Fraction(2)), biases=biases)
    assert a.logits == ((2 + 0 + Fraction(1, 2), 6 + 1 + Fraction(1, 2)), (4 - 1 + Fraction(1, 2), 12 + Fraction(1, 2)))
    assert attend([[1]], [[3]], biases=biases[:1]).logits == ((3,),)
    assert a.transformed and not attend([[1]], [[3]]).transformed
    assert a.kept_logits(1) == (4 - 1 + Fraction(1, 2), 12 + Fraction(1, 2))
    assert a.kept_scores(0) == (1,)


def test_bias_at_writes_the_sign_of_its_value():
    b = Bias("+1/2·(j-i)", lambda i, j: Fraction(j - i, 2))
    assert b.at(2, 1) == ("+1/2·(j-i)", "-1/2")
    assert b.at(1, 2) == ("+1/2·(j-i)", "+1/2")
    assert b.at(1, 1) == ("+1/2·(j-i)", "+0")


def test_outputs_exist_only_for_pinned_rows_with_values():
    a = attend([[0], [1]], [[1], [1], [2]], mask=CAUSAL, v=[[2, 4], [6, 8], [10, 12]])
    assert a.output(0) == (2, 4)  # one kept key
    assert a.output(1) == (4, 6)  # two equal scores: weights 1/2, 1/2
    keep_all = attnviz.engine.attention.BoundMask("none", "all", lambda i, j: True)
    assert attend([[1]], [[1], [2]], v=[[1], [2]], mask=keep_all).output(0) is None
    assert attend([[1]], [[1]]).output(0) is None  # no values


def test_softmax_weights_kinds():
    assert softmax_weights([]).kind == "undefined"
    assert softmax_weights([Fraction(3)] * 3).values == (Fraction(1, 3),) * 3
    named = softmax_weights([Fraction(1), Fraction(1), Fraction(2)])
    assert named.kind == "named" and named.exponents == (1, 1, 2) and named.values == ()


def test_all_integer_looks_at_every_entry():
    assert attend([[1, 2]], [[3, 4]]).all_integer
    assert not attend([[1, Fraction(1, 2)]], [[3, 4]]).all_integer
    assert not attend([[1, 2]], [[3, Fraction(4, 3)]]).all_integer


# --- publish/walkthrough/decode.py --------------------------------------------------------------------------

from attnviz.publish.walkthrough.decode import decode_steps  # noqa: E402


def test_a_prompt_that_leaves_nothing_to_generate_names_the_range():
    fig = attnviz.figure([[1]] * 3, [[1]] * 3)
    with pytest.raises(InputError, match=r"a prompt of 3 leaves no token to generate: give fewer than the 3 tokens "
                                         r"\(1\.\.2\)"):
        decode_steps(fig.attention, 3)
    with pytest.raises(InputError, match=r"a prompt of 0 leaves no token"):
        decode_steps(fig.attention, 0)


def test_a_row_whose_last_kept_key_is_in_the_future_is_refused_even_when_the_one_before_is_not():
    # Row 1 keeps keys 1 and 3: key 3 is not generated when token 1 is decoded (the check reads the last kept
    # key; the one before it, 1, is not in the future).
    fig = attnviz.figure([[1]] * 3, [[1]] * 3, mask="matrix=101;110;111")
    with pytest.raises(InputError, match="query 1 attends to key 3, which is not generated yet when token 1 is "
                                         "decoded"):
        decode_steps(fig.attention, 1)


def test_more_attention_branches():
    from attnviz.engine.masks import Mask

    inverted = ~CAUSAL
    assert isinstance(inverted, Mask)
    bound = attnviz.engine.masks.resolve(inverted, 3, 3, "top-left")
    assert [[bool(bound.keep(i, j)) for j in range(3)] for i in range(3)] == [
        [False, True, True], [False, False, True], [False, False, False]]
    assert CAUSAL.runs(0, 0) == ()  # no keys: no run, not an empty (0, 0) one
    filled = Bias("+r", lambda i, j: Fraction(0), named=lambda i, j: f"+r{i}{j}", filled=lambda i, j: f"+f{i}{j}")
    assert filled.at(2, 3) == ("+r23", "+f23")
    only_bias = attend([[1]], [[3]], biases=[Bias("+1", lambda i, j: Fraction(1))])
    assert only_bias.transformed and only_bias.logits == ((4,),)


def test_a_future_key_after_an_empty_row_is_refused_as_not_generated_yet():
    # Row 1 keeps nothing, row 2 keeps only key 3: row 2's own (non-empty) row is the one checked.
    fig = attnviz.figure([[1]] * 3, [[1]] * 3, mask="matrix=000;001;111")
    with pytest.raises(InputError, match="query 2 attends to key 3, which is not generated yet when token 2 is "
                                         "decoded"):
        decode_steps(fig.attention, 1)


# --- words/budget.py ----------------------------------------------------------------------------------------


def test_the_value_digit_limit_is_200_inclusive():
    from attnviz.words.budget import MAX_VALUE_DIGITS, check_inputs

    assert MAX_VALUE_DIGITS == 200
    # digits bound = q's numerator digits + k's + digits(d): 100 + 99 + 1 = 200 passes, 100 + 100 + 1 = 201 not.
    check_inputs([[Fraction(10 ** 99)]], [[Fraction(10 ** 98)]])
    check_inputs([[Fraction(5 * 10 ** 98)]], [[Fraction(10 ** 99)]])  # 99 + 100 + 1: a whole number, not scaled up
    with pytest.raises(InputError, match="scores could need 201 digits or more"):
        check_inputs([[Fraction(10 ** 99)]], [[Fraction(10 ** 99)]])


# --- engine/masks.py ----------------------------------------------------------------------------------------


def test_masks_nest_16_levels_and_no_more():
    from attnviz.engine.masks import resolve

    assert resolve("(" * 16 + "causal" + ")" * 16, 3, 3, "top-left").keep(1, 1)
    with pytest.raises(InputError, match="masks nest deeper than 16 levels"):
        resolve("(" * 17 + "causal" + ")" * 17, 3, 3, "top-left")


def test_custom_makes_a_mask_from_a_function():
    from attnviz.engine.masks import Mask, custom, resolve

    m = custom(lambda i, j: j == i, name="diag", rule="j=i")
    assert isinstance(m, Mask)
    bound = resolve(m, 3, 3, "top-left")
    assert bound.name == "diag"
    assert [[bool(bound.keep(i, j)) for j in range(3)] for i in range(3)] == [
        [True, False, False], [False, True, False], [False, False, True]]


@pytest.mark.parametrize("text, n_q, n_k, align", [
    ("prefix=2,documents=1,1,2,2,2", 3, 5, "bottom-right"),
    ("prefix=2,documents=1,1,1,2,2", 5, 5, "top-left"),
    ("padding=2,5 & window=4", 7, 7, "top-left"),
    ("(padding=2,4 | chunk=3) & (window=5 & padding=6)", 8, 8, "top-left"),
    ("padding=1,3,5 & padding=2,6", 8, 8, "top-left"),
])
def test_a_masks_runs_are_its_kept_cells(text, n_q, n_k, align):
    from attnviz.engine.masks import resolve

    bound = resolve(text, n_q, n_k, align)
    for i in range(n_q):
        cells = [j for j in range(n_k) if bound.keep(i, j)]
        from_runs = [j for a, b in bound.runs(i) for j in range(a, b)]
        assert from_runs == cells, (text, i)


def test_long_id_lists_are_written_as_runs():
    from attnviz.engine.masks import resolve

    text = "segments=" + ",".join(["1"] * 10 + ["2"] * 10)
    assert resolve(text, 20, 20, "top-left").rule_text(1) == "j<=i, i and j in the same segment of (1×10, 2×10)"


def test_not_chains_count_as_nesting():
    """A chain of ~ nests: 16 levels are read, 17 refused (MAX_DEPTH), as parentheses are."""
    from attnviz.engine.masks import resolve

    assert [bool(resolve("~" * 16 + "causal", 3, 3).keep(0, 1))] == [False]
    with pytest.raises(attnviz.InputError, match="nest deeper than 16 levels"):
        resolve("~" * 17 + "causal", 3, 3)


def test_a_chunk_offset_is_written_in_the_rule_in_either_index_base():
    from attnviz.engine.masks import resolve

    chunked = resolve("chunk=2,offset=1", 5, 5)
    assert chunked.rule_text(1) == "j<=i, i and j in the same block of 2 positions, blocks starting at position 2"
    assert chunked.rule_text(0) == "j<=i, i and j in the same block of 2 positions, blocks starting at position 1"


def test_a_dilated_window_aligned_bottom_right_on_a_wide_grid():
    """3 queries at positions 5-7 of 7 keys (1-based): keys within 4 behind, every second one."""
    from attnviz.engine.masks import resolve

    mask = resolve("window=2,dilation=2", 3, 7, align="bottom-right")
    brute = [[int((i + 4 - j) in (0, 2)) for j in range(7)] for i in range(3)]
    assert [[int(bool(mask.keep(i, j))) for j in range(7)] for i in range(3)] == brute
    assert mask.rule_text(1) == "i<j<=i+4, (i+4-j) mod 2 = 0, aligned bottom-right"


def test_redundant_parentheses_do_not_change_a_rule():
    from attnviz.engine.masks import resolve

    assert resolve("(causal)", 4, 4).rule_text(1) == resolve("causal", 4, 4).rule_text(1) == "j<=i"


# --- words/short_labels.py (pass 3) ------------------------------------------------------------------------


def test_a_label_one_letter_over_the_most_is_drawn_whole_without_loading_the_segmentation():
    """A label of LABEL_CHARS + 1 letters is drawn whole, and (being no longer) needs no cut: `regex` stays unloaded."""
    import subprocess
    import sys

    code = ("import sys; from attnviz.words.short_labels import short_label, LABEL_CHARS;"
            "print(LABEL_CHARS, short_label('abcdefghi'), short_label('abcdefghij'), 'regex' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["8", "abcdefghi", "abcdefgh…", "True"]
    code = ("import sys; from attnviz.words.short_labels import short_label; short_label('abcdefghi');"
            "print('regex' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False"]


@pytest.mark.parametrize("q_tokens, k_tokens, q_short, k_short", [
    (["cat", "dog"], ["a", "b"], None, None),  # no label long: no choice
    (["internationalization", "dog"], ["a", "b"], ("internat…", "dog"), ("a", "b")),  # only a query label is long
    (["cat", "dog"], ["a", "internationalization"], ("cat", "dog"), ("a", "internat…")),  # only a key label is long
])
def test_short_labels_are_a_choice_when_any_label_of_either_axis_is_long(q_tokens, k_tokens, q_short, k_short):
    from attnviz.words.short_labels import with_short_labels

    fig = attnviz.figure([[1, 0], [0, 1]], [[1, 0], [0, 1]], q_tokens=q_tokens, k_tokens=k_tokens)
    made = with_short_labels(fig.words)
    if q_short is None:
        assert made is None
        return
    words, said = made
    assert (words.q_labels, words.k_labels) == (q_short, k_short)
    assert said == "long token labels shortened in the grid's headers with … (whole: internationalization)"


# --- words/user_text.py (pass 3) ---------------------------------------------------------------------------


@pytest.mark.parametrize("labels", [5, {"a", "b"}, {"a": 1, "b": 2}, "ab"])
def test_labels_that_are_not_a_list_are_refused(labels):
    """A set or a dict of the right size, a number, a string: only a list (or tuple) of labels is accepted."""
    from attnviz.words.user_text import check_labels

    with pytest.raises(InputError, match="expected a list of 2 strings"):
        check_labels(labels, 2, "tokens")


def test_concat_moves_each_user_span_by_the_text_before_it():
    """The spans are where the user's words are in the joined text (found here with str.find, half-open)."""
    from attnviz.words.user_text import concat, user_spans, user_text

    line = concat("xy", concat("Q(", user_text("cat"), ")"), "=", user_text("dog"))
    assert line == "xyQ(cat)=dog"
    assert user_spans(line) == tuple((line.find(w), line.find(w) + len(w)) for w in ("cat", "dog")) == ((4, 7), (9, 12))


# --- engine/mask_grammar.py (pass 3) -----------------------------------------------------------------------


def test_a_numpy_boolean_matrix_is_the_mask_it_marks():
    """A boolean array (FlexAttention's create_mask gives one) keeps exactly its True cells."""
    import numpy as np

    from attnviz.engine.masks import resolve

    marked = [[1, 0, 0], [1, 1, 0], [0, 1, 1]]
    mask = resolve(np.array(marked).astype(bool), 3, 3)
    assert [[int(bool(mask.keep(i, j))) for j in range(3)] for i in range(3)] == marked
    assert mask.rule_text(1) == "(i,j) marked 1 in [100; 110; 011]"


# --- layout/wrapping.py (pass 3) ---------------------------------------------------------------------------


def test_math_width_typesets_only_when_asked():
    """Typeset, S_ij's underscore is not drawn and ij is a smaller subscript: narrower than the plain letters Sij;
    not typeset, the width is the plain measure of the text as written."""
    from attnviz.layout.items import STYLES, measure
    from attnviz.layout.wrapping import math_width

    style = STYLES["title"]
    assert math_width("S_ij", style) == measure("S_ij", style)
    assert math_width("S_ij", style, math=True) < measure("Sij", style) < measure("S_ij", style)


def test_random_keys_default_to_seed_0():
    from attnviz.engine.masks import resolve

    def cells(text):
        mask = resolve(text, 6, 6)
        return [[bool(mask.keep(i, j)) for j in range(6)] for i in range(6)], mask.rule_text(1)

    assert cells("random=2") == cells("random=2,seed=0") != cells("random=2,seed=1")
    assert cells("random=2")[1] == "j in 2 random keys of row i (seed 0)"


def test_a_line_exactly_as_wide_as_its_room_fits_and_a_hair_wider_breaks():
    from attnviz.layout.items import STYLES
    from attnviz.layout.wrapping import widths, wrap

    s = STYLES["title"]
    width = widths(s.size, s.family, s.bold, s.italic, False, 0)
    room = width("ab ") + width("cd")  # the running sum the wrap keeps
    assert wrap(["ab ", "cd"], "title", room) == ("ab cd",)
    assert wrap(["ab ", "cd"], "title", room - 0.01) == ("ab ", "cd")


def test_a_word_cut_anywhere_fits_the_indented_lines():
    """Lines after the first are indented: the cut pieces are made to fit max_width - indent, so no line is wider
    than its room (and every character is kept)."""
    from attnviz.layout.items import STYLES
    from attnviz.layout.wrapping import ANYWHERE, widths, wrap

    s = STYLES["title"]
    width = widths(s.size, s.family, s.bold, s.italic, False, 0)
    text, most, indent = "abcdefghijklmnopqrstuvwx", width("abcdefgh"), width("abcd")
    lines = wrap([text], "title", most, indent=indent, finer=(ANYWHERE,))
    assert "".join(lines) == text and len(lines) > 2
    assert width(lines[0]) <= most
    assert all(width(line) <= most - indent for line in lines[1:])


# --- layout/frames.py (pass 3) ------------------------------------------------------------------------------


def test_a_deck_region_is_judged_at_its_share_of_the_slide_s_pixels():
    """A deck figure's region (552 or 902.4 pt of a 960 pt wide 16:9 slide judged at 1,280 px; 400 or 662.4 pt of
    a 720 pt wide 4:3 slide at 960 px) is judged at the same share of the slide's pixels, rounded down."""
    from attnviz.layout.frames import DECK_FRAMES, FRAMES, PT_PER_IN

    for name, frame in DECK_FRAMES.items():
        slide = FRAMES["slide-4:3" if "4:3" in name else "slide"]
        share = frame.width_in / slide.width_in
        assert frame.judged_px == int(share * slide.judged_px + 1e-9), name
        assert frame.is_slide and frame.floor_pt == 14.0 and frame.main_pt == (14.0 if frame.compact else 18.0)
    size = {n: (round(f.width_in * PT_PER_IN, 1), round(f.height_in * PT_PER_IN, 1)) for n, f in DECK_FRAMES.items()}
    # beside the text: 552 (16:9) or 400 (4:3) pt wide, from under the title (100.8 pt) to the bottom margin (28.8 pt of
    # a 540 pt slide); across: the slide between its 28.8 pt margins, 310 pt tall, the text under it; compact: the
    # region beside the text; across and compact: across the slide, 384 pt tall (a line of text under it)
    beside = 540 - 100.8 - 28.8
    assert size == {"slide-figure": (552.0, beside), "slide-4:3-figure": (400.0, beside),
                    "slide-figure-wide": (960 - 2 * 28.8, 310.0), "slide-4:3-figure-wide": (720 - 2 * 28.8, 310.0),
                    "slide-figure-compact": (552.0, beside), "slide-4:3-figure-compact": (400.0, beside),
                    "slide-figure-wide-compact": (960 - 2 * 28.8, 384.0),
                    "slide-4:3-figure-wide-compact": (720 - 2 * 28.8, 384.0)}


# --- layout/framed.py (pass 3) ------------------------------------------------------------------------------


def test_an_elision_made_first_keeps_the_figure_s_own_softmax_captions():
    """A 24-token grid is too big for a slide: it is elided first (choice 10), with the captions it has (expanded);
    the normalizer captions are choice 5, made and said after it, and the second elision keeps them."""
    import random

    draw = random.Random(1)
    vectors = [[draw.randint(-3, 3) for _ in range(2)] for _ in range(24)]
    fig = attnviz.figure(vectors, vectors, frame="slide")
    said = [choice.split(":")[0] for choice in fig.layout().choices]
    assert fig.words.softmax == "expanded"
    first, second = [n for n, choice in enumerate(said) if choice == "elided"]
    assert first < said.index("normalizer captions") < second


@pytest.mark.parametrize("frame, ways", [
    ("column", "--frame column-wide, --view scores, --view mask, fewer tokens"),  # the wider frame first
    ("slide-4:3", "--frame slide, --view scores, --view mask, fewer tokens"),
    ("slide", "--view scores, --view mask, fewer tokens"),
])
def test_a_refusal_names_the_wider_frame_first(frame, ways):
    from types import SimpleNamespace

    from attnviz.layout.framed import _refusal
    from attnviz.layout.frames import get_frame

    too_big = SimpleNamespace(width=5000.0, height=3000.0)
    message = _refusal(too_big, get_frame(frame), 1000.0, None if frame == "column" else 560.0, "full")
    assert message.endswith("; try " + ways)


# --- words/caption_rows.py (pass 3) -------------------------------------------------------------------------

SIX_VECTORS = [[1, 0], [0, 1], [1, 1], [2, 1], [1, 2], [0, 2]]


@pytest.mark.parametrize("n, highlight, kept", [
    (6, None, [1, 6]),  # the first and the last row's captions
    (6, ["softmax=3"], [1, 3, 6]),  # and the highlighted row's
    (6, ["row=4"], [1, 4, 6]),
    (6, ["output=4"], [1, 4, 6]),  # (with values: the output rows follow their captions)
    (3, None, [1, 3]),  # one row left out: "row 2", "caption"
    (2, None, None),  # nothing to leave out: no choice
])
def test_fewer_captions_keep_the_first_the_last_and_the_highlighted_rows(n, highlight, kept):
    from attnviz.words.caption_rows import with_fewer_captions

    vectors = SIX_VECTORS[:n]
    values = vectors if highlight == ["output=4"] else None
    words = attnviz.figure(vectors, vectors, v=values, highlight=highlight).words
    made = with_fewer_captions(words, 1, 1)
    if kept is None:
        assert made is None
        return
    fewer, said = made
    assert [row.q for row in fewer.softmax_rows] == kept
    assert [row.q for row in fewer.output_rows] == (kept if values else [])
    left_out = [q for q in range(1, n + 1) if q not in kept]
    runs, start = [], left_out[0]  # the left-out rows as ranges, written "2–5"
    for a, b in zip(left_out, left_out[1:] + [None]):
        if b != a + 1:
            runs.append(f"{start}–{a}" if a > start else f"{a}")
            start = b
    rows = ("row " if len(left_out) == 1 else "rows ") + ", ".join(runs)
    assert fewer.softmax_heading == f"{words.softmax_heading}; {rows} not shown"
    caption = "caption" if len(left_out) == 1 else "captions"
    assert said.startswith(f"the softmax {caption} of {rows} left to this description: row {left_out[0]}: scores ")


def test_an_elided_figure_gets_no_fewer_captions():
    from attnviz.words.caption_rows import with_fewer_captions

    vectors = [[i % 3, 1] for i in range(10)]
    words = attnviz.figure(vectors, vectors, elide=True).words
    assert words.elided and len(words.softmax_rows) > 2
    assert with_fewer_captions(words, 1, 1) is None


def test_a_highlighted_cell_of_a_one_key_grid_keeps_its_row_s_caption():
    from attnviz.words.caption_rows import with_fewer_captions

    words = attnviz.figure(SIX_VECTORS, [[1, 1]], mask="none", highlight=["3,1"]).words
    fewer, _ = with_fewer_captions(words, 1, 1)
    assert [row.q for row in fewer.softmax_rows] == [1, 3, 6]


# --- words/figure_text.py (pass 3) --------------------------------------------------------------------------


@pytest.mark.parametrize("bias, subtitle, caption", [
    ("matrix=0,0,0;-1,0,0;-2,-1/3,0", "the given bias matrix, added to every logit", "bias B_ij with causal mask"),
    (["alibi=1", "alibi=1/4"], "B_ij=(j-i)+1/4·(j-i), added to every logit",
     "bias B_ij=(j-i)+1/4·(j-i) with causal mask"),
])
def test_a_bias_panel_says_a_given_matrix_or_the_bias_formula(bias, subtitle, caption):
    """A matrix's entries are its definition (no formula to write); a sum of biases is written as its formula. Each
    kept cell is B_ij = L_ij - S_ij, exactly."""
    q = [[1, 0], [0, 1], [1, 1]]
    fig = attnviz.figure(q, q, bias=bias)
    words, attention = fig.bias_panel().words, fig.attention
    assert (words.title, words.subtitle, words.grid_caption) == ("Bias B_ij", subtitle, caption)
    assert [[cell.text for cell in row] for row in words.cells] == [
        [attnviz.words.notation.format_exact(attention.logits[i][j] - attention.scores[i][j]) if j <= i else "masked"
         for j in range(3)] for i in range(3)]


def test_rounded_weights_mark_only_the_inexact_ones():
    """--weights decimal=3: e^0/(e^0+e^1) and e^1/(e^0+e^1) are irrational, written ≈ their 3 decimals; the weights
    of a uniform row are exactly 0.5 and 1, written without ≈."""
    import math

    pytest.importorskip("mpmath")
    unequal = attnviz.figure([[1, 0], [0, 1]], [[1, 0], [0, 1]], weights="decimal=3").words.softmax_rows
    low, high = 1 / (1 + math.e), math.e / (1 + math.e)
    assert [row.weights for row in unequal] == ["weights 1", f"weights ≈{low:.3f}, ≈{high:.3f}"]
    uniform = attnviz.figure([[0, 0], [0, 0]], [[0, 0], [0, 0]], weights="decimal=3").words.softmax_rows
    assert [row.weights for row in uniform] == ["weights 1", "weights 0.5, 0.5"]


# --- layout/framed.py and words/figure_text.py, second sample (pass 3) ---------------------------------------


def _random_vectors(n, big):
    import random

    draw = random.Random(1)
    return [[draw.randint(-big, big) for _ in range(2)] for _ in range(n)]


def test_the_three_elisions_keep_the_documented_rows():
    """docs/frame-output.rst, choice 10: the first four and last two rows and keys, then the first two and the last
    one, then the first and the last (24 tokens of wide values on a 4:3 slide make all three; values up to 3,000
    since the type scale's smaller headings and captions, up to 300 before)."""
    n = 24
    fig = attnviz.figure(_random_vectors(n, 3000), _random_vectors(n, 3000), frame="slide-4:3")
    elided = [choice for choice in fig.layout().choices if choice.startswith("elided")]
    assert elided == [f"elided: rows {first + 1}–{n - last} and keys {first + 1}–{n - last} not shown"
                      for first, last in ((4, 2), (2, 1), (1, 1))]


def test_an_elision_after_the_labels_choice_keeps_the_labels_short():
    from attnviz.layout.items import Text
    from attnviz.words.short_labels import short_label

    tokens = [f"token-number-{i}" for i in range(24)]
    vectors = _random_vectors(24, 3)
    layout = attnviz.figure(vectors, vectors, tokens=tokens, frame="slide").layout()
    said = [choice.split(" ")[0] for choice in layout.choices]
    assert said.index("long") < len(said) - 1 - said[::-1].index("elided:")  # labels shortened, then elided again
    texts = [t.text for t in layout.walk() if isinstance(t, Text)]
    assert not set(texts) & set(tokens)  # no header draws a whole label
    assert short_label(tokens[0]) == "token-nu…" and "token-nu…" in texts


def test_a_grid_is_too_big_when_its_narrowest_cells_and_gaps_pass_the_frame():
    """10 columns of cells at least 10 wide with 2 between: 120 > 115 wide; 5 rows of 10 + 2: 60 > 59 tall."""
    from types import SimpleNamespace

    from attnviz.layout.framed import _grid_too_big

    metrics = SimpleNamespace(cell_min_w=10, cell_gap=2, cell_h=10)
    words = SimpleNamespace(cells=[[None]] * 5, k_labels=[""] * 10)
    assert _grid_too_big(words, metrics, 115, 1000) and not _grid_too_big(words, metrics, 120, 1000)
    assert _grid_too_big(words, metrics, 1000, 59) and not _grid_too_big(words, metrics, 1000, 60)


@pytest.mark.parametrize("base", [0, 1])
def test_repeated_labels_are_named_with_their_position(base):
    vectors = [[1, 0], [0, 1], [1, 1]]
    tokens = ["the", "cat", "the"]
    words = attnviz.figure(vectors, vectors, tokens=tokens, index_base=base).words
    assert [row.scores.split(":")[0] for row in words.softmax_rows] == [
        f"row {i + base} ({label})" for i, label in enumerate(tokens)]
    assert all(f"Q{i + base}({label})=" in words.q_line for i, label in enumerate(tokens))
    assert all(f"K{j + base}({label})=" in words.k_line for j, label in enumerate(tokens))
