"""Loading a session file: parse it strictly, coerce each message to the stored shape,
pair every tool call with its result, and move a broken file aside with a reason (never
deleted), so resuming never loses what was there.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any, cast

from msgspec import Struct

from rift.models.base import FunctionCall, Message, ToolCallDict
from rift.text.hygiene import scrub

_ROLES = frozenset({"system", "user", "assistant", "tool"})


class LoadedSession(Struct, dict=True):
    """A resumed conversation plus what to tell the person about it."""

    messages: list[Message]
    model: str | None
    notice: str | None = None
    """An Info line (fresh start on a missing or empty file)."""
    warning: str | None = None
    """A Warning line (a corrupt file was set aside)."""


def load_session(path: Path) -> LoadedSession:
    """Read a session file leniently, never raising for a bad file: missing or empty starts
    fresh with a notice; one that is not a session is renamed `<name>.corrupt` (so the next
    save cannot destroy it) and starts fresh with a warning naming the backup."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return LoadedSession([], None, notice="session file not found — starting fresh")
    except OSError as exc:
        return _set_aside(path, f"cannot read it: {exc.strerror or exc}")
    if not raw.strip():
        return LoadedSession([], None, notice="session has no saved turns yet — starting fresh")
    try:
        data, messages = parse_session(raw)
    except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        return _set_aside(path, str(exc))
    model = data.get("model")
    return LoadedSession(
        messages=normalize_tool_call_ids(messages),
        model=model if isinstance(model, str) and model else None,
        notice=None if messages else "session has no saved turns yet — starting fresh",
    )


def _set_aside(path: Path, reason: str) -> LoadedSession:
    return LoadedSession([], None, warning=move_aside(path, reason) + " — starting fresh")


def move_aside(path: Path, reason: str) -> str:
    """Rename a malformed session file to `<name>.corrupt[.N]`; the warning saying so."""
    backup = path.with_name(path.name + ".corrupt")
    n = 1
    while backup.exists():
        backup = path.with_name(f"{path.name}.corrupt.{n}")
        n += 1
    try:
        os.replace(path, backup)
    except OSError as exc:
        return (
            f"session file {path} is unreadable ({reason}); could not back it up"
            f" ({exc.strerror or exc})"
        )
    return f"session file {path} is unreadable ({reason}); backed up to {backup}"


def parse_session(raw: bytes) -> tuple[dict[str, Any], list[Message]]:
    """A session document and its messages, from standard JSON only; ValueError when it
    is not a session file. Anything may land in the sessions dir and `--continue` opens
    the newest blindly, so `NaN`, `1e999` and nesting deep enough to exhaust the parser
    are malformed too: the caller sets the file aside instead of crashing on every run."""
    try:
        data = json.loads(raw, parse_constant=_refuse_constant, parse_float=_finite_float)
        messages = [_coerce_message(m) for m in _messages_field(data)]
    except RecursionError as exc:
        raise ValueError("nested too deeply to be a session") from exc
    return data, messages


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not standard JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"{text} is out of range")
    return value


def _messages_field(data: Any) -> list[Any]:
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    messages = data.get("messages", [])
    if not isinstance(messages, list):
        raise ValueError("'messages' is not a list")
    return messages


def _coerce_message(raw: Any) -> Message:
    """Validate one stored message (ValueError without a known role); optional fields of
    the wrong type are dropped rather than rejected, as older writers were loose about them."""
    if not isinstance(raw, dict) or raw.get("role") not in _ROLES:
        raise ValueError("a message without a valid role")
    content = raw.get("content")
    if content is not None and not isinstance(content, str):
        raise ValueError("a message whose content is not a string")
    message: Message = {"role": raw["role"], "content": scrub(content or "")}
    for key in ("thinking", "tool_name", "tool_call_id"):
        value = raw.get(key)
        if isinstance(value, str) and value:
            message[key] = scrub(value)
    images = raw.get("images")
    if isinstance(images, list) and images and all(isinstance(i, str) for i in images):
        message["images"] = list(images)
    if isinstance(raw.get("provider_data"), dict):  # e.g. signed thinking, re-sent verbatim
        message["provider_data"] = raw["provider_data"]
    calls = raw.get("tool_calls")
    if isinstance(calls, list) and calls:
        message["tool_calls"] = [_coerce_call(c) for c in calls]
    return message


def _coerce_call(raw: Any) -> ToolCallDict:
    function = raw.get("function") if isinstance(raw, dict) else None
    if not isinstance(function, dict) or not isinstance(function.get("name"), str):
        raise ValueError("a tool call without a function name")
    arguments = function.get("arguments")
    if isinstance(arguments, str):  # some writers stored the raw JSON text
        with contextlib.suppress(ValueError):
            arguments = json.loads(arguments)
    if not isinstance(arguments, dict):
        arguments = {}
    call_id = raw.get("id")
    return {
        "id": call_id if isinstance(call_id, str) else "",
        "function": FunctionCall(name=function["name"], arguments=arguments),
    }


def normalize_tool_call_ids(messages: list[Message]) -> list[Message]:
    """A copy in which every tool call has an id and every tool result its call's id, since
    strict OpenAI-compatible servers reject histories without them. A result without one is
    paired with an unanswered call of the same name, else with the next unanswered call."""
    out: list[Message] = [cast(Message, dict(m)) for m in messages]
    for idx, message in enumerate(out):
        calls = message.get("tool_calls")
        if message["role"] != "assistant" or not calls:
            continue
        fixed: list[ToolCallDict] = [
            {"id": c.get("id") or f"call_{idx}_{i}", "function": c["function"]}
            for i, c in enumerate(calls)
        ]
        message["tool_calls"] = fixed
        _pair_results(out, idx + 1, fixed)
    return out


def _pair_results(out: list[Message], start: int, calls: list[ToolCallDict]) -> None:
    end = start
    while end < len(out) and out[end]["role"] == "tool":
        end += 1
    results = out[start:end]
    unanswered = [c for c in calls if c["id"] not in {r.get("tool_call_id") for r in results}]
    for result in results:
        if result.get("tool_call_id") or not unanswered:
            continue
        name = result.get("tool_name")
        match = next((c for c in unanswered if c["function"]["name"] == name), unanswered[0])
        result["tool_call_id"] = match["id"]
        unanswered.remove(match)
