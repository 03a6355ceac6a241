"""A mask given as a numpy array or torch tensor, read as the library that made it means it.

A boolean matrix keeps its True cells (FlexAttention's `create_mask`, transformers' sdpa masks). An additive float
mask, 0 where a cell is kept and -inf (or the dtype's most negative number, as transformers' eager masks write it)
where it is masked, is read as that: kept where it is 0. FlexAttention's `create_mask` gives [B, H, Q, K]: one batch
row and one head (B = H = 1) is that matrix; more is refused in one line naming `mask[b, h]`. A tensor on a GPU is read
through `.cpu()`; one on the meta device has no values and is refused.
"""

from __future__ import annotations

import math

from ..numbers.arrays import is_tensor
from ..numbers.exact import InputError

TYPE_CHECKING = False  # a type checker takes it as True
if TYPE_CHECKING:
    from typing import Any

__all__ = ["mask_rows"]

#: The most negative finite number of each float dtype: transformers' eager masks write it where a cell is masked.
_MOST_NEGATIVE = {"float16": -65504.0, "bfloat16": -3.3895313892515355e38, "float32": -3.4028234663852886e38,
                  "float64": -1.7976931348623157e308}


def mask_rows(value: object, where: str) -> tuple[tuple[bool, ...], ...]:
    """The kept cells of a boolean or additive (0 / -inf) mask array, as rows of bools."""
    dtype = str(getattr(value, "dtype", "")).removeprefix("torch.")
    shape = tuple(getattr(value, "shape", ()))
    if is_tensor(value) and str(getattr(value, "device", "cpu")) == "meta":
        raise InputError("a tensor on the meta device has no values: give one on the CPU or a GPU", where)
    if len(shape) > 2 and all(n == 1 for n in shape[:-2]):
        value, shape = _first(value, len(shape) - 2), shape[-2:]
    if len(shape) != 2:
        raise InputError(f"an array of shape {shape} as a mask: give one (queries, keys) matrix, e.g. mask[b, h] of "
                         "FlexAttention's (batch, heads, queries, keys) mask", where)
    source: Any = value.detach().cpu() if is_tensor(value) else value  # type: ignore[attr-defined]
    rows = source.tolist()
    if dtype == "bool":
        return tuple(tuple(bool(x) for x in row) for row in rows)
    if dtype.startswith(("float", "bfloat")):
        return _additive(rows, dtype, where)
    raise InputError(f"a {dtype} array as a mask: give a boolean matrix (True keeps a cell), e.g. create_mask(...)"
                     "[0, 0], or 0s and 1s cast with .astype(bool)", where)


def _first(value: object, count: int) -> object:
    for _ in range(count):
        value = value[0]  # type: ignore[index]
    return value


def _additive(rows: list[list[float]], dtype: str, where: str) -> tuple[tuple[bool, ...], ...]:
    """An additive mask's kept cells (0), if every entry is 0 or a masking value (-inf, the dtype's most negative)."""
    masking = {-math.inf, _MOST_NEGATIVE.get(dtype, -math.inf)}
    if all(x == 0 or x in masking for row in rows for x in row):
        return tuple(tuple(x == 0 for x in row) for row in rows)
    raise InputError(f"a {dtype} array as a mask, not 0 and -inf (an additive mask): give a boolean matrix (True "
                     "keeps a cell); an additive mask keeps its cells that are 0, mask == 0", where)
