"""The services the core may lend a tool, as one typed record on its context.

A tool names what it needs from the session here, as a protocol, never the core
class that provides it, so tools stay below the core (tests/test_import_graph.py).
A field left None means "not here", and each tool says so to the model in words.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from msgspec import Struct, field
from msgspec.structs import replace

from rift.tools.delegation import ChildTask

if TYPE_CHECKING:
    from rift.config.records import Config


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


class EditRules(Struct, frozen=True):
    """How strictly write and edit hold the model, chosen by its profile when the model is
    bound (core/loop/profile.py): tools never ask what kind of model they serve."""

    strict: bool = False
    """The small-model rules: no whole rewrite of a longer existing file, no unchanged
    write, no dropped definition, no dead code, debris stripped (tools/guard.py)."""
    rewrite_lines: int = 20
    """Under `strict`, an existing file of at most this many lines may be written whole
    (the whole-file format's limit: longer rewrites are where small models did damage)."""


class ToolServices(Struct, dict=True):
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
    edit_rules: EditRules = field(default_factory=EditRules)
    task_words: str = ""
    """The words of the current task: a protected path it names may be edited
    (tools/protected.py); a path match, never a decision over its words."""
    locked_tests: frozenset[Path] = frozenset()
    """Test files the project's checks judge by (core/loop/parts/checks.py): not changed
    while they judge, so a change cannot pass by rewriting its judge."""

    def without_subagents(self) -> ToolServices:
        """The services a sub-agent gets: the same, but it cannot delegate further."""
        return replace(self, subagents=None)
