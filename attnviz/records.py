"""Records: the part of `dataclasses` the figure's data types use, without its import cost.

`import dataclasses` imports `inspect` (and with it `ast`, `dis`, `tokenize`): about 8 ms, a quarter of what `attnviz
render` may take in all (issue 15). The types on the command's path need only fields from annotations with defaults,
`__init__`, `repr`, equality, hashing, frozen instances, `__slots__`, `replace` and `fields`; this module gives exactly
those, spelled as `dataclasses` spells them, so a class reads the same either way. Modules off the command's path
(pages, documents, slides) use `dataclasses` itself.

>>> @dataclass(frozen=True)
... class Point:
...     x: int
...     y: int = 0
...     tag: str = field(default="", repr=False)
>>> p = Point(1, y=2)
>>> p, replace(p, y=3), p == Point(1, 2), hash(p) == hash(Point(1, 2))
(Point(x=1, y=2), Point(x=1, y=3), True, True)
>>> p.x = 5
Traceback (most recent call last):
...
attnviz.records.FrozenInstanceError: cannot assign to field 'x'

Code that uses `dataclasses` itself on a record works too:

>>> import dataclasses
>>> dataclasses.replace(p, x=7), [f.name for f in dataclasses.fields(p)], dataclasses.asdict(p)
(Point(x=7, y=2), ['x', 'y', 'tag'], {'x': 1, 'y': 2, 'tag': ''})
"""

from __future__ import annotations

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar, dataclass_transform

    _T = TypeVar("_T")
else:
    def dataclass_transform(**options):  # typing's, for type checkers only: the command never imports `typing`
        return lambda function: function

__all__ = ["dataclass", "field", "fields", "replace", "FrozenInstanceError"]

_MISSING = object()


class FrozenInstanceError(AttributeError):
    """Assigning to a field of a frozen record."""


class Field:
    __slots__ = ("name", "default", "default_factory", "repr")

    def __init__(self, default: Any = _MISSING, default_factory: Any = _MISSING, repr: bool = True) -> None:
        self.name: Any = None  # the field's name (a str) once its record class is made
        self.default, self.default_factory, self.repr = default, default_factory, repr

    def __repr__(self) -> str:
        return f"Field(name={self.name!r})"


def field(*, default: Any = _MISSING, default_factory: Any = _MISSING, repr: bool = True) -> Any:
    """A field with a default, a default factory (for mutable defaults) or left out of repr()."""
    return Field(default, default_factory, repr)


def fields(record: Any) -> tuple[Field, ...]:
    """The record's (or record class's) fields, in declaration order."""
    found: tuple[Field, ...] = record.__record_fields__
    return found


def replace(record: _T, **changes: Any) -> _T:
    """A copy of `record` with some fields changed."""
    values: dict[str, Any] = {f.name: getattr(record, f.name) for f in fields(record)}
    unknown = changes.keys() - values.keys()
    if unknown:
        raise TypeError(f"{type(record).__name__} has no field {sorted(unknown)[0]!r}")
    return type(record)(**{**values, **changes})


@dataclass_transform(field_specifiers=(field, Field))
def dataclass(cls: type[_T] | None = None, /, *, frozen: bool = False, slots: bool = False) -> Any:
    """Add `__init__`, `__repr__`, `__eq__` (and, when frozen, `__hash__` and no assignment) to `cls`."""
    return (lambda cls: _make_record(cls, frozen, slots)) if cls is None else _make_record(cls, frozen, slots)


def _make_record(cls: type[_T], frozen: bool, slots: bool) -> type[_T]:
    own = cls.__dict__
    record_fields: list[Field] = []
    for name in own.get("__annotations__", {}):
        value = own.get(name, _MISSING)
        spec = value if isinstance(value, Field) else Field(default=value)
        spec.name = name
        record_fields.append(spec)
    body: dict[str, Any] = {key: value for key, value in own.items()
            if key not in ("__dict__", "__weakref__") and not (slots and key in own.get("__annotations__", {}))}
    for spec in record_fields:  # a Field marker is no class attribute; a plain default stays one (as dataclasses)
        if isinstance(body.get(spec.name), Field):
            if spec.default is _MISSING:
                del body[spec.name]
            else:
                body[spec.name] = spec.default
    if slots:
        body["__slots__"] = tuple(spec.name for spec in record_fields)
    body["__record_fields__"] = tuple(record_fields)
    body["__dataclass_fields__"] = _AsDataclass()
    # A frozen record with slots sets its fields through their slots (made with the class): its __init__ after.
    direct = frozen and slots and "__init__" not in own
    generated = _methods(cls.__qualname__, record_fields, frozen, init=not direct)
    for name, method in generated.items():
        if name not in own:  # a method the class writes itself wins, as with dataclasses
            body[name] = method
    if not frozen and "__eq__" not in own:
        body["__hash__"] = None  # mutable and compared by value: unhashable
    metaclass: Any = type(cls)
    made: type[_T] = metaclass(cls.__name__, cls.__bases__, body)
    if direct:
        slot_setters = {spec.name: vars(made)[spec.name].__set__ for spec in record_fields}
        type.__setattr__(made, "__init__", _init(cls.__qualname__, record_fields, slot_setters))
    return made


def _methods(qualname: str, record_fields: list[Field], frozen: bool,
             init: bool = True) -> dict[str, Callable[..., Any]]:
    """The record's methods (`init`: its __init__ too). Only __init__ is compiled, as one lambda (its
    signature names the fields); the rest are shared functions that read `__record_fields__`: defining a
    record costs one small compile."""
    methods: dict[str, Callable[..., Any]] = {"__repr__": _repr, "__eq__": _eq}
    if init:
        methods["__init__"] = _init(qualname, record_fields, None if frozen else {})
    if frozen:
        methods.update(__hash__=_hash, __setattr__=_no_setattr, __delattr__=_no_delattr)
    return methods


def _init(qualname: str, record_fields: list[Field], slot_setters: dict[str, Any] | None) -> Callable[..., None]:
    """__init__ as one compiled lambda. `slot_setters`: each field's slot's `__set__` (a frozen record with
    slots: the fastest way past its refusing __setattr__), {} for a mutable record (plain assignment), None
    for a frozen record without slots (`object.__setattr__`)."""
    params: list[str] = []
    sets: list[str] = []
    env: dict[str, Any] = {"_MISSING": _MISSING, "_set": object.__setattr__}
    for spec in record_fields:
        value = spec.name
        if spec.default_factory is not _MISSING:
            env[f"_factory_{spec.name}"] = spec.default_factory
            params.append(f"{spec.name}=_MISSING")
            value = f"_factory_{spec.name}() if {spec.name} is _MISSING else {spec.name}"
        elif spec.default is not _MISSING:
            env[f"_default_{spec.name}"] = spec.default
            params.append(f"{spec.name}=_default_{spec.name}")
        else:
            params.append(spec.name)
        if slot_setters:
            env[f"_set_{spec.name}"] = slot_setters[spec.name]
            sets.append(f"_set_{spec.name}(self, {value})")
        else:
            sets.append(f"setattr(self, {spec.name!r}, {value})" if slot_setters == {} else
                        f"_set(self, {spec.name!r}, {value})")
    # "(set, set, ...) and None": one expression that assigns every field and returns None
    body = f"({''.join(f'{s}, ' for s in sets)}) and None" if sets else "None"
    init: Callable[..., None] = eval(f"lambda {', '.join(['self', *params])}: {body}", env)  # noqa: S307 - field names only
    init.__name__, init.__qualname__ = "__init__", f"{qualname}.__init__"
    return init


class _AsDataclass:
    """`dataclasses.replace`, `fields` and `asdict` work on records too (code off the command's path uses
    them): the record's fields as dataclasses' own Field objects, made the first time one is asked for."""

    def __get__(self, instance: object, owner: type) -> dict[str, Any]:
        import dataclasses  # off the command's path: only code that asks for the fields pays for it

        made: dict[str, Any] = {}
        for spec in fields(owner):
            if spec.default_factory is not _MISSING:
                made[spec.name] = dataclasses.field(default_factory=spec.default_factory, repr=spec.repr)
            else:
                made[spec.name] = dataclasses.field(default=spec.default if spec.default is not _MISSING
                                                    else dataclasses.MISSING, repr=spec.repr)
            made[spec.name].name, made[spec.name].type = spec.name, owner.__annotations__.get(spec.name)
            made[spec.name]._field_type = vars(dataclasses)["_FIELD"]  # what fields() keeps (private: no stub)
        type.__setattr__(owner, "__dataclass_fields__", made)
        return made


def _values(record: object) -> tuple[Any, ...]:
    return tuple(getattr(record, spec.name) for spec in fields(record))


def _repr(self: object) -> str:
    # Compiled for the class on its first repr, so classes that are never printed cost no compile at import.
    cls = self.__class__
    shown = ", ".join(f"{spec.name}={{self.{spec.name}!r}}" for spec in fields(cls) if spec.repr)
    compiled = eval(f"lambda self: f'{{self.__class__.__qualname__}}({shown})'")  # noqa: S307 - field names only
    compiled.__name__, compiled.__qualname__ = "__repr__", f"{cls.__qualname__}.__repr__"
    type.__setattr__(cls, "__repr__", compiled)
    shown_text: str = compiled(self)
    return shown_text


def _eq(self: object, other: object) -> bool:
    return _values(self) == _values(other) if other.__class__ is self.__class__ else NotImplemented


def _hash(self: object) -> int:
    return hash(_values(self))


def _no_setattr(self: object, name: str, value: object) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _no_delattr(self: object, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")
