"""Validate what rift sends against the official ACP schema (schema/, see its README).

A `WireChecker` is fed every message of a connection in both directions: what
the client sent only tells it which method each of rift's responses answers;
everything rift sent is checked. Requests and notifications are checked
against their method's params type, responses against their method's result
type (or the JSON-RPC error shape), each with `"jsonrpc": "2.0"` and a valid
id. Extension methods (`_…`) carry no schema and are only checked for shape.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

SCHEMA_DIR = Path(__file__).parent / "schema"
STABLE, UNSTABLE = "schema.json", "schema.unstable.json"
LEGACY = frozenset({"session/set_model"})
"""Methods older editors send that this schema version dropped: their result must be an object."""


@cache
def _schema(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((SCHEMA_DIR / name).read_text())
    return data


@cache
def _by_method() -> dict[tuple[str, str, str], tuple[str, str]]:
    """(method, side, "Request"|"Response"|"Notification") → (schema file, $defs name).

    The stable schema wins; methods only the unstable one has (`session/fork`)
    are checked against that.
    """
    out: dict[tuple[str, str, str], tuple[str, str]] = {}
    for schema in (STABLE, UNSTABLE):
        for name, definition in _schema(schema)["$defs"].items():
            method, side = definition.get("x-method"), definition.get("x-side")
            if method is None:
                continue
            for kind in ("Request", "Response", "Notification"):
                if name.endswith(kind):
                    out.setdefault((method, side, kind), (schema, name))
    return out


@cache
def _validator(schema: str, name: str) -> Draft202012Validator:
    return Draft202012Validator({"$defs": _schema(schema)["$defs"], "$ref": f"#/$defs/{name}"})


def schema_problems(name: str, value: Any, schema: str = "schema.json") -> list[str]:
    """What is wrong with `value` as the schema's `$defs/<name>`; empty when valid."""
    errors = sorted(_validator(schema, name).iter_errors(value), key=lambda e: list(e.path))
    return [f"{name} at /{'/'.join(map(str, e.path))}: {e.message}" for e in errors]


def _id_ok(value: Any) -> bool:
    return value is None or (isinstance(value, int | str) and not isinstance(value, bool))


@dataclass
class WireChecker:
    """Collects one connection's messages and reports every schema violation rift made."""

    sent_by_client: dict[Any, str] = field(default_factory=dict)
    """Request id → method, for the requests the client made."""
    from_rift: list[dict[str, Any]] = field(default_factory=list)

    def client_sent(self, message: dict[str, Any]) -> None:
        if "method" in message and "id" in message and _id_ok(message["id"]):
            self.sent_by_client[message["id"]] = message["method"]

    def rift_sent(self, message: dict[str, Any]) -> None:
        self.from_rift.append(message)

    def observe(self, event: Any) -> None:
        """An SDK `StreamObserver`: INCOMING is what rift sent."""
        if event.direction.value == "incoming":
            self.rift_sent(event.message)
        else:
            self.client_sent(event.message)

    def problems(self) -> list[str]:
        out: list[str] = []
        for message in self.from_rift:
            out += [f"{p}\n  in {json.dumps(message)[:400]}" for p in self._check(message)]
        return out

    def verify(self) -> int:
        """Raise on any violation; returns how many messages were checked."""
        problems = self.problems()
        assert not problems, "rift sent messages the ACP schema rejects:\n" + "\n".join(problems)
        return len(self.from_rift)

    def _check(self, message: dict[str, Any]) -> list[str]:
        if message.get("jsonrpc") != "2.0":
            return ['missing "jsonrpc": "2.0"']
        method = message.get("method")
        if method is not None:
            if "id" in message and not _id_ok(message["id"]):
                return [f"request id {message['id']!r} is not a JSON-RPC id"]
            if method.startswith("_"):
                return []
            kind = "Request" if "id" in message else "Notification"
            found = _by_method().get((method, "client", kind))
            if found is None:
                return [f"{kind.lower()} {method!r} is not a client method of the schema"]
            return schema_problems(found[1], message.get("params"), found[0])
        if "id" not in message or not _id_ok(message["id"]):
            return ["a response without a valid id"]
        if ("result" in message) == ("error" in message):
            return ["a response needs exactly one of result and error"]
        if "error" in message:
            return schema_problems("Error", message["error"])
        answered = self.sent_by_client.get(message["id"])
        if answered is None:
            return [f"a result for id {message['id']!r}, which the client never sent"]
        if answered.startswith("_"):
            return []
        if answered in LEGACY:
            return [] if isinstance(message["result"], dict) else [f"{answered}: not an object"]
        found = _by_method().get((answered, "agent", "Response"))
        if found is None:
            return [f"a result for {answered!r}, which the schema does not define"]
        return schema_problems(found[1], message["result"], found[0])
