"""The words of a FlashAttention step's drawing: its tiles and each row's running state, as
`layout.flash_state` places them over and beside the grid.

m_i is written as attnviz writes numbers; ℓ_i as the named sum of its e^(…) terms (never a decimal),
each term e^(s_ij − m_i) for a kept key seen so far; the rescale factor as e^(m_old−m_new) and its
value. Before a row's first tile, m_i = −∞ and ℓ_i = 0 (`data-m="-inf"`). Each row's lines are written
twice: as the doc frame draws them (`m3 = 2`), and in notation (`m_3 = 2`) for a frame that typesets it.
"""

from __future__ import annotations

from ...words import notation
from ...layout.flash_state import FlashOverlay, StateRow, TileBox

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ...engine.tiled_softmax import FlashStep, Tile
    from ...typing import Exact

__all__ = ["flash_overlay", "ell_text", "exponent_term"]


def exponent_term(x: Exact) -> str:
    """An exact value as the term after a minus sign in an exponent: `2`, `(-1)`, `(1+√2/2)`."""
    text = notation.format_exact(x)
    return f"({text})" if text.startswith("-") or "+" in text or "-" in text[1:] else text


def ell_text(exponents: Sequence[Exact], form: str = "expanded", sink: Exact | None = None) -> str:
    """ℓ_i as attnviz names a non-pinned sum: `e^(-1)+e^0`, grouped `2e^(-1)+e^0`; `0` when empty; a sink's term
    e^(s−m) first, written `1` at e^0."""
    terms = notation.sum_terms(exponents, "grouped" if form == "grouped" else "expanded")
    first = [] if sink is None else ["1" if sink == 0 else notation.exponential(sink)]
    return "+".join(first + [f"{n if n > 1 else ''}{notation.exponential(x)}" for n, x in terms]) or "0"


def flash_overlay(steps: Sequence[FlashStep], all_tiles: Sequence[Tile], done: int, n_q: int,
                  form: str = "expanded") -> FlashOverlay:
    """The drawing after the first `done` steps (1-based: `done` = len(steps) is the final state, no tile
    current); `form`, the figure's softmax form, writes ℓ_i."""
    current = steps[done - 1] if 0 < done <= len(steps) else None
    tiles, walked = [], 0
    for tile in all_tiles:
        is_current = False
        if not tile.skipped:
            walked += 1
            is_current = current is not None and walked == done and done <= len(steps)
        tiles.append(TileBox((tile.rows[0], tile.rows[-1]), (tile.keys[0], tile.keys[-1]), tile.skipped, is_current))
    start = steps[0].start if steps else None  # a sink logit s: every row starts at m = s, ℓ = 1
    state: dict[int, tuple[Exact, tuple[Exact, ...], Exact | None]] = {}
    before: dict[int, Exact] = {}
    for step in steps[:done]:
        before = {i: state[i][0] for i in state}
        for i in step.m:
            state[i] = (step.m[i], step.l[i], step.sink.get(i))
    rows = []
    for i in range(1, n_q + 1):
        in_tile = current is not None and i in current.rows
        # a row whose keys in this tile are all masked keeps its state: no rescale
        updated = current is not None and in_tile and any((i, j) in current.scores for j in current.keys)
        if i not in state and start is not None:  # the sink's start state
            s = notation.format_exact(start)
            rows.append(StateRow(i, s, (f"m{i} = s = {s}", f"ℓ{i} = 1"), in_tile,
                                 notation=(f"m_{i} = s = {s}", f"ℓ_{i} = 1")))
            continue
        if i not in state:
            rows.append(StateRow(i, "-inf", (f"m{i} = −∞", f"ℓ{i} = 0"), in_tile,
                                 notation=(f"m_{i} = −∞", f"ℓ_{i} = 0")))
            continue
        m, exps, sink = state[i]
        m_text = notation.format_exact(m)
        first = f" = {m_text}"  # after m_i: the doc frame writes m3, a frame that typesets m_3 (m₃)
        rescale = ""
        old_m = before.get(i, start)  # a row's first keys rescale from the sink's m = s, when there is one
        if updated and current is not None and old_m is not None and current.rescale.get(i) is not None:
            old = old_m
            factor = current.rescale[i]
            assert factor is not None  # the row had a state before this tile
            rescale = notation.format_exact(factor)
            value = "1" if rescale == "0" else notation.exponential(factor)
            first += f", rescale e^({notation.format_exact(old)}-{exponent_term(m)}) = {value}"
        elif updated and i not in before:
            first += ", its first keys"
        ell = f" = {ell_text(exps, form, sink)}"
        rows.append(StateRow(i, m_text, (f"m{i}{first}", f"ℓ{i}{ell}"), in_tile, rescale,
                             notation=(f"m_{i}{first}", f"ℓ_{i}{ell}")))
    heading = (f"running state after tile {done} of {len(steps)}" if current is not None
               else "final state: every tile done")
    return FlashOverlay(tuple(tiles), heading, tuple(rows))
