"""Pasted mask functions: keep(q_idx, kv_idx) or FlexAttention's mask_mod(b, h, q_idx, kv_idx),
evaluated over the whole grid once.

When torch is importable a function is evaluated as FlexAttention evaluates it (`create_mask`:
integer tensors, the whole grid at once), so functions built with `and_masks`/`or_masks`,
`torch.abs` or tensor indexing work as pasted; a function that only works on plain ints (Python
`and`, `if`) is then called cell by cell with ints, as it is when torch is absent.
"""

from __future__ import annotations

import contextlib
import numbers
import warnings

from .mask_families import Bound, Grid, query_position
from .runs import scan_runs
from .text_check import MAX_LABEL, MAX_TITLE, check_text
from ..numbers.exact import InputError
from ..records import dataclass

TYPE_CHECKING = False  # a type checker takes it as True
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from .runs import Runs

    Rows = tuple[tuple[bool, ...], ...]

__all__ = ["PastedFunction", "arity", "pasted_function", "bind_function", "torch_combination"]

#: FlexAttention's combinators (torch.nn.attention.flex_attention) and the combination each makes.
_TORCH_COMBINATORS = {"and_masks.<locals>.and_mask": "all", "or_masks.<locals>.or_mask": "any"}


@dataclass(frozen=True)
class PastedFunction:
    """A pasted mask function, its arity (2 or 4) and how the figure names it."""

    function: Callable[..., object]
    arity: int
    label: str  # the function's name, as the rule writes it
    name: str  # the mask's name in the figure: "custom" unless given
    rule: str | None = None  # the rule as given (rule=), shown instead of the call
    words: str | None = None  # the docstring's first line, quoted after the call


def pasted_function(function: Callable[..., object], name: str | None = None,
                    rule: str | None = None) -> PastedFunction:
    """A mask function with its arity, its label and its words, checked; `name` and `rule` as given."""
    # The name, the rule and the docstring's words are shown in the figure: checked as any user text.
    for what, text, limit in (("name", name, MAX_LABEL), ("rule", rule, MAX_TITLE)):
        if text is not None and (not isinstance(text, str) or not text.strip()):
            raise InputError(f"{what}= must be a non-empty string", "mask")
        if text is not None:
            check_text(text, f"mask: {what}=", limit)
    import inspect  # costly at start-up, and only a pasted function needs it

    label = getattr(function, "__name__", "keep")
    label = label if isinstance(label, str) and label.isidentifier() else "keep"  # "<lambda>"
    doc = inspect.getdoc(function) if inspect.isfunction(function) else None
    words = " ".join(doc.strip().split("\n\n")[0].split())[:120] if doc and doc.strip() else None
    if words is not None:
        check_text(words, f"mask: {label}'s docstring")
    positional = arity(function)
    if positional not in (2, 4):
        raise InputError(f"a mask function takes (q_idx, kv_idx) or FlexAttention's (b, h, q_idx, kv_idx); "
                         f"this one takes {positional} arguments", "mask")
    return PastedFunction(function, positional, label, name or "custom", rule, words)


def torch_combination(function: object) -> tuple[str, tuple[Callable[..., object], ...]] | None:
    """("all" | "any", its mask_mods) for a function made by FlexAttention's `and_masks`/`or_masks`, whose
    parts attnviz can see (the closure holds them); None for any other function. The combination is then
    captioned and evaluated from its parts: the same cells, each part's own rule."""
    if getattr(function, "__module__", None) != "torch.nn.attention.flex_attention":
        return None
    op = _TORCH_COMBINATORS.get(getattr(function, "__qualname__", ""))
    code, closure = getattr(function, "__code__", None), getattr(function, "__closure__", None)
    if op is None or code is None or not closure or "mask_mods" not in code.co_freevars:
        return None
    parts = closure[code.co_freevars.index("mask_mods")].cell_contents
    if not isinstance(parts, tuple) or not parts or not all(callable(part) for part in parts):
        return None
    return op, parts


def bind_function(fn: PastedFunction, grid: Grid) -> Bound:
    """A pasted function on the grid: every cell's answer, worked out once."""
    n_k, offset = grid.n_k, grid.offset
    # Under bottom-right alignment the function sees each query's absolute position (i + offset), as the
    # figure's other masks do: it is evaluated on the keys' square grid and the queries' rows are taken.
    rows = _evaluate(fn, grid.n_q + offset, n_k)[offset:] if offset > 0 else _evaluate(fn, grid.n_q, n_k)
    row_runs: list[Runs] = [scan_runs(row.__getitem__, n_k) for row in rows]

    def rule(base: int) -> str:
        if fn.rule is not None:
            return fn.rule
        shift = "-1" if base == 1 else ""
        query = query_position(offset - grid.shift, -base) if offset > 0 or grid.shift else f"i{shift}"
        call = f"(i,j) where {fn.label}({query},j{shift}) is true"
        return f'{call}: "{fn.words}"' if fn.words else call

    return Bound(fn.name, rule, lambda i, j: rows[i][j], row_runs.__getitem__, offset > 0)


def _evaluate(fn: PastedFunction, n_q: int, n_k: int) -> Rows:
    """Every cell's answer, as rows of bools: with torch as FlexAttention computes it, else with ints."""
    torch_rows = _evaluate_with_torch(fn, n_q, n_k)
    if torch_rows is not None:
        return torch_rows
    function = fn.function
    call: Callable[[int, int], object] = function if fn.arity == 2 else (lambda i, j: function(0, 0, i, j))
    rows = []
    for i in range(n_q):
        row = []
        for j in range(n_k):
            try:
                result = call(i, j)
            except Exception as err:  # noqa: BLE001 - the user's code: report it as their input's problem
                raise InputError(f"{fn.label}({i}, {j}) raised {type(err).__name__}: {err}" + _needs_torch(err),
                                 "mask") from None
            row.append(_truth(result, f"{fn.label}({i}, {j})"))
        rows.append(tuple(row))
    return tuple(rows)


def _needs_torch(err: Exception) -> str:
    """A hint when a function failed on plain ints because it expects torch tensors."""
    text = str(err)
    if ("'int' object" in text or "must be Tensor" in text or "torch" in text) and not _torch_available():
        return "; it expects torch tensors: pip install 'attnviz[torch]' to evaluate it as FlexAttention does"
    return ""


def _torch_available() -> bool:
    import importlib.util  # only to look for torch, when a function is pasted

    return importlib.util.find_spec("torch") is not None


def _evaluate_with_torch(fn: PastedFunction, n_q: int, n_k: int) -> Rows | None:
    """FlexAttention's own evaluation (`create_mask`, vmapped over the grid), or None when torch is
    absent or the function needs plain ints (Python `and`, `if` on a value)."""
    if not _torch_available():
        return None
    # torch is optional and slow to import: only a pasted function, with torch installed, loads it
    import torch
    from torch.nn.attention.flex_attention import create_mask

    function = fn.function
    # The user's function, as FlexAttention takes it (what it returns is checked below).
    mask_mod: Callable[..., Any] = function if fn.arity == 4 else (lambda b, h, q_idx, kv_idx: function(q_idx, kv_idx))
    try:
        with warnings.catch_warnings():  # a function that is not vmappable may warn on its way to failing
            warnings.simplefilter("ignore")
            grid = create_mask(mask_mod, 1, 1, n_q, n_k, device="cpu")[0, 0]
    except Exception:  # noqa: BLE001 - not vmappable: evaluated cell by cell with ints instead
        return None
    if not isinstance(grid, torch.Tensor) or tuple(grid.shape) != (n_q, n_k):
        return None
    if grid.dtype != torch.bool:
        if grid.dtype.is_floating_point or grid.dtype.is_complex or not bool(((grid == 0) | (grid == 1)).all()):
            return None  # not a truth value: the cell-by-cell path says which cell and what it returned
        grid = grid.bool()
    cells: list[list[bool]] = grid.tolist()
    return tuple(tuple(row) for row in cells)


def _truth(result: object, call: str) -> bool:
    """A mask function's answer as a bool. Only a truth value counts (True/False, 0/1, or a one-element
    array or tensor of one): a truthy string such as "no" must not silently keep a cell."""
    value, item = result, getattr(result, "item", None)
    if callable(item):  # numpy scalars and arrays, torch tensors
        with contextlib.suppress(ValueError, RuntimeError):  # several values: reported below with the shape
            value = item()
    if isinstance(value, numbers.Integral) and value in (0, 1):
        return bool(value)
    shape = getattr(result, "shape", None)
    what = f"an array of shape {tuple(shape)}" if shape else repr(result) if len(repr(result)) <= 40 else \
        type(result).__name__
    raise InputError(f"{call} returned {what}; it must return True or False", "mask")


def arity(function: Callable[..., object]) -> int:
    """How many positional arguments without a default `function` takes (2 for `*args`, or when it cannot
    say): a mask function takes 2 or 4 (a mask_mod), a bias 2 or 5 (a score_mod)."""
    import inspect  # costly at start-up, and only a pasted function needs it

    try:
        params = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return 2
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return 2
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty for p in params)
