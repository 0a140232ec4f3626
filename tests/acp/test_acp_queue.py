"""ACP's prompts through the core's queue (issue 43): the session holds no lock.

While a turn runs, a second prompt is refused (`submit(when_busy="refuse")`: a
JSON-RPC error, nothing sent to the model); after `session/cancel` the editor's
next prompt is queued by the core behind the cancelled turn and runs once it has
ended, each prompt answering with the stop reason the core reports for its own turn.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("acp")

from acp import RequestError, text_block
from acp_harness import Recorder, connect, run


def test_a_prompt_after_a_cancel_queues_in_the_core_and_one_while_busy_is_refused(
    project: Path, fake_server: Any
) -> None:
    server = fake_server(
        {
            "turns": [
                {"match": "long job", "content": "working", "never_end": " .", "chunk_delay": 0.05},
                {"match": "alpha", "content": "the queued one"},
            ]
        }
    )
    recorder = Recorder()
    order: list[str] = []

    async def scenario() -> None:
        async with connect(recorder, project, server) as rift:
            sid = (await rift.conn.new_session(cwd=str(project), mcp_servers=[])).session_id

            async def prompt(text: str) -> str:
                response = await rift.conn.prompt(session_id=sid, prompt=[text_block(text)])
                order.append(text)
                return str(response.stop_reason)

            long = asyncio.create_task(prompt("long job"))
            await recorder.wait_for(lambda: "working" in recorder.text())
            with pytest.raises(RequestError) as refused:  # busy: refused, not queued
                await rift.conn.prompt(session_id=sid, prompt=[text_block("refused one")])
            assert refused.value.code == -32600
            await rift.conn.cancel(session_id=sid)
            alpha = asyncio.create_task(prompt("alpha"))  # sent before the cancel has ended
            endings = await asyncio.wait_for(asyncio.gather(long, alpha), 20)
            assert endings == ["cancelled", "end_turn"]

    run(scenario())
    assert order == ["long job", "alpha"]  # the queued prompt answered after the cancelled one
    sent = [json.dumps(r["messages"][-1]) for r in server.chat_requests()]
    assert len(sent) == 2 and "alpha" in sent[1]  # the refused prompt never reached the model
    assert recorder.text().endswith("the queued one")


def test_a_command_sent_right_after_a_cancel_waits_for_the_cancel_to_end(
    project: Path, fake_server: Any
) -> None:
    """`/clear` refuses while a turn runs; sent at once after `session/cancel`, it must
    wait for the cancelled turn to end and then clear, not meet the still-busy owner.
    Whether the cancel has ended by then is a race, so it runs eight times."""
    rounds = 8
    long_job = {"match": "long job", "content": "working", "never_end": " .", "chunk_delay": 0.05}
    server = fake_server({"turns": [long_job] * rounds})
    recorder = Recorder()

    async def scenario() -> list[list[str]]:
        endings = []
        async with connect(recorder, project, server) as rift:
            for _ in range(rounds):
                sid = (await rift.conn.new_session(cwd=str(project), mcp_servers=[])).session_id

                async def prompt(text: str, sid: str = sid) -> str:
                    response = await rift.conn.prompt(session_id=sid, prompt=[text_block(text)])
                    return str(response.stop_reason)

                long = asyncio.create_task(prompt("long job"))
                await recorder.wait_for(lambda: recorder.text().count("working") > len(endings))
                await rift.conn.cancel(session_id=sid)
                clear = asyncio.create_task(prompt("/clear"))  # before the cancel has ended
                endings.append(list(await asyncio.wait_for(asyncio.gather(long, clear), 20)))
        return endings

    assert run(scenario()) == [["cancelled", "end_turn"]] * rounds
    assert recorder.text().count("Started a fresh conversation.") == rounds
