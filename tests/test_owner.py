"""The owner in-process, against the shipped fake server: work ends with its own task.

A face reacts to `model_changed` on the next loop step (the TUI's queued prompt, an
editor plugin's callback). By then the switch must have ended: the prompt runs, and a
second prompt while it runs is refused as busy, so two turns never run at once.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from fakes.fake_server import FakeModelServer

from rift.config.load import Overrides, load_config
from rift.core.conversation.startup import StartOptions, start_agent
from rift.events import Done, Event, ModelChanged, Warning

pytestmark = pytest.mark.timeout(30)
MODELS = [
    {"name": "fake-model", "capabilities": ["tools"], "context_length": 32768},
    {"name": "other-model", "capabilities": ["tools"], "context_length": 32768},
]


def _run(
    script: dict[str, object], tmp_path: Path, body: object, react: object = None
) -> list[Event]:
    with FakeModelServer(script) as server:
        env = {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "cfg")}
        env["XDG_DATA_HOME"] = str(tmp_path / "data")
        config = load_config(env, tmp_path, Overrides(host=server.url, model="fake-model"))
        events: list[Event] = []

        async def go() -> None:
            def emit(event: Event) -> None:
                events.append(event)
                if react is not None:
                    react(event)  # type: ignore[operator]

            started = await start_agent(config, emit, StartOptions())
            conversation = started.conversation
            try:
                await body(conversation, events)  # type: ignore[operator]
            finally:
                await conversation.close()

        asyncio.run(go())
        return events


def test_a_prompt_on_the_step_after_model_changed_runs_alone(tmp_path: Path) -> None:
    script = {
        "models": MODELS,
        "turns": [
            {"match": "warm-up", "content": "warm"},
            {"match": "queued", "content": "slow", "delay_first_byte": 0.5},
            {"match": "second", "content": "should not run"},
        ],
    }
    accepted: list[object] = []

    owner: list[object] = []

    def react(event: Event) -> None:  # the face's reaction: one loop step after the ack
        if isinstance(event, ModelChanged):
            conversation = owner[0]
            submit = conversation.submit  # type: ignore[attr-defined]
            asyncio.get_running_loop().call_soon(lambda: accepted.append(submit("queued")))

    async def body(conversation, events: list[Event]) -> None:  # type: ignore[no-untyped-def]
        owner.append(conversation)
        await conversation.run("warm-up")
        from rift.core import set_model

        assert set_model(conversation, "other-model")
        while not accepted:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.2)
        accepted.append(conversation.submit("second"))
        await asyncio.sleep(1.0)
        await conversation.wait()

    events = _run(script, tmp_path, body, react)
    assert [bool(a) for a in accepted] == [True, False]
    refusal = getattr(accepted[1], "refusal", None)
    assert getattr(refusal, "code", None) == "busy"  # a typed refusal, not just False
    assert sum(isinstance(e, Done) for e in events) == 2  # warm-up and queued, nothing else
    assert any(isinstance(e, Warning) and e.code == "busy" for e in events)
