"""`/think` and effort: the words, and what a real agent then sends (fake server)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from fakes.fake_server import FakeModelServer

from rift.config.load import Overrides, load_config
from rift.core import set_thinking
from rift.core.conversation.startup import StartOptions, start_agent
from rift.events import Event
from rift.models.thinking import describe, parse_think

pytestmark = pytest.mark.timeout(30)


def test_think_words() -> None:
    assert parse_think("off", can_think=False) is False
    assert parse_think(" ON ", can_think=True) is True
    assert parse_think("auto", can_think=True) is None
    assert parse_think("xhigh", can_think=True) == "xhigh"
    with pytest.raises(ValueError, match="does not report the 'thinking' capability"):
        parse_think("high", can_think=False)
    with pytest.raises(ValueError, match=r"on\|off\|auto or an effort level"):
        parse_think("loud", can_think=True)
    assert describe("low") == "thinking: on, effort low"


def _think_values(capabilities: list[str], words: list[str], tmp_path: Path) -> list[Any]:
    """Run one turn after each `/think` word; the `think` each request carried."""
    model = {"name": "m", "capabilities": capabilities, "context_length": 8192}
    turns = [{"content": "ok"} for _ in words]
    with FakeModelServer({"models": [model], "turns": turns}) as server:
        env = {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "cfg")}
        env["XDG_DATA_HOME"] = str(tmp_path / "data")
        config = load_config(env, tmp_path, Overrides(host=server.url, model="m", effort="low"))
        events: list[Event] = []

        async def go() -> None:
            started = await start_agent(config, events.append, StartOptions(attached=False))
            conversation = started.conversation
            try:
                for word in words:
                    set_thinking(conversation, word)
                    await conversation.run("hi")
            finally:
                await conversation.close()

        asyncio.run(go())
        return [body.get("think", "(absent)") for body in server.chat_requests()]


def test_think_command_changes_what_the_next_request_sends(tmp_path: Path) -> None:
    words = ["", "off", "high", "auto", "on"]
    assert _think_values(["tools", "thinking"], words, tmp_path) == [
        "low",  # the configured effort
        False,
        "high",
        "(absent)",
        True,
    ]


def test_think_cannot_switch_on_a_model_without_thinking(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="thinking"):
        _think_values(["tools"], ["on"], tmp_path)
