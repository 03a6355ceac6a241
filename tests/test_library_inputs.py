"""Issue 36: inputs as the libraries give them (additive masks, FlexAttention's 4-D masks, tensors on any device),
and positions the SVG's data attributes count the same way in every view."""

import re

import numpy as np
import pytest
import torch

import attnviz
from attnviz.engine.masks import resolve


def _cells(mask, n):
    return [[bool(mask.keep(i, j)) for j in range(n)] for i in range(n)]


def test_a_transformers_additive_mask_is_read_as_it_is_meant():
    from transformers.masking_utils import (and_masks, causal_mask_function, eager_mask, sdpa_mask,
                                            sliding_window_overlay)

    n = 5
    keep = torch.tril(torch.ones(n, n, dtype=torch.bool)) & ~torch.tril(torch.ones(n, n, dtype=torch.bool), -2)
    expected = keep.tolist()
    for additive in (torch.zeros(n, n).masked_fill(~keep, float("-inf")),
                     torch.zeros(n, n).masked_fill(~keep, torch.finfo(torch.float32).min),
                     torch.zeros(n, n, dtype=torch.float16).masked_fill(~keep, torch.finfo(torch.float16).min),
                     np.where(keep.numpy(), 0.0, -np.inf)):
        assert _cells(resolve(additive, n, n), n) == expected
    # transformers' own masks of the same pattern, as a model gets them: [B, H, Q, K], boolean (sdpa) and additive
    # (eager: 0 and the dtype's most negative number)
    pattern = and_masks(causal_mask_function, sliding_window_overlay(2))
    boolean = sdpa_mask(batch_size=1, q_length=n, kv_length=n, mask_function=pattern, allow_is_causal_skip=False)
    additive = eager_mask(batch_size=1, q_length=n, kv_length=n, mask_function=pattern, dtype=torch.float32)
    for made in (boolean, additive):
        assert tuple(made.shape) == (1, 1, n, n) and _cells(resolve(made, n, n), n) == expected


def test_a_float_mask_of_other_values_names_mask_eq_0_not_a_cast_that_inverts_it():
    with pytest.raises(attnviz.InputError) as caught:
        attnviz.figure(mask=np.ones((3, 3)))
    assert "mask == 0" in str(caught.value) and ".astype(bool)" not in str(caught.value)
    with pytest.raises(attnviz.InputError, match="mask == 0"):
        attnviz.figure(mask=torch.tensor([[0.0, -1.0, -1.0]] * 3))


def test_flexattentions_4d_create_mask_is_taken_when_it_is_one_matrix():
    from torch.nn.attention.flex_attention import create_mask

    def window(b, h, q, kv):
        return (q - kv >= 0) & (q - kv < 2)

    one = create_mask(window, 1, 1, 4, 4, device="cpu")
    assert _cells(resolve(one, 4, 4), 4) == _cells(resolve("window=2", 4, 4), 4)
    many = create_mask(window, 2, 3, 4, 4, device="cpu")
    with pytest.raises(attnviz.InputError) as caught:
        attnviz.figure(view="mask", n=4, mask=many)
    assert "(2, 3, 4, 4)" in str(caught.value) and "mask[b, h]" in str(caught.value)
    assert _cells(resolve(many[1, 2], 4, 4), 4) == _cells(resolve("window=2", 4, 4), 4)


def test_a_meta_tensor_is_refused_in_one_line():
    for where in ("q", "mask"):
        meta = torch.zeros(3, 3, device="meta", dtype=torch.bool if where == "mask" else torch.float32)
        with pytest.raises(attnviz.InputError, match="meta device has no values") as caught:
            attnviz.figure(**({"q": meta, "k": [[1, 0, 0]] * 3} if where == "q" else {"view": "mask", "mask": meta}))
        assert "\n" not in str(caught.value)


def test_data_q_and_data_k_count_from_1_in_every_view_and_base(tmp_path):
    for base in (0, 1):
        full = attnviz.figure([[1], [2], [3]], [[1], [2], [3]], index_base=base).svg()
        assert re.findall(r'attnviz-score" data-q="(\d+)" data-k="(\d+)"', full)[:2] == [("1", "1"), ("2", "1")]
        assert 'attnviz-softmax-row" data-q="1"' in full
        mask_map = attnviz.figure(view="mask", n=3, index_base=base).svg()
        assert re.findall(r'attnviz-row" data-q="(\d+)"><rect[^>]*data-k="([\d-]+)"', mask_map)[0] == ("1", "1-1")
    model = attnviz.model_figure({"model_type": "llama", "num_hidden_layers": 1}, n=3).svg()
    assert re.findall(r'attnviz-row" data-q="(\d+)"><rect[^>]*data-k="([\d-]+)"', model)[0] == ("1", "1-1")


def test_token_labels_name_every_row_column_value_and_output_alike():
    fig = attnviz.figure([[1, 0], [0, 1], [1, 1]], [[1, 0], [0, 1], [1, 1]], v=[[1, 2], [3, 4], [5, 6]],
                         tokens=["the", "cat", "sat"])
    words = fig.words
    assert words.q_labels == words.k_labels == ("the", "cat", "sat")
    assert words.q_line.startswith("Q(the)=") and words.k_line.startswith("K(the)=")
    assert words.more_vectors == ("V(the)=(1,2); V(cat)=(3,4); V(sat)=(5,6)",)
    assert [row.text for row in words.output_rows] == [
        "O(the) = w11·V(the) = (1,2)", "O(cat) = w21·V(the) + w22·V(cat)",
        "O(sat) = w31·V(the) + w32·V(cat) + w33·V(sat)"]
    assert "V1" not in fig.svg() and "O1" not in fig.svg()
    # repeated labels keep their positions, as the query and key lines do
    fig = attnviz.figure([[1], [2]], [[1], [2]], v=[[1], [2]], tokens=[".", "."])
    assert fig.words.more_vectors == ("V1(.)=(1); V2(.)=(2)",) and fig.words.output_rows[0].text.startswith("O1(.) = ")
