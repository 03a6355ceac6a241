"""The command's arguments read into figures and walkthroughs: flags and an optional spec, each error
named by the flag or spec key it came from."""

from __future__ import annotations

import sys

from ..errors import InputError, printable

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from argparse import Namespace
    from collections.abc import Mapping
    from typing import Any, BinaryIO

    from ..figures.composite import Composite
    from ..figures.figure import Figure

    #: What the flags and spec say a walkthrough steps through: key -> (value, where it was given).
    Walk = dict[str, tuple[Any, str]]

__all__ = ["figure_from_args", "walkthrough_from_args", "walkthrough_steps", "stdin_bytes"]


def figure_from_args(args: Namespace, walk: Walk | None = None,
                     spec: tuple[Mapping[str, Any], str] | None = None) -> Figure | Composite:
    """The figure the flags and the optional spec describe; errors name the flag or the spec key.

    `walk`, a dict, receives the walkthrough keys (flash, flash_order, decode) the spec or flags give.
    `spec`: the spec's (mapping, name), when the caller has read it already."""
    from ..figures.from_arguments import build  # start-up: --version and --help draw no figure
    from ..io.spec import KEYS, TEXT_READERS, WALKTHROUGH_KEYS, read_spec, with_the_seed

    keys = KEYS if walk is None else {**KEYS, **WALKTHROUGH_KEYS}
    kwargs, origin = _spec_arguments(args, walk, spec, keys)
    # Every spec key has a flag of the same name; its text is read and checked as the spec reads it.
    for key, spec_key in keys.items():
        value = getattr(args, key, None)  # a command may not take every key (walkthrough: highlight)
        if value is not None:
            flag = f"--{key.replace('_', '-')}"
            if isinstance(value, str) and key in TEXT_READERS:
                value = TEXT_READERS[key](value, flag)
            kwargs[key] = spec_key.check(value, flag)
            origin[key] = flag
    if walk is not None:  # only then do `keys` (and so kwargs) have walkthrough keys
        walk.update({key: (kwargs.pop(key), origin[key]) for key in WALKTHROUGH_KEYS if key in kwargs})
    if getattr(args, "panels", None):  # --panel FILE, repeatable: each a figure spec
        if "panel" in kwargs:
            raise InputError("the spec has [[panel]] tables already; give panels there or as --panel files", "--panel")
        kwargs["panel"] = [_panel_arguments(read_spec(path, stdin_bytes())[0], path) for path in args.panels]
        origin["panel"] = "--panel"
    if not with_the_seed(kwargs) and ("q" in kwargs) != ("k" in kwargs):
        given, missing = ("q", "k") if "q" in kwargs else ("k", "q")
        raise InputError(f"missing: {origin[given]} gives the {given} vectors, so {missing} is needed too",
                         f"--{missing}")
    try:
        return build(kwargs, sparse_panels=walk is None)  # (a walkthrough draws a selection's panels on its own step)
    except InputError as err:
        raise err.relocated(lambda where: _relocate(where, origin)) from None


def _spec_arguments(args: Namespace, walk: Walk | None, spec: tuple[Mapping[str, Any], str] | None,
                    keys: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """(arguments, where each was given) from the spec `args.spec` names, if any (a figure spec, or a
    document's step)."""
    from ..io.spec import WALKTHROUGH_KEYS, figure_arguments, read_spec  # start-up: --help reads no spec

    step = getattr(args, "step", None)
    if step is not None and args.spec is None:
        raise InputError("needs a document spec (one with [[sections]]), e.g. attnviz render page.toml --step 2",
                         "--step")
    if args.spec is None:
        return {}, {}
    mapping, name = spec or read_spec(args.spec, stdin_bytes())
    if "sections" in mapping or step is not None:  # a document spec
        from ..publish.document import step_arguments

        return step_arguments(mapping, name, step, need_step=args.command == "render")
    if walk is None and (found := [key for key in WALKTHROUGH_KEYS if key in mapping]):
        raise InputError(f"'{found[0]}' is a walkthrough key: 'attnviz walkthrough {printable(args.spec)}' "
                         "steps through it", name)
    kwargs = figure_arguments(mapping, name, keys)
    return kwargs, {key: f"{name}: {key}" for key in kwargs}


def _panel_arguments(mapping: Mapping[str, Any], name: str) -> dict[str, Any]:
    """A `--panel` file's figure: one figure, so [[panel]] tables and `arrange` in it are refused by name."""
    from ..io.spec import COMPOSE_KEYS, KEYS, figure_arguments  # start-up: only --panel files need them

    if found := [key for key in COMPOSE_KEYS if key in mapping]:
        raise InputError("a --panel file is one figure, without [[panel]] tables or arrange; give it as the spec "
                         "to draw its panels", f"{name}: {found[0]}")
    return figure_arguments(mapping, name, {key: spec for key, spec in KEYS.items() if key not in COMPOSE_KEYS},
                            required=())


def stdin_bytes() -> BinaryIO | None:
    """Standard input as bytes; None when the command was started with it closed (`attnviz render - <&-`)."""
    return sys.stdin.buffer if sys.stdin is not None else None


def _relocate(where: str | None, origin: Mapping[str, str]) -> str | None:
    """The API names inputs `q`, `tokens: label 2`, `highlight '3,3'`; say where the user gave them."""
    if where is None:
        return None
    import re  # start-up: only an error's location needs it (the default render compiles no regex)

    match = re.match(r"q/k|\w+", where)
    if not match:
        return where
    key = match[0]
    place = " and ".join(origin.get(k, k) for k in ("q", "k")) if key == "q/k" else origin.get(key, key)
    return place + where[match.end():]


def walkthrough_from_args(args: Namespace, spec: tuple[Mapping[str, Any], str] | None = None) -> tuple[Any, Any]:
    """(Document, figures) of the walkthrough the flags and the optional spec describe.
    `spec`: the spec's (mapping, name), when the caller has read it already."""
    walk: Walk = {}
    fig = figure_from_args(args, walk, spec)
    from ..figures.heads import HeadsFigure  # start-up: only a walkthrough asks
    from ..publish.walkthrough.api import check_walkable

    if isinstance(fig, HeadsFigure):
        if walk:
            key, (_, where) = next(iter(walk.items()))
            raise InputError(f"steps through one head; for several heads the walkthrough goes head by head (give q "
                             f"and k for one head to step through {key})", where)
        for panel in fig.panels:
            check_walkable(panel)
        from ..publish.walkthrough.heads import heads_walkthrough  # start-up: only a walkthrough of several heads

        try:
            return heads_walkthrough(fig)
        except InputError as err:  # named as the user gave the heads: the flag, or the spec's key
            given = "--q-heads" if args.q_heads is not None else f"{printable(args.spec)}: q_heads"
            raise err.relocated(lambda where: given if where == "q_heads" else where) from None
    check_walkable(fig, scores_view=bool(walk.keys() & {"flash", "decode", "split_kv"}))  # compact as scores too
    return walkthrough_steps(fig, walk)


def walkthrough_steps(fig: Any, walk: Walk) -> tuple[Any, Any]:
    """(Document, figures) of the walkthrough `walk` asks for: flash tiles, decoding, or the default."""
    chosen = [key for key in ("flash", "decode", "split_kv") if key in walk]
    if len(chosen) > 1:
        raise InputError("choose one walkthrough: FlashAttention tiles, KV-cache decoding or Flash-Decoding's chunks",
                         " and ".join(walk[key][1] for key in chosen))
    if "flash_order" in walk and "flash" not in walk:
        raise InputError("orders FlashAttention's tiles: give the tiles too (--flash BR,BC)", walk["flash_order"][1])
    if not chosen:
        from ..publish.walkthrough.scores import walkthrough  # start-up: each walkthrough loads only its own steps

        return walkthrough(fig)
    places: dict[str | None, str | None] = {key: where for key, (_, where) in walk.items()}
    try:  # flash_walkthrough and decode_walkthrough check their values themselves: errors name the flag
        if "flash" in walk:
            from ..publish.walkthrough.flash import flash_walkthrough  # start-up: only its own steps

            return flash_walkthrough(fig, walk["flash"][0], walk.get("flash_order", ("fa2", ""))[0])
        if "split_kv" in walk:
            from ..publish.walkthrough.flash_decoding import split_kv_walkthrough  # start-up: only its own steps

            return split_kv_walkthrough(fig, walk["split_kv"][0])
        from ..publish.walkthrough.decode import decode_walkthrough  # start-up: only its own steps

        return decode_walkthrough(fig, walk["decode"][0])
    except InputError as err:
        raise err.relocated(lambda at: places.get(at, at)) from None
