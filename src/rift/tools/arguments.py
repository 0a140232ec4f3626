"""A built-in tool's arguments: one typed struct, and the JSON schema the model sees made
from it, so the declaration and the check cannot drift apart.

A tool declares its parameters once, as a subclass of `Args` (a frozen, keyword-only
`msgspec.Struct`): a field's name is the parameter's, its annotation the type (`str`,
`int`, `bool`, `list[str]`, each optionally `| None`), a default makes it optional, and
`Annotated[T, Meta(description=...)]` gives it a description; `aliases` names keys a
model may send for a parameter (read only when the parameter itself is absent).

A bad argument becomes a `ToolError` the model reads and answers, never a crash, with
the leniency small models need (`"10"` for 10, `"true"` for true, `""` or null for
"not given"; a list of strings sent as one string, JSON-encoded or a line each). A
`str | None` field keeps "" (an empty line is a value); null is None. Keys the schema
does not name are ignored.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable
from types import UnionType
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    ClassVar,
    TypeVar,
    Union,
    cast,
    get_args,
    get_origin,
)

from msgspec import NODEFAULT, Meta, Struct

from rift.errors import ToolError
from rift.tools.base import (
    Summarize,
    Tool,
    optional_bool,
    optional_int,
    shown,
)

if TYPE_CHECKING:
    from rift.tools.base import ToolContext, ToolOutput, ToolRun


class Args(Struct, frozen=True, kw_only=True):
    """Base of every built-in tool's arguments (see the module docstring)."""

    aliases: ClassVar[dict[str, str]] = {}
    """Other key -> parameter: read when the model leaves the parameter out."""


A = TypeVar("A", bound=Args)

_JSON_TYPES: dict[Any, str] = {str: "string", int: "integer", bool: "boolean"}


class _Param(Struct, frozen=True):
    """One field as the check and the schema read it."""

    name: str
    kind: Any
    """str, int, bool, or list (of `item`)."""
    item: Any
    optional: bool
    """None is a valid value (`T | None`)."""
    required: bool
    default: Any
    description: str | None


_PARAMS: dict[type[Args], tuple[_Param, ...]] = {}


def _hints(cls: type[Args]) -> dict[str, Any]:
    """The fields' annotations, evaluated in their modules: what `typing.get_type_hints`
    gives, at a third of its cost (tool modules build their schemas at import)."""
    hints: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        scope = vars(sys.modules[klass.__module__])
        for name, hint in vars(klass).get("__annotations__", {}).items():
            if name in cls.__struct_fields__:
                hints[name] = eval(hint, scope) if isinstance(hint, str) else hint
    return hints


def _param(name: str, hint: Any, default: Any) -> _Param:
    description = None
    if get_origin(hint) is Annotated:
        hint, *extras = get_args(hint)
        description = next(
            (m.description for m in extras if isinstance(m, Meta) and m.description), None
        )
    optional = False
    if get_origin(hint) in (Union, UnionType):
        members = [m for m in get_args(hint) if m is not type(None)]
        optional = len(members) < len(get_args(hint))
        if len(members) != 1:
            raise TypeError(f"{name}: one type (optionally | None), not {hint!r}")
        hint = members[0]
    kind, item = hint, None
    if get_origin(hint) is list:
        kind, (item,) = list, get_args(hint)
        if item is not str:
            raise TypeError(f"{name}: a list of str, not {hint!r}")
    elif kind not in _JSON_TYPES:
        raise TypeError(f"{name}: str, int, bool or a list of str, not {hint!r}")
    required = default is NODEFAULT
    if hasattr(default, "factory"):  # msgspec.field(default_factory=...)
        default = default.factory()
    return _Param(name, kind, item, optional, required, None if required else default, description)


def params(cls: type[Args]) -> tuple[_Param, ...]:
    """The fields of `cls`, read once (their annotations are evaluated on first use)."""
    found = _PARAMS.get(cls)
    if found is None:
        names, defaults = cls.__struct_fields__, cls.__struct_defaults__
        padded = (NODEFAULT,) * (len(names) - len(defaults)) + defaults
        hints = _hints(cls)
        found = _PARAMS[cls] = tuple(
            _param(n, hints[n], d) for n, d in zip(names, padded, strict=True)
        )
    return found


def schema(cls: type[Args]) -> dict[str, Any]:
    """The JSON schema of `cls`'s fields: the "parameters" of a tool definition."""
    properties: dict[str, Any] = {}
    for p in params(cls):
        prop: dict[str, Any] = {"type": "array" if p.kind is list else _JSON_TYPES[p.kind]}
        if p.kind is list:
            prop["items"] = {"type": _JSON_TYPES[p.item]}
        if p.description:
            prop["description"] = p.description
        properties[p.name] = prop
    out: dict[str, Any] = {"type": "object", "properties": properties}
    required = [p.name for p in params(cls) if p.required]
    if required:
        out["required"] = required
    return out


def _list(args: dict[str, Any], p: _Param) -> list[str] | None:
    """A list of strings; one string is taken as a JSON-encoded list or a line per item."""
    value = args.get(p.name)
    if value is None:
        if p.required:
            raise ToolError(f"missing required parameter '{p.name}' (a list of strings)")
        return None if p.optional else list(p.default or [])
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError:
            parsed = None
        value = parsed if isinstance(parsed, list) else value.splitlines()
    if not isinstance(value, list):
        raise ToolError(f"parameter '{p.name}' must be a list of strings")
    return [item if isinstance(item, str) else str(item) for item in value]


def _value(args: dict[str, Any], p: _Param) -> Any:
    if p.kind is list:
        return _list(args, p)
    if p.kind is str:
        value = args.get(p.name)
        if not p.required and (value is None or (value == "" and not p.optional)):
            return None if p.optional else p.default
        if not isinstance(value, str) and p.required:
            raise ToolError(f"missing required string parameter '{p.name}'")
        if not isinstance(value, str):
            raise ToolError(f"parameter '{p.name}' must be a string")
        return value
    if p.kind is int:
        found = optional_int(args, p.name, None if p.optional else p.default)
        if found is None and p.required:
            raise ToolError(f"missing required integer parameter '{p.name}'")
        return found
    if p.optional and args.get(p.name) is None:
        return None
    if p.required and args.get(p.name) is None:
        raise ToolError(f"missing required boolean parameter '{p.name}'")
    return optional_bool(args, p.name, bool(p.default))


def parse(cls: type[A], args: dict[str, Any]) -> A:
    """The model's arguments as a checked `cls`; a `ToolError` naming the bad parameter."""
    if cls.aliases:
        args = {**{cls.aliases[k]: v for k, v in args.items() if k in cls.aliases}, **args}
    return cls(**{p.name: _value(args, p) for p in params(cls)})


def from_args(
    run: Callable[[A, ToolContext], Awaitable[ToolOutput]],
    *,
    summary: Summarize | None = None,
    **declared: Any,
) -> Tool:
    """The built-in tool whose `run` this is: named by its module (rift.tools.read: `read`),
    its schema made from the `Args` struct `run` takes and `run` behind the check; a call
    is summed up by the struct's first field unless `summary` says otherwise."""
    cls = _args_of(run)
    return Tool(
        name=run.__module__.rpartition(".")[2],
        parameters=schema(cls),
        run=takes(cls, run),
        summary=summary or shown(cls.__struct_fields__[0]),
        **declared,
    )


def _args_of(run: Callable[[A, ToolContext], Awaitable[ToolOutput]]) -> type[A]:
    """The `Args` subclass that annotates `run`'s first parameter (a TypeError if none)."""
    hint = next(iter(getattr(run, "__annotations__", {}).values()), None)
    if isinstance(hint, str):
        hint = eval(hint, vars(sys.modules[run.__module__]))
    if not (isinstance(hint, type) and issubclass(hint, Args)):
        raise TypeError(f"{run.__qualname__}: the first parameter's annotation is no Args")
    return cast("type[A]", hint)


def takes(cls: type[A], run: Callable[[A, ToolContext], Awaitable[ToolOutput]]) -> ToolRun:
    """A `Tool.run` that checks the arguments into `cls`, then runs `run` on them."""

    async def checked(args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        return await run(parse(cls, args), ctx)

    checked.__qualname__ = getattr(run, "__qualname__", "run")
    return checked
