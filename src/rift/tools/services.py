"""The services the core may lend a tool, as one typed record on its context.

A tool names what it needs from the session here, as a protocol, never the core
class that provides it, so tools stay below the core (tests/test_import_graph.py):
the core's task registry, sub-agent runner, interaction broker and LSP service,
and ACP's editor files and terminal, satisfy these structurally. A field left
None means "not here" (a sub-agent has no `subagents`; headless has no `asker`
attached), and each tool says so to the model in words.

`ServicesView` keeps the old by-name access (`ctx.extras["tasks"]`) for callers
that still set services that way; new code reads and sets `ctx.services`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from rift.record import field, record, replace
from rift.tools.delegation import ChildTask

if TYPE_CHECKING:
    from rift.config_records import Config


class BackgroundTasks(Protocol):
    """Shell commands that outlive one tool call (the `task` tool and `bash` in background)."""

    async def start_shell(self, command: str, cwd: Path, label: str | None = None) -> str: ...
    def describe(self) -> str: ...
    def read(self, task_id: int) -> str: ...
    async def send_input(self, task_id: int, line: str) -> str: ...
    def close_stdin(self, task_id: int) -> str: ...
    async def kill(self, task_id: int) -> str: ...


class Delegator(Protocol):
    """Runs delegated tasks as sub-agents; the report is the tool's result."""

    async def run(self, tasks: list[ChildTask], background: bool) -> str: ...


class Asker(Protocol):
    """Asks the person a question; None when nobody answered (the tool says so)."""

    attached: bool

    async def ask(self, question: str, detail: list[str], choices: list[str]) -> str | None: ...


@runtime_checkable
class Diagnostics(Protocol):
    """Diagnostics from a language server for a file a tool just changed."""

    async def report(self, path: Path, shown: str, old: str | None, new: str) -> str:
        """Text for the model about `path` after the change ("" when nothing to say)."""
        ...


class EditorFiles(Protocol):
    """An editor that owns the buffers (ACP): reads see unsaved changes, writes land there."""

    async def read_text(self, path: Path) -> str: ...
    async def write_text(self, path: Path, content: str) -> None: ...


class EditorTerminal(Protocol):
    """An editor's terminal (ACP) for foreground commands; exit code None means timed out."""

    async def run(self, command: str, cwd: Path, timeout: float) -> tuple[int | None, str]: ...


class Skill(Protocol):
    """A skill the `skill` tool can load (extend/skills.py)."""

    @property
    def name(self) -> str: ...
    @property
    def body(self) -> str: ...


@record(frozen=False, slots=False)
class ToolServices:
    """What the session lends its tools; every field is optional."""

    tasks: BackgroundTasks | None = None
    subagents: Delegator | None = None
    asker: Asker | None = None
    diagnostics: Diagnostics | None = None
    files: EditorFiles | None = None
    terminal: EditorTerminal | None = None
    settings: Config | None = None
    """The merged config, for tools that read a setting (web_search's URL, caches)."""
    skills: Mapping[str, Skill] = field(default_factory=dict)
    grep_backend: str | None = None
    """"rg" or "python": pins grep's engine (tests run both); None picks rg when present."""
    small_model: bool = False
    """The model is a small one (the embedded model): write and edit hold it to more rules."""
    task_words: str = ""
    """The words of the current task: a protected folder it names may be edited
    (tools/protected.py)."""

    def without_subagents(self) -> ToolServices:
        """The services a sub-agent gets: the same, but it cannot delegate further."""
        return replace(self, subagents=None)


_BY_NAME = {
    "tasks": "tasks",
    "subagents": "subagents",
    "broker": "asker",
    "lsp": "diagnostics",
    "fs": "files",
    "terminal": "terminal",
    "config": "settings",
    "skills": "skills",
    "grep_backend": "grep_backend",
    "small_model": "small_model",
    "task_words": "task_words",
}
_UNSET: dict[str, Any] = {"skills": {}, "small_model": False, "task_words": ""}


class ServicesView(MutableMapping[str, Any]):
    """`ToolServices` by the names `ToolContext.extras` used ("broker", "lsp", "fs", ...).

    A name that is unset reads as missing, so `.get(name)` keeps its meaning; an unknown
    name is a KeyError naming the valid ones, never a silently ignored service.
    """

    def __init__(self, services: ToolServices) -> None:
        self._services = services

    def _field(self, key: str) -> str:
        try:
            return _BY_NAME[key]
        except KeyError:
            raise KeyError(f"unknown tool service {key!r} (valid: {', '.join(_BY_NAME)})") from None

    def __getitem__(self, key: str) -> Any:
        name = self._field(key)
        value = getattr(self._services, name)
        if value is None or value == _UNSET.get(name):
            raise KeyError(key)
        return value

    def __setitem__(self, key: str, value: Any) -> None:
        setattr(self._services, self._field(key), value)

    def __delitem__(self, key: str) -> None:
        name = self._field(key)
        setattr(self._services, name, _UNSET.get(name))

    def __iter__(self) -> Iterator[str]:
        return (key for key in _BY_NAME if key in self)

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str) or key not in _BY_NAME:
            return False
        value = getattr(self._services, _BY_NAME[key])
        return not (value is None or value == _UNSET.get(_BY_NAME[key]))

    def __len__(self) -> int:
        return sum(1 for _ in self)


async def diagnostics_after_edit(
    services: ToolServices, path: Path, shown: str, old: str | None, new: str
) -> str:
    """The write/edit hook: "" unless the session lent a diagnostics service."""
    if services.diagnostics is None:
        return ""
    return await services.diagnostics.report(path, shown, old, new)
