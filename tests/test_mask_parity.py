"""Parity with the real thing: every family and random combinations, cell for cell, against PyTorch's
FlexAttention (`create_mask`, torch 2.13, from the test extra) and against a transcription of Hugging
Face's `transformers.masking_utils`, square and decode-shaped (fewer queries than keys).

Also: mask code pasted from PyTorch's docs and attention-gym (and_masks, or_masks, torch.abs,
new_zeros, tensor indexing) draws the cells FlexAttention computes; without torch, int-only
functions still work and tensor-only ones say what to install."""

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.nn.attention.flex_attention import and_masks, create_mask, or_masks

import attnviz
from attnviz.engine import mask_functions, masks
from attnviz.engine.mask_grammar import MASK_FAMILIES
from attnviz.numbers.exact import InputError
from attnviz.engine.masks import resolve


def flex_cells(mask_mod, n_q, n_k):
    return tuple(tuple(row) for row in create_mask(mask_mod, 1, 1, n_q, n_k, device="cpu")[0, 0].bool().tolist())


def attnviz_cells(mask, n_q, n_k, align="top-left"):
    bound = resolve(mask, n_q, n_k, align)
    return tuple(tuple(bound.keep(i, j) for j in range(n_k)) for i in range(n_q))


def _text(positions):
    return ",".join(str(p + 1) for p in positions)


def _causal(draw, n_q, n_k, off):
    return "causal", lambda b, h, q, kv: q + off >= kv


def _full(draw, n_q, n_k, off):
    return draw(st.sampled_from(["none", "full"])), lambda b, h, q, kv: q >= 0


def _window(draw, n_q, n_k, off):
    w, kind = draw(st.integers(1, 6)), draw(st.sampled_from(["window", "symmetric", "dilated"]))
    if kind == "window":  # attention-gym: q_idx - kv_idx <= W' with W' = W - 1
        return f"window={w}", lambda b, h, q, kv: (q + off >= kv) & (q + off - kv <= w - 1)
    if kind == "symmetric":
        return f"window={w},symmetric", lambda b, h, q, kv: torch.abs(q + off - kv) < w
    d = draw(st.integers(2, 3))
    return f"window={w},dilation={d}", lambda b, h, q, kv: (
        (q + off >= kv) & (q + off - kv < w * d) & ((q + off - kv) % d == 0))


def _global(draw, n_q, n_k, off):
    chosen = sorted(draw(st.sets(st.integers(0, n_k - 1), min_size=1, max_size=3)))
    is_global = torch.zeros(max(n_k, n_q + off), dtype=torch.bool)
    is_global[chosen] = True
    return f"global={_text(chosen)}", lambda b, h, q, kv: is_global[q + off] | is_global[kv]


def _prefix(draw, n_q, n_k, off):
    if draw(st.booleans()):
        return _document_prefix(draw, n_q, n_k, off)
    p = draw(st.integers(0, 8))  # attention-gym's prefix LM: or_masks(prefix, causal)
    return f"prefix={p}", or_masks(lambda b, h, q, kv: kv < p, lambda b, h, q, kv: q + off >= kv)


def _chunk(draw, n_q, n_k, off):
    c, o = draw(st.integers(1, 5)), draw(st.integers(0, 6))
    return f"chunk={c},offset={o}", lambda b, h, q, kv: (q + off >= kv) & ((q + off - o) // c == (kv - o) // c)


def _columns(draw, n_k):
    chosen = sorted(draw(st.sets(st.integers(0, n_k - 1), min_size=1)))
    table = torch.zeros(n_k, dtype=torch.bool)
    table[chosen] = True
    return chosen, table


def _padding(draw, n_q, n_k, off):
    pads, padded = _columns(draw, n_k)
    return f"padding={_text(pads)}", lambda b, h, q, kv: ~padded[kv]


def _keys(draw, n_q, n_k, off):  # summary tokens: chosen key columns, every query
    chosen, kept = _columns(draw, n_k)
    return f"keys={_text(chosen)}", lambda b, h, q, kv: kept[kv]


def _sink(draw, n_q, n_k, off):  # StreamingLLM's sink tokens: the first S keys, every query
    s = draw(st.integers(1, n_k + 2))
    return f"sink={s}", lambda b, h, q, kv: kv < s


def _matrix(draw, n_q, n_k, off):
    rows = draw(st.lists(st.lists(st.booleans(), min_size=n_k, max_size=n_k), min_size=n_q, max_size=n_q))
    table = torch.tensor(rows)
    return "matrix=" + ";".join("".join("1" if x else "0" for x in row) for row in rows), \
        lambda b, h, q, kv: table[q, kv]


def _document_ids(draw, n_k):
    lengths = draw(st.lists(st.integers(1, 4), min_size=1, max_size=4))
    ids = [d for d, n in enumerate(lengths) for _ in range(n)][:n_k]
    ids += [ids[-1]] * (n_k - len(ids))
    return ids, torch.tensor(ids), ",".join(map(str, ids))


def _segments(draw, n_q, n_k, off):  # attention-gym's document mask over causal
    ids, document, text = _document_ids(draw, n_k)
    return f"segments={text}", lambda b, h, q, kv: (document[q + off] == document[kv]) & (q + off >= kv)


def _documents(draw, n_q, n_k, off):
    ids, document, text = _document_ids(draw, n_k)
    return f"documents={text}", lambda b, h, q, kv: document[q + off] == document[kv]


def _document_prefix(draw, n_q, n_k, off):
    ids, document, text = _document_ids(draw, n_k)
    p = draw(st.integers(0, 3))  # attention-gym's generate_doc_mask_mod(prefix LM, document_id)
    starts = torch.tensor([ids.index(d) for d in range(max(ids) + 1)])

    def doc_prefix(b, h, q, kv):
        q_doc, kv_doc = document[q + off], document[kv]
        q_logical, kv_logical = q + off - starts[q_doc], kv - starts[kv_doc]
        return (q_doc == kv_doc) & ((kv_logical <= q_logical) | (kv_logical < p))

    return f"prefix={p},documents={text}", doc_prefix


def _tree(draw, n_q, n_k, off):  # a token tree as Medusa verifies it: an ancestor table indexed by position
    prompt = draw(st.integers(0, n_k - 1))
    parents = [draw(st.integers(-1, t - 1)) for t in range(n_k - prompt)]
    table = torch.zeros(n_k, n_k, dtype=torch.bool)
    for q in range(n_k):
        if q < prompt:
            table[q, :q + 1] = True
            continue
        table[q, :prompt] = True
        t = q - prompt
        while t >= 0:
            table[q, prompt + t] = True
            t = parents[t]
    text = f"tree={','.join(map(str, parents))}" + (f",prompt={prompt}" if prompt else "")
    return text, lambda b, h, q, kv: table[q + off, kv]


#: The FlexAttention mask_mod a user would write for each family the table marks `flex`, query i at i+off.
FLEX = {"causal": _causal, "none": _full, "window": _window, "global": _global, "prefix": _prefix, "chunk": _chunk,
        "segments": _segments, "documents": _documents, "padding": _padding, "keys": _keys, "sink": _sink,
        "matrix": _matrix, "tree": _tree}
PARITY = [name for name, family in MASK_FAMILIES.items() if family.flex]


def test_the_parity_test_draws_every_family_the_table_says_it_covers():
    assert list(FLEX) == PARITY


@st.composite
def flex_family(draw, n_q, n_k, off):
    """A family as (attnviz text, the FlexAttention mask_mod a user would write), query i at i+off."""
    return FLEX[draw(st.sampled_from(PARITY))](draw, n_q, n_k, off)


@st.composite
def flex_expression(draw, n_q, n_k, off, depth=0):
    choice = draw(st.sampled_from(["family"] * 3 + ["and", "or", "not"] if depth < 2 else ["family"]))
    if choice == "family":
        return draw(flex_family(n_q, n_k, off))
    if choice == "not":
        text, mod = draw(flex_expression(n_q, n_k, off, depth + 1))
        return f"~({text})", lambda b, h, q, kv: ~mod(b, h, q, kv)
    parts = [draw(flex_expression(n_q, n_k, off, depth + 1)) for _ in range(draw(st.integers(2, 3)))]
    combine, op = (and_masks, " & ") if choice == "and" else (or_masks, " | ")
    return op.join(f"({t})" for t, _ in parts), combine(*(m for _, m in parts))


@st.composite
def flex_cases(draw):
    n_k = draw(st.integers(1, 9))
    square = draw(st.booleans())
    n_q = n_k if square else draw(st.integers(1, n_k))  # decode: fewer queries than keys
    align = draw(st.sampled_from(["top-left", "bottom-right"]))
    off = n_k - n_q if align == "bottom-right" else 0
    text, mod = draw(flex_expression(n_q, n_k, off))
    return n_q, n_k, align, text, mod


@settings(max_examples=150, deadline=None)
@given(flex_cases())
def test_every_family_and_combination_matches_flex_attention(case):
    n_q, n_k, align, text, mod = case
    if masks._only_padding(masks.parse_expression(text)):
        text = f"none & ({text})"  # padding alone means causal + padding; FlexAttention's is padding only
    assert attnviz_cells(text, n_q, n_k, align) == flex_cells(mod, n_q, n_k), text


# --- A transcription of transformers.masking_utils (the functions as Hugging Face writes them) ---

def hf_and_masks(*mask_functions):
    def and_mask(batch_idx, head_idx, q_idx, kv_idx):
        result = q_idx.new_ones((), dtype=torch.bool)
        for mask in mask_functions:
            result = result & mask(batch_idx, head_idx, q_idx, kv_idx).to(result.device)
        return result

    return and_mask


def hf_or_masks(*mask_functions):
    def or_mask(batch_idx, head_idx, q_idx, kv_idx):
        result = q_idx.new_zeros((), dtype=torch.bool)
        for mask in mask_functions:
            result = result | mask(batch_idx, head_idx, q_idx, kv_idx).to(result.device)
        return result

    return or_mask


def causal_mask_function(batch_idx, head_idx, q_idx, kv_idx):
    return kv_idx <= q_idx


def bidirectional_mask_function(batch_idx, head_idx, q_idx, kv_idx):
    return q_idx >= 0


def sliding_window_overlay(sliding_window):
    def inner_mask(batch_idx, head_idx, q_idx, kv_idx):
        return kv_idx > q_idx - sliding_window

    return inner_mask


def sliding_window_bidirectional_overlay(sliding_window):
    def inner_mask(batch_idx, head_idx, q_idx, kv_idx):
        return abs(q_idx - kv_idx) <= sliding_window

    return inner_mask


def chunked_overlay(chunk_size, left_padding):
    def inner_mask(batch_idx, head_idx, q_idx, kv_idx):
        return (kv_idx - left_padding[batch_idx]) // chunk_size == (q_idx - left_padding[batch_idx]) // chunk_size

    return inner_mask


def padding_mask_function(padding_mask):
    def inner_mask(batch_idx, head_idx, q_idx, kv_idx):
        return padding_mask[batch_idx, kv_idx]

    return inner_mask


def packed_sequence_mask_function(packed_sequence_mask):
    def inner_mask(batch_idx, head_idx, q_idx, kv_idx):
        return packed_sequence_mask[batch_idx, q_idx] == packed_sequence_mask[batch_idx, kv_idx]

    return inner_mask


def add_offsets_to_mask_function(mask_function, q_offset, kv_offset):
    def inner_mask(batch_idx, head_idx, q_idx, kv_idx):
        return mask_function(batch_idx, head_idx, q_idx + q_offset, kv_idx + kv_offset)

    return inner_mask


def hf_cells(mask_function, n_q, n_k):
    """As sdpa_mask does: the cache's length as the queries' offset, vmapped over the 4 indices."""
    function = add_offsets_to_mask_function(mask_function, n_k - n_q, 0)
    for dims in [(None, None, None, 0), (None, None, 0, None), (None, 0, None, None), (0, None, None, None)]:
        function = torch.vmap(function, in_dims=dims, out_dims=0)
    from torch._dynamo._trace_wrapped_higher_order_op import TransformGetItemToIndex

    with TransformGetItemToIndex():
        cells = function(torch.arange(1), torch.arange(1), torch.arange(n_q), torch.arange(n_k))
    return tuple(tuple(row) for row in cells[0, 0].tolist())


def _hf_cases():
    pad = torch.tensor([[False, False, True, True, True, True, True, True]])  # two left-padding tokens
    ids = torch.tensor([[0, 0, 0, 1, 1, 2, 2, 2]])
    return [
        ("causal", causal_mask_function, "causal"),
        ("bidirectional", bidirectional_mask_function, "none"),
        ("sliding 3", hf_and_masks(sliding_window_overlay(3), causal_mask_function), "window=3"),
        ("bidirectional sliding 2", hf_and_masks(sliding_window_bidirectional_overlay(2), bidirectional_mask_function),
         "window=3,symmetric"),
        ("chunked 3, left padding 2", hf_and_masks(chunked_overlay(3, torch.tensor([2])), causal_mask_function),
         "chunk=3,offset=2"),
        ("chunked 4, left padding 6", hf_and_masks(chunked_overlay(4, torch.tensor([6])), causal_mask_function),
         "chunk=4,offset=6"),
        ("causal + padding", hf_and_masks(causal_mask_function, padding_mask_function(pad)), "padding=1,2"),
        ("bidirectional + padding", hf_and_masks(bidirectional_mask_function, padding_mask_function(pad)),
         "none & padding=1,2"),
        ("chunked + padding", hf_and_masks(chunked_overlay(3, torch.tensor([2])), causal_mask_function,
                                           padding_mask_function(pad)), "chunk=3,offset=2 & padding=1,2"),
        ("packed, causal", hf_and_masks(causal_mask_function, packed_sequence_mask_function(ids)),
         "segments=0,0,0,1,1,2,2,2"),
        ("packed, bidirectional", packed_sequence_mask_function(ids), "documents=0,0,0,1,1,2,2,2"),
        ("sliding or packed", hf_or_masks(hf_and_masks(sliding_window_overlay(2), causal_mask_function),
                                          packed_sequence_mask_function(ids)), "window=2 | documents=0,0,0,1,1,2,2,2"),
    ]


@pytest.mark.parametrize("n_q", [8, 5, 1])  # a prompt, then decoding with a cache of 3 and of 7
@pytest.mark.parametrize("name, hf_mask, text", _hf_cases(), ids=[c[0] for c in _hf_cases()])
def test_hugging_face_masks(name, hf_mask, text, n_q):
    assert attnviz_cells(text, n_q, 8, "bottom-right") == hf_cells(hf_mask, n_q, 8)


def test_hugging_face_chunked_with_left_padding_is_not_plain_chunked():
    """The case the issue names: without the offset, 6 cells of this grid differ."""
    hf = hf_cells(hf_and_masks(chunked_overlay(4, torch.tensor([2])), causal_mask_function), 8, 8)
    plain = attnviz_cells("chunk=4", 8, 8)
    assert sum(a != b for ra, rb in zip(hf, plain) for a, b in zip(ra, rb)) > 0
    assert attnviz_cells("chunk=4,offset=2", 8, 8) == hf


# --- Mask code pasted as written ---

def sliding_window_causal(b, h, q_idx, kv_idx):  # PyTorch's FlexAttention docs
    causal_mask = q_idx >= kv_idx
    window_mask = q_idx - kv_idx <= 2
    return causal_mask & window_mask


def symmetric(b, h, q_idx, kv_idx):
    return torch.abs(q_idx - kv_idx) <= 1


def with_new_zeros(b, h, q_idx, kv_idx):
    return q_idx.new_zeros((), dtype=torch.bool) | (kv_idx == 0) | (q_idx == kv_idx)


DOCUMENT_ID = torch.tensor([0, 0, 1, 1, 1, 2])


def document_causal(b, h, q_idx, kv_idx):  # attention-gym: tensor indexing by q_idx
    return (DOCUMENT_ID[q_idx] == DOCUMENT_ID[kv_idx]) & (q_idx >= kv_idx)


def int_only(q_idx, kv_idx):  # Python `and`: FlexAttention cannot vmap it; attnviz calls it with ints
    return kv_idx <= q_idx and (q_idx - kv_idx) % 2 == 0


PASTED = [
    (sliding_window_causal, "window=3"),
    (symmetric, "window=2,symmetric"),
    (with_new_zeros, None),
    (document_causal, "segments=0,0,1,1,1,2"),
    (and_masks(lambda b, h, q, kv: q >= kv, symmetric), "causal & window=2,symmetric"),
    (or_masks(symmetric, lambda b, h, q, kv: kv == 0), "window=2,symmetric | padding=2,3,4,5,6"),
]


@pytest.mark.parametrize("function, same_as", PASTED)
def test_pasted_mask_mods_draw_what_flex_attention_computes(function, same_as):
    fig = attnviz.figure([[1]] * 6, [[1]] * 6, mask=function)
    assert fig.attention.kept == flex_cells(function, 6, 6)
    if same_as is not None:
        assert fig.attention.kept == attnviz_cells(same_as, 6, 6)
    assert fig.attention.mask.rule.startswith("(i,j) where ")


def test_with_new_zeros_keeps_the_first_key_and_the_diagonal():
    kept = attnviz.figure([[1]] * 3, [[1]] * 3, mask=with_new_zeros).attention.kept
    assert kept == ((True, False, False), (True, True, False), (True, False, True))


def test_int_only_functions_still_work():
    kept = attnviz.figure([[1]] * 4, [[1]] * 4, mask=int_only).attention.kept
    assert kept == tuple(tuple(j <= i and (i - j) % 2 == 0 for j in range(4)) for i in range(4))


def test_a_thousand_tokens_evaluate_at_once():
    mask = resolve(document_mod(1024), 1024, 1024)
    assert mask.runs(1023) == ((768, 1024),)


def document_mod(n):
    ids = torch.arange(n) // 256

    def same_document(b, h, q_idx, kv_idx):
        return ids[q_idx] == ids[kv_idx]

    return same_document


def test_without_torch(monkeypatch):
    monkeypatch.setattr(mask_functions, "_torch_available", lambda: False)
    kept = attnviz.figure([[1]] * 3, [[1]] * 3, mask=lambda b, h, q, kv: q >= kv).attention.kept
    assert kept == ((True, False, False), (True, True, False), (True, True, True))
    with pytest.raises(InputError) as err:
        attnviz.figure([[1]] * 3, [[1]] * 3, mask=symmetric)
    assert str(err.value) == ("mask: symmetric(0, 0) raised TypeError: abs(): argument 'input' (position 1) must be "
                              "Tensor, not int; it expects torch tensors: pip install 'attnviz[torch]' to "
                              "evaluate it as FlexAttention does")


def test_names_and_rules_given_with_the_function():
    fig = attnviz.figure([[1]] * 3, [[1]] * 3, mask=attnviz.Mask(symmetric, name="local", rule="|i-j|<=1"))
    assert fig.words.note.endswith("local mask keeps |i-j|<=1")

    def documented(q_idx, kv_idx):
        """Keys at most one back.

        More words that are not shown."""
        return (q_idx >= kv_idx) & (q_idx - kv_idx <= 1)

    fig = attnviz.figure([[1]] * 3, [[1]] * 3, mask=documented)
    assert fig.words.note.endswith(
        'custom mask keeps (i,j) where documented(i-1,j-1) is true: "Keys at most one back."')


def _keep(q_idx, kv_idx):
    return q_idx >= kv_idx


@pytest.mark.parametrize("kwargs, message", [
    ({"name": "a\x07b"}, "mask: name=: control character U+0007 at position 2 cannot be shown in SVG; remove it"),
    ({"rule": "i>=j \u202e reversed"}, "mask: rule=: bidi control U+202E (RIGHT-TO-LEFT OVERRIDE) at position 6 "
                                       "could reorder the text around it"),
    ({"name": "\u2069x"}, "mask: name=: bidi control U+2069 (POP DIRECTIONAL ISOLATE) at position 1"),
    ({"name": "n" * 101}, "mask: name=: 101 characters; the limit is 100"),
    ({"rule": "r" * 301}, "mask: rule=: 301 characters; the limit is 300"),
])
def test_names_and_rules_are_checked_as_user_text(kwargs, message):
    with pytest.raises(InputError) as err:
        attnviz.Mask(_keep, **kwargs)
    assert str(err.value).startswith(message)


def test_a_docstring_shown_in_the_caption_is_checked_as_user_text():
    def coloured(q_idx, kv_idx):
        """Keeps the past \x1b[31min red."""
        return q_idx >= kv_idx

    def overridden(q_idx, kv_idx):
        """Keeps \u202ethe past."""
        return q_idx >= kv_idx

    for function, message in ((coloured, "mask: coloured's docstring: control character U+001B at position 16"),
                              (overridden, "mask: overridden's docstring: bidi control U+202E")):
        with pytest.raises(InputError) as err:
            attnviz.figure([[1]] * 3, [[1]] * 3, mask=function)
        assert str(err.value).startswith(message)


def test_right_to_left_names_and_docstrings_are_drawn():
    def hebrew(q_idx, kv_idx):
        """שומר את העבר."""
        return q_idx >= kv_idx

    fig = attnviz.figure([[1]] * 3, [[1]] * 3, mask=attnviz.Mask(hebrew, name="סיבתי"))
    assert 'סיבתי mask keeps (i,j) where hebrew(i-1,j-1) is true: "שומר את העבר."' in fig.words.note
    svg = fig.svg()
    assert "סיבתי" in svg and "שומר את העבר." in svg
