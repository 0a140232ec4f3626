"""Pure translations between ACP's vocabulary and rift's: prompts, permissions, modes, MCP.

Nothing here talks to the editor or the agent, so each rule can be read and tested alone."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from acp.schema import (
    EmbeddedResourceContentBlock,
    HttpMcpServer,
    ImageContentBlock,
    McpServerStdio,
    PermissionOption,
    PermissionOptionKind,
    ResourceContentBlock,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SessionMode,
    SessionModeState,
    TextContentBlock,
    TextResourceContents,
)
from msgspec import Struct

from rift.config.load import McpServerConfig
from rift.events import AskOption

MODES = tuple(
    SessionMode(id=mode_id, name=name, description=description)
    for mode_id, name, description in (
        ("ask", "Ask", "Ask before every write, edit and shell command"),
        (
            "accept-edits",
            "Accept edits",
            "Writes and edits apply at once; shell commands still ask",
        ),
        ("plan", "Plan", "Read and search only: no writes, edits or shell commands"),
        ("auto", "Auto", "Write, edit and run commands without asking (deny rules still apply)"),
    )
)
"""The core's approval modes (permissions/gate.py MODES), in order, as ACP session modes."""


def mode_asks(mode: str, tool: str) -> bool:
    """Whether a gated tool may wait for a person in this mode (else it runs or fails at once)."""
    return mode == "ask" or (mode == "accept-edits" and tool == "bash")


def mode_state(mode: str) -> SessionModeState:
    return SessionModeState(current_mode_id=mode, available_modes=list(MODES))


def config_options(mode: str, model: str, models: Sequence[str]) -> list[Any]:
    """The session's selectable settings: the mode and the model."""
    names = list(dict.fromkeys([model, *models]))
    return [
        SessionConfigOptionSelect(
            type="select",
            id="mode",
            name="Mode",
            category="mode",
            current_value=mode,
            options=[
                SessionConfigSelectOption(value=m.id, name=m.name, description=m.description)
                for m in MODES
            ],
        ),
        SessionConfigOptionSelect(
            type="select",
            id="model",
            name="Model",
            category="model",
            current_value=model,
            options=[SessionConfigSelectOption(value=n, name=n) for n in names],
        ),
    ]


def uri_to_display(uri: str, cwd: Path) -> str:
    """A file URI as the path the model should use (relative inside the project)."""
    parsed = urlparse(uri)
    if parsed.scheme not in ("file", ""):
        return uri
    path = Path(unquote(parsed.path))
    try:
        return str(path.relative_to(cwd))
    except ValueError:
        return str(path)


class PromptParts(Struct, frozen=True):
    """A prompt as rift sends it: the message text and its images (data URLs)."""

    text: str
    images: tuple[str, ...] = ()


def prompt_text(blocks: Sequence[Any], cwd: Path, sees: bool = False) -> PromptParts:
    """The user message for a prompt: its text, @-mentions for resources, context after.

    Resource links become `@path` mentions, attached from disk by the owner (Read rules
    apply). An embedded resource carries the editor's own text (an unsaved buffer), so it
    is named as `path`, without the `@` that would attach the disk version too, and its
    text follows in a `<context>` block. Images go only to a model that `sees`.
    """
    text: list[str] = []
    context: list[str] = []
    images: list[str] = []
    for block in blocks:
        if isinstance(block, ImageContentBlock):
            if sees:
                images.append(f"data:{block.mime_type};base64,{block.data}")
            else:
                text.append("[image left out: this model cannot see images]")
            continue
        if isinstance(block, TextContentBlock):
            text.append(block.text)
        elif isinstance(block, ResourceContentBlock):
            text.append(f"@{uri_to_display(block.uri, cwd)}")
        elif isinstance(block, EmbeddedResourceContentBlock):
            resource = block.resource
            shown = uri_to_display(resource.uri, cwd)
            text.append(f"`{shown}`")
            if isinstance(resource, TextResourceContents):
                context.append(f'<context ref="{shown}">\n{resource.text}\n</context>')
            elif sees and (resource.mime_type or "").startswith("image/"):
                images.append(f"data:{resource.mime_type};base64,{resource.blob}")
            else:
                context.append(f"[binary attachment {shown} left out]")
        else:
            kind = getattr(block, "type", "attachment")
            text.append(f"[{kind} attachment left out: rift sends text to the model]")
    message = _join_inline(text)
    full = "\n\n".join([message, *context]) if context else message
    return PromptParts(full, tuple(images))


def _join_inline(parts: list[str]) -> str:
    """Join text and mentions the way an editor shows them: one space between words."""
    out = ""
    for part in parts:
        if out and not out[-1].isspace() and part and not part[0].isspace():
            out += " "
        out += part
    return out


class PermissionChoices(Struct, frozen=True):
    """The options offered for one ask, and the broker answer each one stands for."""

    options: list[PermissionOption]
    answers: dict[str, str]
    """option id → the ask choice text to answer with."""


REJECT_ALWAYS = "reject_always"


def permission_choices(options: Sequence[AskOption], tool: str | None) -> PermissionChoices:
    """Map an ask's options (what each choice means, from the core) onto ACP's four kinds.

    Each allow_session/project/everywhere is an allow_always option; a tool's ask also
    gets a reject_always, which denies that tool for the rest of the session. A trust
    ask's "skip" rejects; any other choice allows once, keeping its words.
    """
    offered: list[PermissionOption] = []
    answers: dict[str, str] = {}

    def add(option_id: str, name: str, kind: PermissionOptionKind, answer: str) -> None:
        offered.append(PermissionOption(option_id=option_id, name=name, kind=kind))
        answers[option_id] = answer

    always = 0
    for n, option in enumerate(options):
        choice = option.id
        if option.kind == "allow_once":
            add("allow_once", choice.capitalize(), "allow_once", choice)
        elif option.kind in ("allow_session", "allow_project", "allow_everywhere"):
            option_id = "allow_always" if always == 0 else f"allow_always_{always}"
            add(option_id, choice[0].upper() + choice[1:], "allow_always", choice)
            always += 1
        elif option.kind == "skip":
            add("reject_once", choice.capitalize(), "reject_once", choice)
        elif option.kind != "deny":
            add(f"choice_{n}", choice.capitalize(), "allow_once", choice)
    if "reject_once" not in answers:
        add("reject_once", "Deny", "reject_once", "deny")
    if tool is not None:
        add(REJECT_ALWAYS, f"Always deny {tool} this session", "reject_always", "deny")
    return PermissionChoices(offered, answers)


def mcp_configs(servers: Sequence[Any] | None) -> list[McpServerConfig]:
    """The editor's MCP servers in rift's config shape; kinds rift cannot reach are dropped."""
    out: list[McpServerConfig] = []
    for server in servers or []:
        if isinstance(server, McpServerStdio):
            out.append(
                McpServerConfig(
                    name=server.name,
                    command=server.command,
                    args=tuple(server.args),
                    env=tuple(sorted((e.name, e.value) for e in server.env)),
                )
            )
        elif isinstance(server, HttpMcpServer):
            out.append(
                McpServerConfig(
                    name=server.name,
                    url=server.url,
                    headers=tuple(sorted((h.name, h.value) for h in server.headers)),
                )
            )
    return out
