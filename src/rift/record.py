"""`@record`: what `@dataclass` gives rift's classes, at a fraction of its import cost.

Why: generating a dataclass runs `exec` once per method (`__init__`, `__repr__`,
`__eq__`, `__hash__`, `__setattr__`, `__delattr__`) on top of its field
machinery, ~1 ms a class on a loaded 2-core machine; the ~70 dataclasses on the
`-p` and `--serve` paths cost more than the interpreter's whole startup. A
record compiles one `__init__` per class (so construction stays exactly as fast)
and shares the other methods, which work off the field tuple.

    @record                              dataclass(frozen=True, slots=True)
    @record(frozen=False)                dataclass(slots=True)
    @record(frozen=False, slots=False)   dataclass()

What a record keeps of those: positional or keyword construction with defaults
(`field(default_factory=...)` for mutable ones, `field(init=False)` for fields
`__post_init__` sets), `__post_init__`, `__slots__`, equality by fields (and a
hash when frozen; none when mutable), the dataclass repr, immutability when
frozen, `ClassVar` annotations left alone, methods and properties, and
`replace(obj, **changes)`. No inheritance between records (rift has none).
Type checkers read it as a dataclass (`typing.dataclass_transform`).

The `__init__` is compiled on a class's first construction, not at decoration:
most of the records a process defines are never built in a given run (a
`--serve` start defines ~60 and builds ~15), and each compile is a parse, a
symbol table and an assembly (measured: ~5% of a `--serve` start's
instructions). Field order is still checked at decoration.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, dataclass_transform, overload

T = TypeVar("T")

_set = object.__setattr__
_NO_DEFAULT = object()


class _Field:
    """The class-body stand-in for `field(...)`, read and removed by `@record`."""

    __slots__ = ("factory", "init")

    def __init__(self, factory: Callable[[], Any] | None, init: bool) -> None:
        self.factory = factory
        self.init = init


@overload
def field(*, default_factory: Callable[[], T], init: bool = True) -> T: ...


@overload
def field(*, init: bool = ...) -> Any: ...


def field(*, default_factory: Callable[[], Any] | None = None, init: bool = True) -> Any:
    """A default made fresh for every instance (a list, a dict, another record), or, with
    `init=False`, a field `__init__` does not take (`__post_init__` sets it)."""
    return _Field(default_factory, init)


def _values(obj: Any) -> tuple[Any, ...]:
    return tuple(getattr(obj, f) for f in obj.__record_fields__)


def _eq(self: object, other: object) -> bool:
    if type(other) is not type(self):
        return NotImplemented  # type: ignore[no-any-return]  # typeshed types it as Any
    return bool(_values(self) == _values(other))


def _hash(self: Any) -> int:
    return hash((type(self), _values(self)))


def _repr(self: Any) -> str:
    inner = ", ".join(f"{f}={getattr(self, f)!r}" for f in self.__record_fields__)
    return f"{type(self).__qualname__}({inner})"


def _frozen_setattr(self: Any, name: str, value: object) -> None:
    raise AttributeError(f"{type(self).__name__} is immutable: cannot assign {name!r}")


def _frozen_delattr(self: Any, name: str) -> None:
    raise AttributeError(f"{type(self).__name__} is immutable: cannot delete {name!r}")


def _fields(cls: type[Any]) -> list[tuple[str, Any]]:
    """(name, default or `_Field` or `_NO_DEFAULT`) per field, in declaration order."""
    own = cls.__dict__.get("__annotations__", {})  # noqa: RUF063 (no inspect import: own only)
    found = []
    for name, annotation in own.items():
        text = annotation if isinstance(annotation, str) else repr(annotation)
        if not text.startswith(("ClassVar", "typing.ClassVar")):
            found.append((name, cls.__dict__.get(name, _NO_DEFAULT)))
    return found


def _init_source(cls: type[Any], fields: list[tuple[str, Any]]) -> tuple[str, dict[str, Any]]:
    """The source of `__init__` with the fields as parameters, and the names it uses."""
    params, lines = ["self"], []
    scope: dict[str, Any] = {"_set": _set}
    has_default = False
    for name, default in fields:
        if isinstance(default, _Field) and not default.init:
            if default.factory is not None:
                scope[f"_f_{name}"] = default.factory
                lines.append(f" _set(self, {name!r}, _f_{name}())")
            continue
        if default is _NO_DEFAULT:
            if has_default:
                raise TypeError(f"{cls.__name__}: field {name!r} without a default follows one")
            params.append(name)
            value = name
        elif isinstance(default, _Field):
            scope[f"_f_{name}"] = default.factory
            params.append(f"{name}=_f_{name}")
            value = f"_f_{name}() if {name} is _f_{name} else {name}"
        else:
            scope[f"_d_{name}"] = default
            params.append(f"{name}=_d_{name}")
            value = name
        has_default = has_default or default is not _NO_DEFAULT
        lines.append(f" _set(self, {name!r}, {value})")
    if "__post_init__" in cls.__dict__:
        lines.append(" self.__post_init__()")
    source = f"def __init__({', '.join(params)}):\n" + ("\n".join(lines) or " pass")
    return source, scope


def _lazy_init(source: str, scope: dict[str, Any]) -> Callable[..., None]:
    """A stand-in `__init__` that compiles the real one, puts it on the class, and runs it."""

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        cls = next(c for c in type(self).__mro__ if vars(c).get("__init__") is __init__)
        exec(source, scope)  # one compile per class, on its first construction
        init: Callable[..., None] = scope["__init__"]
        init.__qualname__ = f"{cls.__qualname__}.__init__"
        cls.__init__ = init  # type: ignore[misc]  # later constructions call it directly
        init(self, *args, **kwargs)

    return __init__


def _build(cls: type[Any], frozen: bool, slots: bool) -> type[Any]:
    fields = _fields(cls)
    names = tuple(name for name, _ in fields)
    methods: dict[str, Any] = {
        "__init__": _lazy_init(*_init_source(cls, fields)),
        "__record_fields__": names,
        "__record_init__": tuple(
            name for name, d in fields if not (isinstance(d, _Field) and not d.init)
        ),
        "__match_args__": names,
        "__eq__": _eq,
        "__repr__": _repr,
        "__hash__": _hash if frozen else None,
    }
    if frozen:
        methods["__setattr__"] = _frozen_setattr
        methods["__delattr__"] = _frozen_delattr
    if not slots:
        for name, default in fields:
            if isinstance(default, _Field):
                delattr(cls, name)
        for key, value in methods.items():
            setattr(cls, key, value)
        return cls
    body = {k: v for k, v in cls.__dict__.items() if k not in names}
    body.pop("__dict__", None)
    body.pop("__weakref__", None)
    body.update(methods, __slots__=names)
    metaclass: Any = type(cls)
    new: type[Any] = metaclass(cls.__name__, cls.__bases__, body)
    new.__qualname__ = cls.__qualname__
    return new


@overload
def record(cls: type[T], /) -> type[T]: ...


@overload
def record(*, frozen: bool = True, slots: bool = True) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def record(
    cls: type[T] | None = None, /, *, frozen: bool = True, slots: bool = True
) -> type[T] | Callable[[type[T]], type[T]]:
    """Make `cls` a record (see the module docstring)."""
    if cls is None:
        return lambda c: _build(c, frozen, slots)
    return _build(cls, frozen, slots)


def replace(obj: T, /, **changes: Any) -> T:
    """A copy of a record with some fields changed (`dataclasses.replace` for records)."""
    cls: Any = type(obj)
    names: tuple[str, ...] = cls.__record_init__
    unknown = set(changes) - set(names)
    if unknown:
        raise TypeError(f"{cls.__name__} has no field {', '.join(sorted(unknown))}")
    result: T = cls(**{**{f: getattr(obj, f) for f in names}, **changes})
    return result


__all__ = ["field", "record", "replace"]
