"""The tool contract: a JSON schema, a description, and `async run(args, ctx)`.

Tools never print and never import a front end: they reach the gate, the undo
journal and the filesystem only through `ToolContext` and report in a `ToolOutput`.
A tool that cannot do its job raises `ToolError` (or returns `ok=False`): the
model reads the message and carries on.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Literal, Protocol

from msgspec import Struct, field

from rift.errors import ToolError
from rift.events import PlanItem
from rift.tools.sandbox import Bubblewrap
from rift.tools.services import ToolServices


class AppliedEdit(Struct, frozen=True):
    """A write/edit that reached disk; the turn loop derives the edit_diff event from it."""

    path: str
    """As the model named it (relative paths stay relative)."""
    old: str
    new: str


class ToolOutput(Struct, frozen=True):
    """What a tool hands back to the turn loop."""

    ok: bool
    text: str
    edit: AppliedEdit | None = None
    plan: list[PlanItem] | None = None


class WriteVerdict(Struct, frozen=True):
    """The gate's answer for a write or edit."""

    allowed: bool
    content: str = ""
    """What to write: the proposal, or the subset an edit review accepted."""
    message: str = ""
    """Why it was refused (when not allowed); the tool reports it verbatim."""
    partial: bool = False
    """True when a review accepted only part of the proposal."""


class Gate(Protocol):
    """The one permission gate (core/permissions/gate.py). Tools call it; nothing bypasses it."""

    refusals: int
    """Times a person refused an action (denied or dismissed an ask or review)."""

    def authorize_tool(self, tool: str, *, plan_safe: bool) -> str | None:
        """None when a call of `tool` may go ahead to its own checks, else the refusal:
        a deny rule naming the tool, or plan mode for a tool that is not `plan_safe`."""
        ...

    def check_read(self, path: Path) -> str | None:
        """The deny message when a deny rule covers reading `path`."""
        ...

    def check_opened(self, path: Path, info: os.stat_result) -> str | None:
        """The refusal for the file a read opened (a hard link to a denied file), or None."""
        ...

    async def authorize_write(
        self, tool: str, path: Path, old: str | None, new: str, *, runs_later: str = ""
    ) -> WriteVerdict:
        """Deny rules, approval mode, allow/ask rules, then ask or edit_review. A file that
        `runs_later` (tools/protected.py says what) is asked about in every mode but auto."""
        ...

    async def authorize_bash(self, command: str) -> str | None:
        """None when the command may run, else the refusal message."""
        ...

    async def authorize_fetch(
        self, url: str, private_address: str | None, *, approved: bool = False
    ) -> str | None:
        """None when `url` may be fetched, else the refusal; a `private_address` the host
        resolved to needs an allow rule. `approved`: a redirect to a host allowed this call."""
        ...

    async def authorize_search(
        self, query: str, url: str, private_address: str | None, *, approved: bool = False
    ) -> str | None:
        """None when web_search may send `query` to `url`, else the refusal (as for fetch)."""
        ...


class Journal(Protocol):
    """The undo journal (fs/checkpoints.py)."""

    def record(self, path: Path, prior: bytes | None) -> None:
        """Remember `path`'s bytes before its first change this turn (None = did not exist)."""
        ...

    def wrote(self, path: Path, written: Any) -> None:
        """Remember which file the tool left at `path` (a `safe_fs.FileId`; None: unknown),
        so a restore leaves alone a file someone else put there since."""
        ...


class PlanState(Struct, dict=True):
    """The turn-spanning checklist the `plan` tool edits."""

    items: list[PlanItem] = field(default_factory=list)


class ToolContext(Struct, dict=True):
    """Everything a tool may touch."""

    cwd: Path
    gate: Gate
    journal: Journal
    plan: PlanState = field(default_factory=PlanState)
    bash_wrapper: str | None = None
    """Template with {cmd} and optionally {cwd}; rewrites the executed command only."""
    sandbox: Bubblewrap | None = None
    """When set, bash runs every command inside it (and `bash_wrapper` is not used)."""
    post_edit_hooks: tuple[str, ...] = ()
    services: ToolServices = field(default_factory=ToolServices)
    """What later layers lend the tools (tasks, sub-agents, asker, diagnostics, editor)."""

    def resolve(self, raw: str) -> Path:
        """A model-supplied path, relative to the cwd, `~` expanded."""
        path = Path(raw).expanduser()
        return path if path.is_absolute() else self.cwd / path

    def readable(self, path: Path) -> Path:
        """`path` once the Read rules allow it; else a ToolError with the deny message."""
        denied = self.gate.check_read(path)
        if denied is not None:
            raise ToolError(denied)
        return path


ToolRun = Callable[[dict[str, Any], ToolContext], Awaitable[ToolOutput]]

ToolKind = Literal["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "other"]
"""What a call does, in the Agent Client Protocol's words (ACP maps it 1:1): an editor
picks an icon by it, and a face may group calls by it."""

Summarize = Callable[[dict[str, Any]], str]
"""A call's arguments → a few words about it. Never raises: the model may send
any JSON (a number for a path, a missing key, `{"raw": text}`)."""


class Tool(Struct, frozen=True):
    """One tool as the model sees it and as the turn loop runs it; it also declares how
    a call reads on a screen (`kind`, `asks`, `summary`, `title`: tools/calls.py)."""

    name: str
    description: str
    parameters: dict[str, Any]
    run: ToolRun
    kind: ToolKind
    summary: Summarize
    """The call's one salient argument, one line: read → the path, bash → the command.
    Shown after the tool's name (`→ read notes.txt`); "" when there is none."""
    title: Summarize | None = None
    """A short sentence for a face that shows no tool name (ACP's card title:
    "Read notes.txt"); None: the tool's name."""
    asks: bool = False
    """A call waits for the person's approval before it runs, whenever the approval
    mode asks (write, edit, bash): a face shows it pending until then."""
    mutating: bool = False
    """write/edit/bash/agent: a success counts as "changed the project" for the apply nudge."""
    plan_safe: bool = True
    """Whether plan mode may run it: built-in tools are (the gate meets their writes and
    commands); a plugin or MCP tool not declared read-only is not."""

    def schema(self, lean: bool = False) -> dict[str, Any]:
        """The OpenAI-style function definition sent to the model."""
        description = self.description
        if lean and ". " in description:
            description = description.split(". ", 1)[0] + "."
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": description,
                "parameters": _without_descriptions(self.parameters) if lean else self.parameters,
            },
        }


def _without_descriptions(schema: Any) -> Any:
    """A JSON schema minus its `description` texts, at every depth (most of a definition's
    tokens); a *property* named "description" is kept: only keywords go."""
    if isinstance(schema, list):
        return [_without_descriptions(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "description" and isinstance(value, str):
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: _without_descriptions(sub) for name, sub in value.items()}
        else:
            out[key] = _without_descriptions(value)
    return out


# ------------------------------------------------------------ argument helpers


def arg_text(args: dict[str, Any], key: str) -> str:
    """`args[key]` when it is a string, stripped; else "" (for summaries, which never raise)."""
    value = args.get(key)
    return value.strip() if isinstance(value, str) else ""


def shown(key: str) -> Summarize:
    """The summary of a tool whose salient argument is `key`: that argument's text."""
    return lambda args: arg_text(args, key)


def titled(template: str, key: str, otherwise: str) -> Summarize:
    """A title: `template` with argument `key`'s text for its {} ("Read {}" -> "Read a.py"),
    or `otherwise` when the call has no such text ("Read a file")."""

    def title(args: dict[str, Any]) -> str:
        value = arg_text(args, key)
        return template.format(value) if value else otherwise

    return title


def in_path(args: dict[str, Any]) -> str:
    """A search title's tail: " in src" for a call with a `path` argument, else ""."""
    path = arg_text(args, "path")
    return f" in {path}" if path else ""


def first_text(args: dict[str, Any]) -> str:
    """The summary of a tool that declares none of its own (an MCP or plugin tool): its
    first non-empty string argument, else its arguments as compact JSON ("" for none)."""
    for value in args.values():
        if isinstance(value, str) and value.strip():
            return value.strip()
    return json.dumps(args, ensure_ascii=False) if args else ""


def optional_int(args: dict[str, Any], key: str, default: int | None = None) -> int | None:
    """Numeric arguments also accept numeric strings (small models send "10")."""
    value = args.get(key)
    if value is None or value == "":
        return default
    if isinstance(value, bool):
        raise ToolError(f"parameter '{key}' must be an integer")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            pass
    raise ToolError(f"parameter '{key}' must be an integer, got {value!r}")


def optional_bool(args: dict[str, Any], key: str, default: bool = False) -> bool:
    value = args.get(key)
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false", "1", "0"):
        return value.strip().lower() in ("true", "1")
    raise ToolError(f"parameter '{key}' must be a boolean")


def capped(lines: list[str], cap: int, over: str) -> str:
    """The first `cap` of `lines`, a line each; past the cap, `over` follows (a format
    string given `total`, `cap` and `more`: how many lines there were, shown, left out)."""
    text = "\n".join(lines[:cap])
    if len(lines) > cap:
        text += over.format(total=len(lines), cap=cap, more=len(lines) - cap)
    return text


def middle_truncate(text: str, limit: int) -> str:
    """Keep the head and the tail halves, as bash and fetch outputs do."""
    raw = text.encode("utf-8")
    if len(raw) <= limit:
        return text
    half = limit // 2
    head = raw[:half].decode("utf-8", "ignore")
    tail = raw[-half:].decode("utf-8", "ignore")
    return f"{head}\n... [output truncated: {limit} of {len(raw)} bytes shown] ...\n{tail}"


# ------------------------------------------------------------- file helpers

BINARY_PROBE = 8192


def is_binary(data: bytes) -> bool:
    """The tools' one binary test: a NUL byte in the first 8 KB."""
    return b"\0" in data[:BINARY_PROBE]


def bigram_dice(a: str, b: str) -> float:
    """Character-bigram Dice similarity in [0, 1]; cheap and good enough for "did you mean"."""
    if a == b:
        return 1.0
    if len(a) < 2 or len(b) < 2:
        return 0.0
    left = Counter(a[i : i + 2] for i in range(len(a) - 1))
    right = Counter(b[i : i + 2] for i in range(len(b) - 1))
    common = sum((left & right).values())
    return 2.0 * common / (len(a) - 1 + len(b) - 1)


_HINT_WALK_LIMIT = 5000
_HINT_SKIP_DIRS = frozenset({".git", "node_modules", "target", "__pycache__", ".venv", "venv"})


def not_found_message(cwd: Path, raw: str, gate: Gate | None = None) -> str:
    """The ENOENT error: a bounded walk under the cwd suggests up to 5 likely paths (models
    guess one directory off or the wrong extension). Paths the Read rules deny are never
    suggested: a hint must not reveal what exists there.
    """
    wanted = Path(raw).name
    if not wanted:
        return f"{raw}: no such file or directory. Use ls or glob to find the right path."
    exact: list[str] = []
    similar: list[tuple[float, str]] = []
    wanted_low = wanted.lower()
    wanted_stem = Path(wanted_low).stem
    seen = 0
    for dirpath, dirnames, filenames in os.walk(cwd):
        dirnames[:] = sorted(d for d in dirnames if d not in _HINT_SKIP_DIRS)
        for name in [*dirnames, *sorted(filenames)]:
            seen += 1
            if seen > _HINT_WALK_LIMIT:
                break
            full = os.path.join(dirpath, name)
            if gate is not None and gate.check_read(Path(full)) is not None:
                continue
            rel = os.path.relpath(full, cwd)
            low = name.lower()
            if name == wanted:
                exact.append(rel)
            elif low == wanted_low or Path(low).stem == wanted_stem:
                similar.append((1.0, rel))
            else:
                score = bigram_dice(low, wanted_low)
                if score >= 0.7:
                    similar.append((score, rel))
        if seen > _HINT_WALK_LIMIT:
            break
    similar.sort(key=lambda item: (-item[0], item[1]))
    picks = (exact + [rel for _, rel in similar])[:5]
    if picks:
        return f"{raw}: no such file or directory. Did you mean: {', '.join(picks)}?"
    return f"{raw}: no such file or directory. Use ls or glob to find the right path."
