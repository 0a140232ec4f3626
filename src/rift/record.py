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

The `__init__` is compiled only once a class is built often, not at decoration:
a compile is a parse, a symbol table and an assembly (~150 µs), and most records
are built a handful of times in a run (a `--serve` start defines ~60, builds 28
of them, 22 just once: compiling those was ~3% of its instructions). Until then
`_bind` fills the fields from the arguments as the compiled `__init__` would
(same defaults, factories, errors and `__post_init__`), a few µs slower a
call; at the `COMPILE_AFTER`th construction the class gets its compiled one, so
the records built per streamed delta run at full speed. Field order is still
checked at decoration.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, dataclass_transform, overload

T = TypeVar("T")

_set = object.__setattr__
_NO_DEFAULT = object()
COMPILE_AFTER = 48
"""Constructions a class runs through `_bind` before its `__init__` is compiled: about
where ~150 µs of compiling is paid back at ~3 µs saved per construction."""


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


def _bind(
    self: Any,
    fields: list[tuple[str, Any]],
    post_init: bool,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> None:
    """Set the fields from `args` and `kwargs` exactly as the compiled `__init__` does,
    raising the TypeError a call with the wrong arguments raises."""
    params: tuple[str, ...] = type(self).__record_init__
    if len(args) > len(params):
        raise TypeError(
            f"__init__() takes {len(params) + 1} positional arguments but {len(args) + 1}"
            " were given"
        )
    given = dict(zip(params, args, strict=False))
    for name, value in kwargs.items():
        if name not in params:
            raise TypeError(f"__init__() got an unexpected keyword argument {name!r}")
        if name in given:
            raise TypeError(f"__init__() got multiple values for argument {name!r}")
        given[name] = value
    missing = [name for name, d in fields if d is _NO_DEFAULT and name not in given]
    if missing:
        raise TypeError(f"__init__() missing required arguments: {', '.join(missing)}")
    for name, default in fields:
        if isinstance(default, _Field):
            if not default.init:
                if default.factory is not None:
                    _set(self, name, default.factory())
                continue
            factory = default.factory
            value = given.get(name, factory)
            _set(self, name, factory() if value is factory and factory is not None else value)
        else:
            _set(self, name, given.get(name, default))
    if post_init:
        self.__post_init__()


def _lazy_init(
    source: str, scope: dict[str, Any], fields: list[tuple[str, Any]], post_init: bool
) -> Callable[..., None]:
    """A stand-in `__init__`: `_bind` for a class's first constructions, then it compiles
    the real one, puts it on the class, and runs it."""
    built = 0

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        nonlocal built
        built += 1
        if built < COMPILE_AFTER:
            _bind(self, fields, post_init, args, kwargs)
            return
        cls = next(c for c in type(self).__mro__ if vars(c).get("__init__") is __init__)
        exec(source, scope)  # one compile per class, once it is built often
        init: Callable[..., None] = scope["__init__"]
        init.__qualname__ = f"{cls.__qualname__}.__init__"
        cls.__init__ = init  # type: ignore[misc]  # later constructions call it directly
        init(self, *args, **kwargs)

    return __init__


def _build(cls: type[Any], frozen: bool, slots: bool) -> type[Any]:
    fields = _fields(cls)
    names = tuple(name for name, _ in fields)
    methods: dict[str, Any] = {
        "__init__": _lazy_init(*_init_source(cls, fields), fields, "__post_init__" in cls.__dict__),
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
